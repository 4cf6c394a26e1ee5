"""/analyze's service: who may review which game, and what the review says."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service import GameService, ManualClock
from bot.service.analysis import AnalysisService, eval_text
from bot.service.errors import BadRequestError
from bot.service.models import UserRef
from bot.service.opponent import OpponentService
from bot.service.pictures import RendererPictures, png_size
from bot.service.searchpool import SearchPool
from rules.record import read_record, replay_record
from search.analysis import MATE_CP
from storage import Storage
from tests.bot.conftest import ANN, BOB, GUILD, start_game

THREAD = 5000
# 3... Ng8-f6?? lets White mate at once (4. Qh5xf7++).
BLUNDER_GAME = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]


@pytest.fixture
def games(storage: Storage, clock: ManualClock) -> GameService:
    return GameService(storage, clock=clock, pictures=RendererPictures())


async def play_all(games: GameService, moves: list[str]) -> None:
    for i, move in enumerate(moves):
        await games.play(channel_id=THREAD, user=(ANN, BOB)[i % 2], text=move)


async def test_a_blunder_gets_two_question_marks(games: GameService) -> None:
    game_id = await start_game(games, "chess", thread=THREAD)
    await play_all(games, BLUNDER_GAME)
    review = await AnalysisService(games, total_nodes=80_000).review(channel_id=THREAD)
    assert review.game_id == game_id and review.complete
    text = review.record.text
    assert "3... Ng8-f6??" in text and "4. Qh5xf7++" in text
    assert "#   blunder: White mates" in text
    # The annotated record is still a record: it replays to the same checkmate.
    replayed = replay_record(read_record(text))
    assert len(replayed.history) == len(BLUNDER_GAME)
    outcome = replayed.outcome()
    assert outcome is not None and outcome.winner == 0
    assert any(line.startswith("3... Ng8-f6??") for line in review.worst)
    assert review.summary[1].startswith("Bob (Black): 1 ??")
    assert review.graph.png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png_size(review.graph.png) == (review.graph.width, review.graph.height)
    assert review.record.filename == f"fairypost-{game_id}-chess-analysis.txt"


async def test_a_running_game_between_people_is_refused(games: GameService) -> None:
    game_id = await start_game(games, "chess", thread=THREAD)
    await play_all(games, BLUNDER_GAME[:3])
    analysis = AnalysisService(games, total_nodes=20_000)
    with pytest.raises(BadRequestError, match="still being played"):
        await analysis.review(channel_id=THREAD)
    with pytest.raises(BadRequestError, match="still being played"):
        await analysis.review(channel_id=1, game_id=game_id, guild_id=GUILD)


async def test_a_running_game_against_the_engine_only_when_unrated(games: GameService) -> None:
    await start_game(games, "chess", thread=THREAD, rated=False)
    await start_game(games, "chess", thread=THREAD + 1, rated=True)
    await play_all(games, BLUNDER_GAME[:2])
    analysis = AnalysisService(games, total_nodes=20_000)
    # Bob stands in for Fairy Post itself here.
    review = await analysis.review(channel_id=THREAD, engine_ids=(BOB.id,))
    assert "# result: unfinished" in review.record.text
    await games.play(channel_id=THREAD + 1, user=ANN, text="d2d4")
    with pytest.raises(BadRequestError, match="is rated"):
        await analysis.review(channel_id=THREAD + 1, engine_ids=(BOB.id,))


async def test_a_game_started_against_fairy_post_is_known_by_its_record(
    games: GameService,
) -> None:
    """The game itself says it is against the engine: no list of the bot's ids is needed."""
    pool = SearchPool(1, table_megabytes=1)  # never started: nobody asks the engine to move
    try:
        engine = OpponentService(games, pool)
        view = await engine.challenge(
            guild_id=GUILD,
            channel_id=THREAD,
            challenger=ANN,
            engine=UserRef(777, "Fairy Post", bot=True),
            variant="chess",
            color="white",
        )
    finally:
        pool.close()
    await games.play(channel_id=THREAD, user=ANN, text="e2e4", game_id=view.game.id)
    review = await AnalysisService(games, total_nodes=20_000).review(
        channel_id=1, game_id=view.game.id, guild_id=GUILD
    )
    assert review.game_id == view.game.id and "# result: unfinished" in review.record.text


async def test_a_game_without_moves_has_nothing_to_analyse(games: GameService) -> None:
    await start_game(games, "chess", thread=THREAD)
    await games.resign(channel_id=THREAD, user=ANN)
    with pytest.raises(BadRequestError, match="no moves"):
        await AnalysisService(games).review(channel_id=THREAD)


def test_evaluations_read_from_white_side() -> None:
    assert eval_text(65) == "+0.65"
    assert eval_text(-210) == "−2.10"
    assert eval_text(MATE_CP) == "White mates" and eval_text(-MATE_CP) == "Black mates"


async def test_a_review_runs_in_a_worker_process_and_can_be_posted_through_the_outbox(
    games: GameService,
) -> None:
    """The review's search runs in another process (the bot's own only waits for it); a
    review that outlives the interaction is recorded in the outbox and reads back whole."""
    from bot.service.analysis import POST, review_of

    await start_game(games, "chess", thread=THREAD)
    await play_all(games, BLUNDER_GAME)
    pool = SearchPool(1)
    try:
        review = await AnalysisService(games, total_nodes=80_000, pool=pool).review(
            channel_id=THREAD
        )
        assert pool._executor is not None  # the work went to the pool's process
    finally:
        pool.close()
    assert "3... Ng8-f6??" in review.record.text
    await AnalysisService(games).post_later(review, THREAD)
    (effect,) = await games.storage.effects.find(kind=POST)
    assert effect.payload["channel_id"] == THREAD
    assert review_of(effect.payload) == review


async def test_a_queued_review_is_told_where_it_stands(games: GameService) -> None:
    import asyncio

    await start_game(games, "chess", thread=THREAD)
    await play_all(games, BLUNDER_GAME)
    release = asyncio.Event()

    async def held(work: Any) -> Any:
        await release.wait()
        return await asyncio.to_thread(work)

    service = AnalysisService(games, total_nodes=20_000, run=held)
    told: list[int] = []

    async def queued(ahead: int) -> None:
        told.append(ahead)

    first = asyncio.create_task(service.review(channel_id=THREAD, queued=queued))
    while not service._queue.locked():  # the first review runs
        await asyncio.sleep(0.01)
    second = asyncio.create_task(service.review(channel_id=THREAD, queued=queued))
    while not told:
        await asyncio.sleep(0.01)
    assert told == [1]  # the first started at once; the second waits behind it
    release.set()
    assert (await first).game_id == (await second).game_id
