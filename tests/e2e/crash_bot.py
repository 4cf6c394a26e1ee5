"""Child process of the crash-injection tests: the real bot, on a stand-in the parent runs.

Usage: python -m tests.e2e.crash_bot DATABASE API_BASE GATEWAY_URL TOKEN

It points discord.py at the stand-in, starts `FairyPost` on the database and prints `ready`
once connected (its timers and effects loops then run as in production). The test arms a
crash point through FAIRYPOST_CRASH_FILE (storage/crashpoints.py): the process then dies by
SIGKILL exactly there. SIGTERM stops it cleanly.
"""

from __future__ import annotations

import asyncio
import signal
import sys

import discord.gateway
import discord.http
import yarl

from bot.client import FairyPost


async def serve(database: str, api_base: str, gateway_url: str, token: str) -> None:
    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    bot = FairyPost(database=database)
    bot._connection.guild_ready_timeout = 0.2  # as the in-process harness does

    async def announce() -> None:
        await bot.wait_until_ready()
        sys.stdout.write("ready\n")
        sys.stdout.flush()

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))
    async with bot:
        ready = asyncio.create_task(announce())
        await bot.start(token)
        ready.cancel()


if __name__ == "__main__":
    asyncio.run(serve(*sys.argv[1:5]))
