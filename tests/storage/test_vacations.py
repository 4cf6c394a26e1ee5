"""Vacation: clocks stop in all the player's games, 14 days per calendar year."""

from __future__ import annotations

import pytest

from storage import Storage
from storage.clock import year_start
from storage.errors import VacationError
from storage.models import DAY, HOUR, VACATION_ALLOWANCE_SECONDS, Clock, DueKind, Termination
from tests.storage.conftest import BLACK, T0, THIRD, WHITE, make_move, new_game, play


async def test_vacation_stops_the_clocks_of_games_waiting_for_the_player(store: Storage) -> None:
    waiting = await new_game(store, clock=Clock(3 * DAY, 0))  # White to move, due T0+3d
    theirs = await play(
        store, await new_game(store, white=WHITE, black=THIRD), ["e2e4"], T0
    )  # Third to move
    status = await store.vacations.start(WHITE, T0 + DAY)
    assert status.on_vacation and status.started_at == T0 + DAY
    assert status.ends_at == T0 + DAY + VACATION_ALLOWANCE_SECONDS
    paused = await store.games.get(waiting.id)
    assert (paused.deadline_at, paused.paused_remaining, paused.clock_paused) == (
        None,
        2 * DAY,
        True,
    )
    assert (await store.games.get(theirs.id)).deadline_at == T0 + 3 * DAY
    assert (await store.players.get(WHITE)).on_vacation
    due = await store.timers.due(T0 + 10 * DAY)
    assert not [i for i in due if i.game_id == waiting.id and i.kind is not DueKind.TURN_NOTICE]

    # the opponent moves in the other game: the new turn starts with a stopped clock
    theirs = await play(store, theirs, ["e7e5"], T0 + 2 * DAY)
    assert (theirs.deadline_at, theirs.paused_remaining) == (None, 3 * DAY)

    status = await store.vacations.end(WHITE, T0 + 4 * DAY)
    assert not status.on_vacation
    assert status.used_seconds == 3 * DAY
    resumed = await store.games.get(waiting.id)
    assert (resumed.deadline_at, resumed.paused_remaining) == (T0 + 6 * DAY, None)
    assert (await store.games.get(theirs.id)).deadline_at == T0 + 7 * DAY
    reminders = [
        i.due_at
        for i in await store.timers.due(T0 + 10 * DAY)
        if i.game_id == waiting.id and i.kind is DueKind.REMINDER
    ]
    assert reminders == [T0 + 5 * DAY, T0 + 6 * DAY - HOUR]


async def test_moving_on_vacation_banks_the_stopped_time(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 2 * DAY))
    await store.vacations.start(WHITE, T0 + 6 * HOUR)
    done = await store.games.append_move(
        game.id, WHITE, 0, make_move(game, [], "e2e4"), T0 + 5 * DAY
    )
    assert done.game.white_bank == 18 * HOUR
    assert done.game.deadline_at == T0 + 5 * DAY + DAY  # Black's clock runs


async def test_allowance_runs_out_and_the_vacation_ends_itself(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 0))
    await store.vacations.start(WHITE, T0)
    ends = T0 + VACATION_ALLOWANCE_SECONDS
    assert await store.timers.next_due_at() == T0 + VACATION_ALLOWANCE_SECONDS  # its end
    [item] = [i for i in await store.timers.due(ends) if i.kind is DueKind.VACATION_END]
    assert (item.user_id, item.due_at) == (WHITE, ends)
    assert await store.vacations.end_due(ends - 1) == []
    [status] = await store.vacations.end_due(ends + 5 * HOUR)  # the timer was late
    assert (status.user_id, status.used_seconds, status.remaining_seconds) == (
        WHITE,
        VACATION_ALLOWANCE_SECONDS,
        0,
    )
    assert await store.vacations.end_due(ends + 6 * HOUR) == []
    # the clock restarts when the allowance ran out, not when the timer noticed
    assert (await store.games.get(game.id)).deadline_at == ends + DAY
    with pytest.raises(VacationError, match="used all your vacation"):
        await store.vacations.start(WHITE, ends + DAY)


async def test_usage_is_counted_per_calendar_year(store: Storage) -> None:
    new_year = year_start(2027)
    await store.vacations.start(WHITE, new_year - 13 * DAY)
    await store.vacations.end(WHITE, new_year - 3 * DAY)  # 10 days of 2026
    status = await store.vacations.start(WHITE, new_year - 2 * DAY)
    # 4 days left in 2026, of which 2 are spent before New Year; then 14 fresh days
    assert status.ends_at == new_year + 14 * DAY
    status = await store.vacations.status(WHITE, new_year + DAY)
    assert (status.year, status.used_seconds) == (2027, DAY)
    status = await store.vacations.end(WHITE, new_year + 2 * DAY)
    assert (status.year, status.used_seconds, status.remaining_seconds) == (
        2027,
        2 * DAY,
        12 * DAY,
    )
    last_year = await store.vacations.status(WHITE, new_year - 1)
    assert (last_year.year, last_year.used_seconds) == (2026, 12 * DAY)


async def test_vacation_refusals_and_status_of_strangers(store: Storage) -> None:
    with pytest.raises(VacationError, match="not on vacation"):
        await store.vacations.end(WHITE, T0)
    status = await store.vacations.status(BLACK, T0)
    assert (status.used_seconds, status.on_vacation, status.remaining_seconds) == (
        0,
        False,
        VACATION_ALLOWANCE_SECONDS,
    )
    await store.vacations.start(WHITE, T0)
    with pytest.raises(VacationError, match="already"):
        await store.vacations.start(WHITE, T0 + 1)
    running = await store.vacations.status(WHITE, T0 + 3 * DAY)
    assert running.used_seconds == 3 * DAY


async def test_a_clock_already_run_out_is_not_stopped(store: Storage) -> None:
    """Deadlines win: starting a vacation after the deadline first writes the loss."""
    game = await new_game(store, clock=Clock(DAY, 0))
    await store.vacations.start(WHITE, T0 + 2 * DAY)
    over = await store.games.get(game.id)
    assert (over.termination, over.winner_id, over.ended_at) == (
        Termination.TIMEOUT,
        BLACK,
        T0 + DAY,
    )
