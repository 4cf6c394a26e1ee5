"""The engine's process pool: searches run in other processes, never in the bot's.

A search is pure Python and holds the interpreter for seconds; in the bot's process it would
stall every reply (the GIL), so it runs in a `ProcessPoolExecutor` of its own (size
FAIRYPOST_ENGINE_WORKERS, default 1 on a two-core machine). The workers run at a lower
priority than the bot (`nice`), so a player's autocomplete wins the CPU over a search.

A job carries the variant (a picklable rules `Variant`, a server's own included) and the
moves; the worker replays them and searches with a transposition table of fixed size that it
keeps for its life (cleared between searches), so memory is bounded by workers x table size.

Cancelling: each job has a stop file in the pool's own temporary folder; the search asks
`should_stop()` every few hundred nodes, which looks for it. `search()` polls its caller's
`cancelled()` while it waits and creates the file when the answer turns true (the game
ended or was taken back), so the worker is free again within a moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from rules.game import Game as RulesGame
from rules.variant import Variant
from search.analysis import Analysis, analyze
from search.play import accepts_draw, best_move
from search.tt import TranspositionTable

log = logging.getLogger("fairypost.engine")

DEFAULT_WORKERS = 1
DEFAULT_TABLE_MEGABYTES = 16
WORKER_NICE = 5
"""How much lower the workers' CPU priority is than the bot's."""
POLL_SECONDS = 0.25
"""How often a waiting search asks whether it is still wanted."""
WATCH_SECONDS = 1.0
"""How often a worker checks that the bot that started it is still there."""


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One search: the position after `moves` in `variant`, at `level`. `movetime` (seconds)
    and `nodes` narrow the level's own budget; `seed` fixes the low levels' choices.
    `deadline` (a `time.time()` moment) is when the move is due: the time the job waits
    for a worker, the worker's start and the game's replay count against the budget."""

    variant: Variant
    moves: tuple[str, ...]
    level: int
    movetime: float | None = None
    nodes: int | None = None
    seed: int = 0
    deadline: float | None = None


@dataclass(frozen=True, slots=True)
class SearchAnswer:
    """The engine's move (`coordinates`: what `/move` accepts) and how it was found."""

    coordinates: str
    notation: str
    score_text: str
    depth: int
    nodes: int
    elapsed: float


# --- in the worker processes ----------------------------------------------------------------


class _Worker:
    """The state a worker process keeps between jobs: its table."""

    megabytes = DEFAULT_TABLE_MEGABYTES
    table: TranspositionTable | None = None


def _start_worker(megabytes: int, parent: int) -> None:
    """`parent` is the bot's pid, given by the bot: a worker spawned just as the bot was
    killed starts as an orphan already, and must not take its new parent for the bot."""
    _Worker.megabytes = megabytes
    # Ctrl-C in a terminal interrupts the whole process group: the bot stops the pool
    # itself, so a worker ignores it (else each prints a KeyboardInterrupt traceback).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)

    def watch() -> None:
        """A worker outlives no bot: if the bot is killed (it cannot shut the pool down),
        the worker sees its parent change and exits, search or not."""
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="fairypost-search-watch", daemon=True).start()


def _fresh_table() -> TranspositionTable:
    if _Worker.table is None:
        _Worker.table = TranspositionTable(_Worker.megabytes)
    else:
        _Worker.table.clear()
    return _Worker.table


def _stopper(stop_file: str) -> Callable[[], bool]:
    return lambda: os.path.exists(stop_file)


def _search(job: SearchJob, stop_file: str) -> SearchAnswer | None:
    # The wall-clock deadline on this process's monotonic clock, before anything else.
    due = None if job.deadline is None else time.monotonic() + (job.deadline - time.time())
    game = RulesGame.replay_variant(job.variant, job.moves)
    choice = best_move(
        game,
        job.level,
        movetime=job.movetime,
        nodes=job.nodes,
        seed=job.seed,
        tt=_fresh_table(),
        should_stop=_stopper(stop_file),
        deadline=due,
    )
    if choice is None:
        return None
    return SearchAnswer(
        choice.coordinates,
        choice.notation,
        choice.score_text,
        choice.depth,
        choice.nodes,
        choice.elapsed,
    )


def _analyze(
    variant: Variant, moves: tuple[str, ...], nodes_per_move: int, total_time: float
) -> Analysis:
    """A review (/analyze) in a worker: the game replayed and every position searched."""
    return analyze(
        RulesGame.replay_variant(variant, moves),
        nodes_per_move=nodes_per_move,
        movetime_per_move=None,
        total_time=total_time,
    )


def _ready() -> bool:
    return True


def _accepts_draw(variant: Variant, moves: tuple[str, ...], engine_color: int) -> bool:
    return accepts_draw(RulesGame.replay_variant(variant, moves), engine_color)


# --- in the bot ------------------------------------------------------------------------------


class SearchPool:
    """The pool of search processes (started on first use, rebuilt if a worker dies)."""

    def __init__(
        self, workers: int = DEFAULT_WORKERS, *, table_megabytes: int = DEFAULT_TABLE_MEGABYTES
    ) -> None:
        self.workers = max(1, workers)
        self.table_megabytes = table_megabytes
        self._executor: ProcessPoolExecutor | None = None
        self._folder = Path(tempfile.mkdtemp(prefix="fairypost-search-"))
        self._numbers = itertools.count(1)
        self._running: set[Path] = set()

    @property
    def running(self) -> int:
        """Searches submitted and not yet answered."""
        return len(self._running)

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # spawn: the bot has threads (the database's, rendering's), which fork copies
            # badly; spawned workers are the bot's own children, so they can watch it.
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=context,
                initializer=_start_worker,
                initargs=(self.table_megabytes, os.getpid()),
            )
        return self._executor

    async def search(
        self,
        job: SearchJob,
        *,
        cancelled: Callable[[], Awaitable[bool]] | None = None,
        poll: float = POLL_SECONDS,
    ) -> SearchAnswer | None:
        """The engine's move; None when the game is over or `cancelled()` turned true."""
        stop_file = self._folder / f"{next(self._numbers)}.stop"
        self._running.add(stop_file)
        try:
            future = self._submit(_search, job, str(stop_file))
            while True:
                done, _ = await asyncio.wait({asyncio.wrap_future(future)}, timeout=poll)
                if done:
                    return cast(SearchAnswer | None, future.result())
                if cancelled is not None and await cancelled():
                    if not future.cancel():  # already running: tell it to stop
                        stop_file.touch()
                        with contextlib.suppress(Exception):
                            await asyncio.wrap_future(future)
                    return None
        finally:
            self._running.discard(stop_file)
            stop_file.unlink(missing_ok=True)

    async def accepts_draw(self, variant: Variant, moves: Sequence[str], engine_color: int) -> bool:
        """Whether the engine takes a draw here (its evaluation says dead level or worse)."""
        future = self._submit(_accepts_draw, variant, tuple(moves), engine_color)
        return bool(await asyncio.wrap_future(future))

    async def analyze(
        self, variant: Variant, moves: Sequence[str], *, nodes_per_move: int, total_time: float
    ) -> Analysis:
        """A review of the game `moves`, in a worker process (the bot's process only waits):
        `search.analysis.analyze` with these budgets."""
        future = self._submit(_analyze, variant, tuple(moves), nodes_per_move, total_time)
        return cast(Analysis, await asyncio.wrap_future(future))

    async def warm(self) -> None:
        """Starts the workers now rather than on the first search (which otherwise waits
        for them to import the rules and the engine, a second or so)."""
        await asyncio.gather(
            *(asyncio.wrap_future(self._submit(_ready)) for _ in range(self.workers))
        )

    def _submit(self, fn: Callable[..., object], *args: object) -> Future[object]:
        try:
            return self._pool().submit(fn, *args)
        except BrokenProcessPool:
            log.warning("the search pool broke (a worker died); starting a new one")
            self._executor = None
            return self._pool().submit(fn, *args)

    def close(self) -> None:
        """Stops the running searches and the workers; removes the stop files' folder."""
        for stop_file in list(self._running):
            with contextlib.suppress(OSError):
                stop_file.touch()
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        shutil.rmtree(self._folder, ignore_errors=True)
