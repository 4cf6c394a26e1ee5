"""Numbered SQL migrations, applied in order, each in its own transaction.

The schema version is SQLite's `PRAGMA user_version`, written in the same transaction as the
migration it records, so a crash leaves either the old version with the old schema or the new
version with the new one. `schema_migrations` keeps the names and times for operators.

Released migrations are never edited: a change to the schema is a new numbered file.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

import aiosqlite

from storage.errors import MigrationError, SchemaOutdatedError, SchemaTooNewError

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def statements(self) -> list[str]:
        """The file split into complete SQL statements (trigger bodies stay whole)."""
        out: list[str] = []
        pending = ""
        for line in self.sql.splitlines(keepends=True):
            pending += line
            if sqlite3.complete_statement(pending):
                statement = _strip_comments(pending)
                if statement:
                    out.append(statement)
                pending = ""
        if _strip_comments(pending):
            raise MigrationError(f"migration {self.name} ends with an incomplete statement")
        return out


def _strip_comments(sql: str) -> str:
    lines = [line for line in sql.splitlines() if not line.strip().startswith("--")]
    return "\n".join(lines).strip()


def load_migrations(folder: Traversable | None = None) -> list[Migration]:
    """Every migration in `folder` (default: the package's), checked to be numbered
    1, 2, 3... in order."""
    folder = folder or resources.files("storage").joinpath("migrations")
    found: list[Migration] = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match is None:
            continue
        found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise MigrationError(
                f"migrations must be numbered 0001, 0002, ... without gaps; "
                f"found {migration.name} where {expected:04d} was expected"
            )
    if not found:
        raise MigrationError(f"no migrations were found in {folder}")
    return found


LATEST_VERSION = len(load_migrations())


async def schema_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def migrate(
    conn: aiosqlite.Connection,
    *,
    target: int | None = None,
    migrations: list[Migration] | None = None,
) -> int:
    """Brings the schema up to `target` (default: the latest) and returns the version.

    Foreign key enforcement is off while migrating, so that a migration may rebuild a table
    the documented SQLite way; `foreign_key_check` must come back empty before each commit.
    """
    migrations = load_migrations() if migrations is None else migrations
    latest = len(migrations)
    target = latest if target is None else target
    current = await schema_version(conn)
    if current > latest:
        raise SchemaTooNewError(current, latest)
    if current >= target:
        return current
    await conn.execute("PRAGMA foreign_keys = OFF")
    try:
        for migration in migrations[current:target]:
            await _apply(conn, migration)
    finally:
        await conn.execute("PRAGMA foreign_keys = ON")
    return await schema_version(conn)


async def ensure_current(conn: aiosqlite.Connection) -> int:
    """Refuses a database that is not exactly at the latest version; nothing is changed."""
    current = await schema_version(conn)
    if current > LATEST_VERSION:
        raise SchemaTooNewError(current, LATEST_VERSION)
    if current < LATEST_VERSION:
        raise SchemaOutdatedError(current, LATEST_VERSION)
    return current


async def _apply(conn: aiosqlite.Connection, migration: Migration) -> None:
    statements = migration.statements
    try:
        await conn.execute("BEGIN IMMEDIATE")
        # Another process may have migrated while we waited for the write lock.
        current = await schema_version(conn)
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
