"""What every cog shares: turning Discord users into `UserRef`s, sending pictures, and
replying to errors (through `bot.replies`, the one place that words them)."""

from __future__ import annotations

import io
import logging
from typing import Any

import discord

from bot.replies import reply_for
from bot.service.models import Picture, UserRef

log = logging.getLogger("fairypost.bot")


def user_ref(user: discord.abc.User) -> UserRef:
    return UserRef(user.id, user.display_name, user.bot)


def picture_file(picture: Picture) -> discord.File:
    return discord.File(io.BytesIO(picture.png), filename=picture.filename)


async def send_error(
    interaction: discord.Interaction[Any], exc: BaseException, context: str
) -> None:
    """An ephemeral reply saying what went wrong (or an apology with an error id)."""
    text = reply_for(exc, context)
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not deliver an error reply for %s", context, exc_info=True)
