"""Piece diagrams: one piece alone on a small board, every square it reaches marked.

The squares come from the rules engine's own move tables (`rules.tables.compile_square`),
read on an empty board, so the picture shows exactly what the engine plays:

* a filled disc: the piece may move or capture there; a ring: move only; a cross:
  capture only; faded marks: only on the piece's first move (or once per game);
* hoppers get a screen (a grey disc) two squares away on each line, and their captures
  are shown beyond it (a grasshopper's on the one square directly beyond it);
* bent, circular, crooked and multi-path pieces get their paths drawn as lines.

The board is the smallest odd square that holds the piece's longest leap with the piece
in the middle (at least 9x9 for riders), up to 17x17 for the Bat's (1,8) leap.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from PIL import Image, ImageDraw

from renderer.board import encode_png
from renderer.from_rules import find_piece, piece_sprite
from renderer.sprites import SUPERSAMPLE, font, sprite_image
from renderer.theme import RGBA, Theme, load_theme
from rules.betza import Component, Kind
from rules.geometry import Geometry
from rules.tables import (
    CAPTURE,
    COND_ONCE,
    GRASSHOP,
    MOVE,
    Extras,
    SquareMoves,
    compile_square,
)
from rules.variant import PieceType, Variant, load_variant

MAX_BOARD = 17


@dataclass(frozen=True, slots=True)
class _DiagramGeometry(Geometry):
    """A board for pictures only, allowed one size beyond the game boards (17x17) so a
    (1,8) leaper fits with the piece in the middle."""

    def __post_init__(self) -> None:
        if not 1 <= self.files <= MAX_BOARD or not 1 <= self.ranks <= MAX_BOARD:
            raise ValueError(f"a diagram board is at most {MAX_BOARD}x{MAX_BOARD}")


@dataclass(frozen=True, slots=True)
class DiagramData:
    """What a piece diagram shows, as square indices of an n x n board."""

    size: int
    origin: int
    marks: dict[int, int] = field(default_factory=dict)  # square -> MOVE | CAPTURE
    faded: frozenset[int] = frozenset()  # first-move or once-per-game squares only
    screens: frozenset[int] = frozenset()
    paths: tuple[tuple[int, ...], ...] = ()  # squares from the origin, drawn as lines
    files: int = 0  # the board when not `size` x `size`: the variant's own (a confined piece)
    ranks: int = 0
    outside: frozenset[int] = frozenset()  # squares the piece may never stand on (dimmed)

    @property
    def width(self) -> int:
        return self.files or self.size

    @property
    def height(self) -> int:
        return self.ranks or self.size


def _reach(c: Component) -> int:
    if c.kind in (Kind.RIDE, Kind.HOP, Kind.BENT):
        return 4
    points = c.reach()
    far = max((max(abs(x), abs(y)) for x, y in points), default=1)
    return min(far, 4) if c.kind is Kind.PATH_RIDE else far


def board_size(piece: PieceType) -> int:
    comps = (*piece.components, *piece.once_per_game)
    reach = max((_reach(c) for c in comps), default=1)
    if any(c.kind in (Kind.PATH_RIDE,) for c in comps):
        reach = max(reach, 3)
    return min(MAX_BOARD, max(7, 2 * reach + 1))


def _collinear(geo: Geometry, o: int, squares: tuple[int, ...]) -> bool:
    ox, oy = geo.file_of(o), geo.rank_of(o)
    vecs = [(geo.file_of(s) - ox, geo.rank_of(s) - oy) for s in squares]
    x0, y0 = vecs[0]
    return all(x * y0 - y * x0 == 0 for x, y in vecs)


def _confined_origin(
    variant: Variant, piece: PieceType, color: int
) -> tuple[int, frozenset[int] | None, Extras]:
    """Where a piece kept to a region (or with region moves) is shown on its own board: the
    square of its region from which it reaches most, its region moves counted."""
    geo = variant.geometry
    mask = variant.region(piece.region).of(color) if piece.region else None
    extras: Extras = tuple(
        (variant.region(rm.region).of(color), rm.components) for rm in piece.region_moves
    )
    best, best_count = 0, -1
    for o in range(geo.size):
        if mask is not None and o not in mask:
            continue
        sm = compile_square(geo, piece.components, piece.once_per_game, color, o, mask, extras)
        count = len(
            {d for d, _c, _m in sm.leaps}
            | {d for pairs in sm.slides for d, _c in pairs}
            | {d for pairs, *_rest in sm.rays for d, _c in pairs}
            | {d for pairs, _m, _g in sm.hops for d, _c in pairs}
            | {d for d, _c, _m, _a in sm.lames}
            | {d for pairs, *_rest in sm.masked for d, c in pairs if c}
        )
        if count > best_count:
            best, best_count = o, count
    return best, mask, extras


def diagram_data(piece: PieceType, color: int = 0, variant: Variant | None = None) -> DiagramData:
    """The marks of `piece`'s diagram, read from the engine's move table. Given its
    `variant`, a piece kept to a region (the palace) or with moves only in a region (the
    Soldier across the river, Janggi's palace diagonals) is shown on the game's own board,
    where it reaches most, the squares it may never stand on dimmed."""
    if variant is not None and (piece.region or piece.region_moves):
        geo: Geometry = variant.geometry
        o, mask, extras = _confined_origin(variant, piece, color)
        sm = compile_square(geo, piece.components, piece.once_per_game, color, o, mask, extras)
        # Rays of a confined piece pass outside its region: only their stops are marks.
        sm = SquareMoves(
            sm.leaps,
            sm.slides,
            (
                *sm.rays,
                *(
                    (tuple(p for p in pairs if p[1]), m, mf, cf)
                    for pairs, m, mf, cf, hop in sm.masked
                    if not hop
                ),
            ),
            (
                *sm.hops,
                *((pairs, m, hop == GRASSHOP) for pairs, m, _mf, _cf, hop in sm.masked if hop),
            ),
            sm.lames,
            sm.cond,
        )
        data = _marks(geo, sm, o, max(geo.files, geo.ranks))
        outside = frozenset(sq for sq in range(geo.size) if mask is not None and sq not in mask)
        return replace(data, files=geo.files, ranks=geo.ranks, outside=outside)
    n = board_size(piece)
    geo = Geometry(n, n) if n <= 16 else _DiagramGeometry(n, n)
    o = geo.index(n // 2, n // 2)
    sm = compile_square(geo, piece.components, piece.once_per_game, color, o)
    return _marks(geo, sm, o, n)


def _marks(geo: Geometry, sm: SquareMoves, o: int, n: int) -> DiagramData:
    """The marks, screens and paths of the move table `sm` of a piece on `o`."""
    screens: set[int] = set()
    for pairs, _mode, _grass in sm.hops:
        squares = [s for s, _ in pairs]
        if len(squares) >= 2:
            screens.add(squares[1] if len(squares) > 2 else squares[0])
    marks: dict[int, int] = {}
    faded: set[int] = set()
    paths: list[tuple[int, ...]] = []

    def mark(sq: int, mode: int) -> None:
        if mode and sq not in screens and sq != o:
            marks[sq] = marks.get(sq, 0) | mode

    for d, _c, mode in sm.leaps:
        mark(d, mode)
    for slide in sm.slides:
        for d, _c in slide:
            if d in screens:
                break
            mark(d, MOVE | CAPTURE)
    for pairs, mode, mfrom, cfrom in sm.rays:
        line = tuple(s for s, _ in pairs)
        for i, d in enumerate(line):
            if d in screens:
                break
            mark(
                d,
                (MOVE if mode & MOVE and i >= mfrom else 0)
                | (CAPTURE if mode & CAPTURE and i >= cfrom else 0),
            )
        if len(line) > 1 and not _collinear(geo, o, line):
            paths.append((o, *line))
    for pairs, mode, grass in sm.hops:
        screen = False
        for d, _c in pairs:
            if not screen:
                screen = d in screens
                continue
            mark(d, mode & (MOVE | CAPTURE))
            if grass:  # the Grasshopper lands directly beyond its screen only
                break
    for d, _c, mode, alts in sm.lames:
        open_alts = [alt for alt in alts if not any(s in screens for s in alt)]
        if open_alts:
            mark(d, mode)
        for alt in alts:
            if alt and not _collinear(geo, o, (*alt, d)):
                paths.append((o, *alt, d))
    for cond, d, _c, mode, alts in sm.cond:
        if d in marks:
            continue
        mark(d, mode)
        if d in marks:
            faded.add(d)
        for alt in alts:
            if alt and not _collinear(geo, o, (*alt, d)) and not cond & COND_ONCE:
                paths.append((o, *alt, d))
    return DiagramData(
        size=n,
        origin=o,
        marks=marks,
        faded=frozenset(faded),
        screens=frozenset(screens),
        paths=tuple(dict.fromkeys(paths)),
    )


def _square_px(n: int) -> int:
    return max(30, min(64, 600 // n))


def _rgb(c: RGBA) -> tuple[int, int, int]:
    return (c[0], c[1], c[2])


def _mark(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, s: float, mode: int, th: Theme, alpha: int
) -> None:
    r = s * 0.19
    if mode == MOVE | CAPTURE:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(*th.both[:3], alpha))
    elif mode == MOVE:
        w = max(2, round(s * 0.07))
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=(*th.move[:3], alpha), width=w)
    else:
        w = max(2, round(s * 0.08))
        q = r * 0.95
        c = (*th.diagram_capture[:3], alpha)
        draw.line([(cx - q, cy - q), (cx + q, cy + q)], fill=c, width=w)
        draw.line([(cx - q, cy + q), (cx + q, cy - q)], fill=c, width=w)


def _screen(draw: ImageDraw.ImageDraw, cx: float, cy: float, s: float, th: Theme) -> None:
    r = s * 0.3
    draw.ellipse(
        (cx - r, cy - r, cx + r, cy + r),
        fill=th.screen,
        outline=(255, 255, 255, 255),
        width=max(1, round(s * 0.04)),
    )


@lru_cache(maxsize=128)
def _mark_image(size: int, mode: int, alpha: int, theme: str) -> Image.Image:
    """A diagram mark for a square of `size` px (mode -1: a screen), drawn at 4x."""
    th = load_theme(theme)
    k = SUPERSAMPLE
    canvas = Image.new("RGBA", (size * k, size * k), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    c = size * k / 2
    if mode < 0:
        _screen(draw, c, c, size * k, th)
    else:
        _mark(draw, c, c, size * k, mode, th, alpha)
    return canvas.resize((size, size), Image.Resampling.LANCZOS)


def _paste_centred(img: Image.Image, mark: Image.Image, cx: float, cy: float) -> None:
    img.paste(mark, (round(cx - mark.width / 2), round(cy - mark.height / 2)), mark)


def _legend_items(data: DiagramData) -> list[tuple[str, int]]:
    modes = set(data.marks.values())
    out = []
    if MOVE | CAPTURE in modes:
        out.append(("move or capture", MOVE | CAPTURE))
    if MOVE in modes:
        out.append(("move only", MOVE))
    if CAPTURE in modes:
        out.append(("capture only", CAPTURE))
    if data.screens:
        out.append(("screen", 0))
    return out


def draw_piece(
    variant: Variant, piece: PieceType, *, color: int = 0, theme: str = "default"
) -> Image.Image:
    th = load_theme(theme)
    data = diagram_data(piece, color, variant)
    n = data.size
    files, ranks = data.width, data.height
    s = _square_px(n)
    pad = 20
    title_h = 46
    legend_h = 36
    board_px = files * s
    board_py = ranks * s
    width = max(board_px + 2 * pad, 520)
    bx = (width - board_px) // 2
    by = pad + title_h
    height = by + board_py + pad // 2 + legend_h + pad // 2
    img = Image.new("RGB", (width, height), _rgb(th.frame))
    draw = ImageDraw.Draw(img)

    def centre(sq: int) -> tuple[float, float]:
        f, r = sq % files, sq // files
        return (bx + f * s + s / 2, by + (ranks - 1 - r) * s + s / 2)

    for sq in range(files * ranks):
        f, r = sq % files, sq // files
        x, y = bx + f * s, by + (ranks - 1 - r) * s
        dark = (f + r) % 2 == 0
        fill = _rgb(th.dark if dark else th.light)
        if sq in data.outside:  # never reached by this piece: dimmed toward the frame
            (r1, g1, b1), (r2, g2, b2) = fill, _rgb(th.frame)
            fill = ((r1 + 2 * r2) // 3, (g1 + 2 * g2) // 3, (b1 + 2 * b2) // 3)
        draw.rectangle((x, y, x + s - 1, y + s - 1), fill=fill)
    ox, oy = centre(data.origin)
    x0, y0 = round(ox - s / 2), round(oy - s / 2)
    img.paste(_rgb(th.origin), (x0, y0, x0 + s, y0 + s), Image.new("L", (s, s), th.origin[3]))
    if data.paths:  # lines across squares: drawn on one layer at twice the size
        k = 2
        layer = Image.new("RGBA", (board_px * k, board_py * k), (*th.path[:3], 0))
        over = ImageDraw.Draw(layer)
        path_color = (*th.path[:3], 170)
        for path in data.paths:
            pts = [((x - bx) * k, (y - by) * k) for x, y in (centre(sq) for sq in path)]
            over.line(pts, fill=path_color, width=max(2, round(s * k * 0.05)), joint="curve")
        small = layer.resize((board_px, board_py), Image.Resampling.BILINEAR)
        img.paste(small, (bx, by), small)
    for sq in data.screens:
        cx, cy = centre(sq)
        _paste_centred(img, _mark_image(s, -1, 255, theme), cx, cy)
    for sq, mode in data.marks.items():
        cx, cy = centre(sq)
        _paste_centred(img, _mark_image(s, mode, 110 if sq in data.faded else 255, theme), cx, cy)
    sprite = sprite_image(piece_sprite(variant, piece.id, color), s, theme, color == 1)
    img.paste(sprite, (round(ox - s / 2), round(oy - s / 2)), sprite)
    # Title: the piece's name and letters, and the variant.
    letters = f" ({piece.letters})" if piece.letters else ""
    title = f"{piece.name}{letters}"
    ft = font("bold", 22)
    draw.text((bx, pad + title_h * 0.45), title, font=ft, fill=_rgb(th.strip_text), anchor="lm")
    fs = font("regular", 14)
    draw.text(
        (bx + board_px, pad + title_h * 0.45),
        variant.name,
        font=fs,
        fill=_rgb(th.coordinates),
        anchor="rm",
    )
    # Legend under the board.
    ly = by + board_py + pad // 2 + legend_h / 2
    lx = float(bx)
    fl = font("regular", 15)
    ms = legend_h * 0.75
    for label, mode in _legend_items(data):
        mark = _mark_image(round(ms * 1.5), mode if mode else -1, 255, theme)
        _paste_centred(img, mark, lx + ms / 2, ly)
        draw.text((lx + ms + 4, ly), label, font=fl, fill=_rgb(th.strip_text), anchor="lm")
        lx += ms + 4 + draw.textlength(label, font=fl) + 18
    if data.faded:
        note = "faded: once per game" if piece.once_per_game else "faded: first move only"
        draw.text((lx, ly), note, font=fl, fill=_rgb(th.coordinates), anchor="lm")
    return img


@lru_cache(maxsize=256)
def _render(variant: Variant, piece_id: str, color: int, theme: str) -> bytes:
    return encode_png(draw_piece(variant, variant.piece(piece_id), color=color, theme=theme))


def render_piece(
    variant: Variant | str, piece: str, *, color: int = 0, theme: str = "default"
) -> bytes:
    """PNG of `piece` (id, letters or name) of `variant` (object or id) alone on a small
    board with every square it reaches marked. KeyError names the pieces when there is
    no such piece."""
    v = load_variant(variant) if isinstance(variant, str) else variant
    p = find_piece(v, piece)
    if color not in (0, 1):
        raise ValueError(f"color must be 0 (White) or 1 (Black), not {color!r}")
    return _render(v, p.id, color, theme)
