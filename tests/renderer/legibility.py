"""Letter heights as a phone shows a board picture: measured on the rendered PNG.

Discord shows a picture about 450 px wide on a phone. For each token on the board, the ink
of its letters is found inside the tile: pixels within a quarter of the way from the text
colour to the glyph's mark colour (movement marks, crowns and outlines never get there, even
with the ringing of the Lanczos reduction; the letters' soft edges are left out too, so the
figure errs low). Its height in pixels is scaled by 450 / the picture's width. Each
coordinate label is measured the same way in the margins (pixels nearer the coordinate
colour than the frame's). A lower-case file letter's
height is its ink: an `a` counts its x-height.

`python -m tests.renderer.legibility` prints the figures for the wide boards.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image

from renderer import sprites
from renderer.board import PHONE_WIDTH, Layout, layout_for
from renderer.from_rules import board_view, render_game
from renderer.theme import load_theme
from renderer.view import BoardView
from rules.game import Game


def _lum(c: tuple[int, ...]) -> float:
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]


def _ink_height(gray: Image.Image, box: tuple[int, int, int, int], dark: bool, cut: float) -> int:
    """Rows of `box` holding ink: pixels darker (or lighter) than `cut`; 0 when none."""
    region = gray.crop(box)
    mask = region.point(lambda v: 255 if (v < cut if dark else v > cut) else 0)
    bbox = mask.getbbox()
    return 0 if bbox is None else bbox[3] - bbox[1]


@dataclass(frozen=True, slots=True)
class Measure:
    where: str  # "c4 SN" or "file a" / "rank 16"
    phone_px: float


def measure(
    png: bytes, view: BoardView, theme: str = "default", pieces: str = "traditional"
) -> list[Measure]:
    """Every token's letters and every coordinate label, in pixels at phone width (the
    traditional pieces' characters: `measure_characters`)."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    gray = img.convert("L")
    lay: Layout = layout_for(view, 0, True, pieces)
    assert img.size == (lay.width, lay.height), "the layout does not match the picture"
    scale = PHONE_WIDTH / lay.width
    th = load_theme(theme)
    out: list[Measure] = []
    s = lay.sq
    inset = round(s * ((1 - sprites.TOKEN) / 2 + 0.06))
    traditional = pieces == "traditional" and view.traditional is not None
    for sq, piece in sorted(view.pieces.items()):
        if piece.figure is not None or not piece.letters or (traditional and piece.characters):
            continue
        text, mark = th.text(piece.color), th.mark(piece.color)
        cut = _lum(text) + (_lum(mark) - _lum(text)) / 4
        x0, y0, x1, y1 = lay.square_box(sq)
        h = _ink_height(
            gray, (x0 + inset, y0 + inset, x1 - inset, y1 - inset), _lum(text) < cut, cut
        )
        name = f"{chr(ord('a') + sq % view.files)}{sq // view.files + 1}"
        out.append(Measure(f"{name} {piece.letters}", h * scale))
    cut = (_lum(th.frame) + _lum(th.coordinates)) / 2
    band = lay.band or round(0.42 * s)
    for file in range(view.files):
        x = lay.column_x(file)
        h = _ink_height(gray, (x, lay.file_y, x + s, lay.file_y + band), False, cut)
        out.append(Measure(f"file {chr(ord('a') + file)}", h * scale))
    for rank in range(view.ranks):
        _x0, y0, _x1, y1 = lay.square_box(rank * view.files)
        h = _ink_height(gray, (0, y0, lay.board_x, y1), False, cut)
        out.append(Measure(f"rank {rank + 1}", h * scale))
    return out


def measure_characters(png: bytes, view: BoardView, perspective: int = 0) -> list[Measure]:
    """The traditional pieces' characters, in pixels at phone width: the ink darker than a
    quarter of the way from the character's colour to the face (discs ivory, Shogi tokens
    wood), inside a box in the middle of the piece that leaves out the disc's ring and
    the token's outline."""
    assert view.traditional is not None
    img = Image.open(io.BytesIO(png)).convert("RGB")
    gray = img.convert("L")
    lay = layout_for(view, perspective, True)
    assert img.size == (lay.width, lay.height), "the layout does not match the picture"
    scale = PHONE_WIDTH / lay.width
    s = lay.sq
    disc = view.traditional.shape == "disc"
    out: list[Measure] = []
    for sq, piece in sorted(view.pieces.items()):
        if not piece.characters:
            continue
        ink = sprites.PROMOTED_INK if piece.promoted else view.traditional.ink[piece.color]
        ink_lum = _lum(sprites._hex(ink))
        face = _lum(sprites._hex(sprites.IVORY if disc else sprites.WOOD))
        cut = ink_lum + (face - ink_lum) / 4
        x0, y0, _x1, _y1 = lay.square_box(sq)
        if disc:
            top, bottom = 0.2, 0.8
        elif piece.color == perspective:  # pointing up the picture
            top, bottom = 0.15, 0.9
        else:
            top, bottom = 0.1, 0.85
        box = (
            round(x0 + 0.36 * s),
            round(y0 + top * s),
            round(x0 + 0.64 * s),
            round(y0 + bottom * s),
        )
        h = _ink_height(gray, box, True, cut)
        out.append(Measure(f"{view.square_name(sq)} {piece.characters}", h * scale))
    return out


def start_measures(
    variant: str, theme: str = "default", pieces: str = "traditional"
) -> list[Measure]:
    game = Game.new(variant)
    view = board_view(game.position)
    return measure(render_game(game, theme=theme, pieces=pieces), view, theme, pieces)


def summary(measures: list[Measure]) -> str:
    tokens = [m for m in measures if not m.where.startswith(("file", "rank"))]
    coords = [m for m in measures if m.where.startswith(("file", "rank"))]
    low_t = min(tokens, key=lambda m: m.phone_px)
    low_c = min(coords, key=lambda m: m.phone_px)
    return (
        f"token letters {min(m.phone_px for m in tokens):.1f}-{max(m.phone_px for m in tokens):.1f}"
        f" px (lowest {low_t.where}), coordinates {low_c.phone_px:.1f}-"
        f"{max(m.phone_px for m in coords):.1f} px (lowest {low_c.where})"
    )


def character_summary(variant: str) -> str:
    """The lowest and highest character heights of a start position at phone width."""
    game = Game.new(variant)
    view = board_view(game.position)
    found = measure_characters(render_game(game), view)
    low = min(found, key=lambda m: m.phone_px)
    high = max(m.phone_px for m in found)
    return f"characters {low.phone_px:.1f}-{high:.1f} px (lowest {low.where})"


if __name__ == "__main__":
    for vid in ("bigorra", "leaping-bat", "missing-bat-zebra", "timurid-herat", "patchanka"):
        print(f"{vid}: {summary(start_measures(vid))}")
    for vid in ("xiangqi", "janggi", "minixiangqi", "shogi", "minishogi", "judkins", "dobutsu"):
        letters = summary(start_measures(vid, pieces="letters"))
        print(f"{vid}: {character_summary(vid)}; letter set: {letters}")
