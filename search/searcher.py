"""The search: iterative deepening alpha-beta (principal variation search) over the rules
engine's own positions.

- a transposition table on the position hash (`search.tt`), its move tried first, and
  optionally a game's memory (table, history, killers) kept between its moves;
- staged move generation where the rules engine allows it (`Position.move_test`): hash
  move, captures by most valuable victim / least valuable attacker, killers, quiet moves by
  history, losing captures; only the moves searched are proven legal;
- quiescence on captures and promotions (`Position.capture_codes`) without losing ones,
  bounded in depth, with every evasion when the horizon falls on a check;
- aspiration windows, check extensions, null move with adaptive reduction, reverse
  futility and futility pruning, logarithmic late-move reductions, mate distance pruning;
- every ending scored through the rules: checkmate and royal capture as mate at its
  distance, stalemate as a draw or as a loss on points (Bat games), succession simply as
  the legal moves the rules engine lists, the move-count rule and repetitions as draws;
- a budget of nodes and time checked every few nodes against a deadline (a moment, so that
  whatever came before the search, a worker's cold start included, counts in it): when it
  runs out, the best move of the deepest search so far is played (never none, never an
  illegal one). Depth 1 always completes: the root moves it had no time for are scored
  by a glance (the ending they make, else the static evaluation), so a mate in one is
  found on any board within any budget.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from rules.outcome import Outcome
from rules.position import Position
from rules.tables import MC
from search.evaluate import EvalTables, eval_tables
from search.tt import (
    DEPTH_SHIFT,
    EXACT,
    FLAG_SHIFT,
    HISTORY_SIZE,
    LOWER,
    MAX_KILLER_PLY,
    SCORE_MASK,
    SCORE_OFFSET,
    UPPER,
    GameMemory,
    TranspositionTable,
)

INF = 1_000_000
MATE = 100_000
MATE_BOUND = MATE - 1_000  # scores beyond this are mates at a known distance
DRAW = 0
STALEMATE_POINTS = 150  # the Bat games' stalemate scores 3/5 - 2/5: a small, sure win
MAX_PLY = 96
QCHECK_PLIES = (
    1  # quiescence plies in which a check is answered by every evasion (mates at the horizon)
)
DELTA_MARGIN = 200
CLOCK_EVERY = 4  # nodes between two looks at the clock (a big board's node: ~1 ms)
POLL_EVERY = 64  # nodes between two calls of `should_stop` (a cancel; may be a syscall)
GLANCE_RESERVE = 0.02  # share of the time kept back for glancing at the root moves
QUIESCENCE_PLIES = 8  # captures answered by captures at most this deep past the horizon
ASPIRATION_DEPTH = 4  # aspiration windows from this iteration on
ASPIRATION_WINDOW = 40  # centipawns either side of the last iteration's score
RFP_DEPTH = 6  # reverse futility pruning up to this depth
RFP_MARGIN = 90  # centipawns per ply of depth
FUTILITY_DEPTH = 3  # futility pruning of quiet moves up to this depth
FUTILITY_MARGIN = 120  # centipawns per ply of depth
LOG = [0.0] + [math.log(n) for n in range(1, 64)]  # late-move reductions: log(d) * log(n)
LMR_DIVISOR = 2.25  # ... divided by this (larger: reduced less)
NULL_DEPTH = 2  # null move from this depth on
NULL_REDUCTION = 3  # plies a null move's search is reduced by, plus depth / 4
# The null move's search is at least this deep (0: it may drop straight into quiescence,
# which sees captures only, so a quiet threat such as a mate behind a King move is missed).
NULL_FLOOR = 0
# Late-move pruning (LMP_DEPTH, 0: off): from this depth down, the quiet moves past a count
# (LMP_BASE plus depth squared, halved unless the score improves) are skipped; and internal
# iterative reduction (IIR_DEPTH, 0: off): a node this deep without a hash move is searched
# one ply less. Both off: the move-quality probe found them worse (search/README.md).
LMP_DEPTH = 0
LMP_BASE = 3
IIR_DEPTH = 0
# A new iteration starts while less than this share of the time is spent. It leaves a
# fifth of each second unused (0.79 CPU-s a move), yet 0.9, which uses it on unfinished
# iterations, chose worse moves on the same CPU-second (search/README.md).
NEXT_DEPTH_SHARE = 0.55
# Late-move reductions follow the history: a ply less for a quiet move that has refuted
# others (history above 0), a ply more for one that has only failed (below 0). Off: the
# probe found the same move quality a third of a ply deeper (search/README.md).
LMR_HISTORY = False
# Countermoves: the quiet move that last refuted the opponent's previous move (by its
# squares) is tried right after the killers. Off: the probe found no difference (+0.0000,
# standard error 0.0012; search/README.md).
COUNTERMOVES = False
# Razoring (RAZOR_DEPTH, 0: off): a node this shallow whose static score lies more than
# RAZOR_MARGIN per ply below alpha is settled by quiescence, if quiescence cannot reach alpha.
# Off: at depth 2 the probe found it no better (+0.0012, standard error 0.0025).
RAZOR_DEPTH = 0
RAZOR_MARGIN = 200
# Shallow exchange pruning (SEE_PRUNE_DEPTH, 0: off): at a node this shallow, off the
# principal variation and not in check, a move after the first that `_losing` says loses
# material (its piece lands where the enemy attacks it, worth more than it takes) and gives
# no check is skipped.
SEE_PRUNE_DEPTH = 0
# Improving (off): where the side to move's static score is above its score two plies back,
# reverse futility's margin is a ply smaller; where it is not, late moves are reduced a
# ply more.
IMPROVING = False
# Quiescence reads and writes the transposition table (depth 0): a capture sequence reached
# again by another order of moves is not searched again.
QUIESCENCE_TT = True

KIND_SHIFT = MC.KIND_SHIFT
PROMO_SHIFT = MC.PROMO_SHIFT
NORMAL_KIND, EP_KIND = MC.NORMAL, MC.EP
GATED = MC.GATED  # S-Chess: a piece from the hand enters the square left (slow path)


class Stop(Exception):
    """The budget ran out or the caller cancelled: unwind to the root."""


class Cancelled(Stop):
    """The caller no longer wants the move (`should_stop`): nothing more is worth doing."""


Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Limits:
    """A search budget. `movetime` is in seconds from the start of the search; `deadline`
    is a moment on the searcher's clock (`time.monotonic` unless another is given) by which
    the move is due, so time spent before the search (a worker starting, a game replayed)
    counts; with both, the earlier wins. None means no limit of that kind. `margin` and
    `temperature` make the choice at the root deliberately imperfect (the low levels): any
    move within `margin` centipawns of the best may be played, the better ones more often.
    A forced mate is always played."""

    depth: int = 64
    nodes: int | None = None
    movetime: float | None = None
    margin: int = 0
    temperature: float = 0.0
    seed: int = 0
    deadline: float | None = None


@dataclass(frozen=True, slots=True)
class Iteration:
    """What one completed depth found."""

    depth: int
    score: int
    move: int
    nodes: int
    elapsed: float
    pv: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The move to play (None only when there is no legal move) and how it was found.
    `score` is in centipawns for the side to move; mates are `MATE - plies`."""

    move: int | None
    score: int
    depth: int
    nodes: int
    elapsed: float
    pv: tuple[int, ...] = ()
    candidates: tuple[tuple[int, int], ...] = ()  # (move, score) the choice was made from
    iterations: tuple[Iteration, ...] = field(default=(), repr=False)

    @property
    def mate_in(self) -> int | None:
        """Moves to mate (positive: the side to move mates; negative: it is mated)."""
        return mate_in(self.score)


def outcome_score(outcome: Outcome | None, side: int, ply: int) -> int:
    """An ending as a score for `side`: a win or loss as mate at `ply`, a draw as 0, a
    result in between (the Bat games' stalemate, 3/5) as a small sure advantage."""
    if outcome is None:
        return DRAW
    points = outcome.score[side]
    if points >= 1:
        return MATE - ply
    if points <= 0 and outcome.winner is not None:
        return -MATE + ply
    return round((points - 0.5) * 10 * STALEMATE_POINTS)


def mate_in(score: int) -> int | None:
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score + 1) // 2)
    return None


class Searcher:
    """One search over a copy of a position. Not reusable across positions of different
    variants; the transposition table may be shared between searches of one game."""

    def __init__(
        self,
        position: Position,
        *,
        tt: TranspositionTable | None = None,
        history: Iterable[int] = (),
        evaluation: EvalTables | None = None,
        clock: Clock = time.monotonic,
        memory: GameMemory | None = None,
    ) -> None:
        self.clock = clock
        self.pos = position.copy()
        pos = self.pos
        variant = pos.variant
        self.et = evaluation or eval_tables(pos.t)
        if memory is not None:
            # The game's own table, history and killers, kept from its earlier moves.
            memory.use_for(pos.t)
            self.tt = memory.tt
            self.hist = memory.history
            self.killers = memory.killers
        else:
            self.tt = tt or TranspositionTable(4)
            self.tt.new_search()
            self.hist = [0] * HISTORY_SIZE
            self.killers = [[0, 0] for _ in range(MAX_KILLER_PLY)]
        # (previous move's squares) | side << 16; not built while countermoves are off
        self.counter = [0] * HISTORY_SIZE if COUNTERMOVES else []
        self.line = [0] * (MAX_PLY + 2)  # the move played at each ply of the current line
        self.royal_capture = variant.goal == "royal-capture"
        # Endings that come with legal moves still available (a goal zone, a bare King, a
        # check in Kar Ouk, the Nth check, extinction), among them all those after which
        # the rules engine lists no move (which staged generation does not ask).
        self.board_endings = (
            variant.zone is not None
            or variant.castling_wins
            or variant.bare_king
            or variant.bare_king_win
            or bool(variant.check_count)
            or variant.extinction is not None
            or pos.t.immediate_ends
        )
        # The most a promotion can add to a capture (quiescence's bound of one capture).
        targets = {c for choices in pos.t.promo_choices for c in choices}
        targets.update(c for ip in pos.t.in_place if ip is not None for c in ip.choices)
        self.best_promotion = max((self.et.value[c] for c in targets), default=0)
        # Staged generation where the rules engine can test moves one by one.
        self.staged = pos.t.staged
        self.move_rule_plies = 2 * variant.move_rule if variant.move_rule else 1 << 30
        self.rep: dict[int, int] = {}
        for h in history:
            self.rep[h] = self.rep.get(h, 0) + 1
        self.rep[pos.hash] = self.rep.get(pos.hash, 0) + 1
        self.nodes = 0
        self.max_nodes = 1 << 62
        self.next_check = CLOCK_EVERY
        self.next_poll = POLL_EVERY
        self.deadline = math.inf
        self.stop_at = math.inf  # the deadline less the glances' reserve
        self.should_stop: Callable[[], bool] | None = None
        self.start = 0.0
        self.mg, self.eg, self.ph = self.et.board_terms(pos)
        self.pk = self.et.pawn_key(pos)  # the pawn-class pieces' key (their terms' cache)
        self.nonpawn_codes = tuple(
            tuple(c for c in self.et.side_codes[s] if self.et.phase[c]) for s in (0, 1)
        )
        # No null move where a pass is a move of its own, or where being forced to take is
        # the whole game (zugzwang everywhere).
        self.null_ok = not (pos.placing or variant.passing or variant.must_capture)
        # The static score at each ply of the line (-INF in check): whether it improves
        # on the same side's two plies before decides how many quiet moves late-move
        # pruning keeps.
        self.stands = [-INF] * (MAX_PLY + 2)

    # ------------------------------------------------------------------ budget

    def _check(self) -> None:
        """Called every few nodes: a node of a big board can cost a millisecond, so the
        clock is read often (a tenth of a microsecond); the caller's `should_stop` less
        often."""
        if self.nodes >= self.max_nodes or self.clock() >= self.stop_at:
            raise Stop
        if self.should_stop is not None and self.nodes >= self.next_poll:
            self.next_poll = self.nodes + POLL_EVERY
            if self.should_stop():
                raise Cancelled
        self.next_check = min(self.nodes + CLOCK_EVERY, self.max_nodes)

    # ------------------------------------------------------------------ make / unmake

    def _push(self, c: int) -> None:
        pos = self.pos
        if (
            c < GATED
            and not (c >> KIND_SHIFT) & 7
            and not pos.gates[pos.side]
            and not (pos.t.blast and pos.board[(c >> 8) & 0xFF])  # an explosion: count anew
        ):
            board = pos.board
            o = c & 0xFF
            d = (c >> 8) & 0xFF
            piece = board[o]
            cap = board[d]
            promo = (c >> PROMO_SHIFT) & 0x3F
            new = (promo << 1 | pos.side) if promo else pos.t.flip[piece]
            et = self.et
            mg, eg = et.mg, et.eg
            self.mg += mg[new][d] - mg[piece][o] - mg[cap][d]
            self.eg += eg[new][d] - eg[piece][o] - eg[cap][d]
            ph = et.phase
            self.ph += ph[new] - ph[piece] - ph[cap]
            pz = et.pawn_zobrist
            self.pk ^= pz[piece][o] ^ pz[new][d] ^ pz[cap][d]
            pos.push_code(c, False)
        else:
            pos.push_code(c, False)
            self.mg, self.eg, self.ph = self.et.board_terms(pos)
            self.pk = self.et.pawn_key(pos)
        h = pos.hash
        self.rep[h] = self.rep.get(h, 0) + 1

    def _pop(self, saved: tuple[int, int, int, int]) -> None:
        pos = self.pos
        h = pos.hash
        n = self.rep[h] - 1
        if n:
            self.rep[h] = n
        else:
            del self.rep[h]
        pos.pop_code()
        self.mg, self.eg, self.ph, self.pk = saved

    def static(self) -> int:
        return self.et.score(self.pos, self.mg, self.eg, self.ph, self.pk)

    # ------------------------------------------------------------------ ordering

    def _order(self, moves: list[int], hmove: int, ply: int) -> list[int]:
        """All of a node's legal moves in the order of the stages: the hash move, captures
        and promotions by most valuable victim / least valuable attacker, the killers,
        quiet moves by history (used where the full legal list is needed anyway: in
        check, at the root, in variants without `Position.move_test`)."""
        pos = self.pos
        board = pos.board
        value = self.et.value
        k1, k2 = self.killers[ply]
        hist = self.hist
        side16 = pos.side << 16
        cm = self.counter[(self.line[ply - 1] & 0xFFFF) | side16] if ply and COUNTERMOVES else 0
        scored = []
        for c in moves:
            if c == hmove:
                s = 1 << 40
            else:
                kind = (c >> KIND_SHIFT) & 7
                victim = board[(c >> 8) & 0xFF] if kind == NORMAL_KIND else 0
                promo = (c >> PROMO_SHIFT) & 0x3F
                if victim or kind == EP_KIND:
                    s = (1 << 32) + (value[victim] if victim else 100) * 64 - value[board[c & 0xFF]]
                    if promo:
                        s += value[promo << 1] * 64
                elif promo:
                    s = (1 << 31) + value[promo << 1]
                elif c == k1:
                    s = 1 << 30
                elif c == k2:
                    s = (1 << 30) - 1
                elif c == cm:
                    s = (1 << 30) - 2
                else:
                    s = hist[(c & 0xFFFF) | side16]
            scored.append((s, c))
        scored.sort(reverse=True)
        return [c for _s, c in scored]

    def _captures(self, moves: list[int], hmove: int) -> tuple[list[int], list[int]]:
        """Captures and promotions (pseudo-legal) ordered by most valuable victim / least
        valuable attacker, and apart, those that lose material by a simple exchange test
        (`_losing`), to be tried after the quiet moves."""
        pos = self.pos
        board = pos.board
        value = self.et.value
        good = []
        bad = []
        for c in moves:
            if c == hmove:
                continue
            kind = (c >> KIND_SHIFT) & 7
            victim = board[(c >> 8) & 0xFF] if kind == NORMAL_KIND else 0
            promo = (c >> PROMO_SHIFT) & 0x3F
            gain = (value[victim] if victim else 100 if kind == EP_KIND else 0) + (
                value[promo << 1] if promo else 0
            )
            s = gain * 64 - value[board[c & 0xFF]]
            if self._losing(c, gain):
                bad.append((s, c))
            else:
                good.append((s, c))
        good.sort(reverse=True)
        bad.sort(reverse=True)
        return [c for _s, c in good], [c for _s, c in bad]

    def _losing(self, c: int, gain: int) -> bool:
        """A static exchange test, in its simplest variant-general form: the moving piece
        is worth more than what it wins and the enemy attacks the square it lands on. The
        attack is read on the board after the move: leaving its square the piece may open
        a line behind it, or take away (or give) an enemy hopper's screen, as a Cannon's."""
        pos = self.pos
        kind = (c >> KIND_SHIFT) & 7
        if kind != NORMAL_KIND:
            return False
        board = pos.board
        o = c & 0xFF
        piece = board[o]
        if not piece:
            return False
        worth = self.et.value[piece]
        if worth <= gain:
            return False
        d = (c >> 8) & 0xFF
        victim = board[d]
        board[o] = 0
        board[d] = piece
        attacked = pos.attacked(d, pos.side ^ 1)
        board[o] = piece
        board[d] = victim
        return attacked

    def _quiets(self, moves: list[int], hmove: int, ply: int) -> list[int]:
        """Quiet moves: the killers first, the countermove, then by history."""
        k1, k2 = self.killers[ply]
        hist = self.hist
        side16 = self.pos.side << 16
        cm = self.counter[(self.line[ply - 1] & 0xFFFF) | side16] if ply and COUNTERMOVES else 0
        scored = []
        for c in moves:
            if c == hmove:
                continue
            if c == k1:
                s = 1 << 30
            elif c == k2:
                s = (1 << 30) - 1
            elif c == cm:
                s = (1 << 30) - 2
            else:
                s = hist[(c & 0xFFFF) | side16]
            scored.append((s, c))
        scored.sort(reverse=True)
        return [c for _s, c in scored]

    def _biggest_victim(self, color: int) -> int:
        """What one capture could win at most: the most valuable non-royal piece of `color`
        on the board, plus the best promotion."""
        pieces = self.pos.pieces
        value = self.et.value
        royal = self.et.royal
        best = 0
        for code in self.et.side_codes[color]:
            if pieces[code] and not royal[code] and value[code] > best:
                best = value[code]
        return best + self.best_promotion

    # ------------------------------------------------------------------ endings

    def _no_moves(self, ply: int) -> int:
        """The side to move has no legal move (or the game is decided): the rules engine
        says how that ends."""
        return outcome_score(self.pos.outcome([]), self.pos.side, ply)

    # ------------------------------------------------------------------ the search

    def _can_null(self) -> bool:
        """Null-move pruning is sound only where passing would not help: the side has
        pieces besides Pawns and royals (on the board or in hand), so zugzwang is unlikely."""
        pos = self.pos
        side = pos.side
        if any(pos.pieces[c] for c in self.nonpawn_codes[side]):
            return True
        return self.et.has_hands and any(pos.hands[side])

    def _search(
        self, depth: int, alpha: int, beta: int, ply: int, in_check: bool, null: bool = True
    ) -> int:
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._check()
        pos = self.pos
        if self.royal_capture and pos.kings[pos.side] < 0:
            return -MATE + ply
        if self.board_endings:
            ended = pos.decided()
            if ended is not None:
                return outcome_score(ended, pos.side, ply)
        if pos.halfmove >= self.move_rule_plies or self.rep.get(pos.hash, 0) > 1:
            return DRAW
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(alpha, beta, ply, in_check, 0)
        # Mate distance: a mate already found nearer the root cannot be beaten here.
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha
        pv_node = beta - alpha > 1
        key = pos.hash ^ (pos.t.z_ep[pos.ep] if pos.ep >= 0 else 0)
        tt = self.tt
        slot = key & tt.mask
        hmove = 0
        if tt.keys[slot] == key:
            hmove = tt.moves[slot]
            word = tt.info[slot]
            if not pv_node and (word >> DEPTH_SHIFT) & 0x7F >= depth:
                cut = _settled(word, ply, alpha, beta)
                if cut is not None:
                    return cut
        side = pos.side
        stand = -INF
        if not in_check:
            stand = self.static()
        self.stands[ply] = stand
        improving = IMPROVING and ply >= 2 and stand > self.stands[ply - 2]
        if not in_check and not pv_node and abs(beta) < MATE_BOUND:
            # Reverse futility: far enough above beta that a quiet move will not undo it.
            if depth <= RFP_DEPTH and stand - RFP_MARGIN * (depth - improving) >= beta:
                return stand
            if (
                depth <= RAZOR_DEPTH
                and stand + RAZOR_MARGIN * depth < alpha
                and abs(alpha) < MATE_BOUND
            ):
                s = self._quiesce(alpha, alpha + 1, ply, False, 0)
                if s <= alpha:
                    return s
            if null and depth >= NULL_DEPTH and self.null_ok and stand >= beta and self._can_null():
                r = NULL_REDUCTION + depth // 4 + min(2, (stand - beta) // 200)
                self.line[ply] = 0
                pos.push_null()
                try:
                    s = -self._search(
                        max(NULL_FLOOR, depth - 1 - r), -beta, -beta + 1, ply + 1, False, False
                    )
                finally:
                    pos.pop_code()
                if s >= beta:
                    return beta if s >= MATE_BOUND else s
        if IIR_DEPTH and not hmove and depth >= IIR_DEPTH:
            depth -= 1  # no hash move: a node seen for the first time is searched less
        test = pos.move_test() if not in_check and self.staged else None
        moves: Iterable[int]
        # Late-move pruning: past this many quiet moves a shallow node's rest are skipped
        # (the generator stops offering them once `skip[0]` is set).
        skip = [False]
        lmp = 1 << 30
        if not pv_node and not in_check and depth <= LMP_DEPTH and abs(alpha) < MATE_BOUND:
            improving = ply >= 2 and stand > self.stands[ply - 2]
            lmp = (LMP_BASE + depth * depth) // (1 if improving else 2)
        if test is None:
            legal = pos.legal_codes()
            if not legal:
                return self._no_moves(ply)
            moves = self._order(legal, hmove, ply)
        else:
            if hmove and not (pos.pseudo_ok(hmove) and test(hmove)):
                hmove = 0
            moves = self._staged(test, hmove, ply, skip)
        futile = (
            not pv_node
            and not in_check
            and depth <= FUTILITY_DEPTH
            and abs(alpha) < MATE_BOUND
            and stand + FUTILITY_MARGIN * depth <= alpha
        )
        prune_losing = (
            not pv_node and not in_check and depth <= SEE_PRUNE_DEPTH and abs(alpha) < MATE_BOUND
        )
        best = -INF
        best_move = 0
        flag = UPPER
        extend_ok = ply < 2 * self.root_depth
        searched = 0
        quiets_tried: list[int] = []
        log_depth = LOG[min(depth, 63)]
        board = pos.board
        for c in moves:
            # Quiet: neither a capture, en passant nor a promotion.
            kind = (c >> KIND_SHIFT) & 7
            quiet = not (
                (c >> PROMO_SHIFT) & 0x3F
                or kind == EP_KIND
                or (kind == NORMAL_KIND and board[(c >> 8) & 0xFF])
            )
            if futile and quiet and searched and not pos.gives_check(c):
                continue  # futility: this quiet move will not lift the score to alpha
            if quiet and len(quiets_tried) >= lmp:
                skip[0] = True
                continue
            if prune_losing and searched and kind == NORMAL_KIND:
                value = self.et.value
                promo = (c >> PROMO_SHIFT) & 0x3F
                gain = value[board[(c >> 8) & 0xFF]] + (value[promo << 1] if promo else 0)
                if self._losing(c, gain) and not pos.gives_check(c):
                    continue  # the exchange loses material this close to the horizon
            saved = (self.mg, self.eg, self.ph, self.pk)
            self.line[ply] = c
            self._push(c)
            try:
                child_check = pos.is_check_after(c)
                new_depth = depth - 1 + (1 if child_check and extend_ok else 0)
                if searched == 0:
                    s = -self._search(new_depth, -beta, -alpha, ply + 1, child_check)
                else:
                    r = 0
                    if depth >= 3 and searched >= 2 and quiet and not in_check and not child_check:
                        r = int(0.5 + log_depth * LOG[min(searched, 63)] / LMR_DIVISOR)
                        if pv_node:
                            r -= 1
                        if IMPROVING and not improving:
                            r += 1
                        k = self.killers[ply]
                        if c == k[0] or c == k[1]:
                            r -= 1
                        elif LMR_HISTORY:
                            h = self.hist[(c & 0xFFFF) | side << 16]
                            r += -1 if h > 0 else 1 if h < 0 else 0
                        r = max(0, min(r, new_depth - 1))
                    s = -self._search(new_depth - r, -alpha - 1, -alpha, ply + 1, child_check)
                    if r and s > alpha:
                        s = -self._search(new_depth, -alpha - 1, -alpha, ply + 1, child_check)
                    if pv_node and alpha < s < beta:
                        s = -self._search(new_depth, -beta, -alpha, ply + 1, child_check)
            finally:
                self._pop(saved)
            searched += 1
            if s > best:
                best = s
                best_move = c
                if s > alpha:
                    alpha = s
                    flag = EXACT
                    if s >= beta:
                        flag = LOWER
                        if quiet:
                            self._reward(c, side, ply, depth, quiets_tried)
                        break
            if quiet:
                quiets_tried.append(c)
        if searched == 0:
            if test is not None and not self._any_legal(test):
                return self._no_moves(ply)
            if best == -INF:
                # Every move was futile: the static score is as good a bound as any.
                return stand
        tt.store(key, best_move, _to_table(best, ply), depth, flag)
        return best

    def _staged(
        self, test: Callable[[int], bool], hmove: int, ply: int, skip: list[bool]
    ) -> Iterator[int]:
        """A node's legal moves stage by stage: the hash move (already tested) before any
        generation, then from one pass (a capture pass walks the same rays as a full one)
        the captures that do not lose material, the quiet moves (until the caller sets
        `skip[0]`), the losing captures; each tested for legality only when its turn
        comes."""
        pos = self.pos
        if hmove:
            yield hmove
        captures, quiets = pos.split_codes()
        good, bad = self._captures(captures, hmove)
        for c in good:
            if test(c):
                yield c
        for c in self._quiets(quiets, hmove, ply):
            if skip[0]:
                break
            if test(c):
                yield c
        for c in bad:
            if test(c):
                yield c

    def _any_legal(self, test: Callable[[int], bool]) -> bool:
        """Whether the side to move has a legal move (when staged search tried none)."""
        pos = self.pos
        return any(test(c) for c in pos.capture_codes()) or any(test(c) for c in pos.quiet_codes())

    def _reward(self, c: int, side: int, ply: int, depth: int, tried: list[int]) -> None:
        """A quiet move refuted the opponent's: a killer at this ply, history up for it and
        down for the quiet moves tried before it."""
        k = self.killers[ply]
        if k[0] != c:
            k[1] = k[0]
            k[0] = c
        if ply and COUNTERMOVES:
            self.counter[(self.line[ply - 1] & 0xFFFF) | side << 16] = c
        hist = self.hist
        bonus = depth * depth
        i = (c & 0xFFFF) | side << 16
        hist[i] += bonus
        for q in tried:
            j = (q & 0xFFFF) | side << 16
            hist[j] -= bonus
        if hist[i] > 1 << 24:
            self.hist[:] = [h >> 1 for h in hist]

    def _quiesce(self, alpha: int, beta: int, ply: int, in_check: bool, qply: int) -> int:
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._check()
        pos = self.pos
        if self.royal_capture and pos.kings[pos.side] < 0:
            return -MATE + ply
        if self.board_endings:
            ended = pos.decided()
            if ended is not None:
                return outcome_score(ended, pos.side, ply)
        if ply >= MAX_PLY:
            return self.static()
        if not QUIESCENCE_TT:
            return self._quiesce_moves(alpha, beta, ply, in_check, qply)
        tt = self.tt
        key = pos.hash ^ (pos.t.z_ep[pos.ep] if pos.ep >= 0 else 0)
        slot = key & tt.mask
        if tt.keys[slot] == key and not in_check:
            # Any entry will do (a quiescence result is depth 0), if its bound settles it; not
            # in check, where every evasion is searched: an entry of a deeper quiescence ply
            # (past QCHECK_PLIES) stood pat in that very check and would hide a mate.
            cut = _settled(tt.info[slot], ply, alpha, beta)
            if cut is not None:
                return cut
        best = self._quiesce_moves(alpha, beta, ply, in_check, qply)
        if not (tt.info[slot] >> DEPTH_SHIFT) & 0x7F:
            # Only over another quiescence entry or an empty slot: the many leaves must not
            # push out the searched entries (nor, at the next move, the kept ones).
            flag = LOWER if best >= beta else UPPER if best <= alpha else EXACT
            tt.store(key, 0, _to_table(best, ply), 0, flag)
        return best

    def _quiesce_moves(self, alpha: int, beta: int, ply: int, in_check: bool, qply: int) -> int:
        """Quiescence past the table: stand pat, or the captures (every move in check)."""
        pos = self.pos
        board = pos.board
        value = self.et.value
        test: Callable[[int], bool] | None = None
        if in_check and qply < QCHECK_PLIES:
            moves = pos.legal_codes()
            if not moves:
                return self._no_moves(ply)
            best = -INF
            ordered = self._order(moves, 0, ply)
            test = _known_legal
        else:
            stand = self.static()
            if stand >= beta:
                return stand
            alpha = max(alpha, stand)
            best = stand
            if pos.placing or qply >= QUIESCENCE_PLIES:
                return stand
            side = pos.side
            if stand + self._biggest_victim(side ^ 1) + DELTA_MARGIN < alpha:
                return stand  # not even the best capture with a promotion could reach alpha
            tactical = []
            for c in pos.capture_codes():
                kind = (c >> KIND_SHIFT) & 7
                if kind == NORMAL_KIND:
                    victim = board[(c >> 8) & 0xFF]
                    promo = (c >> PROMO_SHIFT) & 0x3F
                    if victim and (victim & 1) != side:
                        gain = value[victim] + (value[promo << 1] if promo else 0)
                        if stand + gain + DELTA_MARGIN < alpha:
                            continue  # even winning the piece would not raise alpha
                        if self._losing(c, gain):
                            continue  # SEE: the exchange loses material
                        tactical.append((gain * 64 - value[board[c & 0xFF]], c))
                    elif promo:
                        gain = value[promo << 1]
                        if self._losing(c, gain):
                            continue
                        tactical.append((gain, c))
                elif kind == EP_KIND:
                    tactical.append((100 * 64, c))
            if not tactical:
                return stand
            tactical.sort(reverse=True)
            ordered = [c for _s, c in tactical]
            if self.staged and not in_check:
                test = pos.move_test()
            if test is None:
                legal = set(pos.legal_codes())
                test = legal.__contains__
        for c in ordered:
            if not test(c):
                continue
            saved = (self.mg, self.eg, self.ph, self.pk)
            self._push(c)
            try:
                child_check = qply + 1 < QCHECK_PLIES and pos.is_check_after(c)
                s = -self._quiesce(-beta, -alpha, ply + 1, child_check, qply + 1)
            finally:
                self._pop(saved)
            if s > best:
                best = s
                if s > alpha:
                    alpha = s
                    if s >= beta:
                        return s
        return best

    # ------------------------------------------------------------------ the root

    root_depth = 1

    def search(
        self,
        limits: Limits,
        *,
        should_stop: Callable[[], bool] | None = None,
        on_iteration: Callable[[Iteration], None] | None = None,
    ) -> SearchResult:
        """Search within `limits` and return the move to play."""
        pos = self.pos
        self.start = self.clock()
        self.nodes = 0
        self.max_nodes = limits.nodes if limits.nodes is not None else 1 << 62
        self.next_check = min(CLOCK_EVERY, self.max_nodes)
        self.next_poll = POLL_EVERY
        self.deadline = min(
            self.start + limits.movetime if limits.movetime is not None else math.inf,
            limits.deadline if limits.deadline is not None else math.inf,
        )
        self.stop_at = (
            self.deadline - GLANCE_RESERVE * max(0.0, self.deadline - self.start)
            if self.deadline < math.inf
            else math.inf
        )
        self.should_stop = should_stop
        moves = pos.legal_codes()
        if pos.decided() is not None:
            moves = []
        if not moves:
            return SearchResult(None, self._no_moves(0), 0, 0, 0.0)
        ordered = self._order(moves, 0, 0)
        scores: dict[int, int] = {}
        iterations: list[Iteration] = []
        margin = limits.margin
        self._improved = None
        self._exact = {}
        try:
            if len(ordered) == 1 and margin == 0:
                # One legal move: nothing to choose, only a score to give.
                self.root_depth = 1
                self._root(1, ordered, scores, 0)
                iterations.append(
                    Iteration(
                        1,
                        scores[ordered[0]],
                        ordered[0],
                        self.nodes,
                        self._elapsed(),
                        (ordered[0],),
                    )
                )
            else:
                for depth in range(1, max(1, limits.depth) + 1):
                    self.root_depth = depth
                    move, score = self._root(depth, ordered, scores, margin)
                    it = Iteration(
                        depth, score, move, self.nodes, self._elapsed(), self._pv(move, depth)
                    )
                    iterations.append(it)
                    if on_iteration is not None:
                        on_iteration(it)
                    ordered.sort(key=lambda c: scores.get(c, -INF), reverse=True)
                    if abs(score) >= MATE_BOUND and depth >= MATE - abs(score):
                        break  # a forced mate seen to its end: deeper adds nothing
                    if self._elapsed() > NEXT_DEPTH_SHARE * (self.deadline - self.start):
                        break  # the next depth would not change the move in time
        except Cancelled:
            pass
        except Stop:
            if not iterations:
                iterations.append(self._finish_depth_one(ordered, scores))
                if on_iteration is not None:
                    on_iteration(iterations[-1])
        if not iterations:
            # Cancelled before depth 1 finished: nobody waits for the move, any legal one does.
            first = ordered[0]
            return SearchResult(first, self.static(), 0, self.nodes, self._elapsed(), (first,))
        last = iterations[-1]
        best_move, best_score, pv = last.move, last.score, last.pv
        candidates: tuple[tuple[int, int], ...] = ()
        if margin == 0 and self._improved is not None:
            # The unfinished depth already proved another move better than the old best.
            best_move, best_score = self._improved
            pv = (best_move,)
        elif margin and abs(best_score) < MATE_BOUND:
            exact = self._completed_exact
            pool = [(c, s) for c, s in exact.items() if s >= best_score - margin]
            if len(pool) > 1:
                best_move, chosen = _choose(pool, limits.temperature, limits.seed)
                if best_move != last.move:
                    best_score, pv = chosen, (best_move,)
                candidates = tuple(sorted(pool, key=lambda cs: (-cs[1], cs[0])))
        return SearchResult(
            best_move,
            best_score,
            last.depth,
            self.nodes,
            self._elapsed(),
            pv,
            candidates,
            tuple(iterations),
        )

    _improved: tuple[int, int] | None = None
    _exact: dict[int, int]
    _completed_exact: dict[int, int]

    def _finish_depth_one(self, ordered: list[int], scores: dict[int, int]) -> Iteration:
        """Depth 1 ran out of budget (a big board, a tiny budget, a slow start): the root
        moves it did not reach are glanced at, so that every move has a score and a mate in
        one is never missed. A glance is not a search node (it is not counted as one): it
        costs a make, an evaluation and an unmake, within the time kept back for it."""
        glanced = {c: self._glance(c) for c in ordered if c not in scores}
        scores.update(glanced)
        move = max(ordered, key=lambda c: scores[c])  # the first of equals, in search order
        self._improved = None
        self._completed_exact = {**self._exact, **glanced}
        return Iteration(1, scores[move], move, self.nodes, self._elapsed(), (move,))

    def _glance(self, c: int) -> int:
        """A root move scored without a search: the ending it makes (mate, a royal capture,
        a rule's draw) or else the static evaluation."""
        saved = (self.mg, self.eg, self.ph, self.pk)
        self._push(c)
        try:
            pos = self.pos
            if self.royal_capture and pos.kings[pos.side] < 0:
                return MATE - 1
            if self.board_endings:
                ended = pos.decided()
                if ended is not None:
                    return -outcome_score(ended, pos.side, 1)
            if pos.halfmove >= self.move_rule_plies or self.rep.get(pos.hash, 0) > 1:
                return DRAW
            if pos.is_check() and not pos.legal_codes():
                return -self._no_moves(1)
            return -self.static()
        finally:
            self._pop(saved)

    def _root(
        self, depth: int, ordered: list[int], scores: dict[int, int], margin: int
    ) -> tuple[int, int]:
        """One iteration at the root. With a margin, every move within it of the best gets
        an exact score: the candidates of a deliberately imperfect choice."""
        pos = self.pos
        alpha = -INF
        best = -INF
        best_move = ordered[0]
        self._exact = {}
        self._improved = None
        for n, c in enumerate(ordered):
            saved = (self.mg, self.eg, self.ph, self.pk)
            self.line[0] = c
            self._push(c)
            try:
                child_check = pos.is_check()
                new_depth = depth - 1 + (1 if child_check else 0)
                if n == 0:
                    s = self._first(new_depth, child_check, scores.get(c), depth)
                elif margin:
                    s = -self._search(new_depth, -INF, -(best - margin), 1, child_check)
                else:
                    s = -self._search(new_depth, -alpha - 1, -alpha, 1, child_check)
                    if s > alpha:
                        s = -self._search(new_depth, -INF, -alpha, 1, child_check)
            finally:
                self._pop(saved)
            scores[c] = s
            if n == 0 or s > best - margin:
                self._exact[c] = s
            if s > best:
                best = s
                best_move = c
                alpha = max(alpha, s)
                if n:
                    self._improved = (c, s)
        self._improved = None
        self._completed_exact = self._exact
        key = pos.hash ^ (pos.t.z_ep[pos.ep] if pos.ep >= 0 else 0)
        self.tt.store(key, best_move, best, depth, EXACT)
        return best_move, best

    def _first(self, depth: int, in_check: bool, previous: int | None, root_depth: int) -> int:
        """The score of the first root move (the move just pushed), within an aspiration
        window around its score of the iteration before, widened when it falls outside."""
        if previous is None or root_depth < ASPIRATION_DEPTH or abs(previous) >= MATE_BOUND:
            return -self._search(depth, -INF, INF, 1, in_check)
        window = ASPIRATION_WINDOW
        alpha, beta = previous - window, previous + window
        while True:
            s = -self._search(depth, -beta, -alpha, 1, in_check)
            if alpha < s < beta:
                return s
            window *= 4
            if window > 4 * ASPIRATION_WINDOW * 4 * 4:
                return -self._search(depth, -INF, INF, 1, in_check)
            if s <= alpha:
                alpha = max(-INF, s - window)
            else:
                beta = min(INF, s + window)

    def _pv(self, first: int, depth: int) -> tuple[int, ...]:
        """The principal variation: the best move, then the table's moves while legal."""
        pos = self.pos
        line = [first]
        pushed = 0
        seen = {pos.hash}
        try:
            pos.push_code(first, False)
            pushed += 1
            while len(line) < max(depth, 1) + 4:
                seen.add(pos.hash)
                key = pos.hash ^ (pos.t.z_ep[pos.ep] if pos.ep >= 0 else 0)
                slot = key & self.tt.mask
                if self.tt.keys[slot] != key:
                    break
                move = self.tt.moves[slot]
                if not move or move not in pos.legal_codes():
                    break
                pos.push_code(move, False)
                pushed += 1
                line.append(move)
                if pos.hash in seen:
                    break
        finally:
            for _ in range(pushed):
                pos.pop_code()
        return tuple(line)

    def _elapsed(self) -> float:
        return self.clock() - self.start


def _settled(word: int, ply: int, alpha: int, beta: int) -> int | None:
    """The score of a table entry (`info` word) if its bound settles a node at `ply`
    within (alpha, beta); mates are stored from the entry's node, read from this ply."""
    s = (word & SCORE_MASK) - SCORE_OFFSET
    if s >= MATE_BOUND:
        s -= ply
    elif s <= -MATE_BOUND:
        s += ply
    flag = (word >> FLAG_SHIFT) & 3
    if flag == EXACT or (flag == LOWER and s >= beta) or (flag == UPPER and s <= alpha):
        return s
    return None


def _to_table(score: int, ply: int) -> int:
    """A score as the table keeps it: a mate counted from the node, not from the root."""
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


def _known_legal(c: int) -> bool:
    """The legality test of moves taken from `Position.legal_codes()`."""
    return True


def _choose(pool: list[tuple[int, int]], temperature: float, seed: int) -> tuple[int, int]:
    """A move from `pool` (move, score): the best always when the temperature is 0,
    otherwise drawn with weights exp((score - best) / temperature)."""
    pool = sorted(pool, key=lambda cs: (-cs[1], cs[0]))
    if temperature <= 0:
        return pool[0]
    top = pool[0][1]
    weights = [math.exp((s - top) / temperature) for _c, s in pool]
    rng = random.Random(seed)
    return rng.choices(pool, weights=weights)[0]


def search(
    position: Position,
    limits: Limits,
    *,
    history: Iterable[int] = (),
    tt: TranspositionTable | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> SearchResult:
    """Search `position` (left unchanged) within `limits`."""
    return Searcher(position, tt=tt, history=history).search(limits, should_stop=should_stop)
