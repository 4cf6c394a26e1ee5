"""Regions: named square sets that confine pieces and give them moves (docs/variants.md,
Regions). The perft counts below are Fairy-Stockfish's (pyffish 0.0.90) for the same games
written in its variants.ini with `mobilityRegion...` and `soldierPromotionRank` (sections
`rgn1` and `rgn2` of `data/guide-variants.ini`): from the start and after the listed moves,
which are random games of pyffish's legal moves."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import Game
from rules.errors import VariantError
from rules.geometry import Geometry
from rules.perft import perft
from rules.position import Position
from rules.regions import format_squares, parse_squares
from rules.variant import load_definition

CONFINED = """
id = "confined"
name = "Confined"
extends = "chess"
castling = false
[regions]
palace = "c1 d1 e1 f1 c2 d2 e2 f2"
rook-lanes = "*1 *2 *4"
[pieces]
king = { letter = "K", region = "palace" }
rook = { letter = "R", region = "rook-lanes" }
"""

SOLDIERS = """
id = "soldiers"
name = "Soldiers"
extends = "chess"
castling = false
[regions]
across = "*5 *6 *7 *8"
[pieces]
pawn = false
soldier = { letter = "S", betza = "fW", region-moves = [{ region = "across", betza = "sW" }] }
[setup]
2 = "S S S S S S S S"
[rules]
en-passant = { capturers = [], victims = [] }
"""

# (moves from the start in UCI form, perft 1, perft 2) as pyffish 0.0.90 counts them.
CONFINED_ROWS = [
    ("", 20, 400),
    (
        "b2b3 f7f5 h2h4 a7a6 b1a3 h7h5 a3c4 e8f7 f2f3 a8a7 e1f2 c7c6 a2a3 b7b5 d2d3 d8e8 a3a4 "
        "c6c5 c1a3 g8f6",
        31,
        695,
    ),
    (
        "a2a4 h7h5 b1c3 c7c6 h2h3 h8h7 g2g4 a7a6 g4g5 h7h8 e2e3 a8a7 d1h5 a7a8 h5g6 c6c5 f1b5 "
        "g8h6 b5d7 b8d7 g6h7 d7f6 c3e4",
        36,
        1096,
    ),
    ("h2h3 h7h5 c2c3 e7e6 b2b3 f7f6 b1a3 f8d6 a3b1 e8e7 c3c4 d8e8 g2g4", 30, 619),
]
SOLDIER_ROWS = [
    ("", 12, 144),
    (
        "b1c3 e7e6 f2f3 b7b6 a2a3 f8c5 b2b3 c5f8 a1b1 f8b4 c3a4 b4a3 a4c3 c8b7 f3f4 a3d6 c3b5 "
        "b7d5 g1h3 f7f6",
        21,
        580,
    ),
    ("g1h3 b7b6 b2b3 g7g6 g2g3 b6b5 h1g1 b5b4 d2d3 b4a4 f1g2", 17, 537),
    (
        "b1c3 c7c6 c3d5 b8a6 g2g3 a6c7 g1h3 c7a6 h1g1 b7b6 c2c3 c6c5 d5e3 a6b8 g1h1 g7g6 b2b3 "
        "b6b5 h3g1 c8b7 f1h3 f8h6 g1f3 d8b6 h3d7 e8d8 g3g4 c5c4 h2h3 g8f6 f3g1 b8a6 d2d3 b6d4 "
        "e3f5 h8g8 d7c6",
        45,
        1527,
    ),
]


def _position(text: str, moves: str) -> Position:
    return Game.replay_variant(load_definition(text), moves.split()).position


@pytest.mark.parametrize(("moves", "p1", "p2"), CONFINED_ROWS)
def test_confined_pieces_count_as_fairy_stockfish(moves: str, p1: int, p2: int) -> None:
    pos = _position(CONFINED, moves)
    assert (perft(pos, 1), perft(pos, 2)) == (p1, p2)


@pytest.mark.parametrize(("moves", "p1", "p2"), SOLDIER_ROWS)
def test_region_moves_count_as_fairy_stockfish(moves: str, p1: int, p2: int) -> None:
    pos = _position(SOLDIERS, moves)
    assert (perft(pos, 1), perft(pos, 2)) == (p1, p2)


def test_confined_start_perft_3() -> None:
    assert perft(Position.start(load_definition(CONFINED)), 3) == 8862
    assert perft(Position.start(load_definition(SOLDIERS)), 3) == 2124


def _targets(game: Game, origin: str) -> set[str]:
    return {
        m.move.target.name
        for m in game.legal_moves()
        if m.move.origin and m.move.origin.name == origin
    }


def test_a_confined_rider_passes_outside_squares_but_never_stops_there() -> None:
    game = Game.from_position_text(load_definition(CONFINED), "4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert _targets(game, "a1") == {"a2", "a4", "b1", "c1", "d1"}
    assert _targets(game, "e1") == {"d1", "d2", "e2", "f1", "f2"}


def test_a_confined_piece_gives_no_check_outside_its_region() -> None:
    # The Rook on d1 may stop on d2 and d4 only: Black's King may step to d7 on the open file.
    game = Game.from_position_text(load_definition(CONFINED), "3k4/8/8/8/8/8/8/3RK3 b - - 0 1")
    assert _targets(game, "d8") == {"c8", "c7", "d7", "e7", "e8"}


def test_soldier_steps_sideways_only_across_the_river() -> None:
    game = Game.from_position_text(load_definition(SOLDIERS), "4k3/8/8/3S4/2S5/8/8/4K3 w - - 0 1")
    assert _targets(game, "c4") == {"c5"}
    assert _targets(game, "d5") == {"c5", "d6", "e5"}


def test_regions_are_named_in_the_rules_summary() -> None:
    from rules.summary import rules_summary

    lines = rules_summary(load_definition(SOLDIERS))
    assert any("in the across (*5 *6 *7 *8 for White) it also moves sW" in line for line in lines)
    lines = rules_summary(load_definition(CONFINED))
    palace = "King: never leaves the palace (c1 d1 e1 f1 c2 d2 e2 f2 for White)"
    assert any(palace in line for line in lines)


@pytest.mark.parametrize(
    ("regions", "key", "message"),
    [
        ('palace = "d1 z9"', "regions.palace", "'z9' is not a square"),
        ('palace = "d1 i1"', "regions.palace", "'i1' is off the board"),
        ('palace = "**"', "regions.palace", "whole board"),
        ('palace = ""', "regions.palace", "names no square"),
        ('Palace = "d1"', "regions.Palace", "lowercase words"),
        ('palace = { white = "d1", blue = "d8" }', "regions.palace.blue", "unknown key"),
        ('palace = { black = "d8" }', "regions.palace.white", "White's squares"),
        ('palace = { white = "", black = "" }', "regions.palace.black", "names no square"),
        ('palace = { white = "" }', "regions.palace.white", "names no square"),
        ("palace = 3", "regions.palace", "must be squares"),
    ],
)
def test_region_refusals_name_the_key(regions: str, key: str, message: str) -> None:
    text = CONFINED.replace('palace = "c1 d1 e1 f1 c2 d2 e2 f2"', regions)
    with pytest.raises(VariantError) as info:
        load_definition(text)
    assert info.value.key == key
    assert message in str(info.value)


def test_unknown_region_names_the_known_ones() -> None:
    text = CONFINED.replace('region = "palace"', 'region = "castle"')
    known = r"unknown region 'castle' \(regions: palace, rook-lanes"
    with pytest.raises(VariantError, match=known):
        load_definition(text)
    text = SOLDIERS.replace('region = "across"', 'region = "over"')
    with pytest.raises(VariantError) as info:
        load_definition(text)
    assert info.value.key == "pieces.soldier.region-moves[0].region"


def test_black_mirrors_white_unless_given() -> None:
    variant = load_definition(CONFINED)
    geo = variant.geometry
    assert format_squares(variant.region("palace").of(1), geo) == "c7 d7 e7 f7 c8 d8 e8 f8"
    text = CONFINED.replace(
        'palace = "c1 d1 e1 f1 c2 d2 e2 f2"', 'palace = { white = "e1", black = "a8" }'
    )
    assert format_squares(load_definition(text).region("palace").of(1), geo) == "a8"


@given(st.sets(st.integers(min_value=0, max_value=9 * 10 - 1), min_size=1))
def test_square_sets_round_trip(squares: set[int]) -> None:
    geo = Geometry(9, 10)
    text = format_squares(frozenset(squares), geo)
    assert parse_squares(text, geo) == frozenset(squares)


SIXHOUSE = """
id = "sixhouse"
name = "Sixhouse"
files = 5
ranks = 6
[regions]
pawn-promotion = { white = "", black = "*1" }
[pieces]
pawn = { letter = "", double-step-rows = { white = [2], black = [] }, promotion = { \
to = ["queen", "knight"], zone = "pawn-promotion", mandatory = true } }
knight = "N"
queen = "Q"
king = { letter = "K", royal = true }
[setup]
1 = "K . . . ."
2 = ". P . . ."
[setup.black]
6 = ". . . . K"
5 = ". . . P ."
"""


def test_one_side_of_a_region_may_be_empty_and_double_steps_differ_by_side() -> None:
    # Minihouse's rules (Fairy-Stockfish's crazyhouse on six ranks): White's Pawn
    # double-steps and never promotes, Black's promotes on rank 1 and never double-steps.
    variant = load_definition(SIXHOUSE)
    assert variant.region("pawn-promotion").of(0) == frozenset()
    game = Game.from_position_text(variant, "4k/3p1/5/5/1P3/K4 w - - 0 1")
    assert {m.coordinates for m in game.legal_moves()} >= {"b2b3", "b2b4"}
    game = Game.from_position_text(variant, "4k/1P1p1/5/5/5/K4 b - - 0 1")
    assert {m.coordinates for m in game.legal_moves() if m.coordinates[0] == "d"} == {"d5d4"}
    game = Game.from_position_text(variant, "4k/1P3/5/5/5/K4 w - - 0 1")
    assert {m.coordinates for m in game.legal_moves() if m.coordinates[0] == "b"} == {"b5b6"}
    game = Game.from_position_text(variant, "4k/5/5/5/3p1/K4 b - - 0 1")
    assert {m.coordinates for m in game.legal_moves() if m.coordinates[0] == "d"} == {
        "d2d1Q",
        "d2d1N",
    }


def test_per_side_double_step_rows_need_rows_for_some_side() -> None:
    text = SIXHOUSE.replace("white = [2], black = []", "white = [], black = []")
    with pytest.raises(VariantError) as info:
        load_definition(text)
    assert info.value.key == "pieces.pawn.double-step-rows"
