"""Forced wins in one and two moves, found at every level, in every kind of ending.

Each position was drawn at random (a few pieces on an empty board) and kept when a brute-force
search over the rules engine's legal moves (`tests.search.forced`, which knows nothing of the
engine) found a forced win; the tests check that again, then that the engine's move at each
level is one of the winning moves. Searches are bounded by nodes, not time, so a busy
machine cannot change the result.
"""

from __future__ import annotations

import math
from functools import cache

import pytest

from rules.game import Game
from rules.notation import format_code
from rules.position import Position
from rules.postext import parse_position
from rules.tables import MC
from search.levels import LEVELS
from search.play import best_move
from tests.search.forced import winning_moves, wins_within

# (variant, moves to win, position text, what the position shows)
POSITIONS = [
    ("chess", 1, "8/5R2/B4p2/8/kpK5/8/3Q4/8 w - - 0 1", "checkmate"),
    ("chess", 2, "2b5/2R2Q2/3k4/8/p5N1/8/8/4K3 w - - 0 1", "checkmate"),
    (
        "bigorra",
        1,
        "2K1N11/7k8/16/14v1/16/m15/16/16/16/3G12/16/9(AZ)6/16/7G8/16/16 w - - 0 1",
        "Black's King still has its Metamachy leap: the mate must cover the leap squares",
    ),
    (
        "bigorra",
        2,
        "4(sn)11/7kb7/16/10(AZ)5/16/16/2(HK)13/16/16/16/16/13B1(HK)/16/16/7K8/16 w - - 0 1",
        "Black's King still has its Metamachy leap",
    ),
    ("patricia", 1, "R4/1b2K/1N3/3k1/r4 w - - 0 1 hand:-", "royal capture"),
    ("patricia", 2, "5/2bR1/4b/K4/2k1N w - - 0 1 hand:-", "royal capture after a quiet move"),
    ("patricia", 2, "1kpB1/5/K4/5/4B w - - 0 1 hand:B,N", "drops from the hand win too"),
    (
        "timurid-herat",
        1,
        "12/12/12/12/12/4N7/1a10/1k10/3K8/1G10/Q11/5p6 w - - 0 1",
        "succession: some checks are answered by swapping the King with its Prince",
    ),
    (
        "frog-gryphon",
        1,
        "8KN/9p/10/10/6R3/5k4/10/10/2r1Q1N3 w - - 0 1 gates:G@e1,FA@g1",
        "the mate lets the Gryphon waiting behind e1 enter",
    ),
    (
        "frog-gryphon",
        2,
        "6K3/10/3n2R3/10/9k/5Q4/10/10/Q2G2n3 w - - 0 1 gates:FA@a1,G@d1",
        "every winning first move lets a reserve piece enter",
    ),
    (
        "leaping-bat",
        1,
        "16/k15/8(gi)7/1Q14/16/16/16/16/(GR)15/9K6/5d4D5/16 w - - 0 1 once:wb",
        "checkmate on a 16x12 board",
    ),
    (
        "leaping-bat",
        2,
        "16/16/16/10N5/16/16/3Q12/16/1K14/5c10/16/2kD5a6 w - - 0 1 once:wb",
        "a quiet King move, then mate",
    ),
]


@cache
def _solutions(variant: str, n: int, text: str) -> frozenset[str]:
    pos = parse_position(variant, text)
    return frozenset(format_code(pos, c) for c in winning_moves(pos, n))


def _position(variant: str, text: str) -> Position:
    return parse_position(variant, text)


@pytest.mark.parametrize(("variant", "n", "text", "shows"), POSITIONS)
def test_the_position_is_a_forced_win_in_exactly_n(
    variant: str, n: int, text: str, shows: str
) -> None:
    assert _solutions(variant, n, text), f"{variant}: no forced win in {n} ({shows})"
    if n > 1:
        assert not wins_within(_position(variant, text), n - 1)


@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize(("variant", "n", "text", "shows"), POSITIONS)
def test_every_level_plays_the_win(variant: str, n: int, text: str, shows: str, level: int) -> None:
    game = Game.from_position_text(variant, text)
    choice = best_move(game, level, movetime=math.inf, seed=level)
    assert choice is not None
    assert choice.notation in _solutions(variant, n, text), (
        f"{variant} level {level}: played {choice.notation}, winning moves "
        f"{sorted(_solutions(variant, n, text))} ({shows})"
    )
    assert choice.mate_in == n


def test_the_florea_positions_need_their_gates() -> None:
    """Without the reserve pieces behind them the Frog positions are not won the same way:
    the gating is what the engine must see."""
    for variant, n, text, _ in POSITIONS:
        if not variant.startswith("frog"):
            continue
        pos = _position(variant, text)
        gates = set(pos.gates[0])  # (moves replace the dict: copy it first)
        for c in winning_moves(pos, n):
            assert c & 0xFF in gates
            assert not (c >> MC.KIND_SHIFT) & MC.KIND_MASK
