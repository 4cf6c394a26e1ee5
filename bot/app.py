"""Process start-up: logging, the client, signals, retries, and a clean exit code."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass

import aiohttp
import discord

from bot.client import FairyPost
from bot.config import Settings
from bot.logs import setup_logging
from bot.service.backups import BackupPlan
from bot.service.opponent import EngineConfig
from storage.backup import backup_folder, backup_hint
from storage.db import parse_target
from storage.errors import StorageError
from storage.health import file_health

log = logging.getLogger("fairypost")

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Backoff:
    """Waits between attempts to reach Discord at start-up: 2 s, doubling up to a minute,
    until `give_up_after` seconds have been spent waiting (then the process exits 1 and a
    service manager may start it again). Once connected, discord.py reconnects by itself."""

    first: float = 2.0
    factor: float = 2.0
    longest: float = 60.0
    give_up_after: float = 300.0

    def delays(self) -> Iterator[float]:
        waited, delay = 0.0, self.first
        while waited + delay <= self.give_up_after:
            yield delay
            waited += delay
            delay = min(self.longest, delay * self.factor)


UNREACHABLE = (aiohttp.ClientError, OSError, discord.DiscordServerError)


async def database_sound(settings: Settings) -> bool:
    """The start-up check: a SQLite file SQLite finds damaged is refused, with one line that
    names the file and the command restoring the newest automatic backup. It is the full
    `integrity_check`: it also finds an index out of step with its table (a deadline the
    timer query would never see), which quick_check does not, for a fraction of a second
    more on the 10,000-game benchmark database (README, "Start-up check")."""
    path = parse_target(settings.database).path
    if path is None or not path.exists():
        return True  # PostgreSQL checks its own pages; a new file is created sound
    began = time.perf_counter()
    try:
        health = await asyncio.to_thread(file_health, path, full=True)
    except StorageError as exc:
        log.error("cannot check the database %s: %s", path, exc)
        return False
    if health.ok:
        log.info("database %s: integrity_check ok (%.1f s)", path, time.perf_counter() - began)
        return True
    folder = backup_folder(settings.database, settings.backup_dir)
    log.error(
        "the database %s is damaged (%s); not starting. %s",
        path,
        health.summary,
        backup_hint(settings.database, folder),
    )
    return False


def engine_config(settings: Settings) -> EngineConfig:
    return EngineConfig(
        settings.engine_workers,
        settings.engine_pause_ms / 1000,
        fairy_stockfish=settings.fairy_stockfish,
    )


def backup_plan(settings: Settings) -> BackupPlan | None:
    folder = backup_folder(settings.database, settings.backup_dir)
    if folder is None or settings.backup_hours == 0:
        return None
    return BackupPlan(folder, settings.backup_hours * 3600, settings.backup_keep)


async def serve(
    settings: Settings,
    *,
    make_bot: Callable[[], FairyPost] | None = None,
    sleep: Sleep | None = None,
) -> int:
    """Run the bot until it is stopped; retry with back-off while Discord is unreachable."""
    token = settings.require_token()
    if make_bot is None and not await database_sound(settings):
        return 2
    backoff = Backoff(give_up_after=settings.startup_retry)

    def build() -> FairyPost:
        if make_bot is not None:
            return make_bot()
        shards = settings.shards
        return FairyPost(
            database=settings.database,
            dev_guild=settings.dev_guild,
            shard_ids=None if shards is None else list(shards.ids),
            shard_count=None if shards is None else shards.count,
            backups=backup_plan(settings),
            engine=engine_config(settings),
        )

    stopping = asyncio.Event()
    current: list[FairyPost] = []
    closing: set[asyncio.Task[None]] = set()

    def stop() -> None:
        stopping.set()
        for bot in current:
            task = asyncio.ensure_future(bot.close())
            closing.add(task)
            task.add_done_callback(closing.discard)

    async def wait(delay: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), delay)

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread
            loop.add_signal_handler(sig, stop)
    delays = backoff.delays()
    attempt = 0
    while not stopping.is_set():
        attempt += 1
        bot = build()
        current[:] = [bot]
        try:
            async with bot:
                await bot.start(token)
        except discord.LoginFailure:
            log.error(
                "Discord refused the token: check DISCORD_TOKEN "
                "(Developer Portal > Bot > Reset Token)"
            )
            return 2
        except discord.PrivilegedIntentsRequired:
            log.error("Discord refused the requested intents")
            return 2
        except StorageError as exc:
            log.error("cannot use the database: %s", exc)
            return 2
        except UNREACHABLE as exc:
            if bot.user is not None:  # it had logged in: a fresh outage, a fresh budget
                delays, attempt = backoff.delays(), 1
            delay = next(delays, None)
            if delay is None:
                log.error(
                    "cannot reach Discord (%s) after %d attempts over %.0f s: giving up; "
                    "check the network connection",
                    exc,
                    attempt,
                    backoff.give_up_after,
                    extra={"attempts": attempt},
                )
                return 1
            log.warning(
                "cannot reach Discord (%s): retrying in %.0f s",
                exc,
                delay,
                extra={"attempt": attempt, "retry_in": delay},
            )
            await (sleep or wait)(delay)
            continue
        break
    log.info("stopped")
    return 0


def run(settings: Settings) -> int:
    """Start the bot and block until it stops (Ctrl-C or SIGTERM stop it gracefully)."""
    setup_logging(settings.log_level)
    try:
        return asyncio.run(serve(settings))
    except KeyboardInterrupt:
        return 0
