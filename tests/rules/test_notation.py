"""Move notation: what players type, what the bot prints, and why a move is refused."""

from __future__ import annotations

import contextlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import Game, IllegalMoveError, InvalidMoveError
from rules.errors import MoveError
from rules.notation import coordinates, format_code, parse
from rules.postext import parse_position


def game(variant: str, *moves: str) -> Game:
    return Game.replay(variant, (), moves)


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("e2e4", "e2-e4"),
        ("e2-e4", "e2-e4"),
        ("e2:e4", "e2-e4"),
        ("e2xe4", "e2-e4"),
        ("  Ng1-f3 ", "Ng1-f3"),
        ("Ng1f3!?", "Ng1-f3"),
        ("g1f3", "Ng1-f3"),
    ],
)
def test_accepted_forms(text: str, printed: str) -> None:
    assert game("chess").play(text).notation == printed


def test_captures_checks_and_mate_are_printed() -> None:
    g = game("chess", "f2f3", "e7e5", "g2g4")
    assert g.play("d8h4").notation == "Qd8-h4++"
    g = game("chess", "e2e4", "d7d5")
    assert g.play("e4d5").notation == "e4xd5"


def test_en_passant_and_promotion_forms() -> None:
    g = game("chess", "e2e4", "a7a6", "e4e5", "d7d5")
    assert g.play("e5d6").notation == "e5xd6 e.p."
    fen = "8/1P4k1/8/8/8/8/6K1/8 w - - 0 1"
    g = Game.from_position_text("chess", fen)
    with pytest.raises(IllegalMoveError, match="one of Q, R, B, N"):
        g.play("b7b8")
    assert g.play("b7b8n").notation == "b7-b8N"


def test_check_marks_are_checked_when_present() -> None:
    g = game("chess", "f2f3", "e7e5", "g2g4")
    with pytest.raises(IllegalMoveError, match="is checkmate"):
        g.play("Qd8-h4+")
    assert g.play("Qd8-h4#").notation == "Qd8-h4++"


def test_castling_forms() -> None:
    g = game("chess", "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6")
    assert g.play("0-0").notation == "O-O"
    g.undo()
    assert g.play("e1g1").notation == "O-O"
    g.undo()
    assert g.play("Ke1-g1").notation == "O-O"


@pytest.mark.parametrize(
    ("moves", "text", "error", "fragment"),
    [
        ((), "", InvalidMoveError, "empty move"),
        ((), "e4", InvalidMoveError, "write the origin square too: e2-e4"),
        ((), "Nd4", InvalidMoveError, "none of yours goes to d4"),
        ((), "e2 e4", InvalidMoveError, "origin square, then destination"),
        ((), "i2i4", InvalidMoveError, "i2 is not a square"),
        ((), "ng1f3", InvalidMoveError, "write N, not n"),
        ((), "e3e4", IllegalMoveError, "there is no piece on e3"),
        ((), "e7e5", IllegalMoveError, "Black's Pawn; it is White's turn"),
        ((), "Bg1-f3", IllegalMoveError, "is Knight (N), not Bishop (B)"),
        ((), "e2e5", IllegalMoveError, "cannot move from e2 to e5"),
        ((), "Ra1-a3", IllegalMoveError, "blocked on a2"),
        ((), "Ke1-e2", IllegalMoveError, "occupied by your own Pawn"),
        ((), "e2e4Q", IllegalMoveError, "does not promote"),
        ((), "O-O", IllegalMoveError, "must be empty"),
        (("e2e4", "e7e5", "d1h5", "b8c6"), "Qh5-e8", IllegalMoveError, "blocked on f7"),
        (("e2e4", "f7f6", "d1h5"), "a7a6", IllegalMoveError, "does not parry it"),
        (("d2d4", "e7e6", "e2e4", "f8b4"), "c2c3", IllegalMoveError, None),
    ],
)
def test_refusals_say_why(
    moves: tuple[str, ...], text: str, error: type[Exception], fragment: str | None
) -> None:
    g = game("chess", *moves)
    before = g.position_text
    if fragment is None:  # c2-c3 blocks the check: legal, not refused
        g.play(text)
        return
    with pytest.raises(error, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        g.play(text)
    assert g.position_text == before, "a refused move must not change the game"


def test_pinned_piece_and_king_into_check() -> None:
    g = Game.from_position_text("chess", "3rk3/8/8/8/4r3/8/4N3/4K3 w - - 0 1")
    with pytest.raises(IllegalMoveError, match="would leave your King in check"):
        g.play("Ne2-c3")
    with pytest.raises(IllegalMoveError, match="would be in check on d1"):
        g.play("Ke1-d1")


def test_hopper_refusals() -> None:
    g = game("heavy-shako")
    with pytest.raises(IllegalMoveError, match="exactly one piece; there are 2"):
        g.play("Ca1xa8")


@pytest.mark.parametrize("variant", ["chess", "patchanka", "heavy-shako"])
def test_every_legal_move_round_trips(variant: str) -> None:
    g = game(variant)
    for _ in range(12):
        pos = g.position
        for code in pos.legal_codes():
            assert parse(pos, format_code(pos, code)).code == code
            assert parse(pos, coordinates(pos, code), check_marks=False).code == code
        g.play_move(pos.to_move(pos.legal_codes()[len(pos.legal_codes()) // 2]))


def test_letters_are_one_or_two_capitals() -> None:
    pos = parse_position("chess", "4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert format_code(pos, parse(pos, "O-O").code) == "O-O"


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("e2e4\nfoo", "a line break"),
        ("Ng1-f3\r\nbar", "a line break"),
        ("e2\te4", "a tab"),
        ("e2e4\x00", "U+0000"),
        ("e2e4\x1b[31m", "U+001B"),
        ("e2\u2028e4", "U+2028"),
        ("e2\x85e4", "U+0085"),
        ("e2e4\n", None),
    ],
)
def test_control_characters_get_a_specific_refusal(text: str, what: str | None) -> None:
    if what is None:  # surrounding white space, line breaks included, is ignored
        assert game("chess").play(text).notation == "e2-e4"
        return
    with pytest.raises(InvalidMoveError, match=re.escape(what)):
        game("chess").play(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_a_move_or_a_refusal(text: str) -> None:
    """Untrusted input: whatever a player types ends in a move or a `MoveError`, never in
    another exception (an `assert` would vanish under `python -O`)."""
    g = game("chess", "e2e4")
    with contextlib.suppress(MoveError):
        g.play(text)
