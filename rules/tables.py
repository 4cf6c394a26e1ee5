"""A variant compiled for move generation: per-square move tables, attack probes, hash keys.

Everything here is computed once per variant (and options) from its `Component`s; move
generation and check detection only read tuples of integers. Pieces are coded as
`type_index << 1 | color` (0 is an empty square, colour 0 is White); a move is one integer
(see `MoveCode` below) so that generation allocates nothing but ints.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache, lru_cache

from rules.betza import Component, Kind, Vector, is_multi_step, lame_intermediates
from rules.geometry import Geometry
from rules.limits import special_attacker
from rules.movement import oriented
from rules.variant import ANY_PIECE, Counting, Variant, load_variant


class MoveCode:
    """Bit layout of a move integer."""

    ORIGIN = 0xFF  # origin square; for drops and placements: the piece type index
    TARGET_SHIFT = 8
    PROMO_SHIFT = 16  # promotion type index, 0 = none
    PROMO_MASK = 0x3F
    KIND_SHIFT = 22
    KIND_MASK = 0x7
    NORMAL, EP, CASTLE, DROP, PLACE, SWAP, PASS = range(7)
    PAWN = 1 << 25  # a pawn-class move: resets the move-count rule
    DOUBLE = 1 << 26  # a lame double (or triple) step: may give an en-passant right
    ONCE = 1 << 27  # uses the royal piece's once-per-game move
    CASTLE_SHIFT = 28  # index of the castling rule (or the Rook for fast castling)
    CASTLE_MASK = 0x3F
    GATE_SHIFT = 34  # S-Chess gating: type index of the reserve piece that enters, 0 = none
    GATE_MASK = 0x3F
    GATED = 1 << 34  # every code at or above this one gates a piece
    GATE_ROOK = 1 << 40  # castling: the piece enters the Rook's square, not the King's


MC = MoveCode
MOVE, CAPTURE = 1, 2
HOP, GRASSHOP = 1, 2
"""A masked ray's hop kind: 0 a plain ray, `HOP` over one screen to any square beyond it,
`GRASSHOP` over one screen to the square directly beyond it only."""
COND_INITIAL, COND_ONCE = 1, 2
NO_LIMIT = 1 << 30
WALL = 1
"""The board code of a wall square: type 0 (no piece type), so never a side's piece; its
odd parity makes it look like a Black piece to the fast walks, which is why every piece
of a variant with walls lists it among the codes it may not capture."""

Pairs = tuple[tuple[int, int], ...]
# A line looking back from a target: its squares, the riders and (range-limited riders)
# that attack along it from their first piece, the hoppers that attack over a screen, and
# for the hoppers that are not plain (`pR4`, `gR`) their rules: (range, grasshopper) pairs,
# one of which must hold (the hopper within the range; a grasshopper's screen adjacent to
# the target).
HopRules = dict[int, tuple[tuple[int, bool], ...]]
RayProbe = tuple[tuple[int, ...], frozenset[int], dict[int, int], frozenset[int], HopRules]
# Per square (lists indexed by square): the codes whose leap from there attacks one
# target, and the rays to the target that cross it (`Tables.check_probes`).
CheckProbes = tuple[list[frozenset[int]], list[tuple[RayProbe, ...]]]
# Targets of a special attacker on one square -> conditions: (kind, alternatives of squares).
SpecialMap = dict[int, list[tuple[int, tuple[tuple[int, ...], ...]]]]
# One castling move of one side: King from, Rook from, squares that must be empty, and the
# move code (fast castling: King from, Rook from, and every (King to, code) between them).
CastleRule = tuple[int, int, tuple[int, ...], int | tuple[tuple[int, int], ...]]


@dataclass(frozen=True, slots=True)
class SquareMoves:
    """All move patterns of one piece (type and colour) from one square.

    `leaps`: (dest, code, mode). `slides`: rays that move and capture from their first
    square, as (dest, code) pairs. `rays`: other rays as (pairs, mode, move_from,
    capture_from). `hops`: hopper rays (pairs, mode, grasshopper: lands only directly beyond
    the screen). `lames`: (dest, code, mode,
    alternatives of squares that must be empty). `cond`: conditional entries
    (condition, dest, code, mode, alternatives) for initial-only and once-per-game moves.
    `masked`: rays of a piece confined to a region, as (pairs, mode, move_from, capture_from,
    hop kind: 0, `HOP` or `GRASSHOP`), where a code of 0 marks a square the ray passes (and
    is blocked by) but may not stop on.
    """

    leaps: tuple[tuple[int, int, int], ...] = ()
    slides: tuple[Pairs, ...] = ()
    rays: tuple[tuple[Pairs, int, int, int], ...] = ()
    hops: tuple[tuple[Pairs, int, bool], ...] = ()
    lames: tuple[tuple[int, int, int, tuple[tuple[int, ...], ...]], ...] = ()
    cond: tuple[tuple[int, int, int, int, tuple[tuple[int, ...], ...]], ...] = ()
    masked: tuple[tuple[Pairs, int, int, int, int], ...] = ()
    # Any pattern besides leaps and slides: most pieces have none, and generation, the
    # engine's most frequent walk, stops after the slides when so.
    exotic: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        exotic = bool(self.rays or self.hops or self.lames or self.cond or self.masked)
        object.__setattr__(self, "exotic", exotic)


EMPTY_MOVES = SquareMoves()


def _mode(c: Component) -> int:
    return (MOVE if c.move else 0) | (CAPTURE if c.capture else 0)


def _flags(c: Component) -> int:
    flags = MC.PAWN if c.pawnlike else 0
    if is_multi_step(c):
        flags |= MC.DOUBLE
    return flags


@dataclass
class _Builder:
    leaps: list[tuple[int, int, int]] = field(default_factory=list)
    slides: list[Pairs] = field(default_factory=list)
    rays: list[tuple[Pairs, int, int, int]] = field(default_factory=list)
    hops: list[tuple[Pairs, int, bool]] = field(default_factory=list)
    lames: list[tuple[int, int, int, tuple[tuple[int, ...], ...]]] = field(default_factory=list)
    cond: list[tuple[int, int, int, int, tuple[tuple[int, ...], ...]]] = field(default_factory=list)
    masked: list[tuple[Pairs, int, int, int, int]] = field(default_factory=list)

    def freeze(self) -> SquareMoves:
        if not (
            self.leaps
            or self.slides
            or self.rays
            or self.hops
            or self.lames
            or self.cond
            or self.masked
        ):
            return EMPTY_MOVES
        return SquareMoves(
            tuple(self.leaps),
            tuple(self.slides),
            tuple(self.rays),
            tuple(self.hops),
            tuple(self.lames),
            tuple(self.cond),
            tuple(self.masked),
        )


def ray_squares(geo: Geometry, o: int, v: Vector, limit: int | None) -> list[int]:
    out: list[int] = []
    s: int | None = o
    n = limit if limit is not None else NO_LIMIT
    while len(out) < n:
        assert s is not None
        s = geo.offset(s, v[0], v[1])
        if s is None:
            break
        out.append(s)
    return out


def _path_squares(geo: Geometry, o: int, path: tuple[Vector, ...]) -> list[int]:
    """Squares of a path from `o`, cut at the first square off the board."""
    out: list[int] = []
    for dx, dy in path:
        s = geo.offset(o, dx, dy)
        if s is None:
            break
        out.append(s)
    return out


Extras = tuple[tuple[frozenset[int], tuple[Component, ...]], ...]


def compile_square(
    geo: Geometry,
    comps: tuple[Component, ...],
    once: tuple[Component, ...],
    color: int,
    o: int,
    mask: frozenset[int] | None = None,
    extras: Extras = (),
) -> SquareMoves:
    """The move table of a piece with these components, for `color`, from square `o`.

    `mask`: the piece's region (it may stop only on those squares; others still block).
    `extras`: (region, components) moves the piece has while standing in the region, every
    square they pass or reach lying in it."""
    b = _Builder()

    def code(dest: int, flags: int) -> int:
        return o | dest << 8 | flags

    def ray(
        pairs: list[tuple[int, int]], mode: int, hop: int, mfrom: int = 0, cfrom: int = 0
    ) -> None:
        """A ray, its squares already cut to the region it must stay in. Straight riders
        (mfrom = -1) that move and capture alike are `slides`; bent and path riders always
        `rays`, which the special attack maps read."""
        if not pairs:
            return
        if mask is not None and any(s not in mask for s, _c in pairs):
            masked = tuple((s, c if s in mask else 0) for s, c in pairs)
            b.masked.append((masked, mode, max(mfrom, 0), cfrom, hop))
        elif hop:
            b.hops.append((tuple(pairs), mode, hop == GRASSHOP))
        elif mode == MOVE | CAPTURE and mfrom < 0:
            b.slides.append(tuple(pairs))
        else:
            b.rays.append((tuple(pairs), mode, max(mfrom, 0), cfrom))

    def entries(c: Component, cond: int, inside: frozenset[int] | None) -> None:
        mode = _mode(c)
        flags = _flags(c) | (MC.ONCE if cond & COND_ONCE else 0)

        def stop(d: int) -> bool:
            return (mask is None or d in mask) and (inside is None or d in inside)

        def within(squares: list[int]) -> list[int]:
            """The squares up to the first outside the region the move must stay in."""
            if inside is None:
                return squares
            for i, s in enumerate(squares):
                if s not in inside:
                    return squares[:i]
            return squares

        if c.kind in (Kind.LEAP, Kind.LAME):
            for v in sorted(c.vectors):
                dx, dy = oriented(v, color)
                d = geo.offset(o, dx, dy)
                if d is None or not stop(d):
                    continue
                alts: tuple[tuple[int, ...], ...] = ()
                if c.kind is Kind.LAME:
                    mids = [geo.offset(o, *oriented(m, color)) for m in lame_intermediates(v)]
                    between = tuple(m for m in mids if m is not None)
                    if inside is not None and any(m not in inside for m in between):
                        continue
                    alts = (between,)
                if cond:
                    b.cond.append((cond, d, code(d, flags), mode, alts))
                elif alts:
                    b.lames.append((d, code(d, flags), mode, alts))
                else:
                    b.leaps.append((d, code(d, flags), mode))
        elif c.kind is Kind.PATHS:
            by_dest: dict[int, list[tuple[int, ...]]] = {}
            for path in c.paths:
                squares = _path_squares(geo, o, tuple(oriented(v, color) for v in path))
                complete = len(squares) == len(path) and len(within(squares)) == len(squares)
                if complete and stop(squares[-1]):
                    by_dest.setdefault(squares[-1], []).append(tuple(squares[:-1]))
            for d, alt_list in sorted(by_dest.items()):
                alts = tuple(dict.fromkeys(alt_list))
                if cond:
                    b.cond.append((cond, d, code(d, flags), mode, alts))
                else:
                    b.lames.append((d, code(d, flags), mode, alts))
        elif cond:
            raise ValueError("conditional riders are not supported")
        elif c.kind in (Kind.RIDE, Kind.HOP):
            for v in sorted(c.vectors):
                squares = within(ray_squares(geo, o, oriented(v, color), c.range))
                hop = 0 if c.kind is not Kind.HOP else GRASSHOP if c.grasshopper else HOP
                ray([(s, code(s, flags)) for s in squares], mode, hop, -1)
        elif c.kind is Kind.BENT:
            never = NO_LIMIT
            for first, seconds in c.second:
                fx, fy = oriented(first, color)
                s1 = geo.offset(o, fx, fy)
                if s1 is None or not within([s1]):
                    continue
                first_move = 0 if c.min_move_steps <= 1 else never
                if mask is None or s1 in mask:
                    b.rays.append((((s1, code(s1, flags)),), mode, first_move, 0))
                for second in seconds:
                    sx, sy = oriented(second, color)
                    leg = within([s1, *ray_squares(geo, s1, (sx, sy), None)])
                    if len(leg) < 2:
                        continue
                    pairs = [(s, code(s, flags)) for s in leg]
                    ray(pairs, mode, 0, max(1, c.min_move_steps - 1), 1)
        elif c.kind is Kind.PATH_RIDE:
            for path in c.paths:
                squares = within(_path_squares(geo, o, tuple(oriented(v, color) for v in path)))
                ray([(s, code(s, flags)) for s in squares], mode, 0, 0, 0)
        else:  # pragma: no cover - every kind is handled above
            raise ValueError(f"unknown kind {c.kind}")

    row = geo.rank_of(o) if color == 0 else geo.ranks - 1 - geo.rank_of(o)
    for c in comps:
        if (c.rows and row not in c.rows) or color not in c.sides:
            continue
        entries(c, COND_INITIAL if c.initial else 0, None)
    for c in once:
        entries(c, COND_ONCE | (COND_INITIAL if c.initial else 0), None)
    for region, region_comps in extras:
        if o in region:
            for c in region_comps:
                entries(c, 0, region)
    return b.freeze()


def _destinations(sm: SquareMoves) -> set[int]:
    """Every square a move of this table may end on."""
    out = {d for d, _c, _m in sm.leaps} | {d for d, _c, _m, _a in sm.lames}
    out |= {d for _cond, d, _c, _m, _a in sm.cond}
    for pairs in (*sm.slides, *(r[0] for r in sm.rays), *(h[0] for h in sm.hops)):
        out.update(d for d, _c in pairs)
    for pairs, *_rest in sm.masked:
        out.update(d for d, c in pairs if c)
    return out


def _offsets(c: Component) -> list[Vector]:
    """Every offset a component can stop on (with repeats when two paths share one),
    on a board large enough for any variant."""
    if c.kind in (Kind.LEAP, Kind.LAME, Kind.PATHS):
        return list(c.vectors)
    if c.kind in (Kind.RIDE, Kind.HOP):
        n = c.range or 16
        return [(x * k, y * k) for x, y in c.vectors for k in range(1, n + 1)]
    if c.kind is Kind.BENT:
        out = []
        for (fx, fy), seconds in c.second:
            out.append((fx, fy))
            out.extend((fx + sx * k, fy + sy * k) for sx, sy in seconds for k in range(1, 16))
        return out
    return [v for path in c.paths for v in path]


def needs_dedupe(comps: tuple[Component, ...], once: tuple[Component, ...]) -> bool:
    """True when two parts of the movement can yield the same move (Medusa's Q and AD,
    circular and crooked paths): generation must then keep each destination once.
    Moving and capturing are counted apart: they never happen on the same square at once."""
    for flag in ("move", "capture"):
        seen: set[Vector] = set()
        for c in (*comps, *once):
            if not getattr(c, flag):
                continue
            offsets = _offsets(c)
            if len(set(offsets)) != len(offsets) or seen & set(offsets):
                return True
            seen.update(offsets)
    return False


def _is_reverse_probe(c: Component) -> bool:
    """Attacks found by looking back from the target square (cheap, shared by types)."""
    return not c.initial and c.kind in (Kind.LEAP, Kind.RIDE, Kind.HOP)


@dataclass(frozen=True, slots=True)
class InPlace:
    """An in-place promotion (Sittuyin's Pawn), compiled for one code: `zone` the squares it
    may promote from (None: anywhere), the codes it may become, at most `cap` of the new
    piece on the board (0: no limit), anywhere when it is its side's last of its type, and
    whether the promotion must be peaceful (no check, no enemy piece attacked)."""

    zone: frozenset[int] | None
    choices: tuple[int, ...]
    cap: int
    anywhere_if_last: bool
    peaceful: bool


@dataclass
class Tables:
    """The compiled variant. Index lists by piece code unless named otherwise."""

    variant: Variant
    geo: Geometry
    ntypes: int
    type_ids: tuple[str, ...]  # index -> piece id ("" at 0)
    type_index: dict[str, int]
    moves: list[list[SquareMoves | None]]  # compiled on first use: see square_moves()
    dedupe: list[bool]
    royal: list[bool]
    side_codes: tuple[tuple[int, ...], tuple[int, ...]]
    flip: list[int]
    ep_capturer: list[bool]
    ep_victim: list[bool]
    tracked: list[bool]
    initial_leap: list[bool]  # a royal piece with Metamachy's first-move leap
    promo_zone: list[bytes | None]  # per square: 0 none, 1 optional, 2 compulsory
    # Per square, filled with its move table: 1 when some move from there ends in the zone
    # (most of a Pawn's moves are far from it and need no promotion pass).
    promo_from: list[bytearray | None]
    promo_choices: list[tuple[int, ...]]  # codes of the same colour
    promo_pawn_only: list[bool]
    promo_limited: list[bool]
    start_count: list[int]
    hand_type: list[int]  # code -> code it becomes in the captor's hand (captor colour 0)
    family_faces: dict[int, tuple[int, ...]]  # hand type index -> droppable type indices
    no_drop_rows: list[frozenset[int]]
    leap_probes: tuple[list[tuple[tuple[int, frozenset[int]], ...]], ...]
    ray_probes: tuple[list[tuple[RayProbe, ...]], ...]
    special_codes: tuple[tuple[int, ...], tuple[int, ...]]
    has_hoppers: bool
    ep_origins: tuple[list[tuple[int, ...]], ...]  # [color][ep square] -> capturer origins
    z_piece: list[list[int]]
    z_virgin: list[int]
    z_side: int
    z_ep: list[int]
    z_hand: list[list[int]]  # [code] -> key per count
    z_gate: list[list[int]]  # [code] -> key per square (the waiting piece's code)
    z_reserve: list[int]  # [code]
    z_once: tuple[int, int]
    start_virgin: frozenset[int] = frozenset()
    castle_pairs: tuple[tuple[int, int, int], ...] = ()  # (King square, Rook square, key)
    start_at: tuple[int, ...] = ()  # square -> code of the initial array (0: empty)
    castle_squares: frozenset[int] = frozenset()  # King and Rook squares of both sides
    # Castling of each side, its squares mirrored once rather than at every node:
    # [side] -> (King from, Rook from, squares that must be empty, move code) per rule, or
    # with fast castling (King from, Rook from, ((King to, move code), ...) between them).
    castle_rules: tuple[tuple[CastleRule, ...], tuple[CastleRule, ...]] = ((), ())
    castle_rooks: tuple[tuple[tuple[int, int], ...], ...] = ((), ())  # [side][rule] -> from, to
    gate_squares: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())
    demote: tuple[int, ...] = ()  # code -> hand code of the type it promoted from (0: none)
    z_promoted: tuple[int, ...] = ()  # per square: a promoted piece stands there
    mask: list[frozenset[int] | None] = field(default_factory=list)  # the piece's region
    promo_origin: list[bytes | None] = field(default_factory=list)
    """Zone promotions: per origin square, the value (1 optional, 2 compulsory) every move
    from there takes (a move leaving the zone may promote); None when no zone."""
    promo_capture_only: list[bool] = field(default_factory=list)
    immobile: list[bytes | None] = field(default_factory=list)
    """With immobility-illegal: 1 on the squares from which the piece could never move
    (no move or drop may leave it there); None for a piece that can move from anywhere."""
    drop_ok: list[bytes | None] = field(default_factory=list)
    """Per square, 1 where the piece may be dropped (rows, regions, immobility); None: all."""
    one_per_file: list[bool] = field(default_factory=list)
    castle_drop: dict[int, int] = field(default_factory=dict)
    """Placement: castling square -> the code (King or Rook) that, dropped there, is
    unmoved and may castle (`[castling] dropped = true`)."""
    other_colour: list[bool] = field(default_factory=list)
    other_colour_codes: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    any_other_colour: bool = False
    drop_mate: list[int] = field(default_factory=list)  # per type: 0 legal, 1 loss, 2 illegal
    any_drop_mate: int = 0  # the highest drop_mate value of the variant
    turns_back: bool = False
    """Some promoted piece may promote back to what it was (Kyoto, Micro Shogi)."""
    goal_codes: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    castle_wins: tuple[tuple[tuple[int, int, int], ...], ...] = ((), ())
    """[color] -> (King from, Rook from, move code) of each castling move that wins for it."""
    """[color] -> the codes of its goal-zone pieces (all of its codes for "any")."""
    demoted: list[int] = field(default_factory=list)
    kinds: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """A code -> the codes the rules naming its piece count as it: itself and the promoted
    forms that `counts-as` it (same colour)."""
    """A promoted form's code -> the code of the piece it demotes to (same colour), else 0."""
    extras: list[Extras] = field(default_factory=list)  # region moves: (region, components)
    forward: list[tuple[Component, ...] | None] = field(default_factory=list)
    """Pieces whose region rules hide attacks from the reverse probes: the components whose
    attacks are found from the piece's own square instead (None for every other piece)."""
    capture_checker_only: list[bool] = field(default_factory=list)  # Makpong's King
    first_leap_takers: dict[int, frozenset[int]] = field(default_factory=dict)
    """Codes whose checking move takes the first leap from the enemy royal codes listed
    (Cambodian's Rook and King)."""
    blast: bool = False
    """Atomic: captures explode (`Position._explode`)."""
    blast_ring: tuple[tuple[int, ...], ...] = ()  # per square: the eight around it
    blast_immune: tuple[bool, ...] = ()  # per code: not removed by a neighbouring blast
    pseudo_royal: bool = False
    """Extinction with pseudo-royal pieces (`Position._pseudo_royal_codes`)."""
    plain_castling: bool = False
    """No piece is royal (Giveaway): the King castles as a plain piece, attacked or not."""
    z_checks: tuple[tuple[int, ...], ...] = ()
    """N-check: per side, a key per number of checks given (0 for none); empty without."""
    immediate_ends: bool = False
    """Rules that end the game on the board whatever the moves (`Position.decided`)."""
    counting: Counting | None = None  # Makruk's counting rules, when the variant has them
    count_pawns: frozenset[int] = frozenset()  # codes of both colours that stop the count
    forward_hoppers: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    """Codes by colour of the pieces above with a hopping attack (their screens matter)."""
    # special_map() per code and square, filled on first use (a list, not a dict keyed by
    # (code, square): attacked() reads it for every special attacker at every check test).
    special_at: list[list[SpecialMap | None]] = field(default_factory=list)
    local_checks: bool = False
    """A move can check only through its own squares: the royal piece of the side not to
    move is never attacked (checkmate is the goal), and a move changes the board on its
    two squares alone (no explosion, wall, petrified capturer, or reserve piece entering
    behind it; `Position.gives_check`, `Position.is_check_after`)."""
    # check_probes() per colour and target square, filled on first use.
    check_at: list[list[CheckProbes | None]] = field(default_factory=list)
    no_capture: list[frozenset[int]] = field(default_factory=list)
    """Per code: the piece codes it may not capture (empty for almost every piece)."""
    no_screen: list[frozenset[int]] = field(default_factory=list)
    """Per code: the piece codes it may not hop over."""
    restricted: list[bool] = field(default_factory=list)
    """Per code: it has a capture or screen restriction (generated by the slow path)."""
    facing: bool = False
    """Royal pieces facing on an open line matter (flying general or bikjang)."""
    passing: bool = False
    """Passes may end the game (pass or bikjang)."""
    promo_cap: list[int] = field(default_factory=list)
    """Per code: at most this many of a promotion's new piece on the board (0: no limit)."""
    in_place: list[InPlace | None] = field(default_factory=list)
    """Per code: its in-place promotion (Sittuyin's Pawn), else None."""
    any_in_place: bool = False
    walls: bool = False
    """Wall squares may stand on the board (`WALL`): static ones or petrified pieces."""
    petrify: tuple[bool, ...] = ()
    """Per code: the piece turns into a wall when it captures (empty: no such piece)."""
    staged: bool = False
    """Out of check, the legal moves are exactly the pseudo-legal ones that pass a test one
    by one (`Position.move_test`): false where a rule looks at the whole list (compulsory
    captures or drops, gating, in-place promotions, passes, bikjang) or where a move's
    legality is no question of the royal piece's safety (pseudo-royal pieces, blasts)."""

    _sensitive: dict[tuple[int, int], frozenset[int]] = field(default_factory=dict)

    def code(self, piece_id: str, color: int) -> int:
        return self.type_index[piece_id] << 1 | color

    def square_moves(self, code: int, o: int) -> SquareMoves:
        """The move table of piece `code` on square `o`, compiled on first use. (Worker
        threads may race to fill a slot: they compute the same value.)"""
        sm = self.moves[code][o]
        if sm is None:
            piece = self.variant.piece(self.type_ids[code >> 1])
            sm = compile_square(
                self.geo,
                piece.components,
                piece.once_per_game,
                code & 1,
                o,
                self.mask[code],
                self.extras[code],
            )
            self.mark_promotion_square(code, o, sm)
            self.moves[code][o] = sm
        return sm

    def mark_promotion_square(self, code: int, o: int, sm: SquareMoves) -> None:
        """`promo_from[code][o]`: whether a move from `o` may promote (it leaves the
        promotion zone or lands in it) or could strand the piece (immobility-illegal)."""
        near = self.promo_from[code]
        if near is None:
            return
        zone = self.promo_zone[code]
        origin = self.promo_origin[code] if self.promo_origin else None
        stuck = self.immobile[self.flip[code]] if self.immobile else None
        dests = _destinations(sm)
        near[o] = bool(
            (origin is not None and origin[o])
            or (zone is not None and any(zone[d] for d in dests))
            or (stuck is not None and any(stuck[d] for d in dests))
        )

    def check_probes(self, by: int, target: int) -> CheckProbes:
        """The attacks of colour `by` on `target` by way of each square: the leaping codes
        that attack it from there and the rays to it that cross it. Where `target` was not
        attacked before a move, only these, at the move's squares, can attack it after."""
        if not self.check_at:
            self.check_at = [[None] * self.geo.size for _ in (0, 1)]
        found = self.check_at[by][target]
        if found is None:
            size = self.geo.size
            leaps: list[frozenset[int]] = [frozenset()] * size
            for o, codes in self.leap_probes[by][target]:
                leaps[o] = codes
            rays: list[list[RayProbe]] = [[] for _ in range(size)]
            for probe in self.ray_probes[by][target]:
                for sq in probe[0]:
                    rays[sq].append(probe)
            found = (leaps, [tuple(through) for through in rays])
            self.check_at[by][target] = found
        return found

    def special_map(self, code: int, o: int) -> SpecialMap:
        """Targets a special attacker on `o` may capture on, with their conditions:
        (kind, squares) where kind 0 = one of `squares` tuples empty, 1 = all empty,
        2 = once-per-game right still unused, 3 = the piece has never moved, 4 = exactly
        one of the squares occupied (a hopper's screen), 5 = the same with the screen
        not one of the codes that follow the squares (the Janggi Cannon's), 6 and 7 = as
        4 and 5 with the screen the last of the squares (a grasshopper's)."""
        if not self.special_at:
            self.special_at = [[None] * self.geo.size for _ in self.moves]
        found = self.special_at[code][o]
        if found is not None:
            return found
        if self.turns_white(code):
            # Black's piece on `o` is White's on the square opposite, the board turned round.
            last = self.geo.size - 1
            out = {
                last - dest: [
                    (kind, tuple(tuple(last - s for s in alt) for alt in alts))
                    for kind, alts in conds
                ]
                for dest, conds in self.special_map(code ^ 1, last - o).items()
            }
        else:
            out = self.walk_special_map(code, o)
        self.special_at[code][o] = out
        return out

    def turns_white(self, code: int) -> bool:
        """Whether Black's special map of `code` is White's turned round: the same moves
        with no region (a region's mirror is not its turn) and no screens named by code."""
        white = code ^ 1
        return bool(
            code & 1
            and self.mask[code] is None
            and self.mask[white] is None
            and not self.extras[code]
            and not self.extras[white]
            and self.forward[code] == self.forward[white]
            and not (self.no_screen and (self.no_screen[code] or self.no_screen[white]))
        )

    def walk_special_map(self, code: int, o: int) -> SpecialMap:
        """`special_map` compiled from the piece's moves on `o` (not cached)."""
        out: SpecialMap = {}
        comps = self.forward[code]
        if comps is None:
            sm = self.square_moves(code, o)
        else:
            piece = self.variant.piece(self.type_ids[code >> 1])
            color = code & 1
            sm = compile_square(
                self.geo, comps, piece.once_per_game, color, o, self.mask[code], self.extras[code]
            )
            for dest, _c, mode in sm.leaps:
                if mode & CAPTURE:
                    out.setdefault(dest, []).append((1, ((),)))
            rides = [(pairs, CAPTURE, 0, 0, 0) for pairs in sm.slides]
            rides += [
                (pairs, mode, 0, 0, GRASSHOP if grass else HOP) for pairs, mode, grass in sm.hops
            ]
            screens = tuple(sorted(self.no_screen[code])) if self.no_screen else ()
            for pairs, mode, _mf, cfrom, hop in (*rides, *sm.masked):
                if mode & CAPTURE:
                    squares = [s for s, _ in pairs]
                    for i in range(cfrom, len(squares)):
                        if pairs[i][1]:
                            cond: tuple[int, tuple[tuple[int, ...], ...]]
                            kind = 1 if not hop else 4 if hop == HOP else 6
                            if hop and screens:
                                # kinds 5, 7: a hop whose screen may not be one of `screens`
                                cond = (kind + 1, (tuple(squares[:i]), screens))
                            else:
                                cond = (kind, (tuple(squares[:i]),))
                            out.setdefault(squares[i], []).append(cond)
        for dest, _c, mode, alts in sm.lames:
            if mode & CAPTURE:
                out.setdefault(dest, []).append((0, alts))
        for pairs, mode, _mf, cfrom in sm.rays:
            if mode & CAPTURE:
                squares = [s for s, _ in pairs]
                for i in range(cfrom, len(squares)):
                    out.setdefault(squares[i], []).append((1, (tuple(squares[:i]),)))
        for condition, dest, _c, mode, alts in sm.cond:
            if mode & CAPTURE:
                kind = 2 if condition & COND_ONCE else 3
                out.setdefault(dest, []).append((kind, alts or ((),)))
        return out

    def special_lines(self, king: int, by: int) -> frozenset[int]:
        """Squares whose occupant, by leaving, could open a special attacker's path (bent,
        multi-path, circular pieces of colour `by`) to a King on `king`."""
        key = (king, by)
        found = self._sensitive.get(key)
        if found is not None:
            return found
        out: set[int] = set()
        for code in self.special_codes[by]:
            for o in range(self.geo.size):
                for kind, alts in self.special_map(code, o).get(king, ()):
                    if kind < 4:  # hoppers' lines are looked at where they stand
                        for alt in alts:
                            out.update(alt)
        result = frozenset(out)
        self._sensitive[key] = result
        return result


def _hop_rules(odd: dict[int, set[tuple[int, bool]]]) -> HopRules:
    """The rules of the hoppers on one line that are not plain: a plain hop (no range, not
    a grasshopper) of the same piece on the line makes every other rule moot."""
    plain = (NO_LIMIT, False)
    return {code: tuple(sorted(rules)) for code, rules in odd.items() if plain not in rules}


def _interned(pool: dict[frozenset[int], frozenset[int]], items: set[int]) -> frozenset[int]:
    key = frozenset(items)
    return pool.setdefault(key, key)


def castling_pairs(variant: Variant) -> list[tuple[int, int]]:
    """White's (King square, Rook square) pairs that may castle, in rule order."""
    if variant.castling:
        return [(c.king_from, c.rook_from) for c in variant.castling]
    if variant.fast_castling:
        fc = variant.fast_castling
        return [(fc.king_from, r) for r in fc.rooks]
    return []


def _castle_rules(
    variant: Variant,
) -> tuple[
    tuple[tuple[CastleRule, ...], tuple[CastleRule, ...]],
    tuple[tuple[tuple[int, int], ...], ...],
]:
    """Each side's castling moves (see `Tables.castle_rules`) and Rook squares per rule."""
    geo = variant.geometry
    kind = MC.CASTLE << MC.KIND_SHIFT
    rules: list[tuple[CastleRule, ...]] = []
    rooks: list[tuple[tuple[int, int], ...]] = []
    for side in (0, 1):

        def mirrored(sq: int, side: int = side) -> int:
            return geo.mirror(sq) if side else sq

        side_rules: list[CastleRule] = []
        side_rooks: list[tuple[int, int]] = []
        if not variant.castles_side(side):
            pass
        elif variant.castling:
            for i, c in enumerate(variant.castling):
                kf, kt = mirrored(c.king_from), mirrored(c.king_to)
                rf, rt = mirrored(c.rook_from), mirrored(c.rook_to)
                # Every square from the outermost to the innermost of the four (Chess960:
                # the King may end beyond its Rook, or stay), but the King's and Rook's own.
                lo, hi = min(kf, rf, kt, rt), max(kf, rf, kt, rt)
                empty = set(range(lo, hi + 1)) - {kf, rf}
                code = kf | kt << 8 | kind | i << MC.CASTLE_SHIFT
                side_rules.append((kf, rf, tuple(sorted(empty)), code))
                side_rooks.append((rf, rt))
        elif variant.fast_castling:
            fc = variant.fast_castling
            kf = mirrored(fc.king_from)
            for i, r in enumerate(fc.rooks):
                rf = mirrored(r)
                step = 1 if rf > kf else -1
                targets = tuple(
                    (d, kf | d << 8 | kind | i << MC.CASTLE_SHIFT)
                    for d in range(kf + step, rf, step)
                )
                side_rules.append((kf, rf, (), targets))
                side_rooks.append((rf, -1))  # the Rook goes where the King stood
        rules.append(tuple(side_rules))
        rooks.append(tuple(side_rooks))
    return (rules[0], rules[1]), tuple(rooks)


@cache
def tables_for(variant_id: str, options: frozenset[str] = frozenset()) -> Tables:
    """The tables of a built-in variant, built once per process."""
    return build_tables(load_variant(variant_id, options))


def tables_of(variant: Variant) -> Tables:
    """The tables of any variant: a built-in one once per process, a player's definition
    once per loaded definition (the 16 most recently used are kept)."""
    if not variant.digest:
        return tables_for(variant.id, variant.options)
    return _definition_tables(variant)


def warm_tables(variant: Variant) -> Tables:
    """The tables of `variant` built now, with what the first legal-move listing of a game
    would otherwise compile on the spot (every special attacker's map on every square, which
    the pin test of a King reads): a second or more on a 16x16 board, so a bot that has just
    started does it ahead of the first player of a game in progress (issue 31)."""
    t = tables_of(variant)
    for codes in t.special_codes:
        for code in codes:
            for o in range(t.geo.size):
                t.special_map(code, o)
    return t


DEFINITION_TABLES = 16
"""Players' definitions whose tables are kept (the most recently used)."""


@lru_cache(maxsize=DEFINITION_TABLES)
def _definition_tables(variant: Variant) -> Tables:
    return build_tables(variant)


def build_tables(variant: Variant) -> Tables:
    geo = variant.geometry
    pieces = variant.pieces
    ntypes = len(pieces)
    type_ids = ("", *(p.id for p in pieces))
    type_index = {pid: i for i, pid in enumerate(type_ids) if pid}
    ncodes = (ntypes + 1) * 2
    rng = random.Random(0x5EED_FA1B)

    def key() -> int:
        return rng.getrandbits(64)

    # Per-square tables are compiled lazily (`Tables.square_moves`): a piece visits only part
    # of a big board, and a variant nobody plays costs nothing.
    moves: list[list[SquareMoves | None]] = [[] for _ in range(ncodes)]
    dedupe = [False] * ncodes
    royal = [False] * ncodes
    flip = list(range(ncodes))
    ep_capturer = [False] * ncodes
    ep_victim = [False] * ncodes
    tracked = [False] * ncodes
    initial_leap = [False] * ncodes
    promo_zone: list[bytes | None] = [None] * ncodes
    promo_from: list[bytearray | None] = [None] * ncodes
    promo_choices: list[tuple[int, ...]] = [() for _ in range(ncodes)]
    promo_pawn_only = [False] * ncodes
    promo_limited = [False] * ncodes
    promo_origin: list[bytes | None] = [None] * ncodes
    promo_capture_only = [False] * ncodes
    promo_cap = [0] * ncodes
    in_place: list[InPlace | None] = [None] * ncodes
    start_count = [0] * ncodes
    hand_type = list(range(ncodes))
    no_drop_rows: list[frozenset[int]] = [frozenset() for _ in range(ncodes)]
    castling_squares: set[int] = set()
    for rule in variant.castling:
        castling_squares |= {rule.king_from, rule.rook_from}
    if variant.fast_castling:
        castling_squares |= {variant.fast_castling.king_from, *variant.fast_castling.rooks}
    setup_at = dict(variant.setup)
    castling_types = {setup_at[s] for s in castling_squares if s in setup_at}
    castling_types |= set(variant.castling_drops)
    black_at = dict(variant.army(1))
    castling_types |= {
        black_at[geo.mirror(s)] for s in castling_squares if geo.mirror(s) in black_at
    }
    # S-Chess: every piece of the first row gates on its first move, so each is tracked.
    first_rows = (
        frozenset(sq for sq, _pid in variant.setup if geo.rank_of(sq) == 0),
        frozenset(sq for sq, _pid in variant.army(1) if geo.rank_of(sq) == geo.ranks - 1),
    )
    gating_types = (
        {pid for color in (0, 1) for sq, pid in variant.army(color) if sq in first_rows[color]}
        if variant.reserve_in_hand
        else set()
    )

    for i, p in enumerate(pieces, start=1):
        for color in (0, 1):
            code = i << 1 | color
            moves[code] = [None] * geo.size
            dedupe[code] = needs_dedupe(p.components, p.once_per_game)
            royal[code] = p.royal
            if p.flip:
                flip[code] = type_index[p.flip] << 1 | color
            ep_capturer[code] = p.id in variant.ep_capturers
            ep_victim[code] = p.id in variant.ep_victims
            tracked[code] = (
                any(c.initial for c in (*p.components, *p.once_per_game))
                or p.initial_leap is not None
                or p.id in castling_types
                or p.id in gating_types
            )
            no_drop_rows[code] = p.no_drop_rows
            initial_leap[code] = bool(p.initial_leap)
            if p.promotion and p.promotion.in_place:
                promo = p.promotion
                in_place[code] = InPlace(
                    zone=None if promo.zone is None else variant.region(promo.zone).of(color),
                    choices=tuple(type_index[t] << 1 | color for t in promo.to),
                    cap=promo.limit_count,
                    anywhere_if_last=promo.anywhere_if_last,
                    peaceful=promo.peaceful,
                )
            elif p.promotion:
                promo_cap[code] = p.promotion.limit_count
                zone = bytearray(geo.size)
                for sq in range(geo.size):
                    row = geo.row(sq, color)
                    if row in p.promotion.compulsory_rows:
                        zone[sq] = 2
                    elif row in p.promotion.optional_rows:
                        zone[sq] = 1
                if p.promotion.zone is not None:
                    value = 2 if p.promotion.mandatory else 1
                    origin = bytearray(geo.size)
                    for sq in variant.region(p.promotion.zone).of(color):
                        zone[sq] = max(zone[sq], value)
                        origin[sq] = value
                    promo_origin[code] = bytes(origin)
                    promo_capture_only[code] = p.promotion.on_capture
                promo_zone[code] = bytes(zone)
                promo_from[code] = bytearray(geo.size)
                promo_choices[code] = tuple(type_index[t] << 1 | color for t in p.promotion.to)
                promo_pawn_only[code] = p.promotion.pawn_moves_only
                promo_limited[code] = p.promotion.limited_by_start_count
    for color in (0, 1):
        for _sq, pid in variant.army(color):
            start_count[type_index[pid] << 1 | color] += 1

    # Pieces in hand: with free-face drops the hand keeps families, stored as the first face.
    family_faces: dict[int, tuple[int, ...]] = {}
    families: dict[str, list[int]] = {}
    for i, p in enumerate(pieces, start=1):
        if p.family:
            families.setdefault(p.family, []).append(i)
    for i, p in enumerate(pieces, start=1):
        faces = families.get(p.family or "", [i]) if variant.drop_any_face else [i]
        family_faces[faces[0]] = tuple(faces)
        for color in (0, 1):
            hand_type[i << 1 | color] = faces[0] << 1
    # Promoted forms (Shogi's +P) go to the hand as the piece they demote to; with
    # drop-promoted (Kyoto Shogi) that piece may be dropped showing either form.
    demoted = [0] * ncodes
    for i, p in enumerate(pieces, start=1):
        if p.demotes_to is not None:
            base = type_index[p.demotes_to]
            for color in (0, 1):
                hand_type[i << 1 | color] = hand_type[base << 1]
                demoted[i << 1 | color] = base << 1 | color
            if variant.drop_promoted:
                held = hand_type[base << 1] >> 1
                family_faces[held] = (*family_faces.get(held, (held,)), i)

    leap_probes: list[list[tuple[tuple[int, frozenset[int]], ...]]] = []
    ray_probes: list[list[tuple[RayProbe, ...]]] = []
    special_codes: list[tuple[int, ...]] = []
    has_hoppers = False
    for by in (0, 1):
        leap_map: list[dict[int, set[int]]] = [{} for _ in range(geo.size)]
        # (vector) -> riders, limits, hoppers, rules of the hoppers that are not plain
        ray_kinds: dict[
            Vector, tuple[set[int], dict[int, int], set[int], dict[int, set[tuple[int, bool]]]]
        ] = {}
        specials: list[int] = []
        # Leapers grouped by vector: each vector's squares are walked once, not once per
        # piece that has it (a 16x16 board's tables were built in 0.4 s, mostly here).
        leapers: dict[Vector, set[int]] = {}
        for i, p in enumerate(pieces, start=1):
            code = i << 1 | by
            restricted = bool(p.cannot_capture or p.cannot_hop_over)
            is_special = special_attacker(p.components, p.once_per_game) or bool(
                p.region or p.region_moves or restricted
            )
            for c in p.components:
                if not c.capture or not _is_reverse_probe(c) or p.region or restricted:
                    continue
                for v in c.vectors:
                    dx, dy = oriented(v, by)
                    if c.kind is Kind.LEAP:
                        leapers.setdefault((dx, dy), set()).add(code)
                    else:
                        riders, limits, hoppers, odd = ray_kinds.setdefault(
                            (dx, dy), (set(), {}, set(), {})
                        )
                        if c.kind is Kind.HOP:
                            has_hoppers = True
                            hoppers.add(code)
                            odd.setdefault(code, set()).add((c.range or NO_LIMIT, c.grasshopper))
                        else:
                            riders.add(code)
                            if c.range is not None:
                                limits[code] = c.range
            if is_special:
                specials.append(code)
        for (dx, dy), leaping in leapers.items():
            for t in range(geo.size):
                o = geo.offset(t, -dx, -dy)
                if o is not None:
                    leap_map[t].setdefault(o, set()).update(leaping)
        # The same attacker sets recur on every square: one shared object per distinct set
        # (and one per ray direction) keeps the tables of the big boards tens of MB smaller.
        shared: dict[frozenset[int], frozenset[int]] = {}
        leap_probes.append(
            [
                tuple((o, _interned(shared, codes)) for o, codes in sorted(leap_map[t].items()))
                for t in range(geo.size)
            ]
        )
        kinds = [
            (vector, frozenset(riders), dict(limits), frozenset(hoppers), _hop_rules(odd))
            for vector, (riders, limits, hoppers, odd) in sorted(ray_kinds.items())
        ]
        probes_by_square: list[tuple[RayProbe, ...]] = []
        for t in range(geo.size):
            entries: list[RayProbe] = []
            for (dx, dy), riders_set, limits_map, hoppers_set, rules in kinds:
                squares = tuple(ray_squares(geo, t, (-dx, -dy), None))
                if not squares:
                    continue
                entries.append((squares, riders_set, limits_map, hoppers_set, rules))
            probes_by_square.append(tuple(entries))
        ray_probes.append(probes_by_square)
        special_codes.append(tuple(specials))

    # En passant: from which squares a capturer's diagonal forward capture hits `ep`.
    ep_origins: list[list[tuple[int, ...]]] = []
    for color in (0, 1):
        forward = 1 if color == 0 else -1
        per_square: list[tuple[int, ...]] = []
        for ep in range(geo.size):
            origins: list[int] = []
            for dx in (-1, 1):
                o = geo.offset(ep, dx, -forward)
                if o is not None:
                    origins.append(o)
            per_square.append(tuple(origins))
        ep_origins.append(per_square)

    mask: list[frozenset[int] | None] = [None] * ncodes
    extras: list[Extras] = [() for _ in range(ncodes)]
    forward_comps: list[tuple[Component, ...] | None] = [None] * ncodes
    for i, p in enumerate(pieces, start=1):
        for color in (0, 1):
            code = i << 1 | color
            if p.region:
                mask[code] = variant.region(p.region).of(color)
            extras[code] = tuple(
                (variant.region(rm.region).of(color), rm.components) for rm in p.region_moves
            )
            if p.region or p.cannot_capture or p.cannot_hop_over:
                forward_comps[code] = p.components
            elif p.region_moves:
                forward_comps[code] = tuple(c for c in p.components if not _is_reverse_probe(c))
            if p.region_moves:
                dedupe[code] = True  # a region move may repeat one of the piece's own
    forward_hoppers = tuple(
        tuple(
            code
            for code in range(2 | color, ncodes, 2)
            if forward_comps[code] is not None
            and any(
                c.kind is Kind.HOP and c.capture
                for c in (*(forward_comps[code] or ()), *(c for _r, cs in extras[code] for c in cs))
            )
        )
        for color in (0, 1)
    )

    no_capture = [frozenset[int]() for _ in range(ncodes)]
    no_screen = [frozenset[int]() for _ in range(ncodes)]
    for i, p in enumerate(pieces, start=1):
        for color in (0, 1):
            no_capture[i << 1 | color] = frozenset(
                type_index[x] << 1 | c for x in p.cannot_capture for c in (0, 1)
            )
            no_screen[i << 1 | color] = frozenset(
                type_index[x] << 1 | c for x in p.cannot_hop_over for c in (0, 1)
            )

    max_count = 2 * geo.size
    tables = Tables(
        variant=variant,
        geo=geo,
        ntypes=ntypes,
        type_ids=type_ids,
        type_index=type_index,
        moves=moves,
        dedupe=dedupe,
        royal=royal,
        side_codes=(
            tuple(i << 1 for i in range(1, ntypes + 1)),
            tuple(i << 1 | 1 for i in range(1, ntypes + 1)),
        ),
        flip=flip,
        ep_capturer=ep_capturer,
        ep_victim=ep_victim,
        tracked=tracked,
        initial_leap=initial_leap,
        promo_zone=promo_zone,
        promo_from=promo_from,
        promo_choices=promo_choices,
        promo_pawn_only=promo_pawn_only,
        promo_limited=promo_limited,
        start_count=start_count,
        hand_type=hand_type,
        family_faces=family_faces,
        no_drop_rows=no_drop_rows,
        leap_probes=tuple(leap_probes),
        ray_probes=tuple(ray_probes),
        special_codes=(special_codes[0], special_codes[1]),
        has_hoppers=has_hoppers,
        ep_origins=tuple(ep_origins),
        z_piece=[[key() for _ in range(geo.size)] for _ in range(ncodes)],
        z_virgin=[key() for _ in range(geo.size)],
        z_side=key(),
        z_ep=[key() for _ in range(geo.size)],
        z_hand=[[key() for _ in range(max_count + 1)] for _ in range(ncodes)],
        z_gate=[[key() for _ in range(geo.size)] for _ in range(ncodes)],
        z_reserve=[key() for _ in range(ncodes)],
        z_once=(key(), key()),
        mask=mask,
        promo_origin=promo_origin,
        promo_capture_only=promo_capture_only,
        promo_cap=promo_cap,
        in_place=in_place,
        any_in_place=any(x is not None for x in in_place),
        demoted=demoted,
        extras=extras,
        forward=forward_comps,
        forward_hoppers=(forward_hoppers[0], forward_hoppers[1]),
        no_capture=no_capture,
        no_screen=no_screen,
        restricted=[bool(a or b) for a, b in zip(no_capture, no_screen, strict=True)],
        walls=bool(variant.walls or variant.petrify),
        facing=variant.flying_general or variant.bikjang,
        passing=variant.passing or variant.bikjang,
    )
    # Castling rights are hashed as King-Rook pairs, not as separate unmoved flags: a
    # King that has moved and a Rook that has not make no right, whatever their flags.
    pairs: list[tuple[int, int, int]] = []
    for color in (0, 1):
        for king_sq, rook_sq in castling_pairs(variant):
            if color:
                king_sq, rook_sq = geo.mirror(king_sq), geo.mirror(rook_sq)
            pair_key = key()
            if not variant.castles_side(color):
                continue  # Horde's White: no castling right at all
            pairs.append((king_sq, rook_sq, pair_key))
            if not variant.reserve_in_hand:  # there, an unmoved King may still gate
                tables.z_virgin[king_sq] = 0
                tables.z_virgin[rook_sq] = 0
    tables.castle_pairs = tuple(pairs)
    tables.castle_rules, tables.castle_rooks = _castle_rules(variant)
    tables.castle_wins = tuple(
        tuple(
            (kf, rf, code)
            for i, (kf, rf, _empty, code) in enumerate(tables.castle_rules[side])
            if variant.castling and side in variant.castling[i].wins and isinstance(code, int)
        )
        for side in (0, 1)
    )
    tables.castle_squares = frozenset(sq for king, rook, _k in pairs for sq in (king, rook))
    if variant.castling_drops:
        king_id, rook_id = variant.castling_drops
        for king_sq, rook_sq, _k in pairs:
            color = 0 if geo.rank_of(king_sq) < geo.ranks // 2 else 1
            tables.castle_drop[king_sq] = type_index[king_id] << 1 | color
            tables.castle_drop[rook_sq] = type_index[rook_id] << 1 | color
    virgin = set()
    start_at = [0] * geo.size
    for color in (0, 1):
        for square, pid in variant.army(color):
            start_at[square] = type_index[pid] << 1 | color
            if tracked[type_index[pid] << 1 | color]:
                virgin.add(square)
    tables.start_virgin = frozenset(virgin)
    tables.start_at = tuple(start_at)
    if variant.reserve_in_hand:
        tables.gate_squares = first_rows
    demote = [0] * ncodes
    if variant.demote_to_hand:
        for i, p in enumerate(pieces, start=1):
            for target in p.promotion.to if p.promotion else ():
                for color in (0, 1):
                    demote[type_index[target] << 1 | color] = hand_type[i << 1]
    tables.demote = tuple(demote)
    tables.capture_checker_only = [False] * ncodes
    takers: dict[int, set[int]] = {}
    for i, p in enumerate(pieces, start=1):
        for color in (0, 1):
            tables.capture_checker_only[i << 1 | color] = p.capture_checker_only
            for pid in p.first_leap_lost_by:
                takers.setdefault(type_index[pid] << 1 | color ^ 1, set()).add(i << 1 | color)
    tables.first_leap_takers = {code: frozenset(kings) for code, kings in takers.items()}
    tables.plain_castling = not any(p.royal for p in variant.pieces)
    for p in variant.pieces:
        for color in (0, 1):
            forms = [type_index[q.id] << 1 | color for q in variant.pieces if q.counts_as == p.id]
            tables.kinds[type_index[p.id] << 1 | color] = (type_index[p.id] << 1 | color, *forms)
    if variant.zone is not None:
        goal = variant.zone.pieces
        tables.goal_codes = (
            tables.side_codes[0]
            if goal[0] == ANY_PIECE
            else tables.kinds[type_index[goal[0]] << 1],
            tables.side_codes[1]
            if goal[1] == ANY_PIECE
            else tables.kinds[type_index[goal[1]] << 1 | 1],
        )
    tables.pseudo_royal = variant.extinction is not None and variant.extinction.pseudo_royal
    tables.local_checks = variant.goal == "checkmate" and not (
        tables.pseudo_royal
        or tables.walls
        or variant.blast is not None
        or variant.reserve
        or variant.reserve_black
    )
    if tables.walls:
        # A wall is code WALL: occupied for every walk (it blocks riders and lame leapers and
        # screens hoppers, as in Fairy-Stockfish), but nobody's: no piece may capture it.
        for code in range(2, ncodes):
            tables.no_capture[code] = tables.no_capture[code] | {WALL}
            tables.restricted[code] = True
    if variant.petrify:
        tables.petrify = tuple(
            code >= 2 and type_ids[code >> 1] in variant.petrify for code in range(ncodes)
        )
    if variant.blast is not None:
        tables.blast = True
        ring = []
        for sq in range(geo.size):
            f, r = geo.file_of(sq), geo.rank_of(sq)
            ring.append(
                tuple(
                    geo.index(f + df, r + dr)
                    for df in (-1, 0, 1)
                    for dr in (-1, 0, 1)
                    if (df or dr) and 0 <= f + df < geo.files and 0 <= r + dr < geo.ranks
                )
            )
        tables.blast_ring = tuple(ring)
        immune = [False] * ncodes
        for i, p in enumerate(pieces, start=1):
            for color in (0, 1):
                immune[i << 1 | color] = p.id in variant.blast
        tables.blast_immune = tuple(immune)
    if variant.check_count:
        # Keys of their own: the other keys stay those of the variant without the rule.
        crng = random.Random(0xC4EC)
        tables.z_checks = tuple(
            (0, *(crng.getrandbits(64) for _ in range(variant.check_count))) for _ in (0, 1)
        )
    tables.immediate_ends = bool(
        variant.zone
        or variant.castling_wins
        or variant.check_count
        or variant.extinction
        or variant.blast is not None
        or variant.bare_king_win
        or variant.bare_king
        or variant.bare_king_draw
        or variant.passing  # a second pass in a row, or a pass in bikjang, ends the game
        or variant.bikjang
    )
    if variant.counting is not None:
        tables.counting = variant.counting
        tables.count_pawns = frozenset(
            type_index[pid] << 1 | color for pid in variant.counting.pawns for color in (0, 1)
        )
    tables.z_promoted = tuple(key() for _ in range(geo.size)) if variant.demote_to_hand else ()
    _drop_rules(tables)
    return tables


def _drop_rules(t: Tables) -> None:
    """Where each piece may stand after a move or a drop: the squares from which it could
    never move (with immobility-illegal), and the squares it may be dropped on (its rows,
    its confining region, its drop region or the variant's, and those squares)."""
    variant = t.variant
    geo = t.geo
    ncodes = (t.ntypes + 1) * 2
    t.immobile = [None] * ncodes
    t.drop_ok = [None] * ncodes
    t.one_per_file = [False] * ncodes
    t.other_colour = [False] * ncodes
    t.drop_mate = [0] * (t.ntypes + 1)
    for i, p in enumerate(variant.pieces, start=1):
        for color in (0, 1):
            code = i << 1 | color
            if variant.immobility_illegal:
                never = bytes(
                    0 if _can_move(t.square_moves(code, sq)) else 1 for sq in range(geo.size)
                )
                if any(never):
                    t.immobile[code] = never
            region = p.drop_region or variant.drop_region
            inside = variant.region(region).of(color) if region is not None else None
            confined = t.mask[code]
            stuck = t.immobile[code]
            allowed = [
                0
                if (p.no_drop_rows and geo.row(sq, color) in p.no_drop_rows)
                or (confined is not None and sq not in confined)
                or (inside is not None and sq not in inside)
                or (stuck is not None and stuck[sq])
                else 1
                for sq in range(geo.size)
            ]
            if not all(allowed):
                t.drop_ok[code] = bytes(allowed)
            t.one_per_file[code] = p.drop_one_per_file
            t.other_colour[code] = p.drop_other_colour
        t.drop_mate[i] = ("legal", "loss", "illegal").index(p.drop_mate)
    t.any_drop_mate = max(t.drop_mate, default=0)
    t.staged = not (
        t.pseudo_royal
        or t.blast
        or t.any_in_place
        or variant.must_capture
        or variant.petrify
        or variant.no_drop_checks
        or variant.must_drop
        or variant.reserve_in_hand
        or variant.passing
        or variant.bikjang
    )
    t.other_colour_codes = (
        tuple(c for c in range(2, ncodes, 2) if t.other_colour[c]),
        tuple(c for c in range(3, ncodes, 2) if t.other_colour[c]),
    )
    t.any_other_colour = any(t.other_colour)
    t.turns_back = any(
        p.demotes_to is not None and p.promotion is not None and p.demotes_to in p.promotion.to
        for p in variant.pieces
    )
    # `promo_from` marks the squares whose moves `Position._promote` must look at: now that
    # the immobility squares are known, pieces that may be stranded need them too.
    for code in range(2, ncodes):
        if t.promo_from[code] is None and t.immobile[t.flip[code]] is not None:
            t.promo_from[code] = bytearray(geo.size)
        for o, sm in enumerate(t.moves[code]):
            if sm is not None:
                t.mark_promotion_square(code, o, sm)


def _can_move(sm: SquareMoves) -> bool:
    """Whether a piece with these move patterns has a move on an otherwise empty board
    (Fairy-Stockfish's immobility test: its quiet moves, a hopper's counted as the squares
    of its lines, as if there were a screen)."""
    if any(mode & MOVE for _d, _c, mode in sm.leaps):
        return True
    if any(pairs for pairs in sm.slides):
        return True
    if any(mode & MOVE and pairs for pairs, mode, _grass in sm.hops):
        return True
    for pairs, mode, mfrom, _cfrom in sm.rays:
        if mode & MOVE and len(pairs) > mfrom:
            return True
    if any(mode & MOVE for _d, _c, mode, _alts in sm.lames):
        return True
    if any(mode & MOVE and not cond & COND_ONCE for cond, _d, _c, mode, _alts in sm.cond):
        return True
    return any(mode & MOVE and any(c for _s, c in pairs) for pairs, mode, *_ in sm.masked)
