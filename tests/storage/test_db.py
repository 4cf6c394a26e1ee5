"""The connection layer: transactions own the connection, errors roll back, no engine import."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from storage import Storage
from storage.db import Database
from storage.errors import DatabaseUnavailableError, InvalidValueError
from tests.storage.conftest import T0, new_game

REPO = Path(__file__).resolve().parents[2]


async def test_an_error_inside_a_transaction_rolls_everything_back(store: Storage) -> None:
    db: Database = store._db
    with pytest.raises(RuntimeError):
        async with db.transaction() as tx:
            await tx.run("INSERT INTO players (user_id, created_at, updated_at) VALUES (1, 0, 0)")
            raise RuntimeError("boom")
    assert await store.players.find(1) is None
    async with db.transaction() as tx:  # the connection is usable again
        await tx.run("INSERT INTO players (user_id, created_at, updated_at) VALUES (1, 0, 0)")
    assert await store.players.find(1) is not None


async def test_constraint_violations_become_invalid_value_errors(store: Storage) -> None:
    with pytest.raises(InvalidValueError, match="refused the change"):
        async with store._db.transaction() as tx:
            await tx.run("INSERT INTO players (user_id, created_at, updated_at) VALUES (1, 5, 0)")


async def test_interleaved_transactions_never_see_each_others_halves(store: Storage) -> None:
    """Many coroutines each insert two rows in one transaction while others read: every
    reader sees an even count, because a transaction owns the connection until COMMIT."""
    db = store._db

    async def writer(i: int) -> None:
        async with db.transaction() as tx:
            await tx.run(
                "INSERT INTO players (user_id, created_at, updated_at) VALUES (?, 0, 0)", (i,)
            )
            await asyncio.sleep(0)
            await tx.run(
                "INSERT INTO players (user_id, created_at, updated_at) VALUES (?, 0, 0)",
                (i + 10_000,),
            )

    async def reader() -> int:
        async with db.transaction(write=False) as tx:
            return int(await tx.scalar("SELECT count(*) FROM players"))

    results = await asyncio.gather(*(f for i in range(40) for f in (writer(i), reader())))
    counts = [r for r in results if r is not None]
    assert counts and all(c % 2 == 0 for c in counts)


async def test_cancellation_at_any_point_leaves_the_connection_clean(store: Storage) -> None:
    game = await new_game(store)
    for delay in range(12):
        task = asyncio.create_task(store.players.upsert(50 + delay, "x", T0))
        for _ in range(delay):
            await asyncio.sleep(0)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert (await store.games.get(game.id)).id == game.id
    assert await store.integrity_check() == ["ok"]


async def test_a_missing_database_is_not_created_when_asked_not_to(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnavailableError, match="no database"):
        await Storage.open(tmp_path / "nope.sqlite3", create=False)
    assert not (tmp_path / "nope.sqlite3").exists()


async def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not a database at all, not even close" * 100)
    with pytest.raises(DatabaseUnavailableError, match="not a database"):
        await Storage.open(junk)


def test_storage_never_imports_the_rules_engine_or_discord() -> None:
    code = (
        "import sys, storage, storage.__main__, storage.check\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'rules', 'discord', 'PIL'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


async def test_aggregates_come_back_as_python_numbers(store: Storage) -> None:
    """PostgreSQL's sum() and avg() are NUMERIC; both backends give ints and floats."""
    for i in range(3):
        await store.players.upsert(10 + i, f"p{i}", T0 + i)
    async with store._db.transaction(write=False) as tx:
        row = await tx.one("SELECT sum(user_id), avg(user_id), count(*) FROM players")
    assert row is not None
    assert (row[0], row[1], row[2]) == (33, 11.0, 3)
    assert isinstance(row[0], int) and isinstance(row[1], float)


async def test_an_unreachable_postgresql_server_is_one_clear_error() -> None:
    pytest.importorskip("asyncpg")
    with pytest.raises(DatabaseUnavailableError, match=r"cannot connect to the database"):
        await Storage.open("postgresql://fairypost:secret@127.0.0.1:1/nowhere")
    with pytest.raises(DatabaseUnavailableError) as caught:
        await Storage.open("postgresql://fairypost:secret@127.0.0.1:1/nowhere")
    assert "secret" not in str(caught.value)
