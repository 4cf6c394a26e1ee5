"""Plain data the renderer draws: a board, its pieces and their movement glyphs.

Nothing here knows the rules engine: `renderer.from_rules` builds these values from a
`rules.Position`, and tests or other front ends may build them by hand. Squares are
integers numbered as the rules engine numbers them: `rank * files + file`, both 0-based,
rank 0 being White's first rank (a1 = 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntFlag

Point = tuple[float, float]


class Mode(IntFlag):
    """What a movement mark allows: moving to an empty square, capturing, or both."""

    MOVE = 1
    CAPTURE = 2
    BOTH = 3


@dataclass(frozen=True, slots=True, order=True)
class Dot:
    """A leap (or the stop of a non-jumping path) to the offset `(x, y)`, White's
    orientation (+y forward). `lame`: reached only over empty squares; `initial`: only
    on the piece's first move (or once per game)."""

    x: int
    y: int
    mode: Mode = Mode.BOTH
    lame: bool = False
    initial: bool = False


@dataclass(frozen=True, slots=True, order=True)
class Ray:
    """A slide: from `start` (the origin, or the first step of a bent rider) repeating
    `step` up to `limit` times (None: to the edge of the board). `hop`: a cannon's line,
    which needs exactly one screen before its destination."""

    start: tuple[int, int]
    step: tuple[int, int]
    mode: Mode = Mode.BOTH
    limit: int | None = None
    hop: bool = False


@dataclass(frozen=True, slots=True, order=True)
class Trail:
    """A fixed path from the origin: the squares in order. `ride`: the piece may stop
    on any square of it (circular and crooked riders); otherwise it only leads to a
    destination `Dot` over squares that must be empty (lame and multi-path leaps)."""

    points: tuple[tuple[int, int], ...]
    mode: Mode = Mode.BOTH
    ride: bool = False


@dataclass(frozen=True, slots=True)
class Glyph:
    """A picture of a piece's movement, generated from its move definition.

    Equal movements give equal glyphs; the drawing (`renderer.sprites`) maps dots to
    small discs (filled: move or capture, hollow: move only, cross: capture only), rays
    to strokes running to the edge of the token, hops to strokes barred by a screen, and
    trails to thin polylines.
    """

    dots: tuple[Dot, ...] = ()
    rays: tuple[Ray, ...] = ()
    trails: tuple[Trail, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.dots or self.rays or self.trails)


@dataclass(frozen=True, slots=True)
class Lines:
    """A board of lines (Xiangqi, Janggi): pieces stand on the crossings. `river`: the
    vertical lines break between this rank (1-based) and the next; `palaces`: boxes of
    squares `(file0, rank0, file1, rank1)` (0-based, inclusive) drawn with their
    diagonals; `side_files`: per side, the file numbers it counts (WXF: from its own
    right), shown above and below the board; `row_labels`: by rank, a second name of
    the rank shown right of the board (Janggi's rows: 1..9 and 0 from the top)."""

    river: int | None = None
    palaces: tuple[tuple[int, int, int, int], ...] = ()
    side_files: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    row_labels: tuple[str, ...] | None = None
    marks: tuple[int, ...] = ()
    """Squares whose crossing gets small corner marks (Xiangqi's Cannons' and Soldiers'
    points)."""


@dataclass(frozen=True, slots=True)
class Traditional:
    """A traditional piece set: `shape` is `disc` (Xiangqi, Janggi) or `pointed` (Shogi's
    five-sided tokens, the opponent's turned around); `ink` the characters' colours of
    White's and Black's pieces (`#rrggbb`)."""

    shape: str
    ink: tuple[str, str]

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"unknown shape {self.shape!r}; known: {', '.join(SHAPES)}")


SHAPES = ("disc", "pointed")
PIECE_SETS = ("traditional", "letters")
"""What a player may choose in /settings: the traditional set where the variant has one,
or the letter tokens everywhere."""

FIGURES = ("king", "queen", "rook", "bishop", "knight", "pawn")


@dataclass(frozen=True, slots=True)
class PieceSprite:
    """How one piece looks: `figure` names an orthodox figurine (one of `FIGURES`);
    any other piece is a token showing `letters` over its movement `glyph`."""

    letters: str
    name: str
    color: int  # 0 White, 1 Black
    glyph: Glyph = field(default_factory=Glyph)
    royal: bool = False
    figure: str | None = None
    reverse: str = ""
    """Letters of the face on the other side of a two-sided piece (Patricia's King shows a
    Queen when it turns over); empty for an ordinary piece."""
    characters: str = ""
    """What the traditional piece set writes on this side's piece (`俥`, Shogi's `歩`):
    drawn instead of the letter token where the board has a traditional set."""
    promoted: bool = False
    """A promoted piece (Shogi's `と`): the traditional set writes it in red."""

    def __post_init__(self) -> None:
        if self.color not in (0, 1):
            raise ValueError(f"color must be 0 (White) or 1 (Black), not {self.color!r}")
        if self.figure is not None and self.figure not in FIGURES:
            raise ValueError(f"unknown figure {self.figure!r}; known: {', '.join(FIGURES)}")


@dataclass(frozen=True, slots=True)
class HandPiece:
    """A piece type held in hand (Patricia) and how many of it."""

    sprite: PieceSprite
    count: int


@dataclass(frozen=True)
class BoardView:
    """Everything a board picture shows, as plain values.

    `hands` is None for variants without pieces in hand; otherwise White's and Black's.
    `reserve` holds the pieces not yet placed (Florea's placement phase) and `gates`, per
    side, the back-rank square each placed reserve piece waits behind. `has_reserve`
    keeps the reserve strips drawn once every reserve piece has entered.
    """

    files: int
    ranks: int
    pieces: Mapping[int, PieceSprite] = field(default_factory=dict)
    hands: tuple[tuple[HandPiece, ...], tuple[HandPiece, ...]] | None = None
    reserve: tuple[tuple[PieceSprite, ...], tuple[PieceSprite, ...]] = ((), ())
    gates: tuple[Mapping[int, PieceSprite], Mapping[int, PieceSprite]] = field(
        default_factory=lambda: ({}, {})
    )
    placing: bool = False
    has_reserve: bool = False
    shogi_coordinates: bool = False
    """Label files 9..1 from the left and ranks a.. from the top, as Shogi notation names
    the squares (`7f`)."""
    lines: Lines | None = None
    """Draw the board as lines with the pieces on their crossings (Xiangqi, Janggi)."""
    traditional: Traditional | None = None
    """The variant's traditional piece set, when every piece has its characters."""
    walls: frozenset[int] = frozenset()
    """Wall squares (Cross Derby, petrified pieces): drawn solid, with a cross."""

    def __post_init__(self) -> None:
        for label, value in (("files", self.files), ("ranks", self.ranks)):
            if not 1 <= value <= 26:
                raise ValueError(f"{label} must be between 1 and 26, not {value}")
        size = self.files * self.ranks
        for sq in (*self.pieces, *self.walls):
            if not 0 <= sq < size:
                raise ValueError(f"square {sq} is off the {self.files}x{self.ranks} board")

    @property
    def size(self) -> int:
        return self.files * self.ranks

    @property
    def shows_reserve(self) -> bool:
        return self.has_reserve or self.placing or any(self.reserve) or any(self.gates)

    def square_name(self, sq: int) -> str:
        return f"{chr(ord('a') + sq % self.files)}{sq // self.files + 1}"

    def parse_square(self, text: str) -> int:
        """`'e4'` -> its index; ValueError when it is not a square of this board."""
        t = text.strip().lower()
        if len(t) >= 2 and t[0].isalpha() and t[1:].isdigit():
            f = ord(t[0]) - ord("a")
            r = int(t[1:]) - 1
            if 0 <= f < self.files and 0 <= r < self.ranks:
                return r * self.files + f
        raise ValueError(f"{text!r} is not a square of this {self.files}x{self.ranks} board")
