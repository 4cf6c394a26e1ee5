"""The six orthodox figurines as vector shapes, drawn with Pillow.

Each figure is a list of `Shape`s in a 100 x 100 box (y down, the base near y = 90),
drawn in order: filled with the piece colour and stroked with the outline colour, or,
for details (`detail=True`), stroked only, in the colour that contrasts with the fill.
Curves are sampled Catmull-Rom splines, so a few control points give a smooth outline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

Pt = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Shape:
    points: tuple[Pt, ...]
    closed: bool = True
    detail: bool = False  # a stroke in the contrasting colour, not a filled shape
    width: float = 1.0  # stroke width relative to the standard outline


def spline(points: list[Pt], closed: bool = True, samples: int = 10) -> tuple[Pt, ...]:
    """A Catmull-Rom spline through `points`; a point given twice in a row is a corner."""
    n = len(points)
    out: list[Pt] = []
    last = n if closed else n - 1
    for i in range(last):
        p0 = points[(i - 1) % n] if closed or i > 0 else points[i]
        p1 = points[i]
        p2 = points[(i + 1) % n]
        p3 = points[(i + 2) % n] if closed or i + 2 < n else p2
        if p1 == p2:
            continue
        if p0 == p1:  # corner on entry: no tangent from the previous point
            p0 = (2 * p1[0] - p2[0], 2 * p1[1] - p2[1])
        if p3 == p2:
            p3 = (2 * p2[0] - p1[0], 2 * p2[1] - p1[1])
        for s in range(samples):
            t = s / samples
            t2, t3 = t * t, t * t * t
            out.append(
                (
                    0.5
                    * (
                        2 * p1[0]
                        + (-p0[0] + p2[0]) * t
                        + (2 * p0[0] - 5 * p1[0] + 4 * p2[0] - p3[0]) * t2
                        + (-p0[0] + 3 * p1[0] - 3 * p2[0] + p3[0]) * t3
                    ),
                    0.5
                    * (
                        2 * p1[1]
                        + (-p0[1] + p2[1]) * t
                        + (2 * p0[1] - 5 * p1[1] + 4 * p2[1] - p3[1]) * t2
                        + (-p0[1] + 3 * p1[1] - 3 * p2[1] + p3[1]) * t3
                    ),
                )
            )
    if not closed:
        out.append(points[-1])
    return tuple(out)


def ellipse(cx: float, cy: float, rx: float, ry: float, n: int = 36) -> tuple[Pt, ...]:
    return tuple(
        (cx + rx * math.cos(2 * math.pi * i / n), cy + ry * math.sin(2 * math.pi * i / n))
        for i in range(n)
    )


def rounded_rect(x0: float, y0: float, x1: float, y1: float, r: float) -> tuple[Pt, ...]:
    pts: list[Pt] = []
    corners = (
        (x1 - r, y1 - r, 0),
        (x0 + r, y1 - r, 90),
        (x0 + r, y0 + r, 180),
        (x1 - r, y0 + r, 270),
    )
    for cx, cy, start in corners:
        for k in range(7):
            a = math.radians(start + 90 * k / 6)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return tuple(pts)


def _base(y0: float = 80, y1: float = 90, x0: float = 22, x1: float = 78) -> Shape:
    return Shape(rounded_rect(x0, y0, x1, y1, 3.5))


def _pawn() -> list[Shape]:
    body = spline(
        [
            (43, 44),
            (41, 56),
            (34, 68),
            (29, 80),
            (29, 80),
            (71, 80),
            (71, 80),
            (66, 68),
            (59, 56),
            (57, 44),
        ]
    )
    return [
        Shape(body),
        Shape(rounded_rect(37, 40, 63, 48, 4)),
        Shape(ellipse(50, 28, 12.5, 12.5)),
        _base(79, 89, 24, 76),
    ]


def _rook() -> list[Shape]:
    top = (
        (27, 14), (37, 14), (37, 21), (45, 21), (45, 14), (55, 14), (55, 21),
        (63, 21), (63, 14), (73, 14), (73, 31), (27, 31),
    )  # fmt: skip
    return [
        Shape(((34, 36), (66, 36), (64, 72), (36, 72))),
        Shape(rounded_rect(29, 69, 71, 80, 2)),
        Shape(rounded_rect(30, 30, 70, 39, 2)),
        Shape(top),
        _base(),
    ]


def _bishop() -> list[Shape]:
    mitre = spline([(50, 17), (62, 30), (68, 46), (63, 61), (50, 65), (37, 61), (32, 46), (38, 30)])
    return [
        Shape(
            spline([(36, 70), (50, 66), (64, 70), (64, 70), (66, 79), (66, 79), (34, 79), (34, 79)])
        ),
        Shape(mitre),
        Shape(rounded_rect(35, 61, 65, 70, 3)),
        Shape(ellipse(50, 13, 5.5, 5.5)),
        Shape(((56, 32), (44, 48)), closed=False, detail=True, width=1.1),
        Shape(((50, 36), (50, 36)), closed=False, detail=True, width=0.01),
        Shape(spline([(22, 90), (22, 90), (26, 80), (50, 78), (74, 80), (78, 90), (78, 90)])),
    ]


def _knight() -> list[Shape]:
    head = spline(
        [
            (74, 80), (74, 80), (77, 60), (73, 41), (64, 26), (57, 20), (55, 10), (55, 10),
            (48, 18), (39, 20), (30, 29), (22, 42), (17, 52), (19, 59), (26, 62), (33, 57),
            (41, 52), (48, 49), (44, 59), (35, 69), (30, 80), (30, 80),
        ]
    )  # fmt: skip
    return [
        Shape(head),
        Shape(ellipse(41, 32, 3.2, 3.2), detail=True, width=0.9),
        Shape(ellipse(23.5, 52, 1.6, 1.6), detail=True, width=0.8),
        Shape(
            spline([(62, 27), (69, 41), (72, 56), (72, 70)], closed=False), detail=True, width=0.8
        ),
        _base(),
    ]


def _queen() -> list[Shape]:
    body = (
        (30, 70), (17, 31), (31, 51), (32, 23), (42, 48), (50, 19), (58, 48),
        (68, 23), (69, 51), (83, 31), (70, 70),
    )  # fmt: skip
    balls = [ellipse(x, y, 5, 5) for x, y in ((17, 28), (32, 20), (50, 15), (68, 20), (83, 28))]
    return [
        Shape(body),
        *[Shape(b) for b in balls],
        Shape(rounded_rect(29, 67, 71, 79, 3)),
        Shape(((33, 73), (67, 73)), closed=False, detail=True, width=0.6),
        _base(),
    ]


def _king() -> list[Shape]:
    crown = spline(
        [
            (30, 70), (30, 70), (18, 52), (19, 40), (29, 34), (41, 37), (50, 47), (59, 37),
            (71, 34), (81, 40), (82, 52), (70, 70), (70, 70),
        ]
    )  # fmt: skip
    return [
        Shape(
            (
                (46.5, 5),
                (53.5, 5),
                (53.5, 12),
                (60, 12),
                (60, 18.5),
                (53.5, 18.5),
                (53.5, 30),
                (46.5, 30),
                (46.5, 18.5),
                (40, 18.5),
                (40, 12),
                (46.5, 12),
            )
        ),
        Shape(crown),
        Shape(spline([(50, 48), (44, 36), (50, 27), (56, 36)])),
        Shape(rounded_rect(29, 66, 71, 78, 3)),
        Shape(((33, 72), (67, 72)), closed=False, detail=True, width=0.6),
        _base(),
    ]


@cache
def figure_shapes(figure: str) -> tuple[Shape, ...]:
    """The shapes of `figure` (king, queen, rook, bishop, knight, pawn)."""
    makers = {
        "king": _king,
        "queen": _queen,
        "rook": _rook,
        "bishop": _bishop,
        "knight": _knight,
        "pawn": _pawn,
    }
    return tuple(makers[figure]())
