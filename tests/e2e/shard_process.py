"""One bot process of the multi-process end-to-end test (tests/e2e/test_processes.py).

    python -m tests.e2e.shard_process API_BASE GATEWAY_URL TOKEN DATABASE SHARD/COUNT CLOCK LEASE

Points discord.py at the stand-in (the harness's redirect, without its in-process parts),
runs the real FairyPost for one shard of COUNT on DATABASE, with leases of LEASE seconds and
a clock the test moves: the time is the wall clock plus the seconds written in the file CLOCK.
When the file changes, the timer and effect loops are poked, as a move would poke them.
SIGTERM stops it cleanly; the crash points of `storage.crashpoints` work as in the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from pathlib import Path

import discord.gateway
import discord.http
import yarl

from bot.client import FairyPost
from bot.service.pictures import RendererPictures


class FileClock:
    """Wall time plus the offset in a file (integer seconds), re-read when it changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._read_version = -1
        self._seen_version = -1
        self.offset = 0

    def _read(self) -> int:
        version = self.path.stat().st_mtime_ns
        if version != self._read_version:
            self._read_version = version
            self.offset = int(self.path.read_text().strip() or 0)
        return version

    def moved(self) -> bool:
        """True once after each change of the file (for the loop that pokes the timers)."""
        version = self._read()
        if version == self._seen_version:
            return False
        self._seen_version = version
        return True

    def now(self) -> int:
        self._read()
        return int(time.time()) + self.offset


async def main(argv: list[str]) -> int:
    api, gateway, token, database, shards, clock_file, lease = argv
    shard, _, count = shards.partition("/")
    discord.http.Route.BASE = api
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    clock = FileClock(Path(clock_file))
    bot = FairyPost(
        database=database,
        clock=clock,
        pictures=RendererPictures(),
        shard_ids=[int(shard)],
        shard_count=int(count),
        lease_seconds=int(lease),
    )
    bot._connection.guild_ready_timeout = 0.1
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))

    async def follow_the_clock() -> None:
        await bot.wait_until_ready()
        while True:
            if clock.moved():
                bot.timers.poke()
                bot.effects.poke()
            await asyncio.sleep(0.1)  # a test helper polling a file, not a synchronisation

    follower = asyncio.create_task(follow_the_clock())
    try:
        async with bot:
            await bot.start(token)
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower
    return 0


if __name__ == "__main__":
    logging.basicConfig(
        level=logging.INFO,
        format=f"[shard {sys.argv[5]}] %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    sys.exit(asyncio.run(main(sys.argv[1:])))
