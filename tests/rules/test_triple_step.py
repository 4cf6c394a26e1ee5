"""Triple steps and en passant on every square passed (Wildebeest's Pawns), and which pieces
may take en passant at all.

The FEN strings and move lists asserted here are what pyffish 0.0.90 gives for the same
game, the self-written `[longmarch]` section of `data/ini-sections.ini` (its perft rows in
`data/ini-perft.tsv` are compared in `test_ini.py`).
"""

from __future__ import annotations

import pytest

from rules import ini, notation
from rules.errors import PositionTextError, VariantError
from rules.fsf import fen, uci_moves
from rules.game import Game
from rules.perft import perft
from rules.position import Position
from rules.postext import format_position, parse_position
from rules.variant import Variant, load_definition
from search.searcher import Limits, search
from tests.rules.test_staged import check_stages

LONG_MARCH = """
id = "long-march"
name = "Long March"
files = 8
ranks = 10

[pieces]
pawn = { letter = "", double-step-rows = [2, 3], triple-step-rows = [2], promotion = { to = ["queen", "rook", "bishop", "knight"] } }
knight = "N"
bishop = "B"
rook = "R"
queen = "Q"
king = { letter = "K", royal = true }

[setup]
1 = "R N B Q K B N R"
2 = "P P P P P P P P"

[setup.black]
10 = "R N B Q K B N R"
9 = "P P P P . P P P"
5 = ". . . . . P . ."
4 = ". . . P . . . ."

[rules]
en-passant = { capturers = ["pawn"], victims = ["pawn"] }
"""  # noqa: E501


@pytest.fixture(scope="module")
def variant() -> Variant:
    return load_definition(LONG_MARCH, source="long-march")


def after(variant: Variant, *moves: str) -> Game:
    game = Game(variant)
    for move in moves:
        game.play(move)
    return game


def ep_field(game: Game) -> str:
    return fen(game.position).split()[3]


def test_a_triple_step_is_taken_en_passant_on_either_square_it_passed(variant: Variant) -> None:
    game = after(variant, "e2e5")
    black = {m for m in uci_moves(game.position) if m[:2] in ("d4", "f5")}
    assert black == {"d4d3", "d4e3", "f5e4", "f5f4"}  # pyffish's moves there
    assert ep_field(game) == "e3e4"
    for capture, square in (("d4e3", "e3"), ("f5e4", "e4")):
        taken = after(variant, "e2e5", capture)
        board = fen(taken.position).split()[0]
        # The White Pawn is gone from e5 whichever square it was taken on.
        assert board.split("/")[5] == ("5p2" if square == "e3" else "8")
        assert taken.position.board[taken.position.t.geo.parse("e5") or 0] == 0
        assert ep_field(taken) == "-"


def test_the_fen_names_only_the_squares_where_a_capture_is_legal(variant: Variant) -> None:
    # After a double step from the third row only e4 was passed (pyffish: `e4`).
    assert ep_field(after(variant, "e2e3", "a9a8", "e3e5")) == "e4"
    # No Black Pawn attacks c3 or c4 after c2c5: pyffish writes `c3` (d4 takes there).
    assert ep_field(after(variant, "c2c5")) == "c3"
    assert ep_field(after(variant, "b2b5")) == "-"


def test_the_position_text_keeps_every_square_passed(variant: Variant) -> None:
    game = after(variant, "e2e5")
    text = format_position(game.position)
    assert text.split()[3] == "e3e4"
    back = parse_position(variant, text)
    assert back.ep_squares == game.position.ep_squares
    assert set(uci_moves(back)) == set(uci_moves(game.position))
    assert format_position(back) == text
    # Fairy-Stockfish names only the squares where a capture is legal: a field naming one
    # of them reads as that one alone (pyffish, given `e4`: f5e4 but no d4e3).
    only = parse_position(variant, text.replace(" e3e4 ", " e4 "))
    assert {m for m in uci_moves(only) if m[:2] in ("d4", "f5")} == {"d4d3", "f5e4", "f5f4"}


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("e3e5", "has just double-stepped or triple-stepped past them"),
        ("e3f4", "not on one file"),
        ("e3x", "squares such as d6"),
        ("e2", "has just double-stepped or triple-stepped past it"),
    ],
)
def test_a_wrong_en_passant_field_is_refused(variant: Variant, field: str, message: str) -> None:
    text = format_position(after(variant, "e2e5").position).replace(" e3e4 ", f" {field} ")
    with pytest.raises(PositionTextError, match=message):
        parse_position(variant, text)


def test_undo_restores_the_squares_and_the_key_counts_them(variant: Variant) -> None:
    pos = Game(variant).position.copy()
    before = (pos.hash, pos.ep, pos.ep_squares, pos._key())
    code = next(c for m, c in uci_moves(pos).items() if m == "e2e5")
    pos.push_code(code)
    assert pos.ep_squares == (variant_square(pos, "e3"), variant_square(pos, "e4"))
    assert pos.ep_victim == variant_square(pos, "e5")
    # The same board without the right is another position for repetitions.
    plain = parse_position(variant, format_position(pos).replace(" e3e4 ", " - "))
    assert plain.hash == pos.hash and plain._key() != pos._key()
    one = parse_position(variant, format_position(pos).replace(" e3e4 ", " e4 "))
    assert one._key() not in (pos._key(), plain._key())
    copy = pos.copy()
    assert copy.ep_squares == pos.ep_squares and perft(copy, 2) == perft(pos, 2)
    pos.pop_code()
    assert (pos.hash, pos.ep, pos.ep_squares, pos._key()) == before


def variant_square(pos: Position, name: str) -> int:
    sq = pos.t.geo.parse(name)
    assert sq is not None
    return sq


def test_staged_generation_lists_both_captures(variant: Variant) -> None:
    game = after(variant, "e2e5")
    assert check_stages(game.position, [])
    captures = {
        m for m, c in uci_moves(game.position).items() if c in game.position.capture_codes()
    }
    assert {"d4e3", "f5e4"} <= captures


def test_the_search_takes_the_pawn_that_triple_stepped(variant: Variant) -> None:
    # f5xe4 e.p. wins the Pawn for nothing (d4xe3 is taken back by d2 or f2).
    game = after(variant, "e2e5")
    result = search(game.position, Limits(depth=3))
    assert uci_moves(game.position)["f5e4"] == result.move


TRIPLE_KEYS = [
    ('triple-step = "twice"', "must be none, initial or any"),
    ('triple-step = "initial", triple-step-rows = [2]', "replaces triple-step"),
    ("triple-step-rows = []", 'no rows: write triple-step = "none"'),
    ("triple-step-rows = [11]", "row 11 is not between 1 and 10"),
]


@pytest.mark.parametrize(("keys", "message"), TRIPLE_KEYS)
def test_triple_step_keys_are_checked(keys: str, message: str) -> None:
    text = LONG_MARCH.replace("triple-step-rows = [2]", keys)
    with pytest.raises(VariantError, match=message):
        load_definition(text, source="long-march")


def test_a_piece_that_also_steps_diagonally_takes_no_en_passant() -> None:
    text = LONG_MARCH.replace('letter = "", ', 'letter = "", pawn-moves = "fmW F", ')
    with pytest.raises(VariantError, match="also moves diagonally forward without capturing"):
        load_definition(text, source="long-march")


def test_victims_need_a_double_or_triple_step() -> None:
    text = LONG_MARCH.replace('victims = ["pawn"]', 'victims = ["knight"]')
    with pytest.raises(VariantError, match="knight has no double or triple step"):
        load_definition(text, source="long-march")


def test_en_passant_types_take_only_where_they_capture_but_cannot_move() -> None:
    # Fairy-Stockfish's enPassantTypes piece that also steps like a King never takes en
    # passant (pyffish: after d7d5, e5d6 leaves the d5 Pawn where it is): no capturers.
    section = "[t:chess]\ncustomPiece1 = p:KifmnD\npawnTypes = p\n"
    toml = ini.convert_section(section, "t")
    assert "en-passant" not in toml
    game = Game(load_definition(toml, source="t"))
    for move in ("e2e4", "a7a6", "e4e5", "d7d5", "e5d6"):
        game.play(move)
    assert fen(game.position).startswith("rnbqkbnr/1pp1pppp/p2P4/3p4/8/8/PPPP1PPP/RNBQKBNR b")
    # The predefined Pawn beside it still takes en passant, and still is taken.
    toml = ini.convert_section(section.replace("customPiece1 = p:KifmnD\n", ""), "t")
    assert 'en-passant = { capturers = ["pawn"], victims = ["pawn"] }' in toml


def test_en_passant_with_other_captures_only_is_refused() -> None:
    section = "[t:chess]\ncustomPiece1 = n:NceF\npawnTypes = pn\n"
    with pytest.raises(VariantError, match="captures other than the Pawn's diagonal forward"):
        ini.convert_section(section, "t")


def test_the_export_writes_the_triple_step_region(variant: Variant) -> None:
    text = ini.export_ini(variant)
    assert "tripleStepRegionWhite = *2" in text and "tripleStepRegionBlack = *9" in text
    back = load_definition(ini.convert_section(text, "long-march"), source="back")
    for moves in ([], ["e2e5"], ["e2e5", "f5e4"]):
        want = perft(after(variant, *moves).position, 2)
        assert perft(after(back, *moves).position, 2) == want


@pytest.mark.parametrize(
    ("text", "uci"),
    [("dxe3", "d4e3"), ("fxe4 e.p.", "f5e4"), ("d4xe3 e.p.", "d4e3"), ("f5e4", "f5e4")],
)
def test_notation_names_either_capture(variant: Variant, text: str, uci: str) -> None:
    pos = after(variant, "e2e5").position
    code = uci_moves(pos)[uci]
    assert notation.parse(pos, text).code == code
    assert notation.format_code(pos, code) == f"{uci[:2]}x{uci[2:]} e.p."
