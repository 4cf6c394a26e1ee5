"""Moving house: `python -m storage copy SOURCE TARGET` copies a whole database between
SQLite and PostgreSQL (either way, or between two of a kind).

The target must be empty; it is migrated to the current schema, then every table is copied
from one consistent read of the source in a single target transaction (parents before the
rows that point to them, ids kept), so the target holds either everything or nothing. On
PostgreSQL the identity counters are moved past the copied ids. The copy is then verified:
the row count of every table must match, and every active game must replay on the target with
the rules engine (`storage.check`). Stop the bots before copying: what they write after the
read snapshot is not copied.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from storage import migrate as migrations
from storage.check import CheckReport, check_database
from storage.db import Database, Tx, connect
from storage.engine import Engine
from storage.errors import InvalidValueError, SchemaError
from storage.store import Storage

BATCH = 2_000
SKIPPED = frozenset({"schema_migrations"})
"""Each database keeps its own migration history."""


@dataclass(frozen=True, slots=True)
class TableCount:
    table: str
    source: int
    target: int


@dataclass(frozen=True, slots=True)
class CopyReport:
    source: str
    target: str
    schema_version: int
    counts: tuple[TableCount, ...]
    check: CheckReport | None
    problems: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return (
            not self.problems
            and all(c.source == c.target for c in self.counts)
            and (self.check is None or self.check.ok)
        )

    def lines(self) -> list[str]:
        out = [f"copied {self.source} to {self.target} (schema version {self.schema_version})"]
        out += [
            f"  {c.table}: {c.source} rows"
            + ("" if c.source == c.target else f", target {c.target}")
            for c in self.counts
        ]
        if self.check is not None:
            out += ["replay on the target:"] + [f"  {line}" for line in self.check.lines()]
        out += self.problems
        out.append("copy verified" if self.ok else "COPY NOT VERIFIED")
        return out


async def _tables(tx: Tx) -> dict[str, set[str]]:
    """Every table of the schema and the tables its foreign keys point to."""
    if tx.dialect == "sqlite":
        names = [
            str(row[0])
            for row in await tx.all(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        graph: dict[str, set[str]] = {}
        for name in names:
            rows = await tx.all(f"SELECT \"table\" FROM pragma_foreign_key_list('{name}')")
            graph[name] = {str(row[0]) for row in rows}
        return graph
    rows = await tx.all(
        "SELECT c.relname, coalesce(r.relname, '') FROM pg_class c "
        "LEFT JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'f' "
        "LEFT JOIN pg_class r ON r.oid = k.confrelid "
        "WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'"
    )
    graph = {}
    for row in rows:
        table, referenced = str(row[0]), str(row[1])
        graph.setdefault(table, set())
        if referenced:
            graph[table].add(referenced)
    return graph


def copy_order(graph: dict[str, set[str]]) -> list[str]:
    """Tables with the ones they point to first (a table pointing to itself is fine)."""
    order: list[str] = []
    placed: set[str] = set()
    pending = sorted(graph)
    while pending:
        ready = [t for t in pending if graph[t] - {t} <= placed]
        if not ready:
            raise InvalidValueError(
                f"the foreign keys of {', '.join(pending)} form a cycle; copy cannot order them"
            )
        order += ready
        placed.update(ready)
        pending = [t for t in pending if t not in placed]
    return order


async def _columns(tx: Tx, table: str) -> list[str]:
    if tx.dialect == "sqlite":
        rows = await tx.all(f"SELECT name FROM pragma_table_info('{table}') ORDER BY cid")
    else:
        rows = await tx.all(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
            (table,),
        )
    return [str(row[0]) for row in rows]


async def _count(tx: Tx, table: str) -> int:
    return int(await tx.scalar(f'SELECT count(*) FROM "{table}"'))


async def _after_copy(tx: Tx, table: str, columns: list[str]) -> None:
    """PostgreSQL: move the table's identity counter past the copied ids."""
    if tx.dialect != "postgresql" or "id" not in columns:
        return
    sequence = await tx.scalar("SELECT pg_get_serial_sequence(?, 'id')", (table,))
    if sequence is None:
        return
    top = await tx.scalar(f'SELECT max(id) FROM "{table}"')
    if top is None:
        await tx.scalar("SELECT setval(CAST(? AS regclass), 1, false)", (sequence,))
    else:
        await tx.scalar("SELECT setval(CAST(? AS regclass), ?)", (sequence, int(top)))


async def _ensure_empty(db: Database) -> None:
    version = await db.schema_version()
    if version:
        raise InvalidValueError(
            f"{db.target} already holds a Fairy Post database (schema version {version}); "
            "copy into an empty database (a new file, or a new PostgreSQL database or schema)"
        )


async def copy_database(
    source: str,
    target: str,
    *,
    engine: Engine | None,
    say: Callable[[str], None] = lambda _: None,
) -> CopyReport:
    """Copies `source` into the empty `target` and verifies it (see the module docstring).
    `engine` replays the active games on the target; without one only counts are checked."""
    src = await connect(source, create=False)
    try:
        await migrations.ensure_current(src)
        version = await src.schema_version()
        dst = await connect(target)
        try:
            await _ensure_empty(dst)
            await migrations.migrate(dst)
            if await dst.schema_version() != version:  # pragma: no cover - both are current
                raise SchemaError("source and target schemas differ after migrating")
            counts = await _copy_all(src, dst, say)
        finally:
            await dst.close()
    finally:
        await src.close()
    check = None
    if engine is not None:
        say("replaying every active game on the target")
        async with await Storage.open(target, engine=engine, migrate=False) as storage:
            check = await check_database(storage, engine)
    return CopyReport(
        source=str(src.target),
        target=str(dst.target),
        schema_version=version,
        counts=tuple(counts),
        check=check,
    )


async def _copy_all(src: Database, dst: Database, say: Callable[[str], None]) -> list[TableCount]:
    async with src.transaction(write=False) as read:
        graph = await _tables(read)
        order = [t for t in copy_order(graph) if t not in SKIPPED]
        expected = {table: await _count(read, table) for table in order}
        async with dst.transaction() as write:
            target_tables = await _tables(write)
            missing = [t for t in order if t not in target_tables]
            if missing:  # pragma: no cover - same schema version, same tables
                raise SchemaError(f"the target lacks the tables {', '.join(missing)}")
            for table in order:
                columns = await _columns(read, table)
                if set(columns) != set(await _columns(write, table)):  # pragma: no cover
                    raise SchemaError(f"table {table} has other columns on the target")
                await _copy_table(read, write, table, columns)
                await _after_copy(write, table, columns)
                say(f"{table}: {expected[table]} rows")
    async with dst.transaction(write=False) as check:
        return [TableCount(t, expected[t], await _count(check, t)) for t in order]


async def _primary_key(tx: Tx, table: str) -> list[str]:
    if tx.dialect == "sqlite":
        rows = await tx.all(
            f"SELECT name FROM pragma_table_info('{table}') WHERE pk > 0 ORDER BY pk"
        )
    else:
        rows = await tx.all(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a "
            "ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) "
            "WHERE i.indrelid = CAST(? AS regclass) AND i.indisprimary "
            "ORDER BY array_position(CAST(i.indkey AS int2[]), a.attnum)",
            (table,),
        )
    return [str(row[0]) for row in rows]


async def _copy_table(read: Tx, write: Tx, table: str, columns: list[str]) -> None:
    """Batches in primary key order (keyset pagination: each batch is one index seek)."""
    quoted = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    insert = f'INSERT INTO "{table}" ({quoted}) VALUES ({marks})'
    key = await _primary_key(read, table)
    if not key:  # pragma: no cover - every table of the schema has a primary key
        rows = await read.all(f'SELECT {quoted} FROM "{table}"')
        await write.many(insert, [tuple(row[i] for i in range(len(columns))) for row in rows])
        return
    key_list = ", ".join(f'"{c}"' for c in key)
    positions = [columns.index(c) for c in key]
    after: tuple[object, ...] | None = None
    while True:
        if after is None:
            rows = await read.all(
                f'SELECT {quoted} FROM "{table}" ORDER BY {key_list} LIMIT ?', (BATCH,)
            )
        else:
            past = ", ".join("?" for _ in key)
            rows = await read.all(
                f'SELECT {quoted} FROM "{table}" WHERE ({key_list}) > ({past}) '
                f"ORDER BY {key_list} LIMIT ?",
                (*after, BATCH),
            )
        if not rows:
            return
        batch = [tuple(row[i] for i in range(len(columns))) for row in rows]
        await write.many(insert, batch)
        after = tuple(batch[-1][i] for i in positions)
