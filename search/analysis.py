"""Post-game analysis: every position of a game searched within a budget, each move marked
where the evaluation swings, the way lichess reviews a game.

A move is judged by the winning chances it gives away: the engine's best move in the
position before it against the position after it (both searched, the later one from the
other side). Chances follow lichess's curve, 50% + 50% * (2 / (1 + e^(-0.00368 * cp)) - 1).
Losing 10% of them is an inaccuracy (`?!`), 20% a mistake (`?`), 30% a blunder (`??`). A
move is `!` when it is the engine's choice, not a capture, and every other move would have
given away 20% or more: the only good move, found.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from rules.game import Game
from rules.notation import format_code
from rules.record import ply_label
from search.play import history_hashes
from search.searcher import MATE_BOUND, Limits, Searcher, outcome_score
from search.tt import TranspositionTable

INACCURACY, MISTAKE, BLUNDER = 0.10, 0.20, 0.30
ONLY_MOVE = 0.20
MATE_CP = 10_000  # a mate counts as this many centipawns in the marks
ALTERNATIVES_MARGIN = 250  # centipawns: other moves this close to the best get exact scores


def win_chance(cp: int) -> float:
    """The side's winning chances (0 to 1) at `cp` centipawns (lichess's curve)."""
    return 1 / (1 + math.exp(-0.00368208 * cp))


@dataclass(frozen=True, slots=True)
class Judgement:
    """One position as an engine sees it (Fairy Post's, or a partner's), for the side to
    move: `score` in centipawns (mates on the search's scale, beyond MATE_BOUND), `best`
    its move in our notation, `second` the best other move's score when it knows it."""

    score: int
    best: str | None
    second: int | None
    nodes: int
    depth: int


Judge = Callable[[Game], Judgement]
"""Judges the game's current position (its history is there for repetitions), leaving the
game unchanged."""


@dataclass(frozen=True, slots=True)
class MoveReview:
    """One move of the game, judged. `score` is White's view after the move."""

    ply: int  # 1-based
    label: str  # `12.`, `12...`, `0.` for a placement
    notation: str
    mark: str  # "", "!", "?!", "?", "??"
    score: int
    best: str | None  # the engine's move, given with `?!`, `?` and `??`
    loss: float  # winning chances given away, 0 to 1


@dataclass(frozen=True, slots=True)
class Analysis:
    """A reviewed game. `scores` holds White's view of every position from the start (one
    more than the moves); None for a position the budget did not reach."""

    moves: tuple[MoveReview, ...]
    scores: tuple[int | None, ...]
    nodes: int
    elapsed: float
    complete: bool

    def record(self) -> str:
        """The moves with their marks, numbered like a game record, several per line."""
        parts: list[str] = []
        for m in self.moves:
            text = m.notation + m.mark
            if m.label.endswith("...") and parts and not parts[-1].endswith("..."):
                parts.append(text)
            else:
                parts.append(f"{m.label} {text}")
        return " ".join(parts)

    def counts(self, color: int) -> dict[str, int]:
        """How many of each mark `color`'s moves got (0 White, 1 Black)."""
        out = {"??": 0, "?": 0, "?!": 0, "!": 0}
        for m in self.moves:
            white = not m.label.endswith("...")
            if white != (color == 0):
                continue
            if m.mark in out:
                out[m.mark] += 1
        return out


def _cp(score: int) -> int:
    if score >= MATE_BOUND:
        return MATE_CP
    if score <= -MATE_BOUND:
        return -MATE_CP
    return score


def analyze(
    game: Game,
    *,
    nodes_per_move: int = 30_000,
    movetime_per_move: float | None = 2.0,
    total_time: float | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    judge: Judge | None = None,
) -> Analysis:
    """Review every move of `game` (left unchanged). Positions are searched from the last to
    the first, sharing one table, so that what was found later helps earlier positions.
    `total_time` (seconds) bounds the whole review: positions it does not reach get no
    score and the moves next to them no mark. `judge` searches a position instead of Fairy
    Post's own searcher (Fairy-Stockfish, `search.partner`)."""
    start = time.monotonic()
    work = Game(game.variant)
    sides = []
    for played in game.history:
        sides.append(work.side_to_move)
        work.play_move(played.move)
    sides.append(work.side_to_move)
    plies = len(game.history)
    tt = TranspositionTable(8)
    # Per position: (score for the side to move, best move, best other move's score).
    found: list[tuple[int, str | None, int | None] | None] = [None] * (plies + 1)
    nodes = 0
    complete = True
    for i in range(plies, -1, -1):
        out_of_time = total_time is not None and time.monotonic() - start > total_time
        if out_of_time or (should_stop is not None and should_stop()):
            complete = False
            break
        pos = work.position
        searcher = Searcher(pos, tt=tt, history=history_hashes(work))
        if work.outcome() is not None:
            found[i] = (outcome_score(work.outcome(), pos.side, 0), None, None)
        elif judge is not None:
            verdict = judge(work)
            nodes += verdict.nodes
            found[i] = (verdict.score, verdict.best, verdict.second)
        else:
            limits = Limits(
                depth=64,
                nodes=nodes_per_move,
                movetime=movetime_per_move,
                margin=ALTERNATIVES_MARGIN,
            )
            result = searcher.search(limits, should_stop=should_stop)
            nodes += searcher.nodes
            name = format_code(pos, result.move) if result.move is not None else None
            others = [s for c, s in result.candidates if c != result.move]
            found[i] = (result.score, name, max(others) if others else None)
        if on_progress is not None:
            on_progress(plies - i + 1, plies + 1)
        if i:
            work.undo()
    scores = tuple(
        None if f is None else (_cp(f[0]) if sides[i] == 0 else -_cp(f[0]))
        for i, f in enumerate(found)
    )
    reviews = []
    for i, move in enumerate(game.history):
        before, after = found[i], found[i + 1]
        mark = ""
        loss = 0.0
        if before is not None and after is not None:
            mover = sides[i]
            best_cp = _cp(before[0])
            after_cp = _cp(after[0]) if sides[i + 1] == mover else -_cp(after[0])
            loss = max(0.0, win_chance(best_cp) - win_chance(after_cp))
            if loss >= BLUNDER:
                mark = "??"
            elif loss >= MISTAKE:
                mark = "?"
            elif loss >= INACCURACY:
                mark = "?!"
            elif before[1] == move.notation and "x" not in move.notation:
                # The only good move: every other one the search looked at was far worse
                # (moves outside the margin were not even close).
                other = _cp(before[2]) if before[2] is not None else best_cp - ALTERNATIVES_MARGIN
                if abs(best_cp) < MATE_CP and win_chance(best_cp) - win_chance(other) >= ONLY_MOVE:
                    mark = "!"
        reviews.append(
            MoveReview(
                ply=i + 1,
                label=ply_label(game.variant, i),
                notation=move.notation,
                mark=mark,
                score=scores[i + 1] or 0,
                best=before[1] if before is not None and mark in ("?!", "?", "??") else None,
                loss=loss,
            )
        )
    return Analysis(
        moves=tuple(reviews),
        scores=scores,
        nodes=nodes,
        elapsed=time.monotonic() - start,
        complete=complete,
    )
