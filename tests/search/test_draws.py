"""The engine takes a draw only in a really drawn position: dead material, or a level
ending deep in the game; never at move 3, never with much to play for."""

from __future__ import annotations

import pytest

from rules.game import Game, game_after
from search.play import accepts_draw, dead_material


def test_never_at_move_three_of_a_fresh_game() -> None:
    game = game_after("chess", ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"])
    assert not accepts_draw(game, 0)
    assert not accepts_draw(game, 1)


def test_never_a_queen_up_or_down_early() -> None:
    game = game_after("chess", ["e2e4", "e7e5", "g1f3", "d8h4", "f3h4"])
    assert not accepts_draw(game, 0)
    assert not accepts_draw(game, 1)


@pytest.mark.parametrize("color", [0, 1])
def test_dead_material_is_a_draw_at_any_move(color: int) -> None:
    """K+N v K+B: the rules play on (not insufficient material by chess's rule), but
    neither side can force mate."""
    game = Game.from_position_text("chess", "8/8/4k3/8/2b5/8/3NK3/8 w - - 0 5")
    assert game.outcome() is None
    assert dead_material(game.position)
    assert accepts_draw(game, color)


def test_a_pawn_is_not_dead_material() -> None:
    game = Game.from_position_text("chess", "8/8/4k3/8/2b5/8/3NKP2/8 w - - 0 5")
    assert not dead_material(game.position)


def test_a_bare_king_is_lost_not_dead() -> None:
    """Where baring the King wins, a lone minor piece still wins: no dead material."""
    game = Game.from_position_text("shatranj", "8/8/4k3/8/8/8/3NK3/8 w - - 0 5")
    assert not dead_material(game.position)


@pytest.mark.parametrize("color", [0, 1])
def test_a_level_rook_ending_deep_in_the_game_is_a_draw(color: int) -> None:
    game = Game.from_position_text("chess", "1r6/5pk1/8/8/8/8/5PK1/R7 w - - 0 45")
    assert accepts_draw(game, color)


def test_the_same_ending_early_is_played_on() -> None:
    game = Game.from_position_text("chess", "1r6/5pk1/8/8/8/8/5PK1/R7 w - - 0 12")
    assert not accepts_draw(game, 0)


def test_a_full_board_deep_in_the_game_is_played_on() -> None:
    """Level, but with every piece still there: there is play to press for a win."""
    game = Game.from_position_text(
        "chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 40"
    )
    assert not accepts_draw(game, 0)


def test_a_won_ending_is_not_given_away() -> None:
    game = Game.from_position_text("chess", "8/8/4k3/8/8/8/4K3/R7 w - - 0 50")
    assert not accepts_draw(game, 0)
