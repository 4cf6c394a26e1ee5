"""The position: board, side to move and every right; legal moves, make and undo.

`Position` is mutable and fast: `push`/`pop` make and unmake moves in place (as
python-chess does), move generation works on integer codes (`rules.tables.MoveCode`), and
a Zobrist hash is kept up to date for repetitions. The public surface speaks in `Move`
values; the `*_codes` methods are the fast path for perft and search.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ClassVar, NamedTuple, cast

from rules import chasing
from rules.betza import Component
from rules.errors import RulesError
from rules.movement import oriented
from rules.moves import Move, MoveKind
from rules.outcome import Outcome, Termination
from rules.tables import (
    CAPTURE,
    COND_INITIAL,
    COND_ONCE,
    GRASSHOP,
    MC,
    MOVE,
    WALL,
    CheckProbes,
    RayProbe,
    SquareMoves,
    Tables,
    tables_of,
)
from rules.variant import MateRule, Variant, load_variant

NORMAL, EP, CASTLE, DROP, PLACE, SWAP = MC.NORMAL, MC.EP, MC.CASTLE, MC.DROP, MC.PLACE, MC.SWAP
PASS = MC.PASS
KIND_SHIFT, KIND_MASK = MC.KIND_SHIFT, MC.KIND_MASK
PROMO_SHIFT, PROMO_MASK = MC.PROMO_SHIFT, MC.PROMO_MASK
F_PAWN, F_DOUBLE, F_ONCE = MC.PAWN, MC.DOUBLE, MC.ONCE
CASTLE_SHIFT = MC.CASTLE_SHIFT
GATE_SHIFT, GATE_MASK, GATED, GATE_ROOK = MC.GATE_SHIFT, MC.GATE_MASK, MC.GATED, MC.GATE_ROOK

_KINDS = {
    NORMAL: MoveKind.NORMAL,
    EP: MoveKind.EN_PASSANT,
    CASTLE: MoveKind.CASTLING,
    DROP: MoveKind.DROP,
    PLACE: MoveKind.PLACEMENT,
    SWAP: MoveKind.SWAP,
    PASS: MoveKind.PASS,
}


class _Extra(NamedTuple):
    """State outside the board, saved only by the moves that change it."""

    hands: list[list[int]]
    reserve: list[list[int]]
    gates: list[dict[int, int]]
    once: list[bool]
    promoted: bytearray | None
    tally: tuple[int, int]
    checks: tuple[int, int]


class _Undo(NamedTuple):
    code: int
    changes: list[tuple[int, int, int]]  # (square, old code, old virgin flag)
    extra: _Extra | None
    kings: tuple[int, int]
    ep_squares: tuple[int, ...]
    ep_victim: int
    halfmove: int
    fullmove: int
    side: int
    hash: int
    keyed: bool  # a repetition key was recorded for the position after the move
    legal: tuple[int, ...] | None  # the legal moves listed before the move, if any


# An undo record made without the named tuple's Python-level constructor (a make is the
# engine's most frequent step, and the constructor cost a third of a microsecond more).
_new_undo = cast("Callable[[type[_Undo], tuple[object, ...]], _Undo]", tuple.__new__)


@dataclass(frozen=True, slots=True)
class PieceOnBoard:
    """What stands on a square, in plain terms for notation, pictures and storage."""

    piece_id: str
    color: int  # 0 White, 1 Black
    letters: str
    name: str


_SAME_MOVE = ~(F_PAWN | F_DOUBLE)
ALL_MOVES = MOVE | CAPTURE  # `Position._square_codes`: every move, not one stage


def _always(c: int) -> bool:
    """The legality test where every pseudo-legal move is legal."""
    return True


def _hop_reaches(rules: tuple[tuple[int, bool], ...] | None, dist: int, screen: int) -> bool:
    """A hopper `dist` squares from the target, over a screen `screen` squares from it,
    attacks the target by one of its `rules` (range, grasshopper); None: a plain hopper."""
    if rules is None:
        return True
    return any(dist <= span and (not grass or screen == 1) for span, grass in rules)


def _rays_attack(board: list[int], probes: tuple[RayProbe, ...]) -> bool:
    """Whether a rider or hopper at the far end of one of the rays `probes` (each walked
    outwards from its target) attacks the target on `board`."""
    for squares, riders, limits, hoppers, rules in probes:
        screen = 0  # the screen's distance from the target, once found
        dist = 0
        for s in squares:
            dist += 1
            p = board[s]
            if not p:
                continue
            if screen:
                if p in hoppers and (not rules or _hop_reaches(rules.get(p), dist, screen)):
                    return True
                break
            if p in riders and (not limits or limits.get(p, 1 << 30) >= dist):
                return True
            if not hoppers:
                break
            screen = dist
    return False


def _moved_checks(board: list[int], probes: CheckProbes, o: int, d: int) -> bool:
    """Whether a target that was not attacked is attacked after a move from `o` (-1: a
    drop) to `d` (`Tables.local_checks`), by the `probes` of its attackers: by the piece now
    on `d`, or along a ray through `d` or `o` (a line opened, a screen placed or taken)."""
    leaps, rays = probes
    if board[d] in leaps[d]:
        return True
    through = rays[d]
    if through and _rays_attack(board, through):
        return True
    if o >= 0:
        through = rays[o]
        if through and _rays_attack(board, through):
            return True
    return False


def _merged(codes: list[int]) -> list[int]:
    """Each move once, when two parts of a piece's movement give it (Medusa's Q and AD, a
    `pawn-moves` step that `betza` has too): codes that differ only in their pawn-move
    and double-step flags are one move, carrying the flags of both."""
    seen: dict[int, int] = {}
    for c in codes:
        key = c & _SAME_MOVE
        seen[key] = seen.get(key, 0) | c
    return list(seen.values())


class Position:
    """A position of one variant. Create it with `start()` or `rules.postext.parse()`."""

    __slots__ = (
        "_before",
        "_chase",
        "_checks",
        "_keys",
        "_legal",
        "_stack",
        "_trail",
        "board",
        "checks",
        "ep",
        "ep_squares",
        "ep_victim",
        "fullmove",
        "gates",
        "halfmove",
        "hands",
        "hash",
        "kings",
        "once",
        "pieces",
        "ply",
        "promoted",
        "reserve",
        "side",
        "t",
        "tally",
        "variant",
        "virgin",
    )

    def __init__(self, variant: Variant, tables: Tables) -> None:
        self.variant = variant
        self.t = tables
        size = tables.geo.size
        ncodes = (tables.ntypes + 1) * 2
        self.board: list[int] = [0] * size
        self.pieces: list[set[int]] = [set() for _ in range(ncodes)]
        self.virgin = bytearray(size)
        self.kings: list[int] = [-1, -1]
        self.side = 0
        # En passant: the squares a double or triple step has just passed, from its origin
        # on (`ep` is the first of them, -1 for none), and the piece that made it.
        self.ep = -1
        self.ep_squares: tuple[int, ...] = ()
        self.ep_victim = -1
        self.halfmove = 0
        self.fullmove = 1
        self.ply = 0
        self.hands: list[list[int]] = [[0] * ncodes, [0] * ncodes]
        self.reserve: list[list[int]] = [[], []]  # reserve codes not yet placed
        self.gates: list[dict[int, int]] = [{}, {}]  # square -> code waiting behind it
        has_once = any(p.once_per_game and p.royal for p in variant.pieces)
        self.once: list[bool] = [has_once, has_once]
        # Crazyhouse: squares holding a promoted piece, which returns to hand demoted.
        self.promoted: bytearray | None = bytearray(size) if variant.demote_to_hand else None
        # Counting rules (Makruk): the limit in plies (0: no count) and the ply the count
        # started from, so that the count is `ply - tally[1]` without a change every ply.
        self.tally: tuple[int, int] = (0, 0)
        # N-check: the checks White and Black have given.
        self.checks: tuple[int, int] = (0, 0)
        self.hash = 0
        self._stack: list[_Undo] = []
        # The codes of the last moves before the undo stack began (a copy's), newest first:
        # rules that read the last move or two (passes, castling wins, drop mates) see them.
        self._before: tuple[int, ...] = ()
        self._keys: list[int] = []
        # The legal moves of this position once listed: playing a move, formatting it and
        # asking for the outcome list them once, not once each. Cleared by every change.
        self._legal: tuple[int, ...] | None = None
        # With a perpetual-check or move-repetition rule, per key: whether the side to move
        # was in check, and the move that led there with whether it captured (0 at the root).
        self._checks: list[bool] = []
        self._trail: list[tuple[int, bool]] = []
        # With a chasing rule, per key: the pieces of the side to move the last move chased,
        # and the blockers of each side's royal piece (`rules.chasing`).
        self._chase: list[tuple[frozenset[int], tuple[frozenset[int], frozenset[int]]]] = []

    # ------------------------------------------------------------------ construction

    @classmethod
    def start(cls, variant: Variant | str, options: tuple[str, ...] = ()) -> Position:
        """The initial position of a variant (by object or id)."""
        if isinstance(variant, str):
            variant = load_variant(variant, options)
        tables = tables_of(variant)
        pos = cls(variant, tables)
        for color in (0, 1):
            for sq, pid in variant.army(color):
                pos._put(sq, tables.code(pid, color))
        for sq in variant.walls:
            pos._put(sq, WALL)
        for sq in tables.start_virgin:
            pos.virgin[sq] = 1
        for color in (0, 1):
            waiting = variant.reserve
            if color and variant.reserve_black is not None:
                waiting = variant.reserve_black
            for pid in waiting:
                code = tables.code(pid, color)
                if variant.reserve_in_hand or variant.reserve_drops:
                    pos.hands[color][tables.hand_type[code]] += 1
                else:
                    pos.reserve[color].append(code)
        # Black-first games (`[setup] first`) number plies as a FEN does: 1 before move 1...
        pos.side = pos.ply = variant.first
        pos.rehash()
        return pos

    def _put(self, sq: int, code: int) -> None:
        self.board[sq] = code
        self.pieces[code].add(sq)
        if self.t.royal[code]:
            self.kings[code & 1] = sq

    def rehash(self) -> None:
        """Recompute the hash and restart the repetition history from this position."""
        t = self.t
        h = 0
        for sq, code in enumerate(self.board):
            if code:
                h ^= t.z_piece[code][sq]
                if self.virgin[sq]:
                    h ^= t.z_virgin[sq]
        if self.side:
            h ^= t.z_side
        h ^= self._rights_key()
        for color in (0, 1):
            for code, n in enumerate(self.hands[color]):
                if n:
                    h ^= t.z_hand[code | color][n]
            for code in self.reserve[color]:
                h ^= t.z_reserve[code]
            for sq, code in self.gates[color].items():
                h ^= t.z_gate[code][sq]
            if self.once[color]:
                h ^= t.z_once[color]
            if t.z_checks:
                h ^= t.z_checks[color][self.checks[color]]
        if self.promoted is not None:
            for sq, flag in enumerate(self.promoted):
                if flag:
                    h ^= t.z_promoted[sq]
        self.hash = h
        self._legal = None
        self._stack.clear()
        self._before = ()
        self._keys = [self._key()]
        v = self.variant
        if v.perpetual_check != "draw" or v.move_repetition != "allowed" or v.chasing:
            self._checks = [self.is_check()]
            self._trail = [(0, False)]
        if v.chasing:
            self._chase = [(frozenset(), (chasing.blockers(self, 0), chasing.blockers(self, 1)))]

    def copy(self) -> Position:
        """An independent copy with the same history of repetition keys (no undo stack)."""
        other = Position(self.variant, self.t)
        other.board = self.board[:]
        other.pieces = [set(s) for s in self.pieces]
        other.virgin = bytearray(self.virgin)
        other.kings = self.kings[:]
        other.side = self.side
        other.ep = self.ep
        other.ep_squares = self.ep_squares
        other.ep_victim = self.ep_victim
        other.halfmove = self.halfmove
        other.fullmove = self.fullmove
        other.ply = self.ply
        other.hands = [h[:] for h in self.hands]
        other.reserve = [r[:] for r in self.reserve]
        other.gates = [dict(g) for g in self.gates]
        other.once = self.once[:]
        other.promoted = bytearray(self.promoted) if self.promoted is not None else None
        other.tally = self.tally
        other.checks = self.checks
        other.hash = self.hash
        other._before = (self._last_code(1), self._last_code(2))
        other._keys = self._keys[:]
        other._checks = self._checks[:]
        other._trail = self._trail[:]
        other._chase = self._chase[:]
        # The legal moves listed here hold there too (a tuple, never changed in place): a
        # copy for a picture or a view does not list them again (its outcome, its text).
        other._legal = self._legal
        return other

    def planning_copy(self, side: int) -> Position:
        """A copy with `side` to move and no en-passant right: what a player could do if it
        were their turn (to plan ahead while the opponent thinks). Not a position of the
        game: the side that would be "to move" may even be giving check."""
        other = self.copy()
        other.side = side
        other.ep = -1
        other.ep_squares = ()
        other.ep_victim = -1
        other.rehash()
        return other

    # ------------------------------------------------------------------ queries

    @property
    def placing(self) -> bool:
        """True during the placement phase before move 1 (Florea's games)."""
        return bool(self.reserve[0] or self.reserve[1])

    def piece_at(self, sq: int) -> PieceOnBoard | None:
        """The piece on `sq`; None for an empty square and for a wall (`is_wall`)."""
        code = self.board[sq]
        if not code or code == WALL:
            return None
        return self.describe(code)

    def is_wall(self, sq: int) -> bool:
        """Whether `sq` is a wall square: no piece may enter it or pass through it."""
        return self.board[sq] == WALL

    def walls(self) -> list[int]:
        """The wall squares, in square order."""
        return sorted(self.pieces[WALL])

    def describe(self, code: int) -> PieceOnBoard:
        p = self.variant.piece(self.t.type_ids[code >> 1])
        return PieceOnBoard(p.id, code & 1, p.letters, p.name)

    def occupied(self) -> Iterator[tuple[int, int]]:
        """The squares holding a piece, with its code (walls are no pieces)."""
        for sq, code in enumerate(self.board):
            if code and code != WALL:
                yield sq, code

    def hand(self, color: int) -> dict[str, int]:
        """Pieces in hand by piece id (Patricia)."""
        t = self.t
        return {t.type_ids[c >> 1]: n for c, n in enumerate(self.hands[color]) if n}

    def attacked(self, target: int, by: int) -> bool:
        """Whether a piece of colour `by` attacks `target` (spec §2.5)."""
        board = self.board
        t = self.t
        for o, codes in t.leap_probes[by][target]:
            if board[o] in codes:
                return True
        if _rays_attack(board, t.ray_probes[by][target]):
            return True
        return bool(t.special_codes[by]) and self._specials_attack(target, by)

    def _specials_attack(self, target: int, by: int) -> bool:
        """Whether one of the special attackers of colour `by` (`Tables.special_codes`: lame
        leapers, hoppers with conditions, pieces bound to a region) attacks `target`; read
        from the piece lists, since a leg or a screen anywhere on the way matters."""
        board = self.board
        t = self.t
        special_at = t.special_at
        for code in t.special_codes[by]:
            for o in self.pieces[code]:
                found = special_at[code][o] if special_at else None
                if found is None:
                    found = t.special_map(code, o)
                    special_at = t.special_at
                conds = found.get(target)
                if (
                    conds
                    and self._conditions_hold(conds, o, by)
                    and board[target] not in t.no_capture[code]
                ):
                    return True
        return False

    def _conditions_hold(
        self, conds: list[tuple[int, tuple[tuple[int, ...], ...]]], o: int, by: int
    ) -> bool:
        board = self.board
        for kind, alts in conds:
            if kind == 2 and not self.once[by]:
                continue
            if kind == 3 and not self.virgin[o]:
                continue
            if kind >= 4:
                # 4, 5: a hop's one screen; 6, 7: a grasshopper's, directly before the
                # target; 5, 7: the screen may not be one of the codes in alts[1]
                screens = [s for s in alts[0] if board[s]]
                if (
                    len(screens) == 1
                    and (kind < 6 or screens[0] == alts[0][-1])
                    and (kind % 2 == 0 or board[screens[0]] not in alts[1])
                ):
                    return True
                continue
            for alt in alts:
                for s in alt:
                    if board[s]:
                        break
                else:
                    return True
        return False

    def is_check(self) -> bool:
        """The side to move's royal piece is attacked (never in royal-capture variants'
        sense of a rule, but still reported for the `+` mark)."""
        if self.t.blast:
            return self._atomic_check(self.side)
        if self.t.pseudo_royal:
            return self._pseudo_check(self.side)
        king = self.kings[self.side]
        return king >= 0 and self.attacked(king, self.side ^ 1)

    # ------------------------------------------------------------------ generation

    def _piece_codes(
        self,
        code: int,
        o: int,
        out: list[int],
        sm: SquareMoves | None = None,
        want: int = MOVE | CAPTURE,
    ) -> None:
        """Pseudo-legal board moves of the piece `code` on `o` (by the table `sm`, its own
        by default), appended to `out`: the moves to empty squares when `want` has MOVE,
        the captures when it has CAPTURE (staged generation asks for one kind at a time)."""
        board = self.board
        side = code & 1
        if sm is None:
            sm = self.t.moves[code][o]
            if sm is None:
                sm = self.t.square_moves(code, o)
        append = out.append
        quiet = want & MOVE
        takes = want & CAPTURE
        for d, c, mode in sm.leaps:
            p = board[d]
            if p:
                if mode & takes and (p & 1) != side:
                    append(c)
            elif mode & quiet:
                append(c)
        for pairs in sm.slides:
            for d, c in pairs:
                p = board[d]
                if p:
                    if takes and (p & 1) != side:
                        append(c)
                    break
                if quiet:
                    append(c)
        if not sm.exotic:
            return
        for pairs, mode, mfrom, cfrom in sm.rays:
            i = 0
            for d, c in pairs:
                p = board[d]
                if p:
                    if mode & takes and i >= cfrom and (p & 1) != side:
                        append(c)
                    break
                if mode & quiet and i >= mfrom:
                    append(c)
                i += 1  # noqa: SIM113 - a counter is faster than enumerate here
        for pairs, mode, grass in sm.hops:
            screen = False
            for d, c in pairs:
                p = board[d]
                if not screen:
                    if p:
                        screen = True
                    continue
                if p:
                    if mode & takes and (p & 1) != side:
                        append(c)
                    break
                if mode & quiet:
                    append(c)
                if grass:  # a grasshopper lands directly beyond its screen or nowhere
                    break
        for d, c, mode, alts in sm.lames:
            p = board[d]
            if p:
                if not (mode & takes) or (p & 1) == side:
                    continue
            elif not mode & quiet:
                continue
            for alt in alts:
                for s in alt:
                    if board[s]:
                        break
                else:
                    append(c)
                    break
        for pairs, mode, mfrom, cfrom, hop in sm.masked:
            # A piece confined to a region: code 0 marks squares it passes but cannot stop on.
            screen = not hop
            i = 0
            for d, c in pairs:
                p = board[d]
                if not screen:
                    if p:
                        screen = True
                    continue
                if p:
                    if c and mode & takes and i >= cfrom and (p & 1) != side:
                        append(c)
                    break
                if c and mode & quiet and i >= mfrom:
                    append(c)
                if hop == GRASSHOP:
                    break
                i += 1
        if sm.cond:
            for cond, d, c, mode, alts in sm.cond:
                if cond & COND_INITIAL and not self.virgin[o]:
                    continue
                if cond & COND_ONCE and not self.once[side]:
                    continue
                p = board[d]
                if p:
                    if not (mode & takes) or (p & 1) == side:
                        continue
                elif not mode & quiet:
                    continue
                if not alts:
                    append(c)
                    continue
                for alt in alts:
                    for s in alt:
                        if board[s]:
                            break
                    else:
                        append(c)
                        break

    def _promote(self, code: int, start: int, out: list[int]) -> None:
        """Expand the moves from `start` on that may promote: those ending on a promotion
        row or in the zone, or leaving the zone; drop the moves that would leave the piece
        where it could never move again (immobility-illegal: it must promote there)."""
        t = self.t
        zone = t.promo_zone[code]
        stuck = t.immobile[t.flip[code]]
        if zone is None:
            if stuck is not None:
                out[start:] = [c for c in out[start:] if not stuck[(c >> 8) & 0xFF]]
            return
        pawn_only = t.promo_pawn_only[code]
        origin = t.promo_origin[code]
        capture_only = t.promo_capture_only[code]
        board = self.board
        moved = out[start:]
        del out[start:]
        choices = t.promo_choices[code]
        if t.promo_limited[code]:
            pieces = self.pieces
            start_count = t.start_count
            choices = tuple(c for c in choices if len(pieces[c]) < start_count[c])
        cap = t.promo_cap[code]
        if cap:
            choices = tuple(c for c in choices if len(self.pieces[c]) < cap)
        for c in moved:
            d = (c >> 8) & 0xFF
            z = zone[d]
            if origin is not None:
                z = max(z, origin[c & 0xFF])
                if capture_only and not board[d]:
                    z = 0
            if not z or (pawn_only and not c & F_PAWN):
                if stuck is None or not stuck[d]:
                    out.append(c)
                continue
            if z == 1 and (stuck is None or not stuck[d]):
                out.append(c)
            for choice in choices:
                out.append(c | (choice >> 1) << PROMO_SHIFT)

    def promotion_offered(self, c: int) -> bool:
        """Whether the board move `c` (as a plain move) is one its piece may promote with:
        on a promotion row, into, out of or inside its zone (on a capture, where only
        captures promote)."""
        t = self.t
        code = self.board[c & 0xFF]
        zone = t.promo_zone[code]
        if zone is None or not t.promo_choices[code]:
            return False
        d = (c >> 8) & 0xFF
        if t.promo_pawn_only[code] and not c & F_PAWN:
            return False
        origin = t.promo_origin[code]
        if origin is None:
            return bool(zone[d])
        if t.promo_capture_only[code] and not self.board[d]:
            return False
        return bool(zone[d] or origin[c & 0xFF])

    def pseudo_codes(self) -> list[int]:
        """Pseudo-legal moves of the side to move (own King's safety not yet tested)."""
        if self.placing:
            return self._placement_codes()
        out: list[int] = []
        side = self.side
        t = self.t
        self._board_codes(out, ALL_MOVES)
        if self.ep >= 0:
            self._ep_codes(out)
        if t.variant.castles:
            self._castling_codes(out)
        if t.variant.drops:
            self._drop_codes(out)
        if t.any_in_place:
            self._in_place_codes(out)
        if t.variant.passing and self.kings[side] >= 0:
            king = self.kings[side]
            out.append(king | king << 8 | PASS << KIND_SHIFT)
        return out

    def _board_codes(self, out: list[int], want: int) -> None:
        """The pseudo-legal board moves of every piece of the side to move, appended to
        `out` (`want` as in `_square_codes`): a piece that may promote, merges duplicates
        or is restricted goes through `_square_codes`, the others (the most) straight to
        their tables, a call saved for each piece in the engine's most frequent walk."""
        t = self.t
        pieces = self.pieces
        restricted = t.restricted
        dedupe = t.dedupe
        promo_from = t.promo_from
        moves = t.moves
        piece_codes = self._piece_codes
        square_codes = self._square_codes
        for code in t.side_codes[self.side]:
            squares = pieces[code]
            if not squares:
                continue
            if restricted[code] or dedupe[code]:
                for o in squares:
                    square_codes(code, o, out, want)
                continue
            near = promo_from[code]
            tables = moves[code]
            for o in squares:
                if near is not None and (near[o] or tables[o] is None):
                    square_codes(code, o, out, want)
                else:
                    piece_codes(code, o, out, tables[o], want)

    def _square_codes(self, code: int, o: int, out: list[int], want: int) -> None:
        """The pseudo-legal board moves of the piece `code` on `o`, appended to `out`:
        every one (`ALL_MOVES`), or only the captures and promotions (`CAPTURE`), or only
        the rest (`MOVE`). Promotions and merged duplicates are decided on the whole list
        of the square, so a square that may promote is generated whole, then split."""
        t = self.t
        near = t.promo_from[code]
        if near is not None and t.moves[code][o] is None:
            t.square_moves(code, o)  # compiles the square, which fills `near`
        if not (t.restricted[code] or t.dedupe[code] or (near is not None and near[o])):
            self._piece_codes(code, o, out, None, want)  # the common case, at once
            return
        start = len(out)
        whole = want == ALL_MOVES or t.restricted[code] or (near is not None and near[o])
        if t.restricted[code]:
            self._restricted_codes(code, o, out)
        else:
            self._piece_codes(code, o, out, None, ALL_MOVES if whole else want)
        if t.dedupe[code] and len(out) > start:
            out[start:] = _merged(out[start:])
        if near is not None and near[o]:
            self._promote(code, start, out)
        if whole and want != ALL_MOVES:
            tactical = self._tactical
            keep = want == CAPTURE
            out[start:] = [c for c in out[start:] if tactical(c) == keep]

    def _tactical(self, c: int) -> bool:
        """A capture (en passant included) or a promotion: the moves of quiescence."""
        kind = (c >> KIND_SHIFT) & KIND_MASK
        if kind == EP:
            return True
        if kind != NORMAL:
            return False
        if (c >> PROMO_SHIFT) & PROMO_MASK:
            return True
        target = self.board[(c >> 8) & 0xFF]
        return bool(target) and target & 1 != self.side

    def capture_codes(self) -> list[int]:
        """The first stage of staged generation: the pseudo-legal captures and promotions
        (in-place ones too) of the side to move: what quiescence searches. With
        `quiet_codes()` it makes `pseudo_codes()` (plus an unmoved royal piece's first
        leaps); `move_test()` tells which of them are legal."""
        if self.placing:
            return []
        out: list[int] = []
        self._board_codes(out, CAPTURE)
        if self.ep >= 0:
            self._ep_codes(out)
        if self.t.any_in_place:
            self._in_place_codes(out)
        return out

    def quiet_codes(self) -> list[int]:
        """The second stage: every pseudo-legal move that neither captures nor promotes
        (castling, drops, passes included), and, out of check, an unmoved royal piece's
        first leaps (legal already: the rules engine adds them after its legality test)."""
        if self.placing:
            return self._placement_codes()
        out: list[int] = []
        side = self.side
        t = self.t
        self._board_codes(out, MOVE)
        if t.variant.castles:
            self._castling_codes(out)
        if t.variant.drops:
            self._drop_codes(out)
        king = self.kings[side]
        if t.variant.passing and king >= 0:
            out.append(king | king << 8 | PASS << KIND_SHIFT)
        if (
            king >= 0
            and t.initial_leap[self.board[king]]
            and self.virgin[king]
            and not self.attacked(king, side ^ 1)
        ):
            self._royal_first_leaps(king, out)
        return out

    def split_codes(self) -> tuple[list[int], list[int]]:
        """`capture_codes()` and `quiet_codes()` (as sets) from one pass of generation:
        cheaper than the two when both are wanted (a capture pass walks the same rays)."""
        if self.placing:
            return [], self._placement_codes()
        moves = self.pseudo_codes()
        board = self.board
        side = self.side
        captures = []
        quiets = []
        for c in moves:
            kind = (c >> KIND_SHIFT) & KIND_MASK
            if kind == NORMAL:
                target = board[(c >> 8) & 0xFF]
                if (c >> PROMO_SHIFT) & PROMO_MASK or (target and target & 1 != side):
                    captures.append(c)
                else:
                    quiets.append(c)
            elif kind == EP:
                captures.append(c)
            else:
                quiets.append(c)
        king = self.kings[side]
        if (
            king >= 0
            and self.t.initial_leap[board[king]]
            and self.virgin[king]
            and not self.attacked(king, side ^ 1)
        ):
            self._royal_first_leaps(king, quiets)
        return captures, quiets

    def pseudo_ok(self, c: int) -> bool:
        """Whether `c` is a pseudo-legal move here (a move remembered from elsewhere, such
        as a transposition table's, must pass this before `push_code`): a board move is
        checked against its piece's moves alone, a drop against the drops, any other kind
        against the full list."""
        kind = (c >> KIND_SHIFT) & KIND_MASK
        if kind == NORMAL and c < GATED and not self.placing:
            o = c & 0xFF
            piece = self.board[o]
            if not piece or piece & 1 != self.side:
                return False
            found: list[int] = []
            self._square_codes(piece, o, found, ALL_MOVES)
            if c in found:
                return True
            # An in-place promotion (Sittuyin's Pawn) is listed by `_in_place_codes`, not
            # among the square's own moves.
            if self.t.in_place[piece] is None or not (c >> PROMO_SHIFT) & PROMO_MASK:
                return False
            promotions: list[int] = []
            self._in_place_codes(promotions)
            return c in promotions
        if kind == DROP and not self.placing:
            if self.board[(c >> 8) & 0xFF] or not self.t.variant.drops:
                return False
            found = []
            self._drop_codes(found)
            return c in found
        return c in self.pseudo_codes()

    def move_test(self) -> Callable[[int], bool] | None:
        """The legality test of staged generation in this position: a function that tells
        whether a move of `capture_codes()` or `quiet_codes()` is legal, so that only the
        moves a search actually plays are proven. None where the rules need the full list
        (`legal_codes()`): in check (its evasions are found faster there), while pieces
        are placed, and in variants whose legal moves are not the pseudo-legal ones that
        pass a test one by one (`Tables.staged`). Valid only while the game goes on
        (`decided()` is None)."""
        t = self.t
        if not t.staged or self.placing:
            return None
        side = self.side
        king = self.kings[side]
        drop_mate = t.any_drop_mate == 2
        no_checks = t.variant.no_checks
        if king < 0 or t.variant.goal == "royal-capture":
            # Royal capture, or no royal piece at all: every pseudo-legal move is legal
            # but for the rules that forbid some checks.
            if king < 0 and not t.plain_castling:
                return None
            if not (drop_mate or no_checks):
                return _always

            def plain(c: int) -> bool:
                if drop_mate and self._illegal_drop_mate(c):
                    return False
                return not (no_checks and self.gives_check(c))

            return plain
        enemy = side ^ 1
        if self.attacked(king, enemy):
            return None
        facing = t.facing
        risky = self._pinned(king, enemy)
        if t.special_codes[enemy]:
            risky |= t.special_lines(king, enemy)
        hop_lines = (
            self._hop_lines(king, enemy) if t.has_hoppers or t.forward_hoppers[enemy] else None
        )
        if facing:
            between = self._between(king, self.kings[enemy])
            if between is not None:
                risky.update(between)  # a piece leaving the line may open it

        def test(c: int) -> bool:
            kind = (c >> KIND_SHIFT) & KIND_MASK
            if kind == NORMAL:
                ok = self._board_move_safe(c, king, enemy, risky, hop_lines, facing)
            elif kind == CASTLE:
                ok = self._castling_ok(c) and self._castled_safe(c)
            else:
                ok = self._safe_after(c, facing)
            if ok and drop_mate:
                ok = not self._illegal_drop_mate(c)
            if ok and no_checks:
                ok = not self.gives_check(c)
            return ok

        return test

    def _in_place_codes(self, out: list[int]) -> None:
        """In-place promotions (Sittuyin's Pawn): a piece in its zone (anywhere when it is its
        side's last of its type) turns into the new piece where it stands (the code's origin
        and destination are one square) or moves as the new piece to an empty square, while
        the side has fewer of the new piece than the promotion's limit."""
        t = self.t
        board = self.board
        pieces = self.pieces
        for code in t.side_codes[self.side]:
            ip = t.in_place[code]
            squares = pieces[code]
            if ip is None or not squares:
                continue
            choices = [new for new in ip.choices if not ip.cap or len(pieces[new]) < ip.cap]
            if not choices:
                continue
            origins = set(squares)
            if ip.zone is not None and not (ip.anywhere_if_last and len(squares) == 1):
                origins &= ip.zone
            for o in sorted(origins):
                for new in choices:
                    promo = (new >> 1) << PROMO_SHIFT
                    out.append(o | o << 8 | promo)
                    found: list[int] = []
                    self._piece_codes(new, o, found)
                    targets = {(c >> 8) & 0xFF for c in found}
                    out.extend(o | d << 8 | promo for d in sorted(targets) if not board[d])

    def _peaceful(self, c: int) -> bool:
        """An in-place promotion that must be peaceful: it gives no check and its new piece
        attacks no enemy piece where it lands."""
        side = self.side
        self.push_code(c, keep_key=False)
        try:
            if self.is_check():
                return False
            d = (c >> 8) & 0xFF
            found: list[int] = []
            self._piece_codes(self.board[d], d, found)
            return not any(self.board[(x >> 8) & 0xFF] for x in found)
        finally:
            self.pop_code()
            assert self.side == side

    def _restricted_codes(self, code: int, o: int, out: list[int]) -> None:
        """`_piece_codes` for a piece that may not capture some pieces or hop over them
        (the Janggi Cannon): its moves generated first, then those refused taken out."""
        t = self.t
        board = self.board
        banned = t.no_capture[code]
        screens = t.no_screen[code]
        start = len(out)
        self._piece_codes(code, o, out)
        if not screens:
            out[start:] = [c for c in out[start:] if board[(c >> 8) & 0xFF] not in banned]
            return
        sm = t.moves[code][o] or t.square_moves(code, o)
        hop_rays = [(pairs, grass) for pairs, _mode, grass in sm.hops]
        hop_rays += [(pairs, hop == GRASSHOP) for pairs, _m, _mf, _cf, hop in sm.masked if hop]
        # A destination reached over a refused screen: the move exists only if another
        # component reaches it too, which a second generation without those hops tells.
        bad: set[int] = set()
        for pairs, grass in hop_rays:
            screen = 0
            for d, c in pairs:
                p = board[d]
                if not screen:
                    if p:
                        screen = p
                    continue
                if screen in screens and c:
                    bad.add(c)
                if p or grass:
                    break
        if bad:
            plain = self._codes_without_hops(code, o)
            bad -= plain
        out[start:] = [
            c for c in out[start:] if c not in bad and board[(c >> 8) & 0xFF] not in banned
        ]

    def _codes_without_hops(self, code: int, o: int) -> set[int]:
        """The piece's moves from `o` by its components other than hops."""
        t = self.t
        sm = t.moves[code][o] or t.square_moves(code, o)
        masked = tuple(m for m in sm.masked if not m[4])  # hop kind 0: a plain ray
        stripped = SquareMoves(sm.leaps, sm.slides, sm.rays, (), sm.lames, sm.cond, masked)
        out: list[int] = []
        self._piece_codes(code, o, out, stripped)
        return set(out)

    def _gating_codes(self, out: list[int]) -> None:
        """S-Chess: a piece leaving its first-row square for the first time may bring in a
        piece from the hand there; castling may bring it onto the King's or the Rook's
        square. Each choice is a move of its own, beside the move without gating, and legal
        exactly when that move is: the entering piece never covers a check (as in
        Fairy-Stockfish and the published rules). A piece enters only where it could be
        dropped (S-House: a Pawn captured into the hand never enters on the first row)."""
        t = self.t
        side = self.side
        virgin = self.virgin
        gates = t.gate_squares[side]
        held = [
            (code >> 1, t.drop_ok[code >> 1 << 1 | side])
            for code, n in enumerate(self.hands[side])
            if n
        ]
        extra: list[int] = []
        for c in out:
            o = c & 0xFF
            if o not in gates or not virgin[o]:
                continue
            kind = (c >> KIND_SHIFT) & KIND_MASK
            if kind == NORMAL:
                extra.extend(c | g << GATE_SHIFT for g, ok in held if ok is None or ok[o])
            elif kind == CASTLE:
                d = (c >> 8) & 0xFF
                rf, rt = self._castling_rook(c)
                if o not in (d, rt):
                    extra.extend(c | g << GATE_SHIFT for g, ok in held if ok is None or ok[o])
                if rf in gates and virgin[rf] and rf not in (d, rt):
                    extra.extend(
                        c | g << GATE_SHIFT | GATE_ROOK for g, ok in held if ok is None or ok[rf]
                    )
        out.extend(extra)

    def _ep_codes(self, out: list[int]) -> None:
        """The en-passant captures onto each square the last double or triple step passed
        (each takes the piece that made it, wherever it landed)."""
        t = self.t
        board = self.board
        side = self.side
        origins = t.ep_origins[side]
        capturer = t.ep_capturer
        for ep in self.ep_squares:
            for o in origins[ep]:
                p = board[o]
                if p and (p & 1) == side and capturer[p]:
                    out.append(o | ep << 8 | EP << KIND_SHIFT | F_PAWN)

    def _castling_codes(self, out: list[int]) -> None:
        side = self.side
        board = self.board
        virgin = self.virgin
        king = self.kings[side]
        if king >= 0 and not virgin[king]:
            return
        for kf, rf, empty, code in self.t.castle_rules[side]:
            if king < 0:
                # No royal piece (Giveaway): the unmoved piece of the array castles.
                if not self.t.plain_castling or not virgin[kf] or board[kf] != self.t.start_at[kf]:
                    continue
            elif king != kf:
                continue
            if not virgin[rf]:
                continue
            rook = board[rf]
            if not rook or (rook & 1) != side:
                continue
            if isinstance(code, int):
                for s in empty:
                    if board[s]:
                        break
                else:
                    out.append(code)
            else:  # fast castling: the King stops on any empty square before the Rook
                for d, c in code:
                    if not board[d]:
                        out.append(c)

    def _drop_codes(self, out: list[int]) -> None:
        """Drops from the hand: on empty squares where the piece may be dropped (its rows,
        regions and the immobility rule: `Tables.drop_ok`), not on a file where its owner
        has one of its type already when it is dropped one per file (Shogi's nifu)."""
        t = self.t
        geo = t.geo
        side = self.side
        board = self.board
        empties = [sq for sq in range(geo.size) if not board[sq]]
        for code, n in enumerate(self.hands[side]):
            if not n:
                continue
            for face in t.family_faces[code >> 1]:
                fcode = face << 1 | side
                ok = t.drop_ok[fcode]
                files = (
                    {sq % geo.files for sq in self.pieces[fcode]} if t.one_per_file[fcode] else ()
                )
                bound = self._colour_bound(fcode, empties) if t.any_other_colour else None
                for sq in empties:
                    if (
                        (ok is not None and not ok[sq])
                        or (files and sq % geo.files in files)
                        or (bound is not None and not bound(sq))
                    ):
                        continue
                    out.append(face | sq << 8 | DROP << KIND_SHIFT)

    def _colour_bound(self, fcode: int, empties: list[int]) -> Callable[[int], bool] | None:
        """Placement's Bishops (`drop-other-colour`, Fairy-Stockfish's
        dropOppositeColoredBishop): a Bishop is never dropped on the colour where half its
        side's Bishops (board and hand) already stand, and no other piece takes a square
        the Bishops still in hand would need on either colour. The test for one drop of
        `fcode` onto a square, or None when nothing binds it."""
        t = self.t
        geo = t.geo
        side = self.side

        def colour(sq: int) -> int:
            return (geo.file_of(sq) + geo.rank_of(sq)) & 1

        tests: list[Callable[[int], bool]] = []
        for code in t.other_colour_codes[side]:
            total = len(self.pieces[code]) + self.hands[side][t.hand_type[code]]
            if not self.hands[side][t.hand_type[code]]:
                continue
            on = [0, 0]
            for sq in self.pieces[code]:
                on[colour(sq)] += 1
            if code == fcode:

                def spread(sq: int, on: list[int] = on, total: int = total) -> bool:
                    return on[colour(sq)] + 1 <= (total + 1) // 2

                tests.append(spread)
                continue
            ok = t.drop_ok[code]
            free = [0, 0]
            for sq in empties:
                if ok is None or ok[sq]:
                    free[colour(sq)] += 1
            half = total // 2

            def enough(
                sq: int,
                on: list[int] = on,
                free: list[int] = free,
                half: int = half,
                ok: bytes | None = ok,
            ) -> bool:
                left = list(free)
                if ok is None or ok[sq]:
                    left[colour(sq)] -= 1
                return on[0] + left[0] >= half and on[1] + left[1] >= half

            tests.append(enough)
        if not tests:
            return None
        return lambda sq: all(test(sq) for test in tests)

    def _placement_codes(self) -> list[int]:
        t = self.t
        geo = t.geo
        side = self.side
        back = 0 if side == 0 else geo.ranks - 1
        taken = self.gates[side]
        out = []
        for code in dict.fromkeys(self.reserve[side]):
            for f in range(geo.files):
                sq = geo.index(f, back)
                p = self.board[sq]
                if p and (p & 1) == side and not t.royal[p] and sq not in taken:
                    out.append((code >> 1) | sq << 8 | PLACE << KIND_SHIFT)
        return out

    def legal_codes(self) -> list[int]:
        """Every legal move of the side to move, as integer codes (a new list each time;
        listed once per position, kept until the next move or until it is taken back); none
        once a rule has ended the game on the board (a bare King, a goal reached), as
        Fairy-Stockfish lists none then."""
        if self._legal is not None:
            return list(self._legal)
        if self.t.immediate_ends and self.decided() is not None:
            return []
        out = self._legal_board_codes()
        if self.variant.reserve_in_hand and any(self.hands[self.side]):
            self._gating_codes(out)
        if self.t.any_drop_mate == 2:
            out = [c for c in out if not self._illegal_drop_mate(c)]
        if self.t.any_in_place:
            out = self._in_place_legal(out)
        v = self.variant
        if v.no_checks:
            out = [c for c in out if not self.gives_check(c)]
        elif v.no_drop_checks:
            out = [
                c for c in out if (c >> KIND_SHIFT) & KIND_MASK != DROP or not self.gives_check(c)
            ]
        if v.must_capture:
            captures = [c for c in out if self._captures(c)]
            if captures:
                out = captures
        if v.must_drop and any(self.hands[self.side]):
            drops = [c for c in out if (c >> KIND_SHIFT) & KIND_MASK == DROP]
            if drops:
                out = drops  # while it can drop, a side with pieces in hand must
        self._legal = tuple(out)
        return out

    def gives_check(self, c: int) -> bool:
        """Move `c` (pseudo-legal here) leaves the opponent's royal piece attacked: Racing
        Kings forbids it, a search prunes no checking move. A board move or a drop is
        tried on the board alone, since an attack reads nothing else, unless the side's
        attacks or its moves need more (special moves read the piece lists, an explosion
        or a pseudo-royal piece the whole position, a gate brings a piece in, a petrified
        capturer checks no more): those, and every other kind of move, are made and
        unmade in full."""
        t = self.t
        side = self.side
        kind = (c >> KIND_SHIFT) & KIND_MASK
        if (
            kind in (NORMAL, DROP)
            and c < GATED
            and not (
                t.blast or t.pseudo_royal or t.petrify or t.special_codes[side] or self.gates[side]
            )
            and not self.placing
        ):
            target = self.kings[side ^ 1]
            d = (c >> 8) & 0xFF
            if target < 0 or d == target:
                return False  # no royal piece, or it is taken: no check to speak of
            board = self.board
            victim = board[d]
            o = -1 if kind == DROP else c & 0xFF
            piece = board[o] if o >= 0 else 0
            if o < 0:
                board[d] = (c & 0xFF) << 1 | side
            else:
                promo = (c >> PROMO_SHIFT) & PROMO_MASK
                board[o] = 0
                board[d] = promo << 1 | side if promo else t.flip[piece]
            try:
                if t.local_checks:
                    return _moved_checks(board, t.check_probes(side, target), o, d)
                return self.attacked(target, side)
            finally:
                board[d] = victim
                if o >= 0:
                    board[o] = piece
        self.push_code(c, keep_key=False)
        try:
            return self.is_check()
        finally:
            self.pop_code()

    def is_check_after(self, c: int) -> bool:
        """`is_check()` just after move `c` was made (the search knows the move): where a
        plain board move or drop can check only through its own two squares
        (`Tables.local_checks`), only the lines through them are read, and the special
        attackers (whose legs and screens lie anywhere) from their piece lists."""
        t = self.t
        kind = (c >> KIND_SHIFT) & KIND_MASK
        if t.local_checks and kind in (NORMAL, DROP) and c < GATED and not self.placing:
            target = self.kings[self.side]
            if target < 0:
                return False
            mover = self.side ^ 1
            at = t.check_at
            probes = at[mover][target] if at else None
            if probes is None:
                probes = t.check_probes(mover, target)
            o = -1 if kind == DROP else c & 0xFF
            return _moved_checks(self.board, probes, o, (c >> 8) & 0xFF) or (
                bool(t.special_codes[mover]) and self._specials_attack(target, mover)
            )
        return self.is_check()

    def _captures(self, c: int) -> bool:
        """Move `c` takes a piece (compulsory captures: Antichess)."""
        kind = (c >> KIND_SHIFT) & KIND_MASK
        if kind == EP:
            return True
        if kind != NORMAL:
            return False
        target = self.board[(c >> 8) & 0xFF]
        return bool(target) and target & 1 != self.side

    def _in_place_legal(self, out: list[int]) -> list[int]:
        """In-place promotions are never answers to a check when made where the piece stands
        (nothing moves); peaceful ones must give no check and attack nothing."""
        board = self.board
        in_place = self.t.in_place
        in_check = None
        kept = []
        for c in out:
            o = c & 0xFF
            ip = in_place[board[o]] if (c >> PROMO_SHIFT) & PROMO_MASK else None
            if ip is None or (c >> KIND_SHIFT) & KIND_MASK != NORMAL:
                kept.append(c)
                continue
            if o == (c >> 8) & 0xFF:
                if in_check is None:
                    in_check = self.is_check()
                if in_check:
                    continue
            if ip.peaceful and not self._peaceful(c):
                continue
            kept.append(c)
        return kept

    def _illegal_drop_mate(self, c: int) -> bool:
        """A drop of a piece whose `drop-mate` is illegal that checkmates."""
        if (c >> KIND_SHIFT) & KIND_MASK != DROP or self.t.drop_mate[c & 0xFF] != 2:
            return False
        self.push_code(c, keep_key=False)
        try:
            return self.is_check() and not self.legal_codes()
        finally:
            self.pop_code()

    def _mated_by_drop(self) -> bool:
        """The last move dropped a piece whose `drop-mate` is a loss (the caller has found
        the side to move checkmated): the mated side wins, as Fairy-Stockfish scores a
        Pawn-drop mate in Shogi."""
        c = self._last_code(1)
        if c < 0:
            return False
        return (c >> KIND_SHIFT) & KIND_MASK == DROP and self.t.drop_mate[c & 0xFF] == 1

    def _legal_board_codes(self) -> list[int]:
        if self.t.pseudo_royal:
            return self._pseudo_royal_codes(self.pseudo_codes())
        if self.t.blast and not self.t.plain_castling:  # plain_castling: no royal piece
            return self._atomic_codes(self.pseudo_codes()) if self.kings[self.side] >= 0 else []
        if self.variant.goal == "royal-capture":
            # The game ends the moment a royal piece is captured: no ply follows.
            return self.pseudo_codes() if self.kings[self.side] >= 0 else []
        pseudo = self.pseudo_codes()
        if self.placing:
            return pseudo
        side = self.side
        king = self.kings[side]
        t = self.t
        if king < 0:
            # No royal piece on the board yet (Screen: the King waits in hand): it may not
            # be dropped where it would stand attacked.
            return [
                c
                for c in pseudo
                if (c >> KIND_SHIFT) & KIND_MASK != DROP
                or not t.royal[(c & 0xFF) << 1 | side]
                or not self.attacked((c >> 8) & 0xFF, side ^ 1)
            ]
        enemy = side ^ 1
        in_check = self.attacked(king, enemy)
        out = []
        facing = False  # a move must not leave the royal pieces facing (flying general)
        between: list[int] | None = None
        if t.facing:
            between = self._between(king, self.kings[enemy])
            bikjang = (
                t.variant.bikjang
                and between is not None
                and not any(self.board[s] for s in between)
            )
            facing = t.variant.flying_general or bikjang
            if t.variant.passing:
                # Passing: never out of check, but always from bikjang (Fairy-Stockfish).
                pass_code = pseudo.pop()
                if bikjang or not in_check:
                    out.append(pass_code)
        elif t.variant.passing:
            pass_code = pseudo.pop()
            if not in_check:
                out.append(pass_code)
        if in_check:
            parries = self._parry_squares(king, enemy)
            gates = self.gates[side]
            for c in pseudo:
                kind = (c >> KIND_SHIFT) & KIND_MASK
                if kind == CASTLE:
                    continue
                if (
                    parries is not None
                    and kind in (NORMAL, DROP)
                    and (c >> 8) & 0xFF not in parries
                    and (kind == DROP or ((c & 0xFF) != king and c & 0xFF not in gates))
                ):
                    continue  # cannot take the checker or step between: no need to try it
                if kind == NORMAL and c < GATED and (c & 0xFF) not in self.gates[side]:
                    o = c & 0xFF
                    if o == king:
                        d = (c >> 8) & 0xFF
                        if self.safe_square(king, d) and not (facing and self._faces(d, king)):
                            out.append(c)
                    elif self._safe_moving(o, (c >> 8) & 0xFF, king, enemy, facing):
                        out.append(c)
                elif self._safe_after(c, facing):
                    out.append(c)
        elif facing and between is not None and not any(self.board[s] for s in between):
            # Bikjang: every move but the pass must part the royal pieces.
            for c in pseudo:
                castle = (c >> KIND_SHIFT) & KIND_MASK == CASTLE
                if (not castle or self._castling_ok(c)) and self._safe_after(c, True):
                    out.append(c)
        else:
            risky = self._pinned(king, enemy)
            if t.special_codes[enemy]:
                risky |= t.special_lines(king, enemy)
            hop_lines = (
                self._hop_lines(king, enemy) if t.has_hoppers or t.forward_hoppers[enemy] else None
            )
            if facing and between is not None:
                risky.update(between)  # a piece leaving the line may open it
            board_move_safe = self._board_move_safe
            for c in pseudo:
                if not (c >> KIND_SHIFT) & KIND_MASK:
                    if board_move_safe(c, king, enemy, risky, hop_lines, facing):
                        out.append(c)
                elif (c >> KIND_SHIFT) & KIND_MASK == CASTLE:
                    if self._castling_ok(c) and self._castled_safe(c):
                        out.append(c)
                elif self._safe_after(c, facing):
                    out.append(c)
            if t.initial_leap[self.board[king]] and self.virgin[king]:
                self._royal_first_leaps(king, out)
        if in_check and t.capture_checker_only[self.board[king]]:
            out = [c for c in out if c & 0xFF != king or self._takes_the_checker(c, king, enemy)]
        if not out and in_check:
            out = self._swap_codes(king)
        return out

    def _board_move_safe(
        self,
        c: int,
        king: int,
        enemy: int,
        risky: set[int],
        hop_lines: set[int] | None,
        facing: bool,
    ) -> bool:
        """Out of check: the board move `c` leaves the royal piece on `king` safe. Only a
        move of the royal piece itself, of a piece on a `risky` square (pinned, or on the
        line between the royal pieces) or on or onto a hopper's line needs a test."""
        o = c & 0xFF
        d = (c >> 8) & 0xFF
        if o == king:
            return self.safe_square(king, d) and not (facing and self._faces(d, king))
        # A reserve piece entering behind it: the full make. (Not a local copy of the
        # dict: a make and unmake puts back a copy of it.)
        if o in self.gates[self.side]:
            return self._safe_after(c)
        return (
            o not in risky and not (hop_lines and (o in hop_lines or d in hop_lines))
        ) or self._safe_moving(o, d, king, enemy, facing)

    def _royal_first_leaps(self, king: int, out: list[int]) -> None:
        """An unmoved royal piece's first leaps, out of check, legal ones only."""
        t = self.t
        leaps = self.variant.piece(t.type_ids[self.board[king] >> 1]).first_leaps
        if leaps:
            self._first_leap_codes(king, leaps, out)
        else:
            self._initial_leap_codes(king, out)

    def _parry_squares(self, king: int, enemy: int) -> set[int] | None:
        """With the King in check by one leaper or rider: its square and the squares between
        it and the King, where any move but the King's (or a gate's) must land to parry the
        check. None when that is not so simple (two checkers, a hopper, a bent, lame or
        multi-path attacker): the caller then tries every move."""
        t = self.t
        board = self.board
        found: set[int] | None = None
        for o, codes in t.leap_probes[enemy][king]:
            if board[o] in codes:
                if found is not None:
                    return None
                found = {o}
        for squares, riders, limits, hoppers, _rules in t.ray_probes[enemy][king]:
            between: list[int] = []
            screen = False
            dist = 0
            for s in squares:
                dist += 1
                p = board[s]
                if not p:
                    between.append(s)
                    continue
                if screen:
                    if p in hoppers:
                        return None
                    break
                if p in riders and (not limits or limits.get(p, 1 << 30) >= dist):
                    if found is not None:
                        return None
                    found = {s, *between}
                    break
                if not hoppers:
                    break
                screen = True
        for code in t.special_codes[enemy]:
            for o in self.pieces[code]:
                conds = t.special_map(code, o).get(king)
                if conds and self._conditions_hold(conds, o, enemy):
                    return None
        return found

    def _pinned(self, king: int, enemy: int) -> set[int]:
        """Own pieces standing alone between the King and an enemy rider that would attack
        it along that line: moving them is tested in full, every other move is safe."""
        board = self.board
        out: set[int] = set()
        for squares, riders, limits, hoppers, _rules in self.t.ray_probes[enemy][king]:
            if hoppers and not riders:
                continue
            first = -1
            dist = 0
            for s in squares:
                dist += 1
                p = board[s]
                if not p:
                    continue
                if first < 0:
                    if p & 1 == enemy:
                        break
                    first = s
                    continue
                if p in riders and (not limits or limits.get(p, 1 << 30) >= dist):
                    out.add(first)
                break
        return out

    def _hop_lines(self, king: int, enemy: int) -> set[int]:
        """Lines from the King on which an enemy hopper stands: a piece leaving or entering
        such a line may make or break the hopper's screen, so those moves are tested in
        full. Our own move never brings an enemy hopper onto a line."""
        board = self.board
        t = self.t
        out: set[int] = set()
        for squares, _riders, _limits, hoppers, _rules in t.ray_probes[enemy][king]:
            if hoppers and any(board[s] in hoppers for s in squares):
                out.update(squares)
        for code in t.forward_hoppers[enemy]:
            for o in self.pieces[code]:
                for kind, alts in t.special_map(code, o).get(king, ()):
                    if kind >= 4:
                        out.update(alts[0])
        return out

    def _castling_ok(self, c: int) -> bool:
        """Castling's own conditions (§4.4), the caller having excluded castling out of
        check: over safe squares; fast castling: the destination safe."""
        king = c & 0xFF
        dest = (c >> 8) & 0xFF
        if self.variant.fast_castling:
            return self.safe_square(king, dest)
        step = 1 if dest > king else -1
        return all(self.safe_square(king, s) for s in range(king + step, dest, step)) and (
            self.t.geo.rank_of(king) == self.t.geo.rank_of(dest)
        )

    def _castled_safe(self, c: int) -> bool:
        """The King is safe once castling `c` is made: `_safe_after` without the whole
        make and unmake, moving the King and the Rook on the board alone (castling takes
        nothing and the enemy's pieces stay). A reserve piece entering the Rook's square
        (Florea) or the hand (S-Chess) goes through the full make."""
        side = self.side
        if c >= GATED or self.gates[side]:
            return self._safe_after(c)
        board = self.board
        kf = c & 0xFF
        kt = (c >> 8) & 0xFF
        rf, rt = self._castling_rook(c)
        king = board[kf]
        rook = board[rf]
        board[kf] = 0
        board[rf] = 0
        was_kt = board[kt]
        was_rt = board[rt]
        board[kt] = king
        board[rt] = rook
        try:
            return not self.attacked(kt, side ^ 1)
        finally:
            board[rt] = was_rt
            board[kt] = was_kt
            board[rf] = rook
            board[kf] = king

    def safe_square(self, king: int, x: int) -> bool:
        """Spec §4.3: lift the King, clear `x`, put the King there; is it attacked?"""
        board = self.board
        pieces = self.pieces
        kcode = board[king]
        other = board[x]
        board[king] = 0
        pieces[kcode].discard(king)
        if other:
            pieces[other].discard(x)
        board[x] = kcode
        try:
            return not self.attacked(x, (kcode & 1) ^ 1)
        finally:
            board[x] = other
            if other:
                pieces[other].add(x)
            board[king] = kcode
            pieces[kcode].add(king)

    def _safe_moving(self, o: int, d: int, king: int, enemy: int, facing: bool = False) -> bool:
        """The King on `king` is safe once the piece on `o` (not the King) has moved to `d`:
        `_safe_after` for a plain board move without the whole make and unmake. Only the
        board's blockers and the enemy's pieces count for attacks; a promotion, a hand or a
        once-per-game right changes neither, and gating moves are made in full. With `facing`,
        the royal pieces must not face each other either (the flying general)."""
        board = self.board
        piece = board[o]
        cap = board[d]
        board[o] = 0
        board[d] = piece
        if cap:
            self.pieces[cap].discard(d)
        try:
            return not self.attacked(king, enemy) and not (facing and self.kings_facing())
        finally:
            board[d] = cap
            board[o] = piece
            if cap:
                self.pieces[cap].add(d)

    _LEAP_MIDS: ClassVar[dict[tuple[int, int], tuple[tuple[int, int], ...]]] = {
        (2, 0): ((1, 0),),
        (2, 2): ((1, 1),),
        (2, 1): ((1, 0), (1, 1)),
        (1, 2): ((0, 1), (1, 1)),
    }

    def _initial_leap_codes(self, king: int, out: list[int]) -> None:
        """Metamachy's first-move leap (spec: cazaux.md §2.3), never out of check."""
        geo = self.t.geo
        board = self.board
        for (ax, ay), mids in self._LEAP_MIDS.items():
            for sx in (1, -1):
                for sy in (1, -1):
                    for swap in (False, True):
                        dx, dy = (ay, ax) if swap else (ax, ay)
                        dx, dy = dx * sx, dy * sy
                        d = geo.offset(king, dx, dy)
                        if d is None or board[d]:
                            continue
                        c = king | d << 8
                        if c in out:
                            continue
                        ok = False
                        for mx, my in mids:
                            mx, my = (my, mx) if swap else (mx, my)
                            m = geo.offset(king, mx * sx, my * sy)
                            if m is not None and self.safe_square(king, m):
                                ok = True
                                break
                        if ok and self._safe_after(c):
                            out.append(c)

    def _first_leap_codes(self, king: int, leaps: tuple[Component, ...], out: list[int]) -> None:
        """An unmoved royal piece's first leaps (Cambodian's King: `mfsN`), to empty safe
        squares; never out of check (the caller asks only when not in check)."""
        geo = self.t.geo
        board = self.board
        color = self.side
        for comp in leaps:
            for v in sorted(comp.vectors):
                dx, dy = oriented(v, color)
                d = geo.offset(king, dx, dy)
                if d is None or board[d]:
                    continue
                c = king | d << 8
                if c not in out and self.safe_square(king, d):
                    out.append(c)

    def _takes_the_checker(self, c: int, king: int, enemy: int) -> bool:
        """Makpong: the King's move `c` captures the one piece that gives check."""
        board = self.board
        d = (c >> 8) & 0xFF
        p = board[d]
        if not p or p & 1 != enemy:
            return False
        board[d] = 0
        self.pieces[p].discard(d)
        try:
            return not self.attacked(king, enemy)
        finally:
            board[d] = p
            self.pieces[p].add(d)

    def _swap_codes(self, king: int) -> list[int]:
        """Tamerlane's succession: in check with no legal move, swap with a Prince whose
        square is safe for the King (spec: cazaux.md §4.7)."""
        t = self.t
        successor = self.variant.piece(t.type_ids[self.board[king] >> 1]).succession
        if not successor:
            return []
        out = []
        code = t.code(successor, self.side)
        for q in sorted(self.pieces[code]):
            c = king | q << 8 | SWAP << KIND_SHIFT
            if self._safe_after(c):
                out.append(c)
        return out

    def _safe_after(self, c: int, facing: bool = False) -> bool:
        """The mover's royal piece is not attacked after `c` (nor, with `facing`, on an open
        line with the other royal piece)."""
        side = self.side
        self.push_code(c, keep_key=False)
        king = self.kings[side]
        ok = king >= 0 and not self.attacked(king, side ^ 1)
        if ok and facing:
            ok = not self.kings_facing()
        self.pop_code()
        return ok

    def _between(self, a: int, b: int) -> list[int] | None:
        """The squares strictly between `a` and `b` when they share a rank or a file, else
        None (also when either is missing)."""
        if a < 0 or b < 0 or a == b:
            return None
        files = self.t.geo.files
        if a % files == b % files:
            step = files if b > a else -files
        elif a // files == b // files:
            step = 1 if b > a else -1
        else:
            return None
        return list(range(a + step, b, step))

    def kings_facing(self) -> bool:
        """The two royal pieces on one rank or file with nothing between them (Xiangqi's
        flying general, Janggi's bikjang)."""
        between = self._between(self.kings[0], self.kings[1])
        return between is not None and not any(self.board[s] for s in between)

    def _faces(self, x: int, origin: int) -> bool:
        """Whether the side to move's royal piece, moved from `origin` to `x`, would face the
        other one."""
        between = self._between(x, self.kings[self.side ^ 1])
        return between is not None and not any(self.board[s] and s != origin for s in between)

    # ------------------------------------------------------------------ make / unmake

    def push_code(self, c: int, keep_key: bool = True) -> None:
        """Make a move given as a code. No legality test: give it legal moves only.
        `keep_key=False` skips the repetition key (perft and legality probes)."""
        t = self.t
        board = self.board
        pieces = self.pieces
        virgin = self.virgin
        side = self.side
        o = c & 0xFF
        d = (c >> 8) & 0xFF
        kind = (c >> KIND_SHIFT) & KIND_MASK
        h = self.hash
        zp = t.z_piece
        extra: _Extra | None = None
        reset = bool(c & F_PAWN)
        kings = self.kings
        undo_kings = (kings[0], kings[1])
        # Castling rights change only when a King's or Rook's first square is touched.
        rights = bool(t.castle_pairs) and (
            t.blast or kind != NORMAL or o in t.castle_squares or d in t.castle_squares
        )
        if rights:
            h ^= self._rights_key()
        if kind == NORMAL:
            # The common case, written out: lift the piece, take what stands on `d`.
            piece = board[o]
            cap = board[d] if d != o else 0  # o == d: an in-place promotion (Sittuyin)
            changes: list[tuple[int, int, int]] = [(o, piece, virgin[o]), (d, cap, virgin[d])]
            board[o] = 0
            pieces[piece].discard(o)
            h ^= zp[piece][o]
            if virgin[o]:
                h ^= t.z_virgin[o]
                virgin[o] = 0
            if cap:
                reset = True
                pieces[cap].discard(d)
                h ^= zp[cap][d]
                if virgin[d]:
                    h ^= t.z_virgin[d]
                    virgin[d] = 0
                if t.royal[cap]:
                    kings[cap & 1] = -1
                if t.variant.captures_to_hand or self.gates[side ^ 1]:
                    extra = self._snapshot()
                    h = self._take(side, cap, d, h)
            promo = (c >> PROMO_SHIFT) & PROMO_MASK
            if promo:
                new = promo << 1 | side
                # A promotion restarts the move count, except where pieces also turn back
                # (Kyoto, Micro: no promotion is final), as in Fairy-Stockfish.
                if t.promo_origin[piece] is None or not t.turns_back:
                    reset = True
            else:
                new = t.flip[piece]
            promoted = self.promoted
            if promoted is not None and (promo or promoted[o] or promoted[d]):
                if extra is None:
                    extra = self._snapshot()
                h = self._carry_promoted(o, d, bool(promo or promoted[o]), h)
            board[d] = new
            pieces[new].add(d)
            h ^= zp[new][d]
            if t.royal[new]:
                kings[side] = d
            if self.gates[side] and o in self.gates[side]:
                if extra is None:
                    extra = self._snapshot()
                h = self._gate(o, changes, h)
            if c >= GATED:
                if extra is None:
                    extra = self._snapshot()
                h = self._gate_from_hand(c, o, changes, h)
            if c & F_ONCE:
                if extra is None:
                    extra = self._snapshot()
                self.once[side] = False
                h ^= t.z_once[side]
        else:
            changes = []
            if kind == EP:
                piece = self._lift(o, changes)
                self._lift(d, changes)
                cap = self._lift(self.ep_victim, changes)
                h ^= zp[piece][o] ^ zp[cap][self.ep_victim] ^ zp[piece][d]
                self._place(d, piece, changes)
                reset = True
                if t.variant.captures_to_hand:
                    extra = self._snapshot()
                    h = self._take(side, cap, self.ep_victim, h)
            elif kind == CASTLE:
                rf, rt = self._castling_rook(c)
                king = self._lift(o, changes)
                rook = self._lift(rf, changes)
                h ^= zp[king][o] ^ zp[rook][rf] ^ zp[king][d] ^ zp[rook][rt]
                self._place(d, king, changes)
                self._place(rt, rook, changes)
                if t.royal[king]:  # a plain King castles too (Giveaway)
                    kings[side] = d
                if rf in self.gates[side]:
                    extra = self._snapshot()
                    h = self._gate(rf, changes, h)
                if c >= GATED:
                    if extra is None:
                        extra = self._snapshot()
                    h = self._gate_from_hand(c, rf if c & GATE_ROOK else o, changes, h)
                if t.variant.castling_opposite:
                    # The other side loses its castling to this wing: its Rook there counts
                    # as moved (the hash follows from the virgin flags below).
                    their = t.castle_rooks[side ^ 1][(c >> CASTLE_SHIFT) & MC.CASTLE_MASK][0]
                    if their >= 0 and virgin[their]:
                        changes.append((their, board[their], 1))
                        virgin[their] = 0
            elif kind == DROP:
                reset = True  # a drop cannot be taken back, like a Pawn's step (as in FSF)
                extra = self._snapshot()
                code = o << 1 | side
                hand = self.hands[side]
                hcode = t.hand_type[code]
                n = hand[hcode]
                keys = t.z_hand[hcode | side]
                h ^= keys[n] ^ (keys[n - 1] if n > 1 else 0) ^ zp[code][d]
                hand[hcode] = n - 1
                self._place(d, code, changes)
                if t.royal[code]:
                    kings[side] = d  # a King entering by a drop (Sittuyin's placement)
                if t.tracked[code] and t.start_at[d] == code and d not in t.castle_squares:
                    # Dropped where a piece of its kind starts, it has not moved: a Pawn
                    # dropped on its second rank may double-step (Crazyhouse).
                    virgin[d] = 1
                    h ^= t.z_virgin[d]
                elif t.castle_drop.get(d) == code:
                    # Placement: a King or Rook dropped on its castling square may castle
                    # (the rights, hashed as pairs, are read again below).
                    virgin[d] = 1
            elif kind == PLACE:
                extra = self._snapshot()
                code = o << 1 | side
                self.reserve[side].remove(code)
                h ^= t.z_reserve[code] ^ t.z_gate[code][d]
                self.gates[side][d] = code
            elif kind == SWAP:
                king = self._lift(o, changes)
                prince = self._lift(d, changes)
                h ^= zp[king][o] ^ zp[prince][d] ^ zp[king][d] ^ zp[prince][o]
                self._place(d, king, changes)
                self._place(o, prince, changes)
                kings[side] = d
            for sq, _old, was_virgin in changes:
                if was_virgin and not virgin[sq]:
                    h ^= t.z_virgin[sq]
        if t.blast and (kind == EP or (kind == NORMAL and changes[1][1])):
            if extra is None and self.promoted is not None:
                extra = self._snapshot()
            h = self._explode(d, changes, h)
        if t.petrify and (kind == EP or (kind == NORMAL and changes[1][1])) and t.petrify[piece]:
            h = self._petrify(d, changes, h)
        if t.first_leap_takers and kind == NORMAL:
            h = self._take_first_leap(d, side, changes, h)
        if t.counting is not None:
            counted = self._counted(c, side, changes)
            if counted != self.tally:
                if extra is None:
                    extra = self._snapshot()
                self.tally = counted
        if t.z_checks:
            king = kings[side ^ 1]
            if king >= 0 and self.attacked(king, side):
                if extra is None:
                    extra = self._snapshot()
                given = self.checks[side]
                limit = len(t.z_checks[side]) - 1
                if given < limit:
                    h ^= t.z_checks[side][given] ^ t.z_checks[side][given + 1]
                    self.checks = (
                        (given + 1, self.checks[1]) if side == 0 else (self.checks[0], given + 1)
                    )
        self._stack.append(
            _new_undo(
                _Undo,
                (
                    c,
                    changes,
                    extra,
                    undo_kings,
                    self.ep_squares,
                    self.ep_victim,
                    self.halfmove,
                    self.fullmove,
                    side,
                    self.hash,
                    keep_key,
                    self._legal,
                ),
            )
        )
        self._legal = None
        # En passant right, counters, side to move.
        self.ep = -1
        self.ep_victim = -1
        if self.ep_squares:
            self.ep_squares = ()
        if (
            c & F_DOUBLE
            and kind == NORMAL
            and t.ep_victim[board[d]]
            and not (c >> PROMO_SHIFT) & PROMO_MASK
        ):
            # Every square passed (one for a double step, two for a triple step).
            step = t.geo.files if d > o else -t.geo.files
            self.ep_squares = tuple(range(o + step, d, step))
            self.ep = o + step
            self.ep_victim = d
        if kind == PLACE:
            nxt = 0 if self.reserve[0] else 1 if self.reserve[1] else 0
            if nxt != side:
                h ^= t.z_side
            self.side = nxt
        else:
            self.halfmove = 0 if reset else self.halfmove + 1
            if side == 1:
                self.fullmove += 1
            self.side = side ^ 1
            h ^= t.z_side
        self.ply += 1
        if rights:
            h ^= self._rights_key()
        self.hash = h
        if keep_key:
            self._keys.append(self._key())
            if self._checks:
                captured = kind == EP or (kind == NORMAL and bool(changes[1][1]))
                self._checks.append(self.is_check())
                self._trail.append((c, captured))
                if self._chase:
                    now = (chasing.blockers(self, 0), chasing.blockers(self, 1))
                    before = self._chase[-1][1][self.side]
                    found = chasing.chased(self, c, captured, now[self.side], before)
                    self._chase.append((found, now))

    def _explode(self, d: int, changes: list[tuple[int, int, int]], h: int) -> int:
        """Atomic: the capture on `d` explodes; the capturing piece and every piece around
        `d` but the immune ones (Pawns) leave the board. With captures to hand each goes to
        its opponent's hand, as a captured piece does (Fairy-Stockfish's atomic
        Crazyhouse). Returns the new hash."""
        t = self.t
        board = self.board
        promoted = self.promoted
        for sq in (d, *t.blast_ring[d]):
            p = board[sq]
            if not p or p == WALL or (sq != d and t.blast_immune[p]):
                continue  # walls stand through blasts (Fairy-Stockfish)
            if self.virgin[sq]:
                h ^= t.z_virgin[sq]
            self._lift(sq, changes)
            h ^= t.z_piece[p][sq]
            if t.royal[p]:
                self.kings[p & 1] = -1
            if t.variant.captures_to_hand:
                h = self._take(p & 1 ^ 1, p, sq, h)
            if promoted is not None and promoted[sq]:
                promoted[sq] = 0
                h ^= t.z_promoted[sq]
        return h

    def _petrify(self, d: int, changes: list[tuple[int, int, int]], h: int) -> int:
        """The capturing piece (its type before any promotion, as in Fairy-Stockfish) turns
        into a wall on `d`; after a blast, which has removed it already, the wall still
        stands there. Returns the new hash."""
        t = self.t
        zp = t.z_piece
        p = self._lift(d, changes)
        if p:
            h ^= zp[p][d]
        promoted = self.promoted
        if promoted is not None and promoted[d]:
            # A promoted mark moved here with the piece (the move saved the marks first).
            promoted[d] = 0
            h ^= t.z_promoted[d]
        self._place(d, WALL, changes)
        return h ^ zp[WALL][d]

    def _pseudo_royals(self, color: int) -> list[int]:
        """The squares of `color`'s pseudo-royal pieces: of each listed type (of all its
        pieces together for `["all"]`) when at most `count` + 1 are left; and its royal
        piece, where it has one (Maharajah: the side with a King beside the other's
        pseudo-royal pieces)."""
        rule = self.variant.extinction
        assert rule is not None
        t = self.t
        pieces = self.pieces
        king = self.kings[color]
        if not rule.pieces:
            squares = [sq for code in t.side_codes[color] for sq in pieces[code]]
            return squares if len(squares) <= rule.count + 1 else [king] if king >= 0 else []
        out: list[int] = [king] if king >= 0 else []
        for pid in rule.pieces:
            found = [sq for code in t.kinds[t.code(pid, color)] for sq in pieces[code]]
            if len(found) <= rule.count + 1:
                out.extend(found)
        return out

    def _pseudo_check(self, color: int) -> bool:
        return any(self.attacked(sq, color ^ 1) for sq in self._pseudo_royals(color))

    def _pseudo_royal_codes(self, pseudo: list[int]) -> list[int]:
        """The moves that leave no pseudo-royal piece of the side attacked; castling neither
        out of check nor a pseudo-royal piece over an attacked square."""
        side = self.side
        enemy = side ^ 1
        # Fairy-Stockfish's (pyffish 0.0.90) pseudo-royal pieces are those before the move,
        # the moved one followed: a promotion or drop that makes a second piece of the type
        # still may not leave the first attacked, and the new one is free.
        before = self._pseudo_royals(side)
        theirs = set(self._pseudo_royals(enemy))
        board = self.board
        out = []
        for c in pseudo:
            kind = (c >> KIND_SHIFT) & KIND_MASK
            o, d = c & 0xFF, (c >> 8) & 0xFF
            if kind == CASTLE and o in before:
                step = 1 if d > o else -1
                if any(self.attacked(s, enemy) for s in range(o, d + step, step)):
                    continue
            if kind != DROP and board[d] and d in theirs and board[d] & 1 != side:
                out.append(c)  # taking a pseudo-royal piece is never illegal
                continue
            kept = [d if sq == o and kind != DROP else sq for sq in before]
            self.push_code(c, keep_key=False)
            try:
                ok = not any(self.attacked(sq, enemy) for sq in kept)
            finally:
                self.pop_code()
            if ok:
                out.append(c)
        return out

    def _atomic_check(self, color: int) -> bool:
        """Atomic: `color`'s King is attacked, unless the two Kings touch (taking one
        would explode the other)."""
        king = self.kings[color]
        other = self.kings[color ^ 1]
        if king < 0:
            return False
        if other >= 0 and other in self.t.blast_ring[king]:
            return False
        return self.attacked(king, color ^ 1)

    def _atomic_codes(self, pseudo: list[int]) -> list[int]:
        """Atomic's legal moves: a King never captures; a move may not explode the own King
        nor leave it in check, unless it explodes the enemy King."""
        side = self.side
        king = self.kings[side]
        board = self.board
        petrify = self.t.petrify
        in_check = self._atomic_check(side)
        out = []
        for c in pseudo:
            kind = (c >> KIND_SHIFT) & KIND_MASK
            if kind == CASTLE:
                if in_check or not self._castling_ok(c):
                    continue
            elif kind == NORMAL and (c & 0xFF) == king and board[(c >> 8) & 0xFF]:
                continue
            d = (c >> 8) & 0xFF
            petrified = bool(
                petrify
                and (kind == EP or (kind == NORMAL and board[d]))
                and petrify[board[c & 0xFF]]
            )
            self.push_code(c, keep_key=False)
            try:
                if petrified:
                    # Fairy-Stockfish's atomic legality test sees the capture square empty,
                    # as the blast leaves it, not the wall petrification puts there: that
                    # wall shields no King from this move's check (pyffish 0.0.90).
                    board[d] = 0
                ok = self.kings[side] >= 0 and (
                    self.kings[side ^ 1] < 0 or not self._atomic_check(side)
                )
            finally:
                if petrified:
                    board[d] = WALL
                self.pop_code()
            if ok:
                out.append(c)
        return out

    def _take_first_leap(
        self, d: int, side: int, changes: list[tuple[int, int, int]], h: int
    ) -> int:
        """Cambodian: a Rook that moves to check the unmoved enemy King takes its first leap
        away (Fairy-Stockfish's cambodianMoves). Returns the new hash."""
        kings = self.t.first_leap_takers.get(self.board[d])
        king = self.kings[side ^ 1]
        if not kings or king < 0 or not self.virgin[king] or self.board[king] not in kings:
            return h
        found: list[int] = []
        self._piece_codes(self.board[d], d, found)
        if any((x >> 8) & 0xFF == king for x in found):
            changes.append((king, self.board[king], 1))
            self.virgin[king] = 0
            h ^= self.t.z_virgin[king]
        return h

    def _rights_key(self) -> int:
        """Hash of the castling rights: each King-Rook pair whose two pieces never moved."""
        virgin = self.virgin
        h = 0
        for king, rook, key in self.t.castle_pairs:
            if virgin[king] and virgin[rook]:
                h ^= key
        return h

    def _lift(self, sq: int, changes: list[tuple[int, int, int]]) -> int:
        """Remove what stands on `sq` (recorded for undo); the caller fixes the hash."""
        p = self.board[sq]
        changes.append((sq, p, self.virgin[sq]))
        if p:
            self.pieces[p].discard(sq)
            self.board[sq] = 0
        self.virgin[sq] = 0
        return p

    def _place(self, sq: int, p: int, changes: list[tuple[int, int, int]]) -> None:
        changes.append((sq, self.board[sq], self.virgin[sq]))
        self.board[sq] = p
        self.pieces[p].add(sq)
        self.virgin[sq] = 0

    def _take(self, side: int, cap: int, d: int, h: int) -> int:
        """A capture's side effects: the piece goes to the captor's hand (Patricia) and a
        reserve piece waiting behind `d` is lost (Florea). Returns the new hash."""
        t = self.t
        if t.variant.captures_to_hand and not t.royal[cap]:
            # The royal piece is never held: its capture ends the game (patricia.md §6).
            hcode = t.hand_type[cap]
            if self.promoted is not None and self.promoted[d] and t.demote[cap]:
                hcode = t.demote[cap]  # Crazyhouse: a promoted piece returns as a Pawn
            hand = self.hands[side]
            n = hand[hcode]
            keys = t.z_hand[hcode | side]
            h ^= (keys[n] if n else 0) ^ keys[n + 1]
            hand[hcode] = n + 1
        gate = self.gates[side ^ 1].pop(d, None)
        if gate is not None:
            h ^= t.z_gate[gate][d]
        return h

    def _carry_promoted(self, o: int, d: int, arrives_promoted: bool, h: int) -> int:
        """Move the promoted mark with its piece from `o` to `d` (a promotion sets it; a
        capture on `d` has already used the captured piece's mark). Returns the new hash."""
        promoted = self.promoted
        assert promoted is not None
        keys = self.t.z_promoted
        if promoted[o]:
            promoted[o] = 0
            h ^= keys[o]
        if promoted[d] != arrives_promoted:
            promoted[d] = arrives_promoted
            h ^= keys[d]
        return h

    def _gate_from_hand(self, c: int, sq: int, changes: list[tuple[int, int, int]], h: int) -> int:
        """S-Chess: the reserve piece named in `c` leaves the hand for the vacated `sq`."""
        t = self.t
        side = self.side
        code = ((c >> GATE_SHIFT) & GATE_MASK) << 1 | side
        hand = self.hands[side]
        hcode = t.hand_type[code]
        n = hand[hcode]
        keys = t.z_hand[hcode | side]
        hand[hcode] = n - 1
        self._place(sq, code, changes)
        return h ^ keys[n] ^ (keys[n - 1] if n > 1 else 0) ^ t.z_piece[code][sq]

    def _gate(self, sq: int, changes: list[tuple[int, int, int]], h: int) -> int:
        """The reserve piece waiting behind `sq` enters it (spec: florea.md §5)."""
        t = self.t
        code = self.gates[self.side].pop(sq)
        self._place(sq, code, changes)
        return h ^ t.z_gate[code][sq] ^ t.z_piece[code][sq]

    def _castling_rook(self, c: int) -> tuple[int, int]:
        """The Rook's squares (from, to) of castling move `c` (fast castling: the Rook
        goes where the King stood)."""
        rf, rt = self.t.castle_rooks[self.side][(c >> CASTLE_SHIFT) & MC.CASTLE_MASK]
        return rf, (rt if rt >= 0 else c & 0xFF)

    def _snapshot(self) -> _Extra:
        return _Extra(
            [h[:] for h in self.hands],
            [r[:] for r in self.reserve],
            [dict(g) for g in self.gates],
            self.once[:],
            bytearray(self.promoted) if self.promoted is not None else None,
            self.tally,
            self.checks,
        )

    def pop_code(self) -> int:
        """Unmake the last move and return its code."""
        u = self._stack.pop()
        board = self.board
        pieces = self.pieces
        virgin = self.virgin
        for sq, old, old_virgin in reversed(u.changes):
            cur = board[sq]
            if cur:
                pieces[cur].discard(sq)
            board[sq] = old
            if old:
                pieces[old].add(sq)
            virgin[sq] = old_virgin
        if u.extra is not None:
            (
                self.hands,
                self.reserve,
                self.gates,
                self.once,
                self.promoted,
                self.tally,
                self.checks,
            ) = u.extra
        self.kings[0], self.kings[1] = u.kings
        self.ep_squares = u.ep_squares
        self.ep = u.ep_squares[0] if u.ep_squares else -1
        self.ep_victim = u.ep_victim
        self.halfmove = u.halfmove
        self.fullmove = u.fullmove
        self.side = u.side
        self.hash = u.hash
        self._legal = u.legal
        self.ply -= 1
        if u.keyed:
            self._keys.pop()
            if self._checks:
                self._checks.pop()
                self._trail.pop()
                if self._chase:
                    self._chase.pop()
        return u.code

    def push_null(self) -> None:
        """Pass the turn (a search's null move); undo it with `pop_code`, which returns 0.
        Only the side to move, the hash and the en-passant right change. Never during the
        placement phase, where the side to move does not simply alternate."""
        self._stack.append(
            _new_undo(
                _Undo,
                (
                    0,
                    [],
                    None,
                    (self.kings[0], self.kings[1]),
                    self.ep_squares,
                    self.ep_victim,
                    self.halfmove,
                    self.fullmove,
                    self.side,
                    self.hash,
                    False,
                    self._legal,
                ),
            )
        )
        self._legal = None
        self.ep = -1
        self.ep_squares = ()
        self.ep_victim = -1
        self.side ^= 1
        self.hash ^= self.t.z_side
        self.ply += 1

    # ------------------------------------------------------------------ repetition keys

    def _key(self) -> int:
        """The hash extended by the en-passant captures that are actually legal (§4.7):
        one key for each square passed where one is."""
        if self.ep < 0:
            return self.hash
        h = self.hash
        z_ep = self.t.z_ep
        for sq in self.ep_capture_squares():
            h ^= z_ep[sq]
        return h

    def ep_capture_squares(self) -> list[int]:
        """The squares passed by the last double or triple step onto which an en-passant
        capture is legal, in the board's order (what Fairy-Stockfish writes in a FEN)."""
        if self.ep < 0:
            return []
        out: list[int] = []
        self._ep_codes(out)
        if self.t.blast and out:
            legal = set(self.legal_codes())
            out = [c for c in out if c in legal]
        elif self.variant.goal == "checkmate":
            out = [c for c in out if self._safe_after(c)]
        return sorted({(c >> 8) & 0xFF for c in out})

    def repetitions(self) -> int:
        """How many times the current position has occurred in the known history."""
        key = self._keys[-1]
        return sum(1 for k in self._keys if k == key)

    # ------------------------------------------------------------------ Move values

    def to_move(self, c: int) -> Move:
        t = self.t
        geo = t.geo
        kind = (c >> KIND_SHIFT) & KIND_MASK
        o = c & 0xFF
        d = (c >> 8) & 0xFF
        promo = (c >> PROMO_SHIFT) & PROMO_MASK
        if kind in (DROP, PLACE):
            return Move(_KINDS[kind], None, geo.square(d), None, t.type_ids[o])
        gate = (c >> GATE_SHIFT) & GATE_MASK
        gate_square = None
        if gate and c & GATE_ROOK:
            gate_square = geo.square(self._castling_rook(c)[0])
        return Move(
            _KINDS[kind],
            geo.square(o),
            geo.square(d),
            t.type_ids[promo] if promo else None,
            None,
            t.type_ids[gate] if gate else None,
            gate_square,
        )

    def to_code(self, move: Move) -> int:
        """The code of a legal move; RulesError when the move is not legal here."""
        for c in self.legal_codes():
            if self.to_move(c) == move:
                return c
        raise RulesError(f"{move} is not a legal move in this position")

    def legal_moves(self) -> list[Move]:
        return [self.to_move(c) for c in self.legal_codes()]

    def push(self, move: Move) -> None:
        """Make a legal move (checked)."""
        self.push_code(self.to_code(move))

    def pop(self) -> Move:
        return self.to_move(self.pop_code())

    def outcome(self, legal: list[int] | None = None) -> Outcome | None:
        """The result if the game has ended by rule in this position (spec §4.7)."""
        v = self.variant
        side = self.side
        ended = self.decided()
        if ended is not None or self.placing:
            return ended
        if legal is None:
            legal = self.legal_codes()
        if not legal:
            if v.goal == "checkmate" and self.is_check():
                if self.t.any_drop_mate == 1 and self._mated_by_drop():
                    return Outcome(Termination.DROP_MATE, winner=side)
                if v.mate is not None:
                    return self._conditional_mate(v.mate)
                if v.checkmate == "win":
                    return Outcome(Termination.CHECKMATED_WIN, winner=side)
                return Outcome(Termination.CHECKMATE, winner=side ^ 1)
            if v.stalemate == "win-on-points":
                return Outcome(Termination.STALEMATE_POINTS, winner=side ^ 1)
            if v.stalemate == "loss":
                return Outcome(Termination.STALEMATE_WIN, winner=side ^ 1)
            if v.stalemate == "win":
                return Outcome(Termination.STALEMATE_WIN, winner=side)
            if v.stalemate == "fewer-pieces":
                mine, theirs = self._army(side), self._army(side ^ 1)
                if mine != theirs:
                    return Outcome(
                        Termination.STALEMATE_WIN, winner=side if mine < theirs else side ^ 1
                    )
            return Outcome(Termination.STALEMATE, winner=self.points_winner())
        move_rule = bool(v.move_rule) and self.halfmove >= 2 * v.move_rule
        if move_rule and v.chasing and len(self._checks) == len(self._keys):
            move_rule = self.halfmove - self._extra_checks() >= 2 * v.move_rule
        if move_rule and (v.points is not None or v.perpetual_check != "draw"):
            # Fairy-Stockfish looks at the move rule first; it matters where a repetition
            # may be lost.
            return Outcome(Termination.MOVE_RULE, self.points_winner(), detail=v.move_rule)
        if v.move_repetition == "loss" and len(self._trail) == len(self._keys):
            repeater = self._move_repeater()
            if repeater is not None:
                return Outcome(Termination.MOVE_REPETITION, winner=repeater ^ 1)
        if v.repetition and self.repetitions() >= v.repetition:
            return self._repetition_outcome()
        if move_rule:
            return Outcome(Termination.MOVE_RULE, winner=None, detail=v.move_rule)
        limit, since = self.tally
        if limit and self.ply - since > limit:
            return Outcome(Termination.COUNTING, winner=None)
        if v.insufficient_material and self._insufficient():
            return Outcome(Termination.INSUFFICIENT_MATERIAL, winner=None)
        return None

    def decided(self) -> Outcome | None:
        """The endings the board shows without listing a move or looking at the history: a
        captured royal piece, a goal zone reached, a bare King (the
        search asks this at every node; `outcome` asks it first)."""
        v = self.variant
        if v.goal == "royal-capture" and self.kings[self.side] < 0:
            return Outcome(Termination.ROYAL_CAPTURE, winner=self.side ^ 1)
        if self.placing:
            return None
        if v.blast is not None and self.kings[self.side] < 0 and not self.t.plain_castling:
            return Outcome(Termination.EXPLOSION, winner=self.side ^ 1)
        if v.extinction is not None and not v.extinction.pseudo_royal:
            ended = self._extinct()
            if ended is not None:
                return ended
        if v.check_count and self.checks[self.side ^ 1] >= v.check_count:
            return Outcome(Termination.CHECK_COUNT, self.side ^ 1, detail=v.check_count)
        if v.zone is not None:
            ended = self._zone_outcome()
            if ended is not None:
                return ended
        if v.castling_wins:
            ended = self._castling_won()
            if ended is not None:
                return ended
        if (v.passing or v.bikjang) and (self._stack or self._before):
            ended = self._passed_out()
            if ended is not None:
                return ended
        if v.bare_king:
            return self._bare_king()
        if v.bare_king_draw and self._bared():
            return Outcome(Termination.BARE_KING, winner=None)
        if v.bare_king_win:
            for color in (self.side ^ 1, self.side):
                if self._bare(color):
                    return Outcome(Termination.BARED_WIN, winner=color)
        return None

    def _bare(self, color: int) -> bool:
        """`color` has only royal pieces left, and nothing in hand."""
        t = self.t
        pieces = self.pieces
        return not any(self.hands[color]) and all(
            t.royal[code] or not pieces[code] for code in t.side_codes[color]
        )

    def _extinct(self) -> Outcome | None:
        """Fairy-Stockfish's extinction rule: the side that just moved is looked at first;
        a side with at most `count` pieces of a listed type (or of all its pieces together)
        on the board and in hand has lost, or won."""
        rule = self.variant.extinction
        assert rule is not None
        t = self.t
        pieces = self.pieces

        def left(color: int, pid: str | None) -> int:
            hand = self.hands[color]
            if pid is None:
                return sum(len(pieces[code]) for code in t.side_codes[color]) + sum(hand)
            code = t.code(pid, color)
            # promoted forms count on the board; in hand they are what they were
            board = sum(len(pieces[kind]) for kind in t.kinds[code])
            return board + hand[t.hand_type[code]]

        for color in (self.side ^ 1, self.side):
            extinct = any(
                left(color, pid) <= rule.count
                and (not rule.opponent_count or left(color ^ 1, pid) >= rule.opponent_count)
                for pid in (rule.pieces or (None,))
            )
            if extinct:
                return Outcome(
                    Termination.EXTINCTION, winner=color if rule.result == "win" else color ^ 1
                )
        return None

    def _bared(self) -> bool:
        """Whether a side has only royal pieces left (and nothing in hand)."""
        t = self.t
        pieces = self.pieces
        for color in (0, 1):
            if any(self.hands[color]):
                continue
            if all(t.royal[code] or not pieces[code] for code in t.side_codes[color]):
                return True
        return False

    def checker_types(self) -> set[str]:
        """The piece ids of the enemy pieces that give check to the side to move."""
        side = self.side
        king = self.kings[side]
        out: set[str] = set()
        if king < 0:
            return out
        t = self.t
        for code in t.side_codes[side ^ 1]:
            for o in self.pieces[code]:
                found: list[int] = []
                self._piece_codes(code, o, found)
                if any((c >> 8) & 0xFF == king for c in found):
                    out.add(t.type_ids[code >> 1])
                    break
        return out

    def _conditional_mate(self, rule: MateRule) -> Outcome:
        """Shatar's checkmate: given by forbidden pieces alone, it loses for the mating
        side; otherwise it needs a check by a `series_needs` piece in the unbroken series
        of checks that ended in it (looked back two plies at a time through the known
        moves), or it is a draw (Fairy-Stockfish's shatarMateRule)."""
        side = self.side
        checkers = self.checker_types()
        if checkers and checkers <= rule.forbidden_by:
            return Outcome(Termination.FORBIDDEN_MATE, winner=side)
        undone: list[tuple[int, bool]] = []
        try:
            while True:
                if self.checker_types() & rule.series_needs:
                    return Outcome(Termination.CHECKMATE, winner=side ^ 1)
                if len(self._stack) < 2 or not self._stack[-1].code or not self._stack[-2].code:
                    break
                for _ in range(2):
                    keyed = self._stack[-1].keyed
                    undone.append((self.pop_code(), keyed))
                if not self.is_check():
                    break
        finally:
            for c, keyed in reversed(undone):
                self.push_code(c, keep_key=keyed)
        return Outcome(Termination.MATE_DRAW, winner=None)

    # ------------------------------------------------------------------ counting rules

    def counting(self) -> tuple[int, int] | None:
        """The count in progress, (plies counted, limit in plies), or None."""
        limit, since = self.tally
        return (self.ply - since, limit) if limit else None

    def _army(self, color: int) -> int:
        """Pieces of `color` on the board, the King included."""
        pieces = self.pieces
        return sum(len(pieces[code]) for code in self.t.side_codes[color])

    def count_limit(self, side: int) -> int:
        """The limit in moves of a count by `side` in this position (0: it does not count),
        by the style's rules (Fairy-Stockfish's Position::count_limit)."""
        rule = self.variant.counting
        assert rule is not None
        t = self.t
        pieces = self.pieces
        mine = self._army(side)
        pawns = any(pieces[code] for code in t.count_pawns)
        if rule.style == "makruk":
            if pawns or self._army(side ^ 1) == 1:
                return 0
            if mine > 1:
                return rule.board
        elif rule.style == "cambodian":
            if mine > 3 or self._army(side ^ 1) == 1:
                return 0
            if mine > 1:
                return rule.board
            if pawns:
                return 0
        elif pawns or mine > 1:  # asean: pieces' honour only
            return 0
        for line in rule.pieces:
            if len(pieces[t.code(line.piece, side ^ 1)]) >= line.count:
                return line.moves
        return rule.otherwise

    def _counted(self, c: int, side: int, changes: list[tuple[int, int, int]]) -> tuple[int, int]:
        """The count after move `c` by `side` (made on the board, not yet counted as a
        ply): it starts when none runs, and restarts when the side to move is left with
        its King alone by a capture or a promotion; a King that takes the last Pawn starts
        its own count (Fairy-Stockfish's do_move)."""
        rule = self.variant.counting
        assert rule is not None
        t = self.t
        ply = self.ply + 1
        limit, since = self.tally
        captured = 0
        for _sq, old, _v in changes:
            if old and old & 1 != side:
                captured = old
        asean = rule.style == "asean"
        if (
            not asean
            and captured
            and captured in t.count_pawns
            and self._army(side) == 1
            and not any(self.pieces[code] for code in t.count_pawns)
        ):
            moves = self.count_limit(side)
            if moves:
                limit, since = 2 * moves, ply - (2 * (self._army(0) + self._army(1)) - 1)
        other = side ^ 1
        promoted = (c >> PROMO_SHIFT) & PROMO_MASK
        if not limit or ((captured or promoted) and self._army(other) == 1):
            moves = self.count_limit(other)
            if moves:
                start = 0 if asean or self._army(other) > 1 else 2 * (self._army(0) + self._army(1))
                limit, since = 2 * moves, ply - start
        return limit, since

    def _passed_out(self) -> Outcome | None:
        """Janggi: the last move was a pass that left the royal pieces facing (bikjang), or
        the second pass in a row; the game is over (no move follows, as in Fairy-Stockfish)."""
        last, before = self._last_code(1), self._last_code(2)
        if last < 0 or (last >> KIND_SHIFT) & KIND_MASK != PASS:
            return None
        if self.variant.bikjang and self.kings_facing():
            return Outcome(Termination.BIKJANG, self.points_winner())
        if before >= 0 and (before >> KIND_SHIFT) & KIND_MASK == PASS:
            return Outcome(Termination.PASSES, self.points_winner())
        return None

    def _last_code(self, back: int) -> int:
        """The code of the move `back` plies ago (1: the last one), read across a copy
        (whose undo stack starts empty); -1 when there is none."""
        stack = self._stack
        if back <= len(stack):
            return stack[-back].code
        i = back - len(stack) - 1
        return self._before[i] if i < len(self._before) else -1

    def points_winner(self) -> int | None:
        """Who leads on material points, Black's bonus counted (Janggi); None when the
        variant counts no points or they tie."""
        points = self.variant.points
        if points is None:
            return None
        t = self.t
        score = -points.black_bonus
        for pid, value in points.values:
            score += value * (len(self.pieces[t.code(pid, 0)]) - len(self.pieces[t.code(pid, 1)]))
        return 0 if score > 0 else 1 if score < 0 else None

    def _move_repeater(self) -> int | None:
        """Kakao Janggi's rule as Fairy-Stockfish applies it: the side that just moved made
        the same move a third time, going back and forth (or passing in between) with a
        piece that can reach the other palace, never in check meanwhile: it loses."""
        trail, checks = self._trail, self._checks
        n = len(trail) - 1  # plies known; P_k is the position k plies back
        end = min(self.halfmove, n)

        def move(k: int) -> int:
            return trail[n - k][0]

        def check(k: int) -> bool:
            return checks[n - k]

        def reverse(c: int) -> int:
            return (c >> 8) & 0xFF | (c & 0xFF) << 8

        def plain(c: int) -> int:
            return c & 0xFFFF if (c >> KIND_SHIFT) & KIND_MASK == NORMAL else -1

        if end < 4:
            return None
        m0 = move(0)
        if (m0 >> KIND_SHIFT) & KIND_MASK != NORMAL or check(1) or check(3):
            return None
        t = self.t
        mover = self.board[(m0 >> 8) & 0xFF]
        region = t.mask[mover]
        palace = t.mask[self.board[self.kings[self.side]]] if self.kings[self.side] >= 0 else None
        if region is not None and palace is not None and not region & palace:
            return None
        m2 = move(2)
        if plain(m2) == reverse(m0 & 0xFFFF):
            state = 2
        elif (m2 >> KIND_SHIFT) & KIND_MASK == PASS:
            state = 1
        else:
            return None
        for i in range(4, end + 1, 2):
            if i + 1 <= end and check(i + 1):
                return None
            if state < 4:
                ref = m0 if state == 1 else move(i - 2)
                if plain(move(i)) != reverse(ref & 0xFFFF):
                    return None
                state += 1
            else:
                if not trail[n - i][1] and move(i - 2) & 0xFF == (move(i) >> 8) & 0xFF:
                    return self.side ^ 1
                return None
        return None

    def _repetition_outcome(self) -> Outcome:
        """The repetition just completed: lost by a side that gave check on every one of its
        moves since the first of the repeated positions (both: a draw), else a draw or a
        win on points."""
        v = self.variant
        keys = self._keys
        if v.perpetual_check != "draw" and len(self._checks) == len(keys):
            last = len(keys) - 1
            start = [i for i, k in enumerate(keys) if k == keys[-1]][-v.repetition]
            checks = self._checks
            # `them`: the side that just moved checked at each of our turns; `us` likewise.
            them = all(checks[i] for i in range(start, last + 1, 2))
            us = all(checks[i] for i in range(start + 1, last, 2))
            if them != us:
                loser = self.side ^ 1 if them else self.side
                return Outcome(Termination.PERPETUAL_CHECK, winner=loser ^ 1)
            if them:
                return Outcome(Termination.REPETITION, winner=self.points_winner())
        if v.chasing and len(self._chase) == len(keys):
            chaser = self._chaser()
            if chaser is not None:
                return Outcome(Termination.PERPETUAL_CHASE, winner=chaser ^ 1)
        # `repetition-result`, as Fairy-Stockfish's nFoldValue: the repeating move was the
        # side's that is not to move (Minishogi's sennichite loses for White whoever repeats).
        side = self.side
        winner = {
            "white-loses": 1,
            "black-loses": 0,
            "repeater-loses": side,
            "repeater-wins": side ^ 1,
        }.get(v.repetition_result)
        if winner is not None:
            return Outcome(Termination.REPETITION_LOSS, winner=winner)
        return Outcome(Termination.REPETITION, winner=self.points_winner())

    def _extra_checks(self) -> int:
        """Plies the move rule waits longer under the AXF rules, as Fairy-Stockfish counts
        them: two for each check beyond ten by the side that gave more checks since the
        count began (once twenty plies are known)."""
        checks = self._checks
        n = len(checks) - 1
        if n < 20:
            return 0
        end = min(self.halfmove, n)
        them = sum(checks[n - k] for k in range(0, end, 2))
        us = sum(checks[n - k - 1] for k in range(0, end, 2))
        return 2 * max(max(them, us) - 10, 0)

    def _chaser(self) -> int | None:
        """The side that chased one same piece on each of its moves since the first of the
        repeated positions, and was not chased so itself (Fairy-Stockfish's AXF rule); None
        when neither or both did."""
        keys, trail, chase = self._keys, self._trail, self._chase
        n = len(keys) - 1
        start = [i for i, k in enumerate(keys) if k == keys[-1]][-self.variant.repetition]
        depth = n - start  # plies back to the first of the repeated positions

        def at(k: int) -> frozenset[int]:
            return chase[n - k][0]

        def move(k: int) -> int:
            return trail[n - k][0]

        them = chasing.unmoved(at(0), move(1)) & at(2)
        us = chasing.unmoved(at(1), move(2)) & at(3)
        for i in range(4, depth + 1, 2):
            if i != n:  # the first known position has no move before it: nothing chased
                them = chasing.unmoved(them, move(i - 1)) & at(i)
            if i < depth:
                us = chasing.unmoved(us, move(i)) & at(i + 1)
        if them and not us:
            return self.side ^ 1
        if us and not them:
            return self.side
        return None

    def _zone_reached(self, color: int, safe: bool) -> bool:
        """Whether `color` has reached its goal zone: `count` of its goal pieces stand there,
        or one does and every square of the zone is occupied (`full`). With `safe`, exactly
        `count` pieces there must all stand unattacked; more than that need not be
        (Fairy-Stockfish's flagPieceSafe)."""
        zone = self.variant.zone
        assert zone is not None
        squares = zone.squares[color]
        pieces = self.pieces
        there = [sq for code in self.t.goal_codes[color] for sq in pieces[code] & squares]
        if not there:
            return False
        if len(there) < zone.count:
            board = self.board
            return zone.full and all(board[sq] for sq in squares)
        if safe and len(there) == zone.count:
            return not any(self.attacked(sq, color ^ 1) for sq in there)
        return True

    def _zone_outcome(self) -> Outcome | None:
        """The goal zone's verdict. A side that reaches it wins at once, looked at only
        for the side that just moved; see `_zone_reply`, `_zone_held` and `_safe_zone` for
        the others (Fairy-Stockfish's flag rules)."""
        v = self.variant
        zone = v.zone
        assert zone is not None
        if self.placing:
            return None
        if zone.reply:
            return self._zone_reply()
        if zone.hold:
            return self._zone_held()
        if zone.safe:
            return self._safe_zone()
        side = self.side
        if self._zone_reached(side ^ 1, False):
            return Outcome(Termination.GOAL, winner=side ^ 1)
        return None

    def _zone_reply(self) -> Outcome | None:
        """Racing Kings (Fairy-Stockfish's flagMove): Black, to move after White's goal piece
        reached its zone, plays on only if its own can reach its zone in this move; both
        there is a draw. Black reaching it first wins at once."""
        v = self.variant
        zone = v.zone
        assert zone is not None
        side = self.side
        on = [self._zone_reached(c, False) for c in (0, 1)]
        if on[side]:
            return Outcome(Termination.GOAL, winner=None if on[side ^ 1] else side)
        if not on[side ^ 1]:
            return None
        if side == 1:
            goal = self.t.goal_codes[1]
            for c in self._legal_board_codes():
                if (
                    (c >> KIND_SHIFT) & KIND_MASK == NORMAL
                    and self.board[c & 0xFF] in goal
                    and (c >> 8) & 0xFF in zone.squares[1]
                    and not (v.no_checks and self.gives_check(c))
                ):
                    return None
        return Outcome(Termination.GOAL, winner=side ^ 1)

    def _zone_held(self) -> Outcome | None:
        """Jeson Mor (Fairy-Stockfish's flagMove for a piece other than the King): the side
        to move wins when its goal piece still stands in its zone, attacked or not, the
        other side's move having failed to dislodge it; both there with White to move is a
        draw. With `safe` (Alapo), a side whose piece stands there unattacked after its
        move wins at once."""
        zone = self.variant.zone
        assert zone is not None
        side = self.side
        if self._zone_reached(side, False):
            both = side == 0 and self._zone_reached(1, zone.safe)
            return Outcome(Termination.GOAL, winner=None if both else side)
        if zone.safe and self._zone_reached(side ^ 1, True):
            return Outcome(Termination.GOAL, winner=side ^ 1)
        return None

    def _safe_zone(self) -> Outcome | None:
        """A goal zone to be reached safely (Dobutsu's Lion): a side whose goal piece stands
        there unattacked wins, the side to move looked at first; both: a draw. Of two or
        more goal pieces there, none needs to be safe (as in Fairy-Stockfish)."""
        side = self.side
        reached = [self._zone_reached(c, True) for c in (0, 1)]
        if reached[side]:
            return Outcome(Termination.GOAL, winner=None if reached[side ^ 1] else side)
        if reached[side ^ 1]:
            return Outcome(Termination.GOAL, winner=side ^ 1)
        return None

    def _castling_won(self) -> Outcome | None:
        """Fairy-Stockfish's castlingWins: a side whose last move was a castling move that
        wins for it has won; a side that can make none of those any more (its King or
        their Rooks have moved or are gone) has lost, the side that has just moved looked
        at first."""
        last = self._last_code(1)
        virgin = self.virgin
        for color in (self.side ^ 1, self.side):
            wins = self.t.castle_wins[color]
            if any(last == code for _kf, _rf, code in wins):
                return Outcome(Termination.CASTLING, winner=color, detail=1)
            if wins and not any(virgin[kf] and virgin[rf] for kf, rf, _code in wins):
                return Outcome(Termination.CASTLING, winner=color ^ 1)
        return None

    def _bare_king(self) -> Outcome | None:
        """Shatranj's bare King: a side with only royal pieces left (nothing in hand either)
        loses to a side with more. Both bare is a draw. A side just bared has its reply only
        while that reply could bare the other King, that is while the other side has a
        single piece besides its King; against two or more it has lost at once (as
        Fairy-Stockfish's extinction rule with extinctionOpponentPieceCount = 2 decides)."""
        t = self.t
        pieces = self.pieces
        others = [sum(self.hands[0]), sum(self.hands[1])]
        for color in (0, 1):
            for code in t.side_codes[color]:
                if not t.royal[code]:
                    others[color] += len(pieces[code])
        side = self.side
        if not others[0] and not others[1]:
            return Outcome(Termination.INSUFFICIENT_MATERIAL, winner=None)
        if not others[side ^ 1]:
            return Outcome(Termination.BARE_KING, winner=side)
        if not others[side] and others[side ^ 1] >= 2:
            return Outcome(Termination.BARE_KING, winner=side ^ 1)
        return None

    def _insufficient(self) -> bool:
        """chess.md: K v K, K+B v K, K+N v K, and Bishops all on one colour. Never while a
        piece can still come onto the board: one in a hand or a reserve, or any capture
        when captured pieces go to hand (a Bishop taken may return on the other colour;
        Fairy-Stockfish declares no such draw in drop games either)."""
        if (
            self.variant.captures_to_hand
            or any(self.hands[0])
            or any(self.hands[1])
            or self.reserve[0]
            or self.reserve[1]
            or self.gates[0]
            or self.gates[1]
        ):
            return False
        t = self.t
        others = []
        for sq, code in self.occupied():
            if t.royal[code]:
                continue
            others.append((t.type_ids[code >> 1], sq))
        if not others:
            return True
        if len(others) == 1 and others[0][0] in ("bishop", "knight"):
            return True
        if all(pid == "bishop" for pid, _ in others):
            colors = {t.geo.is_dark(sq) for _, sq in others}
            return len(colors) == 1
        return False
