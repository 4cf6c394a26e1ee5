"""Pure clock and calendar arithmetic, kept apart so the rules are tested without a database.

The clock rule: a player's turn lasts `move_seconds` plus their bank. When they move, the time
they had left becomes their bank, capped at `bank_cap_seconds`. With a cap of 0 this is the
classic "N days per move" correspondence clock.

Vacation is counted in seconds per UTC calendar year; a vacation that crosses New Year draws on
both years' allowances.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from storage.models import Clock


def turn_allowance(clock: Clock, bank: int) -> int | None:
    """Seconds the player to move has for this turn, or None for an untimed game."""
    if clock.move_seconds is None:
        return None
    return clock.move_seconds + bank


def bank_after_move(clock: Clock, seconds_left: int) -> int:
    """The mover's new bank: what they had left, between 0 and the cap."""
    return max(0, min(clock.bank_cap_seconds, seconds_left))


def reminder_times(deadline_at: int, offsets: Iterable[int], now: int) -> list[tuple[int, int]]:
    """(offset, due time) of each reminder still in the future; past ones would be noise."""
    return [(offset, deadline_at - offset) for offset in offsets if deadline_at - offset > now]


def year_of(ts: int) -> int:
    return datetime.fromtimestamp(ts, UTC).year


def year_start(year: int) -> int:
    return int(datetime(year, 1, 1, tzinfo=UTC).timestamp())


def split_by_year(start: int, end: int) -> dict[int, int]:
    """Seconds of the interval [start, end) falling in each UTC calendar year."""
    out: dict[int, int] = {}
    cursor = start
    while cursor < end:
        year = year_of(cursor)
        boundary = min(end, year_start(year + 1))
        out[year] = out.get(year, 0) + boundary - cursor
        cursor = boundary
    return out


def vacation_end(start: int, used_by_year: Mapping[int, int], allowance: int) -> int:
    """When a vacation started at `start` runs out of allowance.

    It ends when the current year's allowance is spent, unless New Year comes first, in which
    case it continues on the next year's allowance.
    """
    cursor = start
    while True:
        year = year_of(cursor)
        left = max(0, allowance - used_by_year.get(year, 0))
        next_year = year_start(year + 1)
        if cursor + left < next_year or left == 0:
            return cursor + left
        cursor = next_year
