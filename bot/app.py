"""Process start-up: logging, the client, signals, and a clean exit code."""

from __future__ import annotations

import asyncio
import logging
import signal

import aiohttp
import discord

from bot.client import FairyPost
from bot.config import Settings
from bot.logs import setup_logging

log = logging.getLogger("fairypost")


async def serve(settings: Settings) -> int:
    shards = settings.shards
    bot = FairyPost(
        database=settings.database,
        dev_guild=settings.dev_guild,
        shard_ids=None if shards is None else list(shards.ids),
        shard_count=None if shards is None else shards.count,
    )
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, lambda: asyncio.ensure_future(bot.close()))
    try:
        async with bot:
            await bot.start(settings.require_token())
    except discord.LoginFailure:
        log.error(
            "Discord refused the token: check DISCORD_TOKEN (Developer Portal > Bot > Reset Token)"
        )
        return 2
    except discord.PrivilegedIntentsRequired:
        log.error("Discord refused the requested intents")
        return 2
    except (aiohttp.ClientError, OSError) as exc:
        log.error("cannot reach Discord (%s): check the network connection and try again", exc)
        return 1
    log.info("stopped")
    return 0


def run(settings: Settings) -> int:
    """Start the bot and block until it stops (Ctrl-C or SIGTERM stop it gracefully)."""
    setup_logging(settings.log_level)
    try:
        return asyncio.run(serve(settings))
    except KeyboardInterrupt:
        return 0
