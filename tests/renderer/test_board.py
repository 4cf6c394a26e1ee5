"""Board pictures: sizes, perspective, highlights, hands and reserve pieces."""

from __future__ import annotations

import pytest

from renderer import BoardView, HandPiece, PieceSprite, board_view, load_theme, render_board
from renderer.board import MAX_SQUARE, square_size
from renderer.from_rules import (
    check_square,
    destinations,
    last_move_squares,
    render_game,
    render_position,
)
from renderer.theme import ThemeError, theme_names
from rules.game import Game
from rules.position import Position
from rules.variant import load_variant, variant_ids
from tests.renderer.conftest import blend, decode, layout, near, pixel, probe

THEME = load_theme("default")
LIGHT = THEME.light[:3]
DARK = THEME.dark[:3]


@pytest.mark.parametrize("variant_id", variant_ids())
def test_every_start_position_renders_at_the_expected_size(variant_id: str) -> None:
    pos = Position.start(variant_id)
    view = board_view(pos)
    png = render_position(pos)
    img = decode(png)
    lay = layout(view)
    assert img.size == (lay.width, lay.height)
    geo = load_variant(variant_id).geometry
    assert lay.sq * geo.files < img.width <= 1000
    assert img.height <= 1000
    # Large enough to stay sharp in a Discord preview, small enough to fit.
    assert lay.sq >= 56
    assert len(png) < 150_000
    if lay.lines is not None or lay.plain:
        # Xiangqi's lines, Shogi's wooden face under the traditional pieces: no dark squares.
        assert near(probe(img, lay, 0, 0.08, 0.08), LIGHT, 6)
    else:
        # a1 is a dark square (spec §1.2), seen in a corner of a1 left uncovered by pieces.
        assert near(probe(img, lay, 0, 0.02, 0.02), DARK, 6)


def test_square_sizes() -> None:
    assert square_size(8, 8) == MAX_SQUARE
    assert 56 <= square_size(16, 16) <= 62
    assert 70 <= square_size(12, 12) <= 82
    assert square_size(5, 5) == MAX_SQUARE


def test_bigorra_start_is_small_and_sharp() -> None:
    png = render_position(Position.start("bigorra"))
    assert len(png) < 250_000
    img = decode(png)
    assert 900 <= img.width <= 1000


def test_perspective_flips_the_board() -> None:
    pos = Position.start("chess")
    view = board_view(pos)
    white = decode(render_position(pos, perspective=0))
    black = decode(render_position(pos, perspective=1))
    lay_w, lay_b = layout(view, 0), layout(view, 1)
    fill_w, fill_b = THEME.white_fill[:3], THEME.black_fill[:3]
    e1 = 4  # the White King's square; its body is at the middle of the square
    assert lay_w.square_box(e1)[1] > lay_w.square_box(60)[1]  # e1 below e8
    assert lay_b.square_box(e1)[1] < lay_b.square_box(60)[1]  # e1 above e8
    assert near(probe(white, lay_w, e1, 0.5, 0.6), fill_w, 20)
    assert near(probe(black, lay_b, e1, 0.5, 0.6), fill_w, 20)
    # The screen's bottom-left square: a1 (dark) for White, h8 (dark) for Black, with
    # White's rook there for White and Black's rook for Black.
    bottom_left = (lay_w.board_x + 3, lay_w.board_y + lay_w.board_h - 3)
    assert near(pixel(white, *bottom_left), DARK, 6)
    assert near(probe(white, lay_w, 0, 0.5, 0.62), fill_w, 25)
    assert near(probe(black, lay_b, 63, 0.5, 0.62), fill_b, 25)
    assert lay_b.square_box(63)[0] == lay_b.board_x  # h8 is on the left for Black
    assert white.tobytes() != black.tobytes()


def test_coordinates_follow_the_perspective() -> None:
    view = board_view(Position.start("chess"))
    plain = decode(render_board(view, coordinates=False))
    with_coords = decode(render_board(view))
    assert plain.size[0] < with_coords.size[0]
    lay_w, lay_b = layout(view, 0), layout(view, 1)
    # The file letters sit under the columns: under a1 for White, under h8 for Black.
    img_w = decode(render_board(view, perspective=0))
    img_b = decode(render_board(view, perspective=1))
    band_w = img_w.crop((lay_w.board_x, lay_w.file_y, lay_w.board_x + lay_w.sq, lay_w.height))
    band_b = img_b.crop((lay_b.board_x, lay_b.file_y, lay_b.board_x + lay_b.sq, lay_b.height))
    assert band_w.tobytes() != band_b.tobytes()  # 'a' on one, 'h' on the other


def test_last_move_and_check_are_marked_where_they_belong() -> None:
    game = Game.new("chess")
    for m in ("e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"):
        game.play(m)
    assert last_move_squares(game) == (39, 53)  # h5, f7
    assert check_square(game.position) == 60  # e8
    view = board_view(game.position)
    lay = layout(view)
    img = decode(render_game(game))
    tint = THEME.last_move
    # h5 (now empty) is tinted all over; f7 (the Queen) around the piece. Both are light.
    assert near(probe(img, lay, 39, 0.5, 0.5), blend(LIGHT, tint), 8)
    assert near(probe(img, lay, 53, 0.25, 0.12), blend(LIGHT, tint), 8)
    # An untouched square keeps its colour.
    assert near(probe(img, lay, 35, 0.5, 0.5), LIGHT, 4)  # d5
    # The King's square glows red beside the King; the other squares do not.
    glow = probe(img, lay, 60, 0.12, 0.5)
    assert glow[0] - glow[1] > LIGHT[0] - LIGHT[1] + 40
    plain = decode(render_game(game, check=None, last_move=None))
    assert near(probe(plain, lay, 60, 0.12, 0.5), LIGHT, 4)
    assert near(probe(plain, lay, 39, 0.5, 0.5), LIGHT, 4)


def test_highlighted_destinations() -> None:
    game = Game.new("chess")
    for m in ("e2e4", "d7d5"):
        game.play(m)
    moves, captures = destinations(game.position, "e4")
    assert moves == [36] and captures == [35]  # e5; d5
    view = board_view(game.position)
    lay = layout(view)
    img = decode(render_board(view, highlights=moves, captures=captures))
    dot = probe(img, lay, 36, 0.5, 0.5)
    assert near(dot, blend(DARK, THEME.destination), 10)
    assert near(probe(img, lay, 36, 0.1, 0.1), DARK, 4)  # a dot, not a filled square
    corner = probe(img, lay, 35, 0.04, 0.04)
    assert near(corner, blend(LIGHT, THEME.capture), 10)
    assert near(probe(img, lay, 35, 0.5, 0.04), LIGHT, 4)  # corners only
    # The selected piece's square is tinted, the piece kept.
    chosen = decode(render_board(view, highlights=moves, captures=captures, selected="e4"))
    assert near(probe(chosen, lay, 28, 0.08, 0.08), blend(LIGHT, THEME.destination), 10)
    assert near(probe(img, lay, 28, 0.08, 0.08), LIGHT, 4)
    # Squares by name work too, and an occupied square in `highlights` is a capture.
    by_name = decode(render_board(view, highlights=["e5", "d5"]))
    assert by_name.tobytes() == img.tobytes()


def test_bad_squares_and_themes_are_refused() -> None:
    view = board_view(Position.start("chess"))
    with pytest.raises(ValueError, match="not a square"):
        render_board(view, highlights=["z9"])
    with pytest.raises(ValueError, match="off the"):
        render_board(view, check=64)
    with pytest.raises(ThemeError, match="unknown theme"):
        render_board(view, theme="nope")
    with pytest.raises(ValueError, match="perspective"):
        render_board(view, perspective=2)


@pytest.mark.parametrize("theme", theme_names())
def test_every_theme_draws_a_board(theme: str) -> None:
    png = render_position(Position.start("heavy-shako"), theme=theme)
    assert decode(png).size[0] > 800


def test_hands_are_drawn_beside_the_board() -> None:
    game = Game.new("patricia")
    for m in ("Bd1-b3", "Bd5-b3", "Kc1-c2", "Rb3-b2"):
        game.play(m)
    view = board_view(game.position)
    assert view.hands is not None
    assert [(h.sprite.name, h.count) for h in view.hands[1]] == [("Rook", 1), ("Pawn", 1)]
    assert view.hands[0] == ()
    lay = layout(view)
    assert lay.hand_h > 0
    assert lay.hand_y[1] < lay.board_y < lay.hand_y[0]  # Black's hand on top for White
    img = decode(render_game(game))
    assert img.size == (lay.width, lay.height)
    flipped = layout(view, 1)
    assert flipped.hand_y[0] < flipped.board_y < flipped.hand_y[1]


def test_hand_counts() -> None:
    pawn = PieceSprite("", "Pawn", 0, figure="pawn")
    one = BoardView(5, 5, hands=((HandPiece(pawn, 1),), ()))
    two = BoardView(5, 5, hands=((HandPiece(pawn, 2),), ()))
    assert decode(render_board(one)).tobytes() != decode(render_board(two)).tobytes()


def test_reserve_pieces_wait_behind_their_files() -> None:
    game = Game.new("frog-gryphon")
    start = board_view(game.position)
    assert start.placing and len(start.reserve[0]) == 2
    lay0 = layout(start)
    assert lay0.gate_h > 0 and lay0.pocket_w > 0
    for m in ("FA@c1", "G@h1", "FA@b9", "G@i9"):
        game.play(m)
    view = board_view(game.position)
    assert not view.placing
    assert {sq: p.name for sq, p in view.gates[0].items()} == {2: "Falcon", 7: "Gryphon"}
    lay = layout(view)
    assert lay.gate_h > 0 and lay.pocket_w == 0
    img = decode(render_game(game))
    assert img.size == (lay.width, lay.height)
    # The Falcon's slot sits under c1, in the strip below the board.
    x0, _y0, x1, _y1 = lay.square_box(2)
    strip_y = lay.gate_y[0] + lay.gate_h // 2
    centre = img.getpixel(((x0 + x1) // 2, strip_y))
    empty = img.getpixel(((x0 + x1) // 2 + lay.sq, strip_y))  # under d1: nothing waits
    assert centre != empty
    assert lay.board_y + lay.board_h < lay.gate_y[0] < lay.file_y


def test_views_are_plain_data() -> None:
    with pytest.raises(ValueError, match="color"):
        PieceSprite("A", "x", 2)
    with pytest.raises(ValueError, match="figure"):
        PieceSprite("A", "x", 0, figure="dragon")
    with pytest.raises(ValueError, match="off the"):
        BoardView(5, 5, pieces={25: PieceSprite("A", "x", 0)})
    view = BoardView(5, 5)
    assert view.parse_square("e5") == 24 and view.square_name(24) == "e5"


def test_pictures_of_one_variant_share_a_palette_that_keeps_every_mark() -> None:
    """The palette is learnt once per variant and theme (not per picture), from a board with
    every kind of mark: a later picture with a check, a last move and destinations keeps
    those colours as the RGB drawing has them."""
    from PIL import ImageChops

    from renderer import board

    game = Game.new("chess")
    for text in ("e4", "f5", "Qh5"):
        game.play(text)
    board._palettes.clear()
    render_position(Game.new("chess").position)  # learns the palette
    assert len(board._palettes) == 1
    marks = {"last_move": ("d1", "h5"), "check": "e8", "highlights": ("g6", "f7")}
    png = render_position(game.position, **marks)  # type: ignore[arg-type]
    assert len(board._palettes) == 1
    drawn = board.draw_board(board_view(game.position), **marks)  # type: ignore[arg-type]
    diff = ImageChops.difference(decode(png).convert("RGB"), drawn).convert("L")
    counts = diff.histogram()
    assert max(i for i, n in enumerate(counts) if n) <= 64  # an edge pixel's shade at most
    assert sum(i * n for i, n in enumerate(counts)) / sum(counts) < 2
