"""CPU work off the event loop: the loop serves every player, so nothing that takes more
than a few milliseconds runs on it (issue 31).

`off_loop(fn, *args)` runs `fn` in one of a few worker threads kept for the bot's CPU work
(piece values, validating a definition, checking a conditional line, replays, listing a
long game's moves). The work is pure Python and holds the interpreter while it runs, but a
thread gives it up every few milliseconds (`sys.getswitchinterval`), so the loop keeps
answering meanwhile; the pool's size bounds how much of the CPU such work takes at once.
Searches and reviews, which run for seconds to minutes, go to the engine's processes
instead (`bot.service.searchpool`).

`within(task, seconds)`: what an answer that cannot wait (autocomplete) gets from work
that may take longer: the result if it came in time, else None while the work goes on
(its result is usually cached for the next call).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

CPU_THREADS = 2
"""Threads doing the bot's CPU work at once (more would only share the same cores)."""

SUGGEST_SECONDS = 0.08
"""How long an autocomplete waits for work off the loop (a long game's moves listed for the
first time): Discord shows nothing after 3 s and a player types on meanwhile, so past this
it answers that they are coming, and the next keystroke finds them."""

_executors: list[ThreadPoolExecutor] = []


def _pool() -> ThreadPoolExecutor:
    if not _executors:
        _executors.append(ThreadPoolExecutor(CPU_THREADS, thread_name_prefix="fairypost-cpu"))
    return _executors[0]


async def off_loop(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`fn(*args, **kwargs)` in a CPU worker thread, awaited without holding the loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_pool(), functools.partial(fn, *args, **kwargs))


async def within(work: Awaitable[T], seconds: float) -> T | None:
    """`work`'s result if it comes within `seconds`, else None; the work is not cancelled
    (a task keeps running and may fill a cache for the next call)."""
    task = asyncio.ensure_future(work)
    task.add_done_callback(_retrieve)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        return None
    return task.result()


def _retrieve(task: asyncio.Future[Any]) -> None:
    """A failure of work nobody awaits any more is not reported as never retrieved (the
    next call that needs it runs it again and meets the error itself)."""
    if not task.cancelled():
        task.exception()
