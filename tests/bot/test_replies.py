"""Refusals read as sentences: several fitting moves are offered as choices, and a click on
the button of a request that is already settled says why there is nothing to do."""

from __future__ import annotations

from bot.replies import refusal
from bot.ui.format import count
from rules.errors import AmbiguousMoveError
from rules.summary import rules_summary
from rules.variant import load_variant
from storage.errors import OwnChallengeError, RequestNotPendingError


def test_ambiguous_moves_are_offered_as_choices() -> None:
    exc = AmbiguousMoveError("Nd2", "several moves fit", ("Nbd2", "Nfd2"))
    assert refusal(exc) == "`Nd2` fits several moves: which one do you mean, `Nbd2` or `Nfd2`?"


def test_old_buttons_answer_in_full_sentences() -> None:
    lapsed = refusal(RequestNotPendingError("draw offer", 3, "lapsed"))
    assert lapsed == (
        "This draw offer has lapsed: the game moved on since it was made, "
        "so there is nothing left to answer."
    )
    declined = refusal(RequestNotPendingError("takeback request", 4, "declined"))
    assert (
        declined == "This takeback request was already declined; there is nothing left to answer."
    )


def test_accept_on_ones_own_challenge_points_to_decline() -> None:
    # Decline on one's own challenge withdraws it: the refusal of Accept must not deny that.
    assert refusal(OwnChallengeError()) == (
        "You cannot accept your own challenge; Decline withdraws it."
    )


def test_promotion_rows_name_both_sides() -> None:
    lines = rules_summary(load_variant("grand"))
    (pawn,) = [line for line in lines if line.startswith("Pawn:")]
    assert "must promote on its last row (rank 10 for White, 1 for Black)" in pawn
    assert "may promote on its rows 8 and 9 (ranks 8 and 9 for White, 3 and 2 for Black)" in pawn
    assert not any("on row 16" in line for line in rules_summary(load_variant("bigorra")))


def test_counts() -> None:
    assert [
        count(1, "game"),
        count(2, "game"),
        count(1, "ply", "plies"),
        count(0, "ply", "plies"),
    ] == [
        "1 game",
        "2 games",
        "1 ply",
        "0 plies",
    ]
