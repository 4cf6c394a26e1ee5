"""Time is law (issue 29): how long after being asked the engine answers, against its level's
budget, asked the way the bot asks it (a job to the search pool's worker process, with a
deadline counted from the moment of asking), on whatever load the machine carries.

- cold start: level 1's move asked of a worker spawned on the request (the engine imported,
  the variant's tables built: what a bot that had not started its workers would pay), and of
  a worker already started (the bot starts them, `SearchPool.warm`) meeting the variant for
  the first time (a replaced or second worker; the bot has a worker build the tables when a
  game begins and at start-up, `SearchPool.prepare`); all of it counts inside level 1's 2 s;
- every level in every variant: how far past its budget the answer came (0 when in time),
  the worst over the positions, with the depth reached in each position. The positions are
  the variant's games after two numbers of plies of deterministic engine play (a node
  budget, so the same games every run of the same engine; Bigorra 100 and 130 plies) and,
  in Bigorra, the game of tests/search/data/bigorra-mate-in-one.txt (150 plies, White
  mates in one);
- Bigorra's mate in one: at which levels it was played.

The goal: no answer more than 5% past its budget. The full run takes about a quarter of an
hour (the levels' budgets add up to 104 s a position, most answers come sooner); `--quick`
asks levels 1 and 4 with half a second each, on one position a variant. Run alone:
`python -m benchmarks --only clock`; FAIRYPOST_CLOCK_VARIANTS (`bigorra,chess`) and
FAIRYPOST_CLOCK_LEVELS (`1,4`) narrow a run to some variants and levels (the cold rows are
always measured, at level 1).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass

from benchmarks.common import ROOT, Row
from bot.service.searchpool import SearchAnswer, SearchJob, SearchPool
from rules.game import Game
from rules.notation import coordinates
from rules.position import Position
from rules.variant import Variant, load_variant
from search.levels import LEVELS, level
from search.searcher import Limits, Searcher

SECTION = "search: time is law"
GOAL = "≤ 5% past"
VARIANTS = {"chess": (20, 60), "shako": (30, 80), "grand": (30, 80), "bigorra": (100, 130)}
"""Variant: its positions, as the plies of engine play before each."""
MATE_GAME = ROOT / "tests" / "search" / "data" / "bigorra-mate-in-one.txt"
PLAY_NODES = 600
QUICK_LEVELS = (1, 4)
QUICK_MOVETIME = 0.5


@dataclass(frozen=True, slots=True)
class Answer:
    budget: float
    took: float
    answer: SearchAnswer | None

    @property
    def overrun(self) -> float:
        """The share of the budget the answer came late by (0 when in time)."""
        return max(0.0, self.took / self.budget - 1)


def engine_game(variant: str, plies: int) -> tuple[str, ...]:
    """`plies` moves of the engine against itself on a node budget, slightly varied (the
    low levels' margin) so the game is not the same few moves: the same game every run."""
    game = Game.new(variant)
    moves = []
    for ply in range(plies):
        if game.outcome() is not None:
            break
        limits = Limits(depth=2, nodes=PLAY_NODES, margin=40, temperature=20, seed=ply)
        result = Searcher(game.position).search(limits)
        assert result.move is not None
        moves.append(coordinates(game.position, result.move))
        game.play_move(game.position.to_move(result.move))
    return tuple(moves)


def mate_game() -> tuple[str, ...]:
    """The moves of the Bigorra game whose last position has a mate in one."""
    lines = MATE_GAME.read_text(encoding="utf-8").splitlines()
    return tuple(" ".join(x for x in lines if not x.startswith("#")).split())


def mates_in_one(pos: Position) -> list[int]:
    """The moves that checkmate at once."""
    found = []
    for c in pos.legal_codes():
        pos.push_code(c, False)
        if pos.is_check() and not pos.legal_codes():
            found.append(c)
        pos.pop_code()
    return found


def find_mate_game(seed: int, first: int = 100, last: int = 240) -> tuple[str, ...] | None:
    """How MATE_GAME was made: Bigorra, White the engine on a small budget, Black the same
    for 60 plies and then random moves, until White has a mate in one after at least
    `first` plies (None if none came by `last`, or the game ended)."""
    rng = random.Random(seed)
    game = Game.new("bigorra")
    pos = game.position
    moves: list[str] = []
    while len(moves) < last:
        ply = len(moves)
        if pos.side == 1 and ply >= 60:
            code = rng.choice(pos.legal_codes())
        else:
            limits = Limits(depth=2, nodes=1500, margin=40, temperature=20, seed=seed * 1000 + ply)
            found = Searcher(pos).search(limits).move
            assert found is not None
            code = found
        moves.append(coordinates(pos, code))
        pos.push_code(code, False)
        if pos.decided() is not None or not pos.legal_codes():
            return None
        if len(moves) >= first and pos.side == 0 and mates_in_one(pos):
            return tuple(moves)
    return None


async def ask(
    pool: SearchPool, variant: Variant, moves: tuple[str, ...], number: int, movetime: float | None
) -> Answer:
    """One search the way the opponent service asks for it: the deadline from now."""
    budget = movetime if movetime is not None else level(number).movetime
    asked = time.time()
    job = SearchJob(variant, moves, number, movetime=budget, deadline=asked + budget)
    answer = await pool.search(job)
    return Answer(budget, time.time() - asked, answer)


async def measure(
    variant_id: str,
    positions: list[tuple[str, ...]],
    levels: tuple[int, ...],
    movetime: float | None,
) -> tuple[Answer, Answer, dict[int, list[Answer]]]:
    """Level 1's answer from a worker spawned on the request, then from a worker already
    started (as the bot starts them) meeting the variant for the first time; then every
    level's answers over the positions, the variant's tables built."""
    variant = load_variant(variant_id)
    spawned = SearchPool(1)
    try:
        cold = await ask(spawned, variant, positions[0], 1, movetime)
    finally:
        spawned.close()
    pool = SearchPool(1)
    try:
        await pool.warm()
        first = await ask(pool, variant, positions[0], 1, movetime)
        found: dict[int, list[Answer]] = {}
        for number in levels:
            found[number] = [await ask(pool, variant, p, number, movetime) for p in positions]
        return cold, first, found
    finally:
        pool.close()


def late(a: Answer) -> str:
    return f"+{100 * a.overrun:.1f}% ({a.took:.2f} s of {a.budget:g} s)"


def cold_start(a: Answer) -> str:
    """`late`, with the time before the search began (the wait for a worker, its start, the
    replay, the tables): the part of a cold answer the load stretches and no deadline cuts."""
    if a.answer is None:
        return late(a)
    return f"{late(a)}, {a.took - a.answer.elapsed:.2f} s before the search"


def _narrowed(name: str) -> list[str] | None:
    """The comma-separated values of environment variable `name`, None when unset."""
    text = os.environ.get(name, "").strip()
    return [x.strip() for x in text.split(",") if x.strip()] if text else None


def run(quick: bool = False) -> list[Row]:
    levels = QUICK_LEVELS if quick else tuple(sorted(LEVELS))
    only_levels = _narrowed("FAIRYPOST_CLOCK_LEVELS")
    if only_levels is not None:
        levels = tuple(int(x) for x in only_levels)
    only_variants = _narrowed("FAIRYPOST_CLOCK_VARIANTS")
    movetime = QUICK_MOVETIME if quick else None
    rows = []
    for variant_id, plies in VARIANTS.items():
        if only_variants is not None and variant_id not in only_variants:
            continue
        chosen = plies[:1] if quick else plies
        positions = [engine_game(variant_id, n // 4 if quick else n) for n in chosen]
        if variant_id == "bigorra":
            positions.append(mate_game())
        name = load_variant(variant_id).name
        cold, first, found = asyncio.run(measure(variant_id, positions, levels, movetime))
        rows.append(
            Row(
                SECTION,
                f"{name}, level 1 from a worker spawned on the request (imports, tables)",
                cold_start(cold),
                goal=GOAL,
            )
        )
        rows.append(
            Row(
                SECTION,
                f"{name}, level 1 from a started worker, the variant's first search (tables)",
                cold_start(first),
                goal=GOAL,
            )
        )
        for number, answers in found.items():
            worst = max(answers, key=lambda a: a.took / a.budget)
            depths = [a.answer.depth if a.answer is not None else 0 for a in answers]
            rows.append(
                Row(
                    SECTION,
                    f"{name}, level {number}: worst of {len(answers)} positions "
                    f"(plies {', '.join(str(len(p)) for p in positions)}; depth reached)",
                    f"{late(worst)}, depth {'/'.join(map(str, depths))}",
                    goal=GOAL,
                )
            )
        if variant_id == "bigorra":
            mated = [
                n
                for n, answers in found.items()
                if answers[-1].answer is not None and answers[-1].answer.score_text == "mate in 1"
            ]
            rows.append(
                Row(
                    SECTION,
                    f"Bigorra after {len(positions[-1])} plies, White mates in one: levels "
                    "that played it",
                    f"{len(mated)} of {len(found)} ({', '.join(map(str, mated)) or 'none'})",
                    goal="all",
                )
            )
    return rows
