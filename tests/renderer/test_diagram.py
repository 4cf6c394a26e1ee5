"""Piece diagrams and legends."""

from __future__ import annotations

import pytest

from renderer import find_piece, piece_legend, render_legend, render_piece
from renderer.diagram import board_size, diagram_data
from rules.betza import parse_betza
from rules.tables import CAPTURE, MOVE
from rules.variant import PieceType, load_variant, variant_ids
from tests.renderer.conftest import decode

BOTH = MOVE | CAPTURE


def _piece(variant_id: str, text: str) -> PieceType:
    return find_piece(load_variant(variant_id), text)


def _at(n: int, dx: int, dy: int) -> int:
    return (n // 2 + dy) * n + n // 2 + dx


def _distinct_pieces() -> list[tuple[str, str]]:
    seen = set()
    out = []
    for vid in variant_ids():
        for p in load_variant(vid).pieces:
            key = (p.components, p.once_per_game)
            if key not in seen:
                seen.add(key)
                out.append((vid, p.id))
    return out


@pytest.mark.parametrize(("variant_id", "piece_id"), _distinct_pieces())
def test_every_piece_has_a_diagram(variant_id: str, piece_id: str) -> None:
    img = decode(render_piece(variant_id, piece_id))
    assert 480 <= img.width <= 1000 and img.height <= 1000
    data = diagram_data(load_variant(variant_id).piece(piece_id))
    assert data.marks, "a piece with no move on an empty board"


def test_cannon_captures_over_a_screen() -> None:
    p = _piece("bigorra", "Cannon")
    n = board_size(p)
    data = diagram_data(p)
    assert data.screens == {_at(n, 2, 0), _at(n, -2, 0), _at(n, 0, 2), _at(n, 0, -2)}
    assert data.marks[_at(n, 1, 0)] == MOVE
    assert data.marks[_at(n, 3, 0)] == CAPTURE
    assert _at(n, 2, 0) not in data.marks
    assert _at(n, 1, 1) not in data.marks


def test_grasshopper_lands_only_beyond_its_screen() -> None:
    """A grasshopper (gQ) over the screen two squares away lands on the third square only;
    a hopper with a range of 2 (pB2) jumps an adjacent screen to the second square."""
    p = PieceType("grasshopper", "Grasshopper", "G", (), parse_betza("gQ"))
    n = board_size(p)
    data = diagram_data(p)
    assert _at(n, 2, 0) in data.screens and _at(n, 2, 2) in data.screens
    assert data.marks[_at(n, 3, 0)] == BOTH and data.marks[_at(n, 3, 3)] == BOTH
    assert _at(n, 4, 0) not in data.marks and _at(n, 1, 0) not in data.marks
    short = PieceType("short", "Short", "S", (), parse_betza("pB2"))
    data = diagram_data(short)
    m = board_size(short)
    assert _at(m, 1, 1) in data.screens and data.marks[_at(m, 2, 2)] == BOTH
    assert _at(m, 3, 3) not in data.marks


def test_pawn_moves_captures_and_double_step() -> None:
    p = _piece("chess", "pawn")
    n = board_size(p)
    data = diagram_data(p)
    assert data.marks[_at(n, 0, 1)] == MOVE
    assert data.marks[_at(n, 1, 1)] == CAPTURE and data.marks[_at(n, -1, 1)] == CAPTURE
    assert data.marks[_at(n, 0, 2)] == MOVE and _at(n, 0, 2) in data.faded
    black = diagram_data(p, color=1)
    assert black.marks[_at(n, 0, -1)] == MOVE


def test_bent_rider_paths() -> None:
    p = _piece("bigorra", "G")  # the Eagle
    n = board_size(p)
    data = diagram_data(p)
    assert data.marks[_at(n, 1, 1)] == BOTH
    assert data.marks[_at(n, 1, 4)] == BOTH and data.marks[_at(n, 4, 1)] == BOTH
    assert _at(n, 2, 2) not in data.marks and _at(n, 1, 0) not in data.marks
    assert len(data.paths) == 8
    griffin = diagram_data(_piece("leaping-bat", "GR"))
    m = board_size(_piece("leaping-bat", "GR"))
    assert griffin.marks[_at(m, 1, 1)] == CAPTURE  # Savard's minimum step rule
    assert griffin.marks[_at(m, 1, 3)] == BOTH


def test_long_leapers_and_multi_path_pieces() -> None:
    bat = _piece("leaping-bat", "BA")
    assert board_size(bat) == 17
    data = diagram_data(bat)
    assert data.marks[_at(17, 1, 8)] == BOTH and data.marks[_at(17, -7, -4)] == BOTH
    falcon = diagram_data(_piece("frog-gryphon", "FA"))
    assert len(falcon.marks) == 16 and len(falcon.paths) == 48
    king = diagram_data(_piece("leaping-bat", "K"))  # the once-per-game knight move
    n = board_size(_piece("leaping-bat", "K"))
    assert _at(n, 1, 2) in king.faded and _at(n, 1, 1) not in king.faded


def test_find_piece() -> None:
    v = load_variant("bigorra")
    assert find_piece(v, "eagle").id == "gryphon"
    assert find_piece(v, "G").id == "gryphon"
    assert find_piece(v, "gryphon").id == "gryphon"
    assert find_piece(v, "sq").id == "squirrel"
    assert find_piece(v, "Pawn").id == "pawn"
    with pytest.raises(KeyError, match="no piece 'dragon' in Bigorra"):
        find_piece(v, "dragon")


@pytest.mark.parametrize("variant_id", variant_ids())
def test_every_variant_has_a_legend(variant_id: str) -> None:
    v = load_variant(variant_id)
    legend = piece_legend(v)
    assert [e.piece_id for e in legend] == [p.id for p in v.pieces]
    assert all(e.label for e in legend)
    img = decode(render_legend(v))
    assert img.width <= 1000 and img.height <= 1100


def test_a_confined_piece_is_shown_on_its_own_board_with_its_region() -> None:
    """The Xiangqi Elephant stays on its side of the river: its diagram is the 9x10 board,
    the far half dimmed; the Janggi General sits in its palace with the diagonals."""
    xiangqi = load_variant("xiangqi")
    data = diagram_data(xiangqi.piece("elephant"), variant=xiangqi)
    assert (data.width, data.height) == (9, 10)
    assert len(data.marks) == 4 and len(data.outside) == 45
    janggi = load_variant("janggi")
    king = diagram_data(janggi.piece("general"), variant=janggi)
    assert len(king.marks) == 8  # e2: four steps and four palace diagonals
