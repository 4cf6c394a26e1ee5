"""Time as the service sees it: integer Unix seconds from a clock that tests can drive."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> int: ...


class SystemClock:
    """The real time."""

    def now(self) -> int:
        return int(time.time())


class ManualClock:
    """A clock that only moves when told to: weeks of game time in milliseconds of tests."""

    def __init__(self, start: int = 1_800_000_000) -> None:
        self._now = start

    def now(self) -> int:
        return self._now

    def advance(self, seconds: int) -> int:
        self._now += seconds
        return self._now

    def set(self, when: int) -> None:
        self._now = when
