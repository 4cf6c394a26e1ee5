"""A local stand-in of Discord (HTTP API v10 and gateway) for discord.py bots.

A product part of Fairy Post: local mode (``make run`` without a token) serves
:class:`LocalDiscord` with its web page (``localdiscord.web``), and the end-to-end tests use
:class:`FakeDiscord` (``localdiscord.testing``: the same server plus test conveniences).
Both validate everything the bot sends against Discord's limits. Typical test::

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
    CommandNotPermittedError,
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
from .server import DiscordError, LocalDiscord
from .testing import FakeDiscord

__all__ = [
    "PINNED_DISCORD_VERSION",
    "BotRunner",
    "Choice",
    "CommandNotPermittedError",
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
    "LocalDiscord",
    "RecordedRequest",
    "RedirectHooksChanged",
    "Violation",
    "check_redirect_hooks",
    "redirect_discord",
    "run_bot",
]
