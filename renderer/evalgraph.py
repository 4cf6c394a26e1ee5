"""The evaluation graph of a reviewed game, sized for a phone (the picture /analyze posts).

Laid out in 450 logical pixels (Discord's picture width on a phone) and drawn at `scale`
times that, with text no smaller than 10 logical pixels, like the crosstable. The height
is White's winning chances (lichess's curve, the one the marks are judged by): a pawn more
in a level game shows clearly, ten pawns more is near the edge, and a mate, which has no
finite size, is clamped to the edge. White's side of the graph is light, Black's dark;
`??`, `?` and `?!` moves are dots in red, orange and yellow, `!` in green.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from PIL import Image, ImageDraw

from renderer.board import encode_png
from renderer.sprites import font

WIDTH = 450
HEIGHT = 210
TEXT = 11
SMALL = 10
PAD = 8
TITLE_ROW = 20
AXIS_ROW = 16
LEFT = 30  # room for the pawn labels
CLAMP = 1000
"""Centipawns drawn at the edge: anything beyond (a mate) is clamped to it."""
GRID_PAWNS = (1, 3)
RGB = tuple[int, int, int]

BACKGROUND: RGB = (48, 46, 44)
TITLE: RGB = (240, 236, 228)
AXIS_TEXT: RGB = (190, 184, 174)
WHITE_SIDE: RGB = (238, 234, 226)
BLACK_SIDE: RGB = (28, 27, 26)
PLOT: RGB = (120, 116, 110)
LINE: RGB = (214, 160, 60)
GRID: RGB = (150, 144, 136)
MARK_COLOURS: dict[str, RGB] = {
    "??": (220, 50, 47),
    "?": (240, 140, 40),
    "?!": (230, 200, 60),
    "!": (80, 180, 90),
}


def _chances(cp: int) -> float:
    return 1 / (1 + math.exp(-0.00368208 * cp))


def graph_height(cp: int) -> float:
    """Where `cp` (White's view) is drawn, -1 (Black winning, bottom) to 1 (top); mates
    and anything beyond `CLAMP` centipawns sit on the edge."""
    clamped = min(CLAMP, abs(cp))
    height = (_chances(clamped) - 0.5) / (_chances(CLAMP) - 0.5)
    return height if cp >= 0 else -height


def draw_eval_graph(
    scores: Sequence[int | None],
    marks: Sequence[tuple[int, str]] = (),
    *,
    title: str = "",
    scale: int = 2,
) -> Image.Image:
    """`scores`: White's view of every position from the start (centipawns, None where the
    review did not reach); `marks`: (ply, mark) of the moves, ply 1 being the first move."""
    s = scale
    img = Image.new("RGB", (WIDTH * s, HEIGHT * s), BACKGROUND)
    draw = ImageDraw.Draw(img)
    title_face = font("bold", TEXT * s)
    small = font("regular", SMALL * s)
    if title:
        text = title
        while text and draw.textlength(text, font=title_face) > (WIDTH - 2 * PAD) * s:
            text = text[:-2] + "…" if len(text) > 2 else ""
        draw.text((PAD * s, PAD * s // 2), text, font=title_face, fill=TITLE)
    left, right = LEFT * s, (WIDTH - PAD) * s
    top, bottom = (PAD // 2 + TITLE_ROW) * s, (HEIGHT - AXIS_ROW) * s
    mid = (top + bottom) / 2
    half = (bottom - top) / 2
    draw.rectangle((left, top, right, mid), fill=PLOT)
    draw.rectangle((left, mid, right, bottom), fill=PLOT)
    plies = max(1, len(scores) - 1)

    def x_of(ply: int) -> float:
        return left + (right - left) * ply / plies

    def y_of(cp: int) -> float:
        return mid - half * graph_height(cp)

    # The area between the curve and the middle: light where White leads, dark for Black.
    known = [(i, cp) for i, cp in enumerate(scores) if cp is not None]
    for (i, a), (j, b) in itertools.pairwise(known):
        if j != i + 1:
            continue
        xa, xb, ya, yb = x_of(i), x_of(j), y_of(a), y_of(b)
        if (ya - mid) * (yb - mid) < 0:  # crosses the middle: split there
            xm = xa + (xb - xa) * (mid - ya) / (yb - ya)
            pieces = [((xa, ya), (xm, mid)), ((xm, mid), (xb, yb))]
        else:
            pieces = [((xa, ya), (xb, yb))]
        for (x0, y0), (x1, y1) in pieces:
            above = (y0 + y1) / 2 < mid
            colour = WHITE_SIDE if above else BLACK_SIDE
            draw.polygon([(x0, mid), (x0, y0), (x1, y1), (x1, mid)], fill=colour)
    for pawns in GRID_PAWNS:
        for sign in (1, -1):
            y = y_of(sign * pawns * 100)
            draw.line((left, y, right, y), fill=GRID, width=max(1, s // 2))
            label = f"{'+' if sign > 0 else '−'}{pawns}"
            w = draw.textlength(label, font=small)
            draw.text((left - w - 3 * s, y - SMALL * s * 0.6), label, font=small, fill=AXIS_TEXT)
    draw.line((left, mid, right, mid), fill=GRID, width=s)
    w = draw.textlength("0", font=small)
    draw.text((left - w - 3 * s, mid - SMALL * s * 0.6), "0", font=small, fill=AXIS_TEXT)
    for (i, a), (j, b) in itertools.pairwise(known):
        if j == i + 1:
            draw.line((x_of(i), y_of(a), x_of(j), y_of(b)), fill=LINE, width=max(2, s))
    # Move numbers along the bottom (a full move is two plies).
    moves = plies / 2
    step = next((n for n in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500) if moves / n <= 8), 1000)
    number = step
    while number * 2 <= plies:
        x = x_of(number * 2)
        draw.line((x, bottom, x, bottom + 2 * s), fill=AXIS_TEXT, width=s)
        label = str(number)
        w = draw.textlength(label, font=small)
        draw.text((x - w / 2, bottom + 3 * s), label, font=small, fill=AXIS_TEXT)
        number += step
    radius = 3.5 * s
    for ply, mark in marks:
        dot = MARK_COLOURS.get(mark)
        if dot is None or not 0 < ply < len(scores):
            continue
        cp = scores[ply]
        if cp is None:
            continue
        x, y = x_of(ply), y_of(cp)
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=dot, outline=TITLE)
    return img


def render_eval_graph(
    scores: Sequence[int | None],
    marks: Sequence[tuple[int, str]] = (),
    *,
    title: str = "",
    scale: int = 2,
) -> bytes:
    """The evaluation graph as PNG bytes."""
    return encode_png(draw_eval_graph(scores, marks, title=title, scale=scale))
