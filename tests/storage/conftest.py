"""Both backends (a SQLite file in tmp_path, a PostgreSQL schema of the test's own), a fake
rules engine, and a few builders."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest

from storage import Storage
from storage.db import connect
from storage.engine import Engine
from storage.models import (
    DAY,
    AppendedMove,
    Clock,
    Game,
    NewGame,
    NewMove,
    Outcome,
)
from tests.postgres import temporary_schema
from tests.storage.fakes import FAKE_ENGINE, fake_hash, fake_replay, position_after, start_text

WHITE = 1001
BLACK = 1002
THIRD = 1003
GUILD = 77
CHANNEL = 88
T0 = 1_767_225_600  # 2026-01-01 00:00:00 UTC
THREE_DAYS = Clock(3 * DAY, 0)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "fairypost.sqlite3"


TargetFactory = Callable[[], AbstractAsyncContextManager[str]]


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    """Each storage test that takes a database runs once per backend."""
    return str(request.param)


@pytest.fixture
def make_target(backend: str, tmp_path: Path) -> TargetFactory:
    """Makes fresh, empty databases of the test's backend: a file in tmp_path, or a schema
    of the test's own on the PostgreSQL server (dropped when the block ends)."""
    counter = itertools.count()

    @asynccontextmanager
    async def make() -> AsyncIterator[str]:
        if backend == "sqlite":
            yield str(tmp_path / f"db{next(counter)}" / "fairypost.sqlite3")
            return
        async with temporary_schema() as url:
            yield url

    return make


@pytest.fixture
async def db_target(make_target: TargetFactory) -> AsyncIterator[str]:
    """The database setting of a fresh, empty database on the test's backend."""
    async with make_target() as target:
        yield target


@pytest.fixture
async def store(db_target: str) -> AsyncIterator[Storage]:
    storage = await Storage.open(db_target, engine=FAKE_ENGINE, rng=random.Random(7))
    try:
        yield storage
    finally:
        await storage.close()


async def new_game(
    store: Storage,
    *,
    clock: Clock = THREE_DAYS,
    now: int = T0,
    white: int = WHITE,
    black: int = BLACK,
    variant: str = "chess",
    options: tuple[str, ...] = (),
    rated: bool = True,
    thread_id: int | None = None,
) -> Game:
    return await store.games.create(
        NewGame(
            guild_id=GUILD,
            channel_id=CHANNEL,
            white_id=white,
            black_id=black,
            variant_id=variant,
            start_position=start_text(variant, options),
            options=options,
            rated=rated,
            clock=clock,
            thread_id=thread_id,
        ),
        now,
    )


def make_move(
    game: Game, history: Sequence[str], coordinate: str, *, outcome: Outcome | None = None
) -> NewMove:
    """The NewMove the service layer would build after validating `coordinate`."""
    moves = [*history, coordinate]
    return NewMove(
        notation=coordinate.upper(),
        coordinate=coordinate,
        position_hash=fake_hash(moves),
        position_text=position_after(game.variant_id, game.options, moves),
        outcome=outcome,
    )


async def play(store: Storage, game: Game, coordinates: Sequence[str], now: int) -> Game:
    """Plays `coordinates` in turn from the game's current state, one second apart."""
    moves = [m.coordinate for m in await store.games.moves(game.id)]
    for coordinate in coordinates:
        done: AppendedMove = await store.games.append_move(
            game.id, game.to_move_id, game.ply_count, make_move(game, moves, coordinate), now
        )
        game = done.game
        moves.append(coordinate)
        now += 1
    return game


async def raw_sql(target: str, sql: str, params: Sequence[object] = ()) -> int:
    """Changes a database behind the API's back (what damage or an old version left)."""
    db = await connect(target, create=False)
    try:
        async with db.transaction() as tx:
            return await tx.run(sql, params)
    finally:
        await db.close()


def engine(version: str) -> Engine:
    return Engine(version=version, replay=fake_replay)
