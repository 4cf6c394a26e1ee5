"""Games against Fairy Post's engine, on the service: the engine's move is recorded with the
event that leaves it to move and played exactly once, resumed after a restart, called off by
a takeback or an ending; draws and takebacks are answered at once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.service import GameService, ManualClock
from bot.service.effects import EffectRegistry, EffectRunner
from bot.service.errors import BadRequestError
from bot.service.models import GameView, OfferView, UserRef
from bot.service.opponent import (
    ENGINE_MOVE,
    EngineConfig,
    OpponentService,
    install,
    install_handler,
)
from bot.service.searchpool import SearchPool
from storage.models import EffectStatus, NewEffect, Termination
from tests.bot.conftest import ANN, CHANNEL, GUILD

FAIRY = UserRef(777, "Fairy Post", bot=True)
NODES = 4000  # every search's budget: the tests check what happens, not how well it plays


@pytest.fixture(scope="module")
def pool() -> Iterator[SearchPool]:
    searches = SearchPool(1, table_megabytes=1)
    try:
        yield searches
    finally:
        searches.close()


@pytest.fixture
def opponent(service: GameService, pool: SearchPool, effects: EffectRunner) -> OpponentService:
    """The engine's rules installed beside the game's (`effects`), no pause, small budgets."""
    engine = OpponentService(service, pool, EngineConfig(pause=0, nodes=NODES))
    install(EffectRegistry(service.storage), engine)
    return engine


@pytest.fixture
def engine_runner(opponent: OpponentService, clock: ManualClock) -> EffectRunner:
    registry = EffectRegistry(opponent.storage)
    install_handler(registry, opponent)
    return EffectRunner(registry, clock, owner="engine", batch=1)


async def new_game(
    opponent: OpponentService, color: str, variant: str = "chess", level: int = 1
) -> int:
    view = await opponent.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=ANN,
        engine=FAIRY,
        variant=variant,
        level_number=level,
        color=color,
    )
    await opponent.games.attach_thread(view.game.id, 6000 + view.game.id)
    return view.game.id


async def engine_effects(opponent: OpponentService, game_id: int) -> list[EffectStatus]:
    found = await opponent.storage.effects.find(limit=100)
    return [e.status for e in found if e.kind == ENGINE_MOVE and e.game_id == game_id]


async def play(opponent: OpponentService, game_id: int, text: str, user: UserRef = ANN) -> None:
    await opponent.games.play(channel_id=0, user=user, text=text, game_id=game_id)


async def test_the_game_starts_at_once_unrated_and_the_engine_opens_as_white(
    opponent: OpponentService, engine_runner: EffectRunner
) -> None:
    game_id = await new_game(opponent, "black")
    game = await opponent.storage.games.get(game_id)
    assert (game.white_id, game.black_id, game.rated) == (FAIRY.id, ANN.id, False)
    assert (game.engine_id, game.engine_level) == (FAIRY.id, 1)
    assert await engine_effects(opponent, game_id) == [EffectStatus.PENDING]
    assert await engine_runner.run_due() == 1
    game = await opponent.storage.games.get(game_id)
    assert game.ply_count == 1 and game.to_move_id == ANN.id
    assert await engine_effects(opponent, game_id) == [EffectStatus.DONE]


async def test_the_reply_is_recorded_once_and_played_once(
    opponent: OpponentService, engine_runner: EffectRunner
) -> None:
    game_id = await new_game(opponent, "white")
    assert await engine_effects(opponent, game_id) == []  # the human opens
    await play(opponent, game_id, "e2e4")
    game = await opponent.storage.games.get(game_id)
    (effect,) = [e for e in await opponent.storage.effects.find(limit=100) if e.kind == ENGINE_MOVE]
    # The same effect delivered twice (a worker died after playing, before marking it done):
    await opponent.storage.effects.add(
        [NewEffect(ENGINE_MOVE, dict(effect.payload), game_id, queue=f"engine:{game_id}")],
        opponent.games.clock.now(),
    )
    assert await engine_runner.run_due() == 2
    after = await opponent.storage.games.get(game_id)
    assert after.ply_count == 2 and after.revision == game.revision + 1
    assert after.to_move_id == ANN.id
    assert len(opponent.replies) == 1


async def test_a_restart_picks_up_every_game_where_the_engine_is_to_move(
    opponent: OpponentService, engine_runner: EffectRunner
) -> None:
    game_id = await new_game(opponent, "black")
    # The bot stopped after the game started: its effect is lost (say, an old database).
    for effect in await opponent.storage.effects.find(limit=100):
        if effect.kind == ENGINE_MOVE:
            await opponent.storage.effects.claim_one(effect.id, "gone", 0, lease_seconds=1)
            await opponent.storage.effects.fail(effect.id, "gone", 0, error="lost")
    human_turn = await new_game(opponent, "white")
    assert await opponent.resume() == 1
    assert await opponent.resume() == 1  # again: nothing recorded twice
    await engine_runner.run_due()
    assert (await opponent.storage.games.get(game_id)).ply_count == 1
    assert (await opponent.storage.games.get(human_turn)).ply_count == 0


async def test_takeback_goes_back_to_the_humans_turn(
    opponent: OpponentService, engine_runner: EffectRunner
) -> None:
    game_id = await new_game(opponent, "white")
    await play(opponent, game_id, "e2e4")
    await engine_runner.run_due()
    result = await opponent.request_takeback(channel_id=0, user=ANN, game_id=game_id)
    assert isinstance(result, GameView)
    game = await opponent.storage.games.get(game_id)
    assert game.ply_count == 0 and game.to_move_id == ANN.id
    # While the engine is thinking: only the human's move goes back, and the search that
    # was owed is called off (its effect plays nothing).
    await play(opponent, game_id, "d2d4")
    await opponent.request_takeback(channel_id=0, user=ANN, game_id=game_id)
    await engine_runner.run_due()
    game = await opponent.storage.games.get(game_id)
    assert game.ply_count == 0 and game.to_move_id == ANN.id
    assert EffectStatus.PENDING not in await engine_effects(opponent, game_id)


async def test_a_draw_offered_early_is_declined_even_when_the_engine_is_worse(
    opponent: OpponentService,
) -> None:
    """Only a really drawn position is a draw (search.play.accepts_draw, tested there on
    dead material and on level endings): at move 3 the engine plays on, a Queen down or
    not."""
    worse = await new_game(opponent, "white")
    for text, user in (("e2e4", ANN), ("e7e5", FAIRY), ("g1f3", ANN), ("d8h4", FAIRY)):
        await play(opponent, worse, text, user)
    await play(opponent, worse, "f3h4")  # the engine's Queen is gone
    declined = await opponent.offer_draw(channel_id=0, user=ANN, game_id=worse)
    assert isinstance(declined, OfferView) and declined.offer is not None
    assert declined.offer.status.value == "declined"
    assert (await opponent.storage.games.get(worse)).is_active

    fresh = await new_game(opponent, "white")
    await play(opponent, fresh, "e2e4")
    declined = await opponent.offer_draw(channel_id=0, user=ANN, game_id=fresh)
    assert isinstance(declined, OfferView) and declined.offer is not None
    assert declined.offer.status.value == "declined"


async def test_an_ending_calls_off_the_search(
    opponent: OpponentService,
    clock: ManualClock,
    pool: SearchPool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A full-strength search (level 8: a minute) stops when the human resigns meanwhile."""
    caplog.set_level("INFO", logger="fairypost.opponent")
    slow = OpponentService(opponent.games, pool, EngineConfig(pause=0))
    registry = EffectRegistry(opponent.storage)
    install_handler(registry, slow)
    game_id = await new_game(opponent, "white", level=8)
    await play(opponent, game_id, "e2e4")
    runner = EffectRunner(registry, clock, owner="slow", batch=1)
    task = asyncio.create_task(runner.run_due())
    for _ in range(600):  # until the search runs (or, on a slow machine, has not yet begun)
        if pool.running or task.done():
            break
        await asyncio.sleep(0.05)
    await opponent.games.resign(channel_id=0, user=ANN, game_id=game_id)
    await asyncio.wait_for(task, timeout=300)
    game = await opponent.storage.games.get(game_id)
    assert game.ply_count == 1 and game.termination is Termination.RESIGNATION
    assert list(slow.replies) == []
    assert "was called off" in caplog.text or "no longer wanted" in caplog.text


async def test_refusals(opponent: OpponentService) -> None:
    with pytest.raises(BadRequestError, match="level runs from 1 to 8"):
        await opponent.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger=ANN,
            engine=FAIRY,
            variant="chess",
            level_number=9,
        )
    with pytest.raises(BadRequestError, match="unrated"):
        await opponent.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger=ANN,
            engine=FAIRY,
            variant="chess",
            rated=True,
        )


WORKER_SCRIPT = """
import os, sys
from bot.service.searchpool import SearchPool
if __name__ == "__main__":
    pool = SearchPool(1)
    print(pool._pool().submit(os.getpid).result(), flush=True)
    sys.stdin.read()
"""


def test_a_worker_does_not_outlive_a_killed_bot(tmp_path: Path) -> None:
    """The bot killed outright (no shutdown): its search process exits by itself."""
    script = tmp_path / "a_bot.py"
    script.write_text(WORKER_SCRIPT)
    bot = subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert bot.stdout is not None
    worker = int(bot.stdout.readline())
    bot.kill()
    bot.wait()
    for _ in range(1200):  # a minute at most; the worker looks every second
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        # A zombie (exited, not yet reaped by init) counts as gone.
        with contextlib.suppress(OSError):
            if Path(f"/proc/{worker}/stat").read_text().split(") ")[1].startswith("Z"):
                return
        time.sleep(0.05)
    os.kill(worker, signal.SIGKILL)
    raise AssertionError("the search process outlived the bot")
