"""Position text: every state round-trips; bad text says which field is wrong."""

from __future__ import annotations

import pytest

from rules import Game, PositionTextError
from rules.postext import format_position, parse_position
from rules.variant import variant_ids

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def test_chess_keeps_standard_fen() -> None:
    assert Game.new("chess").position_text == START
    g = Game.replay("chess", (), ["e2e4"])
    assert g.position_text == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"


@pytest.mark.parametrize("variant", variant_ids())
def test_start_positions_round_trip(variant: str) -> None:
    pos = Game.new(variant).position
    text = format_position(pos)
    again = parse_position(variant, text)
    assert format_position(again) == text
    assert again.hash == pos.hash
    assert sorted(again.legal_codes()) == sorted(pos.legal_codes())


def test_two_letter_pieces_and_the_plus_pawn() -> None:
    text = Game.new("timurid-babur").position_text
    assert text.startswith("e1m1c2c1m1e/rnb(sh)pk(sq)p(sh)bnr/------------/")
    assert "++++++++++++/RNB(SH)PK(SQ)P(SH)BNR/" in text


def test_moved_pieces_on_their_starting_squares() -> None:
    g = Game.replay("chess", (), ["e2e4", "e7e5", "e1e2", "e8e7", "e2e1", "e7e8"])
    assert " - " in g.position_text  # castling rights gone, though both Kings are home
    again = parse_position("chess", g.position_text)
    assert again.hash == g.position.hash


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "'X' is not a piece"),
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "9 squares"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqZ - 0 1", "unknown castling right"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "needs the King on e1"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "double-stepped"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove clock"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", "exactly one King"),
        ("rnbqkbnr/ppppp1pp/8/7Q/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1", "in check"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hand:P", "no pieces in hand"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 colour:red", "unknown field"),
        ("8/8/8 w", "at least 6 fields"),
    ],
)
def test_errors_name_the_field(text: str, fragment: str) -> None:
    with pytest.raises(PositionTextError, match=fragment):
        parse_position("chess", text)
