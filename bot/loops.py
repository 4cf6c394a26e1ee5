"""Background loops that sleep until something falls due: the timers and the effects.

Each loop runs one pass (handle everything due now), asks when the next item falls due and
sleeps until then, or until poked (after anything that may have made an earlier item: a
move, a setting, a new effect). A failed pass is logged and tried again a minute later. On
start, the first pass handles whatever fell due while the bot was down.

With `poll` (several processes on PostgreSQL) a loop never sleeps longer than that: another
process may have recorded earlier work (a deadline, an effect) and then died before
carrying it out, and nothing else would wake this one. A pass of the effects loop also takes
over the claims of processes that are gone. (LISTEN/NOTIFY could wake the loops at once,
but NOTIFY serialises the commits of every transaction that sends one, including the
fsync: a move would pay for it, while a look every few seconds costs one indexed query.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from bot.service.clock import Clock

log = logging.getLogger("fairypost.loops")
MAX_SLEEP = 3600.0
RETRY_AFTER_ERROR = 60
IDLE_RECHECK = 1.0


class DueLoop:
    def __init__(
        self,
        name: str,
        run_pass: Callable[[], Awaitable[int]],
        next_due_at: Callable[[], Awaitable[int | None]],
        clock: Clock,
        *,
        before_first_pass: Callable[[], Awaitable[object]] | None = None,
        poll: float | None = None,
    ) -> None:
        self.name = name
        self.poll = poll
        self._run_pass = run_pass
        self._next_due_at = next_due_at
        self._before = before_first_pass
        self.clock = clock
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._followers: list[DueLoop] = []
        self.handled = 0
        """Items handled so far, for tests and logs."""
        self.passes = 0
        """Passes completed so far: a test that poked waits for this to grow."""

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"fairypost-{self.name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def poke(self) -> None:
        """Something may be due earlier than the loop thinks: look again now."""
        self._wake.set()
        for loop in self._followers:
            loop.poke()

    def follow(self, loop: DueLoop) -> None:
        """`loop` is poked with this one (the engine's runners with the effects loop: an
        event that records effects may record the engine's move too)."""
        self._followers.append(loop)

    async def _run(self) -> None:
        if self._before is not None:
            await self._before()
        while True:
            self._wake.clear()
            handled = 0
            try:
                handled = await self._run_pass()
                due = await self._next_due_at()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s pass failed; retrying in a minute", self.name)
                due = self.clock.now() + RETRY_AFTER_ERROR
            self.handled += handled
            self.passes += 1
            longest = MAX_SLEEP if self.poll is None else self.poll
            delay = longest if due is None else max(0.0, min(longest, due - self.clock.now()))
            if delay <= 0:
                if handled:
                    await asyncio.sleep(0)  # more is due: go round, letting others run first
                    continue
                delay = IDLE_RECHECK  # due but nothing could be done (held elsewhere)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._wake.wait()
