"""The values every tournament module shares: entrants, pairings and results.

Points are `Fraction`s: a game scores 1, ½ or 0, a Bat Chess stalemate 3/5 to 2/5, and a
bye what the organiser chose; fractions keep every sum exact, so equal scores compare
equal and score groups never split on rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

ONE = Fraction(1)
HALF = Fraction(1, 2)
ZERO = Fraction(0)


class Colour(Enum):
    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Colour:
        return Colour.BLACK if self is Colour.WHITE else Colour.WHITE


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player of the tournament. `number` is the pairing number fixed at the start (1 is
    the top seed); `withdrawn_after` is the last round they were paired in (0 if they
    withdrew before the first), None while they play on."""

    id: int
    number: int
    name: str = ""
    withdrawn_after: int | None = None

    @property
    def active(self) -> bool:
        return self.withdrawn_after is None


@dataclass(frozen=True, slots=True)
class Result:
    """Points of both sides. `played` is False for a game scored without being played (a
    withdrawn player's forfeit): it counts in the score but gives no colour."""

    white: Fraction
    black: Fraction
    played: bool = True

    @staticmethod
    def of(
        white: Fraction | int | str, black: Fraction | int | str, *, played: bool = True
    ) -> Result:
        return Result(Fraction(white), Fraction(black), played)

    def points_of(self, colour: Colour) -> Fraction:
        return self.white if colour is Colour.WHITE else self.black


@dataclass(frozen=True, slots=True)
class Pairing:
    """One board of one round: a game, or a bye when `black` is None (the player is in
    `white`; the bye's points are its result). `result` is None while the game goes on."""

    round: int
    board: int
    white: int
    black: int | None
    result: Result | None = None

    @property
    def is_bye(self) -> bool:
        return self.black is None

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def players(self) -> tuple[int, ...]:
        return (self.white,) if self.black is None else (self.white, self.black)

    def colour_of(self, player: int) -> Colour | None:
        if player == self.white and self.black is not None:
            return Colour.WHITE
        if player == self.black:
            return Colour.BLACK
        return None

    def opponent_of(self, player: int) -> int | None:
        if player == self.white:
            return self.black
        if player == self.black:
            return self.white
        raise ValueError(f"player {player} is not on board {self.board} of round {self.round}")

    def points_of(self, player: int) -> Fraction | None:
        """The player's points from this board, None while the game goes on."""
        if self.result is None:
            return None
        if player == self.white:
            return self.result.white
        if player == self.black:
            return self.result.black
        raise ValueError(f"player {player} is not on board {self.board} of round {self.round}")

    def with_result(self, result: Result | None) -> Pairing:
        return Pairing(self.round, self.board, self.white, self.black, result)


_VULGAR = {Fraction(1, 4): "¼", HALF: "½", Fraction(3, 4): "¾"}


def points_text(points: Fraction) -> str:
    """`3½`, `½`, `4`, `12¾`, or `2.6` for fifths (a Bat Chess stalemate scores 3/5)."""
    whole, part = divmod(points, 1)
    if part == 0:
        return str(int(whole))
    if part in _VULGAR:
        return f"{int(whole) if whole else ''}{_VULGAR[part]}"
    return f"{float(points):.2f}".rstrip("0").rstrip(".")
