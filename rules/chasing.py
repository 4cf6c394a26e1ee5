"""Xiangqi's rule against perpetual chasing, as Fairy-Stockfish applies it (`chasingRule =
AXF_CHASING`, pyffish 0.0.90): which pieces the last move "chased", and so which side loses
a repetition in which it chased the same piece on every one of its moves.

A variant names the roles in `[rules.chasing]` (`chariot`, `horse`, `cannon`, `elephant`,
`advisor`, `soldier`: piece ids). After each move, the chased pieces of the side to move are
the ones the move newly attacks (directly, or by a discovered attack) and that are either
worth more than the attacker (a Chariot attacked by a Horse or a Cannon; a Chariot, Cannon or
Horse by an Elephant or an Advisor) or unprotected; a General and the Soldiers that have not
crossed the river are never chased, and a piece attacking one of its own kind chases it only
if that one is pinned. Pieces newly pinned leave what they protected unprotected, and a newly
opened discovered check chases what it attacks unless the General can take back safely.

Everything here works on the position after the move, with square sets; it runs once per
move played in a game (never in the search) and only in variants that ask for it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from rules.tables import CAPTURE, GRASSHOP, SquareMoves, compile_square
from rules.variant import Variant

if TYPE_CHECKING:
    from rules.position import Position

ROLES = ("chariot", "horse", "cannon", "elephant", "advisor", "soldier")


@lru_cache(maxsize=4096)
def _table(variant: Variant, piece_id: str, color: int, sq: int, raw: bool) -> SquareMoves:
    """A piece's move table on `sq`: with its region and region moves (where it can really
    capture), or `raw` (its movement on an open board, region moves included: Fairy-Stockfish's
    `attacks_bb`)."""
    p = variant.piece(piece_id)
    geo = variant.geometry
    extras = tuple((variant.region(rm.region).of(color), rm.components) for rm in p.region_moves)
    if raw:
        comps = (*p.components, *(c for rm in p.region_moves for c in rm.components))
        return compile_square(geo, comps, (), color, sq)
    mask = variant.region(p.region).of(color) if p.region else None
    return compile_square(geo, p.components, (), color, sq, mask, extras)


def attack_set(
    pos: Position, code: int, sq: int, occupied: Collection[int], *, raw: bool = False
) -> set[int]:
    """The squares the piece `code` on `sq` attacks (could capture on) with `occupied` the
    occupied squares."""
    sm = _table(pos.variant, pos.t.type_ids[code >> 1], code & 1, sq, raw)
    out: set[int] = set()
    for d, _c, mode in sm.leaps:
        if mode & CAPTURE:
            out.add(d)
    for pairs in sm.slides:
        for d, _c in pairs:
            out.add(d)
            if d in occupied:
                break
    for pairs, mode, _mf, cfrom in sm.rays:
        if mode & CAPTURE:
            for i, (d, _c) in enumerate(pairs):
                if i >= cfrom:
                    out.add(d)
                if d in occupied:
                    break
    for pairs, mode, grass in sm.hops:
        if mode & CAPTURE:
            _hop(pairs, occupied, out, grass)
    for d, _c, mode, alts in sm.lames:
        if mode & CAPTURE and any(not any(s in occupied for s in alt) for alt in alts):
            out.add(d)
    for pairs, mode, _mf, cfrom, hop in sm.masked:
        if not mode & CAPTURE:
            continue
        if hop:
            _hop(pairs, occupied, out, hop == GRASSHOP)
            continue
        for i, (d, c) in enumerate(pairs):
            if c and i >= cfrom:
                out.add(d)
            if d in occupied:
                break
    if pos.t.no_capture[code]:
        out = {s for s in out if pos.board[s] not in pos.t.no_capture[code]}
    return out


def _hop(
    pairs: Iterable[tuple[int, int]], occupied: Collection[int], out: set[int], grass: bool
) -> None:
    """The capture of a hopper's ray (a grasshopper's: only directly beyond the screen)."""
    screen = False
    for d, c in pairs:
        if not screen:
            screen = d in occupied
            continue
        if d in occupied:
            if c:
                out.add(d)
            return
        if grass:
            return


def attackers(pos: Position, target: int, color: int, occupied: Collection[int]) -> set[int]:
    """Squares of `color`'s pieces that attack `target` with `occupied` occupied (pieces on
    squares left out of `occupied` still count as attackers, as Fairy-Stockfish's)."""
    out = set()
    for code in pos.t.side_codes[color]:
        for sq in pos.pieces[code]:
            if target in attack_set(pos, code, sq, occupied):
                out.add(sq)
    return out


def blockers(pos: Position, color: int) -> frozenset[int]:
    """Pieces of either side standing alone in the way of an enemy piece's attack on
    `color`'s royal piece (two for a Cannon with two screens): Fairy-Stockfish's
    `blockers_for_king`."""
    king = pos.kings[color]
    if king < 0:
        return frozenset()
    occupied = {sq for sq, p in enumerate(pos.board) if p}
    now = attackers(pos, king, color ^ 1, occupied)
    out = set()
    for sq in occupied:
        if sq in (pos.kings[0], pos.kings[1]):
            continue
        if attackers(pos, king, color ^ 1, occupied - {sq}) - now - {sq}:
            out.add(sq)
    return frozenset(out)


def _line(pos: Position, a: int, b: int) -> set[int]:
    """The whole rank, file or diagonal through `a` and `b` (empty when not aligned)."""
    geo = pos.t.geo
    dx = geo.file_of(b) - geo.file_of(a)
    dy = geo.rank_of(b) - geo.rank_of(a)
    if not (dx == 0 or dy == 0 or abs(dx) == abs(dy)) or (dx, dy) == (0, 0):
        return set()
    sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
    out = {a}
    for sign in (1, -1):
        s: int | None = a
        while True:
            assert s is not None
            s = geo.offset(s, sign * sx, sign * sy)
            if s is None:
                break
            out.add(s)
    return out


def _rook_lines(pos: Position, sq: int) -> set[int]:
    geo = pos.t.geo
    return {
        s
        for s in range(geo.size)
        if s != sq and (geo.file_of(s) == geo.file_of(sq) or geo.rank_of(s) == geo.rank_of(sq))
    }


def _neighbours(pos: Position, sq: int, diagonal: bool) -> set[int]:
    geo = pos.t.geo
    steps = ((1, 1), (1, -1), (-1, 1), (-1, -1)) if diagonal else ((1, 0), (-1, 0), (0, 1), (0, -1))
    return {s for dx, dy in steps if (s := geo.offset(sq, dx, dy)) is not None}


def _rook_reach(pos: Position, sq: int, occupied: Collection[int]) -> set[int]:
    """What a Rook on `sq` would attack (the flying General's line)."""
    geo = pos.t.geo
    out = set()
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        s: int | None = sq
        while True:
            assert s is not None
            s = geo.offset(s, dx, dy)
            if s is None:
                break
            out.add(s)
            if s in occupied:
                break
    return out


def chased(
    pos: Position,
    move: int,
    captured: bool,
    pins_now: frozenset[int],
    pins_before: frozenset[int] | None,
) -> frozenset[int]:
    """The side to move's pieces chased by the move `move` just made (`captured`: it took a
    piece); `pins_now`/`pins_before`: `blockers(pos, side to move)` after and before it
    (None before the first move of the known history)."""
    v = pos.variant
    roles = dict(v.chasing)
    role_of = {pid: role for role, pid in roles.items()}
    t = pos.t
    board = pos.board
    us = pos.side
    them = us ^ 1
    occupied = {sq for sq, p in enumerate(board) if p}

    def role(sq: int) -> str | None:
        return role_of.get(t.type_ids[board[sq] >> 1]) if board[sq] else None

    def ours(sq: int) -> bool:
        return bool(board[sq]) and board[sq] & 1 == us

    soldier = roles.get("soldier")
    promoted: set[int] = set()
    if soldier is not None:
        piece = v.piece(soldier)
        zones = [v.region(rm.region).of(us) for rm in piece.region_moves]
        for sq in pos.pieces[t.code(soldier, us)]:
            if not zones or any(sq in z for z in zones):
                promoted.add(sq)
    kings = {pos.kings[us]} if pos.kings[us] >= 0 else set()
    soldiers = set(pos.pieces[t.code(soldier, us)]) if soldier is not None else set()
    never = kings | (soldiers - promoted)  # a General and unpromoted Soldiers
    pins = set(pins_now)
    if v.flying_general and pos.kings[them] >= 0:
        file = t.geo.file_of(pos.kings[them])
        on_file = {s for s in occupied if ours(s) and t.geo.file_of(s) == file}
        if kings & on_file and len(on_file - kings) <= 1:
            pins |= on_file - kings
    out: set[int] = set()

    def of_roles(*names: str) -> set[int]:
        return {s for s in occupied if ours(s) and role(s) in names}

    def add(attacker: int, kind: int, attacks: set[int]) -> None:
        if not attacks - out:
            return
        attacks = attacks - never
        attacker_role = role_of.get(t.type_ids[kind >> 1])
        if attacker_role in ("horse", "cannon"):
            out.update(attacks & of_roles("chariot"))
        if attacker_role in ("elephant", "advisor"):
            out.update(attacks & of_roles("chariot", "cannon", "horse"))
        same = {s for s in attacks if board[s] == kind ^ 1}  # our pieces of its kind
        if attacker_role == "horse" and _neighbours(pos, attacker, True) & occupied:
            for s in same:
                if attacker in attack_set(pos, board[s], s, occupied, raw=True):
                    attacks = attacks - {s}
        else:
            attacks = attacks - (same - pins)
        for s in attacks:
            roots = attackers(pos, s, us, occupied - {attacker}) - pins
            if not roots or (
                v.flying_general
                and roots == kings
                and pos.kings[them] >= 0
                and s in _rook_reach(pos, pos.kings[them], occupied - {attacker})
            ):
                out.add(s)

    o, d = move & 0xFF, (move >> 8) & 0xFF
    mover = board[d]
    if mover and role(d) != "soldier" and not t.royal[mover]:
        direct = {s for s in attack_set(pos, mover, d, occupied) if ours(s)}
        if role(d) in ("chariot", "cannon"):
            direct -= _line(pos, o, d)
        add(d, mover, direct)

    # Discovered attacks: the pieces whose way the move opened.
    candidates = {s for s in _neighbours(pos, o, False) if role(s) == "horse"}
    candidates |= {s for s in _neighbours(pos, o, True) if role(s) == "elephant"}
    candidates |= {s for s in _rook_lines(pos, o) if role(s) in ("cannon", "chariot")}
    candidates |= {s for s in _rook_lines(pos, d) if role(s) == "cannon"}
    before = (occupied if captured else occupied - {d}) ^ {o}
    for s in sorted(candidates):
        if not board[s] or board[s] & 1 != them:
            continue
        code = board[s]
        now = attack_set(pos, code, s, occupied, raw=True)
        then = attack_set(pos, code, s, before, raw=True)
        add(s, code, {x for x in now - then if ours(x)})

    if pins_before is not None:
        fresh = pins_now - pins_before
        enemy_pins = blockers(pos, them) if any(ours(s) for s in fresh) else frozenset()
        for s in fresh:
            if ours(s):  # newly pinned: what it protected is protected no more
                for s2 in attack_set(pos, board[s], s, occupied, raw=True):
                    if (
                        ours(s2)
                        and s2 not in never
                        and (attackers(pos, s2, them, occupied) - enemy_pins)
                    ):
                        out.add(s2)
            elif board[s]:  # a discovered check: what the piece attacks is chased
                attacks = {x for x in attack_set(pos, board[s], s, occupied) if ours(x)}
                king = pos.kings[us]
                reach = attack_set(pos, board[king], king, occupied) if king >= 0 else set()
                out.update(attacks - reach)
                for s2 in attacks & reach:
                    if attackers(pos, s2, them, occupied - {s, king}) - {s}:
                        out.add(s2)
    return frozenset(out)


def unmoved(squares: frozenset[int], move: int) -> frozenset[int]:
    """`squares` before the move `move`: a square it reached is its origin again
    (Fairy-Stockfish's `undo_move_board`)."""
    o, d = move & 0xFF, (move >> 8) & 0xFF
    if d in squares:
        return (squares - {d}) | {o}
    return squares
