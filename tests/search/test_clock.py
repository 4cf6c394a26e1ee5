"""Time is law: the search stops within its budget, deadline and cold start included, and
depth 1 always completes, so a mate in one is found on every board at every level.

No timing asserts: the searcher is given a clock that advances with the nodes searched, so
the budget runs out at a known node and the tests say what the mechanism does with it (the
wall-time overruns on a loaded machine are measured in benchmarks/bench_clock.py)."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.game import Game, game_after
from rules.position import Position
from rules.variant import load_variant, variant_ids
from search.levels import LEVELS, level
from search.searcher import MATE, Limits, Searcher
from tests.search.forced import winning_moves
from tests.search.test_search import random_game

BIGORRA_MATE_IN_ONE = Path(__file__).parent / "data" / "bigorra-mate-in-one.txt"
"""A Bigorra game of 150 plies after which White mates in one (one move of 280); depth 1
there takes hundreds of nodes. benchmarks/bench_clock.py times every level on it."""


def bigorra_mate_position() -> Position:
    lines = BIGORRA_MATE_IN_ONE.read_text(encoding="utf-8").splitlines()
    moves = " ".join(x for x in lines if not x.startswith("#")).split()
    return Game.replay_variant(load_variant("bigorra"), moves).position


class NodeClock:
    """A clock that reads `step` seconds per node searched: the budget runs out at a
    known node whatever the machine's speed."""

    def __init__(self, step: float, offset: float = 0.0) -> None:
        self.step = step
        self.offset = offset
        self.searcher: Searcher | None = None

    def __call__(self) -> float:
        nodes = self.searcher.nodes if self.searcher is not None else 0
        return self.offset + nodes * self.step


def clocked(position: Position, step: float, offset: float = 0.0) -> tuple[Searcher, NodeClock]:
    clock = NodeClock(step, offset)
    searcher = Searcher(position, clock=clock)
    clock.searcher = searcher
    return searcher, clock


def test_the_bigorra_position_has_a_mate_in_one() -> None:
    pos = bigorra_mate_position()
    assert len(set(winning_moves(pos, 1))) == 1
    assert len(pos.legal_codes()) == 280


def test_every_level_mates_in_one_in_bigorra_when_time_runs_out_within_depth_1() -> None:
    """The budget runs out after 100 nodes, long before depth 1 is done: the moves it did
    not reach are glanced at, the mate is among them, and no time is spent past the
    budget."""
    pos = bigorra_mate_position()
    mates = set(winning_moves(pos, 1))
    for number in sorted(LEVELS):
        limits = level(number).limits()
        assert limits.movetime is not None
        searcher, clock = clocked(pos, limits.movetime / 100)
        result = searcher.search(limits)
        assert result.depth == 1
        assert result.move in mates, number
        assert result.mate_in == 1
        assert clock() <= limits.movetime
        assert searcher.nodes <= 100


def test_a_deadline_already_passed_still_finds_the_mate() -> None:
    """A cold start that ate the whole budget: the deadline is behind the search when it
    starts, and depth 1 is all glances."""
    game = game_after("chess", ["f2f3", "e7e5", "g2g4"])
    searcher, clock = clocked(game.position, 0.01, offset=10.0)
    result = searcher.search(Limits(deadline=5.0))
    assert result.move is not None
    assert result.score == MATE - 1
    assert result.depth == 1
    assert searcher.nodes <= 4
    assert clock() <= 10.0 + 4 * 0.01


def test_a_node_budget_of_one_still_finds_the_mate() -> None:
    game = game_after("chess", ["f2f3", "e7e5", "g2g4"])
    result = Searcher(game.position).search(Limits(nodes=1))
    assert result.score == MATE - 1
    assert result.nodes <= 1


def test_the_deadline_and_the_movetime_the_earlier_wins() -> None:
    game = random_game("chess", 20, 5)
    for movetime, deadline, due in ((1.0, 0.5, 0.5), (0.3, 2.0, 0.3), (None, 0.4, 0.4)):
        searcher, clock = clocked(game.position, 0.001)
        result = searcher.search(Limits(movetime=movetime, deadline=deadline))
        assert result.depth >= 1
        assert clock() <= due


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(variant_ids()),
    plies=st.integers(min_value=0, max_value=60),
    seed=st.integers(min_value=0, max_value=2**32),
    budget_nodes=st.integers(min_value=1, max_value=1_500),
    spent=st.floats(min_value=0.0, max_value=1.2),
)
def test_never_past_the_deadline(
    variant: str, plies: int, seed: int, budget_nodes: int, spent: float
) -> None:
    """Any variant, any position, a budget of 1 to 1,500 nodes' worth of time of which a
    share (`spent`, up to more than all of it) went before the search began: the search
    returns a legal move from a complete depth 1 and reads the clock past the deadline by
    at most the few nodes between two looks at it."""
    game = random_game(variant, plies, seed)
    if game.outcome() is not None:
        return  # nobody searches a finished game (the game's ending may need its history)
    step = 1.0 / budget_nodes  # the budget is one second
    searcher, clock = clocked(game.position, step, offset=spent)
    result = searcher.search(Limits(deadline=1.0))
    assert result.move in game.position.legal_codes()
    assert result.depth >= 1
    assert clock() <= max(1.0, spent) + 4 * step
    assert math.isfinite(result.elapsed)
