"""`python -m storage copy`: SQLite to PostgreSQL and back, row for row, and the bot plays on."""

from __future__ import annotations

import asyncio
import io
import random
from pathlib import Path

import pytest

from storage import Storage
from storage.__main__ import main
from storage.copy import copy_database, copy_order
from storage.db import connect
from storage.engine import Engine
from storage.errors import InvalidValueError
from storage.models import DAY, NewChallenge, RatingUpdate
from tests.postgres import temporary_schema
from tests.storage.conftest import BLACK, T0, THIRD, WHITE, make_move, new_game, play
from tests.storage.fakes import FAKE_ENGINE, position_after


async def seed(target: str) -> None:
    """A little of everything the schema holds."""
    async with await Storage.open(target, engine=FAKE_ENGINE, rng=random.Random(3)) as store:
        await store.players.upsert(WHITE, "Ann — ♛", T0)
        await store.players.set_preferences(BLACK, T0, reminder_offsets=[7200])
        running = await play(store, await new_game(store, thread_id=11), ["e2e4", "e7e5"], T0)
        taken = await play(store, await new_game(store, white=THIRD), ["d2d4", "d7d5"], T0)
        request = await store.takebacks.request(taken.id, BLACK, 1, T0 + 10)
        await store.takebacks.accept(
            request.id, THIRD, position_after("chess", (), ["d2d4"]), T0 + 11
        )
        drawn = await play(store, await new_game(store, black=THIRD), ["c2c4"], T0)
        offer = await store.draws.offer(drawn.id, WHITE, T0 + 20)
        ended = await store.draws.accept(offer.id, THIRD, T0 + 21)
        before = [await store.ratings.get(u, "chess") for u in (WHITE, THIRD)]
        await store.ratings.apply_game(
            ended.id,
            [
                RatingUpdate(WHITE, 1512.5, 290.25, 0.06, before[0].games),
                RatingUpdate(THIRD, 1487.5, 290.25, 0.06, before[1].games),
            ],
            T0 + 22,
        )
        await store.vacations.start(BLACK, T0 + 30)
        challenge = await store.challenges.create(
            NewChallenge(77, 88, THIRD, None, "grand", ("option",), ttl_seconds=DAY), T0
        )
        await store.challenges.set_message(challenge.id, 99)
        await store.challenges.create(NewChallenge(77, 88, WHITE, BLACK, "chess"), T0)
        await store.challenges.expire_due(T0 + 2 * DAY)
        assert running.ply_count == 2


async def contents(target: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table but the migration history, in key order."""
    db = await connect(target, create=False)
    try:
        async with db.transaction(write=False) as tx:
            from storage.copy import _columns, _primary_key, _tables

            out = {}
            for table in sorted(await _tables(tx)):
                if table == "schema_migrations":
                    continue
                columns = await _columns(tx, table)
                key = ", ".join(await _primary_key(tx, table))
                rows = await tx.all(f'SELECT {", ".join(columns)} FROM "{table}" ORDER BY {key}')
                out[table] = [tuple(row[i] for i in range(len(columns))) for row in rows]
            return out
    finally:
        await db.close()


async def test_sqlite_to_postgresql_and_back_row_for_row(tmp_path: Path) -> None:
    original = str(tmp_path / "original.sqlite3")
    back = str(tmp_path / "back.sqlite3")
    await seed(original)
    async with temporary_schema() as url:
        there = await copy_database(original, url, engine=FAKE_ENGINE)
        assert there.ok, there.lines()
        assert there.check is not None and there.check.games_checked == 2
        assert {c.table for c in there.counts} >= {"games", "moves", "archived_moves"}
        assert all(c.source == c.target for c in there.counts)
        assert await contents(url) == await contents(original)
        home = await copy_database(url, back, engine=FAKE_ENGINE)
        assert home.ok, home.lines()
    assert await contents(back) == await contents(original)


async def test_the_bot_plays_on_after_the_move(tmp_path: Path) -> None:
    """New ids continue after the copied ones; copied games take moves."""
    original = str(tmp_path / "original.sqlite3")
    await seed(original)
    async with temporary_schema() as url:
        await copy_database(original, url, engine=None)
        async with await Storage.open(url, engine=FAKE_ENGINE) as store:
            game = await store.games.find_by_thread(11)
            assert game is not None
            done = await store.games.append_move(
                game.id, WHITE, 2, make_move(game, ["e2e4", "e7e5"], "g1f3"), T0 + 40
            )
            assert done.game.ply_count == 3
            fresh = await new_game(store, white=5001, black=5002)
            assert fresh.id == 4
            challenge = await store.challenges.create(
                NewChallenge(1, 2, 5001, 5002, "chess"), T0 + 50
            )
            assert challenge.id == 3


async def test_only_an_empty_target_is_accepted(tmp_path: Path) -> None:
    original = str(tmp_path / "original.sqlite3")
    await seed(original)
    used = str(tmp_path / "used.sqlite3")
    async with await Storage.open(used):
        pass
    with pytest.raises(InvalidValueError, match="already holds a Fairy Post database"):
        await copy_database(original, used, engine=None)


def test_tables_are_copied_after_the_ones_they_point_to() -> None:
    graph = {"moves": {"games"}, "games": {"players", "challenges"}, "challenges": {"players"}}
    graph |= {"players": set(), "tree": {"tree"}}
    order = copy_order(graph)
    assert order.index("players") < order.index("challenges") < order.index("games")
    assert order.index("games") < order.index("moves")
    with pytest.raises(InvalidValueError, match="cycle"):
        copy_order({"a": {"b"}, "b": {"a"}})


async def test_the_copy_command(tmp_path: Path) -> None:
    original = str(tmp_path / "original.sqlite3")
    await seed(original)
    async with temporary_schema() as url:
        out, err = io.StringIO(), io.StringIO()

        def loader() -> Engine:
            return FAKE_ENGINE

        code = await asyncio.to_thread(
            main, ["copy", original, url], engine_loader=loader, out=out, err=err
        )
        assert code == 0, err.getvalue()
        text = out.getvalue()
        assert "moves: 4 rows" in text and "archived_moves: 1 rows" in text
        assert "games replayed with rules engine fake-1: 2" in text
        assert text.rstrip().endswith("copy verified")
        code = await asyncio.to_thread(
            main, ["copy", original, url], engine_loader=loader, out=out, err=err
        )
        assert code == 2 and "already holds" in err.getvalue()
