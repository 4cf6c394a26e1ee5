"""The pure clock and calendar rules."""

from __future__ import annotations

from storage.clock import (
    bank_after_move,
    reminder_times,
    split_by_year,
    turn_allowance,
    vacation_end,
    year_of,
    year_start,
)
from storage.models import DAY, HOUR, Clock

Y2026 = year_start(2026)
Y2027 = year_start(2027)


def test_turn_allowance_is_the_time_per_move_plus_the_bank() -> None:
    assert turn_allowance(Clock(DAY, 0), 0) == DAY
    assert turn_allowance(Clock(DAY, 2 * DAY), 5 * HOUR) == DAY + 5 * HOUR
    assert turn_allowance(Clock.untimed(), 0) is None


def test_the_bank_is_the_time_left_capped() -> None:
    assert bank_after_move(Clock(DAY, 0), 20 * HOUR) == 0
    assert bank_after_move(Clock(DAY, 2 * DAY), 20 * HOUR) == 20 * HOUR
    assert bank_after_move(Clock(DAY, 2 * DAY), 3 * DAY) == 2 * DAY
    assert bank_after_move(Clock(DAY, 2 * DAY), -5) == 0


def test_reminders_in_the_past_are_dropped() -> None:
    assert reminder_times(1000 * HOUR, [DAY, HOUR], 900 * HOUR) == [
        (DAY, 976 * HOUR),
        (HOUR, 999 * HOUR),
    ]
    assert reminder_times(1000 * HOUR, [DAY, HOUR], 980 * HOUR) == [(HOUR, 999 * HOUR)]
    assert reminder_times(1000 * HOUR, [DAY], 976 * HOUR) == []


def test_years_are_utc_calendar_years() -> None:
    assert year_of(Y2027 - 1) == 2026
    assert year_of(Y2027) == 2027
    assert Y2027 - Y2026 == 365 * DAY


def test_intervals_split_at_new_year() -> None:
    assert split_by_year(Y2026, Y2026 + DAY) == {2026: DAY}
    assert split_by_year(Y2027 - DAY, Y2027 + 2 * DAY) == {2026: DAY, 2027: 2 * DAY}
    assert split_by_year(Y2026, Y2026) == {}
    assert split_by_year(Y2026 - 1, year_start(2028) + 1) == {
        2025: 1,
        2026: 365 * DAY,
        2027: 365 * DAY,
        2028: 1,
    }


def test_a_vacation_ends_when_the_allowance_runs_out() -> None:
    allowance = 14 * DAY
    assert vacation_end(Y2026 + DAY, {}, allowance) == Y2026 + 15 * DAY
    assert vacation_end(Y2026 + DAY, {2026: 10 * DAY}, allowance) == Y2026 + 5 * DAY
    assert vacation_end(Y2026 + DAY, {2026: allowance}, allowance) == Y2026 + DAY
    # crossing New Year: the rest of this year's allowance, then next year's
    assert vacation_end(Y2027 - 2 * DAY, {2026: 10 * DAY}, allowance) == Y2027 + 14 * DAY
    assert vacation_end(Y2027 - 2 * DAY, {2026: 13 * DAY}, allowance) == Y2027 - DAY
    # exactly at New Year: continues on the fresh allowance
    assert vacation_end(Y2027 - DAY, {2026: 13 * DAY}, allowance) == Y2027 + 14 * DAY
    assert vacation_end(Y2027 - DAY, {2026: 13 * DAY, 2027: 14 * DAY}, allowance) == Y2027
