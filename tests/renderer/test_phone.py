"""Pictures as a phone shows them (about 450 px wide): letters and coordinates tall enough,
the last move visible on both squares, check unmistakable and distinct from a selection,
Patricia's two-sided pieces and hands, the placement slot and the legend's Pawn."""

from __future__ import annotations

import pytest
from PIL import Image

from renderer import board_view, load_theme, render_board
from renderer.board import LAST_MOVE_RIM
from renderer.from_rules import (
    move_marks,
    piece_legend,
    piece_sprite,
    render_game,
    render_position,
)
from renderer.legend import draw_legend, legend_text
from rules.game import Game
from rules.variant import load_definition, load_variant, variant_ids
from tests.renderer.conftest import decode, layout, near, probe
from tests.renderer.legibility import Measure, measure, start_measures

THEME = load_theme("default")
WIDE = [v for v in variant_ids() if load_variant(v).geometry.files > 12]
MIN_PHONE_PX = 9.0


def _lows(measures: list[Measure]) -> list[str]:
    return [f"{m.where}: {m.phone_px:.1f} px" for m in measures if m.phone_px < MIN_PHONE_PX]


@pytest.mark.parametrize("variant", WIDE)
def test_letters_and_coordinates_are_9_px_tall_at_phone_width(variant: str) -> None:
    measures = start_measures(variant)
    tokens = [m for m in measures if not m.where.startswith(("file", "rank"))]
    files = [m for m in measures if m.where.startswith("file")]
    assert len(tokens) >= 20 and len(files) == load_variant(variant).geometry.files
    assert not _lows(measures), _lows(measures)


def test_wide_boards_are_measured() -> None:
    assert {"bigorra", "leaping-bat"} <= set(WIDE)


def test_letters_stay_legible_after_a_move_in_another_theme() -> None:
    """(The measure tells letters from movement marks by colour, which the contrast theme
    paints alike; its letters are drawn by the same code.)"""
    game = Game.new("bigorra")
    game.play("e5e7")
    view = board_view(game.position)
    assert not _lows(measure(render_game(game, theme="green"), view, "green"))


def test_the_measure_sees_small_letters() -> None:
    """The measure is no rubber stamp: a picture shown wider than its ink allows fails it."""
    game = Game.new("bigorra")
    view = board_view(game.position)
    png = render_game(game)
    # the same picture, read as if shown at 300 px: everything is two thirds as tall
    small = [Measure(m.where, m.phone_px * 300 / 450) for m in measure(png, view)]
    assert _lows(small)


STRIP = """
id = "strip"
name = "Strip"
files = 16
ranks = 1

[pieces]
king = "K"
rook = "R"
dabbaba = { letter = "D", betza = "D" }

[setup]
1 = "K D R . . . . . . . . . . . . ."

[setup.black]
1 = ". . . . . . . . . . . . . R D K"
"""


def test_a_board_of_one_rank_is_legible_with_its_coordinates() -> None:
    """1D Chess's board, at its widest (16x1): a strip that fits a Discord preview, with
    every file letter under its square and the one rank number beside it, 9 px tall."""
    game = Game(load_definition(STRIP, source="strip"))
    view = board_view(game.position)
    png = render_game(game)
    img = decode(png)
    lay = layout(view)
    assert img.size == (lay.width, lay.height) and img.width <= 1000
    assert lay.sq * 16 < img.width and lay.board_h == lay.sq < img.height  # one row of squares
    measures = measure(png, view)
    coords = sorted(m.where for m in measures if m.where.startswith(("file", "rank")))
    assert coords == sorted([f"file {chr(ord('a') + f)}" for f in range(16)] + ["rank 1"])
    assert all(m.phone_px > 0 for m in measures)  # every label has ink
    tokens = sorted(m.where for m in measures if m.where not in coords)
    assert tokens == ["b1 D", "o1 D"]  # the lettered tokens (the King and Rook are drawn)
    assert not _lows(measures), _lows(measures)
    # Black's view reads the rank from the other end: p1 on the left.
    black = layout(view, perspective=1)
    assert black.square_box(15)[0] == black.board_x


def _pixels(img: Image.Image) -> list[tuple[int, int, int]]:
    px = img.convert("RGB").load()
    assert px is not None
    return [px[x, y] for y in range(img.height) for x in range(img.width)]  # type: ignore[misc]


def test_the_last_move_frames_both_squares_even_under_a_token() -> None:
    game = Game.new("patchanka")
    for m in ("e3-e5", "e8-e6", "Hi2-g4", "Wg10-f7"):
        game.play(m)
    (origin, target), placed = move_marks(game.position, game.history[-1].move)
    assert placed is None and game.position.piece_at(target) is not None  # a token on f7
    view = board_view(game.position)
    lay = layout(view)
    img = decode(render_game(game))
    rim = (*THEME.last_move[:3],)
    edge = LAST_MOVE_RIM / 2  # the middle of the frame
    for sq in (origin, target):
        for fx, fy in ((edge, 0.5), (1 - edge, 0.5), (0.5, edge), (0.5, 1 - edge)):
            assert near(probe(img, lay, sq, fx, fy), rim, 10), (sq, fx, fy)
    # the frame is wide enough to read at phone width: 2 px or more at 450 px
    assert lay.sq * LAST_MOVE_RIM * 450 / lay.width >= 2


def test_check_is_red_and_a_selected_king_in_check_keeps_both_marks() -> None:
    game = Game.new("chess")
    for m in ("e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"):
        game.play(m)
    view = board_view(game.position)
    lay = layout(view)
    red = THEME.check[:3]
    green = THEME.destination[:3]
    edge = LAST_MOVE_RIM / 2
    img = decode(render_game(game))
    assert near(probe(img, lay, 60, 0.5, edge), red, 10)  # e8's frame
    assert near(probe(img, lay, 60, edge, 0.5), red, 10)
    both = decode(render_game(game, selected="e8"))
    # red along the edges, green in the corners: neither turns into a muddy mix
    assert near(probe(both, lay, 60, 0.5, edge), red, 10)
    assert near(probe(both, lay, 60, edge, edge), green, 10)
    assert near(probe(both, lay, 60, 1 - edge, 1 - edge), green, 10)
    alone = decode(render_game(game, check=None, selected="e8"))
    assert near(probe(alone, lay, 60, 0.5, edge), green, 10)


def test_a_placement_marks_the_slot_it_filled() -> None:
    game = Game.new("frog-gryphon")
    for m in ("FA@c1", "G@h1", "FA@b9"):
        game.play(m)
    squares, placed = move_marks(game.position, game.history[-1].move)
    assert squares is None and placed == (1, 81)  # behind b9, in Black's strip
    view = board_view(game.position)
    lay = layout(view)
    img = decode(render_game(game))
    x0 = lay.column_x(1)
    y0 = lay.gate_y[1]
    rim = (*THEME.last_move[:3],)
    inset = max(1, round(lay.sq * LAST_MOVE_RIM * 0.4))
    # framed left and right of the piece's tile
    assert near(img.getpixel((x0 + inset, y0 + lay.gate_h // 2)), rim, 10)
    assert near(img.getpixel((x0 + lay.sq - 1 - inset, y0 + lay.gate_h // 2)), rim, 10)
    # the Rook's square b9 itself is not marked
    assert not near(probe(img, lay, 81, 0.5, 0.03), rim, 30)
    with pytest.raises(ValueError, match="no reserve slot"):
        render_board(board_view(Game.new("chess").position), placed=(0, "b1"))


def test_patricia_shows_both_hands_and_two_sided_pieces() -> None:
    variant = load_variant("patricia")
    king = piece_sprite(variant, "king", 0)
    assert king.reverse == "Q" and piece_sprite(variant, "rook", 1).reverse == "B"
    assert piece_sprite(variant, "pawn", 0).reverse == ""
    fixed = load_variant("patricia", ["fixed-king"])
    assert piece_sprite(fixed, "king", 0).reverse == ""
    game = Game.new("patricia")
    for m in ("Bd1-b3", "Bd5-b3", "Kc1-c2", "Rb3-b2", "Qc2xb2", "Kc5-c4"):
        game.play(m)
    view = board_view(game.position)
    assert view.hands is not None and view.hands[0] and view.hands[1]
    lay = layout(view)
    img = decode(render_position(game.position))
    # both strips carry a label at their left (light text on the strip)
    text = THEME.strip_text[:3]
    for color in (0, 1):
        y0 = lay.hand_y[color]
        band = img.crop((lay.board_x, y0, lay.board_x + lay.board_w // 3, y0 + lay.hand_h))
        assert any(near(p, text, 40) for p in _pixels(band)), color
    # the two-sided coin sits in a corner of the King's square, in gold
    king_sq = next(sq for sq, p in view.pieces.items() if p.reverse == "Q")
    gold = THEME.crown[:3]
    corner = img.crop(lay.square_box(king_sq)).crop(
        (lay.sq * 2 // 3, lay.sq * 2 // 3, lay.sq, lay.sq)
    )
    assert sum(near(p, gold, 30) for p in _pixels(corner)) > 20


def test_the_legend_names_the_pawn() -> None:
    entries = piece_legend(load_variant("bigorra"))
    pawn = next(e for e in entries if e.piece_id == "pawn")
    assert legend_text(pawn) == ("Pawn", "no letter in moves")
    king = next(e for e in entries if e.piece_id == "king")
    assert legend_text(king) == ("K", "King (royal)")
    assert all(legend_text(e)[0] not in ("", "-") for e in entries)
    assert draw_legend(load_variant("chess")).width > 0
