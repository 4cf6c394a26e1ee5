"""Helpers for the renderer tests: decoding PNGs and probing pixels."""

from __future__ import annotations

import io

from PIL import Image

from renderer.board import Layout, layout_for
from renderer.view import BoardView

RGB = tuple[int, int, int]


def decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(io.BytesIO(png))
    img.load()
    return img.convert("RGB")


def pixel(img: Image.Image, x: float, y: float) -> RGB:
    p = img.getpixel((round(x), round(y)))
    assert isinstance(p, tuple)
    return (int(p[0]), int(p[1]), int(p[2]))


def near(a: RGB, b: RGB, tol: int = 12) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def blend(base: RGB, over: tuple[int, int, int, int]) -> RGB:
    a = over[3] / 255
    return (
        round(base[0] * (1 - a) + over[0] * a),
        round(base[1] * (1 - a) + over[1] * a),
        round(base[2] * (1 - a) + over[2] * a),
    )


def probe(img: Image.Image, lay: Layout, sq: int, fx: float, fy: float) -> RGB:
    """The pixel at fraction (fx, fy) of square `sq`'s box (0, 0 = its top-left)."""
    x0, y0, x1, y1 = lay.square_box(sq)
    return pixel(img, x0 + (x1 - x0 - 1) * fx, y0 + (y1 - y0 - 1) * fy)


def layout(
    view: BoardView, perspective: int = 0, coordinates: bool = True, pieces: str = "traditional"
) -> Layout:
    return layout_for(view, perspective, coordinates, pieces)
