"""Promoted forms that count as the piece they promote into (`counts-as`), pseudo-royal
pieces as they were before the move, and draw odds (`material-points` without pieces)."""

from __future__ import annotations

import pytest

from rules.errors import VariantError
from rules.fsf import uci_moves
from rules.game import Game
from rules.outcome import Termination
from rules.postext import parse_position
from rules.variant import Variant, load_definition

CROWN = """
id = "crown"
name = "Crown"
description = "Pieces reaching the far rank become men; losing every man loses."
files = 6
ranks = 6

[pieces]
pawn = { letter = "", promotion = { to = ["promoted-pawn"], compulsory-rows = [6] } }
rook = { letter = "R", promotion = { to = ["promoted-rook"], zone = "far", mandatory = true } }
man = "K"
promoted-pawn = { letter = "+P", betza = "WF", demotes-to = "pawn", counts-as = "man" }
promoted-rook = { letter = "+R", betza = "WF", demotes-to = "rook", counts-as = "man" }

[regions]
far = { white = "*6", black = "*1" }

[setup]
1 = "R . K . . ."
2 = "P P P P P P"

[rules]
extinction = { pieces = ["man"], pseudo-royal = true }
"""


def crown(extra: str = "") -> Variant:
    return load_definition(CROWN + extra, source="crown")


def test_a_promoted_form_is_counted_as_its_kind_by_the_goal_zone() -> None:
    v = crown('goal-zone = { piece = "man", squares = ["a6"], black-squares = ["a1"] }\n')
    game = Game(v, parse_position(v, "5k/6/6/6/r5/2K3 b - - 0 1"))
    assert game.outcome() is None
    game.play("a2a1+")  # Black's Rook promotes on a1 and stands in Black's zone
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 1


def test_the_pseudo_royal_man_is_the_one_there_was_before_the_move() -> None:
    v = crown()
    # White's only man on c1 is attacked by the Rook on c6 unless White blocks; promoting
    # the a-Pawn makes a second man but may not leave the first attacked.
    position = parse_position(v, "2r3/P5/6/6/6/2K3 w - - 0 1")
    legal = set(uci_moves(Game(v, position).position))
    assert legal and not any(move.startswith("a5") for move in legal)


def test_a_promoted_man_counts_for_the_extinction() -> None:
    v = crown()
    # Black's men: one promoted Rook; with no man it would have lost at once.
    game = Game(v, parse_position(v, "6/6/6/6/6/K1+r3 w - - 0 1"))
    assert game.outcome() is None


def test_counts_as_names_another_non_royal_piece() -> None:
    royal = CROWN.replace('man = "K"', 'king = "K"').replace('"man"', '"king"')
    royal = royal.replace("pseudo-royal = true", "pseudo-royal = false")
    with pytest.raises(VariantError, match="counts-as"):
        load_definition(royal, source="crown")


def test_draw_odds_win_a_stalemate_without_royal_pieces() -> None:
    v = load_definition(
        """
id = "odds"
name = "Odds"
description = "Black wins what would be drawn."
files = 5
ranks = 5

[pieces]
rook = "R"

[setup]
1 = "R . . . ."

[setup.black]
5 = ". . R . ."

[rules]
material-points = { pieces = {}, black-bonus = 1 }
""",
        source="odds",
    )
    game = Game(v, parse_position(v, "2r2/5/5/5/2R2 w - - 0 1"))
    game.play("c1c5")
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.STALEMATE and outcome.winner == 1
