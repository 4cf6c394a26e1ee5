"""Consistent copies of a live database through SQLite's online backup API, and restores.

The copy is taken in one step from a read snapshot, so writers are never blocked (WAL) and the
backup never restarts. It is written to a temporary name, checked, synced and then renamed,
so `target` is either the previous file or a complete, verified copy. A source SQLite cannot
read is reported as `DatabaseDamagedError`, never as a raw `sqlite3.DatabaseError`.

The bot's automatic backups are `fairypost-YYYYMMDD-HHMMSS.sqlite3` files (UTC) in one folder:
`scheduled_backup` writes the next one and keeps the newest `keep`. `restore_file` puts one
back in place of the database: only while no bot holds the database's instance lock, only a
copy that passes SQLite's full integrity check, and the file it replaces is kept aside.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import re
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from storage.errors import DatabaseDamagedError, DatabaseUnavailableError, InvalidValueError
from storage.health import file_health
from storage.instance import InstanceLock, lock_path

BACKUP_PREFIX = "fairypost-"
_BACKUP_NAME = re.compile(r"^fairypost-(\d{8})-(\d{6})\.sqlite3$")


def backup_file(source: Path, target: Path, *, busy_timeout_ms: int = 5_000) -> None:
    """Copies the database at `source` to `target` (blocking; see `backup_database`)."""
    source = Path(source)
    target = Path(target)
    if not source.is_file():
        raise DatabaseUnavailableError(f"there is no database at {source}")
    if target.exists() and target.resolve() == source.resolve():
        raise InvalidValueError("the backup must not overwrite the database itself")
    if target.is_dir():
        raise InvalidValueError(f"{target} is a folder; give the backup a file name")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=rw", uri=True)
    except sqlite3.Error as exc:
        raise DatabaseUnavailableError(f"cannot open the database {source}: {exc}") from exc
    try:
        src.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        dst = sqlite3.connect(partial)
        try:
            try:
                src.backup(dst)
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise DatabaseUnavailableError(f"cannot read {source}: {exc}") from exc
                raise DatabaseDamagedError(f"{source} cannot be copied: {exc}") from exc
            except sqlite3.DatabaseError as exc:
                raise DatabaseDamagedError(f"{source} is damaged: {exc}") from exc
            # A self-contained file: no -wal or -shm needed to copy it around.
            dst.execute("PRAGMA journal_mode = DELETE")
            try:
                verdict = dst.execute("PRAGMA integrity_check").fetchone()[0]
            except sqlite3.DatabaseError as exc:
                verdict = str(exc)
            if verdict != "ok":
                raise DatabaseDamagedError(
                    f"the copy of {source} failed its integrity check ({verdict}): "
                    "the database itself is probably damaged"
                )
        finally:
            dst.close()
        _fsync(partial)
        os.replace(partial, target)
        _fsync(target.parent)
    finally:
        src.close()
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()


async def backup_database(source: Path, target: Path) -> None:
    """Backs up a database another connection (the bot) may be writing, off the event loop."""
    await asyncio.to_thread(backup_file, source, target)


def backup_time(path: Path) -> int | None:
    """The UTC time in an automatic backup's name, or None if it is not one."""
    m = _BACKUP_NAME.match(path.name)
    if m is None:
        return None
    try:
        when = dt.datetime.strptime(m[1] + m[2], "%Y%m%d%H%M%S").replace(tzinfo=dt.UTC)
    except ValueError:
        return None
    return int(when.timestamp())


def list_backups(folder: Path) -> list[Path]:
    """The automatic backups in `folder`, oldest first."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.is_file() and backup_time(p) is not None]
    return sorted(found, key=lambda p: (backup_time(p), p.name))


def scheduled_backup(source: Path, folder: Path, now: int, *, keep: int) -> Path:
    """Writes `folder/fairypost-<UTC time>.sqlite3` (verified, see `backup_file`), then
    removes all but the newest `keep` automatic backups. Returns the new file."""
    if keep < 1:
        raise InvalidValueError("keep at least one backup")
    stamp = dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y%m%d-%H%M%S")
    target = Path(folder) / f"{BACKUP_PREFIX}{stamp}.sqlite3"
    backup_file(Path(source), target)
    for old in list_backups(Path(folder))[:-keep]:
        with contextlib.suppress(FileNotFoundError):
            old.unlink()
    return target


@dataclass(frozen=True, slots=True)
class Restored:
    database: Path
    backup: Path
    kept_aside: tuple[Path, ...]
    """The files the restore moved out of the way (the damaged database and its -wal/-shm)."""


def restore_file(backup: Path, database: Path, now: int) -> Restored:
    """Puts `backup` in place of `database` (blocking). Refused while a bot holds the
    database's instance lock, and for a backup that fails SQLite's full integrity check.
    The current database and its -wal/-shm files are renamed `<name>.damaged-<time>`, never
    deleted; the backup itself is copied, not moved."""
    backup, database = Path(backup), Path(database)
    if not backup.is_file():
        raise DatabaseUnavailableError(f"there is no backup at {backup}")
    if database.exists() and backup.resolve() == database.resolve():
        raise InvalidValueError("the backup is the database itself")
    health = file_health(backup, full=True)
    if not health.ok:
        raise DatabaseDamagedError(
            f"the backup {backup} is damaged too ({health.summary}); pick an older one"
        )
    with InstanceLock(database, what="python -m storage restore"):
        stamp = dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y%m%d-%H%M%S")
        aside: list[Path] = []
        for suffix in ("", "-wal", "-shm", "-journal"):
            current = database.with_name(database.name + suffix)
            if current.exists():
                moved = current.with_name(f"{current.name}.damaged-{stamp}")
                os.replace(current, moved)
                aside.append(moved)
        database.parent.mkdir(parents=True, exist_ok=True)
        partial = database.with_name(f".{database.name}.restoring-{os.getpid()}")
        try:
            shutil.copyfile(backup, partial)
            _fsync(partial)
            os.replace(partial, database)
            _fsync(database.parent)
        finally:
            with contextlib.suppress(FileNotFoundError):
                partial.unlink()
    return Restored(database, backup, tuple(aside))


def backup_folder(database: str | Path, configured: Path | None = None) -> Path | None:
    """Where automatic backups go: `configured`, else `backups/` beside a SQLite database;
    None for PostgreSQL (back it up with pg_dump)."""
    from storage.db import parse_target

    target = parse_target(database)
    if target.path is None:
        return None
    return configured if configured is not None else target.path.parent / "backups"


def is_running(database: Path) -> bool:
    """True while a bot holds the database's instance lock."""
    if not lock_path(database).exists():
        return False
    probe = InstanceLock(database, what="a probe")
    try:
        probe.acquire()
    except DatabaseUnavailableError:
        return True
    probe.release()
    return False


def _fsync(path: Path) -> None:
    flags = os.O_RDONLY | (os.O_DIRECTORY if path.is_dir() and hasattr(os, "O_DIRECTORY") else 0)
    try:
        fd = os.open(path, flags)
    except OSError:  # pragma: no cover - some platforms cannot open folders
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - e.g. folders on some file systems
        pass
    finally:
        os.close(fd)


def backup_hint(db: str | Path, folder: Path | None) -> str:
    """One sentence naming the command that restores the newest automatic backup."""
    if folder is None:
        return "Restore the database from your PostgreSQL backup (pg_restore)."
    backups = list_backups(folder)
    if not backups:
        return (
            f"No automatic backup was found in {folder}: restore a copy you made with "
            f"`python -m storage restore BACKUP --db {db}`."
        )
    return (
        f"Restore the newest backup ({backups[-1]}) with: "
        f"python -m storage restore --latest --db {db}"
    )
