"""The games of Asia as their players know them: Xiangqi and Janggi on the lines' crossings
with river and palaces, Shogi's pointed tokens, the traditional characters legible at phone
width, and the letter tokens still there as a choice."""

from __future__ import annotations

import pytest
from PIL import Image

from renderer import board_view, render_board
from renderer.board import LINE, PHONE_LETTER
from renderer.from_rules import piece_sprite, render_game, render_position, traditional_set
from renderer.sprites import PROMOTED_INK, cjk_characters, sprite_image
from renderer.view import PIECE_SETS
from rules.game import Game
from rules.position import Position
from rules.variant import load_variant, variant_ids
from tests.renderer.conftest import RGB, decode, layout, near, pixel
from tests.renderer.legibility import measure_characters

TRADITIONAL = [v for v in variant_ids() if traditional_set(load_variant(v)) is not None]
ASIAN = {
    "xiangqi",
    "minixiangqi",
    "manchu",
    "janggi",
    "janggicasual",
    "janggimodern",
    "janggitraditional",
    "shogi",
    "minishogi",
    "kyotoshogi",
    "micro",
    "dobutsu",
    "euroshogi",
    "judkins",
    "gorogoro",
}


def _centre(lay: object, view_files: int, file: int, rank: int) -> tuple[float, float]:
    x0, y0, x1, y1 = lay.square_box(rank * view_files + file)  # type: ignore[attr-defined]
    return ((x0 + x1) / 2, (y0 + y1) / 2)


def test_every_game_of_asia_has_its_traditional_set() -> None:
    assert set(TRADITIONAL) >= ASIAN
    for vid in ASIAN:
        v = load_variant(vid)
        shape = "disc" if v.display.intersections else "pointed"
        style = traditional_set(v)
        assert style is not None and style.shape == shape, vid
        for p in v.pieces:  # every character is in the shipped font subset
            assert p.glyph is not None and set(p.glyph[0] + p.glyph[1]) <= cjk_characters()


def test_a_piece_without_characters_keeps_the_letter_set() -> None:
    assert traditional_set(load_variant("chess")) is None
    assert traditional_set(load_variant("makruk")) is None


@pytest.mark.parametrize("variant_id", TRADITIONAL)
@pytest.mark.parametrize("pieces", PIECE_SETS)
def test_both_sets_render(variant_id: str, pieces: str) -> None:
    pos = Position.start(variant_id)
    view = board_view(pos)
    img = decode(render_position(pos, pieces=pieces))
    lay = layout(view, pieces=pieces)
    assert img.size == (lay.width, lay.height)
    assert lay.width <= 1000 and lay.height <= 1000


def test_the_setting_switches_the_set() -> None:
    pos = Position.start("xiangqi")
    traditional = decode(render_position(pos))
    letters = decode(render_position(pos, pieces="letters"))
    lay = layout(board_view(pos))
    # e1: Red's General, a character in red ink on an ivory disc; a white tile as a letter.
    red = _count_near(traditional, lay.square_box(4), (200, 16, 46), 40)
    assert red > 30
    assert _count_near(letters, lay.square_box(4), (200, 16, 46), 40) == 0
    with pytest.raises(ValueError, match="piece set"):
        render_position(pos, pieces="kanji")


def _count_near(img: Image.Image, box: tuple[int, int, int, int], color: RGB, tol: int) -> int:
    x0, y0, x1, y1 = box
    return sum(
        1 for y in range(y0, y1) for x in range(x0, x1) if near(pixel(img, x, y), color, tol)
    )


def test_xiangqi_is_drawn_on_the_crossings_with_river_and_palaces() -> None:
    pos = Position.start("xiangqi")
    view = board_view(pos)
    assert view.lines is not None and view.lines.river == 5
    assert view.lines.palaces == ((3, 0, 5, 2), (3, 7, 5, 9))
    img = decode(render_position(pos))
    lay = layout(view)
    w = view.files

    def at(file: float, rank: float) -> RGB:
        (ax, ay), (bx, by) = _centre(lay, w, 0, 0), _centre(lay, w, 1, 1)
        return pixel(img, ax + file * (bx - ax), ay + rank * (by - ay))

    line = LINE
    # Empty crossings: lines meet there (d5, f6); halfway between two files on a rank: a line.
    assert near(at(3, 4), line, 40) and near(at(5, 5), line, 40)
    assert near(at(3.5, 4), line, 40)
    # The river: the inner files break between ranks 5 and 6, the edge files go through.
    assert not near(at(2, 4.5), line, 60)
    assert near(at(0, 4.5), line, 40) and near(at(8, 4.5), line, 40)
    # The palaces' diagonals: halfway from e2 to d3, and from e9 to f8.
    assert near(at(3.5, 1.5), line, 40) and near(at(4.5, 7.5), line, 40)
    # Off the palace, the middle of a cell is wood (c2-d3).
    assert not near(at(2.5, 1.5), line, 60)
    # WXF's file numbers: Red counts from its right (9 at a), Black from its own right.
    assert view.lines.side_files is not None
    assert view.lines.side_files[0][0] == "9" and view.lines.side_files[1][0] == "1"


def test_janggi_has_no_river_and_numbers_its_rows() -> None:
    view = board_view(Position.start("janggi"))
    assert view.lines is not None and view.lines.river is None
    assert view.lines.marks == ()  # Janggi boards print no points
    assert view.lines.row_labels is not None
    assert view.lines.row_labels[0] == "0" and view.lines.row_labels[9] == "1"  # a1 is 01
    assert view.traditional is not None and view.traditional.ink == ("#1b6e3a", "#c8102e")


@pytest.mark.parametrize(
    "variant_id", ["xiangqi", "janggi", "minixiangqi", "shogi", "judkins", "dobutsu"]
)
def test_characters_are_legible_at_phone_width(variant_id: str) -> None:
    game = Game.new(variant_id)
    view = board_view(game.position)
    found = measure_characters(render_game(game), view)
    assert len(found) == len(view.pieces)
    low = [f"{m.where}: {m.phone_px:.1f}" for m in found if m.phone_px < PHONE_LETTER]
    assert not low, low
    # ... and the measure is no rubber stamp: a character is far from the whole square.
    lay = layout(view)
    assert max(m.phone_px for m in found) < lay.sq * 450 / lay.width * 0.7


def test_shogi_tokens_point_at_the_opponent_and_promoted_pieces_are_red() -> None:
    v = load_variant("shogi")
    style = traditional_set(v)
    assert style is not None
    pawn = piece_sprite(v, "shogi-pawn", 0)
    up = sprite_image(pawn, 80, "default", False, 0, style)
    down = sprite_image(pawn, 80, "default", True, 0, style)
    assert up.rotate(180).tobytes() == down.tobytes()
    # The point is at the top of the token pointing up: the top row's middle is wood,
    # its corners are transparent.
    assert up.getpixel((40, 8))[3] == 255  # type: ignore[index]
    assert up.getpixel((10, 8))[3] == 0  # type: ignore[index]
    tokin = piece_sprite(v, "tokin", 1)
    assert tokin.promoted and not pawn.promoted
    red = tuple(int(PROMOTED_INK[i : i + 2], 16) for i in (1, 3, 5))
    img = sprite_image(tokin, 80, "default", False, 0, style).convert("RGB")
    assert _count_near(img, (20, 20, 60, 70), red, 50) > 20  # type: ignore[arg-type]
    plain = sprite_image(pawn, 80, "default", False, 0, style).convert("RGB")
    assert _count_near(plain, (20, 20, 60, 70), red, 50) == 0  # type: ignore[arg-type]


def test_shogi_hands_show_traditional_pieces_with_counts() -> None:
    game = Game.new("shogi")
    for m in ("c3c4", "g7g6", "b2h8+", "g9h8"):
        game.play(m)
    view = board_view(game.position)
    assert view.hands is not None and [h.sprite.characters for h in view.hands[1]] == ["角"]
    img = decode(render_game(game))
    lay = layout(view)
    assert lay.plain  # Shogi's wooden board under the traditional tokens
    assert img.size == (lay.width, lay.height)


def test_a_hand_made_view_without_characters_draws_letters() -> None:
    """A front end that builds its own view (no `traditional`) gets the letter tokens."""
    pos = Position.start("shogi")
    view = board_view(pos)
    bare = type(view)(view.files, view.ranks, view.pieces, view.hands)
    assert decode(render_board(bare)).size == decode(render_board(view, pieces="letters")).size


def test_xiangqi_marks_the_cannons_and_soldiers_points() -> None:
    v = load_variant("xiangqi")
    geo = v.geometry
    names = {geo.name(sq) for sq in v.display.marks}
    assert {"b3", "h3", "a4", "i4", "b8", "h8", "a7", "e7"} <= names and len(names) == 14
    game = Game.new("xiangqi")
    game.play("h3e3")  # the Cannon leaves h3: its point shows
    view = board_view(game.position)
    img = decode(render_game(game, last_move=None))  # h3 untinted
    lay = layout(view)
    cx, cy = _centre(lay, view.files, 7, 2)
    s = lay.sq

    def arm(x: float, y: float) -> bool:  # a line within 2 px of (x, y), up or down
        return any(near(pixel(img, x, y + d), LINE, 40) for d in (-2, -1, 0, 1, 2))

    # a corner's horizontal arm, right of and above the crossing; nothing there on d3's
    assert arm(cx + s * 0.14, cy - s * 0.07)
    dx, dy = _centre(lay, view.files, 3, 2)
    assert not arm(dx + s * 0.14, dy - s * 0.07)
