"""A local Discord stand-in for end-to-end tests of discord.py bots.

Typical use::

    async with FakeDiscord() as fake:
        guild = fake.add_guild("Fairy Club")
        lobby = fake.add_channel(guild, "lobby")
        alice = fake.add_user("alice", guild=guild)
        async with run_bot(fake, MyBot()) as runner:
            rec = await fake.slash(alice, lobby, "ping")
            msg = await rec.reply()
"""

from .gateway import GatewayConnection, GatewaySession
from .harness import (
    PINNED_DISCORD_VERSION,
    BotRunner,
    RedirectHooksChanged,
    check_redirect_hooks,
    redirect_discord,
    run_bot,
)
from .models import (
    Choice,
    FakeAttachment,
    FakeChannel,
    FakeDiscordUsageError,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionRecord,
    RecordedRequest,
    Violation,
)
from .server import DiscordError, FakeDiscord

__all__ = [
    "PINNED_DISCORD_VERSION",
    "BotRunner",
    "Choice",
    "DiscordError",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordUsageError",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "GatewayConnection",
    "GatewaySession",
    "InteractionRecord",
    "RecordedRequest",
    "RedirectHooksChanged",
    "Violation",
    "check_redirect_hooks",
    "redirect_discord",
    "run_bot",
]
