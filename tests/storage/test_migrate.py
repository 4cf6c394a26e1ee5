"""Migrations: from empty, from every earlier version, refusal of newer databases, atomicity."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from storage import LATEST_VERSION, Storage
from storage.errors import MigrationError, SchemaOutdatedError, SchemaTooNewError
from storage.migrate import Migration, load_migrations, migrate, schema_version
from storage.models import Clock, GameStatus
from tests.storage.conftest import BLACK, T0, WHITE, new_game
from tests.storage.fakes import FAKE_ENGINE, start_text


def schema_of(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
            "ORDER BY type, name"
        ).fetchall()
    conn.close()
    return [(str(t), str(n), str(s)) for t, n, s in rows]


async def build_at(path: Path, version: int) -> None:
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        await conn.execute("PRAGMA journal_mode = WAL")
        assert await migrate(conn, target=version) == version


def seed_version_1(path: Path) -> None:
    """Data as the 0001 schema stored it: two players, a game with one move, a rating."""
    with sqlite3.connect(path) as conn:
        conn.executescript(
            f"""
            INSERT INTO players (user_id, display_name, created_at, updated_at)
                VALUES ({WHITE}, 'Ann', {T0}, {T0}), ({BLACK}, 'Bob', {T0}, {T0});
            INSERT INTO games (id, guild_id, channel_id, thread_id, variant_id, white_id,
                black_id, rated, turn, ply_count, position_text, engine_version, move_seconds,
                deadline_at, created_at, updated_at)
                VALUES (1, 5, 6, 7, 'chess', {WHITE}, {BLACK}, 1, 'black', 1,
                        'chess[] after 1: x', 'fake-1', 86400, {T0 + 86400}, {T0}, {T0});
            INSERT INTO moves VALUES (1, 1, 'white', 'E2-e4', 'e2e4', 'abc', {T0});
            INSERT INTO ratings VALUES ({WHITE}, 'chess', 1600.0, 80.0, 0.06, 3, 2, 1, 0,
                                        {T0}, {T0});
            """
        )
    conn.close()


async def test_fresh_database_is_created_at_the_latest_version(db_path: Path) -> None:
    assert not db_path.exists()
    async with await Storage.open(db_path) as storage:
        assert await storage.schema_version() == LATEST_VERSION
        assert await storage.integrity_check() == ["ok"]
    names = {name for _, name, _ in schema_of(db_path)}
    assert {"players", "games", "moves", "challenges", "notifications", "ratings"} <= names
    with sqlite3.connect(db_path) as conn:
        applied = conn.execute("SELECT version, name FROM schema_migrations").fetchall()
    conn.close()
    assert [v for v, _ in applied] == list(range(1, LATEST_VERSION + 1))
    assert applied[0][1] == "0001_initial.sql"


def test_migrations_are_numbered_without_gaps() -> None:
    migrations = load_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    assert len(migrations) >= 2
    assert all(m.statements for m in migrations)


@pytest.mark.parametrize("start", range(LATEST_VERSION))
async def test_upgrade_from_every_earlier_version(tmp_path: Path, start: int) -> None:
    old = tmp_path / "old.sqlite3"
    await build_at(old, start)
    if start >= 1:
        seed_version_1(old)
    async with await Storage.open(old, engine=FAKE_ENGINE) as storage:
        assert await storage.schema_version() == LATEST_VERSION
        assert await storage.integrity_check() == ["ok"]
        assert await storage.foreign_key_check() == []
        if start >= 1:
            game = await storage.games.find_by_thread(7)
            assert game is not None
            assert game.status is GameStatus.ACTIVE
            assert game.clock == Clock(86400, 0)
            assert (game.white_bank, game.black_bank, game.paused_remaining) == (0, 0, None)
            assert [m.coordinate for m in await storage.games.moves(1)] == ["e2e4"]
            player = await storage.players.get(WHITE)
            assert player.reminder_offsets == (86400, 3600)
            assert player.turn_notices
            rating = await storage.ratings.get(WHITE, "chess")
            assert (rating.rating, rating.games, rating.wins) == (1600.0, 3, 2)
        # the upgraded database keeps working as a fresh one
        await new_game(storage, white=2001, black=2002)
    fresh = tmp_path / "fresh.sqlite3"
    async with await Storage.open(fresh):
        pass
    assert schema_of(old) == schema_of(fresh)


async def test_a_database_newer_than_the_code_is_refused_untouched(db_path: Path) -> None:
    async with await Storage.open(db_path):
        pass
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    before = schema_of(db_path)
    with pytest.raises(SchemaTooNewError) as caught:
        await Storage.open(db_path)
    message = str(caught.value)
    assert f"schema version {LATEST_VERSION + 1}" in message
    assert f"up to {LATEST_VERSION}" in message
    assert "upgrade Fairy Post" in message
    assert schema_of(db_path) == before
    with pytest.raises(SchemaTooNewError):
        await Storage.open(db_path, migrate=False)


async def test_migrate_false_refuses_an_outdated_database(db_path: Path) -> None:
    await build_at(db_path, 1)
    with pytest.raises(SchemaOutdatedError, match="python -m storage migrate"):
        await Storage.open(db_path, migrate=False)
    async with aiosqlite.connect(db_path) as conn:
        assert await schema_version(conn) == 1


async def test_a_failing_migration_leaves_nothing_behind(db_path: Path) -> None:
    good = load_migrations()[:1]
    broken = Migration(2, "0002_broken.sql", "CREATE TABLE half (x INTEGER);\nNOT SQL AT ALL;\n")
    async with aiosqlite.connect(db_path, isolation_level=None) as conn:
        with pytest.raises(MigrationError, match=r"0002_broken\.sql failed"):
            await migrate(conn, migrations=[*good, broken])
        assert await schema_version(conn) == 1
        tables = {row[0] for row in await conn.execute_fetchall("SELECT name FROM sqlite_master")}
        assert "half" not in tables
        assert "players" in tables
        assert not conn.in_transaction


async def test_a_migration_breaking_foreign_keys_is_rolled_back(db_path: Path) -> None:
    base = load_migrations()
    orphan = Migration(
        len(base) + 1,
        "0099_orphan.sql",
        "INSERT INTO moves VALUES (424242, 1, 'white', 'A', 'a1a2', 'ab', 0);\n",
    )
    async with aiosqlite.connect(db_path, isolation_level=None) as conn:
        with pytest.raises(MigrationError, match="broken foreign keys"):
            await migrate(conn, migrations=[*base, orphan])
        assert await schema_version(conn) == len(base)
        rows = list(await conn.execute_fetchall("SELECT count(*) FROM moves"))
        assert rows[0][0] == 0
        fk = list(await conn.execute_fetchall("PRAGMA foreign_keys"))
        assert fk[0][0] == 1


def test_migration_numbering_is_enforced(tmp_path: Path) -> None:
    (tmp_path / "0001_a.sql").write_text("CREATE TABLE a (x INTEGER);\n")
    (tmp_path / "0003_c.sql").write_text("CREATE TABLE c (x INTEGER);\n")
    with pytest.raises(MigrationError, match="0002 was expected"):
        load_migrations(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(MigrationError, match="no migrations"):
        load_migrations(empty)


def test_an_incomplete_statement_is_reported() -> None:
    migration = Migration(1, "0001_x.sql", "CREATE TABLE a (x INTEGER);\nCREATE TABLE b (\n")
    with pytest.raises(MigrationError, match="incomplete statement"):
        _ = migration.statements


def test_statement_splitting_keeps_triggers_and_drops_comments() -> None:
    sql = (
        "-- a comment; with a semicolon\n"
        "CREATE TABLE t (x INTEGER);\n"
        "CREATE TRIGGER g BEFORE DELETE ON t\nBEGIN\n    SELECT RAISE(ABORT, 'no');\nEND;\n"
    )
    statements = Migration(1, "0001_t.sql", sql).statements
    assert len(statements) == 2
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")


async def test_two_processes_opening_an_empty_database_at_once(db_path: Path) -> None:
    """Each migration re-reads the version under the write lock, so racing starts are fine."""
    stores = await asyncio.gather(*(Storage.open(db_path) for _ in range(4)))
    try:
        for storage in stores:
            assert await storage.schema_version() == LATEST_VERSION
    finally:
        for storage in stores:
            await storage.close()


async def test_every_connection_gets_the_pragmas(store: Storage) -> None:
    async with store._db.exclusive() as conn:
        values = {}
        for pragma in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout"):
            rows = list(await conn.execute_fetchall(f"PRAGMA {pragma}"))
            values[pragma] = rows[0][0]
    assert values == {
        "journal_mode": "wal",
        "synchronous": 2,
        "foreign_keys": 1,
        "busy_timeout": 5000,
    }


async def test_created_games_survive_reopening(db_path: Path) -> None:
    async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
        game = await new_game(storage)
    async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
        again = await storage.games.get(game.id)
    assert again == game
    assert again.position_text == start_text()
