"""Automatic backups on a schedule kept in the files themselves, and their settings."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings
from bot.service import ManualClock
from bot.service.backups import BackupPlan, BackupService
from storage import Storage
from storage.backup import list_backups
from storage.health import file_health

DAY = 86_400


@pytest.fixture
async def database(tmp_path: Path) -> Path:
    """A SQLite database with its schema (automatic backups are for SQLite files)."""
    path = tmp_path / "fairypost.sqlite3"
    async with await Storage.open(path):
        pass
    return path


async def test_a_backup_a_day_the_newest_kept_across_restarts(
    database: Path, tmp_path: Path, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "backups"
    plan = BackupPlan(folder, DAY, keep=3)
    service = BackupService(database, plan, clock)
    assert await service.next_due_at() == clock.now()  # none yet: one at start
    with caplog.at_level(logging.INFO, "fairypost.backups"):
        assert await service.run_due() == 1
    assert f"to {folder}" in caplog.text and "integrity verified" in caplog.text
    assert await service.run_due() == 0
    assert await service.next_due_at() == clock.now() + DAY
    for _ in range(4):
        clock.advance(DAY)
        restarted = BackupService(database, plan, clock)  # the schedule is in the files
        assert await restarted.run_due() == 1
    kept = list_backups(folder)
    assert len(kept) == 3 and all(file_health(p, full=True).ok for p in kept)


async def test_a_failed_backup_is_an_error_and_waits_an_hour(
    database: Path, tmp_path: Path, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the folder should be")
    service = BackupService(database, BackupPlan(blocked, DAY, 7), clock)
    with caplog.at_level(logging.ERROR, "fairypost.backups"):
        assert await service.run_due() == 0
    assert "FAILED" in caplog.text
    assert await service.next_due_at() == clock.now() + 3600


def test_backup_settings(tmp_path: Path) -> None:
    base = {"DISCORD_TOKEN": "t", "FAIRYPOST_DB": str(tmp_path / "db.sqlite3")}
    settings = load_settings(base, dotenv=tmp_path / "none")
    assert (settings.backup_dir, settings.backup_hours, settings.backup_keep) == (None, 24, 7)
    custom = load_settings(
        {
            **base,
            "FAIRYPOST_BACKUP_DIR": "/srv/fp",
            "FAIRYPOST_BACKUP_HOURS": "6",
            "FAIRYPOST_BACKUP_KEEP": "30",
        },
        dotenv=tmp_path / "none",
    )
    assert (custom.backup_dir, custom.backup_hours, custom.backup_keep) == (Path("/srv/fp"), 6, 30)
    assert (
        load_settings({**base, "FAIRYPOST_BACKUP_HOURS": "0"}, dotenv=tmp_path / "x").backup_hours
        == 0
    )
    with pytest.raises(ConfigError, match="FAIRYPOST_BACKUP_KEEP"):
        load_settings({**base, "FAIRYPOST_BACKUP_KEEP": "0"}, dotenv=tmp_path / "none")
    with pytest.raises(ConfigError, match="FAIRYPOST_BACKUP_HOURS"):
        load_settings({**base, "FAIRYPOST_BACKUP_HOURS": "daily"}, dotenv=tmp_path / "none")
