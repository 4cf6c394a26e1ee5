"""The SQLite backend: one connection, its pragmas, and transactions that own it exclusively.

aiosqlite runs statements one at a time on a worker thread, but two coroutines could still
interleave their statements inside one transaction. Every transaction here therefore holds an
`asyncio.Lock` from BEGIN to COMMIT, and write transactions start with BEGIN IMMEDIATE so the
write lock is taken before anything is read (which also serialises other processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite

from storage.db import DEFAULT_BUSY_TIMEOUT_MS, Database, Params, Row, Tx, keeps_transaction
from storage.dialect import DialectName
from storage.errors import DatabaseUnavailableError, InvalidValueError, MigrationError

if TYPE_CHECKING:
    from storage.migrate import Migration

log = logging.getLogger(__name__)

MIN_SQLITE = (3, 37, 0)
"""STRICT tables arrived in 3.37."""


def _greatest(*values: Any) -> Any:
    """PostgreSQL's greatest(): NULLs are ignored; NULL only when all are."""
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _least(*values: Any) -> Any:
    present = [v for v in values if v is not None]
    return min(present) if present else None


class SqliteTx(Tx):
    __slots__ = ("_conn", "_events", "write")

    dialect: DialectName = "sqlite"

    def __init__(self, conn: aiosqlite.Connection, write: bool) -> None:
        self._conn = conn
        self.write = write
        self._events = None

    async def one(self, sql: str, params: Params = ()) -> Row | None:
        rows = await self._conn.execute_fetchall(sql, params)
        for row in rows:
            return row
        return None

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        return list(await self._conn.execute_fetchall(sql, params))

    async def run(self, sql: str, params: Params = ()) -> int:
        cursor = await self._conn.execute(sql, params)
        return cursor.rowcount

    async def insert(self, sql: str, params: Params = ()) -> int:
        cursor = await self._conn.execute(sql, params)
        rowid = cursor.lastrowid
        if rowid is None:  # pragma: no cover - sqlite3 always sets it after an INSERT
            raise RuntimeError("INSERT produced no row id")
        return rowid

    async def many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._conn.executemany(sql, rows)


class SqliteDatabase(Database):
    """An open database file: one connection, one lock, pragmas applied."""

    dialect: DialectName = "sqlite"

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self.target = str(path)
        self._lock = asyncio.Lock()

    @classmethod
    async def connect(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ) -> SqliteDatabase:
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
            await conn.create_function("greatest", -1, _greatest, deterministic=True)
            await conn.create_function("least", -1, _least, deterministic=True)
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

    async def one(self, sql: str, params: Params = ()) -> Row | None:
        for row in await self.all(sql, params):
            return row
        return None

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        """No BEGIN: in autocommit mode the statement is its own read transaction."""
        async with self._lock:
            return list(await self._conn.execute_fetchall(sql, params))

    async def returning(self, sql: str, params: Params = ()) -> list[Row]:
        async with self.transaction() as tx:
            return await tx.all(sql, params)

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
                tx = SqliteTx(self._conn, write)
                try:
                    yield tx
                except BaseException as exc:
                    if not keeps_transaction(exc):
                        raise
                    await self.before_commit(tx)
                    await self._conn.execute("COMMIT")
                    raise
                await self.before_commit(tx)
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

    # --- schema --------------------------------------------------------------------------

    async def schema_version(self) -> int:
        """SQLite's `PRAGMA user_version`, written with each migration."""
        async with self._lock:
            rows = list(await self._conn.execute_fetchall("PRAGMA user_version"))
        return int(rows[0][0])

    async def apply_migration(self, migration: Migration) -> None:
        """One BEGIN IMMEDIATE transaction with the new `user_version`. Foreign keys are off
        meanwhile (so a migration may rebuild a table the documented SQLite way) and
        `foreign_key_check` must come back empty before the commit."""
        statements = migration.statements_for("sqlite")
        async with self._lock:
            conn = self._conn
            await conn.execute("PRAGMA foreign_keys = OFF")
            try:
                await self._apply(conn, migration, statements)
            finally:
                await conn.execute("PRAGMA foreign_keys = ON")

    @staticmethod
    async def _apply(
        conn: aiosqlite.Connection, migration: Migration, statements: list[str]
    ) -> None:
        try:
            await conn.execute("BEGIN IMMEDIATE")
            # Another process may have migrated while we waited for the write lock.
            rows = list(await conn.execute_fetchall("PRAGMA user_version"))
            current = int(rows[0][0])
            if current >= migration.version:
                await conn.execute("COMMIT")
                return
            if current != migration.version - 1:
                raise MigrationError(
                    f"cannot apply {migration.name} to a database at version {current}"
                )
            for statement in statements:
                await conn.execute(statement)
            problems = list(await conn.execute_fetchall("PRAGMA foreign_key_check"))
            if problems:
                raise MigrationError(
                    f"{migration.name} leaves {len(problems)} broken foreign keys "
                    f"(first in table {problems[0][0]})"
                )
            await conn.execute(f"PRAGMA user_version = {migration.version}")
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) "
                "VALUES (?, ?, CAST(strftime('%s', 'now') AS INTEGER))",
                (migration.version, migration.name),
            )
            await conn.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.OperationalError):  # no transaction left to undo
                await conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise MigrationError(f"migration {migration.name} failed: {exc}") from exc
            raise

    # --- health --------------------------------------------------------------------------

    async def integrity_check(self) -> list[str]:
        """SQLite's full integrity check: `["ok"]` or the problems it found."""
        async with self.transaction(write=False) as tx:
            rows = await tx.all("PRAGMA integrity_check")
        return [str(row[0]) for row in rows]

    async def foreign_key_check(self) -> list[tuple[str, int | None, str]]:
        """Rows whose foreign keys point nowhere: (table, rowid, referenced table)."""
        async with self.transaction(write=False) as tx:
            rows = await tx.all("PRAGMA foreign_key_check")
        return [(str(row[0]), row[1], str(row[2])) for row in rows]


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
