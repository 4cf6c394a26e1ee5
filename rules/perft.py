"""Perft: the number of legal move sequences of a given length, the standard check of a
move generator against published counts and independent engines."""

from __future__ import annotations

from rules.position import Position


def perft(pos: Position, depth: int) -> int:
    """Leaf count at `depth` plies (bulk-counted at the last ply). Leaves `pos` as it was."""
    if depth <= 0:
        return 1
    codes = pos.legal_codes()
    if depth == 1:
        return len(codes)
    total = 0
    push = pos.push_code
    pop = pos.pop_code
    for c in codes:
        push(c, False)
        total += perft(pos, depth - 1)
        pop()
    return total


def divide(pos: Position, depth: int) -> list[tuple[int, int]]:
    """Perft below each legal move (code, count): how differences are located."""
    out = []
    for c in pos.legal_codes():
        pos.push_code(c, False)
        out.append((c, perft(pos, depth - 1)))
        pos.pop_code()
    return out
