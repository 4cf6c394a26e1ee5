"""Post-game review: marks where the evaluation swings, scores for the graph."""

from __future__ import annotations

from rules.game import game_after
from search.analysis import Analysis, MoveReview, analyze, win_chance


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
