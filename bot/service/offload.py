"""CPU work off the event loop: the loop serves every player, so nothing that takes more
than a few milliseconds runs on it (issue 31).

`off_loop(fn, *args)` runs `fn` in one of a few worker threads kept for the bot's CPU work
(piece values, validating a definition, checking a conditional line, replays, listing a
long game's moves). The work is pure Python and holds the interpreter while it runs, but a
thread gives it up every few milliseconds (`sys.getswitchinterval`), so the loop keeps
answering meanwhile; the pool's size bounds how much of the CPU such work takes at once.
Searches and reviews, which run for seconds to minutes, go to the engine's processes
instead (`bot.service.searchpool`).

`in_process(fn, *args)` runs `fn` in a worker process of the bot's own (one, started on first
use or by `warm_process`), for the work that takes a second or more and whose answer is
small (piece values, a definition's sanity run): a thread would share the interpreter with
the loop, and on a busy machine the loop then waits whenever the thread holding it is off
the CPU. `fn` and its arguments are pickled: module-level functions and plain data only.

`within(task, seconds)`: what an answer that cannot wait (autocomplete) gets from work
that may take longer: the result if it came in time, else None while the work goes on
(its result is usually cached for the next call).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
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


PROCESS_NICE = 2
"""The worker process's CPU priority below the bot's: the loop wins the CPU."""
_processes: list[ProcessPoolExecutor] = []


def _start_process(parent: int) -> None:
    """`parent` is the bot's pid, given by the bot: a worker spawned just as the bot was
    killed starts as an orphan already, and must not take its new parent for the bot."""
    # Ctrl-C and a service manager's stop signal the whole process group; the bot stops its
    # workers itself, and the watch below ends one if the bot is killed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(PROCESS_NICE)

    def watch() -> None:
        """No worker outlives the bot (killed, it cannot stop its pool)."""
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="fairypost-cpu-watch", daemon=True).start()


def _process_pool() -> ProcessPoolExecutor:
    if not _processes:
        # spawn: the bot has threads, which fork copies badly (as the engine's pool).
        context = multiprocessing.get_context("spawn")
        _processes.append(
            ProcessPoolExecutor(
                1, mp_context=context, initializer=_start_process, initargs=(os.getpid(),)
            )
        )
    return _processes[0]


async def in_process(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`fn(*args, **kwargs)` in the bot's CPU worker process; a worker that died is
    replaced once."""
    loop = asyncio.get_running_loop()
    call = functools.partial(fn, *args, **kwargs)
    try:
        return await loop.run_in_executor(_process_pool(), call)
    except BrokenProcessPool:
        _processes.clear()
        return await loop.run_in_executor(_process_pool(), call)


def _ready() -> bool:
    return True


async def warm_process() -> None:
    """Starts the worker process now (it imports the rules: a second) rather than on the
    first /piece."""
    await in_process(_ready)


def close_process() -> None:
    """Stops the worker process (the bot's shutdown)."""
    while _processes:
        _processes.pop().shutdown(wait=False, cancel_futures=True)


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
