"""`python -m bot invite`: the link that adds the bot to a server with exactly the
permissions it needs, nothing more (no administrator, no moderation rights)."""

from __future__ import annotations

import base64
import binascii

import discord

from bot.config import ConfigError

SCOPES = ("bot", "applications.commands")


def permissions() -> discord.Permissions:
    """What the bot does in a channel: read it, post challenges with pictures, open a
    public thread per game and post in it (sending there also reopens an archived one)."""
    return discord.Permissions(
        view_channel=True,
        send_messages=True,
        embed_links=True,
        attach_files=True,
        read_message_history=True,
        create_public_threads=True,
        send_messages_in_threads=True,
    )


def application_id_from_token(token: str) -> int:
    """A bot token starts with the bot's user id in base64, which is its application id."""
    head = token.split(".", 1)[0]
    try:
        text = base64.b64decode(head + "=" * (-len(head) % 4), validate=False).decode("ascii")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise ConfigError(_NO_ID) from exc
    if not text.isdigit():
        raise ConfigError(_NO_ID)
    return int(text)


_NO_ID = (
    "cannot read the application id from DISCORD_TOKEN; pass it with --client-id "
    "(Developer Portal > your application > General Information > Application ID)"
)


def invite_url(application_id: int, guild_id: int | None = None) -> str:
    guild = discord.Object(guild_id) if guild_id else discord.utils.MISSING
    return discord.utils.oauth_url(
        application_id, permissions=permissions(), scopes=SCOPES, guild=guild
    )
