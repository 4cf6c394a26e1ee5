"""Piece sprites: figurines and movement tokens, drawn large and scaled down.

Every sprite is drawn at `SUPERSAMPLE` times its size and reduced with a Lanczos filter,
which gives smooth edges without an anti-aliasing renderer. Sprites are cached per
(piece, colour, size, theme, orientation): a board draws each distinct piece once.

The token: a rounded tile in the piece's colour, its letters large in the middle and
its movement glyph around them on a small, fixed grid. The grid puts the offsets 1, 2
and 3 squares away on three rings, the same for every piece, so a Wazir's dot sits
closer to the letters than a Dabbaba's; longer leaps sit on the outer ring in their
direction, drawn as diamonds.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from renderer.figurines import Shape, figure_shapes
from renderer.glyphs import rotated
from renderer.theme import RGBA, Theme, load_theme
from renderer.view import Dot, Glyph, Mode, PieceSprite, Ray, Traditional, Trail

SUPERSAMPLE = 4
FONTS_DIR = Path(__file__).resolve().parent / "fonts"
FONT_FILES = {
    "bold": "DejaVuSans-Bold.ttf",
    "condensed": "DejaVuSansCondensed-Bold.ttf",
    "regular": "DejaVuSans.ttf",
    "cjk": "NotoSerifCJKjp-Bold-subset.otf",
}
CJK_CHARACTERS = "cjk-characters.txt"
"""The characters the CJK subset holds (renderer/fonts/README.md: how to make it again)."""
Pt = tuple[float, float]

# The glyph grid: distance of rings 1, 2 and 3 from the centre, as a fraction of the
# glyph's half-extent, horizontally (letters are wider than tall) and vertically.
RINGS_X = (0.0, 0.65, 0.83, 1.0)
RINGS_Y = (0.0, 0.53, 0.765, 1.0)
TOKEN = 0.82  # the tile's side as a fraction of the square (the last-move rim shows around)
MIN_SQUEEZE = 0.74  # letters may be narrowed to this fraction of their width before shrinking
GLYPH = 0.435  # the glyph's half-extent as a fraction of the tile
DOT = 0.034  # a dot's radius as a fraction of the tile


@lru_cache(maxsize=64)
def font(kind: str, px: int) -> ImageFont.FreeTypeFont:
    """A font shipped in `renderer/fonts/` (never one of the system's)."""
    return ImageFont.truetype(str(FONTS_DIR / FONT_FILES[kind]), max(1, px))


@lru_cache(maxsize=1)
def cjk_characters() -> frozenset[str]:
    """The characters the shipped CJK font subset can write."""
    text = (FONTS_DIR / CJK_CHARACTERS).read_text(encoding="utf-8")
    return frozenset(text.strip())


def _ring(rings: tuple[float, ...], t: float) -> float:
    a = abs(t)
    sign = 1.0 if t >= 0 else -1.0
    if a <= 3:
        i = min(int(a), 2)
        frac = a - i
        return sign * (rings[i] + (rings[i + 1] - rings[i]) * frac)
    return sign * (rings[3] + (rings[3] - rings[2]) * (a - 3))


class _Grid:
    """Maps board offsets (x right, y forward) to canvas pixels around a centre. The rings
    are the standard ones, or (`compact`) pushed out beyond large letters."""

    def __init__(
        self,
        cx: float,
        cy: float,
        half: float,
        rings_x: tuple[float, ...] = RINGS_X,
        rings_y: tuple[float, ...] = RINGS_Y,
    ) -> None:
        self.cx, self.cy, self.half = cx, cy, half
        self.rings_x, self.rings_y = rings_x, rings_y

    def at(self, x: float, y: float) -> Pt:
        return (
            self.cx + _ring(self.rings_x, x) * self.half,
            self.cy - _ring(self.rings_y, y) * self.half,
        )

    def far(self, x: int, y: int) -> Pt:
        """A leap longer than 3: on the outer ring, in its direction."""
        m = max(abs(x), abs(y))
        return self.at(3 * x / m, 3 * y / m)

    def inside(self, p: Pt, margin: float = 1.0) -> bool:
        return (
            abs(p[0] - self.cx) <= self.half * margin and abs(p[1] - self.cy) <= self.half * margin
        )


def _clip(a: Pt, b: Pt, cx: float, cy: float, lim: float) -> Pt:
    """The point where the segment a-b leaves the square |x-cx|, |y-cy| <= lim."""
    t_max = 1.0
    for i, c in ((0, cx), (1, cy)):
        d = b[i] - a[i]
        if d > 0 and b[i] > c + lim:
            t_max = min(t_max, (c + lim - a[i]) / d)
        elif d < 0 and b[i] < c - lim:
            t_max = min(t_max, (c - lim - a[i]) / d)
    return (a[0] + (b[0] - a[0]) * t_max, a[1] + (b[1] - a[1]) * t_max)


def _cross(draw: ImageDraw.ImageDraw, p: Pt, r: float, fill: RGBA, width: int) -> None:
    x, y = p
    draw.line([(x - r, y - r), (x + r, y + r)], fill=fill, width=width)
    draw.line([(x - r, y + r), (x + r, y - r)], fill=fill, width=width)


class _GlyphPainter:
    """Draws a glyph's marks on a token (all sizes in canvas pixels)."""

    def __init__(
        self, draw: ImageDraw.ImageDraw, grid: _Grid, u: float, theme: Theme, color: int, r: float
    ) -> None:
        self.d = draw
        self.r = r
        self.g = grid
        self.u = u  # one final pixel at a 58 px square, in canvas pixels
        self.fill = theme.fill(color)
        self.mark = theme.mark(color)
        self.cap = theme.capture_mark(color)
        self.faded = (*self.mark[:3], 150)
        self.line_w = max(1, round(1.9 * u))
        self.thin_w = max(1, round(1.0 * u))
        self.tube_w = max(3, round(3.4 * u))
        self.tube_in = max(1, self.tube_w - 2 * max(1, round(1.05 * u)))

    def color_for(self, mode: Mode) -> RGBA:
        return self.cap if mode == Mode.CAPTURE else self.mark

    def trail(self, t: Trail) -> None:
        pts = [self.g.at(x, y) for x, y in t.points]
        lim = self.g.half * 1.02
        kept: list[Pt] = []
        for p in pts:
            if self.g.inside(p, 1.02):
                kept.append(p)
            else:
                if kept:
                    kept.append(_clip(kept[-1], p, self.g.cx, self.g.cy, lim))
                break
        if len(kept) < 2:
            return
        if t.ride:
            self.d.line(kept, fill=self.color_for(t.mode), width=self.line_w, joint="curve")
        else:
            self.d.line(kept, fill=self.faded, width=self.thin_w, joint="curve")

    def ray(self, r: Ray, covered: bool = False) -> None:
        g = self.g
        sx, sy = r.step
        bx, by = r.start
        origin = (bx, by) != (0, 0)
        first = g.at(bx, by) if origin else g.at(bx + sx, by + sy)
        pts = [first]
        k = 1
        limit = r.limit if r.limit is not None else 99
        lim = g.half * 1.07
        ended = False
        while k <= limit:
            p = g.at(bx + sx * k, by + sy * k)
            if not g.inside(p, 1.07):
                pts.append(_clip(pts[-1], p, g.cx, g.cy, lim))
                ended = True
                break
            if not (k == 1 and not origin):
                pts.append(p)
            k += 1
        if len(pts) < 2:
            return
        color = self.color_for(r.mode)
        if r.hop:
            # Barred by a screen on the second square, dangerous beyond it.
            screen = g.at(bx + sx * 2, by + sy * 2)
            if not covered:
                self.d.line([first, screen], fill=self.faded, width=self.thin_w)
            self.d.line([screen, pts[-1]], fill=color, width=self.line_w)
            dx, dy = screen[0] - first[0], screen[1] - first[1]
            n = math.hypot(dx, dy) or 1.0
            px, py = -dy / n, dx / n
            h = 2.6 * self.u
            self.d.line(
                [
                    (screen[0] - px * h, screen[1] - py * h),
                    (screen[0] + px * h, screen[1] + py * h),
                ],
                fill=self.mark,
                width=self.line_w,
            )
            return
        if r.mode == Mode.MOVE:
            self.d.line(pts, fill=color, width=self.tube_w, joint="curve")
            self.d.line(pts, fill=self.fill, width=self.tube_in, joint="curve")
        else:
            self.d.line(pts, fill=color, width=self.line_w, joint="curve")
        if max(abs(sx), abs(sy)) > 1 and not origin:
            # A rider of leaps (Nightrider): a dot on each landing square along the line.
            rad = self.r * 1.25
            for p in pts[:-1] if ended else pts:
                self.d.ellipse((p[0] - rad, p[1] - rad, p[0] + rad, p[1] + rad), fill=color)
        if not ended:  # a limited rider: a bar across its last square
            a, b = pts[-2], pts[-1]
            dx, dy = b[0] - a[0], b[1] - a[1]
            n = math.hypot(dx, dy) or 1.0
            px, py = -dy / n * 2.2 * self.u, dx / n * 2.2 * self.u
            self.d.line(
                [(b[0] - px, b[1] - py), (b[0] + px, b[1] + py)], fill=color, width=self.line_w
            )

    def dot(self, d: Dot) -> None:
        long = max(abs(d.x), abs(d.y)) > 3
        p = self.g.far(d.x, d.y) if long else self.g.at(d.x, d.y)
        r = self.r * (0.8 if d.initial else 1.0)
        x, y = p
        color = self.color_for(d.mode)
        if d.initial:
            color = (*color[:3], 150)
        halo = self.fill
        if d.mode == Mode.CAPTURE:
            _cross(self.d, p, r * 1.15 + 0.8 * self.u, halo, self.line_w + round(1.6 * self.u))
            _cross(self.d, p, r * 1.15, color, self.line_w)
            return
        if long:
            rr = r * 1.45
            diamond = [(x, y - rr), (x + rr, y), (x, y + rr), (x - rr, y)]
            self.d.polygon(diamond, fill=halo)
            inner = [(x, y - rr * 0.8), (x + rr * 0.8, y), (x, y + rr * 0.8), (x - rr * 0.8, y)]
            if d.mode == Mode.MOVE:
                self.d.polygon(inner, outline=color, width=max(1, round(1.1 * self.u)))
            else:
                self.d.polygon(inner, fill=color)
            return
        ro = r + 0.8 * self.u
        self.d.ellipse((x - ro, y - ro, x + ro, y + ro), fill=halo)
        if d.mode == Mode.MOVE:
            self.d.ellipse(
                (x - r, y - r, x + r, y + r), outline=color, width=max(1, round(1.1 * self.u))
            )
        else:
            self.d.ellipse((x - r, y - r, x + r, y + r), fill=color)


@lru_cache(maxsize=256)
def _letters_shape(letters: str) -> tuple[str, float]:
    """The font kind for `letters` and their width per unit of capital height."""
    kind = "bold" if len(letters) <= 1 else "condensed"
    f = font(kind, 200)
    cap = -f.getbbox("H", anchor="ls")[1]
    left, _top, right, _bottom = f.getbbox(letters, anchor="ls")
    return kind, (right - left) / cap


def fit_letters(
    letters: str, width: float, height: float, squeeze: float = 1.0
) -> tuple[ImageFont.FreeTypeFont, float, float]:
    """The largest font whose `letters` fit a `width` x `height` box (capital height), and
    the horizontal scale that makes them fit: down to `squeeze` of their natural width
    before the capitals get shorter (narrowed letters read better than small ones)."""
    kind, ratio = _letters_shape(letters)
    cap = min(height, width / (ratio * squeeze))
    scale = min(1.0, width / (ratio * cap))
    return font(kind, round(cap / 0.729)), cap, scale


def draw_letters(
    canvas: Image.Image,
    letters: str,
    centre: Pt,
    box: tuple[float, float],
    fill: RGBA,
    halo: RGBA | None = None,
    halo_width: int = 0,
    squeeze: float = 1.0,
) -> None:
    """`letters` centred on `centre` (by their ink, not their advance), as large as the
    box allows, narrowed down to `squeeze` of their width if that keeps them taller."""
    f, _cap, scale = fit_letters(letters, *box, squeeze=squeeze)
    probe = ImageDraw.Draw(canvas)
    left, top, right, bottom = probe.textbbox((0, 0), letters, font=f, anchor="ls")
    pad = halo_width + 2
    w, h = math.ceil(right - left) + 2 * pad, math.ceil(bottom - top) + 2 * pad
    layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    origin = (pad - left, pad - top)
    if halo is not None and halo_width:
        ld.text(
            origin,
            letters,
            font=f,
            fill=fill,
            anchor="ls",
            stroke_width=halo_width,
            stroke_fill=halo,
        )
    ld.text(origin, letters, font=f, fill=fill, anchor="ls")
    if scale < 1.0:
        layer = layer.resize((max(1, round(w * scale)), h), Image.Resampling.LANCZOS)
    canvas.alpha_composite(
        layer, (round(centre[0] - layer.width / 2), round(centre[1] - layer.height / 2))
    )


def _crown(
    draw: ImageDraw.ImageDraw, cx: float, top: float, w: float, theme: Theme, lw: int
) -> None:
    h = w * 0.62
    pts = [
        (cx - w / 2, top + h),
        (cx - w / 2, top + h * 0.18),
        (cx - w / 4, top + h * 0.55),
        (cx, top),
        (cx + w / 4, top + h * 0.55),
        (cx + w / 2, top + h * 0.18),
        (cx + w / 2, top + h),
    ]
    draw.polygon(pts, fill=theme.crown, outline=theme.crown_line, width=lw)


def _letter_box(sprite: PieceSprite, tile: float, half: float, gap: float) -> tuple[float, float]:
    """Where the letters go on a token with room for the whole glyph around them."""
    return (
        2 * (RINGS_X[1] * half - gap) * 1.06,
        min(2 * (RINGS_Y[1] * half - gap), tile * (0.40 if len(sprite.letters) < 2 else 0.3)),
    )


def _compact_rings(inner: float) -> tuple[float, ...]:
    """Rings 1-3 spread over what the letters leave, from `inner` (a fraction of the glyph's
    half-extent) to the edge."""
    inner = min(inner, 0.93)
    return (0.0, inner, inner + (1.0 - inner) * 0.5, 1.0)


def _token(
    canvas: Image.Image,
    draw: ImageDraw.ImageDraw,
    sprite: PieceSprite,
    glyph: Glyph,
    size: int,
    theme: Theme,
    min_cap: int = 0,
) -> None:
    k = SUPERSAMPLE
    s = size * k
    u = s / 58.0
    tile = s * TOKEN
    x0 = (s - tile) / 2
    y0 = (s - tile) / 2
    radius = tile * 0.2
    fill = theme.fill(sprite.color)
    border = theme.white_line if sprite.color == 0 else theme.black_rim
    bw = max(1, round(1.5 * u))
    # A thin dark ring under the black tile's light rim keeps it crisp on light squares.
    if sprite.color == 1:
        draw.rounded_rectangle(
            (x0 - bw, y0 - bw, x0 + tile + bw, y0 + tile + bw),
            radius + bw,
            fill=theme.black_line,
        )
    draw.rounded_rectangle(
        (x0, y0, x0 + tile, y0 + tile), radius, fill=fill, outline=border, width=bw
    )
    half = tile * GLYPH
    gap = tile * DOT + 1.2 * u
    box = _letter_box(sprite, tile, half, gap)
    squeeze = 1.0
    grid = _Grid(s / 2, s / 2, half)
    if sprite.letters and box[1] < min_cap * k:
        # Too small to read where the picture is shown (a phone): the letters take the
        # middle of the tile at the height asked for, narrowed if need be, and the glyph's
        # rings move out around them (distances are only hinted at this size).
        box = (tile - 2 * bw - 2 * gap, min(min_cap * k, tile * 0.5))
        squeeze = MIN_SQUEEZE
        _f, cap, scale = fit_letters(sprite.letters, *box, squeeze=squeeze)
        ink_w = _letters_shape(sprite.letters)[1] * cap * scale
        grid = _Grid(
            s / 2,
            s / 2,
            half,
            _compact_rings((ink_w / 2 + gap) / half),
            _compact_rings((cap / 2 + gap) / half),
        )
    painter = _GlyphPainter(draw, grid, u, theme, sprite.color, tile * DOT)
    for t in glyph.trails:
        painter.trail(t)
    slides = {(r.start, r.step) for r in glyph.rays if not r.hop}
    for r in sorted(glyph.rays, key=lambda r: r.hop):
        painter.ray(r, covered=(r.start, r.step) in slides)
    if sprite.letters:
        draw_letters(
            canvas,
            sprite.letters,
            (s / 2, s / 2),
            box,
            theme.text(sprite.color),
            fill,
            max(1, round(1.5 * u)),
            squeeze,
        )
    for d in glyph.dots:
        painter.dot(d)
    if sprite.royal:
        w = tile * 0.36
        _crown(draw, s / 2, y0 - w * 0.28, w, theme, max(1, round(1.1 * u)))


def _figure(draw: ImageDraw.ImageDraw, sprite: PieceSprite, size: int, theme: Theme) -> None:
    k = SUPERSAMPLE
    s = size * k
    box = s * 0.9
    ox = (s - box) / 2
    oy = (s - box) / 2 + s * 0.01
    scale = box / 100.0
    fill = theme.fill(sprite.color)
    line = theme.line(sprite.color)
    detail = theme.black_rim if sprite.color == 1 else theme.white_line
    lw = max(1, round(3.6 * scale))

    def tr(pts: tuple[tuple[float, float], ...]) -> list[Pt]:
        return [(ox + x * scale, oy + y * scale) for x, y in pts]

    shapes: tuple[Shape, ...] = figure_shapes(sprite.figure or "pawn")
    for shape in shapes:
        pts = tr(shape.points)
        if shape.detail:
            w = max(1, round(lw * shape.width))
            if shape.closed:
                draw.polygon(pts, fill=detail)
            elif len(pts) >= 2 and pts[0] != pts[-1]:
                draw.line(pts, fill=detail, width=w, joint="curve")
            continue
        if shape.closed:
            draw.polygon(pts, fill=fill)
            draw.line([*pts, pts[0], pts[1]], fill=line, width=lw, joint="curve")
        else:
            draw.line(pts, fill=line, width=lw, joint="curve")
    if sprite.royal and sprite.figure != "king":
        crown_w = box * 0.3
        _crown(draw, ox + crown_w * 0.6, oy, crown_w, theme, max(1, round(1.4 * scale)))


def _reverse_badge(
    canvas: Image.Image,
    draw: ImageDraw.ImageDraw,
    sprite: PieceSprite,
    s: int,
    theme: Theme,
    min_cap: int,
) -> None:
    """A two-sided piece shows its other face as a coin in the lower right corner: a gold
    disc with the other face's letter and a ring in the piece's own colour."""
    r = s * 0.17
    cx, cy = s - r - s * 0.01, s - r - s * 0.01
    ring = max(1, round(s * 0.018))
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=theme.fill(sprite.color))
    inner = r - ring * 1.6
    draw.ellipse(
        (cx - inner, cy - inner, cx + inner, cy + inner),
        fill=theme.crown,
        outline=theme.crown_line,
        width=ring,
    )
    height = max(inner * 1.05, min(min_cap, inner * 1.5))
    draw_letters(canvas, sprite.reverse, (cx, cy), (inner * 1.5, height), theme.crown_line)


WOOD = "#f2d59c"  # a Shogi token's face
IVORY = "#f6e7c4"  # a Xiangqi or Janggi disc's face
EDGE = "#5b3a17"  # the rim of either
PROMOTED_INK = "#c8102e"  # Shogi writes promoted pieces in red
CHARACTER = 0.6  # a character's font size per disc diameter or token height
CHARACTER_INK = 0.86  # the ink height of a CJK character per pixel of font size (about)


def _hex(color: str) -> RGBA:
    return (int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16), 255)


def _characters(
    draw: ImageDraw.ImageDraw, text: str, cx: float, cy: float, px: float, ink: RGBA
) -> None:
    """One character, or two stacked (`成香`), centred on (cx, cy) by their ink."""
    if len(text) == 1:
        f = font("cjk", round(px))
        draw.text((cx, cy), text, font=f, fill=ink, anchor="mm")
        return
    f = font("cjk", round(px * 0.56))
    step = px * 0.5
    for i, ch in enumerate(text):
        draw.text((cx, cy + (i - (len(text) - 1) / 2) * step), ch, font=f, fill=ink, anchor="mm")


def _disc(draw: ImageDraw.ImageDraw, sprite: PieceSprite, s: int, style: Traditional) -> None:
    """A Xiangqi or Janggi piece: an ivory disc, a ring in the side's ink, its character."""
    ink = _hex(style.ink[sprite.color])
    r = s * 0.45
    c = s / 2
    rim = max(1, round(s * 0.035))
    draw.ellipse((c - r, c - r, c + r, c + r), fill=_hex(IVORY), outline=_hex(EDGE), width=rim)
    inner = r * 0.82
    draw.ellipse(
        (c - inner, c - inner, c + inner, c + inner), outline=ink, width=max(1, round(s * 0.018))
    )
    _characters(draw, sprite.characters, c, c, 2 * r * CHARACTER * 1.03, ink)


POINTED = ((0.5, 0.05), (0.81, 0.2), (0.9, 0.95), (0.1, 0.95), (0.19, 0.2))
"""A Shogi token's outline in its box, point up (the owner's forward)."""


def _pointed(draw: ImageDraw.ImageDraw, sprite: PieceSprite, s: int, style: Traditional) -> None:
    """A Shogi piece: a five-sided wooden token pointing forward, its kanji in the side's
    ink, a promoted piece's in red."""
    ink = _hex(PROMOTED_INK if sprite.promoted else style.ink[sprite.color])
    pts = [(x * s, y * s) for x, y in POINTED]
    draw.polygon(pts, fill=_hex(WOOD))
    draw.line([*pts, pts[0], pts[1]], fill=_hex(EDGE), width=max(1, round(s * 0.03)), joint="curve")
    _characters(draw, sprite.characters, s / 2, s * 0.585, s * 0.75 * CHARACTER * 1.08, ink)


@lru_cache(maxsize=1024)  # 13 KB each at 58 px, 37 KB at 96 px
def sprite_image(
    sprite: PieceSprite,
    size: int,
    theme_name: str,
    upside: bool = False,
    min_cap: int = 0,
    style: Traditional | None = None,
) -> Image.Image:
    """The RGBA picture of `sprite` for a square of `size` pixels. `upside`: the piece's
    forward points down the picture (its glyph is turned around; letters stay upright).
    `min_cap`: the least height of a token's capital letters, in pixels of the picture
    (the board asks for what stays legible when the picture is shown on a phone).
    `style`: draw the traditional piece (a disc or a pointed token with its characters)
    when the sprite has characters; a pointed token is turned around when `upside`."""
    theme = load_theme(theme_name)
    s = size * SUPERSAMPLE
    canvas = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    if style is not None and sprite.characters:
        if style.shape == "disc":
            _disc(draw, sprite, s, style)
        else:
            _pointed(draw, sprite, s, style)
            if upside:
                canvas = canvas.rotate(180)
        return canvas.resize((size, size), Image.Resampling.LANCZOS)
    if sprite.figure is not None:
        _figure(draw, sprite, size, theme)
    else:
        glyph = rotated(sprite.glyph) if upside else sprite.glyph
        _token(canvas, draw, sprite, glyph, size, theme, min_cap)
    if sprite.reverse:
        _reverse_badge(canvas, draw, sprite, s, theme, min_cap * SUPERSAMPLE)
    return canvas.resize((size, size), Image.Resampling.LANCZOS)
