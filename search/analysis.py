"""Post-game analysis: every position of a game searched within a budget, each move marked
by how much worse it is than the engine's best move there, the way lichess reviews a game.

A move is judged against the engine's best move in the same position at the same depth: in
the search of that position when the move played is among the moves it scored exactly (the
best, or one within `ALTERNATIVES_MARGIN` of it), else by searching the position after each
of the two moves to one same depth. So a move is never worse than itself (the move played
is never named as the better one) and the two scores never come from searches of different
depths. Where the search of the position after the move disagrees with that judgement (a
turning point the shallower search misjudged), the position is searched again with more
nodes, on the table the later search filled, so the marks agree with the deeper view. (A
partner's review, `judge`, gives one search a position: the move played scores its best
move's score when it was its choice, else what the position after it got.)
What it gives away is measured in winning chances, lichess's curve 50% + 50% *
(2 / (1 + e^(-0.00368 * cp)) - 1): 10% of them is an inaccuracy (`?!`), 20% a mistake
(`?`), 30% a blunder (`??`); a move that allows a forced mate the best move avoids is a
blunder whatever the chances were. A move is `!` when it is the engine's choice, not a
capture, and every other move would have given away 20% or more: the only good move, found.
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
from search.searcher import MATE_BOUND, Limits, Searcher, SearchResult, outcome_score
from search.tt import TranspositionTable

INACCURACY, MISTAKE, BLUNDER = 0.10, 0.20, 0.30
ONLY_MOVE = 0.20
MATE_CP = 10_000  # a mate counts as this many centipawns in the marks
ALTERNATIVES_MARGIN = 250  # centipawns: other moves this close to the best get exact scores
RESEARCH_SHARE = 3
"""A turning point (the position's search and the next one's disagree about the move played)
is searched again with this many times a position's nodes."""
MOVE_SHARE = 0.5
"""The node budget of searching the position after a move, as a share of a position's: the
table already holds most of that tree, from the searches of the game's later positions."""


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
    """One move of the game, judged. `score` is White's view after the move, as the search
    that judged it scored it (the same depth as the best move's score)."""

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


def mark_for(loss: float) -> str:
    """The mark of a move that gives away `loss` of its side's winning chances (monotone:
    a greater loss never gets a milder mark)."""
    if loss >= BLUNDER:
        return "??"
    if loss >= MISTAKE:
        return "?"
    if loss >= INACCURACY:
        return "?!"
    return ""


def loss_of(best: int, played: int) -> float:
    """The winning chances a move scored `played` gives away against the best move's score
    `best` (both for the mover, at the same depth); allowing a forced mate that the best
    move avoids counts as a blunder at least."""
    loss = max(0.0, win_chance(_cp(best)) - win_chance(_cp(played)))
    if played <= -MATE_BOUND < best:
        loss = max(loss, BLUNDER)
    return loss


def _disagree(a: int, b: int) -> bool:
    """Two scores of one move far enough apart in winning chances to change its mark."""
    return abs(win_chance(_cp(a)) - win_chance(_cp(b))) >= INACCURACY


@dataclass(frozen=True, slots=True)
class _Found:
    """One position searched. `score` is for the side to move; `judged`, when a move was
    played there, is (the best move's score, the played move's score), both for the side to
    move and from searches of one depth."""

    score: int
    best: str | None
    other: int | None  # the best other move's exact score, if the search gave one
    judged: tuple[int, int] | None


class _Pair:
    """Scores a played move and the best move of a position at one depth, searching the
    positions after them when the position's own search did not score the played move."""

    def __init__(
        self, work: Game, tt: TranspositionTable, nodes: int, movetime: float | None
    ) -> None:
        self.work = work
        self.tt = tt
        self.budget = nodes
        self.movetime = movetime
        self.nodes = 0  # spent so far

    def move_score(self, code: int, depth: int) -> tuple[int, int]:
        """The move `code` in the game's position, for its mover, by a search of the
        position after it to `depth` (less if the budget ends first): (score, depth)."""
        work = self.work
        work.play_move(work.position.to_move(code))
        try:
            ended = work.outcome()
            if ended is not None:
                return -outcome_score(ended, work.position.side, 1), depth
            searcher = Searcher(work.position, tt=self.tt, history=history_hashes(work))
            limits = Limits(depth=depth, nodes=self.budget, movetime=self.movetime)
            result = searcher.search(limits)
            self.nodes += searcher.nodes
            return -result.score, result.depth
        finally:
            work.undo()

    def played(self, code: int, result: SearchResult) -> tuple[int, int]:
        """(the best move's score, the played move's score) for the side to move."""
        if code == result.move:
            return result.score, result.score
        exact = dict(result.candidates)
        if code in exact:
            return result.score, exact[code]
        assert result.move is not None
        played, reached = self.move_score(code, max(1, result.depth - 1))
        best, reached_best = self.move_score(result.move, reached)
        if reached_best < reached:  # the best move's tree was the bigger: both at its depth
            played, _ = self.move_score(code, reached_best)
        return best, played


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
    found: list[_Found | None] = [None] * (plies + 1)
    nodes = 0
    complete = True
    pair = _Pair(work, tt, max(1, int(nodes_per_move * MOVE_SHARE)), movetime_per_move)
    for i in range(plies, -1, -1):
        out_of_time = total_time is not None and time.monotonic() - start > total_time
        if out_of_time or (should_stop is not None and should_stop()):
            complete = False
            break
        pos = work.position
        ended = work.outcome()
        if ended is not None:
            found[i] = _Found(outcome_score(ended, pos.side, 0), None, None, None)
        elif judge is not None:
            verdict = judge(work)
            nodes += verdict.nodes
            found[i] = _Found(verdict.score, verdict.best, verdict.second, None)
        else:

            def search(budget: int) -> SearchResult:
                nonlocal nodes
                searcher = Searcher(work.position, tt=tt, history=history_hashes(work))
                limits = Limits(
                    depth=64, nodes=budget, movetime=movetime_per_move, margin=ALTERNATIVES_MARGIN
                )
                result = searcher.search(limits, should_stop=should_stop)
                nodes += searcher.nodes
                return result

            result = search(nodes_per_move)
            if result.depth == 0:  # called off (should_stop) before depth 1 was done
                complete = False
                break
            judged = None
            later = found[i + 1] if i < plies else None
            if i < plies and result.move is not None:
                code = pos.to_code(game.history[i].move)
                judged = pair.played(code, result)
                if later is not None:
                    after = later.score if sides[i + 1] == sides[i] else -later.score
                    if _disagree(judged[1], after):
                        # The search of the position after the move saw it otherwise: a
                        # turning point, searched again, deeper, on what that search left in
                        # the table, so the mark agrees with the deeper view.
                        result = search(RESEARCH_SHARE * nodes_per_move)
                        judged = pair.played(code, result)
            name = format_code(pos, result.move) if result.move is not None else None
            others = [s for c, s in result.candidates if c != result.move]
            found[i] = _Found(result.score, name, max(others) if others else None, judged)
        if on_progress is not None:
            on_progress(plies - i + 1, plies + 1)
        if i:
            work.undo()
    scores = tuple(
        None if f is None else (_cp(f.score) if sides[i] == 0 else -_cp(f.score))
        for i, f in enumerate(found)
    )
    reviews = []
    for i, move in enumerate(game.history):
        before = found[i]
        mark = ""
        loss = 0.0
        best = None
        white_view = scores[i + 1] or 0
        judged = before.judged if before is not None else None
        if judged is None and before is not None and found[i + 1] is not None:
            # A partner's review (its own searches, one a position): the move played is its
            # best move's score when it was its choice, else what the position after it got.
            next_found = found[i + 1]
            assert next_found is not None
            seen = next_found.score if sides[i + 1] == sides[i] else -next_found.score
            judged = (before.score, before.score if before.best == move.notation else seen)
        if before is not None and judged is not None:
            best_score, played_score = judged
            loss = loss_of(best_score, played_score)
            mark = mark_for(loss)
            white_view = _cp(played_score) if sides[i] == 0 else -_cp(played_score)
            if mark and played_score < best_score:
                best = before.best
            elif (
                not mark
                and before.best == move.notation
                and "x" not in move.notation
                and abs(_cp(best_score)) < MATE_CP
            ):
                # The only good move: every other one the search looked at was far worse
                # (moves outside the margin were not even close).
                best_cp = _cp(best_score)
                other = (
                    _cp(before.other) if before.other is not None else best_cp - ALTERNATIVES_MARGIN
                )
                if win_chance(best_cp) - win_chance(other) >= ONLY_MOVE:
                    mark = "!"
        reviews.append(
            MoveReview(
                ply=i + 1,
                label=ply_label(game.variant, i),
                notation=move.notation,
                mark=mark,
                score=white_view,
                best=best,
                loss=loss,
            )
        )
    return Analysis(
        moves=tuple(reviews),
        scores=scores,
        nodes=nodes + pair.nodes,
        elapsed=time.monotonic() - start,
        complete=complete,
    )
