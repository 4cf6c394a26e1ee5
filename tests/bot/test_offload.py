"""CPU work runs off the event loop (issue 31): each heavy step is handed to a worker
thread, and the loop answers other players meanwhile. The slow work is faked (a sleep in the
patched function); what is checked is where it ran and that the loop went on, never how
fast anything was."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.service import GameService
from bot.service import conditional as conditional_module
from bot.service import games as games_module
from bot.service import variants as variants_module
from bot.service.conditional import ConditionalService
from bot.service.offload import off_loop, within
from tests.bot.conftest import ANN, BOB, GUILD, start_game

THREAD = 5000


def slow(fn: Callable[..., Any], threads: list[str], seconds: float = 0.2) -> Callable[..., Any]:
    """`fn` that first records the thread it runs in and holds it for `seconds`."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        time.sleep(seconds)
        return fn(*args, **kwargs)

    return wrapped


async def ticks_during(work: Any) -> tuple[Any, int]:
    """`work`'s result and how often another task got the loop while it ran."""
    count = 0
    done = False

    async def ticker() -> None:
        nonlocal count
        while not done:
            count += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    try:
        result = await work
    finally:
        done = True
        await task
    return result, count


def off_main(threads: list[str]) -> bool:
    return bool(threads) and all(t != threading.main_thread().name for t in threads)


async def test_off_loop_keeps_the_loop_answering() -> None:
    threads: list[str] = []
    result, ticks = await ticks_during(off_loop(slow(lambda x: x + 1, threads), 41))
    assert result == 42
    assert off_main(threads)
    assert ticks > 1


async def test_within_answers_none_and_lets_the_work_finish() -> None:
    threads: list[str] = []
    work = asyncio.ensure_future(off_loop(slow(lambda: "done", threads)))
    assert await within(work, 0.001) is None
    assert await work == "done"
    assert await within(asyncio.sleep(0, "now"), 1.0) == "now"


async def test_piece_values_and_rules_views_are_computed_off_the_loop(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    monkeypatch.setattr(variants_module, "piece_info", slow(variants_module.piece_info, threads))
    monkeypatch.setattr(variants_module, "rules_view", slow(variants_module.rules_view, threads))
    (_, info), ticks = await ticks_during(service.variants.piece_info(GUILD, "chess", "N"))
    assert info.name == "Knight"
    view, more = await ticks_during(service.variants.rules_view(GUILD, "chess"))
    assert view.variant.id == "chess"
    assert len(threads) == 2
    assert off_main(threads)
    assert ticks > 1 and more > 1


async def test_conditional_lines_are_checked_off_the_loop(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    monkeypatch.setattr(
        conditional_module, "check_line", slow(conditional_module.check_line, threads)
    )
    await start_game(service, "chess")
    await service.play(channel_id=THREAD, user=ANN, text="e4")
    cond = ConditionalService(service)
    added, ticks = await ticks_during(cond.add(channel_id=THREAD, user=ANN, text="e5 Nf3"))
    assert added.new_branches == 1
    assert off_main(threads)
    assert ticks > 1
    # The line's autocomplete plays the typed steps off the loop, once per line so far.
    first = await cond.suggest(channel_id=THREAD, user_id=ANN.id, typed="e5 N")
    assert "e5 Ng1-f3" in {s.value for s in first}


async def test_first_autocomplete_of_a_game_not_in_memory_answers_within_its_budget(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game not in the cache is listed from its stored position, off the loop; past the
    budget the answer says the moves are coming, and the next call has them."""
    threads: list[str] = []
    game_id = await start_game(service, "chess")
    await service.play(channel_id=THREAD, user=ANN, text="e4")
    service.cache.drop(game_id)
    monkeypatch.setattr(games_module, "scan_order", slow(games_module.scan_order, threads))
    replays: list[object] = []
    monkeypatch.setattr(games_module, "replay", lambda *a: replays.append(a))
    service.suggest_seconds = 0.01
    monkeypatch.setattr(games_module, "LONG_GAME_PLIES", 1)  # this one-move game is "long"
    waiting = await service.suggest_moves(channel_id=THREAD, user_id=BOB.id, typed="N")
    assert len(waiting) == 1 and "keep typing" in waiting[0].name
    while service._listing:
        await asyncio.sleep(0.01)
    found = await service.suggest_moves(channel_id=THREAD, user_id=BOB.id, typed="N")
    assert {"Nb8-c6", "Ng8-f6"} <= {s.value for s in found}
    assert threads and off_main(threads)
    assert replays == []  # read from the stored position, not replayed


async def test_piece_values_and_sanity_runs_go_to_the_worker_process(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The work of seconds with small answers runs in the bot's worker process, whose
    interpreter the loop does not share; the values are kept for the next /piece."""
    import os

    from bot.service.offload import in_process

    assert await in_process(os.getpid) != os.getpid()
    jobs: list[str] = []

    async def recorded(fn: Callable[..., Any], *args: Any) -> Any:
        jobs.append(fn.__name__)
        return await in_process(fn, *args)

    monkeypatch.setattr(variants_module, "in_process", recorded)
    _, info = await service.variants.piece_info(GUILD, "chess", "N")
    assert info.value is not None and info.value > 0
    await service.variants.piece_info(GUILD, "chess", "B")
    assert jobs == ["_values_job"]
    from tests.bot.conftest import TINY_CHESS

    await service.variants.define(
        GUILD, ANN, can_manage=True, filename="tiny.toml", data=TINY_CHESS.encode()
    )
    assert jobs == ["_values_job", "_sanity_job", "_values_job"]


async def test_the_variants_of_games_in_progress_are_warmed_off_the_loop(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At start the bot builds the move tables of every variant with a game in progress
    (once each), in a worker thread; finished games' variants are left alone."""
    await start_game(service, "chess")
    await start_game(service, "chess", thread=THREAD + 1)
    await start_game(service, "shogi", thread=THREAD + 2)
    ended = await start_game(service, "xiangqi", thread=THREAD + 3)
    await service.resign(channel_id=THREAD + 3, user=ANN, game_id=ended)
    threads: list[str] = []
    warmed: list[str] = []
    original = games_module.warm_tables

    def record(variant: Any) -> Any:
        warmed.append(variant.id)
        return original(variant)

    monkeypatch.setattr(games_module, "warm_tables", slow(record, threads, 0.05))
    count, ticks = await ticks_during(service.warm_variants())
    assert count == 2 and warmed == ["chess", "shogi"]  # the most played first
    assert off_main(threads)
    assert ticks > 1


async def test_autocomplete_of_a_long_game_not_in_memory_lists_its_moves_after_warming(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bigorra (16x16) after a restart: the tables warmed, a game not in memory is listed
    from its stored position (no replay) and autocomplete answers with moves."""
    from rules.game import Game as RulesGame

    game_id = await start_game(service, "bigorra")
    line = RulesGame.new("bigorra")
    for ply in range(8):
        move = line.legal_moves()[ply].coordinates
        line.play(move)
        await service.play(channel_id=THREAD, user=BOB if ply % 2 else ANN, text=move)
    service.cache.drop(game_id)
    assert await service.warm_variants() == 1
    replays: list[object] = []
    monkeypatch.setattr(games_module, "replay", lambda *a: replays.append(a))
    monkeypatch.setattr(games_module, "LONG_GAME_PLIES", 8)  # these 8 plies are "long"
    found = await service.suggest_moves(channel_id=THREAD, user_id=ANN.id, typed="")
    assert found and all("keep typing" not in s.name for s in found)
    assert replays == []


async def test_board_of_a_game_not_in_memory_is_read_from_its_stored_position(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/board of a game not in the cache shows what the replay would (position, last move
    marked, recent moves, check) without replaying it."""
    game_id = await start_game(service, "chess")
    for ply, text in enumerate(["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7"]):
        await service.play(channel_id=THREAD, user=ANN if ply % 2 == 0 else BOB, text=text)
    replayed = await service.board(channel_id=THREAD, user_id=ANN.id)
    service.cache.drop(game_id)
    replays: list[object] = []
    monkeypatch.setattr(games_module, "replay", lambda *a: replays.append(a))
    stored = await service.board(channel_id=THREAD, user_id=ANN.id)
    assert replays == []
    assert stored.recent_moves == replayed.recent_moves
    assert stored.last_move == replayed.last_move
    assert stored.status == replayed.status
    assert stored.in_check == replayed.in_check
    assert stored.scene.position.board == replayed.scene.position.board
    marked = stored.scene.last_move
    assert marked is not None and replayed.scene.last_move is not None
    assert (marked.origin, marked.target) == (
        replayed.scene.last_move.origin,
        replayed.scene.last_move.target,
    )


async def test_moves_from_a_square_of_a_game_not_in_memory_are_read_without_replay(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = await start_game(service, "chess")
    for ply, text in enumerate(["e4", "e5", "Nf3"]):
        await service.play(channel_id=THREAD, user=ANN if ply % 2 == 0 else BOB, text=text)
    replayed = await service.moves_from(channel_id=THREAD, user_id=BOB.id, square="b8")
    planned = await service.moves_from(channel_id=THREAD, user_id=BOB.id, square="f3")
    service.cache.drop(game_id)
    replays: list[object] = []
    monkeypatch.setattr(games_module, "replay", lambda *a: replays.append(a))
    stored = await service.moves_from(channel_id=THREAD, user_id=BOB.id, square="b8")
    assert stored.moves == replayed.moves and stored.view.last_move == replayed.view.last_move
    ahead = await service.moves_from(channel_id=THREAD, user_id=BOB.id, square="f3")
    assert ahead.moves == planned.moves and ahead.planning
    assert replays == []
