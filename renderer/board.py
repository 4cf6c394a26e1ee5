"""Board pictures: `render_board(view, ...) -> PNG bytes`.

The picture is built in layers, as python-chess's `chess.svg` builds its SVG: a cached
background (frame, squares, coordinates, empty strips for hands and reserve pieces),
then square tints (last move), the check glow, the pieces, the destination marks, and
finally it is reduced to a palette and written as PNG, which keeps a 16x16 board near
100 KB without blurring anything. The palette is learnt once per variant and theme
(`palette_key`), not for every picture: learning one cost 12-15 ms of a 16x16 picture,
mapping to a known one about 1.5 ms.
"""

from __future__ import annotations

import io
import math
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from renderer.sprites import font, sprite_image
from renderer.theme import RGBA, Theme, load_theme
from renderer.view import PIECE_SETS, BoardView, Lines, Traditional

Square = int | str
MAX_WIDTH = 980  # the picture fits a box about 1000 px wide and high
MAX_SQUARE = 96
MIN_SQUARE = 24
PAD = 0.14  # outer padding, in squares
COORD = 0.42  # the margin holding coordinates, in squares (at least: see `coordinate_fonts`)
HAND = 0.8  # height of a hand strip, in squares
GATE = 0.72  # height of a reserve strip, in squares
GAP = 0.1  # between the board and a strip, in squares

# Discord shows a picture about 400-550 px wide on a phone. Everything a player must read
# (letters on tokens, coordinates) is sized so that its ink is at least PHONE_LETTER px
# tall when the whole picture is shown PHONE_WIDTH px wide (tests/renderer measure it).
PHONE_WIDTH = 450
PHONE_LETTER = 9.6
X_HEIGHT = 0.547  # DejaVu Sans Bold: height of "x" per pixel of font size
CAP_HEIGHT = 0.729  # and of "H" and the digits
NUMBERS = 0.42  # a band of file numbers above or below a board of lines, in squares
WALL_FILL = (76, 82, 94)  # a wall square: dark slate, apart from squares and frame alike
WALL_MARK = (196, 200, 208)  # its cross, light enough to read at phone width
LAST_MOVE_RIM = 0.085  # the last move's frame, in squares: wider than a token's margin


def phone_px(width: int) -> float:
    """Picture pixels per pixel seen on a phone, for a picture `width` px wide."""
    return width / PHONE_WIDTH


def coordinate_fonts(width: int, sq: int) -> tuple[int, int]:
    """Font sizes of the file letters (lower case: their x-height counts) and the rank
    numbers, legible at phone width and never smaller than a quarter of a square."""
    need = PHONE_LETTER * phone_px(width)
    base = round(sq * 0.26)
    return max(base, math.ceil(need / X_HEIGHT)), max(base, math.ceil(need / CAP_HEIGHT))


def letter_min_cap(width: int) -> int:
    """The least capital height of a token's letters in a picture `width` px wide."""
    return math.ceil(PHONE_LETTER * phone_px(width))


def _margins(files: int, ranks: int, width: int, sq: int) -> tuple[int, int]:
    """The left margin (rank numbers) and the bottom band (file letters), in pixels."""
    file_px, rank_px = coordinate_fonts(width, sq)
    widest = font("bold", rank_px).getbbox(str(ranks), anchor="ls")
    left = math.ceil(widest[2] - widest[0]) + round(rank_px * 0.6)
    bottom = round(file_px * 1.12)  # ascenders and descenders (b, p, j)
    floor = round(COORD * sq)
    return max(floor, left), max(floor, bottom)


def square_size(files: int, ranks: int, extra_w: float = 0.0, extra_h: float = 0.0) -> int:
    """The side of a square so that the whole picture fits `MAX_WIDTH` both ways, with
    coordinate margins as wide as legibility on a phone asks."""
    sq = max(MIN_SQUARE, min(MAX_SQUARE, int(MAX_WIDTH / max(files + 1, ranks + 1))))
    for _ in range(4):  # margins depend on the width, the width on the square: settle
        width = round((files + PAD + extra_w) * sq) + _margins(files, ranks, MAX_WIDTH, sq)[0]
        left, bottom = _margins(files, ranks, max(width, 1), sq)
        fit_w = (MAX_WIDTH - left) / (files + PAD + extra_w)
        fit_h = (MAX_WIDTH - bottom) / (ranks + PAD + extra_h)
        sq = max(MIN_SQUARE, min(MAX_SQUARE, int(min(fit_w, fit_h))))
    return sq


@dataclass(frozen=True, slots=True)
class Layout:
    """Where everything goes, in pixels."""

    files: int
    ranks: int
    sq: int
    width: int
    height: int
    board_x: int
    board_y: int
    perspective: int
    coordinates: bool
    hand_h: int  # 0: no hands
    gate_h: int  # 0: no reserve strips
    pocket_w: int  # 0: no unplaced reserve pieces
    hand_y: tuple[int, int]  # top of each side's hand strip (by colour)
    gate_y: tuple[int, int]  # top of each side's reserve strip (by colour)
    file_y: int  # top of the file-letter band
    gap: int
    band: int = 0  # height of the file-letter band
    file_font: int = 0
    rank_font: int = 0
    shogi: bool = False  # Shogi's coordinates: files numbered from the right, ranks a.. down
    lines: Lines | None = None  # a board of lines (Xiangqi, Janggi)
    number_y: tuple[int, int] = (0, 0)  # top of each side's file-number band (by colour)
    right: int = 0  # width of the band right of the board (Janggi's row numbers)
    plain: bool = False  # one wooden colour with lines between the squares (a Shogi board)

    def square_box(self, sq: int) -> tuple[int, int, int, int]:
        f = sq % self.files
        r = sq // self.files
        if self.perspective == 0:
            col, row = f, self.ranks - 1 - r
        else:
            col, row = self.files - 1 - f, r
        x = self.board_x + col * self.sq
        y = self.board_y + row * self.sq
        return (x, y, x + self.sq, y + self.sq)

    def column_x(self, file: int) -> int:
        col = file if self.perspective == 0 else self.files - 1 - file
        return self.board_x + col * self.sq

    @property
    def board_w(self) -> int:
        return self.files * self.sq

    @property
    def board_h(self) -> int:
        return self.ranks * self.sq


def _pocket_slots(view: BoardView) -> int:
    return max(len(view.reserve[0]), len(view.reserve[1])) if view.placing else 0


def layout_for(
    view: BoardView, perspective: int, coordinates: bool, pieces: str = "traditional"
) -> Layout:
    """Where everything goes; `pieces` (the piece set) decides a Shogi board's face: one
    wooden colour with lines under the traditional tokens, chequered under letters."""
    style = view.traditional if pieces == "traditional" else None
    plain = style is not None and style.shape == "pointed" and view.lines is None
    hands = view.hands is not None
    gates = view.shows_reserve
    slots = _pocket_slots(view)
    numbers = coordinates and view.lines is not None and view.lines.side_files is not None
    rows = coordinates and view.lines is not None and view.lines.row_labels is not None
    extra_h = (2 * (HAND + GAP) if hands else 0) + (2 * (GATE + GAP) if gates else 0)
    extra_h += 2 * NUMBERS if numbers else 0
    extra_w = (slots * GATE + 2 * GAP) if slots else 0.0
    extra_w += NUMBERS if rows else 0
    sq = square_size(view.files, view.ranks, extra_w, extra_h)
    pad = round(PAD * sq)
    margin = band = pad
    file_font = rank_font = 0
    if coordinates:
        rough = round((view.files + PAD + extra_w) * sq) + 2 * round(COORD * sq)
        margin, band = _margins(view.files, view.ranks, rough, sq)
        width = margin + round((view.files + PAD + extra_w) * sq)
        margin, band = _margins(view.files, view.ranks, width, sq)
        width = margin + round((view.files + PAD + extra_w) * sq)
        file_font, rank_font = coordinate_fonts(width, sq)
        if view.shogi_coordinates:  # the ranks are lower-case letters: their x-height counts
            rank_font = max(rank_font, file_font)
    gap = round(GAP * sq)
    hand_h = round(HAND * sq) if hands else 0
    gate_h = round(GATE * sq) if gates else 0
    pocket_w = round(slots * GATE * sq) + 2 * gap if slots else 0
    top_side = 1 - perspective
    bottom_side = perspective
    y = pad
    hand_y = [0, 0]
    gate_y = [0, 0]
    number_y = [0, 0]
    if hands:
        hand_y[top_side] = y
        y += hand_h + gap
    if numbers:
        number_y[top_side] = y
        y += band
    if gates:
        gate_y[top_side] = y
        y += gate_h + gap
    board_y = y
    y += view.ranks * sq
    if gates:
        y += gap
        gate_y[bottom_side] = y
        y += gate_h
    file_y = y
    y += band
    if numbers:
        number_y[bottom_side] = y
        y += band
    if hands:
        hand_y[bottom_side] = y
        y += hand_h + gap
    height = y + (pad if not hands else 0)
    right = margin if rows else 0
    width = margin + view.files * sq + pad + pocket_w + right
    return Layout(
        files=view.files,
        ranks=view.ranks,
        sq=sq,
        width=width,
        height=height,
        board_x=margin,
        board_y=board_y,
        perspective=perspective,
        coordinates=coordinates,
        hand_h=hand_h,
        gate_h=gate_h,
        pocket_w=pocket_w,
        hand_y=(hand_y[0], hand_y[1]),
        gate_y=(gate_y[0], gate_y[1]),
        file_y=file_y,
        gap=gap,
        band=band,
        file_font=file_font,
        rank_font=rank_font,
        shogi=view.shogi_coordinates,
        lines=view.lines,
        number_y=(number_y[0], number_y[1]),
        right=right,
        plain=plain,
    )


def _rgb(c: RGBA) -> tuple[int, int, int]:
    return (c[0], c[1], c[2])


@lru_cache(maxsize=16)  # about 3 MB each at 1000 x 1000
def _background(layout: Layout, theme_name: str) -> Image.Image:
    theme = load_theme(theme_name)
    img = Image.new("RGB", (layout.width, layout.height), _rgb(theme.frame))
    draw = ImageDraw.Draw(img)
    if layout.lines is not None:
        _draw_lines(draw, layout, layout.lines, theme)
    elif layout.plain:
        _draw_grid(draw, layout, theme)
    else:
        for sq in range(layout.files * layout.ranks):
            f, r = sq % layout.files, sq // layout.files
            dark = (f + r) % 2 == 0  # a1 is dark (spec §1.2)
            x0, y0, x1, y1 = layout.square_box(sq)
            fill = _rgb(theme.dark if dark else theme.light)
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=fill)
    s = layout.sq
    strip = _rgb(theme.strip)
    radius = max(2, s // 10)
    for color in (0, 1):
        if layout.hand_h:
            y = layout.hand_y[color]
            x1 = layout.board_x + layout.board_w - 1
            draw.rounded_rectangle(
                (layout.board_x, y, x1, y + layout.hand_h - 1), radius, fill=strip
            )
        if layout.gate_h:
            y = layout.gate_y[color]
            x1 = layout.board_x + layout.board_w - 1
            draw.rounded_rectangle(
                (layout.board_x, y, x1, y + layout.gate_h - 1), radius, fill=strip
            )
            if layout.pocket_w:
                px0 = layout.board_x + layout.board_w + layout.gap
                draw.rounded_rectangle(
                    (px0, y, px0 + layout.pocket_w - layout.gap - 1, y + layout.gate_h - 1),
                    radius,
                    fill=strip,
                    outline=_rgb(theme.crown),
                    width=max(1, s // 40),
                )
    if layout.coordinates:
        text_color = _rgb(theme.coordinates)
        file_font = font("bold", layout.file_font)
        rank_font = font("bold", layout.rank_font)
        # File letters sit on one baseline (x-height centred in the band); rank numbers
        # are centred on their rank, right-aligned against the board.
        baseline = layout.file_y + (layout.band + layout.file_font * X_HEIGHT) / 2
        for file in range(layout.files):
            x = layout.column_x(file) + s / 2
            label = str(layout.files - file) if layout.shogi else chr(ord("a") + file)
            draw.text((x, baseline), label, font=file_font, fill=text_color, anchor="ms")
        right = layout.board_x - round(layout.rank_font * 0.3)
        for rank in range(layout.ranks):
            _x0, y0, _x1, _y1 = layout.square_box(rank * layout.files)
            draw.text(
                (right, y0 + (s + layout.rank_font * CAP_HEIGHT) / 2),
                chr(ord("a") + layout.ranks - 1 - rank) if layout.shogi else str(rank + 1),
                font=rank_font,
                fill=text_color,
                anchor="rs",
            )
        _draw_numbers(draw, layout, rank_font, text_color)
    return img


LINE = (74, 46, 20)  # the lines of a board of lines, on the light squares' colour
RIVER_WORDS = ("楚河", "漢界")  # written in the river, left and right, as on a Xiangqi board


def _centre(layout: Layout, file: int, rank: int) -> tuple[float, float]:
    x0, y0, x1, y1 = layout.square_box(rank * layout.files + file)
    return ((x0 + x1) / 2, (y0 + y1) / 2)


def _draw_lines(draw: ImageDraw.ImageDraw, layout: Layout, lines: Lines, theme: Theme) -> None:
    """A Xiangqi or Janggi board: the lines through the squares' middles on one wooden
    face, a frame around them, the river's break in the inner files and the palaces'
    diagonals. The squares stay the cells around the crossings (marks tint them)."""
    x0, y0 = layout.board_x, layout.board_y
    draw.rectangle(
        (x0, y0, x0 + layout.board_w - 1, y0 + layout.board_h - 1), fill=_rgb(theme.light)
    )
    w = max(1, round(layout.sq * 0.028))
    last_f, last_r = layout.files - 1, layout.ranks - 1
    for rank in range(layout.ranks):
        draw.line([_centre(layout, 0, rank), _centre(layout, last_f, rank)], fill=LINE, width=w)
    for file in range(layout.files):
        spans = [(0, last_r)]
        if lines.river is not None and 0 < file < last_f:
            spans = [(0, lines.river - 1), (lines.river, last_r)]
        for a, b in spans:
            draw.line([_centre(layout, file, a), _centre(layout, file, b)], fill=LINE, width=w)
    for f0, r0, f1, r1 in lines.palaces:
        draw.line([_centre(layout, f0, r0), _centre(layout, f1, r1)], fill=LINE, width=w)
        draw.line([_centre(layout, f0, r1), _centre(layout, f1, r0)], fill=LINE, width=w)
    for sq in lines.marks:
        _corner_marks(draw, layout, sq % layout.files, sq // layout.files, w)
    # The frame: a heavier line just outside the outer lines, as printed boards have.
    (ax, ay), (bx, by) = _centre(layout, 0, 0), _centre(layout, last_f, last_r)
    gap = layout.sq * 0.07
    box = (min(ax, bx) - gap, min(ay, by) - gap, max(ax, bx) + gap, max(ay, by) + gap)
    draw.rectangle(box, outline=LINE, width=max(2, round(w * 1.6)))
    if lines.river is not None and layout.files >= 7:
        _, ya = _centre(layout, 0, lines.river - 1)
        _, yb = _centre(layout, 0, lines.river)
        f = font("cjk", round(abs(yb - ya) * 0.52))
        cols = layout.files
        for word, at in zip(RIVER_WORDS, (cols * 0.28, cols * 0.72), strict=True):
            x = layout.board_x + at * layout.sq
            draw.text((x, (ya + yb) / 2), "  ".join(word), font=f, fill=LINE, anchor="mm")


def _draw_grid(draw: ImageDraw.ImageDraw, layout: Layout, theme: Theme) -> None:
    """A Shogi board: one wooden face, the squares divided by thin lines, a heavier frame."""
    x0, y0 = layout.board_x, layout.board_y
    x1, y1 = x0 + layout.board_w - 1, y0 + layout.board_h - 1
    draw.rectangle((x0, y0, x1, y1), fill=_rgb(theme.light))
    w = max(1, round(layout.sq * 0.02))
    for i in range(1, layout.files):
        x = x0 + i * layout.sq
        draw.line([(x, y0), (x, y1)], fill=LINE, width=w)
    for i in range(1, layout.ranks):
        y = y0 + i * layout.sq
        draw.line([(x0, y), (x1, y)], fill=LINE, width=w)
    draw.rectangle((x0, y0, x1, y1), outline=LINE, width=max(2, round(w * 1.6)))


def _corner_marks(draw: ImageDraw.ImageDraw, layout: Layout, file: int, rank: int, w: int) -> None:
    """Four small corners around a crossing, as Xiangqi boards mark the Cannons' and the
    Soldiers' points (only on the sides that are not the board's edge)."""
    cx, cy = _centre(layout, file, rank)
    gap, arm = layout.sq * 0.07, layout.sq * 0.13
    for dx in (-1, 1):
        if not 0 <= file + dx < layout.files:
            continue
        for dy in (-1, 1):
            x, y = cx + dx * gap, cy + dy * gap
            draw.line([(x + dx * arm, y), (x, y), (x, y + dy * arm)], fill=LINE, width=w)


def _draw_numbers(
    draw: ImageDraw.ImageDraw,
    layout: Layout,
    number_font: ImageFont.FreeTypeFont,
    color: tuple[int, int, int],
) -> None:
    """The file numbers each side counts (WXF, Janggi), in a band on its own side of the
    board, and Janggi's row numbers right of the board."""
    lines = layout.lines
    if lines is None:
        return
    s = layout.sq
    if lines.side_files is not None:
        for side in (0, 1):
            y = layout.number_y[side] + (layout.band + layout.rank_font * CAP_HEIGHT) / 2
            for file, label in enumerate(lines.side_files[side]):
                x = layout.column_x(file) + s / 2
                draw.text((x, y), label, font=number_font, fill=color, anchor="ms")
    if lines.row_labels is not None:
        left = layout.board_x + layout.board_w + round(PAD * s) + round(layout.rank_font * 0.3)
        for rank, label in enumerate(lines.row_labels):
            _x0, y0, _x1, _y1 = layout.square_box(rank * layout.files)
            y = y0 + (s + layout.rank_font * CAP_HEIGHT) / 2
            draw.text((left, y), label, font=number_font, fill=color, anchor="ls")


@lru_cache(maxsize=64)
def _mask(w: int, h: int, alpha: int) -> Image.Image:
    return Image.new("L", (w, h), alpha)


@lru_cache(maxsize=32)
def _glow(size: int, color: RGBA) -> Image.Image:
    """A radial red glow filling a square, strongest in the middle (lichess's check)."""
    img = Image.new("RGBA", (size, size), (*color[:3], 0))
    alpha = Image.radial_gradient("L").resize((size, size), Image.Resampling.BILINEAR)
    # radial_gradient is 0 in the middle and 255 at the rim: invert and shape it.
    alpha = alpha.point(lambda v: max(0, min(255, int((1 - v / 190) * 255 * 1.05))))
    img.putalpha(alpha)
    return img


@lru_cache(maxsize=32)
def _dest_mark(size: int, color: RGBA, capture: bool) -> Image.Image:
    """A dot for a move to an empty square, corners for a capture (4x supersampled)."""
    k = 4
    s = size * k
    img = Image.new("RGBA", (s, s), (*color[:3], 0))
    draw = ImageDraw.Draw(img)
    if capture:
        # Corner triangles (as lichess marks a capture): they stay visible around any
        # piece, figurine or token, and never cover its letters.
        c = s * 0.3
        for x, y, dx, dy in ((0, 0, 1, 1), (s, 0, -1, 1), (0, s, 1, -1), (s, s, -1, -1)):
            draw.polygon([(x, y), (x + dx * c, y), (x, y + dy * c)], fill=color)
    else:
        r = s * 0.15
        draw.ellipse((s / 2 - r, s / 2 - r, s / 2 + r, s / 2 + r), fill=color)
    return img.resize((size, size), Image.Resampling.LANCZOS)


def _frame(img: Image.Image, box: tuple[int, int, int, int], width: int, color: RGBA) -> None:
    """A border `width` px wide just inside `box`."""
    x0, y0, x1, y1 = box
    w = max(1, width)
    for part in (
        (x0, y0, x1, y0 + w),
        (x0, y1 - w, x1, y1),
        (x0, y0 + w, x0 + w, y1 - w),
        (x1 - w, y0 + w, x1, y1 - w),
    ):
        _overlay(img, part, color)


def _corners(
    img: Image.Image, box: tuple[int, int, int, int], width: int, length: int, color: RGBA
) -> None:
    """L-shaped marks `length` px long in the four corners of `box`."""
    x0, y0, x1, y1 = box
    w = max(1, width)
    for part in (
        (x0, y0, x0 + length, y0 + w),
        (x0, y0, x0 + w, y0 + length),
        (x1 - length, y0, x1, y0 + w),
        (x1 - w, y0, x1, y0 + length),
        (x0, y1 - w, x0 + length, y1),
        (x0, y1 - length, x0 + w, y1),
        (x1 - length, y1 - w, x1, y1),
        (x1 - w, y1 - length, x1, y1),
    ):
        _overlay(img, part, color)


def _overlay(img: Image.Image, box: tuple[int, int, int, int], color: RGBA) -> None:
    x0, y0, x1, y1 = box
    img.paste(_rgb(color), (x0, y0, x1, y1), _mask(x1 - x0, y1 - y0, color[3]))


def _paste(img: Image.Image, sprite: Image.Image, x: int, y: int) -> None:
    img.paste(sprite, (x, y), sprite)


def _badge(
    draw: ImageDraw.ImageDraw, x: float, y: float, text: str, size: int, theme: Theme
) -> None:
    """A count badge: a small rounded label with a number, its centre at (x, y)."""
    f = font("bold", max(8, round(size * 0.3)))
    left, top, right, bottom = draw.textbbox((x, y), text, font=f, anchor="mm")
    pad = max(2, round(size * 0.06))
    draw.rounded_rectangle(
        (left - pad, top - pad, right + pad, bottom + pad),
        radius=(bottom - top + 2 * pad) // 2,
        fill=_rgb(theme.crown),
        outline=_rgb(theme.crown_line),
        width=max(1, size // 40),
    )
    draw.text((x, y), text, font=f, fill=_rgb(theme.crown_line), anchor="mm")


def _resolve(view: BoardView, sq: Square | None) -> int | None:
    if sq is None:
        return None
    if isinstance(sq, str):
        return view.parse_square(sq)
    if not 0 <= sq < view.size:
        raise ValueError(f"square {sq} is off the {view.files}x{view.ranks} board")
    return sq


def _gate_cell(
    view: BoardView, lay: Layout, placed: tuple[int, Square] | None
) -> tuple[int, int, int, int] | None:
    """The reserve-strip cell of a piece just placed behind `placed` = (colour, square)."""
    if placed is None:
        return None
    color, where = placed
    sq = _resolve(view, where)
    if color not in (0, 1) or sq is None or not lay.gate_h:
        raise ValueError(f"no reserve slot {placed!r} on this board")
    x = lay.column_x(sq % view.files)
    y = lay.gate_y[color]
    return (x, y, x + lay.sq, y + lay.gate_h)


def _squares(view: BoardView, squares: Iterable[Square]) -> list[int]:
    out = []
    for s in squares:
        r = _resolve(view, s)
        if r is not None:
            out.append(r)
    return out


def draw_board(
    view: BoardView,
    *,
    perspective: int = 0,
    last_move: Sequence[Square | None] | None = None,
    placed: tuple[int, Square] | None = None,
    check: Square | None = None,
    highlights: Iterable[Square] = (),
    captures: Iterable[Square] = (),
    selected: Square | None = None,
    coordinates: bool = True,
    theme: str = "default",
    pieces: str = "traditional",
) -> Image.Image:
    """The board as a Pillow image (RGB); `render_board` encodes it."""
    if perspective not in (0, 1):
        raise ValueError(f"perspective must be 0 (White at the bottom) or 1, not {perspective!r}")
    if pieces not in PIECE_SETS:
        raise ValueError(f"unknown piece set {pieces!r}; known: {', '.join(PIECE_SETS)}")
    style = view.traditional if pieces == "traditional" else None
    th = load_theme(theme)
    lay = layout_for(view, perspective, coordinates, pieces)
    img = _background(lay, theme).copy()
    s = lay.sq
    # Last move: both squares tinted and framed. Tokens leave a margin wider than the
    # frame, so at phone width the destination shows its frame as plainly as the origin.
    if last_move:
        for sq in _squares(view, (m for m in last_move if m is not None)):
            box = lay.square_box(sq)
            _overlay(img, box, th.last_move)
            _frame(img, box, round(s * LAST_MOVE_RIM), (*th.last_move[:3], 255))
    slot = _gate_cell(view, lay, placed)
    if slot is not None:
        _overlay(img, slot, th.last_move)
        _frame(img, slot, round(s * LAST_MOVE_RIM * 0.8), (*th.last_move[:3], 255))
    selected_sq = _resolve(view, selected)
    check_sq = _resolve(view, check)
    if check_sq is not None:
        # Unmistakable even where a square is 25 px wide: the square turns red (it shows
        # around a token and between a figurine's lines) and glows in the middle.
        x0, y0, _x1, _y1 = box = lay.square_box(check_sq)
        _overlay(img, box, (*th.check[:3], 150))
        _paste(img, _glow(s, th.check), x0, y0)
        _frame(img, box, round(s * LAST_MOVE_RIM), (*th.check[:3], 255))
    if selected_sq is not None:
        # A green frame; on a square in check, green corners on the red frame, so the two
        # marks stay apart instead of blending into a muddy colour.
        box = lay.square_box(selected_sq)
        rim = round(s * LAST_MOVE_RIM)
        green = (*th.destination[:3], 255)
        if selected_sq != check_sq:
            _overlay(img, box, th.destination)
            _frame(img, box, rim, green)
        else:
            _corners(img, box, rim, round(s * 0.3), green)
    if view.walls:
        _draw_walls(img, view, lay)
    upside = (0, 1) if perspective == 0 else (1, 0)  # by colour: forward points down
    min_cap = letter_min_cap(lay.width)
    # Each kind of piece looked up once per picture: the sprite cache's key hashes the
    # whole sprite (its glyph's tuples) at every call, a tenth of a 16x16 picture's drawing.
    sprites: dict[int, Image.Image] = {}
    for sq, piece in view.pieces.items():
        x0, y0, _x1, _y1 = lay.square_box(sq)
        sprite = sprites.get(id(piece))
        if sprite is None:
            sprite = sprite_image(piece, s, theme, bool(upside[piece.color]), min_cap, style)
            sprites[id(piece)] = sprite
        _paste(img, sprite, x0, y0)
    forced = set(_squares(view, captures))
    for sq in dict.fromkeys([*_squares(view, highlights), *forced]):
        capture = sq in forced or sq in view.pieces
        x0, y0, _x1, _y1 = lay.square_box(sq)
        color = th.capture if capture else th.destination
        _paste(img, _dest_mark(s, color, capture), x0, y0)
    draw = ImageDraw.Draw(img)
    if view.hands is not None:
        _draw_hands(img, draw, view, lay, th, theme, upside, style)
    if lay.gate_h:
        _draw_reserve(img, view, lay, th, theme, upside, style)
    return img


def _draw_walls(img: Image.Image, view: BoardView, lay: Layout) -> None:
    """Wall squares: filled dark slate with a light cross, unlike any square or piece, so a
    wall is never read as an empty square of a dark theme."""
    draw = ImageDraw.Draw(img)
    width = max(2, round(lay.sq * 0.08))
    inset = round(lay.sq * 0.22)
    for sq in sorted(view.walls):
        x0, y0, x1, y1 = lay.square_box(sq)
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=WALL_FILL)
        a, b = x0 + inset, x1 - 1 - inset
        c, d = y0 + inset, y1 - 1 - inset
        draw.line((a, c, b, d), fill=WALL_MARK, width=width)
        draw.line((a, d, b, c), fill=WALL_MARK, width=width)


def _draw_hands(
    img: Image.Image,
    draw: ImageDraw.ImageDraw,
    view: BoardView,
    lay: Layout,
    th: Theme,
    theme: str,
    upside: tuple[int, int],
    style: Traditional | None,
) -> None:
    assert view.hands is not None
    label_font = font("bold", max(10, round(lay.hand_h * 0.3)))
    min_cap = letter_min_cap(lay.width)
    for color in (0, 1):
        entries = view.hands[color]
        y = lay.hand_y[color]
        side = "White" if color == 0 else "Black"
        # Each strip says whose hand it is, so the two are never confused; a narrow board
        # (Dobutsu's 3 files) gets the short form, leaving room for the pieces.
        lx = lay.board_x + round(lay.hand_h * 0.25)
        longest = lay.board_w - 2 * round(lay.hand_h * 0.25)
        if entries:
            longest -= round(lay.hand_h * 1.1) * len(entries) + lay.gap
        labels = (
            [f"{side}'s hand", side] if entries else [f"{side}: no pieces in hand", f"{side}: none"]
        )
        label = next(
            (t for t in labels if draw.textlength(t, font=label_font) <= longest), labels[-1]
        )
        draw.text(
            (lx, y + lay.hand_h / 2),
            label,
            font=label_font,
            fill=_rgb(th.strip_text),
            anchor="lm",
        )
        n = len(entries)
        if not n:
            continue
        start = lx + math.ceil(draw.textlength(label, font=label_font)) + lay.gap
        room = lay.board_x + lay.board_w - start
        cell = min(round(lay.hand_h * 1.1), room // n)
        size = round(min(cell, lay.hand_h) * 0.86)
        x = start + max(0, (room - n * cell) // 2)
        for entry in entries:
            sx = x + (cell - size) // 2
            sy = y + (lay.hand_h - size) // 2
            _slot(draw, sx, sy, size, th)
            sprite = sprite_image(entry.sprite, size, theme, bool(upside[color]), min_cap, style)
            _paste(img, sprite, sx, sy)
            if entry.count > 1:
                _badge(draw, sx + size * 0.86, sy + size * 0.82, str(entry.count), size, th)
            x += cell


def _slot(draw: ImageDraw.ImageDraw, x: int, y: int, size: int, th: Theme) -> None:
    """A light square under a piece off the board, so both colours stand out."""
    draw.rounded_rectangle(
        (x, y, x + size - 1, y + size - 1), radius=max(2, size // 6), fill=_rgb(th.light)
    )


def _draw_reserve(
    img: Image.Image,
    view: BoardView,
    lay: Layout,
    th: Theme,
    theme: str,
    upside: tuple[int, int],
    style: Traditional | None,
) -> None:
    size = round(lay.gate_h * 0.9)
    min_cap = letter_min_cap(lay.width)
    draw = ImageDraw.Draw(img)
    for color in (0, 1):
        y = lay.gate_y[color] + (lay.gate_h - size) // 2
        for sq, piece in view.gates[color].items():
            x = lay.column_x(sq % view.files) + (lay.sq - size) // 2
            _slot(draw, x, y, size, th)
            sprite = sprite_image(piece, size, theme, bool(upside[color]), min_cap, style)
            _paste(img, sprite, x, y)
        if lay.pocket_w and view.placing:
            x = lay.board_x + lay.board_w + lay.gap + (lay.gate_h - size) // 2
            for piece in view.reserve[color]:
                _slot(draw, x, y, size, th)
                sprite = sprite_image(piece, size, theme, bool(upside[color]), min_cap, style)
                _paste(img, sprite, x, y)
                x += round(GATE * lay.sq)


def learn_palette(img: Image.Image) -> Image.Image:
    """256 colours chosen for `img` (a palette image to map others with)."""
    return img.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


def encode_png(img: Image.Image, palette: Image.Image | None = None) -> bytes:
    """A palette PNG: the board has few colours apart from the pieces' edges, and 256
    well-chosen ones keep every edge smooth at a third of the size of an RGB PNG. zlib
    level 3 is twice as fast as level 6 for a quarter more bytes. `palette`: colours
    learnt before (`learn_palette`), mapped to without dithering; else learnt from `img`."""
    if palette is None:
        quantized = learn_palette(img)
    else:
        quantized = img.quantize(palette=palette, dither=Image.Dither.NONE)
    out = io.BytesIO()
    quantized.save(out, format="PNG", compress_level=3)
    return out.getvalue()


def render_board(
    view: BoardView,
    *,
    perspective: int = 0,
    last_move: Sequence[Square | None] | None = None,
    placed: tuple[int, Square] | None = None,
    check: Square | None = None,
    highlights: Iterable[Square] = (),
    captures: Iterable[Square] = (),
    selected: Square | None = None,
    coordinates: bool = True,
    theme: str = "default",
    palette_key: Hashable | None = None,
    pieces: str = "traditional",
) -> bytes:
    """The board `view` as PNG bytes.

    `perspective`: 0 puts White at the bottom, 1 Black. `last_move`: (origin, target)
    squares to tint (origin None for a drop). `check`: the square of the royal piece in
    check, marked with a red glow. `highlights`: destinations to mark, a dot on an empty
    square and corner marks on an occupied one; `captures`: squares always marked as captures
    (en passant). `selected`: the square of the piece whose moves are shown, tinted in
    the destinations' colour. Squares are indices (a1 = 0, `rank * files + file`) or names ("e4").
    `theme`: a file name of `renderer/themes/`. `palette_key` (a variant's identity): the
    pictures of one key, theme and piece set share a palette, learnt from the first one
    with every kind of mark drawn on it (`_palette_for`); pieces that join later (a
    promotion, a piece in hand) are drawn in the theme's same colours, so they map without
    loss. `pieces`: `traditional` draws the variant's traditional set where it has one
    (Xiangqi's discs, Shogi's kanji tokens), `letters` the letter tokens everywhere.
    """
    img = draw_board(
        view,
        perspective=perspective,
        last_move=last_move,
        placed=placed,
        check=check,
        highlights=highlights,
        captures=captures,
        selected=selected,
        coordinates=coordinates,
        theme=theme,
        pieces=pieces,
    )
    if palette_key is None:
        return encode_png(img)
    return encode_png(img, _palette_for(theme, palette_key, img, view, perspective, pieces))


PALETTES = 64
"""Palettes kept (variant x theme), least recently used dropped."""
_palettes: OrderedDict[Hashable, Image.Image] = OrderedDict()


def _palette_for(
    theme: str,
    palette_key: Hashable,
    img: Image.Image,
    view: BoardView,
    perspective: int,
    pieces: str = "traditional",
) -> Image.Image:
    """The palette of `palette_key` and `theme`, learnt from `img` beside the same board
    drawn with every kind of mark (last move on a light and a dark square, check, a
    selected piece, destinations and captures on empty and occupied squares), so any later
    picture's colours are in it."""
    key = (theme, palette_key, pieces)
    found = _palettes.get(key)
    if found is not None:
        _palettes.move_to_end(key)
        return found
    occupied = sorted(view.pieces)
    empty = [sq for sq in range(view.files * view.ranks) if sq not in view.pieces]
    # A wall drawn too (on an empty square): petrification may bring walls in later.
    marked = draw_board(
        replace(view, walls=view.walls | frozenset(empty[3:4])),
        perspective=perspective,
        last_move=(0, 1),
        check=occupied[0] if occupied else None,
        selected=occupied[-1] if occupied else None,
        highlights=[*empty[:3], *occupied[1:3]],
        captures=occupied[3:4],
        theme=theme,
        pieces=pieces,
    )
    both = Image.new("RGB", (img.width + marked.width, max(img.height, marked.height)))
    both.paste(img, (0, 0))
    both.paste(marked, (img.width, 0))
    palette = learn_palette(both)
    _palettes[key] = palette
    while len(_palettes) > PALETTES:
        _palettes.popitem(last=False)
    return palette


__all__ = [
    "Layout",
    "draw_board",
    "encode_png",
    "layout_for",
    "learn_palette",
    "render_board",
    "square_size",
]
