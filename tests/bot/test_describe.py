"""The alt text of board pictures: the position in words, within Discord's 1024 characters."""

from __future__ import annotations

import pytest

from bot.service.describe import MAX_DESCRIPTION, describe_scene
from bot.service.models import Scene
from rules.game import Game
from rules.variant import variant_ids


def test_chess_after_e4_reads_like_a_player_would_say_it() -> None:
    game = Game.replay("chess", (), ["e2e4"])
    move = game.history[-1].move
    text = describe_scene(Scene(game.position.copy(), 0, last_move=move))
    assert text.startswith("Chess board (8×8), seen from White's side. Black to move.")
    assert "White: King e1; Queen d1; Rooks a1, h1;" in text
    assert "Pawns a2, b2, c2, d2, e4, f2, g2, h2" in text
    assert "Black: King e8;" in text
    assert "Last move: e2 to e4." in text


def test_check_mate_and_marks_are_described() -> None:
    game = Game.replay("chess", (), ["e2e4", "f7f6", "d2d4", "g7g5"])
    text = describe_scene(Scene(game.position.copy(), 1, highlights=(5,), captures=(6,)))
    assert "seen from Black's side. White to move." in text
    assert "Marked: moves to f1; captures on g1." in text
    game.play("Qd1-h5")
    assert "Black to move, in check" not in describe_scene(Scene(game.position.copy(), 0))
    assert "White wins by checkmate." in describe_scene(Scene(game.position.copy(), 0))
    check = Game.replay("chess", (), ["e2e4", "f7f5", "d1h5"])
    assert "Black to move, in check." in describe_scene(Scene(check.position.copy(), 0))


def test_pieces_in_hand_are_listed() -> None:
    game = Game.replay("patricia", (), [])
    text = describe_scene(Scene(game.position.copy(), 0))
    assert "Patricia board (5×5)" in text


@pytest.mark.parametrize("variant", variant_ids())
def test_every_start_position_fits_discords_limit(variant: str) -> None:
    game = Game.replay(variant, (), [])
    text = describe_scene(Scene(game.position.copy(), 0))
    assert 0 < len(text) <= MAX_DESCRIPTION
    assert game.position.variant.name in text


def test_a_crowded_board_uses_letters_and_says_what_it_left_out() -> None:
    text = describe_scene(Scene(Game.replay("bigorra", (), []).position.copy(), 0))
    assert len(text) <= MAX_DESCRIPTION
    assert "Bigorra board (16×16)" in text
    assert "White:" in text
