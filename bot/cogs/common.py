"""What every cog shares: the client as cogs see it (`Fairy`), registering a cog with its
persistent components (`install`), turning Discord users into `UserRef`s, sending
pictures, and replying to errors (through `bot.replies`, the one place that words them).

Cogs and `bot.ui` never import `bot.client`: the client imports them (by the extension
names in `bot.cogs.EXTENSIONS`) and hands itself over as a `Fairy`.
"""

from __future__ import annotations

import io
import logging
from typing import Any, Protocol, runtime_checkable

import discord
from discord.ext import commands

from bot.replies import reply_for
from bot.service.errors import BadRequestError
from bot.service.games import GameService
from bot.service.inputs import player_name
from bot.service.models import Animation, Picture, UserRef
from bot.service.opponent import OpponentService
from bot.service.tournaments import TournamentService
from bot.ui.fit import fit_content

log = logging.getLogger("fairypost.bot")


class Timers(Protocol):
    def poke(self) -> None:
        """Something may now be due earlier: the loop (timers, effects) looks again."""


@runtime_checkable
class Fairy(Protocol):
    """What cogs and components need from the client."""

    @property
    def service(self) -> GameService: ...

    @property
    def tournaments(self) -> TournamentService: ...

    @property
    def opponent(self) -> OpponentService: ...

    @property
    def timers(self) -> Timers: ...

    @property
    def effects(self) -> Timers:
        """The loop carrying out what events set off (posts, ratings): poke it after one."""


def fairy(client: discord.Client | commands.Bot) -> Fairy:
    """The client of an interaction or a cog's `setup`, as a `Fairy`."""
    if not isinstance(client, Fairy):
        raise TypeError(f"{type(client).__name__} is not the Fairy Post client")
    return client


async def install(
    bot: commands.Bot,
    cog: commands.Cog | None,
    *components: type[discord.ui.DynamicItem[Any]],
) -> None:
    """Add a cog and the persistent components (buttons, selects) it answers. A component
    is a `DynamicItem` whose custom id carries what it acts on, so it keeps working after
    a restart; define it beside the cog that handles it and list it here."""
    if cog is not None:
        await bot.add_cog(cog)
    if components:
        bot.add_dynamic_items(*components)


def user_ref(user: discord.abc.User) -> UserRef:
    """The user as the service knows them, with a display name fit to be shown."""
    return UserRef(user.id, player_name(user.id, user.display_name), user.bot)


def guild_of(interaction: discord.Interaction[Any]) -> int:
    """The server a command was used in. Server-only commands are declared so, and Discord
    does not offer them elsewhere; should one still arrive from a DM, the player is told
    (an `assert` would be gone under `python -O` and is no way to refuse input)."""
    if interaction.guild_id is None:
        raise BadRequestError("This command works in a server's channels, not in messages.")
    return interaction.guild_id


def channel_of(interaction: discord.Interaction[Any]) -> int:
    """The channel a command was used in (see `guild_of`)."""
    if interaction.channel_id is None:
        raise BadRequestError("This command works in a server's channels, not in messages.")
    return interaction.channel_id


def picture_file(picture: Picture) -> discord.File:
    return discord.File(
        io.BytesIO(picture.png),
        filename=picture.filename,
        description=picture.description or None,
    )


def animation_file(animation: Animation) -> discord.File:
    return discord.File(
        io.BytesIO(animation.data),
        filename=animation.filename,
        description=animation.description or None,
    )


PUBLIC_WAIT = "fairypost_public_wait"


async def defer_first(interaction: discord.Interaction[Any], *, ephemeral: bool = False) -> None:
    """Acknowledge at once, before any work that may take long (Discord's 3-second rule):
    a game's first touch in a fresh process replays it, 1.4 s for 400 Bigorra plies).
    A refusal after a public acknowledgement still reaches the player alone (`send_error`)."""
    if interaction.response.is_done():
        return
    await interaction.response.defer(thinking=True, ephemeral=ephemeral)
    interaction.extras[PUBLIC_WAIT] = not ephemeral


def answered(interaction: discord.Interaction[Any]) -> None:
    """The public "thinking…" message has been replaced by the answer."""
    interaction.extras[PUBLIC_WAIT] = False


async def send_error(
    interaction: discord.Interaction[Any], exc: BaseException, context: str
) -> None:
    """An ephemeral reply saying what went wrong (or an apology with an error id). After a
    public acknowledgement, the "thinking…" message is removed first: refusals are private."""
    text = reply_for(exc, context)
    try:
        await reply_privately(interaction, text)
    except discord.HTTPException:
        log.warning("could not deliver an error reply for %s", context, exc_info=True)


async def reply_privately(interaction: discord.Interaction[Any], text: str) -> None:
    """A reply only the actor sees, however the interaction was acknowledged (a public
    "thinking…" message is removed first)."""
    text = fit_content(text)  # a refusal may quote what a player wrote
    if not interaction.response.is_done():
        await interaction.response.send_message(text, ephemeral=True)
        return
    if interaction.extras.get(PUBLIC_WAIT):
        answered(interaction)
        await interaction.delete_original_response()
    await interaction.followup.send(text, ephemeral=True)
