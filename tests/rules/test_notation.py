"""Move notation: what players type, what the bot prints, and why a move is refused."""

from __future__ import annotations

import contextlib
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import AmbiguousMoveError, Game, IllegalMoveError, InvalidMoveError, MoveError
from rules.notation import coordinates, format_code, format_short, parse
from rules.postext import parse_position
from rules.variant import variant_ids


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


def test_check_marks_are_ignored_on_input_and_verified_in_records() -> None:
    g = game("chess", "f2f3", "e7e5", "g2g4")
    assert g.play("Qd8-h4+").notation == "Qd8-h4++"  # the bot prints the right mark
    g.undo()
    with pytest.raises(IllegalMoveError, match="is checkmate"):
        g.play("Qd8-h4+", check_marks=True)
    assert g.play("Qd8-h4#", check_marks=True).notation == "Qd8-h4++"
    g = game("chess")
    assert g.play("e2-e4+!?").notation == "e2-e4"


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
        ((), "e5", IllegalMoveError, "no Pawn of yours can go to e5, nor can any other piece"),
        ((), "Nd4", IllegalMoveError, "no Knight of yours can go to d4"),
        (
            (),
            "Bc4",
            IllegalMoveError,
            "no Bishop of yours can go to c4; the only move there is c2-c4",
        ),
        ((), "Zf3", InvalidMoveError, "Z is not a piece letter in Chess"),
        ((), "e2 e4 e5", InvalidMoveError, "expected a move like"),
        ((), "e2-e4" * 10, InvalidMoveError, "too long to be a move"),
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


# ------------------------------------------------------------------ forgiving input (§5.2)


@pytest.mark.parametrize(
    ("variant", "moves", "text", "printed"),
    [
        # A destination alone: the Pawn's move there.
        ("chess", (), "e4", "e2-e4"),
        ("chess", ("e2e4", "d7d5"), "exd5", "e4xd5"),
        ("chess", ("e2e4", "d7d5"), "ed5", "e4xd5"),
        ("chess", ("e2e4", "d7d6", "e4e5", "f7f5"), "exf6", "e5xf6 e.p."),
        ("chess", ("e2e4", "d7d6", "e4e5", "f7f5"), "exf6 e.p.", "e5xf6 e.p."),
        # A piece letter and the destination, with a file or a rank when needed.
        ("chess", (), "Nf3", "Ng1-f3"),
        ("chess", (), "Nxf3", "Ng1-f3"),
        ("chess", ("d2d4", "d7d5", "g1f3", "g8f6"), "Nbd2", "Nb1-d2"),
        ("chess", ("d2d4", "d7d5", "g1f3", "g8f6"), "Nfd2", "Nf3-d2"),
        ("chess", ("d2d4", "d7d5", "g1f3", "g8f6"), "N1d2", "Nb1-d2"),
        ("chess", ("d2d4", "d7d5", "g1f3", "g8f6"), "Nf3d2", "Nf3-d2"),
        ("patchanka", (), "Hg4", "Hi2-g4"),
        ("bigorra", ("e5e7", "e12e10"), "Ze5", "Zc2-e5"),
        ("bigorra", ("l4i7", "o12o11", "k4l4", "n13k10", "h5h7", "m14p11"), "SNk4", "SNk3-k4"),
        # The Pawn may be written P where no piece has that letter.
        ("chess", (), "Pe4", "e2-e4"),
        ("chess", (), "Pe2-e4", "e2-e4"),
        # Capital file letters, spaces, a phone's automatic capital, castling with zeros.
        ("chess", (), "E2-E4", "e2-e4"),
        ("chess", (), "E2E4", "e2-e4"),
        ("chess", (), "E4", "e2-e4"),
        ("chess", (), "NF3", "Ng1-f3"),
        ("chess", (), "e2 e4", "e2-e4"),
        ("chess", (), "Ng1 f3", "Ng1-f3"),
        ("chess", (), " e2 - e4 ", "e2-e4"),
        ("chess", ("e2e4", "d7d5"), "Exd5", "e4xd5"),
        ("chess", ("e2e4", "d7d5"), "EXD5", "e4xd5"),
        ("chess", ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"), "0-0", "O-O"),
        ("chess", ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"), "o-o", "O-O"),
        ("chess", ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"), "Kg1", "O-O"),
        # Marks are ignored, right or wrong.
        ("chess", ("f2f3", "e7e5", "g2g4"), "Qh4", "Qd8-h4++"),
        ("chess", ("f2f3", "e7e5", "g2g4"), "Qh4+", "Qd8-h4++"),
        ("chess", ("f2f3", "e7e5", "g2g4"), "Qh4#!!", "Qd8-h4++"),
        ("chess", (), "e4?!", "e2-e4"),
        ("chess", (), "e4+", "e2-e4"),
    ],
)
def test_short_and_forgiving_forms(
    variant: str, moves: tuple[str, ...], text: str, printed: str
) -> None:
    assert game(variant, *moves).play(text).notation == printed


def test_rank_disambiguation() -> None:
    g = Game.from_position_text("chess", "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1")
    assert g.play("R1a3").notation == "Ra1-a3"
    g.undo()
    assert g.play("R5a3").notation == "Ra5-a3"
    g.undo()
    with pytest.raises(AmbiguousMoveError, match=r"which one: R1a3 or R5a3\?") as info:
        g.play("Ra3")
    assert info.value.candidates == ("R1a3", "R5a3")


def test_several_moves_fit_lists_the_choices() -> None:
    g = game("chess", "d2d4", "d7d5", "g1f3", "g8f6")
    before = g.position_text
    with pytest.raises(AmbiguousMoveError, match=r"which one: Nbd2 or Nfd2\?") as info:
        g.play("Nd2")
    assert info.value.candidates == ("Nbd2", "Nfd2")
    assert g.position_text == before


def test_short_promotions() -> None:
    fen = "1n5k/P7/8/8/8/8/8/K7 w - - 0 1"
    for text, printed in [("a8Q", "a7-a8Q"), ("a8=n", "a7-a8N"), ("axb8=R", "a7xb8R")]:
        g = Game.from_position_text("chess", fen)
        assert g.play(text).notation.rstrip("+") == printed
    with pytest.raises(IllegalMoveError, match="one of Q, R, B, N"):
        Game.from_position_text("chess", fen).play("a8")


def test_a_capital_piece_letter_is_never_read_as_a_file() -> None:
    """`Bxc3` is the Bishop's capture; b2xc3 is legal but must not be played for it."""
    g = Game.from_position_text("chess", "4k3/8/8/8/8/2n5/1P6/4K3 w - - 0 1")
    with pytest.raises(IllegalMoveError, match="no Bishop of yours can go to c3"):
        g.play("Bxc3")
    assert g.play("bxc3").notation == "b2xc3"


def test_drops_in_both_forms() -> None:
    for text in ("R@a3", "R*a3", "Ra3"):
        g = Game.from_position_text("patricia", "k4/2R2/1R3/5/4K w - - 0 1 hand:R")
        if text == "Ra3":  # a Rook on the board can go there too: a short form is a board move
            assert g.play(text).notation == "Rb3-a3"
            continue
        assert g.play(text).notation == "R*a3+"


# ------------------------------------------------------------------ round trips, every variant

ALL_VARIANTS = variant_ids()


def check_round_trips(variant: str, choices: list[int], *, every_move: bool) -> None:
    """Legal moves read back from their printed, short and coordinate forms, and from
    PGN's SAN: every move of each position, or (`every_move=False`, for long random games)
    the move played and two others."""
    g = Game.new(variant)
    pos = g.position
    for choice in choices:
        if g.outcome() is not None:
            break
        codes = pos.legal_codes()
        n = len(codes)
        sample = codes if every_move else [codes[(choice + k * 7) % n] for k in range(3)]
        for code in sample:
            for text in (
                format_code(pos, code),
                format_short(pos, code),
                coordinates(pos, code),
                format_short(pos, code, pgn=True),
            ):
                assert parse(pos, text).code == code, (variant, text, g.ply)
        g.play_move(pos.to_move(codes[choice % n]))


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_every_variant_round_trips_from_the_start(variant: str) -> None:
    check_round_trips(variant, [7, 3], every_move=True)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(ALL_VARIANTS),
    st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=60),
)
def test_random_play_round_trips_in_every_variant(variant: str, choices: list[int]) -> None:
    check_round_trips(variant, choices, every_move=False)


def test_pgn_san_forms() -> None:
    g = game("chess", "f2f3", "e7e5", "g2g4")
    pos = g.position
    assert format_short(pos, parse(pos, "Qh4").code, pgn=True) == "Qh4#"
    assert format_short(pos, parse(pos, "Qh4").code) == "Qh4++"
    fen = "1n5k/P7/8/8/8/8/8/K7 w - - 0 1"
    pos = Game.from_position_text("chess", fen).position
    assert format_short(pos, parse(pos, "axb8=Q").code, pgn=True) == "axb8=Q+"


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
