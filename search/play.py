"""The engine as the bot and the command line use it: a rules `Game` in, a move in the
books' notation out, with its evaluation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rules.game import Game
from rules.moves import Move
from rules.notation import coordinates, format_code
from rules.position import Position
from rules.postext import parse_position
from search.evaluate import eval_tables
from search.levels import DEFAULT_LEVEL, level
from search.searcher import Limits, Searcher, SearchResult, mate_in
from search.tt import GameMemory, TranspositionTable

DRAW_ACCEPT_MARGIN = 25  # centipawns: "dead level"
DRAW_FROM_MOVE = 30
"""A level evaluation is a reason to take a draw only from this move on: earlier, a level
position is just a game still to be played."""
DRAW_MAX_MATERIAL = 0.5
"""...and only with at most this share of the starting pieces (Pawns aside) on the board:
with more, there is still play to press for a win."""
DRAW_MIN_DEPTH = 3
"""The evaluation must come from a search at least this deep, not a glance."""


@dataclass(frozen=True, slots=True)
class EngineMove:
    """The engine's choice. `score` is in centipawns for the side that plays the move."""

    notation: str
    coordinates: str
    move: Move
    score: int
    mate_in: int | None
    depth: int
    nodes: int
    elapsed: float
    pv: tuple[str, ...]

    @property
    def score_text(self) -> str:
        return score_text(self.score)


def score_text(score: int) -> str:
    """`+0.35`, `-2.10`, `mate in 3`, `mated in 2` (for the side to move)."""
    m = mate_in(score)
    if m is not None:
        return f"mate in {m}" if m > 0 else f"mated in {-m}"
    return f"{score / 100:+.2f}"


def history_hashes(game: Game) -> list[int]:
    """Hashes of the positions before the current one (for repetitions)."""
    start = parse_position(game.variant, game.start_text).hash
    return [start, *(int(m.position_hash, 16) for m in game.history[:-1])]


def line_notation(position: Position, codes: Sequence[int]) -> tuple[str, ...]:
    """A line of move codes in notation, played from `position` (left unchanged)."""
    pos = position.copy()
    out = []
    for c in codes:
        out.append(format_code(pos, c))
        pos.push_code(c, False)
    return tuple(out)


def think(
    game: Game,
    limits: Limits,
    *,
    tt: TranspositionTable | None = None,
    should_stop: Callable[[], bool] | None = None,
    memory: GameMemory | None = None,
) -> SearchResult:
    """Search the game's current position (the game is left unchanged). `memory`: the
    game's table, history and killers from its earlier moves (then `tt` is not used)."""
    searcher = Searcher(game.position, tt=tt, history=history_hashes(game), memory=memory)
    return searcher.search(limits, should_stop=should_stop)


def best_move(
    game: Game,
    level_number: int = DEFAULT_LEVEL,
    *,
    movetime: float | None = None,
    nodes: int | None = None,
    depth: int | None = None,
    seed: int = 0,
    tt: TranspositionTable | None = None,
    should_stop: Callable[[], bool] | None = None,
    deadline: float | None = None,
    memory: GameMemory | None = None,
) -> EngineMove | None:
    """The move the engine plays at `level_number`; None when the game is over.
    `movetime` (seconds; `math.inf` for none), `nodes` and `depth` override the level's
    budget; `deadline` (a `time.monotonic` moment) is when the move is due whatever the
    budget, for a caller that spent time before asking; `seed` makes the low levels'
    deliberate imperfection reproducible."""
    if game.outcome() is not None:
        return None
    limits = replace(level(level_number).limits(movetime=movetime, seed=seed), deadline=deadline)
    if nodes is not None or depth is not None:
        limits = replace(
            limits,
            depth=depth if depth is not None else limits.depth,
            nodes=nodes if nodes is not None else limits.nodes,
        )
    result = think(game, limits, tt=tt, should_stop=should_stop, memory=memory)
    if result.move is None:
        return None
    pos = game.position
    return EngineMove(
        notation=format_code(pos, result.move),
        coordinates=coordinates(pos, result.move),
        move=pos.to_move(result.move),
        score=result.score,
        mate_in=result.mate_in,
        depth=result.depth,
        nodes=result.nodes,
        elapsed=result.elapsed,
        pv=line_notation(pos, result.pv),
    )


def dead_material(position: Position) -> bool:
    """Neither side has the material to force a win: no Pawn (nor any piece that promotes),
    nothing in hand or in reserve, and less than a Rook's worth of pieces each (K+B v K+N).
    Only where checkmate is the one way to win: a bare King, a goal zone, checks counted or
    extinction can be reached with less. (Where the rules declare insufficient material a
    draw, K v K and K+B v K have ended the game already.)"""
    v = position.variant
    if v.goal != "checkmate" or v.bare_king or v.bare_king_win or v.check_count:
        return False
    if v.zone is not None or v.extinction is not None:
        return False
    if any(position.reserve) or any(position.gates):
        return False
    et = eval_tables(position.t)
    return et.drawish(position, 0) and et.drawish(position, 1)


def accepts_draw(
    game: Game, engine_color: int, *, nodes: int = 60_000, movetime: float | None = 3.0
) -> bool:
    """Whether the engine, playing `engine_color` (0 White, 1 Black), takes a draw offered
    in this position: only when it is really drawn. Dead material; or, from move
    `DRAW_FROM_MOVE` on, with at most `DRAW_MAX_MATERIAL` of the pieces left, an evaluation
    within a quarter Pawn of level from a search of depth `DRAW_MIN_DEPTH` or more. Never at
    move 3 of a fresh game, never when it could still press, never when it is winning."""
    if game.outcome() is not None:
        return False
    pos = game.position
    if dead_material(pos):
        return True
    if pos.ply < 2 * (DRAW_FROM_MOVE - 1):
        return False
    et = eval_tables(pos.t)
    if et.board_terms(pos)[2] > DRAW_MAX_MATERIAL * et.phase_max:
        return False
    result = think(game, Limits(depth=64, nodes=nodes, movetime=movetime))
    if result.depth < DRAW_MIN_DEPTH:
        return False
    score = result.score if game.side_to_move == engine_color else -result.score
    return abs(score) <= DRAW_ACCEPT_MARGIN
