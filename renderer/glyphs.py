"""Movement glyphs from move definitions: `rules.betza.Component`s in, `Glyph` out.

The glyph is plain data (`renderer.view`), so equal movements give equal glyphs and a
piece that exists only in a data file still gets a meaningful picture:

* leaps (`LEAP`) become dots at their offsets; lame leaps (`LAME`) dots with the
  squares they pass as a thin trail;
* riders (`RIDE`) become rays of their step, limited riders rays with a limit;
* hoppers (`HOP`) become rays marked as hops (drawn barred by a screen);
* bent riders (`BENT`) become a dot on each first step and rays from there outwards;
* multi-path leapers (`PATHS`) become dots on their destinations with every path as a
  thin trail; riders along fixed paths (`PATH_RIDE`) become their paths as trails.

Each mark keeps its mode (move only, capture only, or both), so a Pawn's forward step
(move only) and diagonal capture (capture only) look different.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache

from renderer.view import Dot, Glyph, Mode, Ray, Trail
from rules.betza import Component, Kind, is_multi_step, lame_intermediates, parse_betza
from rules.variant import PieceType


def _mode(c: Component) -> Mode:
    return Mode((Mode.MOVE if c.move else 0) | (Mode.CAPTURE if c.capture else 0))


def _marks(c: Component, initial: bool) -> tuple[list[Dot], list[Ray], list[Trail]]:
    mode = _mode(c)
    first = initial or c.initial
    dots: list[Dot] = []
    rays: list[Ray] = []
    trails: list[Trail] = []
    if c.kind is Kind.LEAP:
        dots.extend(Dot(x, y, mode, initial=first) for x, y in c.vectors)
    elif c.kind is Kind.LAME:
        for v in c.vectors:
            dots.append(Dot(v[0], v[1], mode, lame=True, initial=first))
            trails.append(Trail((*lame_intermediates(v), v), mode))
    elif c.kind in (Kind.RIDE, Kind.HOP):
        hop = c.kind is Kind.HOP
        rays.extend(Ray((0, 0), v, mode, c.range, hop) for v in c.vectors)
    elif c.kind is Kind.BENT:
        first_mode = mode if c.min_move_steps <= 1 else Mode(mode & Mode.CAPTURE)
        for step, seconds in c.second:
            if first_mode:
                dots.append(Dot(step[0], step[1], first_mode, initial=first))
            rays.extend(Ray(step, second, mode) for second in seconds)
    elif c.kind is Kind.PATHS:
        ends = {path[-1] for path in c.paths}
        dots.extend(Dot(x, y, mode, lame=True, initial=first) for x, y in ends)
        trails.extend(Trail(path, mode) for path in c.paths)
    elif c.kind is Kind.PATH_RIDE:
        trails.extend(Trail(path, mode, ride=True) for path in c.paths)
    else:  # pragma: no cover - every kind of the engine is handled above
        raise ValueError(f"no glyph for movement kind {c.kind}")
    return dots, rays, trails


def _merge_dots(dots: Iterable[Dot]) -> tuple[Dot, ...]:
    """One dot per square and style: a square reached by a move-only part and by a
    capture-only part (Walker-like pieces) is a move-or-capture square."""
    merged: dict[tuple[int, int, bool, bool], Mode] = {}
    for d in dots:
        key = (d.x, d.y, d.lame, d.initial)
        merged[key] = Mode(merged.get(key, Mode(0)) | d.mode)
    # A square both a plain and an initial-only (or lame) move reaches shows the plain one.
    plain = {(x, y): mode for (x, y, lame, ini), mode in merged.items() if not lame and not ini}
    out = []
    for (x, y, lame, ini), mode in merged.items():
        if (lame or ini) and (x, y) in plain and plain[(x, y)] & mode == mode:
            continue
        out.append(Dot(x, y, mode, lame, ini))
    return tuple(sorted(out))


def _merge_rays(rays: Iterable[Ray]) -> tuple[Ray, ...]:
    merged: dict[tuple[tuple[int, int], tuple[int, int], int | None, bool], Mode] = {}
    for r in rays:
        key = (r.start, r.step, r.limit, r.hop)
        merged[key] = Mode(merged.get(key, Mode(0)) | r.mode)
    return tuple(sorted(Ray(s, st, m, lim, hop) for (s, st, lim, hop), m in merged.items()))


def glyph_for(components: Iterable[Component], once: Iterable[Component] = ()) -> Glyph:
    """The glyph of a movement (White's orientation). `once` are the royal piece's
    once-per-game moves, shown like initial-only moves."""
    return _glyph(tuple(components), tuple(once))


@lru_cache(maxsize=1024)
def _glyph(components: tuple[Component, ...], once: tuple[Component, ...]) -> Glyph:
    dots: list[Dot] = []
    rays: list[Ray] = []
    trails: list[Trail] = []
    for comps, initial in ((components, False), (once, True)):
        for c in comps:
            d, r, t = _marks(c, initial)
            dots.extend(d)
            rays.extend(r)
            trails.extend(t)
    return Glyph(_merge_dots(dots), _merge_rays(rays), tuple(sorted(set(trails))))


_FIGURE_BETZA = {
    "king": "K",
    "queen": "Q",
    "rook": "R",
    "bishop": "B",
    "knight": "N",
    "pawn": "fmW fcF",
}


@cache
def _figure_glyph(figure: str) -> Glyph:
    return glyph_for(parse_betza(_FIGURE_BETZA[figure]))


def figure_for(piece: PieceType) -> str | None:
    """The orthodox figurine for a King, Queen, Rook, Bishop, Knight or Pawn that moves
    as in chess (a Pawn's double step and a King's special first moves allowed); None
    for every other piece, which is drawn as a token."""
    figure = piece.id if piece.id in _FIGURE_BETZA else None
    if figure is None:
        return None
    comps = piece.components
    if figure == "pawn":
        comps = tuple(c for c in comps if not is_multi_step(c))
    return figure if glyph_for(comps) == _figure_glyph(figure) else None


def glyph_of_piece(piece: PieceType) -> Glyph:
    """The glyph of a variant's piece, once-per-game moves included."""
    return glyph_for(piece.components, piece.once_per_game)


def rotated(glyph: Glyph) -> Glyph:
    """The glyph as Black sees it (turned half a circle): Black's forward is White's
    backward."""
    return Glyph(
        tuple(sorted(Dot(-d.x, -d.y, d.mode, d.lame, d.initial) for d in glyph.dots)),
        tuple(
            sorted(
                Ray((-r.start[0], -r.start[1]), (-r.step[0], -r.step[1]), r.mode, r.limit, r.hop)
                for r in glyph.rays
            )
        ),
        tuple(
            sorted(
                Trail(tuple((-x, -y) for x, y in t.points), t.mode, t.ride) for t in glyph.trails
            )
        ),
    )
