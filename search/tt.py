"""A fixed-size transposition table: three arrays of 64-bit words (key, move, and score,
depth, bound and age packed together), so its memory is known in advance (24 bytes an
entry) and never grows, however long the search; and the memory of one game (table,
history, killers) kept between its moves, for a bounded number of games."""

from __future__ import annotations

from array import array
from collections import OrderedDict

EXACT, LOWER, UPPER = 1, 2, 3
SCORE_OFFSET = 1 << 19
SCORE_MASK = (1 << 20) - 1
DEPTH_SHIFT = 20
FLAG_SHIFT = 27
AGE_SHIFT = 29
AGE_MASK = 0xFF
ENTRY_BYTES = 24
HISTORY_SIZE = 1 << 17  # (origin | destination << 8) | side << 16
MAX_KILLER_PLY = 128


class TranspositionTable:
    """Entries are indexed by the low bits of the position key. An entry of this search
    (`age`) is replaced only by one searched as deep or nearly so; one left from an
    earlier move of the game always gives way, so a table kept between moves keeps its
    useful deep entries without filling up with stale ones."""

    def __init__(self, megabytes: float = 16) -> None:
        entries = 1
        while entries * 2 * ENTRY_BYTES <= megabytes * (1 << 20):
            entries *= 2
        self.size = entries
        self.mask = entries - 1
        self.keys = array("Q", bytes(8 * entries))
        self.moves = array("Q", bytes(8 * entries))
        self.info = array("Q", bytes(8 * entries))
        self.age = 0

    @property
    def megabytes(self) -> float:
        return self.size * ENTRY_BYTES / (1 << 20)

    def clear(self) -> None:
        self.keys = array("Q", bytes(8 * self.size))
        self.moves = array("Q", bytes(8 * self.size))
        self.info = array("Q", bytes(8 * self.size))
        self.age = 0

    def new_search(self) -> None:
        """A new search begins: the entries stored so far become replaceable."""
        self.age = (self.age + 1) & AGE_MASK

    def store(self, key: int, move: int, score: int, depth: int, flag: int) -> None:
        i = key & self.mask
        if self.keys[i] != key:
            old = self.info[i]
            if old >> AGE_SHIFT == self.age and (old >> DEPTH_SHIFT) & 0x7F > depth + 2:
                return
        elif not move:
            move = self.moves[i]  # a bound without a best move keeps the old one
        self.keys[i] = key
        self.moves[i] = move
        self.info[i] = pack(score, depth, flag, self.age)

    def probe(self, key: int) -> tuple[int, int, int, int] | None:
        """(move, score, depth, flag) stored for `key`, or None."""
        i = key & self.mask
        if self.keys[i] != key:
            return None
        return (self.moves[i], *unpack(self.info[i]))


def pack(score: int, depth: int, flag: int, age: int = 0) -> int:
    return (
        (score + SCORE_OFFSET)
        | max(0, min(depth, 127)) << DEPTH_SHIFT
        | flag << FLAG_SHIFT
        | age << AGE_SHIFT
    )


def unpack(word: int) -> tuple[int, int, int]:
    """(score, depth, flag)."""
    return (
        (word & SCORE_MASK) - SCORE_OFFSET,
        (word >> DEPTH_SHIFT) & 0x7F,
        (word >> FLAG_SHIFT) & 3,
    )


class GameMemory:
    """What the search learns in one game and uses again at the next move: the table, the
    history of quiet moves that refuted others, and killer moves per ply. Tied to one
    compiled variant (`tables`): another variant starts from nothing."""

    def __init__(self, megabytes: float = 16) -> None:
        self.tt = TranspositionTable(megabytes)
        self.history: list[int] = [0] * HISTORY_SIZE
        self.killers: list[list[int]] = [[0, 0] for _ in range(MAX_KILLER_PLY)]
        self.tables: object | None = None

    def reset(self) -> None:
        self.tt.clear()
        self.history = [0] * HISTORY_SIZE
        self.killers = [[0, 0] for _ in range(MAX_KILLER_PLY)]

    def use_for(self, tables: object) -> None:
        """Ready for a search of a position of `tables` (cleared if the variant changed):
        the history is halved so that this move's lessons soon outweigh old ones."""
        if tables is not self.tables:
            self.reset()
            self.tables = tables
        else:
            self.history = [h >> 1 for h in self.history]
        self.tt.new_search()


class GameMemories:
    """The memories of the most recent games, by a key the caller gives (a game's id),
    at most `games` of them (least recently used first out): memory stays bounded by
    `games` x the table size."""

    def __init__(self, games: int = 4, megabytes: float = 16) -> None:
        self.games = max(1, games)
        self.megabytes = megabytes
        self._memories: OrderedDict[str, GameMemory] = OrderedDict()

    def __len__(self) -> int:
        return len(self._memories)

    def get(self, key: str) -> GameMemory:
        """The memory of game `key`, a fresh one the first time (the oldest game's memory
        is reused for it when the limit is reached)."""
        memory = self._memories.get(key)
        if memory is not None:
            self._memories.move_to_end(key)
            return memory
        if len(self._memories) >= self.games:
            _old, memory = self._memories.popitem(last=False)
            memory.reset()
            memory.tables = None
        else:
            memory = GameMemory(self.megabytes)
        self._memories[key] = memory
        return memory
