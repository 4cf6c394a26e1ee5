"""The running bot backs its database up on its schedule: a verified copy at start-up and one
a day after it (the schedule lives in the file names), the newest kept, each logged with
where it went; the copy holds what players did and is what `storage restore` puts back."""

from __future__ import annotations

import asyncio
import io
import logging
import sqlite3
from pathlib import Path

import pytest

from bot.app import database_sound
from bot.client import FairyPost
from bot.config import load_settings
from bot.service import ManualClock
from bot.service.backups import BackupPlan
from localdiscord import run_bot
from storage.__main__ import main
from storage.backup import list_backups
from storage.health import file_health
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import POST_TIMEOUT, play, start_game
from tests.storage.test_damage import damage

DAY = 86_400


async def backups_made(folder: Path, count: int) -> list[Path]:
    """Polls (generously: the machine may be busy) until `count` backups were made."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + POST_TIMEOUT * 3
    while len(found := list_backups(folder)) < count:
        if loop.time() > deadline:
            raise AssertionError(f"{len(found)} backups in {folder}, expected {count}")
        await asyncio.sleep(0.1)
    return found


async def until_gone(folder: Path, old: Path) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + POST_TIMEOUT * 3
    while old in list_backups(folder):
        if loop.time() > deadline:
            raise AssertionError(f"{old} was never dropped")
        await asyncio.sleep(0.1)


async def until_logged(caplog: pytest.LogCaptureFixture, count: int) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + POST_TIMEOUT * 3
    while len([r for r in caplog.records if r.name == "fairypost.backups"]) < count:
        if loop.time() > deadline:
            raise AssertionError(f"fewer than {count} backups logged")
        await asyncio.sleep(0.1)


def games_in(path: Path) -> int:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])
    finally:
        conn.close()


async def test_the_running_bot_backs_up_on_its_schedule(
    world: World, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "fairypost.backups")
    db = tmp_path / "fairypost.sqlite3"
    folder = tmp_path / "backups"
    clock = ManualClock()
    bot = FairyPost(database=db, clock=clock, backups=BackupPlan(folder, DAY, keep=2))
    async with run_bot(world.fake, bot):
        (first,) = await backups_made(folder, 1)  # none yet: one at start-up
        assert games_in(first) == 0
        await start_game(world, "chess", world.alice, world.bob)
        assert bot._backups is not None
        clock.advance(DAY)
        bot._backups.poke()  # the loop sleeps on the real clock; the test moved its own
        await backups_made(folder, 2)
        clock.advance(DAY)
        bot._backups.poke()
        await until_gone(folder, first)  # the third one made, the oldest dropped
        await until_logged(caplog, 3)  # the loop logs it right after
    kept = list_backups(folder)
    assert len(kept) == 2 and first not in kept  # the newest 2 kept
    assert all(file_health(p, full=True).ok for p in kept)
    assert games_in(kept[-1]) == 1  # the game played before it
    logged = [r.getMessage() for r in caplog.records if r.name == "fairypost.backups"]
    assert len(logged) == 3
    for line, path in zip(logged[1:], kept, strict=True):
        assert line == (f"backed up {db} to {path} (integrity verified; keeping the newest 2)"), (
            line
        )


async def test_a_damaged_database_is_refused_and_restored_by_one_command(
    world: World, tmp_path: Path
) -> None:
    """The whole story an operator lives: the bot backs up while a game goes on, the file is
    damaged while it is stopped, the start-up check refuses it, `python -m storage restore
    --latest` puts the newest backup back (the damaged file kept aside), and the restarted
    bot serves the game from where the backup left it."""
    fake = world.fake
    db = tmp_path / "fairypost.sqlite3"
    folder = tmp_path / "backups"
    clock = ManualClock()
    plan = BackupPlan(folder, DAY, keep=7)
    bot = FairyPost(database=db, clock=clock, backups=plan)
    async with run_bot(fake, bot):
        await backups_made(folder, 1)
        thread, _ = await start_game(world, "chess", world.alice, world.bob)
        assert " played **" in (await play(fake, world.alice, thread, "e2e4")).text
        clock.advance(DAY)
        assert bot._backups is not None
        bot._backups.poke()
        await backups_made(folder, 2)
    with sqlite3.connect(db) as conn:  # everything in the main file, as after a clean stop
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    damage(db)

    settings = load_settings(
        {"DISCORD_TOKEN": "t", "FAIRYPOST_DB": str(db), "FAIRYPOST_BACKUP_DIR": str(folder)},
        dotenv=tmp_path / "none",
    )
    assert not await database_sound(settings)  # the refusal's log line: test_damage.py

    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["restore", "--latest", "--db", str(db), "--backups", str(folder)], out=out, err=err
    )
    assert code == 0, err.getvalue()
    assert f"from {list_backups(folder)[-1]}" in out.getvalue()
    assert [p for p in tmp_path.iterdir() if p.name.startswith("fairypost.sqlite3.damaged-")]
    assert await database_sound(settings)

    async with run_bot(fake, FairyPost(database=db, clock=clock)):
        reply = await play(fake, world.bob, thread, "e7e5")
        assert " played **" in reply.text, reply.text
