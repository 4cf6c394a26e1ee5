"""The static evaluation: material and square tables from `search.values`, king safety,
pieces in hand and in reserve, tapered between the middle game and the ending.

The board part is kept up to date move by move by the search (one table look-up per
changed square); this module builds the tables once per compiled variant and adds the
terms that depend on the whole position when a leaf is scored.
"""

from __future__ import annotations

from collections import OrderedDict

from rules.position import Position
from rules.tables import Tables
from search.values import (
    CENTRE_CAP,
    CENTRE_WEIGHT,
    VariantValues,
    is_pawn_class,
    turns_over,
    variant_values,
)

ROYAL_VALUE = 20000  # a royal piece's worth for ordering captures (royal-capture games)
KING_HOME = 12  # middle game: centipawns per row a royal piece has left home
KING_CENTRE = 40  # ending: centipawns a royal piece gains at its best square
PROMOTION_NEAR = 0.24  # ending: share of the promotion gain one row before the zone
ADVANCE = 3  # centipawns per row a forward-only piece has advanced
HAND_BONUS = 1.1  # a piece in hand can go anywhere
RESERVE_SHARE = 0.9  # a reserve piece still to enter is worth a little less
ATTACK_SHARE = 1 / 14  # middle game: share of an enemy piece's value lost when it is near
ZONE_RADIUS = 2  # the squares around a royal piece where attackers count
TEMPO = 10
DRAWISH_MATERIAL = 400  # without Pawns, less than this can seldom force a win
DRAWISH_DIVISOR = 8


class EvalTables:
    """Per piece code (`type << 1 | colour`) and square: signed middle-game and ending
    scores (material included, White positive), phase weights and values."""

    def __init__(self, tables: Tables) -> None:
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
            self.attack[code] = 0 if (pawn or piece.royal) else int(value * ATTACK_SHARE)
            # S-Chess keeps its reserve in hand, but a piece there enters only by gating.
            share = RESERVE_SHARE if variant.reserve_in_hand else HAND_BONUS
            self.hand[code] = int(value * share)
            self.reserve[code] = int(value * RESERVE_SHARE)
            per = reach.per_square
            avg = sum(per) / len(per) if per else 0.0
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

    def off_board(self, pos: Position) -> int:
        """Pieces in hand and reserve pieces waiting to enter (White positive)."""
        score = 0
        if self.has_hands:
            for color, sign in ((0, 1), (1, -1)):
                hand = pos.hands[color]
                value = self.hand
                for code, n in enumerate(hand):
                    if n:
                        score += sign * n * value[code]
        if self.has_reserve:
            value = self.reserve
            for color, sign in ((0, 1), (1, -1)):
                for code in pos.reserve[color]:
                    score += sign * value[code]
                for code in pos.gates[color].values():
                    score += sign * value[code]
        return score

    def king_danger(self, pos: Position) -> int:
        """Middle-game penalty of enemy pieces near each royal piece (White positive)."""
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

    def score(self, pos: Position, mg: int, eg: int, ph: int) -> int:
        """The evaluation for the side to move, in centipawns."""
        pmax = self.phase_max
        ph = min(ph, pmax)
        s = (mg * ph + eg * (pmax - ph)) // pmax
        if ph:
            s += self.king_danger(pos) * ph // pmax
        if self.has_hands or self.has_reserve:
            s += self.off_board(pos)
        if ph * 4 < pmax and s and self.drawish(pos, 0 if s > 0 else 1):
            s //= DRAWISH_DIVISOR
        return (s if pos.side == 0 else -s) + TEMPO

    def evaluate(self, pos: Position) -> int:
        """The static evaluation of `pos` from scratch (side to move's view)."""
        mg, eg, ph = self.board_terms(pos)
        return self.score(pos, mg, eg, ph)


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
