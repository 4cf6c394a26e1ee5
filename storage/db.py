"""One SQLite connection, its pragmas, and transactions that own it exclusively.

aiosqlite runs statements one at a time on a worker thread, but two coroutines could still
interleave their statements inside one transaction. Every transaction here therefore holds an
`asyncio.Lock` from BEGIN to COMMIT, and write transactions start with BEGIN IMMEDIATE so the
write lock is taken before anything is read (which also serialises other processes).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from storage.errors import DatabaseUnavailableError, InvalidValueError

log = logging.getLogger(__name__)

MIN_SQLITE = (3, 37, 0)
"""STRICT tables arrived in 3.37."""

DEFAULT_BUSY_TIMEOUT_MS = 5_000

Params = Sequence[Any] | Mapping[str, Any]


class Tx:
    """The statements of one open transaction; valid only inside `Database.transaction`."""

    __slots__ = ("_conn",)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        rows = await self._conn.execute_fetchall(sql, params)
        for row in rows:
            return row
        return None

    async def all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        return list(await self._conn.execute_fetchall(sql, params))

    async def scalar(self, sql: str, params: Params = ()) -> Any:
        row = await self.one(sql, params)
        return None if row is None else row[0]

    async def run(self, sql: str, params: Params = ()) -> int:
        """Executes a write and returns how many rows it changed."""
        cursor = await self._conn.execute(sql, params)
        return cursor.rowcount

    async def insert(self, sql: str, params: Params = ()) -> int:
        """Executes an INSERT and returns the new row id."""
        cursor = await self._conn.execute(sql, params)
        rowid = cursor.lastrowid
        if rowid is None:  # pragma: no cover - sqlite3 always sets it after an INSERT
            raise RuntimeError("INSERT produced no row id")
        return rowid

    async def many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._conn.executemany(sql, rows)


class Database:
    """An open database file: one connection, one lock, pragmas applied."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()

    @classmethod
    async def connect(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ) -> Database:
        """Opens `path` (creating it and its folder if `create`) and applies the pragmas."""
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise DatabaseUnavailableError(
                f"SQLite {sqlite3.sqlite_version} is too old; Fairy Post needs "
                f"{'.'.join(map(str, MIN_SQLITE))} or newer"
            )
        path = Path(path)
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.is_file():
            raise DatabaseUnavailableError(f"there is no database at {path}")
        try:
            conn = await aiosqlite.connect(path, isolation_level=None)
        except sqlite3.Error as exc:
            raise DatabaseUnavailableError(f"cannot open the database {path}: {exc}") from exc
        conn.row_factory = sqlite3.Row
        try:
            await apply_pragmas(conn, busy_timeout_ms)
        except sqlite3.DatabaseError as exc:
            await conn.close()
            raise DatabaseUnavailableError(f"cannot use the database {path}: {exc}") from exc
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path)

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()

    @property
    def connection(self) -> aiosqlite.Connection:
        """The raw connection, for work that manages its own transactions (migrations,
        backup). Use it only while holding `exclusive()`."""
        return self._conn

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection with no transaction opened, for whole-connection work."""
        async with self._lock:
            yield self._conn

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[Tx]:
        """BEGIN IMMEDIATE (or a deferred read snapshot) ... COMMIT, rolled back on any error
        or cancellation. Statements queue in order on aiosqlite's thread, so a rollback
        queued after a cancellation still runs before the next transaction's BEGIN."""
        async with self._lock:
            try:
                # Inside the try: a cancellation while BEGIN is queued must still roll back.
                await self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield Tx(self._conn)
                await self._conn.execute("COMMIT")
            except sqlite3.IntegrityError as exc:
                # A CHECK, UNIQUE or foreign key caught a value the code let through.
                await asyncio.shield(self._rollback())
                raise InvalidValueError(f"the database refused the change: {exc}") from exc
            except BaseException:
                await asyncio.shield(self._rollback())
                raise

    async def _rollback(self) -> None:
        try:
            await self._conn.execute("ROLLBACK")
        except sqlite3.OperationalError:
            # The COMMIT went through before the error surfaced: nothing is left to undo.
            pass
        except Exception:  # pragma: no cover - the connection itself is broken
            log.exception("rollback failed")


async def _enable_wal(conn: aiosqlite.Connection, busy_timeout_ms: int) -> str:
    """Switch to WAL, retrying while another process holds the lock: changing the journal
    mode of a fresh database can fail at once with "database is locked" without waiting for
    the busy timeout (two bots, or a backup, starting at the same moment)."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            rows = list(await conn.execute_fetchall("PRAGMA journal_mode = WAL"))
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            await asyncio.sleep(0.02)
            continue
        return str(rows[0][0]).lower() if rows else ""


async def apply_pragmas(conn: aiosqlite.Connection, busy_timeout_ms: int) -> None:
    """The settings every connection needs: durable WAL, enforced foreign keys, patience."""
    await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    mode = await _enable_wal(conn, busy_timeout_ms)
    if mode != "wal":
        raise DatabaseUnavailableError(
            f"the database cannot use write-ahead logging (journal mode stays {mode!r}); "
            "put it on a local disk"
        )
    await conn.execute("PRAGMA synchronous = FULL")
    await conn.execute("PRAGMA foreign_keys = ON")
