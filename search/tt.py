"""A fixed-size transposition table: two arrays of 64-bit words, so its memory is known
in advance (16 bytes an entry) and never grows, however long the search."""

from __future__ import annotations

from array import array

EXACT, LOWER, UPPER = 1, 2, 3
SCORE_OFFSET = 1 << 19
MOVE_MASK = (1 << 31) - 1
ENTRY_BYTES = 16


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
        self.data = array("Q", bytes(8 * entries))

    @property
    def megabytes(self) -> float:
        return self.size * ENTRY_BYTES / (1 << 20)

    def clear(self) -> None:
        self.keys = array("Q", bytes(8 * self.size))
        self.data = array("Q", bytes(8 * self.size))

    def store(self, key: int, move: int, score: int, depth: int, flag: int) -> None:
        i = key & self.mask
        self.keys[i] = key
        self.data[i] = pack(move, score, depth, flag)

    def probe(self, key: int) -> tuple[int, int, int, int] | None:
        """(move, score, depth, flag) stored for `key`, or None."""
        i = key & self.mask
        if self.keys[i] != key:
            return None
        return unpack(self.data[i])


def pack(move: int, score: int, depth: int, flag: int) -> int:
    return (
        (move & MOVE_MASK)
        | (score + SCORE_OFFSET) << 31
        | (max(0, min(depth, 127))) << 51
        | flag << 58
    )


def unpack(word: int) -> tuple[int, int, int, int]:
    return (
        word & MOVE_MASK,
        ((word >> 31) & 0xFFFFF) - SCORE_OFFSET,
        (word >> 51) & 0x7F,
        word >> 58,
    )
