"""The engine's process pool: searches run in other processes, never in the bot's.

A search is pure Python and holds the interpreter for seconds; in the bot's process it would
stall every reply (the GIL), so it runs in a `ProcessPoolExecutor` of its own (size
FAIRYPOST_ENGINE_WORKERS, default 1 on a two-core machine). The workers run at a lower
priority than the bot (`nice`), so a player's autocomplete wins the CPU over a search.

A job carries the variant (a picklable rules `Variant`, a server's own included) and the
moves; the worker replays them and searches with a transposition table of fixed size that it
keeps for its life: a job with a game key uses that game's own table, history and killers,
kept from its earlier moves for the few most recent games (`KEPT_GAMES`), any other job a
table cleared first; so memory is bounded by workers x (KEPT_GAMES + 1) x table size.

Fairy-Stockfish as a partner: when the operator names its executable (FAIRYPOST_FAIRY_STOCKFISH),
each worker keeps one Fairy-Stockfish process of its own (`search.partner`), started on first
use, for the jobs that ask for it (the strongest level, reviews) in the variants its
variants.ini can say. Whatever it cannot do (the variant, a crash, a hang, an illegal move),
the worker does with Fairy Post's own engine, and the answer says who played and why.

Cancelling: each job has a stop file in the pool's own temporary folder; the search asks
`should_stop()` every few hundred nodes, which looks for it. `search()` polls its caller's
`cancelled()` while it waits and creates the file when the answer turns true (the game
ended or was taken back), so the worker is free again within a moment.
"""

from __future__ import annotations

import asyncio
import atexit
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
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, cast

from rules.game import Game as RulesGame
from rules.notation import format_code
from rules.tables import warm_tables
from rules.variant import Variant
from search.analysis import Analysis, Judgement, analyze
from search.evaluate import eval_tables
from search.levels import level
from search.partner import OWN_ENGINE, FairyStockfish, PartnerError, Unsupported, section_for
from search.play import EngineMove, accepts_draw, best_move
from search.tt import GameMemories, GameMemory, TranspositionTable

log = logging.getLogger("fairypost.engine")

DEFAULT_WORKERS = 1
DEFAULT_TABLE_MEGABYTES = 16
KEPT_GAMES = 4
"""Games whose search memory (a table each, with history and killers) a worker keeps
between their moves: with the table for other searches, memory is bounded by workers x
(KEPT_GAMES + 1) x table size."""
WORKER_NICE = 5
"""How much lower the workers' CPU priority is than the bot's."""
POLL_SECONDS = 0.25
"""How often a waiting search asks whether it is still wanted."""
WATCH_SECONDS = 1.0
PARTNER_MIN_SECONDS = 0.05
"""The least time the partner is given for a move (a deadline already passed)."""
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
    partner: bool = False
    """Fairy-Stockfish plays it if the pool has one and it can (else Fairy Post's engine)."""
    game: str | None = None
    """The game's key (its id): the worker keeps the game's table, history and killers
    for its next move (for the `KEPT_GAMES` most recent games); None: a fresh table."""


@dataclass(frozen=True, slots=True)
class SearchAnswer:
    """The engine's move (`coordinates`: what `/move` accepts) and how it was found."""

    coordinates: str
    notation: str
    score_text: str
    depth: int
    nodes: int
    elapsed: float
    engine: str = OWN_ENGINE
    """Who found the move, as players read it (`Fairy-Stockfish 11.1`)."""
    fallback: str = ""
    """Why the partner, asked, did not play it (for the logs); empty otherwise."""


@dataclass(frozen=True, slots=True)
class Reviewed:
    """A review (/analyze) and who made it; `fallback` as in `SearchAnswer`."""

    analysis: Analysis
    engine: str = OWN_ENGINE
    fallback: str = ""


# --- in the worker processes ----------------------------------------------------------------


class _Worker:
    """The state a worker process keeps between jobs: its table, and the memories of the
    most recent games."""

    megabytes = DEFAULT_TABLE_MEGABYTES
    table: TranspositionTable | None = None
    memories: GameMemories | None = None
    partner: FairyStockfish | None = None
    games: ClassVar[OrderedDict[str, RulesGame]] = OrderedDict()


def _start_worker(megabytes: int, parent: int, partner: str | None, folder: str) -> None:
    """`parent` is the bot's pid, given by the bot: a worker spawned just as the bot was
    killed starts as an orphan already, and must not take its new parent for the bot.
    `partner`: the Fairy-Stockfish executable, if any (its variant files go in `folder`)."""
    _Worker.megabytes = megabytes
    if partner is not None:
        _Worker.partner = FairyStockfish(partner, Path(folder) / "variants")
        atexit.register(_Worker.partner.stop)
    # Ctrl-C in a terminal, and a service manager's stop, signal the whole process group:
    # the bot stops the pool itself (its searches told to stop first), so a worker ignores
    # both (else each prints a KeyboardInterrupt traceback, or dies under a search the bot
    # is still waiting for); the watch below ends it if the bot is killed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)

    def watch() -> None:
        """A worker outlives no bot: if the bot is killed (it cannot shut the pool down),
        the worker sees its parent change and exits, search or not."""
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="fairypost-search-watch", daemon=True).start()


def _game_memory(key: str) -> GameMemory:
    """The kept memory of game `key` (least recently used games give theirs up)."""
    if _Worker.memories is None:
        _Worker.memories = GameMemories(KEPT_GAMES, _Worker.megabytes)
    return _Worker.memories.get(key)


def _replayed(job: SearchJob) -> RulesGame:
    """The game of `job`, continued from the one this worker replayed for the game's last
    search when its moves begin the same way (one or two new plies to play, not a whole
    game: a 16x16 game of 150 plies takes a second to replay on a busy machine, out of the
    search's budget); else replayed from the start. Kept for the `KEPT_GAMES` most recent
    games, like their memories."""
    if job.game is None:
        return RulesGame.replay_variant(job.variant, job.moves)
    kept = _Worker.games.pop(job.game, None)
    game = None
    if kept is not None and kept.variant == job.variant and kept.ply <= len(job.moves):
        played = [m.coordinates for m in kept.history]
        if played == list(job.moves[: len(played)]):
            game = kept
            for text in job.moves[len(played) :]:
                game.play(text, check_marks=False)
    if game is None:
        game = RulesGame.replay_variant(job.variant, job.moves)
    _Worker.games[job.game] = game
    while len(_Worker.games) > KEPT_GAMES:
        _Worker.games.popitem(last=False)
    return game


def _fresh_table() -> TranspositionTable:
    if _Worker.table is None:
        _Worker.table = TranspositionTable(_Worker.megabytes)
    else:
        _Worker.table.clear()
    return _Worker.table


def _stopper(stop_file: str) -> Callable[[], bool]:
    return lambda: os.path.exists(stop_file)


def _answer(choice: EngineMove, engine: str, fallback: str) -> SearchAnswer:
    return SearchAnswer(
        choice.coordinates,
        choice.notation,
        choice.score_text,
        choice.depth,
        choice.nodes,
        choice.elapsed,
        engine,
        fallback,
    )


def _search(job: SearchJob, stop_file: str) -> SearchAnswer | None:
    # The wall-clock deadline on this process's monotonic clock, before anything else.
    due = None if job.deadline is None else time.monotonic() + (job.deadline - time.time())
    game = _replayed(job)
    fallback = ""
    partner = _Worker.partner if job.partner else None
    if partner is not None:
        movetime = level(job.level).movetime if job.movetime is None else job.movetime
        if due is not None:  # what the wait for a worker and the replay left of it
            movetime = max(PARTNER_MIN_SECONDS, min(movetime, due - time.monotonic()))
        try:
            found = partner.best_move(game, movetime, _stopper(stop_file))
        except Unsupported:
            pass  # not a variant it plays: Fairy Post's engine's, as planned
        except PartnerError as exc:
            fallback = str(exc)
        else:
            return None if found is None else _answer(found, partner.name, "")
    choice = best_move(
        game,
        job.level,
        movetime=job.movetime,
        nodes=job.nodes,
        seed=job.seed,
        tt=_fresh_table() if job.game is None else None,
        memory=_game_memory(job.game) if job.game is not None else None,
        should_stop=_stopper(stop_file),
        deadline=due,
    )
    return None if choice is None else _answer(choice, OWN_ENGINE, fallback)


def _partner_judge(partner: FairyStockfish, nodes: int) -> Callable[[RulesGame], Judgement]:
    """The partner as a review's judge of one position (its two best lines, `nodes`)."""

    def judge(game: RulesGame) -> Judgement:
        # A hang costs a minute at most: a review's positions take well under a second.
        judged = partner.judge(game, nodes, timeout=60.0)
        assert judged is not None  # nothing calls a review's search off
        scores = judged.scores
        return Judgement(
            score=scores[0] if scores else 0,
            best=format_code(game.position, judged.move),
            # The runner-up's line may be unfinished: never better than the best, by definition.
            second=min(scores[0], scores[1]) if len(scores) > 1 else None,
            nodes=judged.result.nodes,
            depth=judged.result.depth,
        )

    return judge


def _analyze(
    variant: Variant,
    moves: tuple[str, ...],
    nodes_per_move: int,
    total_time: float,
    partner_nodes: int | None,
) -> Reviewed:
    """A review (/analyze) in a worker: the game replayed and every position searched, by
    the partner when `partner_nodes` (its budget per position) is given and it can."""
    game = RulesGame.replay_variant(variant, moves)
    fallback = ""
    partner = _Worker.partner if partner_nodes is not None else None
    if partner is not None and partner_nodes is not None:
        try:
            analysis = analyze(
                game,
                nodes_per_move=partner_nodes,
                movetime_per_move=None,
                total_time=total_time,
                judge=_partner_judge(partner, partner_nodes),
            )
        except Unsupported:
            pass
        except PartnerError as exc:
            fallback = str(exc)
        else:
            return Reviewed(analysis, partner.name)
    analysis = analyze(
        game, nodes_per_move=nodes_per_move, movetime_per_move=None, total_time=total_time
    )
    return Reviewed(analysis, OWN_ENGINE, fallback)


def _ready() -> bool:
    return True


def _prepare(variant: Variant) -> bool:
    """A variant's move and evaluation tables built in a worker before its first search: on
    a 16x16 board they take seconds, which would otherwise come out of that search's budget
    (its deadline counts from the request)."""
    tables = warm_tables(variant)
    eval_tables(tables)
    return True


def _accepts_draw(variant: Variant, moves: tuple[str, ...], engine_color: int) -> bool:
    return accepts_draw(RulesGame.replay_variant(variant, moves), engine_color)


# --- in the bot ------------------------------------------------------------------------------


class SearchPool:
    """The pool of search processes (started on first use, rebuilt if a worker dies)."""

    def __init__(
        self,
        workers: int = DEFAULT_WORKERS,
        *,
        table_megabytes: int = DEFAULT_TABLE_MEGABYTES,
        partner: str | None = None,
    ) -> None:
        self.workers = max(1, workers)
        self.table_megabytes = table_megabytes
        self.partner = partner
        """The Fairy-Stockfish executable the workers may ask (FAIRYPOST_FAIRY_STOCKFISH)."""
        self._verdicts: dict[str, str] = {}
        """`partner_for`'s answers by section name."""
        self._probing = threading.Lock()
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
                initargs=(self.table_megabytes, os.getpid(), self.partner, str(self._folder)),
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
        """Whether the engine takes a draw here (only a really drawn position)."""
        future = self._submit(_accepts_draw, variant, tuple(moves), engine_color)
        return bool(await asyncio.wrap_future(future))

    async def analyze(
        self,
        variant: Variant,
        moves: Sequence[str],
        *,
        nodes_per_move: int,
        total_time: float,
        partner_nodes: int | None = None,
    ) -> Reviewed:
        """A review of the game `moves`, in a worker process (the bot's process only waits):
        `search.analysis.analyze` with these budgets; by the partner, `partner_nodes` a
        position, when the pool has one and it can play the variant."""
        future = self._submit(
            _analyze, variant, tuple(moves), nodes_per_move, total_time, partner_nodes
        )
        return cast(Reviewed, await asyncio.wrap_future(future))

    async def partner_for(self, variant: Variant) -> str:
        """Who plays a job asking for the partner (or reviews a game) in `variant`, as
        players read it: the partner's name (`Fairy-Stockfish 11.1`, from its `id name`) or
        `Fairy Post's engine` (no partner, a variant beyond its variants.ini, or legal moves
        at the start that are not ours). Learned once per variant from a short-lived
        process of the bot's own, in a thread: the workers may be busy for a minute."""
        if self.partner is None:
            return OWN_ENGINE
        return await asyncio.to_thread(self._probe, variant)

    def _probe(self, variant: Variant) -> str:
        """`partner_for`, in a thread."""
        assert self.partner is not None
        try:
            name = section_for(variant).name
        except Unsupported:
            return OWN_ENGINE
        with self._probing:
            if name not in self._verdicts:
                partner = FairyStockfish(self.partner, self._folder / "variants")
                try:
                    partner.check(RulesGame(variant))
                    self._verdicts[name] = partner.name
                except PartnerError as exc:
                    log.warning("Fairy-Stockfish will not play %s: %s", variant.id, exc)
                    self._verdicts[name] = OWN_ENGINE
                finally:
                    partner.stop()
            return self._verdicts[name]

    def prepare(self, variant: Variant) -> Future[object]:
        """Has a worker build `variant`'s tables now (a game against the engine has just
        begun), so its first search does not spend its time on them. Nobody need wait."""
        return self._submit(_prepare, variant)

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
