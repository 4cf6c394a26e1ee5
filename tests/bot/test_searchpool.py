"""The search pool keeps time from the request: a job's deadline is a wall-clock moment,
so the time it waited for a worker, the worker's start and the game's replay all count."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import Future

from bot.service import GameService
from bot.service.effects import EffectRegistry, EffectRunner
from bot.service.models import UserRef
from bot.service.opponent import EngineConfig, OpponentService, install
from bot.service.searchpool import SearchJob, SearchPool, _replayed
from rules.game import Game as RulesGame
from rules.variant import Variant, load_variant
from tests.bot.conftest import ANN, CHANNEL, GUILD

FAIRY = UserRef(777, "Fairy Post", bot=True)

FOOLS_MATE = ("f2f3", "e7e5", "g2g4")  # Black mates in one


def test_a_deadline_spent_before_the_search_still_brings_the_mate_in_one() -> None:
    """The deadline passed before the worker even started: depth 1 is still completed (by
    glances, not by searching), so the move is the mate and nothing more is searched."""
    pool = SearchPool(1, table_megabytes=1)
    try:
        job = SearchJob(load_variant("chess"), FOOLS_MATE, level=8, deadline=time.time() - 1.0)
        answer = asyncio.run(pool.search(job))
    finally:
        pool.close()
    assert answer is not None
    assert answer.coordinates == "d8h4"
    assert answer.score_text == "mate in 1"
    assert answer.depth == 1
    assert answer.nodes <= 4


def test_a_game_key_keeps_the_games_memory_in_the_worker() -> None:
    """A job with a game key searches with that game's kept table (the worker's function,
    called here in this process); a job without one uses the worker's cleared table."""
    from bot.service import searchpool

    variant = load_variant("chess")
    stop = "/nonexistent/stop"
    searchpool._search(SearchJob(variant, ("e2e4",), level=8, nodes=2000, game="17"), stop)
    memory = searchpool._game_memory("17")
    kept = bytes(memory.tt.keys)
    assert any(kept)
    searchpool._search(SearchJob(variant, ("e2e4", "e7e5"), level=8, nodes=2000), stop)
    assert bytes(memory.tt.keys) == kept  # another search left the game's table alone
    searchpool._search(SearchJob(variant, ("e2e4", "e7e5"), level=8, nodes=2000, game="17"), stop)
    assert searchpool._game_memory("17") is memory
    assert bytes(memory.tt.keys) != kept  # the game's next move added to its table


def test_a_variant_is_prepared_before_its_first_search() -> None:
    """A game against the engine has begun: a worker builds the variant's tables (its
    answer, True, says it ran them without an error) ahead of the first search."""
    pool = SearchPool(1, table_megabytes=1)
    try:
        assert pool.prepare(load_variant("shako")).result(timeout=120) is True
    finally:
        pool.close()


class RecordingPool(SearchPool):
    """A pool that records the variants it is asked to prepare (and prepares nothing)."""

    def __init__(self) -> None:
        super().__init__(1, table_megabytes=1)
        self.prepared: list[str] = []

    def prepare(self, variant: Variant) -> Future[object]:
        self.prepared.append(variant.id)
        done: Future[object] = Future()
        done.set_result(True)
        return done


async def test_new_games_and_a_restart_have_the_variants_prepared(
    service: GameService, effects: EffectRunner
) -> None:
    """A game against the engine begins: its variant's tables are asked for at once. The
    bot restarts with the engine to move in a Shako game: the tables are built before the
    engine's moves are owed again (resume returns only then), and those of the games where
    the player is to move as well."""
    pool = RecordingPool()
    try:
        opponent = OpponentService(service, pool, EngineConfig(pause=0, nodes=500))
        install(EffectRegistry(service.storage), opponent)
        view = await opponent.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger=ANN,
            engine=FAIRY,
            variant="shako",
            level_number=1,
            color="black",
        )
        assert pool.prepared == ["shako"]
        assert view.game.engine_id == FAIRY.id
        pool.prepared.clear()
        assert await opponent.resume() == 1  # the engine opens as White
        assert pool.prepared == ["shako"]
        # A game where the player is to move: its variant is built at start-up too, after
        # those the engine is to move in.
        await opponent.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger=ANN,
            engine=FAIRY,
            variant="grand",
            level_number=1,
            color="white",
        )
        pool.prepared.clear()
        assert await opponent.resume() == 1
        assert pool.prepared == ["shako", "grand"]
    finally:
        pool.close()


def test_a_worker_continues_the_game_it_replayed_last() -> None:
    """The game's next search plays only the new plies on the game kept from its last
    one; a takeback or another game's moves replay from the start, and every answer is the
    position a fresh replay gives."""
    chess = load_variant("chess")
    moves = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4")

    def job(played: tuple[str, ...], game: str = "7") -> SearchJob:
        return SearchJob(chess, played, level=1, game=game)

    first = _replayed(job(moves[:3]))
    later = _replayed(job(moves))
    assert later is first  # continued, not replayed
    assert later.position_text == RulesGame.replay_variant(chess, moves).position_text
    back = _replayed(job(("e2e4", "d7d5")))  # taken back and played otherwise
    assert back is not first
    assert back.position_text == RulesGame.replay_variant(chess, ("e2e4", "d7d5")).position_text
    other = _replayed(job(moves, game="8"))
    assert other is not back
    assert _replayed(job(("e2e4", "d7d5", "e4d5"))) is back
