"""Two bot processes on one database: a process's cached game never outlives another
process's moves or takebacks (the cache is keyed by the game's revision)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from rules.game import Game as RulesGame
from storage import Storage
from tests.bot.conftest import ANN, BOB, start_game
from tests.postgres import temporary_schema

THREAD = 5000


@pytest.fixture(params=["sqlite", "postgresql"])
async def two_processes(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[GameService, GameService]]:
    """Two services, each with its own store (on PostgreSQL: its own pool), one database."""

    async def pair(target: str) -> AsyncIterator[tuple[GameService, GameService]]:
        stores = [
            await Storage.open(target, engine=STORAGE_ENGINE, rng=random.Random(i))
            for i in range(2)
        ]
        clock = ManualClock()
        try:
            yield GameService(stores[0], clock=clock), GameService(stores[1], clock=clock)
        finally:
            for store in stores:
                await store.close()

    if request.param == "sqlite":
        async for services in pair(str(tmp_path / "fairypost.sqlite3")):
            yield services
        return
    async with temporary_schema() as url:
        async for services in pair(url):
            yield services


async def stored_position_is_the_replay(service: GameService, game_id: int) -> None:
    game, moves = await service.storage.games.get_with_moves(game_id, verify=False)
    replayed = RulesGame.replay(game.variant_id, game.options, [m.coordinate for m in moves])
    assert game.position_text == replayed.position_text


async def test_a_process_behind_another_ones_moves_rebuilds(
    two_processes: tuple[GameService, GameService],
) -> None:
    one, two = two_processes
    game_id = await start_game(one, "chess", thread=THREAD)
    await one.play(channel_id=THREAD, user=ANN, text="e2e4")  # one caches ply 1
    await two.play(channel_id=THREAD, user=BOB, text="e7e5")  # two moves meanwhile
    result = await one.play(channel_id=THREAD, user=ANN, text="g1f3")
    assert result.view.game.ply_count == 3
    await stored_position_is_the_replay(one, game_id)


async def test_a_takeback_elsewhere_back_to_the_same_ply_is_not_mistaken_for_no_change(
    two_processes: tuple[GameService, GameService],
) -> None:
    """One caches 1.e4 e5; two takes e5 back and Black plays c5: the same ply count, another
    game. One's next move must be judged in the Sicilian, not in the cached open game."""
    one, two = two_processes
    game_id = await start_game(one, "chess", thread=THREAD)
    await one.play(channel_id=THREAD, user=ANN, text="e2e4")
    await one.play(channel_id=THREAD, user=BOB, text="e7e5")
    request = await two.request_takeback(channel_id=THREAD, user=BOB)
    assert request.takeback is not None
    await two.answer_takeback(request.takeback.id, ANN, accept=True)
    await two.play(channel_id=THREAD, user=BOB, text="c7c5")
    result = await one.play(channel_id=THREAD, user=ANN, text="g1f3")
    moves = await one.storage.games.moves(game_id)
    assert [m.coordinate for m in moves] == ["e2e4", "c7c5", "g1f3"]
    assert result.view.game.revision == 5  # three moves, one takeback, one move
    await stored_position_is_the_replay(one, game_id)


async def test_game_locks_are_forgotten_when_nobody_holds_them(service: GameService) -> None:
    """One lock per game being changed, not one per game ever touched."""
    import gc

    lock = service.lock(1)
    assert service.lock(1) is lock
    async with service.lock(2):
        assert len(service._locks) == 2
    del lock
    gc.collect()
    assert len(service._locks) == 0
