"""Numbered SQL migrations, applied in order, each in its own transaction.

One set of files serves both backends: they are written in SQLite's dialect (the portable
subset of storage/README.md), and `storage.dialect` translates each statement for PostgreSQL.
A rare piece that cannot be portable sits between `-- dialect: sqlite` or
`-- dialect: postgresql` and `-- dialect: all` lines.

The schema version is written in the same transaction as the migration it records (SQLite's
`PRAGMA user_version`; on PostgreSQL the highest row of `schema_migrations`), so a crash leaves
either the old version with the old schema or the new version with the new one.
`schema_migrations` keeps the names and times for operators.

Released migrations are never edited: a change to the schema is a new numbered file.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from storage.db import Database
from storage.dialect import DialectName, postgres_statements, sections, split_postgres
from storage.errors import MigrationError, SchemaOutdatedError, SchemaTooNewError

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def statements(self) -> list[str]:
        """The SQLite statements of the file."""
        return self.statements_for("sqlite")

    def statements_for(self, dialect: DialectName) -> list[str]:
        """The statements to run on `dialect`: the common part (translated for PostgreSQL)
        and that dialect's own pieces, in file order."""
        return list(_statements(self.sql, self.name, dialect))


@cache
def _statements(sql: str, name: str, dialect: DialectName) -> tuple[str, ...]:
    """A migration's statements on `dialect`, translated once per process: the translation
    is pure, and every database a process opens (every test's, too) runs the same files."""
    out: list[str] = []
    for section, text in sections(sql):
        if section == "all":
            for statement in _split_sqlite(text, name):
                out += [statement] if dialect == "sqlite" else postgres_statements(statement)
        elif section == dialect:
            out += _split_sqlite(text, name) if dialect == "sqlite" else split_postgres(text)
    return tuple(out)


def _split_sqlite(sql: str, name: str) -> list[str]:
    """`sql` split into complete SQLite statements (trigger bodies stay whole)."""
    out: list[str] = []
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statement = _strip_comments(pending)
            if statement:
                out.append(statement)
            pending = ""
    if _strip_comments(pending):
        raise MigrationError(f"migration {name} ends with an incomplete statement")
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


async def schema_version(db: Database) -> int:
    return await db.schema_version()


async def migrate(
    db: Database,
    *,
    target: int | None = None,
    migrations: list[Migration] | None = None,
) -> int:
    """Brings the schema up to `target` (default: the latest) and returns the version.
    Processes starting together are fine: each migration re-reads the version under the
    database's write lock and skips what another process applied meanwhile."""
    migrations = load_migrations() if migrations is None else migrations
    latest = len(migrations)
    target = latest if target is None else target
    current = await db.schema_version()
    if current > latest:
        raise SchemaTooNewError(current, latest)
    if current >= target:
        return current
    for migration in migrations[current:target]:
        await db.apply_migration(migration)
    return await db.schema_version()


async def ensure_current(db: Database) -> int:
    """Refuses a database that is not exactly at the latest version; nothing is changed."""
    current = await db.schema_version()
    if current > LATEST_VERSION:
        raise SchemaTooNewError(current, LATEST_VERSION)
    if current < LATEST_VERSION:
        raise SchemaOutdatedError(current, LATEST_VERSION)
    return current
