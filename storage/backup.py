"""Consistent copies of a live database through SQLite's online backup API.

The copy is taken in one step from a read snapshot, so writers are never blocked (WAL) and the
backup never restarts. It is written to a temporary name, checked, synced and then renamed,
so `target` is either the previous file or a complete, verified copy.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from pathlib import Path

from storage.errors import DatabaseUnavailableError, InvalidValueError


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
            src.backup(dst)
            # A self-contained file: no -wal or -shm needed to copy it around.
            dst.execute("PRAGMA journal_mode = DELETE")
            verdict = dst.execute("PRAGMA integrity_check").fetchone()[0]
            if verdict != "ok":
                raise DatabaseUnavailableError(f"the backup failed its integrity check: {verdict}")
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
