"""The static evaluation: material and square tables from `search.values`, Pawn
structure, royal safety, mobility, pieces in hand and in reserve, tapered between the
middle game and the ending.

The board part is kept up to date move by move by the search (one table look-up per
changed square); this module builds the tables once per compiled variant and adds the
terms that depend on the whole position when a leaf is scored. Those terms are counts
(`EvalTables.terms`) times the tuned weights of `search.weights`; the Pawn structure is
cached by the placement of the pawn-class pieces.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from itertools import chain

from rules.betza import Kind
from rules.position import Position
from rules.tables import SquareMoves, Tables
from search.learned import LearnedTables, army_mirrors, learned_tables, relative_square
from search.values import (
    CENTRE_CAP,
    CENTRE_WEIGHT,
    OPEN,
    VariantValues,
    is_pawn_class,
    turns_over,
    variant_values,
)
from search.weights import MOBILITY_CLASSES, WEIGHTS, Weights, with_values

ROYAL_VALUE = 20000  # a royal piece's worth for ordering captures (royal-capture games)
KING_HOME = 12  # middle game: centipawns per row a royal piece has left home
KING_CENTRE = 40  # ending: centipawns a royal piece gains at its best square
PROMOTION_NEAR = 0.24  # ending: share of the promotion gain one row before the zone
ADVANCE = 3  # centipawns per row a forward-only piece has advanced
RESERVE_SHARE = 0.9  # a reserve piece still to enter is worth a little less
ZONE_RADIUS = 2  # the squares around a royal piece where attackers count
SHIELD_ROWS = 2  # rows before a royal piece where its own pawn-class pieces shield it
PASSED_GAIN = 800  # the promotion gain (centipawns) at which progress counts fully
PAWN_CACHE = 1 << 14  # Pawn structures kept per variant before the cache starts afresh
NTERMS = 6 + len(MOBILITY_CLASSES)  # the counts of EvalTables.terms
TEMPO = round(WEIGHTS.tempo)  # the side to move's bonus
DRAWISH_MATERIAL = 400  # without Pawns, less than this can seldom force a win
DRAWISH_DIVISOR = 8


class EvalTables:
    """Per piece code (`type << 1 | colour`) and square: signed middle-game and ending
    scores (material included, White positive), phase weights and values."""

    def __init__(
        self, tables: Tables, weights: Weights | None = None, learned: bool = True
    ) -> None:
        variant = tables.variant
        geo = tables.geo
        size = geo.size
        ncodes = (tables.ntypes + 1) * 2
        vv: VariantValues = variant_values(variant)
        self.tables = tables
        self.values = vv
        self.mg: list[list[int]] = [[0] * size for _ in range(ncodes)]
        self.eg: list[list[int]] = [[0] * size for _ in range(ncodes)]
        self.phase: list[int] = [0] * ncodes
        self.value: list[int] = [0] * ncodes  # unsigned, for ordering and exchanges
        self.attack: list[int] = [0] * ncodes
        self.pawn_class: list[bool] = [False] * ncodes
        self.royal: list[bool] = [False] * ncodes
        self.hand: list[int] = [0] * ncodes  # value of a hand entry (by hand code)
        self.reserve: list[int] = [0] * ncodes
        # Mobility of riding pieces: value class (-1: none) and the squares expected.
        self.mob_class: list[int] = [-1] * ncodes
        self.mob_expect: list[list[float]] = [[] for _ in range(ncodes)]
        # Passed pawn-class pieces: progress squared towards the zone, times the gain share.
        self.progress: list[list[float]] = [[] for _ in range(ncodes)]
        for code in range(2, ncodes):
            pid = tables.type_ids[code >> 1]
            piece = variant.piece(pid)
            color = code & 1
            sign = -1 if color else 1
            value = vv.values[pid]
            reach = vv.reach[pid]
            pawn = is_pawn_class(piece, reach)
            self.value[code] = ROYAL_VALUE if piece.royal else value
            self.pawn_class[code] = pawn
            self.royal[code] = piece.royal
            self.phase[code] = 0 if (pawn or piece.royal) else value
            self.attack[code] = 0 if (pawn or piece.royal) else value
            # S-Chess keeps its reserve in hand, but a piece there enters only by gating:
            # it is not a free piece in hand, and is not tuned as one.
            self.hand[code] = int(value * RESERVE_SHARE) if variant.reserve_in_hand else value
            self.reserve[code] = int(value * RESERVE_SHARE)
            per = reach.per_square
            avg = sum(per) / len(per) if per else 0.0
            if not (pawn or piece.royal) and any(c.kind is Kind.RIDE for c in piece.components):
                self.mob_class[code] = sum(1 for bound in MOBILITY_CLASSES if value >= bound)
                self.mob_expect[code] = [-1.0] * size  # filled square by square on first use
            gain = 0
            zone: frozenset[int] = frozenset()
            if piece.promotion is not None and turns_over(variant, piece) is None:
                gain = max(0, max(vv.values[t] for t in piece.promotion.to) - value)
                zone = piece.promotion.compulsory_rows | piece.promotion.optional_rows
                if piece.promotion.zone is not None:  # a region: the rows it covers
                    region = variant.region(piece.promotion.zone).of(color)
                    zone = zone | {geo.row(sq, color) for sq in region}
            for sq in range(size):
                # Black's pieces see the board turned around: its square `sq` is White's
                # `size - 1 - sq` for mobility, and rows count from its own side.
                wsq = sq if color == 0 else size - 1 - sq
                rel = (per[wsq] / avg - 1) if avg else 0.0
                row = geo.row(sq, color)
                if piece.royal:
                    mg = -KING_HOME * min(row - 1, 3)
                    eg = int(KING_CENTRE * max(-1.0, min(1.0, rel)))
                else:
                    cap = CENTRE_CAP * value
                    centre = int(max(-cap, min(cap, value * CENTRE_WEIGHT * rel)))
                    mg = value + centre
                    eg = value + centre // 2
                    if pawn:
                        mg += ADVANCE * (row - 1)
                        eg += ADVANCE * (row - 1)
                    if gain and zone:
                        ahead = [z - row for z in zone if z >= row]
                        if ahead and min(ahead) > 0:
                            near = gain * PROMOTION_NEAR / 2 ** min(ahead)
                            mg += int(near / 2)
                            eg += int(near)
                self.mg[code][sq] = sign * mg
                self.eg[code][sq] = sign * eg
            if pawn:
                # A passed piece is worth what its promotion gains (a Queen in chess, a Met in
                # Makruk): a Soldier that never promotes is not passed.
                share = gain / PASSED_GAIN
                self.progress[code] = [
                    share * _progress(geo.row(sq, color), geo.ranks, zone) for sq in range(size)
                ]
        self.mirror = army_mirrors(variant)
        found = learned_tables(variant) if learned else None
        self.learned = found is not None
        if found is not None:
            self._learn(found)
        self.phase_max = max(
            1,
            sum(
                self.phase[tables.code(pid, color)]
                for color in (0, 1)
                for _sq, pid in variant.army(color)
            )
            + 2 * sum(self.phase[tables.code(pid, 0)] for pid in variant.reserve),
        )
        self.zone: list[tuple[int, ...]] = []
        for sq in range(size):
            f, r = geo.file_of(sq), geo.rank_of(sq)
            around = []
            for dy in range(-ZONE_RADIUS, ZONE_RADIUS + 1):
                for dx in range(-ZONE_RADIUS, ZONE_RADIUS + 1):
                    if (dx or dy) and 0 <= f + dx < geo.files and 0 <= r + dy < geo.ranks:
                        around.append((r + dy) * geo.files + f + dx)
            self.zone.append(tuple(around))
        self.codes = tuple(range(2, ncodes))
        self.side_codes = tables.side_codes
        self.has_hands = variant.has_hand
        self.has_reserve = bool(variant.reserve)
        self.hand_tuned = not variant.reserve_in_hand  # S-Chess: a reserve, not a hand
        self.pawn_codes = tuple(
            tuple(c for c in tables.side_codes[s] if self.pawn_class[c]) for s in (0, 1)
        )
        # Random keys of the pawn-class pieces on their squares (0 for the other pieces):
        # the search keeps their XOR move by move, so the Pawn structure's cache is looked
        # up by one number instead of a key built from the whole placement.
        rng = random.Random(0x9A55ED)
        empty = [0] * size
        self.pawn_zobrist: list[list[int]] = [
            [rng.getrandbits(63) for _ in range(size)] if self.pawn_class[code] else empty
            for code in range(ncodes)
        ]
        self.mobile_codes = tuple(
            tuple(c for c in tables.side_codes[s] if self.mob_class[c] >= 0) for s in (0, 1)
        )
        self.files = geo.files
        self.shield: list[list[tuple[int, ...]]] = [[], []]
        for color in (0, 1):
            step = geo.files if color == 0 else -geo.files
            for sq in range(size):
                f, r = geo.file_of(sq), geo.rank_of(sq)
                ahead = []
                for k in range(1, SHIELD_ROWS + 1):
                    rr = r + k * (1 if color == 0 else -1)
                    if 0 <= rr < geo.ranks:
                        ahead += [
                            sq + k * step + dx for dx in (-1, 0, 1) if 0 <= f + dx < geo.files
                        ]
                self.shield[color].append(tuple(ahead))
        if weights is None:
            # The weights learned with the tables where they were (`search.learned`).
            weights = with_values(WEIGHTS, found.weights) if found is not None else WEIGHTS
        self._use(weights)

    def _learn(self, found: LearnedTables) -> None:
        """Learned square tables in place of the derived ones, for the pieces they name."""
        tables = self.tables
        variant = tables.variant
        for code in range(2, len(self.mg)):
            pid = tables.type_ids[code >> 1]
            if pid not in found.mg:
                continue
            color = code & 1
            sign = -1 if color else 1
            mg, eg = found.mg[pid], found.eg[pid]
            for sq in range(len(self.mg[code])):
                rel = relative_square(variant, sq, color, found.mirror)
                self.mg[code][sq] = sign * mg[rel]
                self.eg[code][sq] = sign * eg[rel]

    def _use(self, weights: Weights) -> None:
        """The weights as the scoring reads them, and which terms they switch off (a term
        whose weights are all 0 is not counted at all)."""
        self.weights = weights
        self.tempo = round(weights.tempo)
        self.hand_share = weights.hand if self.hand_tuned else 1.0
        self.w_mg = (
            weights.doubled_mg,
            weights.isolated_mg,
            weights.passed_mg,
            weights.shield_mg,
            weights.danger_mg,
            *weights.mobility_mg,
        )
        self.w_eg = (
            weights.doubled_eg,
            weights.isolated_eg,
            weights.passed_eg,
            0.0,
            0.0,
            *weights.mobility_eg,
        )
        self.use_mobility = any(weights.mobility_mg) or any(weights.mobility_eg)
        pawn_weights = self.w_mg[:3] + self.w_eg[:3]
        self.use_pawns = bool(self.pawn_codes[0] or self.pawn_codes[1]) and any(pawn_weights)
        self.use_danger = bool(weights.danger_mg)
        self.use_shield = bool(weights.shield_mg)
        self._pawn_cache: dict[int, tuple[float, float, float]] = {}

    # ------------------------------------------------------------------ whole position

    def board_terms(self, pos: Position) -> tuple[int, int, int]:
        """(middle game, ending, phase) of the pieces on the board, from scratch."""
        mg = eg = ph = 0
        mgt, egt, phase = self.mg, self.eg, self.phase
        pieces = pos.pieces
        for code in self.codes:
            squares = pieces[code]
            if squares:
                m, e = mgt[code], egt[code]
                for sq in squares:
                    mg += m[sq]
                    eg += e[sq]
                ph += phase[code] * len(squares)
        return mg, eg, ph

    def off_board(self, pos: Position) -> float:
        """Pieces in hand (weighted as tuned) and reserve pieces waiting to enter."""
        score = 0.0
        if self.has_hands:
            score = self.hand_share * self.hand_value(pos)
        if self.has_reserve:
            value = self.reserve
            for color, sign in ((0, 1), (1, -1)):
                for code in pos.reserve[color]:
                    score += sign * value[code]
                for code in pos.gates[color].values():
                    score += sign * value[code]
        return score

    def hand_value(self, pos: Position) -> int:
        """The value of the pieces in hand, White's minus Black's."""
        score = 0
        value = self.hand
        for color, sign in ((0, 1), (1, -1)):
            for code, n in enumerate(pos.hands[color]):
                if n:
                    score += sign * n * value[code]
        return score

    def pawn_key(self, pos: Position) -> int:
        """The key of where the pawn-class pieces stand (`pawn_zobrist`), from scratch."""
        key = 0
        pieces = pos.pieces
        for code in self.pawn_codes[0] + self.pawn_codes[1]:
            z = self.pawn_zobrist[code]
            for sq in pieces[code]:
                key ^= z[sq]
        return key

    def pawn_terms(self, pos: Position, key: int | None = None) -> tuple[float, float, float]:
        """(doubled, isolated, passed progress) of the pawn-class pieces, White's minus
        Black's; cached by their key (`pawn_key`, or the search's running one)."""
        pieces = pos.pieces
        if key is None:
            key = self.pawn_key(pos)
        hit = self._pawn_cache.get(key)
        if hit is not None:
            return hit
        files = self.files
        own: list[dict[int, list[int]]] = [{}, {}]  # per side: file -> squares
        for color in (0, 1):
            for code in self.pawn_codes[color]:
                for sq in pieces[code]:
                    own[color].setdefault(sq % files, []).append(sq)
        doubled = isolated = passed = 0.0
        for color, sign in ((0, 1), (1, -1)):
            mine, theirs = own[color], own[color ^ 1]
            for f, squares in mine.items():
                doubled += sign * (len(squares) - 1)
                if f - 1 not in mine and f + 1 not in mine:
                    isolated += sign * len(squares)
                for sq in squares:
                    rank = sq // files
                    blocked = False
                    for g in (f - 1, f, f + 1):
                        for o in theirs.get(g, ()):
                            if (o // files > rank) if color == 0 else (o // files < rank):
                                blocked = True
                                break
                        if blocked:
                            break
                    if not blocked:
                        passed += sign * self.progress[pos.board[sq]][sq]
        found = (doubled, isolated, passed)
        if len(self._pawn_cache) >= PAWN_CACHE:
            self._pawn_cache.clear()
        self._pawn_cache[key] = found
        return found

    def king_danger(self, pos: Position) -> int:
        """Value of the enemy pieces near each royal piece (White positive: Black's king)."""
        board = pos.board
        attack = self.attack
        score = 0
        for color, sign in ((0, -1), (1, 1)):
            king = pos.kings[color]
            if king < 0:
                continue
            danger = 0
            for sq in self.zone[king]:
                p = board[sq]
                if p and (p & 1) != color:
                    danger += attack[p]
            score += sign * danger
        return score

    def shield_count(self, pos: Position) -> int:
        """Own pawn-class pieces in the rows before each royal piece, White's minus Black's."""
        board = pos.board
        pawn = self.pawn_class
        score = 0
        for color, sign in ((0, 1), (1, -1)):
            king = pos.kings[color]
            if king < 0:
                continue
            for sq in self.shield[color][king]:
                p = board[sq]
                if p and (p & 1) == color and pawn[p]:
                    score += sign
        return score

    def mobility(self, pos: Position) -> list[float]:
        """Per value class: squares the riding pieces reach along their rides (empty, or
        the enemy piece that ends the ride) beyond what an average board leaves open
        (`OPEN` per square), White's minus Black's. Leaps are left to the square tables:
        counting them would cost more than they tell."""
        board = pos.board
        pieces = pos.pieces
        t = self.tables
        moves = t.moves
        out = [0.0] * (len(MOBILITY_CLASSES) + 1)
        for color, sign in ((0, 1), (1, -1)):
            for code in self.mobile_codes[color]:
                squares = pieces[code]
                if not squares:
                    continue
                expect = self.mob_expect[code]
                table = moves[code]
                total = 0.0
                for o in squares:
                    sm = table[o] or t.square_moves(code, o)
                    e = expect[o]
                    if e < 0:
                        e = expect[o] = _ride_expectation(sm)
                    n = 0
                    # A slide and a ray are walked alike: empty squares, then a capture.
                    for pairs in chain(sm.slides, (ray[0] for ray in sm.rays)):
                        for d, _c in pairs:
                            p = board[d]
                            if p:
                                if (p & 1) != color:
                                    n += 1
                                break
                            n += 1
                    total += n - e
                out[self.mob_class[code]] += sign * total
        return out

    def terms(self, pos: Position) -> list[float]:
        """The counts the tuned weights multiply, White's minus Black's: doubled, isolated,
        passed, shield, danger, then mobility per value class (NTERMS in all)."""
        doubled, isolated, passed = self.pawn_terms(pos)
        return [
            doubled,
            isolated,
            passed,
            float(self.shield_count(pos)),
            float(self.king_danger(pos)),
            *self.mobility(pos),
        ]

    def drawish(self, pos: Position, leader: int) -> bool:
        """The side ahead has no Pawn and too little to force mate (Bishop, Knight)."""
        pieces = pos.pieces
        material = 0
        for code in self.side_codes[leader]:
            squares = pieces[code]
            if squares:
                if self.pawn_class[code]:
                    return False
                material += self.value[code] * len(squares) if not self.royal[code] else 0
        if self.has_hands and any(pos.hands[leader]):
            return False
        return material < DRAWISH_MATERIAL

    def score(self, pos: Position, mg: int, eg: int, ph: int, pawn_key: int | None = None) -> int:
        """The evaluation for the side to move, in centipawns (`pawn_key`: the search's
        running key of the pawn-class pieces, if it keeps one)."""
        pmax = self.phase_max
        ph = min(ph, pmax)
        doubled, isolated, passed = self.pawn_terms(pos, pawn_key) if self.use_pawns else (0, 0, 0)
        w_mg, w_eg = self.w_mg, self.w_eg
        xm = w_mg[0] * doubled + w_mg[1] * isolated + w_mg[2] * passed
        xe = w_eg[0] * doubled + w_eg[1] * isolated + w_eg[2] * passed
        if ph:
            if self.use_shield:
                xm += w_mg[3] * self.shield_count(pos)
            if self.use_danger:
                xm += w_mg[4] * self.king_danger(pos)
        if self.use_mobility:
            for i, n in enumerate(self.mobility(pos), 5):
                xm += w_mg[i] * n
                xe += w_eg[i] * n
        # Truncated towards zero, so that a position and its colour flip score alike.
        s = int(((mg + xm) * ph + (eg + xe) * (pmax - ph)) / pmax)
        if self.has_hands or self.has_reserve:
            s += int(self.off_board(pos))
        if ph * 4 < pmax and s and self.drawish(pos, 0 if s > 0 else 1):
            s = int(s / DRAWISH_DIVISOR)
        return (s if pos.side == 0 else -s) + self.tempo

    def evaluate(self, pos: Position) -> int:
        """The static evaluation of `pos` from scratch (side to move's view)."""
        mg, eg, ph = self.board_terms(pos)
        return self.score(pos, mg, eg, ph)


def _ride_expectation(sm: SquareMoves) -> float:
    """The squares a piece's rides reach from one square on an average board: the k-th
    square of a ride is open with chance `OPEN ** (k - 1)` (as `search.values` weighs it)."""
    total = 0.0
    for pairs in sm.slides:
        total += sum(OPEN**k for k in range(len(pairs)))
    for pairs, _mode, _mfrom, _cfrom in sm.rays:
        total += sum(OPEN**k for k in range(len(pairs)))
    return total


def _progress(row: int, ranks: int, zone: frozenset[int]) -> float:
    """How far a promoting piece on `row` has come towards its promotion zone (the far side
    when the zone is not a set of rows), squared: 0 at home, 1 one row before it."""
    target = min((z for z in zone if z > 1), default=ranks)
    span = max(1, target - 2)
    share = max(0.0, min(1.0, (row - 1) / span))
    return share * share


_CACHE: OrderedDict[int, tuple[Tables, EvalTables]] = OrderedDict()
_CACHE_SIZE = 16


def eval_tables(tables: Tables) -> EvalTables:
    """The evaluation tables of a compiled variant, cached for a few recent variants."""
    key = id(tables)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is tables:
        _CACHE.move_to_end(key)
        return hit[1]
    et = EvalTables(tables)
    _CACHE[key] = (tables, et)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return et


def evaluate(pos: Position) -> int:
    """The static evaluation of a position for its side to move, in centipawns."""
    return eval_tables(pos.t).evaluate(pos)
