"""The database behind the repositories: SQLite (a file) or PostgreSQL (a server).

Repositories see only `Database.transaction()` and the `Tx` it yields, and write the portable
SQL of storage/README.md; each backend runs it its own way:

- `storage.sqlite`: one aiosqlite connection; write transactions are BEGIN IMMEDIATE under an
  `asyncio.Lock`, so every write transaction of every process is serialised by SQLite.
- `storage.postgres`: an asyncpg pool; write transactions are READ COMMITTED, and a row whose
  state decides a write is read with `tx.for_update` so concurrent writers queue on that row.
  Read transactions are REPEATABLE READ snapshots, like SQLite's deferred reads.

`connect(target)` picks the backend from the database setting: a file path or
`sqlite:///path` is SQLite, `postgresql://user@host/db` is PostgreSQL.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from storage.dialect import DialectName
from storage.errors import InvalidValueError, StorageError
from storage.models import StorageEvent

if TYPE_CHECKING:
    from storage.migrate import Migration

DEFAULT_BUSY_TIMEOUT_MS = 5_000

Params = Sequence[Any] | Mapping[str, Any]


class Row(Protocol):
    """A result row, by column name or position (sqlite3.Row, asyncpg.Record)."""

    def __getitem__(self, key: Any, /) -> Any: ...


class Tx(ABC):
    """The statements of one open transaction; valid only inside `Database.transaction`."""

    dialect: DialectName
    write: bool

    @property
    def for_update(self) -> str:
        """Append to a SELECT that reads a row this write transaction will change depending
        on what it read: PostgreSQL locks the row until COMMIT (concurrent writers of the same
        row queue); SQLite needs nothing, its write transactions are serialised."""
        return " FOR UPDATE" if self.dialect == "postgresql" and self.write else ""

    @property
    def skip_locked(self) -> str:
        """Like `for_update`, but rows another transaction holds are skipped instead of
        waited for: claim queues (timers, effects) where each process takes different rows."""
        return " FOR UPDATE SKIP LOCKED" if self.dialect == "postgresql" and self.write else ""

    @abstractmethod
    async def one(self, sql: str, params: Params = ()) -> Row | None: ...

    @abstractmethod
    async def all(self, sql: str, params: Params = ()) -> list[Row]: ...

    async def scalar(self, sql: str, params: Params = ()) -> Any:
        row = await self.one(sql, params)
        return None if row is None else row[0]

    @abstractmethod
    async def run(self, sql: str, params: Params = ()) -> int:
        """Executes a write and returns how many rows it changed."""

    @abstractmethod
    async def insert(self, sql: str, params: Params = ()) -> int:
        """Executes an INSERT into a table keyed by `id INTEGER PRIMARY KEY` and returns the
        new row's id."""

    @abstractmethod
    async def many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    _events: list[StorageEvent] | None = None

    def emit(self, event: StorageEvent) -> None:
        """Something happened in this transaction: just before COMMIT the database's event
        hook (the effect rules, `storage.effects`) records what it sets off, in this same
        transaction."""
        if self._events is None:
            self._events = []
        self._events.append(event)

    def take_events(self) -> list[StorageEvent]:
        events, self._events = self._events or [], None
        return events


EventHook = Callable[[Tx, list[StorageEvent]], Awaitable[None]]
"""Called inside a write transaction, before COMMIT, with the events it emitted."""


def keeps_transaction(exc: BaseException) -> bool:
    """A refusal raised after the transaction settled something that must stay (a deadline
    that had passed): the transaction commits, then the error propagates."""
    return isinstance(exc, StorageError) and exc.keeps_transaction


class Database(ABC):
    """An open database: transactions, schema version, migrations and health checks. Its
    `one`, `all` and `scalar` read like a read-only `Tx` (for one statement), so a helper
    that reads with a `Reader` works in a transaction and outside one."""

    dialect: DialectName
    target: str
    """What to show an operator: the file path, or the URL without a password."""

    for_update = ""
    """Outside a transaction nothing is locked (see `Tx.for_update`)."""
    skip_locked = ""

    on_events: EventHook | None = None
    """Set by `Storage` to the effect rules: turns a transaction's events into effects."""

    effect_rows_of: Callable[[Sequence[StorageEvent]], list[tuple[object, ...]]] | None = None
    """The same rules, for a write that records its effects itself (`storage.apply`): the
    rows (`storage.effects.effect_row`) the rules make of these events."""

    async def before_commit(self, tx: Tx) -> None:
        """Backends call this inside every write transaction just before COMMIT."""
        events = tx.take_events()
        if events and self.on_events is not None:
            await self.on_events(tx, events)

    @abstractmethod
    def transaction(self, *, write: bool = True) -> AbstractAsyncContextManager[Tx]:
        """A write transaction (default) or a consistent read snapshot, committed at the end
        of the block and rolled back on any error or cancellation. Constraint violations
        become `InvalidValueError`."""

    @abstractmethod
    async def one(self, sql: str, params: Params = ()) -> Row | None:
        """A read of one statement outside any transaction block (a statement always sees
        one consistent state): on PostgreSQL one round trip instead of BEGIN, the statement
        and COMMIT."""

    @abstractmethod
    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        """Like `one`, every row."""

    async def scalar(self, sql: str, params: Params = ()) -> Any:
        row = await self.one(sql, params)
        return None if row is None else row[0]

    @abstractmethod
    async def returning(self, sql: str, params: Params = ()) -> list[Row]:
        """A write of one statement that needs nothing else in its transaction (a claim, a
        compare-and-set on an effect), atomic by itself: the rows of its RETURNING clause.
        On PostgreSQL one round trip; on SQLite a BEGIN IMMEDIATE transaction of its own,
        as every write."""

    async def run(self, sql: str, params: Params = ()) -> int:
        """Like `returning`, for a statement without RETURNING: how many rows it changed."""
        async with self.transaction() as tx:
            return await tx.run(sql, params)

    async def hold_instance(self, name: str) -> bool:
        """Proves to other processes that the process named `name` runs (PostgreSQL: a
        session advisory lock, `Effects.release_dead`). SQLite needs none: one process holds
        the file (`storage.instance`)."""
        return True

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def schema_version(self) -> int: ...

    @abstractmethod
    async def apply_migration(self, migration: Migration) -> None:
        """Applies one migration atomically, unless another process did it first."""

    @abstractmethod
    async def integrity_check(self) -> list[str]:
        """`["ok"]` or the problems the database found in its own files."""

    @abstractmethod
    async def foreign_key_check(self) -> list[tuple[str, int | None, str]]: ...


Reader: TypeAlias = Tx | Database
"""A transaction, or the database itself for a read of one statement."""


@dataclass(frozen=True, slots=True)
class Target:
    """A parsed database setting."""

    dialect: DialectName
    path: Path | None = None
    url: str | None = None

    def __str__(self) -> str:
        return str(self.path) if self.path is not None else redact(self.url or "")


def parse_target(value: str | Path) -> Target:
    """A file path or `sqlite:///path` is SQLite; `postgresql://` (or `postgres://`) is
    PostgreSQL. Anything else that looks like a URL is refused with the accepted forms."""
    if isinstance(value, Path):
        return Target("sqlite", path=value)
    text = value.strip()
    if not text:
        raise InvalidValueError("the database setting is empty")
    scheme, sep, rest = text.partition("://")
    if not sep:
        return Target("sqlite", path=Path(text))
    scheme = scheme.lower()
    if scheme in ("postgresql", "postgres"):
        return Target("postgresql", url=f"postgresql://{rest}")
    if scheme == "sqlite":
        if not rest.startswith("/") or rest == "/":
            raise InvalidValueError(
                f"write a SQLite URL as sqlite:///relative/path or sqlite:////absolute/path, "
                f"not {text!r}"
            )
        return Target("sqlite", path=Path(rest[1:]))
    raise InvalidValueError(
        f"unknown database {text!r}: use a file path, sqlite:///path or "
        "postgresql://user@host/database"
    )


def redact(url: str) -> str:
    """The URL without its password, for logs and messages."""
    head, sep, rest = url.partition("://")
    if not sep or "@" not in rest.split("/", 1)[0]:
        return url
    credentials, _, host = rest.partition("@")
    user = credentials.split(":", 1)[0]
    return f"{head}://{user}:***@{host}" if ":" in credentials else url


async def connect(
    target: str | Path | Target,
    *,
    create: bool = True,
    busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
) -> Database:
    """Opens the database named by the setting (see `parse_target`)."""
    parsed = target if isinstance(target, Target) else parse_target(target)
    if parsed.dialect == "postgresql":
        from storage.postgres import PostgresDatabase

        assert parsed.url is not None
        return await PostgresDatabase.connect(parsed.url)
    from storage.sqlite import SqliteDatabase

    assert parsed.path is not None
    return await SqliteDatabase.connect(parsed.path, create=create, busy_timeout_ms=busy_timeout_ms)
