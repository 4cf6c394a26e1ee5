"""The PostgreSQL backend: an asyncpg pool shared by the repositories of one process.

Any number of processes may use one database. Write transactions are READ COMMITTED; the
repositories read a row whose state decides a write with `tx.for_update`, so concurrent
writers of one game queue on its row and the compare-and-set guards (ply count, status) see
the latest committed state. Read transactions are REPEATABLE READ READ ONLY snapshots, so a
game and its moves are always read consistently, as SQLite's deferred reads do.

asyncpg is an optional dependency (`pip install fairypost[postgres]`); it is imported only
when a `postgresql://` database is opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from storage.db import Database, Params, Row, Tx, keeps_transaction, redact
from storage.dialect import PG_PRELUDE, DialectName, numbered_params
from storage.errors import (
    ConcurrentUpdateError,
    DatabaseUnavailableError,
    InvalidValueError,
    MigrationError,
)

if TYPE_CHECKING:
    import asyncpg

    from storage.migrate import Migration

log = logging.getLogger(__name__)

DEFAULT_POOL_SIZE = 10

POOLER_HINT = (
    "the database lost a prepared statement ({error}): a connection pooler in transaction "
    "mode is between Fairy Post and PostgreSQL. Run PgBouncer with pool_mode = session "
    "(docs/deploy.md, Connection poolers)"
)
_MIGRATION_LOCK = "hashtext('fairypost-migrate'), hashtext(current_schema())"


def _asyncpg() -> Any:
    try:
        import asyncpg
    except ImportError as exc:
        raise DatabaseUnavailableError(
            "a postgresql:// database needs the asyncpg driver: pip install 'fairypost[postgres]'"
        ) from exc
    return asyncpg


def _numeric(text: str) -> int | float:
    """sum() and avg() of integers are NUMERIC in PostgreSQL; SQLite gives an int or a
    float, and so do we."""
    value = float(text)
    return (
        int(text) if "." not in text and "e" not in text.lower() and value.is_integer() else value
    )


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec(
        "numeric", schema="pg_catalog", encoder=str, decoder=_numeric, format="text"
    )


POOLER_ROUNDS = 3


async def _refuse_transaction_pooler(dsn: str) -> None:
    """Refuses a pooler that hands a client's transactions to different server connections
    (PgBouncer's transaction or statement mode): statements prepared on one connection
    would be missing on the next (or, worse, another process's statement of the same name
    would run), and the instance lock would outlive its process. Two connections of ours
    open at the same time ask the server which backend serves them, alone and then in
    transactions held side by side and committed in both orders: directly (or through a
    pooler in session mode) each keeps its own backend; a transaction pooler shows them
    one backend, or swaps them."""
    asyncpg = _asyncpg()
    settings = {"application_name": "fairypost-check"}
    try:
        first = await asyncpg.connect(dsn, server_settings=settings)
        second = await asyncpg.connect(dsn, server_settings=settings)
    except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise DatabaseUnavailableError(f"cannot connect to the database: {exc}") from exc
    pid = "SELECT pg_backend_pid()"
    try:
        seen = [(await first.fetchval(pid), await second.fetchval(pid))]
        if seen[0][0] != seen[0][1]:
            for round_no in range(POOLER_ROUNDS):
                a, b = first.transaction(), second.transaction()
                await a.start()
                await b.start()
                seen.append((await first.fetchval(pid), await second.fetchval(pid)))
                for tx in (a, b) if round_no % 2 == 0 else (b, a):
                    await tx.rollback()
    finally:
        await first.close()
        await second.close()
    if (
        len({pair[0] for pair in seen}) > 1
        or len({pair[1] for pair in seen}) > 1
        or (seen[0][0] == seen[0][1])
    ):
        raise DatabaseUnavailableError(
            "a connection pooler in transaction (or statement) mode is between Fairy Post "
            "and PostgreSQL: the same connection was served by different server connections. "
            "Run PgBouncer with pool_mode = session, or connect to PostgreSQL directly "
            "(docs/deploy.md, Connection poolers)"
        )


async def _keep_session(conn: asyncpg.Connection) -> None:
    """A connection goes back to the pool as it is: the repositories leave no session state
    behind (no SET, LISTEN or advisory lock outside a transaction), and asyncpg's default
    reset (`RESET ALL`, `UNLISTEN *`, ...) would cost a round trip every time. An open
    transaction is still rolled back by asyncpg before this is called."""


def _status_count(status: str) -> int:
    """'UPDATE 3', 'INSERT 0 1', 'DELETE 0' -> the number of rows."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresTx(Tx):
    __slots__ = ("_conn", "_events", "write")

    dialect: DialectName = "postgresql"

    def __init__(self, conn: asyncpg.Connection, write: bool) -> None:
        self._conn = conn
        self.write = write
        self._events = None

    async def one(self, sql: str, params: Params = ()) -> Row | None:
        text, args = numbered_params(sql, params)
        row: Row | None = await self._conn.fetchrow(text, *args)
        return row

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        text, args = numbered_params(sql, params)
        return list(await self._conn.fetch(text, *args))

    async def run(self, sql: str, params: Params = ()) -> int:
        text, args = numbered_params(sql, params)
        if " RETURNING " in text.upper():
            return len(await self._conn.fetch(text, *args))
        return _status_count(await self._conn.execute(text, *args))

    async def insert(self, sql: str, params: Params = ()) -> int:
        text, args = numbered_params(sql, params)
        if "RETURNING" not in text.upper():
            text = f"{text.rstrip().rstrip(';')} RETURNING id"
        value = await self._conn.fetchval(text, *args)
        if value is None:  # pragma: no cover - an INSERT ... RETURNING id always returns it
            raise RuntimeError("INSERT produced no row id")
        return int(value)

    async def many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = list(rows)
        if not batch:
            return
        text, _ = numbered_params(sql, batch[0])
        await self._conn.executemany(text, batch)


class PostgresDatabase(Database):
    """A pool of connections to one PostgreSQL database (and schema, via `search_path`)."""

    dialect: DialectName = "postgresql"

    def __init__(self, pool: asyncpg.Pool, url: str, dsn: str = "") -> None:
        self._pool = pool
        self.url = url
        self._dsn = dsn or url
        self.target = redact(url)
        self._errors = _asyncpg().exceptions
        self._instance: tuple[str, asyncpg.Connection] | None = None

    @classmethod
    async def connect(cls, url: str) -> PostgresDatabase:
        """Opens a pool to `url`. Besides libpq's parameters, the URL may carry
        `pool_size=N` (connections per process, default 10); any other parameter is sent
        to the server as a setting (`?search_path=fairypost` puts the tables in a schema)."""
        asyncpg = _asyncpg()
        dsn, size = _split_pool_size(url)
        try:
            pool = await asyncpg.create_pool(
                dsn,
                min_size=1,
                max_size=size,
                init=_init_connection,
                reset=_keep_session,
                server_settings={"application_name": "fairypost"},
            )
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise DatabaseUnavailableError(
                f"cannot connect to the database {redact(url)}: {exc}"
            ) from exc
        try:
            await _refuse_transaction_pooler(dsn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url, dsn)

    async def close(self) -> None:
        await self._drop_instance()
        await self._pool.close()

    # --- the instance lock ---------------------------------------------------------------

    async def hold_instance(self, name: str) -> bool:
        """Holds the session advisory lock of `name` on a connection of its own for as long
        as this process runs (and the connection lives): the proof, for other processes,
        that this one is alive (`Effects.release_dead`). Called again, it checks the
        connection and takes the lock again on a new one if it was lost. True when the
        lock is held."""
        from storage.effects import INSTANCE_LOCK_KEY

        if self._instance is not None:
            held_name, conn = self._instance
            if held_name == name and not conn.is_closed():
                return True
            await self._drop_instance()
        asyncpg = _asyncpg()
        try:
            conn = await asyncpg.connect(
                self._dsn, server_settings={"application_name": "fairypost-instance"}
            )
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            log.warning("cannot open the instance lock's connection", exc_info=True)
            return False
        key = INSTANCE_LOCK_KEY.format(column="$1")
        if not await conn.fetchval(f"SELECT pg_try_advisory_lock({key})", name):
            await conn.close()
            return False
        self._instance = (name, conn)
        return True

    async def _drop_instance(self) -> None:
        if self._instance is not None:
            _, conn = self._instance
            self._instance = None
            with contextlib.suppress(Exception):
                await conn.close()

    @asynccontextmanager
    async def _errors_translated(self) -> AsyncIterator[None]:
        errors = self._errors
        try:
            yield
        except (errors.IntegrityConstraintViolationError, errors.DataError) as exc:
            # A CHECK, UNIQUE or foreign key caught a value the code let through.
            raise InvalidValueError(f"the database refused the change: {exc}") from exc
        except (errors.SerializationError, errors.DeadlockDetectedError) as exc:
            raise ConcurrentUpdateError() from exc
        except (
            errors.InvalidSQLStatementNameError,
            errors.DuplicatePreparedStatementError,
        ) as exc:
            raise DatabaseUnavailableError(POOLER_HINT.format(error=exc)) from exc
        except (OSError, errors.ConnectionDoesNotExistError, errors.CannotConnectNowError) as exc:
            raise DatabaseUnavailableError(
                f"lost the connection to the database {self.target}: {exc}"
            ) from exc

    async def one(self, sql: str, params: Params = ()) -> Row | None:
        text, args = numbered_params(sql, params)
        async with self._errors_translated(), self._pool.acquire() as conn:
            row: Row | None = await conn.fetchrow(text, *args)
            return row

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        text, args = numbered_params(sql, params)
        async with self._errors_translated(), self._pool.acquire() as conn:
            return list(await conn.fetch(text, *args))

    async def returning(self, sql: str, params: Params = ()) -> list[Row]:
        """Outside a transaction block PostgreSQL runs the statement as a transaction of
        its own: one round trip."""
        return await self.all(sql, params)

    async def run(self, sql: str, params: Params = ()) -> int:
        text, args = numbered_params(sql, params)
        async with self._errors_translated(), self._pool.acquire() as conn:
            return _status_count(await conn.execute(text, *args))

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[Tx]:
        async with self._errors_translated(), self._pool.acquire() as conn:
            transaction = conn.transaction(
                isolation="read_committed" if write else "repeatable_read",
                readonly=not write,
            )
            await transaction.start()
            tx = PostgresTx(conn, write)
            try:
                yield tx
            except BaseException as exc:
                if keeps_transaction(exc):
                    await self.before_commit(tx)
                    await transaction.commit()
                else:
                    # Roll back before the connection goes back to the pool, even when
                    # the task is cancelled again meanwhile (a stopping bot cancels its
                    # loops mid-transaction).
                    rollback = asyncio.ensure_future(self._rollback(transaction))
                    while not rollback.done():
                        with contextlib.suppress(asyncio.CancelledError):
                            await asyncio.shield(rollback)
                raise
            await self.before_commit(tx)
            await transaction.commit()

    @staticmethod
    async def _rollback(transaction: Any) -> None:
        try:
            await transaction.rollback()
        except Exception:
            # The connection broke mid-statement: the pool discards it, and the server
            # rolls the transaction back when the connection goes.
            log.debug("rollback failed", exc_info=True)

    # --- schema --------------------------------------------------------------------------

    @staticmethod
    async def _version(conn: asyncpg.Connection) -> int:
        table = await conn.fetchval(
            "SELECT to_regclass(format('%I.schema_migrations', current_schema()))"
        )
        if table is None:
            return 0
        return int(await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_migrations"))

    async def schema_version(self) -> int:
        """The highest version recorded in `schema_migrations` (0 for an empty schema)."""
        async with self._pool.acquire() as conn:
            return await self._version(conn)

    async def apply_migration(self, migration: Migration) -> None:
        """One transaction, under an advisory lock so processes starting together migrate
        one after the other. PostgreSQL enforces foreign keys at every statement, so a
        migration that breaks one fails by itself."""
        statements = migration.statements_for("postgresql")
        errors = self._errors
        async with self._pool.acquire() as conn:
            # Taken before the transaction starts, so the transaction sees the catalog as
            # the previous holder left it.
            await conn.execute(f"SELECT pg_advisory_lock({_MIGRATION_LOCK})")
            try:
                async with conn.transaction():
                    current = await self._version(conn)
                    if current >= migration.version:
                        return
                    if current != migration.version - 1:
                        raise MigrationError(
                            f"cannot apply {migration.name} to a database at version {current}"
                        )
                    if current == 0:
                        for statement in PG_PRELUDE:
                            await conn.execute(statement)
                    for statement in statements:
                        await conn.execute(statement)
                    await conn.execute(
                        "INSERT INTO schema_migrations (version, name, applied_at) "
                        "VALUES ($1, $2, CAST(extract(epoch FROM now()) AS BIGINT))",
                        migration.version,
                        migration.name,
                    )
            except (errors.PostgresError, errors.InterfaceError) as exc:
                raise MigrationError(f"migration {migration.name} failed: {exc}") from exc
            finally:
                await conn.execute(f"SELECT pg_advisory_unlock({_MIGRATION_LOCK})")

    # --- health --------------------------------------------------------------------------

    async def integrity_check(self) -> list[str]:
        """PostgreSQL keeps its own files consistent (write-ahead log, page checksums when
        enabled); this confirms the server answers. `pg_amcheck` checks pages in depth."""
        async with self.transaction(write=False) as tx:
            await tx.scalar("SELECT 1")
        return ["ok"]

    async def foreign_key_check(self) -> list[tuple[str, int | None, str]]:
        """Always empty: PostgreSQL enforces foreign keys on every statement."""
        return []


def _split_pool_size(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    size = DEFAULT_POOL_SIZE
    kept = []
    for key, value in query:
        if key == "pool_size":
            if not value.isdigit() or not 1 <= int(value) <= 1000:
                raise InvalidValueError(f"pool_size must be a number from 1 to 1000, not {value!r}")
            size = int(value)
        else:
            kept.append((key, value))
    return urlunsplit(parts._replace(query=urlencode(kept))), size
