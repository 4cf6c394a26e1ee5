"""The cached position is verified against a replay when another engine version wrote it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import pytest

from storage import Storage
from storage.engine import UNKNOWN_ENGINE_VERSION, Engine
from storage.errors import GameReplayError
from tests.storage.conftest import T0, WHITE, engine, new_game, play, raw_sql
from tests.storage.fakes import ILLEGAL, FakeIllegalMoveError, fake_replay


class CountingReplayer:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, variant_id: str, options: Sequence[str], moves: Sequence[str]) -> str:
        self.calls += 1
        return fake_replay(variant_id, options, moves)


async def corrupt_cache(target: str, game_id: int, text: str) -> None:
    await raw_sql(target, "UPDATE games SET position_text = ? WHERE id = ?", (text, game_id))


async def test_same_version_is_trusted_without_replaying(db_target: str) -> None:
    replayer = CountingReplayer()
    async with await Storage.open(db_target, engine=Engine("v1", replayer)) as storage:
        game = await play(storage, await new_game(storage), ["e2e4", "e7e5"], T0)
        await corrupt_cache(db_target, game.id, "whatever")
        assert (await storage.games.get(game.id)).position_text == "whatever"
    assert replayer.calls == 0


async def test_a_new_engine_verifies_and_keeps_a_correct_cache(db_target: str) -> None:
    async with await Storage.open(db_target, engine=engine("v1")) as storage:
        game = await play(storage, await new_game(storage), ["e2e4", "e7e5"], T0)
    replayer = CountingReplayer()
    async with await Storage.open(db_target, engine=Engine("v2", replayer)) as storage:
        loaded = await storage.games.get(game.id)
        assert (loaded.position_text, loaded.engine_version) == (game.position_text, "v2")
        assert await storage.games.get(game.id) == loaded
        assert loaded.updated_at == game.updated_at  # verification is not activity
    assert replayer.calls == 1


async def test_a_disagreeing_cache_is_rebuilt_from_the_moves(
    db_target: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with await Storage.open(db_target, engine=engine("v1")) as storage:
        game = await play(storage, await new_game(storage, thread_id=31), ["e2e4"], T0)
    await corrupt_cache(db_target, game.id, "stale position from an older engine")
    async with await Storage.open(db_target, engine=engine("v2")) as storage:
        with caplog.at_level(logging.WARNING, logger="storage.games"):
            loaded = await storage.games.find_by_thread(31)
        assert loaded is not None
        assert loaded.position_text == fake_replay("chess", (), ["e2e4"])
        assert loaded.engine_version == "v2"
        assert "rebuilt" in caplog.text
        again, moves = await storage.games.get_with_moves(game.id)
        assert again == loaded and len(moves) == 1


async def test_an_active_game_that_no_longer_replays_is_reported_untouched(
    db_target: str,
) -> None:
    async with await Storage.open(db_target, engine=engine("v1")) as storage:
        game = await play(storage, await new_game(storage), ["e2e4", ILLEGAL], T0)
    async with await Storage.open(db_target, engine=engine("v2")) as storage:
        with pytest.raises(GameReplayError, match="does not replay with rules engine v2") as e:
            await storage.games.get(game.id)
        assert e.value.game_id == game.id
        assert isinstance(e.value.__cause__, FakeIllegalMoveError)
    async with await Storage.open(db_target, engine=engine("v1")) as storage:
        assert (await storage.games.get(game.id)).engine_version == "v1"


async def test_a_finished_game_that_no_longer_replays_is_still_shown(db_target: str) -> None:
    async with await Storage.open(db_target, engine=engine("v1")) as storage:
        game = await play(storage, await new_game(storage), [ILLEGAL], T0)
        await storage.games.resign(game.id, WHITE, T0 + 5)
    async with await Storage.open(db_target, engine=engine("v2")) as storage:
        loaded = await storage.games.get(game.id)
        assert loaded.engine_version == "v1"
        assert loaded.position_text == game.position_text


async def test_games_written_without_an_engine_are_verified_later(db_target: str) -> None:
    async with await Storage.open(db_target) as storage:
        game = await new_game(storage)
        assert game.engine_version == UNKNOWN_ENGINE_VERSION
        assert (await storage.games.get(game.id)).engine_version == UNKNOWN_ENGINE_VERSION
    async with await Storage.open(db_target, engine=engine("v3")) as storage:
        assert (await storage.games.get(game.id)).engine_version == "v3"


async def test_a_move_during_verification_wins_and_the_load_rereads(db_target: str) -> None:
    """The replay runs outside the lock; a move landing meanwhile makes the compare-and-set
    miss, and the load returns the newer game instead of overwriting it."""
    async with await Storage.open(db_target, engine=engine("v1")) as storage:
        game = await play(storage, await new_game(storage), ["e2e4"], T0)
    mover = await Storage.open(db_target, engine=engine("v2"))
    loop = asyncio.get_running_loop()
    calls: list[int] = []

    def replay_while_someone_moves(
        variant: str, options: Sequence[str], moves: Sequence[str]
    ) -> str:
        calls.append(len(moves))
        if len(calls) == 1:  # runs in a worker thread: make the move on the loop meanwhile
            asyncio.run_coroutine_threadsafe(play(mover, game, ["e7e5"], T0 + 1), loop).result()
        return "a replay the load must not store over the newer move"

    try:
        engine_v2 = Engine("v2", replay_while_someone_moves)
        async with await Storage.open(db_target, engine=engine_v2) as storage:
            loaded = await storage.games.get(game.id)
        assert calls == [1]
        assert (loaded.ply_count, loaded.engine_version) == (2, "v2")
        assert loaded.position_text == fake_replay("chess", (), ["e2e4", "e7e5"])
    finally:
        await mover.close()
