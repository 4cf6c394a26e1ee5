"""Two bot processes on one database: a process's cached game never outlives another
process's moves or takebacks (the cache is keyed by the game's revision), nor its
conditional moves; and what a move costs on PostgreSQL."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from benchmarks.pgproxy import PgProxy
from bot.service import GameService, ManualClock
from bot.service.conditional import ConditionalService
from bot.service.engine import STORAGE_ENGINE
from rules.game import Game as RulesGame
from storage import Storage
from tests.bot.conftest import ANN, BOB, start_game
from tests.postgres import require_server, temporary_schema

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


async def test_conditional_moves_entered_in_another_process_are_played(
    two_processes: tuple[GameService, GameService],
) -> None:
    """One remembers the game's state from its own write (on PostgreSQL its move reads the
    waiting player's conditional moves from it, without a round trip); Ann enters a line
    through two meanwhile. Bob's move through one finds the line changed, reads it again
    and plays Ann's answer."""
    one, two = two_processes
    game_id = await start_game(one, "chess", thread=THREAD)
    await one.play(channel_id=THREAD, user=ANN, text="e2e4")
    await ConditionalService(two).add(channel_id=THREAD, user=ANN, text="e5 Nf3")
    result = await one.play(channel_id=THREAD, user=BOB, text="e7e5")
    assert result.answer == "Ng1-f3"
    moves = await one.storage.games.moves(game_id)
    assert [m.coordinate for m in moves] == ["e2e4", "e7e5", "g1f3"]
    await stored_position_is_the_replay(one, game_id)


async def test_a_move_on_postgresql_is_at_most_three_round_trips() -> None:
    """The bot's whole `/move` (find the thread's game, check it, the rules, the guarded
    write with the waiting player's conditional moves, the names for the reply), counted on
    the wire: three round trips once the process has written the game, no transaction."""
    await require_server()
    async with (
        temporary_schema() as url,
        PgProxy.for_url(url) as proxy,
        await Storage.open(proxy.url(url), engine=STORAGE_ENGINE) as store,
    ):
        service = GameService(store, clock=ManualClock())
        await start_game(service, "chess", thread=THREAD)
        line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
        spent = []
        for ply, text in enumerate(line):
            before = proxy.snapshot()
            await service.play(channel_id=THREAD, user=(ANN, BOB)[ply % 2], text=text)
            used = proxy.snapshot() - before
            spent.append((used.round_trips, used.transactions))
        assert spent[0][0] <= 6  # the first write reads the game's state and conditional moves
        assert spent[1:] == [(3, 3)] * (len(line) - 1)
        assert store.writer.transactions == 0
