"""Post-game review: marks where the evaluation swings, scores for the graph."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.game import game_after
from search.analysis import (
    BLUNDER,
    INACCURACY,
    MATE_CP,
    Analysis,
    MoveReview,
    analyze,
    loss_of,
    mark_for,
    win_chance,
)
from search.searcher import MATE
from tests.search.test_search import random_game


def test_a_blunder_is_marked_and_the_better_move_given() -> None:
    # 3... Ng8-f6?? allows Qh5xf7 mate; Black had to defend f7.
    game = game_after("chess", ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"])
    review = analyze(game, nodes_per_move=4_000, movetime_per_move=None)
    assert review.complete
    marks = {m.notation: m for m in review.moves}
    blunder = marks["Ng8-f6"]
    assert blunder.mark == "??"
    assert blunder.best is not None and blunder.best != "Ng8-f6"
    assert review.scores[-1] == 10_000  # mate: White's view, at the edge
    assert len(review.scores) == len(review.moves) + 1
    assert "Ng8-f6??" in review.record()
    assert review.record().startswith("1. e2-e4 e7-e5 2. Qd1-h5")
    assert review.counts(1)["??"] == 1


def test_the_review_leaves_the_game_alone_and_respects_its_budget() -> None:
    game = game_after("patricia", ["b2b3", "d4d3"])
    before = game.position_text
    review = analyze(game, nodes_per_move=500, movetime_per_move=None)
    assert game.position_text == before
    assert review.nodes <= 3 * 500


def test_a_stopped_review_says_so() -> None:
    game = game_after("grand", ["e3e5", "e8e6", "f3f5"])
    review = analyze(game, nodes_per_move=500, movetime_per_move=None, should_stop=lambda: True)
    assert not review.complete
    assert all(s is None for s in review.scores)
    assert all(m.mark == "" for m in review.moves)


def test_win_chances() -> None:
    assert win_chance(0) == 0.5
    assert win_chance(300) > 0.7
    assert win_chance(-300) < 0.3


def test_record_numbering_with_marks() -> None:
    review = Analysis(
        moves=(
            MoveReview(1, "1.", "e2-e4", "", 30, None, 0.0),
            MoveReview(2, "1...", "f7-f6", "?", 120, "e7-e5", 0.2),
            MoveReview(3, "2.", "Qd1-h5+", "!", 300, None, 0.0),
        ),
        scores=(10, 30, 120, 300),
        nodes=0,
        elapsed=0.0,
        complete=True,
    )
    assert review.record() == "1. e2-e4 f7-f6? 2. Qd1-h5+!"


# The game (29): a trap, and mate on the seventh move.
TRAP = "e2e4 e7e5 g1f3 b8c6 f1c4 c6d4 f3e5 d8g5 e5f7 g5g2 h1f1 g2e4 c4e2 d4f3"  # 7...Nf3#
RANK = {"": 0, "!": 0, "?!": 1, "?": 2, "??": 3}


def assert_consistent(review: Analysis) -> None:
    """No move is named better than itself; a mark follows from the loss alone, and a
    greater loss never gets a milder mark."""
    for m in review.moves:
        assert m.best != m.notation
        if m.mark != "!":
            assert m.mark == mark_for(m.loss)
        else:
            assert m.loss < INACCURACY
    ranked = sorted(review.moves, key=lambda m: m.loss)
    assert all(RANK[a.mark] <= RANK[b.mark] for a, b in itertools.pairwise(ranked))


def test_the_trap_has_no_contradiction_and_the_move_allowing_mate_is_a_blunder() -> None:
    game = game_after("chess", TRAP.split())
    review = analyze(game, nodes_per_move=2_000, movetime_per_move=None)
    assert_consistent(review)
    marks = {m.ply: m for m in review.moves}
    be2 = marks[13]
    assert be2.notation == "Bc4-e2" and be2.mark == "??"
    assert be2.best is not None and be2.best != "Bc4-e2"
    assert be2.score == -MATE_CP  # White's view: Black mates


def test_the_trap_turning_points_agree_with_a_deeper_review() -> None:
    """Every blunder found on 2,000 nodes a position is a mistake or a blunder with four
    times the nodes, and every blunder found there was marked on 2,000. A lesser mark on
    2,000 nodes may be the shallow search's noise: 6.Rf1 (ply 11) is marked `?` there, yet
    Fairy-Stockfish at depth 18 has it 2.8 Pawns worse than 6.Ng5 at -8 already, 0.008 of
    a game."""
    game = game_after("chess", TRAP.split())
    quick = analyze(game, nodes_per_move=2_000, movetime_per_move=None)
    deep = analyze(game, nodes_per_move=8_000, movetime_per_move=None)
    assert_consistent(deep)
    quick_marks = {m.ply: m.mark for m in quick.moves}
    deep_marks = {m.ply: m.mark for m in deep.moves}
    blunders = [ply for ply, mark in quick_marks.items() if mark == "??"]
    assert 13 in blunders  # 7.Be2, which allows 7...Nf3#
    for ply in blunders:
        assert deep_marks[ply] in ("?", "??"), ply
    for ply, mark in deep_marks.items():
        if mark == "??":
            assert quick_marks[ply] in ("?!", "?", "??"), ply


def test_a_move_that_allows_mate_is_a_blunder_even_when_already_lost() -> None:
    assert loss_of(-900, -MATE + 3) >= BLUNDER  # was lost, now mated
    assert loss_of(-MATE + 9, -MATE + 3) < INACCURACY  # mated either way
    assert loss_of(300, 300) == 0
    assert loss_of(100, 300) == 0  # a move scored above the best gives nothing away


@given(st.lists(st.floats(min_value=0, max_value=1), min_size=2, max_size=8))
def test_marks_are_monotone_in_the_loss(losses: list[float]) -> None:
    marks = [RANK[mark_for(x)] for x in sorted(losses)]
    assert marks == sorted(marks)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(["chess", "shako", "grand", "crazyhouse", "patricia"]),
    plies=st.integers(min_value=1, max_value=12),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_random_games_are_reviewed_without_contradiction(
    variant: str, plies: int, seed: int
) -> None:
    game = random_game(variant, plies, seed)
    if not game.history:
        return
    review = analyze(game, nodes_per_move=300, movetime_per_move=None)
    assert_consistent(review)


def test_a_review_called_off_inside_a_search_keeps_no_score_of_it() -> None:
    """Bigorra's depth 1 takes hundreds of nodes; the review is called off at the search's
    first look (64 nodes in): that position gets no score rather than a guess."""
    game = random_game("bigorra", 30, 3)
    calls = 0

    def stop() -> bool:
        nonlocal calls
        calls += 1
        return calls > 1  # the review's own look first, then the search's

    review = analyze(game, nodes_per_move=5_000, movetime_per_move=None, should_stop=stop)
    assert not review.complete
    assert all(s is None for s in review.scores)
