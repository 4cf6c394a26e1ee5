"""Automatic backups: an online copy of the SQLite database on a schedule, each one verified.

Every `every_seconds` (FAIRYPOST_BACKUP_HOURS, default 24) the bot copies the database with
SQLite's online backup API while it keeps serving (storage/backup.py), runs the full
integrity check on the copy, logs where it went, and keeps the newest `keep`
(FAIRYPOST_BACKUP_KEEP, default 7) in the folder (FAIRYPOST_BACKUP_DIR, default `backups/`
beside the database). The schedule lives in the files themselves: the next backup is due
`every_seconds` after the newest one in the folder, so restarts neither skip nor repeat one.
A copy that fails its check is logged as an error: the live database is probably damaged.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path

from bot.service.clock import Clock
from storage.backup import backup_time, list_backups, scheduled_backup
from storage.errors import StorageError

log = logging.getLogger("fairypost.backups")
RETRY_SECONDS = 3600


@dataclass(frozen=True, slots=True)
class BackupPlan:
    folder: Path
    every_seconds: int
    keep: int


class BackupService:
    def __init__(self, database: Path, plan: BackupPlan, clock: Clock) -> None:
        self.database = database
        self.plan = plan
        self.clock = clock
        self.made: list[Path] = []
        self._retry_at = 0

    async def next_due_at(self) -> int:
        backups = list_backups(self.plan.folder)
        last = backup_time(backups[-1]) if backups else None
        due = self.clock.now() if last is None else last + self.plan.every_seconds
        return max(due, self._retry_at)

    async def run_due(self) -> int:
        """Makes the backup if one is due; returns how many were made (0 or 1)."""
        now = self.clock.now()
        if now < await self.next_due_at():
            return 0
        try:
            path = await asyncio.to_thread(
                scheduled_backup, self.database, self.plan.folder, now, keep=self.plan.keep
            )
        except (StorageError, OSError) as exc:
            self._retry_at = now + RETRY_SECONDS
            log.error(
                "automatic backup of %s FAILED (trying again in an hour): %s", self.database, exc
            )
            return 0
        self.made.append(path)
        log.info(
            "backed up %s to %s (integrity verified; keeping the newest %d)",
            self.database,
            path,
            self.plan.keep,
        )
        return 1
