"""Piece values derived from movement: the orthodox figures come out, every piece of every
variant gets a sane value, and a piece nobody has seen before is valued at once."""

from __future__ import annotations

import pytest

from rules.betza import parse_betza
from rules.geometry import Geometry
from rules.variant import load_definition, load_variant, variant_ids
from search.values import KNIGHT, Reach, piece_values, reach, symmetries


def values(variant: str) -> dict[str, int]:
    return {v.piece_id: v.value for v in piece_values(load_variant(variant))}


def test_chess_values_are_the_usual_ones() -> None:
    v = values("chess")
    assert v["pawn"] == 100
    assert v["knight"] == KNIGHT
    assert 290 <= v["bishop"] <= 350
    assert 480 <= v["rook"] <= 540
    assert 880 <= v["queen"] <= 1000
    assert v["king"] == 0  # royal: its loss ends the game, it has no material value


def test_compounds_are_worth_a_little_more_than_their_parts() -> None:
    v = values("grand")
    assert v["marshal"] > v["rook"] + v["knight"]  # Rook + Knight
    assert v["cardinal"] > v["bishop"] + v["knight"]  # Bishop + Knight
    assert v["queen"] > v["rook"] + v["bishop"]


@pytest.mark.parametrize("variant", variant_ids())
def test_every_piece_of_every_variant_has_a_sane_value(variant: str) -> None:
    v = load_variant(variant)
    for pv in piece_values(v):
        piece = v.piece(pv.piece_id)
        if piece.royal:
            assert pv.value == 0
        else:
            assert 50 <= pv.value <= 2_500, pv
        assert pv.mobility > 0


def test_colour_bound_and_forward_only_pieces_are_marked() -> None:
    table = {v.piece_id: v for v in piece_values(load_variant("leaping-bat"))}
    assert table["bishop"].board_share == pytest.approx(0.5)
    assert table["alfil"].board_share < 0.3
    assert table["rook"].board_share == 1.0
    assert table["pawn"].pawn_class and table["pawn"].forward_share == 1.0
    assert table["fers"].value < table["wazir"].value < table["man"].value


def test_a_new_piece_gets_a_value_from_its_movement_alone() -> None:
    """A rider nobody defined before: its reach is measured like any other piece's."""
    geo = Geometry(10, 10)
    knight = reach(geo, parse_betza("N"))
    nightrider = reach(geo, parse_betza("NN"))
    forward_rook = reach(geo, parse_betza("fR"))
    assert nightrider.mobility > knight.mobility
    assert forward_rook.forward_share == 1.0
    assert 0 < forward_rook.mobility < reach(geo, parse_betza("R")).mobility


LINE = """
id = "line"
name = "Line"
files = 8
ranks = 1

[pieces]
king = "K"
rook = "R"
knight = "N"
dabbaba = { letter = "D", betza = "D" }
wazir = { letter = "W", betza = "W" }

[setup]
1 = "K D R N W . . ."

[setup.black]
1 = ". . . . . R D K"
"""


def test_a_board_where_no_knight_moves_values_against_the_wazir() -> None:
    """On one rank (1D Chess) a Knight never moves, so it cannot anchor the values: the
    Wazir does, at what it is worth on 8x8, and the others keep their order."""
    v = {pv.piece_id: pv.value for pv in piece_values(load_definition(LINE, source="line"))}
    square = LINE.replace("ranks = 1", "ranks = 8").replace("[setup.black]\n1", "[setup.black]\n8")
    on_8x8 = {pv.piece_id: pv.value for pv in piece_values(load_definition(square, source="sq"))}
    assert v["knight"] == 0  # it has no move here
    assert v["wazir"] == on_8x8["wazir"]
    assert v["dabbaba"] < v["wazir"] < v["rook"]


def test_two_sided_pieces_are_worth_the_mean_of_their_faces() -> None:
    v = values("patricia")
    assert v["bishop"] == v["rook"]  # the Bishop turns into a Rook and back
    assert v["king"] == v["queen"] == 0


def _walked_alike(a: Reach, b: Reach) -> None:
    for field in ("moves", "captures", "forward_share", "board_share"):
        assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-9, abs=1e-12), field
    assert a.per_square == pytest.approx(b.per_square, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("variant", ["chess", "shako", "grand", "xiangqi", "shogi", "bigorra"])
def test_walking_one_square_of_each_orbit_finds_what_every_square_finds(variant: str) -> None:
    v = load_variant(variant)
    geo = v.geometry
    for p in v.pieces:
        mask = v.region(p.region).of(0) if p.region else None
        extras = tuple((v.region(rm.region).of(0), rm.components) for rm in p.region_moves)
        turned = reach(geo, p.components, mask, extras)
        walked = reach(geo, p.components, mask, extras, turned=False)
        _walked_alike(turned, walked)


@pytest.mark.parametrize(
    ("betza", "square", "oblong"),
    [
        ("Q", 8, 4),
        ("N", 8, 4),
        ("fmW fcF", 2, 2),  # the Pawn: only its files mirror
        ("fR", 2, 2),
        ("rN", 2, 2),  # its right-hand moves turned over are left-hand ones
        ("frN", 2, 1),  # (1, 2) and (2, 1): only the swap of files and ranks
        ("WnA", 8, 4),
        ("fsW bF", 2, 2),
        ("vRsN", 4, 4),  # files and ranks mirror, but not swap
    ],
)
def test_symmetries_are_those_of_the_moves(betza: str, square: int, oblong: int) -> None:
    comps = parse_betza(betza)
    assert len(symmetries(Geometry(12, 12), comps)) == square
    assert len(symmetries(Geometry(12, 8), comps)) == oblong
    for geo in (Geometry(12, 12), Geometry(12, 8), Geometry(5, 7)):
        _walked_alike(reach(geo, comps), reach(geo, comps, turned=False))


def test_a_move_bound_to_rows_keeps_the_ranks() -> None:
    v = load_variant("horde")
    pawn = next(p for p in v.pieces if any(c.rows for c in p.components))
    assert all(g[2] > 0 and not g[0] for g in symmetries(v.geometry, pawn.components))
