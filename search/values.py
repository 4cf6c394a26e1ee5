"""Piece values and square tables derived from how the pieces move, with no tuning per variant.

A piece is worth what it can reach. For every square of the variant's own board we list the
squares the piece could go to on an empty board and weight each by the chance that its way
is open: a ride's k-th square counts `OPEN ** (k - 1)`, a lame leap counts the chance that
one of its paths is clear, a hop the chance of exactly one screen. The average over the board
is the piece's mobility. Its value is then

    value = KNIGHT * (mobility * forward * bound / knight_mobility) ** EXPONENT

where `knight_mobility` is that of a Knight on the same board (so values mean the same on
5x5 and 16x16 boards), `forward` penalises a piece that cannot come back (1 - half of its
forward share) and `bound` a piece that can visit only part of the board (a Bishop reaches
half of it: 0.5 ** BOUND). The constants were fitted once, over all variants at once, to
the values players agree on (Knight 3.2, Bishop 3.3, Rook 5, Queen 9.5 Pawns; Marshal
and Cardinal 8.8 and 8.3; short leapers, Cannon, Elephant and Camel near their usual
figures): on chess the formula gives N 320, B 314, R 515, Q 943.

A piece confined to a region (the Xiangqi palace) is measured over the squares it may stand
on, with its region moves, and not penalised as bound.

Pieces that only ever go forward (Pawns, Soldiers, promoting or not) are the unit: a Pawn
(`fmW fcF`) is 100 and the others are scaled by their mobility against it, captures
weighing more than moves. Royal pieces have no material value (their loss ends the game),
a two-sided piece is worth the mean of its faces.

The square tables follow from the same counts: a piece gains where it reaches more than on
average (a Knight in the centre, not on the rim), a promoting piece gains as it nears its
promotion zone, by a share of what it would become; a royal piece stays home while the
board is full and walks to the centre in the ending.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cache

from rules.betza import Component, Vector, parse_betza
from rules.geometry import Geometry
from rules.tables import CAPTURE, MOVE, Extras, SquareMoves, compile_square
from rules.variant import PieceType, Variant

OPEN = 0.7  # chance that a square of a ride is empty
EXPONENT = 1.1  # compounds are worth a little more than the sum of their parts
BOUND = 0.2  # exponent of the share of the board a colour-bound piece can visit
KNIGHT = 320  # centipawns, the anchor of every non-pawn value
PAWN = 100  # centipawns, the anchor of forward-only promoting pieces
PAWN_CAPTURE_WEIGHT = 0.7  # a Pawn's worth lies in its captures more than in its steps
CENTRE_WEIGHT = 0.25  # share of a piece's value won or lost by its square's mobility
CENTRE_CAP = 0.35  # ... at most this share either way

_KNIGHT_COMPONENTS = parse_betza("N")
_PAWN_COMPONENTS = parse_betza("fmW fcF", pawnlike=True)
_WAZIR_COMPONENTS = parse_betza("W")


@dataclass(frozen=True, slots=True)
class Reach:
    """What a piece reaches on the empty board, averaged over the squares."""

    moves: float  # weighted squares it can move to
    captures: float  # weighted squares it can capture on
    forward_share: float  # (forward - backward) / all, weighted: 1 for a Pawn
    board_share: float  # share of the board it can ever visit from a square (Bishop 0.5)
    per_square: tuple[float, ...]  # weighted reach (moves and captures) from each square

    @property
    def mobility(self) -> float:
        return (self.moves + self.captures) / 2

    @property
    def pawn_mobility(self) -> float:
        return (1 - PAWN_CAPTURE_WEIGHT) * self.moves + PAWN_CAPTURE_WEIGHT * self.captures

    @property
    def moves_backward(self) -> bool:
        return self.forward_share < 0.999


@dataclass(frozen=True, slots=True)
class PieceValue:
    """A piece's derived value with the facts it was derived from (shown by `/rules`)."""

    piece_id: str
    letters: str
    name: str
    value: int  # centipawns; 0 for a royal piece
    mobility: float
    pawn_class: bool
    board_share: float
    forward_share: float


def _weighted_targets(sm: SquareMoves) -> list[tuple[int, float, int]]:
    """(destination, weight, mode) of every entry of a square's move table."""
    out: list[tuple[int, float, int]] = []
    for d, _c, mode in sm.leaps:
        out.append((d, 1.0, mode))
    for pairs in sm.slides:
        w = 1.0
        for d, _c in pairs:
            out.append((d, w, MOVE | CAPTURE))
            w *= OPEN
    for pairs, mode, mfrom, cfrom in sm.rays:
        w = 1.0
        for i, (d, _c) in enumerate(pairs):
            m = (mode & MOVE if i >= mfrom else 0) | (mode & CAPTURE if i >= cfrom else 0)
            if m:
                out.append((d, w, m))
            w *= OPEN
    for pairs, mode, grass in sm.hops:
        # Landing on the i-th square (0-based) needs exactly one piece among the i before it
        # (a grasshopper's: the one just before it).
        for i, (d, _c) in enumerate(pairs):
            if i:
                out.append((d, (1 if grass else i) * (1 - OPEN) * OPEN ** (i - 1), mode))
    for d, _c, mode, alts in sm.lames:
        blocked = 1.0
        for alt in alts:
            blocked *= 1 - OPEN ** len(alt)
        out.append((d, 1 - blocked, mode))
    return out


Symmetry = tuple[bool, int, int]
"""A symmetry of the board: whether it swaps files and ranks, then the signs of x and y."""
_SYMMETRIES: tuple[Symmetry, ...] = tuple(
    (t, sx, sy) for t in (False, True) for sx in (1, -1) for sy in (1, -1)
)


def _turned(v: Vector, g: Symmetry) -> Vector:
    t, sx, sy = g
    x, y = (v[1], v[0]) if t else v
    return (sx * x, sy * y)


def _shape(c: Component, g: Symmetry) -> Hashable:
    """A component turned by `g`, in a form where the order of its paths does not count."""
    return (
        c.kind,
        frozenset(_turned(v, g) for v in c.vectors),
        c.move,
        c.capture,
        c.initial,
        c.range,
        tuple(
            sorted((_turned(f, g), tuple(sorted(_turned(v, g) for v in ss))) for f, ss in c.second)
        ),
        tuple(sorted(tuple(_turned(v, g) for v in path) for path in c.paths)),
        c.min_move_steps,
        c.pawnlike,
        c.rows,
    )


def symmetries(geo: Geometry, components: tuple[Component, ...]) -> tuple[Symmetry, ...]:
    """The symmetries of the board that map the piece's moves onto themselves (the identity
    first): a Queen has all eight on a square board, a Pawn the mirror of its files. Its
    reach from a square is then its reach from every image of that square, so `reach`
    walks one square of each orbit. Moves bound to rows (`rows`) keep the ranks fixed."""
    identity = Counter(_shape(c, _SYMMETRIES[0]) for c in components)
    rows = any(c.rows for c in components)
    return tuple(
        g
        for g in _SYMMETRIES
        if not (g[0] and geo.files != geo.ranks)
        and not (rows and (g[0] or g[2] < 0))
        and Counter(_shape(c, g) for c in components) == identity
    )


@cache
def _square_map(geo: Geometry, g: Symmetry) -> tuple[int, ...]:
    """Where `g` (about the board's centre) takes each square."""
    t, sx, sy = g
    out = []
    for sq in range(geo.size):
        f, r = geo.file_of(sq), geo.rank_of(sq)
        if t:
            f, r = r, f
        if sx < 0:
            f = geo.files - 1 - f
        if sy < 0:
            r = geo.ranks - 1 - r
        out.append(geo.index(f, r))
    return tuple(out)


def reach(
    geo: Geometry,
    components: tuple[Component, ...],
    mask: frozenset[int] | None = None,
    extras: Extras = (),
    *,
    turned: bool = True,
) -> Reach:
    """Weighted reach of a White piece with these components on an empty board of `geo`,
    confined to `mask` (its region: averaged over the squares it can stand on) and with its
    region moves `extras`. Initial-only and once-per-game moves are left out: they are not
    what a piece is worth.

    A free piece is measured on one square of each orbit of its symmetries (a quarter to an
    eighth of the board for most pieces), each image taking the same figures turned: the
    sums then add in another order than square by square (the same to 1e-12). `turned`
    False walks every square (what the tests compare with)."""
    comps = tuple(c for c in components if not c.initial)
    size = geo.size
    free = turned and mask is None and not extras
    group = symmetries(geo, comps) if free else _SYMMETRIES[:1]
    maps = [_square_map(geo, g) for g in group]
    stands = [o for o in range(size) if mask is None or o in mask]
    # Each square's representative (the first square of its orbit) and the symmetry taking
    # the representative there.
    rep = [-1] * size
    turn = [0] * size
    for o in stands:
        if rep[o] < 0:
            for gi, image in enumerate(maps):
                if rep[image[o]] < 0:
                    rep[image[o]] = o
                    turn[image[o]] = gi
    moves = captures = forward = backward = 0.0
    per_square = [-1.0] * size  # never there (outside the region): filled with the mean below
    targets: dict[int, list[int]] = {}  # a representative's destinations
    for o in stands:
        if rep[o] != o:
            continue
        sm = compile_square(geo, comps, (), 0, o, mask, extras)
        files = geo.files
        oy, ox = divmod(o, files)
        here = m_sum = c_sum = 0.0
        by_sign = [0.0, 0.0, 0.0, 0.0]  # weight going up, down, right, left
        # Two ways to one square (a circular rider both ways round, Q and AD) count as the
        # chance that either is open, not twice.
        closed: dict[tuple[int, int], float] = {}
        for d, w, mode in _weighted_targets(sm):
            for m in (MOVE, CAPTURE):
                if mode & m:
                    closed[d, m] = closed.get((d, m), 1.0) * (1 - w)
        dests = []
        for (d, mode), shut in closed.items():
            w = 1 - shut
            if mode & MOVE:
                m_sum += w
                here += w / 2
            if mode & CAPTURE:
                c_sum += w
                here += w / 2
            dy, dx = divmod(d, files)
            dy -= oy
            dx -= ox
            if dy:
                by_sign[0 if dy > 0 else 1] += w
            if dx:
                by_sign[2 if dx > 0 else 3] += w
            dests.append(d)
        targets[o] = dests
        for gi, image in enumerate(maps):
            s = image[o]
            if rep[s] != o or turn[s] != gi:
                continue
            t, _sx, sy = group[gi]
            up, down = (by_sign[2], by_sign[3]) if t else (by_sign[0], by_sign[1])
            if sy < 0:
                up, down = down, up
            moves += m_sum
            captures += c_sum
            forward += up
            backward += down
            per_square[s] = here
    inside = [w for w in per_square if w >= 0]
    mean = sum(inside) / len(inside) if inside else 0.0
    per_square = [w if w >= 0 else mean for w in per_square]

    def reached(s: int) -> list[int]:
        m = maps[turn[s]]
        return [m[d] for d in targets[rep[s]]]

    total = forward + backward
    count = len(stands) or 1
    return Reach(
        moves=moves / count,
        captures=captures / count,
        forward_share=(forward - backward) / total if total else 0.0,
        # Relative to the squares it may stand on (its region, for a confined piece).
        board_share=_board_share(size, stands, reached, whole=mask is None),
        per_square=tuple(per_square),
    )


def _board_share(
    size: int, stands: list[int], reached: Callable[[int], list[int]], whole: bool
) -> float:
    """The mean share of the squares it may stand on that a piece can visit from one of
    them, moving back and forth (a Bishop 0.5). `whole`: it may stand anywhere, so that when
    its moves lead from the first square everywhere, nothing is bound."""
    count = len(stands) or 1
    if whole and stands:
        seen = {stands[0]}
        todo = [stands[0]]
        while todo and len(seen) < size:
            for d in reached(todo.pop()):
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        if len(seen) == size:
            return 1.0
    neighbours: list[set[int]] = [set() for _ in range(size)]
    for o in stands:
        for d in reached(o):
            neighbours[o].add(d)
            neighbours[d].add(o)
    component_size = [0] * size
    for s in stands:
        if component_size[s]:
            continue
        members = [s]
        seen = {s}
        i = 0
        while i < len(members):
            for n in neighbours[members[i]]:
                if n not in seen:
                    seen.add(n)
                    members.append(n)
            i += 1
        for m in members:
            component_size[m] = len(members)
    return sum(component_size[s] for s in stands) / count / count


def _raw_piece_worth(r: Reach, bound: bool = True) -> float:
    forward = 1 - 0.5 * max(0.0, r.forward_share)
    return float(r.mobility * forward * (r.board_share**BOUND if bound else 1.0))


def is_pawn_class(piece: PieceType, r: Reach) -> bool:
    """Forward-only pieces that promote, or that step forward only and never promote (the
    Xiangqi and Janggi Soldier), are measured against the Pawn."""
    if piece.royal or r.moves_backward:
        return False
    return piece.promotion is not None or r.forward_share > 0.5


def turns_over(variant: Variant, piece: PieceType) -> str | None:
    """The other side of a piece that must promote everywhere (Kyoto Shogi's pieces turn
    over after every move, Micro Shogi's on every capture): like a two-sided piece it is
    worth the mean of its sides. None for every other piece."""
    promotion = piece.promotion
    if promotion is None or promotion.zone is None or not promotion.mandatory:
        return None
    if len(promotion.to) != 1:
        return None
    zone = variant.region(promotion.zone)
    if any(len(squares) != variant.geometry.size for squares in zone.squares):
        return None
    return promotion.to[0]


def _anchor(geo: Geometry) -> tuple[float, float]:
    """The value that anchors the non-pawn pieces and the raw worth it stands for: the
    Knight's, or on a board where a Knight cannot move (one rank or file: 1D Chess) the
    Wazir's, valued as the formula values it on 8x8; (0, 1) when nothing can move (1x1)."""
    knight = _raw_piece_worth(reach(geo, _KNIGHT_COMPONENTS))
    if knight > 0:
        return KNIGHT, knight
    wazir = _raw_piece_worth(reach(geo, _WAZIR_COMPONENTS))
    if wazir == 0:
        return 0.0, 1.0
    chess = Geometry(8, 8)
    ratio = _raw_piece_worth(reach(chess, _WAZIR_COMPONENTS)) / _raw_piece_worth(
        reach(chess, _KNIGHT_COMPONENTS)
    )
    return KNIGHT * ratio**EXPONENT, wazir


class VariantValues:
    """Every piece's reach and value in one variant (computed once per variant)."""

    def __init__(self, variant: Variant) -> None:
        geo = variant.geometry
        self.variant = variant
        self.reach: dict[str, Reach] = {
            p.id: reach(
                geo,
                p.components,
                variant.region(p.region).of(0) if p.region else None,
                tuple((variant.region(rm.region).of(0), rm.components) for rm in p.region_moves),
            )
            for p in variant.pieces
        }
        anchor, knight = _anchor(geo)
        # A board of one rank leaves a Pawn no move: then every Pawn-class piece is one Pawn.
        pawn = reach(geo, _PAWN_COMPONENTS).pawn_mobility or 1.0
        own: dict[str, float] = {}
        for p in variant.pieces:
            r = self.reach[p.id]
            if p.royal:
                own[p.id] = 0.0
            elif is_pawn_class(p, r):
                own[p.id] = PAWN * (r.pawn_mobility / pawn) ** EXPONENT
            else:
                # A piece kept in its region by rule (the palace, its own half) is measured
                # where it stands, not also penalised as colour-bound.
                worth = _raw_piece_worth(r, bound=not p.region)
                own[p.id] = anchor * (worth / knight) ** EXPONENT
        self.values: dict[str, int] = {}
        for p in variant.pieces:
            v = own[p.id]
            other = p.flip if p.flip and p.flip != p.id else turns_over(variant, p)
            if other is not None:
                v = (v + own[other]) / 2
            self.values[p.id] = round(v)

    def table(self) -> tuple[PieceValue, ...]:
        out = []
        for p in self.variant.pieces:
            r = self.reach[p.id]
            out.append(
                PieceValue(
                    piece_id=p.id,
                    letters=p.letters,
                    name=p.name,
                    value=self.values[p.id],
                    mobility=r.mobility,
                    pawn_class=is_pawn_class(p, r),
                    board_share=r.board_share,
                    forward_share=r.forward_share,
                )
            )
        return tuple(out)


_CACHE: OrderedDict[int, tuple[Variant, VariantValues]] = OrderedDict()
_CACHE_SIZE = 32


def variant_values(variant: Variant) -> VariantValues:
    """The values of a variant, cached per variant object (a few recent ones)."""
    key = id(variant)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is variant:
        _CACHE.move_to_end(key)
        return hit[1]
    values = VariantValues(variant)
    _CACHE[key] = (variant, values)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return values


def piece_values(variant: Variant) -> tuple[PieceValue, ...]:
    """Each piece's value in centipawns and what it was derived from, in variant order."""
    return variant_values(variant).table()


__all__ = [
    "PieceValue",
    "Reach",
    "VariantValues",
    "is_pawn_class",
    "piece_values",
    "reach",
    "variant_values",
]
