"""Migrations on both backends: from empty, from every earlier version, refusal of newer
databases, atomicity."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage import LATEST_VERSION, Storage
from storage.db import Database, connect
from storage.errors import MigrationError, SchemaOutdatedError, SchemaTooNewError
from storage.migrate import Migration, load_migrations, migrate
from storage.models import Clock, GameStatus
from storage.sqlite import SqliteDatabase
from tests.storage.conftest import BLACK, T0, WHITE, TargetFactory, new_game
from tests.storage.fakes import FAKE_ENGINE, start_text

_SQLITE_SCHEMA = (
    "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
)
_PG_SCHEMA = (
    "SELECT 'column', table_name || '.' || column_name, "
    "       data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') "
    "  FROM information_schema.columns WHERE table_schema = current_schema() "
    "UNION ALL SELECT 'index', indexname, replace(indexdef, current_schema() || '.', '') "
    "  FROM pg_indexes WHERE schemaname = current_schema() "
    "UNION ALL SELECT 'constraint', conrelid::regclass::text || '.' || conname, "
    "       pg_get_constraintdef(oid) "
    "  FROM pg_constraint WHERE connamespace = current_schema()::regnamespace "
    "UNION ALL SELECT 'trigger', tgname, tgrelid::regclass::text FROM pg_trigger t "
    "  JOIN pg_class c ON c.oid = t.tgrelid "
    "  WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal "
    "UNION ALL SELECT 'function', proname, pg_get_function_identity_arguments(oid) "
    "  FROM pg_proc WHERE pronamespace = current_schema()::regnamespace "
    "ORDER BY 1, 2"
)


async def schema_of(target: str) -> list[tuple[str, str, str]]:
    """Every table, column, index, constraint and trigger, as text to compare."""
    db = await connect(target, create=False)
    try:
        async with db.transaction(write=False) as tx:
            rows = await tx.all(_SQLITE_SCHEMA if db.dialect == "sqlite" else _PG_SCHEMA)
    finally:
        await db.close()
    return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]


async def tables_of(db: Database) -> set[str]:
    sql = (
        "SELECT name FROM sqlite_master WHERE type = 'table'"
        if db.dialect == "sqlite"
        else "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = current_schema()"
    )
    async with db.transaction(write=False) as tx:
        return {str(row[0]) for row in await tx.all(sql)}


async def build_at(target: str, version: int) -> None:
    db = await connect(target)
    try:
        assert await migrate(db, target=version) == version
    finally:
        await db.close()


async def seed_version_1(target: str) -> None:
    """Data as the 0001 schema stored it: two players, a game with one move, a rating."""
    db = await connect(target)
    try:
        async with db.transaction() as tx:
            await tx.run(
                "INSERT INTO players (user_id, display_name, created_at, updated_at) "
                "VALUES (?, 'Ann', ?, ?), (?, 'Bob', ?, ?)",
                (WHITE, T0, T0, BLACK, T0, T0),
            )
            game_id = await tx.insert(
                "INSERT INTO games (guild_id, channel_id, thread_id, variant_id, white_id, "
                "black_id, rated, turn, ply_count, position_text, engine_version, move_seconds, "
                "deadline_at, created_at, updated_at) "
                "VALUES (5, 6, 7, 'chess', ?, ?, 1, 'black', 1, 'chess[] after 1: x', "
                "'fake-1', 86400, ?, ?, ?)",
                (WHITE, BLACK, T0 + 86400, T0, T0),
            )
            assert game_id == 1
            # Columns named: later migrations add columns (with defaults) to these tables.
            await tx.run(
                "INSERT INTO moves (game_id, ply, color, notation, coordinate, position_hash, "
                "made_at) VALUES (1, 1, 'white', 'E2-e4', 'e2e4', 'abc', ?)",
                (T0,),
            )
            await tx.run(
                "INSERT INTO ratings (user_id, variant_id, rating, deviation, volatility, games, "
                "wins, draws, losses, last_played_at, updated_at) "
                "VALUES (?, 'chess', 1600.0, 80.0, 0.06, 3, 2, 1, 0, ?, ?)",
                (WHITE, T0, T0),
            )
    finally:
        await db.close()


async def set_version(target: str, version: int) -> None:
    db = await connect(target)
    try:
        if isinstance(db, SqliteDatabase):
            async with db.exclusive() as conn:
                await conn.execute(f"PRAGMA user_version = {version}")
        else:
            async with db.transaction() as tx:
                await tx.run(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)",
                    (version, f"{version:04d}_from_the_future.sql"),
                )
    finally:
        await db.close()


async def test_fresh_database_is_created_at_the_latest_version(db_target: str) -> None:
    async with await Storage.open(db_target) as storage:
        assert await storage.schema_version() == LATEST_VERSION
        assert await storage.integrity_check() == ["ok"]
        names = await tables_of(storage._db)
        async with storage._db.transaction(write=False) as tx:
            applied = await tx.all("SELECT version, name FROM schema_migrations ORDER BY version")
    assert {"players", "games", "moves", "challenges", "notifications", "ratings"} <= names
    assert [v for v, _ in applied] == list(range(1, LATEST_VERSION + 1))
    assert applied[0][1] == "0001_initial.sql"


def test_migrations_are_numbered_without_gaps() -> None:
    migrations = load_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    assert len(migrations) >= 2
    # A migration may concern one backend only (0015, 0017: PostgreSQL's server functions).
    assert all(m.statements or m.statements_for("postgresql") for m in migrations)


@pytest.mark.parametrize("start", range(LATEST_VERSION))
async def test_upgrade_from_every_earlier_version(
    db_target: str, make_target: TargetFactory, start: int
) -> None:
    await build_at(db_target, start)
    if start >= 1:
        await seed_version_1(db_target)
    async with await Storage.open(db_target, engine=FAKE_ENGINE) as storage:
        assert await storage.schema_version() == LATEST_VERSION
        assert await storage.integrity_check() == ["ok"]
        assert await storage.foreign_key_check() == []
        if start >= 1:
            game = await storage.games.find_by_thread(7)
            assert game is not None
            assert game.status is GameStatus.ACTIVE
            assert game.clock == Clock(86400, 0)
            assert (game.white_bank, game.black_bank, game.paused_remaining) == (0, 0, None)
            moves = await storage.games.moves(1)
            assert [m.coordinate for m in moves] == ["e2e4"]
            assert moves[0].engine is None  # stored before 0019: nobody named, as before
            player = await storage.players.get(WHITE)
            assert player.reminder_offsets == (86400, 3600)
            assert player.turn_notices
            rating = await storage.ratings.get(WHITE, "chess")
            assert (rating.rating, rating.games, rating.wins) == (1600.0, 3, 2)
        # the upgraded database keeps working as a fresh one
        await new_game(storage, white=2001, black=2002)
    async with make_target() as fresh:
        async with await Storage.open(fresh):
            pass
        assert await schema_of(db_target) == await schema_of(fresh)


async def test_a_database_newer_than_the_code_is_refused_untouched(db_target: str) -> None:
    async with await Storage.open(db_target):
        pass
    await set_version(db_target, LATEST_VERSION + 1)
    before = await schema_of(db_target)
    with pytest.raises(SchemaTooNewError) as caught:
        await Storage.open(db_target)
    message = str(caught.value)
    assert f"schema version {LATEST_VERSION + 1}" in message
    assert f"up to {LATEST_VERSION}" in message
    assert "upgrade Fairy Post" in message
    assert await schema_of(db_target) == before
    with pytest.raises(SchemaTooNewError):
        await Storage.open(db_target, migrate=False)


async def test_migrate_false_refuses_an_outdated_database(db_target: str) -> None:
    await build_at(db_target, 1)
    with pytest.raises(SchemaOutdatedError, match="python -m storage migrate"):
        await Storage.open(db_target, migrate=False)
    db = await connect(db_target)
    try:
        assert await db.schema_version() == 1
    finally:
        await db.close()


async def test_a_failing_migration_leaves_nothing_behind(db_target: str) -> None:
    good = load_migrations()[:1]
    broken = Migration(2, "0002_broken.sql", "CREATE TABLE half (x INTEGER);\nNOT SQL AT ALL;\n")
    db = await connect(db_target)
    try:
        with pytest.raises(MigrationError, match=r"0002_broken\.sql failed"):
            await migrate(db, migrations=[*good, broken])
        assert await db.schema_version() == 1
        tables = await tables_of(db)
        assert "half" not in tables
        assert "players" in tables
    finally:
        await db.close()


async def test_a_migration_breaking_foreign_keys_is_rolled_back(db_target: str) -> None:
    base = load_migrations()
    orphan = Migration(
        len(base) + 1,
        "0099_orphan.sql",
        "INSERT INTO moves (game_id, ply, color, notation, coordinate, position_hash, made_at) "
        "VALUES (424242, 1, 'white', 'A', 'a1a2', 'ab', 0);\n",
    )
    db = await connect(db_target)
    try:
        with pytest.raises(MigrationError, match="foreign key"):
            await migrate(db, migrations=[*base, orphan])
        assert await db.schema_version() == len(base)
        async with db.transaction(write=False) as tx:
            assert await tx.scalar("SELECT count(*) FROM moves") == 0
        if isinstance(db, SqliteDatabase):
            async with db.exclusive() as conn:
                fk = list(await conn.execute_fetchall("PRAGMA foreign_keys"))
            assert fk[0][0] == 1
    finally:
        await db.close()


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


async def test_two_processes_opening_an_empty_database_at_once(db_target: str) -> None:
    """Each migration re-reads the version under the write lock, so racing starts are fine."""
    stores = await asyncio.gather(*(Storage.open(db_target) for _ in range(4)))
    try:
        for storage in stores:
            assert await storage.schema_version() == LATEST_VERSION
    finally:
        for storage in stores:
            await storage.close()


async def test_every_sqlite_connection_gets_the_pragmas(db_path: Path) -> None:
    db = await SqliteDatabase.connect(db_path)
    async with db.exclusive() as conn:
        values = {}
        for pragma in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout"):
            rows = list(await conn.execute_fetchall(f"PRAGMA {pragma}"))
            values[pragma] = rows[0][0]
    await db.close()
    assert values == {
        "journal_mode": "wal",
        "synchronous": 2,
        "foreign_keys": 1,
        "busy_timeout": 5000,
    }


async def test_created_games_survive_reopening(db_target: str) -> None:
    async with await Storage.open(db_target, engine=FAKE_ENGINE) as storage:
        game = await new_game(storage)
    async with await Storage.open(db_target, engine=FAKE_ENGINE) as storage:
        again = await storage.games.get(game.id)
    assert again == game
    assert again.position_text == start_text()
