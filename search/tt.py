"""A fixed-size transposition table: three arrays of 64-bit words (key, move, and score,
depth and bound packed together), so its memory is known in advance (24 bytes an entry)
and never grows, however long the search."""

from __future__ import annotations

from array import array

EXACT, LOWER, UPPER = 1, 2, 3
SCORE_OFFSET = 1 << 19
SCORE_MASK = (1 << 20) - 1
DEPTH_SHIFT = 20
FLAG_SHIFT = 27
ENTRY_BYTES = 24


class TranspositionTable:
    """Entries are indexed by the low bits of the position key; a new entry always
    replaces the old one (simple, and the searches here are short)."""

    def __init__(self, megabytes: float = 16) -> None:
        entries = 1
        while entries * 2 * ENTRY_BYTES <= megabytes * (1 << 20):
            entries *= 2
        self.size = entries
        self.mask = entries - 1
        self.keys = array("Q", bytes(8 * entries))
        self.moves = array("Q", bytes(8 * entries))
        self.info = array("Q", bytes(8 * entries))

    @property
    def megabytes(self) -> float:
        return self.size * ENTRY_BYTES / (1 << 20)

    def clear(self) -> None:
        self.keys = array("Q", bytes(8 * self.size))
        self.moves = array("Q", bytes(8 * self.size))
        self.info = array("Q", bytes(8 * self.size))

    def store(self, key: int, move: int, score: int, depth: int, flag: int) -> None:
        i = key & self.mask
        self.keys[i] = key
        self.moves[i] = move
        self.info[i] = pack(score, depth, flag)

    def probe(self, key: int) -> tuple[int, int, int, int] | None:
        """(move, score, depth, flag) stored for `key`, or None."""
        i = key & self.mask
        if self.keys[i] != key:
            return None
        return (self.moves[i], *unpack(self.info[i]))


def pack(score: int, depth: int, flag: int) -> int:
    return (score + SCORE_OFFSET) | max(0, min(depth, 127)) << DEPTH_SHIFT | flag << FLAG_SHIFT


def unpack(word: int) -> tuple[int, int, int]:
    """(score, depth, flag)."""
    return (word & SCORE_MASK) - SCORE_OFFSET, (word >> DEPTH_SHIFT) & 0x7F, word >> FLAG_SHIFT
