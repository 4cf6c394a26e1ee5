"""Boards from 1x1 to 16x16: square names, indices and offsets (Dobutsu Shogi is 3x4,
Fairy-Stockfish's 1D Chess 8x1).

A square is stored as one integer, `rank * files + file` (both 0-based, rank 0 is White's
first rank), so move tables are plain tuples of ints. `Square` is the value type the
public API hands out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_SIZE = 1
MAX_SIZE = 16
FILE_LETTERS = "abcdefghijklmnop"
_SQUARE_RE = re.compile(r"([a-p])([1-9][0-9]?)")


@dataclass(frozen=True, slots=True, order=True)
class Square:
    """A square by 0-based file and rank; `name` is what players read (`a1`, `p16`)."""

    file: int
    rank: int

    @property
    def name(self) -> str:
        return f"{FILE_LETTERS[self.file]}{self.rank + 1}"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Geometry:
    """The size of a board and the arithmetic on its squares."""

    files: int
    ranks: int

    def __post_init__(self) -> None:
        for label, value in (("files", self.files), ("ranks", self.ranks)):
            if not MIN_SIZE <= value <= MAX_SIZE:
                raise ValueError(f"{label} must be between {MIN_SIZE} and {MAX_SIZE}, not {value}")

    @property
    def size(self) -> int:
        return self.files * self.ranks

    def index(self, file: int, rank: int) -> int:
        return rank * self.files + file

    def file_of(self, sq: int) -> int:
        return sq % self.files

    def rank_of(self, sq: int) -> int:
        return sq // self.files

    def square(self, sq: int) -> Square:
        return Square(sq % self.files, sq // self.files)

    def name(self, sq: int) -> str:
        return f"{FILE_LETTERS[sq % self.files]}{sq // self.files + 1}"

    def parse(self, text: str) -> int | None:
        """The index of a square name on this board, or None (bad form or off the board)."""
        m = _SQUARE_RE.fullmatch(text)
        if not m:
            return None
        file = FILE_LETTERS.index(m.group(1))
        rank = int(m.group(2)) - 1
        if file >= self.files or not 0 <= rank < self.ranks:
            return None
        return self.index(file, rank)

    def offset(self, sq: int, dx: int, dy: int) -> int | None:
        """The square `(dx, dy)` away, or None when it falls off the board."""
        f = sq % self.files + dx
        r = sq // self.files + dy
        if 0 <= f < self.files and 0 <= r < self.ranks:
            return r * self.files + f
        return None

    def mirror(self, sq: int) -> int:
        """The same file on the other side's rank (how Black's array mirrors White's)."""
        return self.index(sq % self.files, self.ranks - 1 - sq // self.files)

    def row(self, sq: int, color: int) -> int:
        """The square's row counted from `color`'s side, 1-based (spec §1.3)."""
        r = sq // self.files
        return r + 1 if color == 0 else self.ranks - r

    def is_dark(self, sq: int) -> bool:
        """Dark when file + rank (1-based) is even, as the spec defines (a1 is dark)."""
        return (sq % self.files + sq // self.files) % 2 == 0

    def describe(self) -> str:
        return f"{self.files}x{self.ranks}"

    def square_hint(self) -> str:
        last = f"{FILE_LETTERS[self.files - 1]}{self.ranks}"
        return f"squares run from a1 to {last} on this {self.describe()} board"
