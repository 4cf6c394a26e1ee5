"""Piece values derived from movement: the orthodox figures come out, every piece of every
variant gets a sane value, and a piece nobody has seen before is valued at once."""

from __future__ import annotations

import pytest

from rules.betza import parse_betza
from rules.geometry import Geometry
from rules.variant import load_variant, variant_ids
from search.values import KNIGHT, piece_values, reach


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


def test_two_sided_pieces_are_worth_the_mean_of_their_faces() -> None:
    v = values("patricia")
    assert v["bishop"] == v["rook"]  # the Bishop turns into a Rook and back
    assert v["king"] == v["queen"] == 0
