"""Variants as data: one TOML file per variant, validated at load.

The built-in catalogue is `rules/variants/*.toml`; a player's own variant is the same format,
given as text (`load_definition`), bounded by `rules.limits`, and may `extends` a built-in
variant. A file may `extend` a parent (a family shares one definition) and declare named
options, each a table merged over the variant when the option is chosen. Every unknown key,
bad value, duplicate letter, off-board square or unknown piece is a `VariantError` naming the
file and the key (and, for a player's file, the line and an example of the right form).
Pieces come from the shared catalogue `rules/pieces.toml`; a variant names them, gives their
letters, and may rename them or define new ones.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import hashlib
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from rules import limits, shuffle
from rules.betza import Component, Kind, is_multi_step, parse_betza
from rules.errors import BetzaError, UnknownVariantError, VariantError
from rules.geometry import MAX_SIZE, MIN_SIZE, Geometry
from rules.movement import MOVEMENT_KEYS, components_from_entry
from rules.regions import Region, build_regions, parse_squares, region_named
from rules.shuffle import RandomSetup

PACKAGE_DIR = Path(__file__).resolve().parent
VARIANTS_DIR = PACKAGE_DIR / "variants"
CATALOGUE_PATH = PACKAGE_DIR / "pieces.toml"

TOP_KEYS = {
    "id",
    "name",
    "description",
    "status",
    "inventor",
    "sources",
    "extends",
    "abstract",
    "files",
    "ranks",
    "pieces",
    "setup",
    "piece-count",
    "rules",
    "castling",
    "reserve",
    "options",
    "decisions",
    "regions",
    "fairy-stockfish",
    "notation",
    "display",
}
NOTATIONS = ("algebraic", "wxf", "janggi", "shogi")
CATALOGUE_KEYS = {"name", "aliases", "royal", "glyph", *MOVEMENT_KEYS}
PIECE_KEYS = {
    *CATALOGUE_KEYS,
    "letter",
    "double-step",
    "double-step-rows",
    "triple-step",
    "triple-step-rows",
    "promotion",
    "flip",
    "family",
    "initial-leap",
    "in-check",
    "once-per-game",
    "succession",
    "no-drop-rows",
    "region",
    "region-moves",
    "cannot-capture",
    "cannot-hop-over",
    "demotes-to",
    "counts-as",
    "drop-region",
    "drop-one-per-file",
    "drop-other-colour",
    "drop-mate",
    "never-moves",
}
PROMOTION_KEYS = {
    "to",
    "compulsory-rows",
    "optional-rows",
    "limit",
    "pawn-moves-only",
    "zone",
    "mandatory",
    "on-capture",
    "in-place",
    "anywhere-if-last",
    "peaceful",
}
RULES_KEYS = {
    "move-rule",
    "repetition",
    "stalemate",
    "goal",
    "insufficient-material",
    "en-passant",
    "captures-to-hand",
    "drop-any-face",
    "demote-to-hand",
    "bare-king",
    "goal-zone",
    "counting",
    "mate",
    "flying-general",
    "pass",
    "bikjang",
    "material-points",
    "perpetual-check",
    "move-repetition",
    "immobility-illegal",
    "drop-promoted",
    "drop-region",
    "repetition-result",
    "chasing",
    "check-count",
    "must-capture",
    "no-checks",
    "no-drop-checks",
    "checkmate",
    "extinction",
    "must-drop",
    "blast",
    "petrify",
}
REPETITION_RESULTS = ("draw", "white-loses", "black-loses", "repeater-loses", "repeater-wins")
DROP_MATES = ("legal", "loss", "illegal")
STALEMATES = ("draw", "win-on-points", "loss", "win", "fewer-pieces")
RESERVE_STYLES = ("placed", "in-hand", "drop")
STATUSES = ("documented", "reconstructed setup")
LETTERS_RE = re.compile(r"\+?[A-Z]{1,2}")
ID_RE = re.compile(r"[a-z][a-z0-9-]*")
BUILTIN_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]*")
"""Built-in ids may begin with a digit, as Fairy-Stockfish's do (`3check`)."""


@dataclass(frozen=True, slots=True)
class Promotion:
    """How one piece type promotes; rows are counted from the owner's side (1-based)."""

    to: tuple[str, ...]
    compulsory_rows: frozenset[int]
    optional_rows: frozenset[int]
    limited_by_start_count: bool = False
    pawn_moves_only: bool = False
    zone: str | None = None
    """A region: moves that start or end in it may promote (Shogi's promotion zone)."""
    mandatory: bool = False
    """In the zone the piece must promote (EuroShogi, Kyoto Shogi)."""
    on_capture: bool = False
    """Only captures promote (Micro Shogi)."""
    in_place: bool = False
    """Sittuyin: promoting is a move of its own, the piece turning into the new one where it
    stands (in `zone`, if given) or moving as the new piece to an empty square."""
    limit_count: int = 0
    """At most this many of the new piece on the board (0: no such limit)."""
    anywhere_if_last: bool = False
    """With `in_place`: the side's only piece of this type may promote outside the zone."""
    peaceful: bool = False
    """With `in_place`: the promotion may not give check, nor leave the new piece attacking
    an enemy piece."""


@dataclass(frozen=True, slots=True)
class RegionMoves:
    """Moves a piece has only while it stands in `region`, every square they pass or reach
    lying in that region too (the Xiangqi Soldier's sideways step across the river, Janggi's
    palace diagonals)."""

    region: str
    components: tuple[Component, ...]


@dataclass(frozen=True, slots=True)
class PieceType:
    """A piece as one variant uses it: its letters, name and complete movement."""

    id: str
    name: str
    letters: str
    aliases: tuple[str, ...]
    components: tuple[Component, ...]
    royal: bool = False
    promotion: Promotion | None = None
    flip: str | None = None
    family: str | None = None
    initial_leap: str | None = None
    """`metamachy`, or `moves` for the leaps of a table (`first_leaps`)."""
    first_leaps: tuple[Component, ...] = ()
    """`initial-leap = { betza = "mfsN" }`: leaps the unmoved royal piece may make, not out of
    check, never capturing (Cambodian's King)."""
    first_leap_lost_by: frozenset[str] = frozenset()
    """Piece types whose move that checks this royal piece takes its first leap away."""
    capture_checker_only: bool = False
    """`in-check = "capture-checker"`: in check, this royal piece may only capture the piece
    that gives check (Makpong)."""
    once_per_game: tuple[Component, ...] = ()
    succession: str | None = None
    no_drop_rows: frozenset[int] = frozenset()
    region: str | None = None
    """The piece never leaves this region: it moves, captures and is dropped only there."""
    region_moves: tuple[RegionMoves, ...] = ()
    cannot_capture: tuple[str, ...] = ()
    """Pieces it may not capture (the Janggi Cannon never takes a Cannon)."""
    cannot_hop_over: tuple[str, ...] = ()
    """Pieces it may not use as a screen when hopping (nor the Janggi Cannon a Cannon)."""
    demotes_to: str | None = None
    """A promoted form: captured, it goes to the captor's hand as this type (Shogi's +P
    returns as a Pawn)."""
    counts_as: str | None = None
    """A promoted form that the rules naming pieces (extinction and its pseudo-royal pieces,
    the goal zone) count as this type: Fairy-Stockfish's promoted piece is of the type it
    promotes into."""
    drop_region: str | None = None
    """The region the piece may be dropped in (the variant's drop region otherwise)."""
    drop_one_per_file: bool = False
    drop_other_colour: bool = False
    """Placement's Bishops: dropped only on squares of the other colour than those its
    owner's pieces of this type stand on (Fairy-Stockfish's dropOppositeColoredBishop)."""
    """Never dropped on a file that holds one of its owner's pieces of its type (nifu)."""
    drop_mate: str = "legal"
    """A checkmate given by dropping this piece: `legal`, `loss` (the dropper loses, as
    Fairy-Stockfish scores Shogi's Pawn-drop mate) or `illegal`."""
    glyph: tuple[str, str] | None = None
    """The character(s) the traditional piece set writes on it, White's and Black's (`歩`;
    Shogi's Kings `玉` and `王`): for pictures that draw kanji or Chinese characters."""

    @property
    def is_pawn(self) -> bool:
        """The Pawn is the piece written without letters."""
        return self.letters == ""

    def all_names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True, slots=True)
class StandardCastling:
    """One castling move for White (Black mirrors it): King and Rook squares before/after.
    `wins`: the sides (0 White, 1 Black) for which making this castling move wins the game
    and losing the right to make it loses (Fairy-Stockfish's castlingWins)."""

    king_from: int
    king_to: int
    rook_from: int
    rook_to: int
    wins: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class FastCastling:
    """Florea's castling: the King jumps to any empty safe square between it and a Rook."""

    king_from: int
    rooks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class OptionDef:
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Zone:
    """A "reach the zone" goal: `count` goal pieces of a side (`pieces[color]`: a piece id,
    or `ANY_PIECE`) standing on its squares (`squares[color]`; empty: that side has no
    goal) after its side's move win the game; with `full`, one goal piece there is enough
    once every square of the zone is occupied (Kono). With `safe`, only while no enemy
    piece attacks them (Dobutsu Shogi's Lion: both sides safely there is a draw)."""

    pieces: tuple[str, str]
    squares: tuple[frozenset[int], frozenset[int]]
    safe: bool = False
    reply: bool = False
    """Racing Kings (Fairy-Stockfish's flagMove): when White's piece reaches its zone,
    Black still moves if its own piece can reach its zone at once; reaching it then draws."""
    hold: bool = False
    """Jeson Mor (Fairy-Stockfish's flagMove for a piece other than the King): the piece
    wins when it still stands in its zone as its side is next to move."""
    count: int = 1
    full: bool = False


ANY_PIECE = "any"
"""`goal-zone.piece = "any"`: every piece of the side is a goal piece."""


COUNTING_STYLES = ("makruk", "cambodian", "asean")


@dataclass(frozen=True, slots=True)
class Extinction:
    """Fairy-Stockfish's extinction rule: a side left with at most `count` pieces of one of
    the `pieces` types (on the board and in hand; empty `pieces`: of all its pieces
    together) has lost, or won with `result = "win"` (Antichess), at once."""

    pieces: frozenset[str]
    result: str = "loss"
    count: int = 0
    pseudo_royal: bool = False
    opponent_count: int = 0
    """Fairy-Stockfish's extinctionOpponentPieceCount: the rule applies only while the
    other side still has at least this many pieces of the type (Anti-atomic: a capture
    that blows up both sides' last pieces decides nothing by extinction)."""
    """Fairy-Stockfish's extinctionPseudoRoyal: the last pieces of a listed type (at most
    `count` + 1 of them) may not be left attacked, as royal pieces; being unable to save
    one is checkmate, and the extinction itself never happens."""


@dataclass(frozen=True, slots=True)
class MateRule:
    """Conditions on checkmate (Shatar): a mate given by `forbidden_by` pieces alone loses
    for the side that gives it; a mate whose unbroken series of checks holds no check by a
    `series_needs` piece is a draw."""

    forbidden_by: frozenset[str]
    series_needs: frozenset[str]


@dataclass(frozen=True, slots=True)
class HonourLimit:
    """One line of the pieces' honour table: against at least `count` of `piece`, the
    counting side has `moves` moves."""

    piece: str
    count: int
    moves: int


@dataclass(frozen=True, slots=True)
class Counting:
    """Makruk's, Cambodian's and ASEAN's counting rules (Fairy-Stockfish's countingRule):
    when the game comes down to a bare King (or, by the board's honour, when no Pawn is
    left), the weaker side counts moves, and the game is drawn when the count passes the
    limit. `style` fixes when the count starts and from what number, as Fairy-Stockfish's
    three rules do; the limits are data."""

    style: str
    pawns: frozenset[str]
    """No count while a piece of these types stands on the board (Cambodian: no pieces'
    honour)."""
    board: int
    """Board's honour: the limit in moves while the counting side has more than its King
    (0: none, as in ASEAN)."""
    pieces: tuple[HonourLimit, ...]
    """Pieces' honour, by the stronger side's army: the first line that matches."""
    otherwise: int
    """The pieces' honour limit when no line matches (0: no count)."""


@dataclass(frozen=True, slots=True)
class Display:
    """How the board is drawn, for the pictures (no effect on the rules): pieces on the
    intersections of lines, a river above a rank, regions drawn as palaces (outline and
    diagonals), as Xiangqi and Janggi boards are."""

    intersections: bool = False
    river: int | None = None
    """The river runs between this rank and the next (5: between ranks 5 and 6)."""
    palaces: tuple[str, ...] = ()
    pieces: str | None = None
    """The traditional set's shape: `disc` (Xiangqi, Janggi) or `pointed` (Shogi's
    five-sided tokens); None: discs on a board of lines, pointed tokens otherwise."""
    ink: tuple[str, str] | None = None
    """The colours (`#rrggbb`) of White's and Black's characters in the traditional set
    (Xiangqi: red and black; Janggi: green and red); None: the shape's usual ones."""
    marks: tuple[int, ...] = ()
    """Crossings marked with small corners (Xiangqi's Cannons' and Soldiers' points): the
    squares given for White and their mirror images across the board for Black."""


PIECE_SHAPES = ("disc", "pointed")
_INK_RE = re.compile(r"#[0-9a-fA-F]{6}")


@dataclass(frozen=True, slots=True)
class Points:
    """Material points (Janggi's counting): each piece type's value, and what Black gets on
    top (1.5 in Janggi, so that points never tie). They decide the games that would end in
    a draw by rule: repetition, the move rule, bikjang, both sides passing."""

    values: tuple[tuple[str, float], ...]
    black_bonus: float = 0.0


def wins_without_royal(extinction: bool, zone: bool, stalemate: str, points: bool = False) -> bool:
    """Without royal pieces a game is still won: by extinction, by a goal zone, by
    leaving the other side without a move (Hexapawn, Nim), or on material points where a
    stalemate would be drawn (Fairy-Stockfish's draw odds: Capture the Queen)."""
    return extinction or zone or points or stalemate in ("loss", "win", "fewer-pieces")


@dataclass(frozen=True, eq=False)
class Variant:
    """Everything the engine needs to know about one variant with its chosen options."""

    id: str
    name: str
    description: str
    status: str
    inventor: str
    sources: tuple[str, ...]
    geometry: Geometry
    pieces: tuple[PieceType, ...]
    setup: tuple[tuple[int, str], ...]
    """White's army: (square, piece id)."""
    castling: tuple[StandardCastling, ...] = ()
    fast_castling: FastCastling | None = None
    ep_capturers: frozenset[str] = frozenset()
    ep_victims: frozenset[str] = frozenset()
    move_rule: int = 50
    repetition: int = 3
    stalemate: str = "draw"
    goal: str = "checkmate"
    insufficient_material: bool = False
    captures_to_hand: bool = False
    drop_any_face: bool = False
    reserve: tuple[str, ...] = ()
    reserve_in_hand: bool = False
    """S-Chess: reserve pieces wait in hand and enter by the player's choice (`in-hand`),
    not placed behind chosen pieces before move 1 (Florea's `placed`)."""
    castling_opposite: bool = False
    """`[castling] opposite = true`: a side may not castle to the wing the other side has
    castled to (Fairy-Stockfish's oppositeCastling): castling takes the other side's
    castling with the Rook of that wing."""
    castling_sides: tuple[int, ...] = (0, 1)
    """The sides that castle (`[castling] sides = ["white"]`): Fairy-Stockfish's startFen
    may give castling rights to one side only (Weak!, whose Black has no Rooks)."""
    castling_drops: tuple[str, ...] = ()
    """Placement (`[castling] dropped = true`): the royal piece and the Rook piece that,
    dropped on their castling squares, may castle (Fairy-Stockfish's castlingDroppedPiece)."""
    reserve_black: tuple[str, ...] | None = None
    """`[reserve] black-pieces` (style drop): Black's pieces in hand at the start when they
    differ from White's `reserve` (Fairy-Stockfish's startFen ...[LHMMDJ])."""
    reserve_drops: bool = False
    """Pocket Knight: reserve pieces wait in hand and are dropped on any empty square as a
    move (`drop`), whether or not captured pieces go to hand too."""
    must_drop: bool = False
    """A side with pieces in hand must drop one when it can (Sittuyin's placement)."""
    demote_to_hand: bool = False
    """Crazyhouse: a captured promoted piece goes to hand as the type it promoted from."""
    bare_king: bool = False
    """Shatranj: a side left with only its royal piece loses, unless it bares the other
    King in its reply (a draw)."""
    bare_king_draw: bool = False
    """Shatar: the game is drawn as soon as a side has only its royal pieces left."""
    zone: Zone | None = None
    counting: Counting | None = None
    mate: MateRule | None = None
    regions: tuple[Region, ...] = ()
    fsf_variant: str | None = None
    """Fairy-Stockfish's UCI_Variant id of this game, when it plays it (`rules.fsf`)."""
    fsf_letters: Mapping[str, str] = field(default_factory=dict)
    """Piece id -> Fairy-Stockfish's letter, where it is not ours in lowercase."""
    pgn_variant: str | None = None
    """The PGN `[Variant]` tag the variant servers write for this game."""
    fsf_san: Mapping[str, str] = field(default_factory=dict)
    """Piece id -> the letter Fairy-Stockfish's SAN writes where it is not its FEN letter
    (a synonym: Xiangqi's Elephant `e`, written `b` in FEN)."""
    fsf_aliases: tuple[str, ...] = ()
    random_setup: RandomSetup | None = None
    """`[setup.random]`: the start array is drawn when a game starts and pinned to it as the
    option `setup-<letters>`; Fairy-Stockfish plays such games in its Chess960 mode."""
    """Other ids Fairy-Stockfish gives the same game (`mini` for Minishogi); they name it
    wherever a variant is named."""
    black_setup: tuple[tuple[int, str], ...] | None = None
    """Black's army when it is not White's mirror image (`[setup.black]`: Shogi, Makruk)."""
    first: int = 0
    """The side that makes the first move (`[setup] first = "black"`: 1); White otherwise.
    Fairy-Stockfish's startFen says it with its side-to-move field (`... b - - 0 1`)."""
    flying_general: bool = False
    """Xiangqi: no move may leave the two royal pieces facing each other on an open line."""
    passing: bool = False
    """Janggi: a side not in check may pass (written `pass`); two passes in a row end the
    game (a draw, or on points)."""
    bikjang: bool = False
    """Janggi's bikjang: royal pieces facing on an open line must be parted by the side to
    move, or it passes and the game ends (a draw, or on points)."""
    points: Points | None = None
    check_count: int = 0
    """Three-check: the side that gives check this many times wins (0: no such rule)."""
    must_capture: bool = False
    """Antichess: a side that can capture must capture (any capture it likes)."""
    no_checks: bool = False
    """Racing Kings: no move may give check."""
    no_drop_checks: bool = False
    """No drop may give check (Fairy-Stockfish's dropChecks = false)."""
    checkmate: str = "loss"
    """What checkmate gives the checkmated side: `loss`, or `win` (Losers)."""
    bare_king_win: bool = False
    """Losers: a side left with only its royal pieces wins at once."""
    extinction: Extinction | None = None
    blast: frozenset[str] | None = None
    """Atomic: a capture explodes, removing the capturing piece and every piece on the eight
    squares around, but those of these types (the Pawns); None: captures do not explode."""
    walls: frozenset[int] = frozenset()
    """`[setup] walls`: squares no piece may enter, stand on or pass (both sides'; hoppers
    still hop over them), present from the start (Cross Derby)."""
    petrify: frozenset[str] = frozenset()
    """`[rules] petrify`: a piece of these types that captures turns into a wall on the
    square it captured on (Fairy-Stockfish's petrifyOnCaptureTypes)."""
    perpetual_check: str = "draw"
    """`loss`: a repetition in which one side gave check every move loses for that side."""
    move_repetition: str = "allowed"
    """`loss`: Kakao Janggi's rule, a side that makes the same move a third time going back
    and forth loses (`Position._move_repeater`)."""
    chasing: tuple[tuple[str, str], ...] = ()
    """Xiangqi's rule against perpetual chasing (`rules.chasing`): (role, piece id) pairs;
    empty when the variant has no such rule (`rules.chasing` module)."""
    display: Display = Display()
    notation: str = "algebraic"
    """How moves are printed (and read besides every other form): `wxf` (Xiangqi's
    C2=5), `janggi` (Korean numbered squares, H02-83), `shogi` (Western Shogi notation,
    files counted from the right: P-7f) or `algebraic`."""
    immobility_illegal: bool = False
    """No move or drop may leave a piece on a square from which it could never move (Shogi's
    Pawns and Lances on the last rank, Knights on the last two: they promote or stay away)."""
    drop_promoted: bool = False
    """A piece in hand may also be dropped as its promoted form (Kyoto Shogi)."""
    drop_region: str | None = None
    """The region every piece is dropped in, unless the piece names its own."""
    repetition_result: str = "draw"
    """What a repetition (`repetition` occurrences) gives: a draw, a loss for White or Black,
    or a loss or win for the side that made the repeating move."""
    option_defs: tuple[OptionDef, ...] = ()
    options: frozenset[str] = frozenset()
    decisions: tuple[str, ...] = ()
    source_file: str = ""
    definition: str = field(default="", repr=False)
    """A player's variant: the TOML text it was loaded from ("" for the built-in ones)."""
    digest: str = ""
    """A player's variant: the SHA-256 of `definition`, the version a game pins."""
    _by_id: dict[str, PieceType] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id.update({p.id: p for p in self.pieces})

    def piece(self, piece_id: str) -> PieceType:
        return self._by_id[piece_id]

    def army(self, color: int) -> tuple[tuple[int, str], ...]:
        """The initial array of `color` as (square, piece id): Black's is White's mirror
        image unless the variant gives it."""
        if color == 0:
            return self.setup
        if self.black_setup is not None:
            return self.black_setup
        mirror = self.geometry.mirror
        return tuple(sorted((mirror(sq), pid) for sq, pid in self.setup))

    @property
    def castling_wins(self) -> bool:
        """Whether some castling move wins the game (`wins` in `[castling]`)."""
        return any(c.wins for c in self.castling)

    @property
    def royal_free(self) -> bool:
        """Whether a side may have no royal piece (see `wins_without_royal`)."""
        return wins_without_royal(
            self.extinction is not None,
            self.zone is not None,
            self.stalemate,
            self.points is not None and self.stalemate == "draw",
        )

    def region(self, name: str) -> Region:
        for r in self.regions:
            if r.name == name:
                return r
        raise KeyError(name)

    def has_piece(self, piece_id: str) -> bool:
        return piece_id in self._by_id

    def by_letters(self, letters: str) -> PieceType | None:
        for p in self.pieces:
            if p.letters == letters:
                return p
        return None

    @property
    def full_id(self) -> str:
        """The id with its options, as players and the command line write it."""
        return "+".join([self.id, *sorted(self.options)])

    @property
    def pawn_symbol(self) -> str:
        """The Pawn's symbol in setups and position text: `P`, or `+` where `P` is taken."""
        return "+" if any(p.letters == "P" for p in self.pieces) else "P"

    @property
    def castles(self) -> bool:
        return bool(self.castling) or self.fast_castling is not None

    def castles_side(self, color: int) -> bool:
        """Whether `color` castles: its array has the castling King on the King's square
        (a royal piece, or any piece where none is royal). Horde's White, all Pawns, has
        no castling."""
        if not self.castles or color not in self.castling_sides:
            return False
        king = self.castling[0].king_from if self.castling else None
        if king is None:
            assert self.fast_castling is not None
            king = self.fast_castling.king_from
        if color:
            king = self.geometry.mirror(king)
        pid = dict(self.army(color)).get(king)
        if pid is None:
            return bool(self.castling_drops)  # Placement: the King is dropped there later
        return self.piece(pid).royal or not any(p.royal for p in self.pieces)

    @property
    def placement(self) -> bool:
        """Florea's reserve: placed behind back-rank pieces before move 1."""
        return bool(self.reserve) and not self.reserve_in_hand and not self.reserve_drops

    @property
    def has_hand(self) -> bool:
        """Pieces can be held off the board: captured ones (drops), S-Chess reserves or
        reserves dropped (Pocket Knight)."""
        return self.captures_to_hand or self.reserve_in_hand or self.reserve_drops

    @property
    def drops(self) -> bool:
        """Pieces in hand enter by drops: captured ones, or a dropped reserve."""
        return self.captures_to_hand or self.reserve_drops


# ---------------------------------------------------------------------------------------
# Loading


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(_display(path), "", f"not valid TOML: {exc}") from None


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(PACKAGE_DIR.parent))
    except ValueError:
        return str(path)


@cache
def catalogue() -> dict[str, dict[str, Any]]:
    """The shared piece catalogue, checked once."""
    data = _read_toml(CATALOGUE_PATH)
    source = _display(CATALOGUE_PATH)
    for pid, entry in data.items():
        if not ID_RE.fullmatch(pid):
            raise VariantError(source, pid, "piece ids are lowercase words joined by '-'")
        if not isinstance(entry, dict):
            raise VariantError(source, pid, "must be a table")
        for key in entry:
            if key not in CATALOGUE_KEYS:
                raise VariantError(source, f"{pid}.{key}", "unknown key")
        if not isinstance(entry.get("name"), str):
            raise VariantError(source, f"{pid}.name", "every piece needs a name")
        if not any(k in entry for k in MOVEMENT_KEYS):
            raise VariantError(source, pid, "the piece has no movement")
        components_from_entry(entry, source, pid)
    return data


def deep_merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`over` merged into a copy of `base`: tables merge key by key, other values replace."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def variant_path(variant_id: str) -> Path:
    return VARIANTS_DIR / f"{variant_id}.toml"


def _raw(variant_id: str, chain: tuple[str, ...] = ()) -> tuple[dict[str, Any], str]:
    """The file's data merged over its parents', with the file name for messages."""
    if not BUILTIN_ID_RE.fullmatch(variant_id):
        # Never a path: an id from a player's `extends` must not reach the file system.
        raise UnknownVariantError(f"{variant_id!r} is not a variant id")
    path = variant_path(variant_id)
    source = _display(path)
    if variant_id in chain:
        raise VariantError(source, "extends", f"circular inheritance: {' -> '.join(chain)}")
    if not path.is_file():
        raise UnknownVariantError(f"no variant file {source}")
    data = _read_toml(path)
    for key in data:
        if key not in TOP_KEYS:
            raise VariantError(source, key, "unknown key")
    if data.get("id") != variant_id:
        raise VariantError(source, "id", f"must be {variant_id!r}, the file's name")
    parent = data.get("extends")
    if parent is None:
        return data, source
    if not isinstance(parent, str):
        raise VariantError(source, "extends", "must be a variant id")
    try:
        base, _ = _raw(parent, (*chain, variant_id))
    except UnknownVariantError:
        raise VariantError(source, "extends", f"no parent variant {parent!r}") from None
    base.pop("abstract", None)
    base.pop("fairy-stockfish", None)  # how Fairy-Stockfish knows a game is the game's own
    merged = deep_merge(base, {k: v for k, v in data.items() if k != "extends"})
    return merged, source


def variant_ids() -> tuple[str, ...]:
    """Ids of every playable variant (abstract parents excluded), in file-name order."""
    return _ids_in(VARIANTS_DIR)


def builtin_ids() -> tuple[str, ...]:
    """Ids of every built-in file, abstract family parents included (what `extends` takes)."""
    return tuple(path.stem for path in sorted(VARIANTS_DIR.glob("*.toml")))


@cache
def _ids_in(folder: Path) -> tuple[str, ...]:
    out = []
    for path in sorted(folder.glob("*.toml")):
        data = _read_toml(path)
        if not data.get("abstract"):
            out.append(path.stem)
    return tuple(out)


def normalize_name(text: str) -> str:
    """How game records and players name variants: case and spacing do not matter."""
    return re.sub(r"[\s_]+", "-", text.strip().lower())


def resolve_variant_id(text: str) -> tuple[str, tuple[str, ...]]:
    """`'patricia+fixed-king'` or `'Heavy Shako'` -> (id, options); unknown names raise."""
    base, *opts = text.split("+")
    key = normalize_name(base)
    ids = variant_ids()
    if key not in ids:
        by_name = {normalize_name(load_variant(i).name): i for i in ids}
        for i in ids:
            by_name.update((alias, i) for alias in load_variant(i).fsf_aliases)
        if key not in by_name:
            raise UnknownVariantError(
                f"unknown variant {base.strip()!r}; known variants: {', '.join(ids)}"
            )
        key = by_name[key]
    return key, tuple(normalize_name(o) for o in opts if o.strip())


def load_variant(variant_id: str, options: Iterable[str] = ()) -> Variant:
    """The built-in variant with these options, loaded and validated once per combination."""
    return _load(variant_id, frozenset(options))


@cache
def _load(variant_id: str, options: frozenset[str]) -> Variant:
    data, source = _raw(variant_id)
    if data.get("abstract"):
        raise UnknownVariantError(f"{variant_id!r} is a family definition, not a playable variant")
    return _with_options(data, source, options)


def _with_options(
    data: dict[str, Any], source: str, options: frozenset[str], definition: str = ""
) -> Variant:
    """The variant of `data` with the named options merged over it."""
    option_table = data.get("options", {})
    if not isinstance(option_table, dict):
        raise VariantError(source, "options", "must be a table of named options")
    if definition and len(option_table) > limits.MAX_OPTIONS:
        raise VariantError(source, "options", f"at most {limits.MAX_OPTIONS} options")
    option_defs = []
    for name, body in option_table.items():
        if not isinstance(body, dict) or not isinstance(body.get("description"), str):
            raise VariantError(source, f"options.{name}", "needs a description")
        unknown = set(body) - {"description", "set"}
        if unknown:
            raise VariantError(source, f"options.{name}.{sorted(unknown)[0]}", "unknown key")
        if not isinstance(body.get("set", {}), dict):
            raise VariantError(source, f"options.{name}.set", "must be a table")
        option_defs.append(OptionDef(name, body["description"]))
    named, pinned = shuffle.split_options(options)
    data, random_setup = shuffle.pin(data, source, pinned)
    for opt in sorted(named):
        if opt not in option_table:
            known = ", ".join(option_table) or "none"
            name = data.get("id", "the variant")
            raise UnknownVariantError(f"{name} has no option {opt!r} (options: {known})")
        overlay = option_table[opt].get("set", {})
        for key in overlay:
            if key not in TOP_KEYS - {"id", "extends", "options"}:
                raise VariantError(source, f"options.{opt}.set.{key}", "unknown key")
        data = deep_merge(data, overlay)
    variant = _build(data, source, tuple(option_defs), options)
    if random_setup is not None:
        variant = dataclasses.replace(variant, random_setup=random_setup, _by_id={})
    if not definition:
        return variant
    return _checked_cost(
        dataclasses.replace(
            variant,
            definition=definition,
            digest=definition_digest(definition),
            _by_id={},
        ),
        source,
    )


# ---------------------------------------------------------------------------------------
# A player's own variant: the same format, from untrusted text


UNSUPPORTED = {
    "check-limit": "use rules.check-count = 3",
    "checks": "use rules.check-count = 3",
    "n-check": "use rules.check-count = 3",
    "flying-general": "use rules.flying-general = true (in [rules], not in a piece)",
    "palace": 'use [regions] palace = "d1 e1 f1 ..." and region = "palace" on the piece',
    "mandatory-capture": "use rules.must-capture = true",
    "antichess": 'use rules.must-capture = true and [rules.extinction] result = "win"',
    "atomic": 'use rules.blast = { immune = ["pawn"] }',
    "explosion": 'use rules.blast = { immune = ["pawn"] }',
    "duck": "the Duck of Duck Chess",
    "bughouse": "partner play (Bughouse)",
    "partner": "partner play (Bughouse)",
    "passing": "use rules.pass = true",
    "fog": "hidden information (Fog of War)",
    "hidden": "hidden information (Fog of War)",
    "dice": "dice",
    "pawn-drop-mate": 'use drop-mate = "loss" or "illegal" on the piece',
    "promotion-zone": 'use promotion = { to = [...], zone = "name of a region" } on the piece',
    "nifu": "use drop-one-per-file = true on the piece",
    "points": "use rules.material-points = { pieces = { rook = 13 }, black-bonus = 1.5 }",
    "perpetual": 'use rules.perpetual-check = "loss"',
    "king-of-the-hill": 'use rules.goal-zone = { piece = "king", squares = [...] }',
    "flag": 'use rules.goal-zone = { piece = "king", squares = [...] }',
    "stalemate-value": 'use rules.stalemate = "draw", "win-on-points", "loss", "win" or '
    '"fewer-pieces"',
    "checking": "use rules.no-checks = true",
    "flag-move": "use rules.goal-zone = { ..., reply = true }",
    "gating": 'use [reserve] with style = "in-hand" (S-Chess) or "placed" (Florea)',
    "drops": "use rules.captures-to-hand = true",
    "pieces-in-hand": 'use rules.captures-to-hand = true or [reserve] style = "in-hand" or "drop"',
    "placement": 'use [reserve] style = "drop" with rules.must-drop = true (Sittuyin) or '
    'style = "placed" (Florea)',
    "chess960": "random start positions (Chess960)",
    "random-setup": "random start positions (Chess960)",
    "imitator": "pieces that copy the opponent's move (Imitator)",
    "coordinator": "pieces that capture by position (Ultima)",
    "immobilizer": "pieces that freeze others (Ultima)",
}
"""Mechanics players ask for that Fairy Post does not play, by the key they would use:
the refusal names the mechanism instead of a bare 'unknown key'."""

EXAMPLES: tuple[tuple[str, str], ...] = (
    (r"^id$", 'id = "courier-plus"  (lowercase letters, digits and "-")'),
    (r"^name$", 'name = "Courier Plus"'),
    (r"^description$", 'description = "Courier chess with a Hawk."'),
    (r"^extends$", 'extends = "chess"  (a built-in variant; /variants lists them)'),
    (r"^(files|ranks)$", "files = 10\nranks = 8  (from 1 to 16)"),
    (r"^pieces$", '[pieces]\nking = "K"\nhawk = { letter = "H", betza = "BN" }'),
    (
        r"\.(betza|pawn-moves|once-per-game)$",
        'betza = "WN"  (Wazir + Knight; see docs/variants.md, Betza)',
    ),
    (r"\.letter$", 'letter = "H"  (one or two capital letters; "" for the Pawn)'),
    (r"\.promotion\.to$", 'promotion = { to = ["queen", "hawk"] }'),
    (
        r"\.promotion\.(zone|mandatory|on-capture)$",
        'promotion = { to = ["tokin"], zone = "camp", mandatory = false }  (zone: a region)',
    ),
    (r"\.demotes-to$", 'demotes-to = "pawn"  (captured, it goes to the hand as a Pawn)'),
    (r"drop-region$", 'drop-region = "own-half"  (a region of [regions])'),
    (r"\.drop-one-per-file$", "drop-one-per-file = true  (Shogi's nifu)"),
    (r"\.drop-mate$", 'drop-mate = "loss"  (or "illegal", "legal")'),
    (r"\.promotion", 'promotion = { to = ["queen"], optional-rows = [7], compulsory-rows = [8] }'),
    (
        r"\.(compulsory-rows|optional-rows|no-drop-rows)$",
        "no-drop-rows = [1, 8]  (rows counted from the owner)",
    ),
    (r"\.(double|triple)-step$", 'double-step = "initial"  (or "any", "none")'),
    (r"\.bent", 'bent = [{ first = "F", then = "orthogonal" }]'),
    (
        r"\.(paths|ride-paths)",
        'paths = ["(0,1) (1,2)", "(1,1) (1,2)"]  (offsets, destination last)',
    ),
    (r"\.(royal)$", "royal = true"),
    (r"\.(cannot-capture|cannot-hop-over)$", 'cannot-capture = ["cannon"]  (piece ids)'),
    (r"^pieces\.", 'hawk = { letter = "H", name = "Hawk", betza = "BN" }'),
    (
        r"^setup\.black",
        '[setup.black]\n8 = "R N B K Q B N R"\n7 = "P P P P P P P P"  (ranks from White\'s side, '
        "capital letters)",
    ),
    (
        r"^setup",
        '[setup]\n1 = "R N B Q K B N R"\n2 = "P P P P P P P P"  (a token a file, "." for empty)',
    ),
    (r"^piece-count$", "piece-count = 16  (White's pieces in the setup)"),
    (r"^rules\.en-passant", 'en-passant = { capturers = ["pawn"], victims = ["pawn"] }'),
    (
        r"^rules\.stalemate$",
        'stalemate = "loss"  (or "draw", "win-on-points", "win", "fewer-pieces")',
    ),
    (r"^rules\.blast", 'blast = { immune = ["pawn"] }  (captures explode: Atomic)'),
    (r"^rules\.check-count$", "check-count = 3  (the third check wins; 0 for none)"),
    (r"^rules\.checkmate$", 'checkmate = "win"  (the checkmated side wins; or "loss")'),
    (
        r"^rules\.extinction",
        '[rules.extinction]\npieces = ["all"]  (or piece ids)\nresult = "win"  (or "loss")\n'
        "count = 0",
    ),
    (r"^rules\.goal-zone", 'goal-zone = { piece = "king", squares = ["d4", "e4", "d5", "e5"] }'),
    (r"^rules\.goal$", 'goal = "checkmate"  (or "royal-capture")'),
    (r"^rules\.bare-king$", 'bare-king = "loss"  (or "draw", "win")'),
    (r"^rules\.mate", '[rules.mate]\nforbidden-by = ["knight"]\nseries-needs = ["knight", "rook"]'),
    (
        r"^rules\.counting",
        '[rules.counting]\nstyle = "makruk"\npawns = ["pawn"]\nboard = 64\n'
        'pieces = [{ piece = "rook", count = 2, moves = 8 }]\notherwise = 64',
    ),
    (r"^rules\.(flying-general|pass|bikjang)$", "flying-general = true"),
    (
        r"^rules\.material-points",
        "material-points = { pieces = { chariot = 13, cannon = 7 }, black-bonus = 1.5 }",
    ),
    (r"^rules\.perpetual-check$", 'perpetual-check = "loss"  (or "draw")'),
    (r"^rules\.move-repetition$", 'move-repetition = "loss"  (or "allowed")'),
    (
        r"^rules\.chasing",
        '[rules.chasing]\nchariot = "chariot"\nhorse = "horse"\ncannon = "cannon"\n'
        'elephant = "elephant"\nadvisor = "advisor"\nsoldier = "soldier"',
    ),
    (r"^rules\.(move-rule|repetition)$", "move-rule = 50  (0 for none)\nrepetition = 3"),
    (
        r"^rules\.repetition-result$",
        'repetition-result = "draw"  (or "white-loses", "black-loses", "repeater-loses", '
        '"repeater-wins")',
    ),
    (r"^rules\.(immobility-illegal|drop-promoted)$", "immobility-illegal = true"),
    (
        r"^rules\.insufficient-material$",
        "insufficient-material = false  (chess sets it: K v K, K+B v K, K+N v K are draws)",
    ),
    (r"^rules\.", "captures-to-hand = true"),
    (
        r"^castling",
        '[castling]\nmoves = [{ king = "e1", king-to = "g1", rook = "h1", rook-to = "f1" }]',
    ),
    (r"^reserve", '[reserve]\npieces = ["hawk", "elephant"]\nstyle = "in-hand"'),
    (r"^notation$", 'notation = "wxf"  (or "janggi", "shogi", "algebraic")'),
    (r"^display", '[display]\nintersections = true\nriver = 5\npalaces = ["palace"]'),
    (r"^options", '[options.fast]\ndescription = "..."\nset = { rules = { move-rule = 25 } }'),
)


MINIMAL_EXAMPLE = 'id = "mine"\nname = "Mine"\nextends = "chess"  (docs/variants.md: every key)'


def example_for(key: str) -> str:
    """An example of the right form for `key` (a dotted path such as `pieces.hawk.betza`)."""
    for pattern, example in EXAMPLES:
        if re.search(pattern, key):
            return example
    return MINIMAL_EXAMPLE


_HEADER_RE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_ASSIGN_RE = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def _key_parts(text: str) -> list[str]:
    return [part.strip().strip("\"'") for part in text.split(".")]


def locate_line(text: str, key: str) -> int | None:
    """The line of `text` that defines `key` or its nearest enclosing table (1-based)."""
    wanted = _key_parts(re.sub(r"\[\d+\]", "", key)) if key else []
    found: dict[tuple[str, ...], int] = {}
    table: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if m := _HEADER_RE.match(line):
            table = _key_parts(m.group(1))
            found.setdefault(tuple(table), number)
            continue
        if m := _ASSIGN_RE.match(line):
            path = (*table, *_key_parts(m.group(1)))
            found.setdefault(path, number)
            # Inline tables: `hawk = { letter = "H", betza = "BN" }` defines hawk.betza here.
            for inner in re.findall(r"[{,]\s*([A-Za-z0-9_\-]+)\s*=", line[m.end() :]):
                found.setdefault((*path, inner), number)
    for size in range(len(wanted), 0, -1):
        line_number = found.get(tuple(wanted[:size]))
        if line_number is not None:
            return line_number
    return None


def definition_digest(text: str) -> str:
    """The version of a player's definition: SHA-256 of its exact text, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def decode_definition(data: bytes, source: str) -> str:
    """The text of an uploaded file: bounded in size, UTF-8, no NUL characters."""
    if len(data) > limits.MAX_FILE_BYTES:
        raise VariantError(
            source,
            "",
            f"the file is {len(data):,} bytes; a definition may be at most "
            f"{limits.MAX_FILE_BYTES:,} bytes (Bigorra's takes 3,000)",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise VariantError(
            source, "", f"not UTF-8 text (byte {exc.start + 1}); save the file as UTF-8"
        ) from None
    return text


def load_definition(
    text: str, options: Iterable[str] = (), *, source: str = "your file", new: bool = False
) -> Variant:
    """A player's variant from the text of its TOML file, validated with every static check
    (the sanity run is `rules.sanity.sanity_check`). Errors are `VariantError`s with the key,
    the line and an example; `UnknownVariantError` for an option the file does not declare.
    `new`: a file given now (`/variant define`, `python -m rules check`), whose texts must
    also pass the one rule for players' text (`limits.check_texts`); a definition stored
    before the rule, or a game record's, loads as it was written."""
    return _load_definition(text, frozenset(options), source, new)


@lru_cache(maxsize=128)
def _load_definition(text: str, options: frozenset[str], source: str, new: bool) -> Variant:
    try:
        data = _parse_definition(text, source, new)
        return _with_options(data, source, options, definition=text)
    except VariantError as exc:
        raise in_file(exc, text) from None


def in_file(exc: VariantError, text: str) -> VariantError:
    """`exc`, about a player's file of this `text`, with its line and an example (errors
    in a built-in parent keep their own file and key)."""
    if exc.source.startswith("rules/"):
        return exc
    line = exc.line if exc.line is not None else locate_line(text, exc.key)
    return exc.located(line, example_for(exc.key))


def _parse_definition(text: str, source: str, new: bool = False) -> dict[str, Any]:
    """The data of a player's file merged over the built-in variant it extends."""
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise VariantError(
            source, "", "the file is not UTF-8 text (it holds a lone surrogate character)"
        ) from None
    if size > limits.MAX_FILE_BYTES:
        raise VariantError(
            source, "", f"{size:,} bytes; a definition may be at most {limits.MAX_FILE_BYTES:,}"
        )
    if "\x00" in text:
        raise VariantError(source, "", "the file contains a NUL character; it is not a text file")
    breach = limits.scan_text(text)
    if breach is not None:
        raise VariantError(source, breach.key, breach.reason)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", message)
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", message)
        line = int(m.group(1)) if m else None
        where = f", column {m.group(2)}" if m else ""
        raise VariantError(
            source,
            "",
            f"not valid TOML{where}: {reason[:1].lower()}{reason[1:]}",
            line=line,
            example='key = "text", key = 12, [table], list = ["a", "b"]',
        ) from None
    except (RecursionError, ValueError, MemoryError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
        raise VariantError(source, "", f"cannot be read: {reason}") from None
    breach = limits.check_structure(data)
    if breach is None and new:
        breach = limits.check_texts(data)
    if breach is not None:
        raise VariantError(source, breach.key, breach.reason)
    _check_keys(data, source)
    variant_id = data.get("id")
    if not isinstance(variant_id, str) or not ID_RE.fullmatch(variant_id):
        raise VariantError(
            source, "id", "required: lowercase letters, digits and '-', starting with a letter"
        )
    if len(variant_id) > limits.MAX_ID:
        raise VariantError(source, "id", f"at most {limits.MAX_ID} characters")
    if variant_id in builtin_ids():
        raise VariantError(
            source,
            "id",
            f"{variant_id!r} is a built-in variant; choose another id "
            f'(to start from it, write extends = "{variant_id}")',
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise VariantError(source, "name", "required: the name players see")
    if len(name) > limits.MAX_NAME:
        raise VariantError(source, "name", f"at most {limits.MAX_NAME} characters")
    if data.get("abstract"):
        raise VariantError(source, "abstract", "a player's variant must be playable")
    data.setdefault("description", "")
    parent = data.get("extends")
    if parent is None:
        return data
    if not isinstance(parent, str) or parent not in builtin_ids():
        known = ", ".join(variant_ids())
        raise VariantError(
            source, "extends", f"{parent!r} is not a built-in variant; one of: {known}"
        )
    base, _ = _raw(parent)
    base.pop("abstract", None)
    for key in (
        "options",
        "decisions",
        "sources",
        "inventor",
        "status",
        "piece-count",
        "fairy-stockfish",
    ):
        base.pop(key, None)  # the parent's own notes and options are not the child's
    return deep_merge(base, {k: v for k, v in data.items() if k != "extends"})


def _check_keys(data: dict[str, Any], source: str) -> None:
    """Unknown keys of a player's file, with the mechanism named when we know it and the
    nearest known key otherwise."""
    sections: list[tuple[str, Mapping[str, Any], Iterable[str]]] = [("", data, TOP_KEYS)]
    rules_table = data.get("rules")
    if isinstance(rules_table, dict):
        sections.append(("rules.", rules_table, RULES_KEYS))
    pieces = data.get("pieces")
    if isinstance(pieces, dict):
        for pid, entry in pieces.items():
            if isinstance(entry, dict):
                sections.append((f"pieces.{pid}.", entry, PIECE_KEYS))
    for prefix, table, known in sections:
        for key in table:
            if key in known:
                continue
            normal = key.lower().replace("_", "-")
            if normal in UNSUPPORTED:
                raise VariantError(
                    source,
                    prefix + key,
                    f"Fairy Post does not play {UNSUPPORTED[normal]}"
                    if not UNSUPPORTED[normal].startswith("use ")
                    else f"not a key of this format: {UNSUPPORTED[normal]}",
                )
            close = difflib.get_close_matches(normal, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else "."
            raise VariantError(
                source,
                prefix + key,
                f"unknown key{hint} The keys here are: {', '.join(sorted(known))}",
            )


def _checked_cost(variant: Variant, source: str) -> Variant:
    """A player's variant within the bounds of `rules.limits` (piece types, movement
    text, move-table entries)."""
    if len(variant.pieces) > limits.MAX_PIECE_TYPES:
        raise VariantError(
            source,
            "pieces",
            f"{len(variant.pieces)} piece types; at most {limits.MAX_PIECE_TYPES} "
            "(Bigorra, the largest built-in game, has 34)",
        )
    entries = limits.table_entries(
        ((p.components, p.once_per_game) for p in variant.pieces), variant.geometry.size
    )
    if entries > limits.MAX_TABLE_ENTRIES:
        heaviest = max(
            variant.pieces,
            key=lambda p: (
                limits.entries_per_square(p.components) + limits.entries_per_square(p.once_per_game)
            ),
        )
        raise VariantError(
            source,
            "pieces",
            f"the move tables would hold {entries:,} entries; the bound is "
            f"{limits.MAX_TABLE_ENTRIES:,} (Bigorra, the largest built-in game, needs 903,168). "
            f"The heaviest piece is {heaviest.id}: give it fewer or shorter moves",
        )
    special = limits.table_entries(
        (
            (p.components, p.once_per_game)
            for p in variant.pieces
            if limits.special_attacker(p.components, p.once_per_game)
        ),
        variant.geometry.size,
    )
    if special > limits.MAX_SPECIAL_ENTRIES:
        raise VariantError(
            source,
            "pieces",
            f"the bent, path-riding and lame pieces' move tables would hold {special:,} "
            f"entries; the bound is {limits.MAX_SPECIAL_ENTRIES:,} (Bigorra's four bent riders "
            "need 191,488): their attacks are tested square by square, so use fewer of them "
            "or shorter paths",
        )
    return variant


def variant_with_options(variant: Variant, options: Iterable[str]) -> Variant:
    """The same variant (built-in, or a player's definition) with other options."""
    wanted = frozenset(options)
    if wanted == variant.options:
        return variant
    if variant.definition:
        return load_definition(variant.definition, wanted, source=variant.source_file)
    return load_variant(variant.id, wanted)


def is_definition_path(text: str) -> bool:
    """Whether a command-line variant argument names a TOML file (`mine.toml`,
    `mine.toml+option`) rather than a built-in variant."""
    return text.split("+", 1)[0].strip().lower().endswith(".toml")


def load_variant_argument(text: str) -> Variant:
    """A command-line variant argument: a built-in id or name (options after `+`), or the
    path of a definition file (`mine.toml`, `mine.toml+option`). Only the command lines
    read paths; the bot never does."""
    if not is_definition_path(text):
        variant_id, options = resolve_variant_id(text)
        return load_variant(variant_id, options)
    path_text, *opts = text.split("+")
    path = Path(path_text.strip())
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnknownVariantError(f"cannot read {path}: {exc.strerror or exc}") from None
    source = path.name
    return load_definition(
        decode_definition(data, source),
        tuple(normalize_name(o) for o in opts if o.strip()),
        source=source,
        new=True,
    )


def _req(data: Mapping[str, Any], key: str, kind: type, source: str, prefix: str = "") -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        expected = {int: "a whole number", str: "text in quotes"}.get(kind, kind.__name__)
        found = "missing" if value is None else f"found {value!r}"
        raise VariantError(source, prefix + key, f"required: {expected} ({found})")
    return value


def _build(
    data: dict[str, Any],
    source: str,
    option_defs: tuple[OptionDef, ...],
    options: frozenset[str],
) -> Variant:
    files = _req(data, "files", int, source)
    ranks = _req(data, "ranks", int, source)
    try:
        geometry = Geometry(files, ranks)
    except ValueError as exc:
        key = "files" if not MIN_SIZE <= files <= MAX_SIZE else "ranks"
        raise VariantError(source, key, str(exc)) from None
    status = data.get("status", "documented")
    if status not in STATUSES:
        raise VariantError(source, "status", f"must be one of {', '.join(STATUSES)}")

    regions = build_regions(data.get("regions"), geometry, source)
    display = _build_display(data.get("display"), source, geometry, regions)
    notation = data.get("notation", "algebraic")
    if notation not in NOTATIONS:
        raise VariantError(
            source,
            "notation",
            "must be 'algebraic', 'wxf' (Xiangqi's C2=5, files counted from each player's "
            "right) or 'janggi' (numbered squares, H02-83)",
        )
    if notation != "algebraic" and (files > 9 or ranks > 10):
        raise VariantError(
            source, "notation", f"{notation} notation numbers at most 9 files and 10 ranks"
        )
    pieces = _build_pieces(data, source, geometry, {r.name: r for r in regions})
    by_id = {p.id: p for p in pieces}

    def square(value: Any, key: str) -> int:
        if not isinstance(value, str):
            raise VariantError(source, key, "must be a square name such as 'e1'")
        sq = geometry.parse(value)
        if sq is None:
            raise VariantError(source, key, f"{value!r} is not a square; {geometry.square_hint()}")
        return sq

    setup, black_setup = _build_setup(data, source, geometry, pieces)
    first = _first_side(data, source)
    walls = _build_walls(data.get("setup"), source, geometry, setup, black_setup)
    white_count = len(setup)
    expected = data.get("piece-count")
    if expected is not None and expected != white_count:
        raise VariantError(
            source, "piece-count", f"the setup has {white_count} White pieces, not {expected}"
        )

    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise VariantError(source, "rules", "must be a table")
    for key in rules:
        if key not in RULES_KEYS:
            raise VariantError(source, f"rules.{key}", "unknown key")
    move_rule = rules.get("move-rule", 50)
    if not isinstance(move_rule, int) or move_rule < 0:
        raise VariantError(source, "rules.move-rule", "must be 0 (none) or a number of moves")
    repetition = rules.get("repetition", 3)
    if (
        not isinstance(repetition, int)
        or isinstance(repetition, bool)
        or repetition < 0
        or repetition == 1
    ):
        raise VariantError(source, "rules.repetition", "must be 0 (none), or 2 or more")
    stalemate = rules.get("stalemate", "draw")
    if stalemate not in STALEMATES:
        raise VariantError(
            source,
            "rules.stalemate",
            "must be 'draw', 'win-on-points' (3/5 for the stalemating side), 'loss' "
            "(the side that cannot move loses), 'win' (it wins) or 'fewer-pieces' (the side "
            "with fewer pieces wins, equal numbers draw)",
        )
    goal = rules.get("goal", "checkmate")
    if goal not in ("checkmate", "royal-capture"):
        raise VariantError(source, "rules.goal", "must be 'checkmate' or 'royal-capture'")
    extinction = _build_extinction(rules.get("extinction"), source, by_id)
    royals = [p for p in pieces if p.royal]
    royal_free = wins_without_royal(
        extinction is not None,
        rules.get("goal-zone") not in (None, False),
        stalemate,
        rules.get("material-points") not in (None, False) and stalemate == "draw",
    )
    if not royals and not royal_free:
        raise VariantError(
            source,
            "pieces",
            "no royal piece: the game could never be won. The catalogue's King is royal; "
            "a new royal piece says royal = true (or the game is won by extinction: "
            '[rules.extinction], by a goal-zone, or by having no move: stalemate = "loss")',
        )
    raw_reserve = data.get("reserve")
    waiting = [0, 0]
    if isinstance(raw_reserve, dict) and raw_reserve.get("style") == "drop":
        for color, key in (
            (0, "pieces"),
            (1, "black-pieces" if "black-pieces" in raw_reserve else "pieces"),
        ):
            listed = raw_reserve.get(key, [])
            if isinstance(listed, list):
                waiting[color] = sum(1 for r in listed if r in by_id and by_id[r].royal)
    for side, army, key in ((0, setup, "setup"), (1, black_setup, "setup.black")):
        if army is None:
            army = setup  # Black's army mirrors White's
        royal_in_setup = sum(1 for _, pid in army if by_id[pid].royal) + waiting[side]
        whose = ("White", "Black")[side]
        if goal == "checkmate" and (royal_in_setup > 1 or (royal_in_setup == 0 and not royal_free)):
            raise VariantError(
                source,
                key,
                f"checkmate needs exactly one royal piece a side in the setup; {whose} has "
                f"{royal_in_setup}",
            )
        if goal == "royal-capture" and royal_in_setup == 0:
            raise VariantError(
                source, key, f"no royal piece in {whose}'s setup: nothing to capture"
            )
    flags: dict[str, bool] = {}
    for key in (
        "insufficient-material",
        "captures-to-hand",
        "drop-any-face",
        "demote-to-hand",
        "flying-general",
        "pass",
        "bikjang",
        "immobility-illegal",
        "drop-promoted",
        "must-capture",
        "no-checks",
        "no-drop-checks",
        "must-drop",
    ):
        value = rules.get(key, False)
        if not isinstance(value, bool):
            raise VariantError(source, f"rules.{key}", "must be true or false")
        flags[key] = value

    ep = rules.get("en-passant", {})
    if not isinstance(ep, dict) or set(ep) - {"capturers", "victims"}:
        raise VariantError(source, "rules.en-passant", "a table with capturers and victims")
    ep_sets = []
    for key in ("capturers", "victims"):
        ids = ep.get(key, [])
        if not isinstance(ids, list):
            raise VariantError(source, f"rules.en-passant.{key}", "must be a list of piece ids")
        for pid in ids:
            if pid not in by_id:
                raise VariantError(source, f"rules.en-passant.{key}", f"unknown piece {pid!r}")
        ep_sets.append(frozenset(ids))
    for pid in ep_sets[0]:
        problem = _ep_capturer_problem(by_id[pid].components)
        if problem:
            raise VariantError(source, "rules.en-passant.capturers", f"{pid} {problem}")
    for pid in ep_sets[1]:
        if not any(is_multi_step(c) for c in by_id[pid].components):
            raise VariantError(
                source,
                "rules.en-passant.victims",
                f"{pid} has no double or triple step to be taken after",
            )

    bare_king = rules.get("bare-king", "none")
    if bare_king not in ("none", "loss", "draw", "win"):
        raise VariantError(
            source,
            "rules.bare-king",
            "must be 'loss' (a side left with only its King loses), 'draw' (the game is "
            "drawn as soon as a side has only its King), 'win' (a side left with only its "
            "King wins at once: Losers) or 'none'",
        )
    check_count = rules.get("check-count", 0)
    if (
        not isinstance(check_count, int)
        or isinstance(check_count, bool)
        or not (0 <= check_count <= 99)
    ):
        raise VariantError(
            source,
            "rules.check-count",
            "must be the number of checks that wins (3 for Three-check), or 0 for none",
        )
    checkmate = rules.get("checkmate", "loss")
    if checkmate not in ("loss", "win"):
        raise VariantError(
            source,
            "rules.checkmate",
            "must be 'loss' (the checkmated side loses) or 'win' (it wins: Losers)",
        )
    if (check_count or checkmate != "loss") and goal != "checkmate":
        raise VariantError(source, "rules", "check-count and checkmate need goal = 'checkmate'")
    if bare_king != "none" and goal != "checkmate":
        raise VariantError(source, "rules.bare-king", "needs goal = 'checkmate'")
    counting = _build_counting(rules.get("counting"), source, by_id)
    if (flags["flying-general"] or flags["bikjang"] or flags["pass"]) and goal != "checkmate":
        raise VariantError(
            source, "rules", "flying-general, bikjang and pass need goal = 'checkmate'"
        )
    if flags["flying-general"] and flags["bikjang"]:
        raise VariantError(
            source,
            "rules.bikjang",
            "facing royal pieces are either illegal (flying-general) or bikjang, not both",
        )
    points = _build_points(rules.get("material-points"), source, by_id)
    move_repetition = rules.get("move-repetition", "allowed")
    if move_repetition not in ("allowed", "loss"):
        raise VariantError(
            source,
            "rules.move-repetition",
            "must be 'loss' (a side that plays a move a third time, back and forth, loses) "
            "or 'allowed'",
        )
    chasing = _build_chasing(rules.get("chasing"), source, by_id)
    perpetual = rules.get("perpetual-check", "draw")
    if perpetual not in ("draw", "loss"):
        raise VariantError(
            source,
            "rules.perpetual-check",
            "must be 'loss' (a side that checks on every move of a repetition loses) or 'draw'",
        )
    region_map = {r.name: r for r in regions}
    zone = _build_zone(rules.get("goal-zone"), source, square, geometry, by_id, region_map)
    drop_region = rules.get("drop-region")
    if drop_region is not None:
        region_named(region_map, drop_region, source, "rules.drop-region")
    repetition_result = rules.get("repetition-result", "draw")
    if repetition_result not in REPETITION_RESULTS:
        raise VariantError(
            source, "rules.repetition-result", f"must be one of {', '.join(REPETITION_RESULTS)}"
        )
    if flags["drop-promoted"] and not flags["captures-to-hand"]:
        raise VariantError(source, "rules.drop-promoted", "needs captures-to-hand = true")
    if flags["demote-to-hand"]:
        _check_demotion(pieces, flags["captures-to-hand"], source)

    castling, fast = _build_castling(data, source, square, setup, by_id)
    castling_drops = _castling_drops(data.get("castling"), source, by_id)
    castling_sides = _castling_sides(data.get("castling"), source)
    raw_castling = data.get("castling")
    opposite = raw_castling.get("opposite", False) if isinstance(raw_castling, dict) else False
    if not isinstance(opposite, bool):
        raise VariantError(source, "castling.opposite", "must be true or false")

    reserve_data = data.get("reserve", {})
    if reserve_data is False:
        reserve_data = {}
    if not isinstance(reserve_data, dict) or set(reserve_data) - {
        "pieces",
        "black-pieces",
        "style",
    }:
        raise VariantError(
            source,
            "reserve",
            "a table with the keys 'pieces', (optionally) 'black-pieces' and 'style'",
        )
    lists: list[tuple[str, ...] | None] = []
    for key in ("pieces", "black-pieces"):
        listed = reserve_data.get(key, [] if key == "pieces" else None)
        if listed is None:
            lists.append(None)
            continue
        if not isinstance(listed, list) or not all(isinstance(r, str) for r in listed):
            raise VariantError(source, f"reserve.{key}", "must be a list of piece ids")
        for pid in listed:
            if pid not in by_id:
                raise VariantError(source, f"reserve.{key}", f"unknown piece {pid!r}")
        lists.append(tuple(listed))
    reserve = lists[0] or ()
    reserve_black = lists[1]
    style = reserve_data.get("style", "placed")
    if reserve_black is not None and style != "drop":
        raise VariantError(
            source, "reserve.black-pieces", "Black's own pieces in hand need style = 'drop'"
        )
    for pid in (*reserve, *(reserve_black or ())):
        if by_id[pid].royal and style != "drop":
            raise VariantError(
                source,
                "reserve.pieces",
                f"{pid} is royal; it can wait only in a reserve that is dropped (style = 'drop')",
            )
    if style not in RESERVE_STYLES:
        raise VariantError(
            source,
            "reserve.style",
            "must be 'placed' (Florea: placed behind back-rank pieces before move 1), "
            "'in-hand' (S-Chess: held in hand, entering where a back-rank piece first moves "
            "from, by the player's choice) or 'drop' (Pocket Knight, Sittuyin: held in hand, "
            "dropped on an empty square as a move)",
        )
    if first and reserve and style == "placed":
        raise VariantError(
            source,
            "setup.first",
            "Black moving first does not combine with a reserve placed before move 1 "
            "(White places first)",
        )
    if flags["must-drop"] and not (flags["captures-to-hand"] or style == "drop"):
        raise VariantError(
            source,
            "rules.must-drop",
            "needs pieces to drop: captures-to-hand = true or [reserve] style = 'drop'",
        )
    if style in ("in-hand", "drop") and flags["drop-any-face"]:
        raise VariantError(
            source, "reserve.style", f"{style!r} does not combine with drop-any-face"
        )

    for p in pieces:
        if p.promotion:
            for target in p.promotion.to:
                if target not in by_id:
                    raise VariantError(
                        source,
                        f"pieces.{p.id}.promotion.to",
                        f"unknown piece {target!r}: promotions name pieces of this variant "
                        f"by id ({', '.join(by_id)})",
                    )
                if by_id[target].royal and not p.royal:
                    # A royal piece may promote into another royal form (Forward chess's
                    # King): the side still has one. Any other piece would make a second.
                    raise VariantError(
                        source,
                        f"pieces.{p.id}.promotion.to",
                        f"cannot promote to the royal piece {target!r}: only a royal piece "
                        "may promote into one (the side keeps a single royal piece)",
                    )
        for lost in sorted(p.first_leap_lost_by):
            if lost not in by_id:
                raise VariantError(
                    source,
                    f"pieces.{p.id}.initial-leap.lost-on-check-by",
                    f"unknown piece {lost!r}",
                )
        for ref, key in (
            (p.flip, "flip"),
            (p.succession, "succession"),
            (p.demotes_to, "demotes-to"),
            (p.counts_as, "counts-as"),
        ):
            if ref is not None and ref not in by_id:
                raise VariantError(source, f"pieces.{p.id}.{key}", f"unknown piece {ref!r}")
        for refs, key in (
            (p.cannot_capture, "cannot-capture"),
            (p.cannot_hop_over, "cannot-hop-over"),
        ):
            for ref in refs:
                if ref not in by_id:
                    raise VariantError(source, f"pieces.{p.id}.{key}", f"unknown piece {ref!r}")
        if p.counts_as is not None:
            kind = by_id[p.counts_as]
            if kind.id == p.id or kind.counts_as is not None or kind.royal or p.royal:
                raise VariantError(
                    source,
                    f"pieces.{p.id}.counts-as",
                    "names the piece this non-royal promoted form counts as: another "
                    "non-royal piece that counts as itself",
                )
        if p.demotes_to is not None and (
            p.demotes_to == p.id or (by_id[p.demotes_to].royal and not p.royal)
        ):
            raise VariantError(
                source,
                f"pieces.{p.id}.demotes-to",
                "names the unpromoted piece it returns to hand as: another piece, non-royal "
                "unless this promoted form is royal too",
            )
        if (
            p.letters.startswith("+")
            and any(q.letters == "P" for q in pieces)
            and any(q.is_pawn for q in pieces)
        ):
            raise VariantError(
                source,
                f"pieces.{p.id}.letter",
                "'+' letters cannot be told from the Pawn, written '+' where 'P' is another "
                "piece's letter",
            )
    decisions = data.get("decisions", [])
    if not isinstance(decisions, list) or not all(isinstance(d, str) for d in decisions):
        raise VariantError(source, "decisions", "must be a list of strings")
    sources = data.get("sources", [])
    if not isinstance(sources, list):
        raise VariantError(source, "sources", "must be a list of strings")
    return Variant(
        id=_req(data, "id", str, source),
        name=_req(data, "name", str, source),
        description=_req(data, "description", str, source),
        status=status,
        inventor=str(data.get("inventor", "")),
        sources=tuple(sources),
        geometry=geometry,
        pieces=pieces,
        setup=setup,
        castling=castling,
        fast_castling=fast,
        castling_drops=castling_drops,
        castling_sides=castling_sides,
        castling_opposite=opposite,
        ep_capturers=ep_sets[0],
        ep_victims=ep_sets[1],
        move_rule=move_rule,
        repetition=repetition,
        stalemate=stalemate,
        goal=goal,
        insufficient_material=flags["insufficient-material"],
        captures_to_hand=flags["captures-to-hand"],
        drop_any_face=flags["drop-any-face"],
        reserve=reserve,
        reserve_black=reserve_black,
        reserve_in_hand=style == "in-hand",
        reserve_drops=style == "drop",
        must_drop=flags["must-drop"],
        demote_to_hand=flags["demote-to-hand"],
        bare_king=bare_king == "loss",
        bare_king_draw=bare_king == "draw",
        bare_king_win=bare_king == "win",
        check_count=check_count,
        must_capture=flags["must-capture"],
        no_checks=flags["no-checks"],
        no_drop_checks=flags["no-drop-checks"],
        checkmate=checkmate,
        extinction=extinction,
        blast=_build_blast(rules.get("blast"), source, by_id, goal),
        walls=walls,
        petrify=_build_petrify(rules.get("petrify"), source, by_id),
        mate=_build_mate(rules.get("mate"), source, by_id),
        zone=zone,
        counting=counting,
        regions=regions,
        black_setup=black_setup,
        first=first,
        **_build_fsf(data.get("fairy-stockfish"), source, by_id),
        flying_general=flags["flying-general"],
        passing=flags["pass"],
        bikjang=flags["bikjang"],
        points=points,
        perpetual_check=perpetual,
        move_repetition=move_repetition,
        chasing=chasing,
        notation=notation,
        display=display,
        immobility_illegal=flags["immobility-illegal"],
        drop_promoted=flags["drop-promoted"],
        drop_region=drop_region,
        repetition_result=repetition_result,
        option_defs=option_defs,
        options=options,
        decisions=tuple(decisions),
        source_file=source,
    )


FSF_LETTER_RE = re.compile(r"\+?[a-z]")


def _build_fsf(raw: Any, source: str, by_id: Mapping[str, PieceType]) -> dict[str, Any]:
    """`[fairy-stockfish]`: how Fairy-Stockfish and the variant servers know the game."""
    if raw is None:
        return {}
    key = "fairy-stockfish"
    if not isinstance(raw, dict):
        raise VariantError(source, key, "must be a table with variant, letters and pgn")
    unknown = set(raw) - {"variant", "letters", "pgn", "aliases", "san"}
    if unknown:
        raise VariantError(source, f"{key}.{sorted(unknown)[0]}", "unknown key")
    out: dict[str, Any] = {}
    for field_name, attr in (("variant", "fsf_variant"), ("pgn", "pgn_variant")):
        value = raw.get(field_name)
        if value is not None:
            if not isinstance(value, str) or not value or len(value) > 40:
                raise VariantError(source, f"{key}.{field_name}", "must be a short text")
            out[attr] = value
    for field_name, attr in (("letters", "fsf_letters"), ("san", "fsf_san")):
        table = raw.get(field_name, {})
        if not isinstance(table, dict):
            raise VariantError(
                source, f"{key}.{field_name}", 'a table of piece ids: { horse = "n" }'
            )
        for pid, letter in table.items():
            if pid not in by_id:
                raise VariantError(source, f"{key}.{field_name}.{pid}", f"unknown piece {pid!r}")
            if not isinstance(letter, str) or not FSF_LETTER_RE.fullmatch(letter):
                raise VariantError(
                    source,
                    f"{key}.{field_name}.{pid}",
                    "one lowercase letter, or + and a letter for a promoted piece ('+p')",
                )
        if table:
            out[attr] = dict(table)
    aliases = raw.get("aliases", [])
    if (
        not isinstance(aliases, list)
        or len(aliases) > 8
        or not all(
            isinstance(a, str) and BUILTIN_ID_RE.fullmatch(a) and len(a) <= 40 for a in aliases
        )
    ):
        raise VariantError(
            source, f"{key}.aliases", 'other ids Fairy-Stockfish knows the game by: ["mini"]'
        )
    if aliases:
        out["fsf_aliases"] = tuple(aliases)
    return out


def _build_zone(
    raw: Any,
    source: str,
    square: Any,
    geometry: Geometry,
    by_id: Mapping[str, PieceType],
    regions: Mapping[str, Region],
) -> Zone | None:
    """`goal-zone = { piece = "king", squares = [...] }`: White's squares, Black's mirrored
    unless `black-squares` lists them (an empty list: that side has no goal); or
    `region = "name"`, a region's squares per side. `piece = "any"`: any piece of the side;
    `black-piece`: Black's goal piece when it differs. `count`: how many goal pieces must
    stand there; `full = true`: one is enough once the zone is full. `safe = true`: the
    pieces must stand there unattacked."""
    if raw is None or raw is False:
        return None
    key = "rules.goal-zone"
    if not isinstance(raw, dict) or set(raw) - {
        "piece",
        "black-piece",
        "squares",
        "black-squares",
        "region",
        "safe",
        "reply",
        "hold",
        "count",
        "full",
    }:
        raise VariantError(
            source,
            key,
            "a table with piece, squares (or region), and optionally black-piece, "
            "black-squares, count, full, safe, reply and hold",
        )
    safe = raw.get("safe", False)
    reply = raw.get("reply", False)
    hold = raw.get("hold", False)
    full = raw.get("full", False)
    for name, value in (("safe", safe), ("reply", reply), ("hold", hold), ("full", full)):
        if not isinstance(value, bool):
            raise VariantError(source, f"{key}.{name}", "must be true or false")
    count = raw.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 256:
        raise VariantError(source, f"{key}.count", "the number of goal pieces needed there (1)")
    if safe and reply:
        raise VariantError(source, f"{key}.reply", "a safe zone gives no reply")
    if hold and reply:
        raise VariantError(source, f"{key}.hold", "a zone held until the next move is not replied")
    if (safe or reply or hold) and (count > 1 or full):
        raise VariantError(
            source, f"{key}.count", "several goal pieces go with neither safe, reply nor hold"
        )
    pieces: list[str] = []
    for field_name in ("piece", "black-piece"):
        pid = raw.get(field_name, pieces[0] if pieces else None)
        if pid != ANY_PIECE and (not isinstance(pid, str) or pid not in by_id):
            raise VariantError(
                source,
                f"{key}.{field_name}",
                f'must name a piece of the variant, or "{ANY_PIECE}", not {pid!r}',
            )
        pieces.append(pid)
    if reply and ANY_PIECE in pieces:
        raise VariantError(source, f"{key}.reply", "needs a goal piece, not any piece")
    goal = (pieces[0], pieces[1])
    sides = []
    for field_name in ("squares", "black-squares"):
        names = raw.get(field_name)
        if names is None:
            continue
        if not isinstance(names, list):
            raise VariantError(source, f"{key}.{field_name}", "must list square names")
        sides.append(frozenset(square(n, f"{key}.{field_name}[{i}]") for i, n in enumerate(names)))
    if "region" in raw:
        if sides:
            raise VariantError(source, f"{key}.region", "give either region or squares")
        region = region_named(regions, raw["region"], source, f"{key}.region")
        return Zone(goal, region.squares, safe, reply, hold, count, full)
    if "squares" not in raw:
        raise VariantError(source, f"{key}.squares", "must list White's goal squares")
    white = sides[0]
    black = sides[1] if len(sides) > 1 else frozenset(geometry.mirror(sq) for sq in white)
    if not white and not black:
        raise VariantError(source, f"{key}.squares", "must list square names")
    return Zone(goal, (white, black), safe, reply, hold, count, full)


def _build_blast(
    raw: Any, source: str, by_id: Mapping[str, PieceType], goal: str
) -> frozenset[str] | None:
    """`blast = { immune = ["pawn"] }`: captures explode (Atomic)."""
    if raw is None or raw is False:
        return None
    key = "rules.blast"
    if not isinstance(raw, dict) or set(raw) - {"immune"}:
        raise VariantError(source, key, 'a table: blast = { immune = ["pawn"] }')
    ids = raw.get("immune", [])
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise VariantError(source, f"{key}.immune", 'a list of piece ids: ["pawn"]')
    for pid in ids:
        if pid not in by_id:
            raise VariantError(source, f"{key}.immune", f"unknown piece {pid!r}")
    if goal != "checkmate":
        raise VariantError(source, key, "needs goal = 'checkmate'")
    return frozenset(ids)


def _build_walls(
    table: Any,
    source: str,
    geometry: Geometry,
    setup: tuple[tuple[int, str], ...],
    black_setup: tuple[tuple[int, str], ...] | None,
) -> frozenset[int]:
    """`[setup] walls = ["b1", "g1"]`: wall squares at the start, named as squares (not
    mirrored for Black: a wall belongs to neither side)."""
    raw = table.get("walls") if isinstance(table, dict) else None
    if raw is None:
        return frozenset()
    key = "setup.walls"
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise VariantError(source, key, 'a list of square names: walls = ["b1", "g1"]')
    out: set[int] = set()
    for name in raw:
        sq = geometry.parse(name)
        if sq is None:
            raise VariantError(source, key, f"{name!r} is not a square; {geometry.square_hint()}")
        if sq in out:
            raise VariantError(source, key, f"{name} is listed twice")
        out.add(sq)
    black = black_setup
    if black is None:
        black = tuple((geometry.mirror(sq), pid) for sq, pid in setup)
    taken = sorted(out & {sq for sq, _ in (*setup, *black)})
    if taken:
        where = ", ".join(geometry.name(sq) for sq in taken)
        raise VariantError(source, key, f"a piece of the setup stands on {where}")
    return frozenset(out)


def _build_petrify(raw: Any, source: str, by_id: Mapping[str, PieceType]) -> frozenset[str]:
    """`petrify = ["queen"]`: a capturing piece of these types becomes a wall."""
    if raw is None:
        return frozenset()
    key = "rules.petrify"
    if not isinstance(raw, list) or not all(isinstance(i, str) for i in raw):
        raise VariantError(source, key, 'a list of piece ids: petrify = ["queen", "rook"]')
    for pid in raw:
        if pid not in by_id:
            raise VariantError(source, key, f"unknown piece {pid!r}")
        if by_id[pid].royal:
            raise VariantError(
                source,
                key,
                f"{pid!r} is royal: a royal piece turning into a wall would leave "
                "its side without one",
            )
    return frozenset(raw)


def _build_extinction(raw: Any, source: str, by_id: Mapping[str, PieceType]) -> Extinction | None:
    """`[rules.extinction]`: `pieces` (ids, or `["all"]`), `result` and `count`."""
    if raw is None or raw is False:
        return None
    key = "rules.extinction"
    known = {"pieces", "result", "count", "pseudo-royal", "opponent-count"}
    if not isinstance(raw, dict) or set(raw) - known:
        raise VariantError(
            source, key, 'a table: pieces = ["all"] (or piece ids), result = "loss", count = 0'
        )
    ids = raw.get("pieces")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise VariantError(
            source, f"{key}.pieces", 'a list of piece ids, or ["all"] for all pieces together'
        )
    if ids == ["all"]:
        pieces: frozenset[str] = frozenset()
    else:
        for pid in ids:
            if pid not in by_id:
                raise VariantError(source, f"{key}.pieces", f"unknown piece {pid!r}")
        pieces = frozenset(ids)
    result = raw.get("result", "loss")
    if result not in ("loss", "win"):
        raise VariantError(
            source,
            f"{key}.result",
            "must be 'loss' (the side whose pieces die out loses) or 'win' (it wins)",
        )
    count = raw.get("count", 0)
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 64:
        raise VariantError(
            source, f"{key}.count", "the number of pieces left at which the rule applies (0)"
        )
    pseudo = raw.get("pseudo-royal", False)
    if not isinstance(pseudo, bool):
        raise VariantError(source, f"{key}.pseudo-royal", "must be true or false")
    opponent = raw.get("opponent-count", 0)
    if not isinstance(opponent, int) or isinstance(opponent, bool) or not 0 <= opponent <= 64:
        raise VariantError(
            source,
            f"{key}.opponent-count",
            "the number of pieces the other side must still have for the rule to apply (0)",
        )
    return Extinction(pieces, result, count, pseudo, opponent)


def _build_counting(raw: Any, source: str, by_id: Mapping[str, PieceType]) -> Counting | None:
    """`[rules.counting]`: the style, the pawn types, the board's and pieces' honours."""
    if raw is None or raw is False:
        return None
    key = "rules.counting"
    known = {"style", "pawns", "board", "pieces", "otherwise"}
    if not isinstance(raw, dict):
        raise VariantError(source, key, "a table: style, pawns, board, pieces, otherwise")
    for k in raw:
        if k not in known:
            raise VariantError(
                source, f"{key}.{k}", f"unknown key; the keys: {', '.join(sorted(known))}"
            )
    style = raw.get("style")
    if style not in COUNTING_STYLES:
        raise VariantError(
            source, f"{key}.style", f"must be one of {', '.join(COUNTING_STYLES)}, not {style!r}"
        )
    pawns = raw.get("pawns", [])
    if not isinstance(pawns, list) or not all(isinstance(p, str) and p in by_id for p in pawns):
        raise VariantError(source, f"{key}.pawns", "must list piece ids of the variant")

    def moves(value: Any, at: str, least: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= 1000:
            raise VariantError(source, at, f"must be a number of moves from {least} to 1000")
        return value

    board = moves(raw.get("board", 0), f"{key}.board", 0)
    if style == "asean" and board:
        raise VariantError(source, f"{key}.board", "the asean style has no board's honour")
    table = raw.get("pieces", [])
    if not isinstance(table, list):
        raise VariantError(
            source, f"{key}.pieces", 'a list: [{ piece = "rook", count = 2, moves = 8 }]'
        )
    lines = []
    for i, entry in enumerate(table):
        at = f"{key}.pieces[{i}]"
        if not isinstance(entry, dict) or set(entry) != {"piece", "count", "moves"}:
            raise VariantError(
                source,
                at,
                'needs exactly piece, count and moves: { piece = "rook", count = 2, moves = 8 }',
            )
        if entry["piece"] not in by_id:
            raise VariantError(source, f"{at}.piece", f"unknown piece {entry['piece']!r}")
        lines.append(
            HonourLimit(
                entry["piece"],
                moves(entry["count"], f"{at}.count", 1),
                moves(entry["moves"], f"{at}.moves", 1),
            )
        )
    otherwise = moves(raw.get("otherwise", 0), f"{key}.otherwise", 0)
    return Counting(style, frozenset(pawns), board, tuple(lines), otherwise)


def _build_mate(raw: Any, source: str, by_id: Mapping[str, PieceType]) -> MateRule | None:
    """`[rules.mate]`: `forbidden-by` and `series-needs`, lists of piece ids."""
    if raw is None or raw is False:
        return None
    key = "rules.mate"
    if not isinstance(raw, dict) or not raw or set(raw) - {"forbidden-by", "series-needs"}:
        raise VariantError(
            source,
            key,
            'a table with forbidden-by and series-needs: { forbidden-by = ["knight"], '
            'series-needs = ["rook", "knight"] }',
        )
    lists = []
    for name in ("forbidden-by", "series-needs"):
        ids = raw.get(name, [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise VariantError(source, f"{key}.{name}", "must list piece ids")
        for pid in ids:
            if pid not in by_id:
                raise VariantError(source, f"{key}.{name}", f"unknown piece {pid!r}")
        lists.append(frozenset(ids))
    return MateRule(lists[0], lists[1])


CHASING_ROLES = ("chariot", "horse", "cannon", "elephant", "advisor", "soldier")


def _build_chasing(
    raw: Any, source: str, by_id: Mapping[str, PieceType]
) -> tuple[tuple[str, str], ...]:
    """`[rules.chasing]`: the pieces that play each role of Xiangqi's chasing rule."""
    if raw is None or raw is False:
        return ()
    key = "rules.chasing"
    if not isinstance(raw, dict) or not raw:
        raise VariantError(
            source, key, 'a table of roles and piece ids: { chariot = "chariot", horse = "horse" }'
        )
    out = []
    for role, pid in raw.items():
        if role not in CHASING_ROLES:
            raise VariantError(
                source, f"{key}.{role}", f"unknown role; the roles: {', '.join(CHASING_ROLES)}"
            )
        if not isinstance(pid, str) or pid not in by_id:
            raise VariantError(
                source, f"{key}.{role}", f"must name a piece of the variant, not {pid!r}"
            )
        out.append((role, pid))
    return tuple(out)


def _build_display(
    raw: Any, source: str, geometry: Geometry, regions: tuple[Region, ...]
) -> Display:
    """`[display]`: `intersections = true`, `river = 5`, `palaces = ["palace"]`, `pieces =
    "disc"`, `ink = { white = "#c8102e", black = "#111111" }`."""
    if raw is None or raw is False:
        return Display()
    keys = {"intersections", "river", "palaces", "pieces", "ink", "marks"}
    if not isinstance(raw, dict) or set(raw) - keys:
        raise VariantError(
            source,
            "display",
            "a table with intersections, river, palaces, pieces, ink and marks (all optional)",
        )
    intersections = raw.get("intersections", False)
    if not isinstance(intersections, bool):
        raise VariantError(source, "display.intersections", "must be true or false")
    river = raw.get("river")
    if river is not None and (
        isinstance(river, bool) or not isinstance(river, int) or not 1 <= river < geometry.ranks
    ):
        raise VariantError(
            source,
            "display.river",
            f"the rank the river runs above: a number from 1 to {geometry.ranks - 1}",
        )
    palaces = raw.get("palaces", [])
    if not isinstance(palaces, list) or not all(isinstance(p, str) for p in palaces):
        raise VariantError(source, "display.palaces", 'a list of region names: ["palace"]')
    by_name = {r.name: r for r in regions}
    for i, name in enumerate(palaces):
        region_named(by_name, name, source, f"display.palaces[{i}]")
    shape = raw.get("pieces")
    if shape is not None and shape not in PIECE_SHAPES:
        raise VariantError(
            source, "display.pieces", f"one of {', '.join(PIECE_SHAPES)}, not {shape!r}"
        )
    ink = raw.get("ink")
    if ink is not None:
        if (
            not isinstance(ink, dict)
            or set(ink) != {"white", "black"}
            or not all(isinstance(c, str) and _INK_RE.fullmatch(c) for c in ink.values())
        ):
            raise VariantError(
                source,
                "display.ink",
                'colours of both sides: { white = "#c8102e", black = "#111111" }',
            )
        ink = (ink["white"], ink["black"])
    marks: tuple[int, ...] = ()
    if "marks" in raw:
        if not isinstance(raw["marks"], str):
            raise VariantError(source, "display.marks", 'squares of White\'s side: "b3 h3 a4"')
        try:
            white = parse_squares(raw["marks"], geometry)
        except ValueError as exc:
            raise VariantError(source, "display.marks", str(exc)) from None
        files, ranks = geometry.files, geometry.ranks
        mirrored = {(ranks - 1 - sq // files) * files + sq % files for sq in white}
        marks = tuple(sorted(white | mirrored))
    return Display(intersections, river, tuple(palaces), shape, ink, marks)


def _build_points(raw: Any, source: str, by_id: Mapping[str, PieceType]) -> Points | None:
    """`material-points = { pieces = { chariot = 13, ... }, black-bonus = 1.5 }`: pieces
    not listed count 0 (none listed: the bonus alone decides, Fairy-Stockfish's draw odds)."""
    if raw is None or raw is False:
        return None
    key = "rules.material-points"
    if not isinstance(raw, dict) or set(raw) - {"pieces", "black-bonus"}:
        raise VariantError(source, key, "a table with pieces and (optionally) black-bonus")
    table = raw.get("pieces")
    if not isinstance(table, dict):
        raise VariantError(source, f"{key}.pieces", "must give points by piece id")
    values = []
    for pid, value in table.items():
        if pid not in by_id:
            raise VariantError(source, f"{key}.pieces", f"unknown piece {pid!r}")
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise VariantError(source, f"{key}.pieces.{pid}", "must be a number of points")
        values.append((pid, float(value)))
    bonus = raw.get("black-bonus", 0)
    if isinstance(bonus, bool) or not isinstance(bonus, int | float):
        raise VariantError(source, f"{key}.black-bonus", "must be a number (1.5 in Janggi)")
    return Points(tuple(values), float(bonus))


def _check_demotion(pieces: tuple[PieceType, ...], captures_to_hand: bool, source: str) -> None:
    """With demote-to-hand, each promoted type must come from one type only, so that a
    captured one returns to hand as a well-defined piece."""
    if not captures_to_hand:
        raise VariantError(source, "rules.demote-to-hand", "needs captures-to-hand = true")
    sources: dict[str, str] = {}
    for p in pieces:
        for target in p.promotion.to if p.promotion else ():
            if sources.setdefault(target, p.id) != p.id:
                raise VariantError(
                    source,
                    "rules.demote-to-hand",
                    f"both {sources[target]} and {p.id} promote to {target}: a captured "
                    f"{target} could not tell which it was",
                )


def _ep_capturer_problem(components: tuple[Component, ...]) -> str:
    """Why a piece cannot take en passant ("" when it can). It takes with its diagonal
    forward capture (`fcF`), which must be a capture only: a piece that may also step there
    without taking (a King's `F`) would have two moves onto the same empty square, and
    Fairy-Stockfish (0.0.90) takes en passant only where a piece captures but cannot move."""
    forward = {(1, 1), (-1, 1)}
    takes = any(c.capture and c.kind is Kind.LEAP and forward <= c.vectors for c in components)
    if not takes:
        return "has no diagonal forward capture (fcF) to take en passant with"
    steps = any(
        c.move and c.kind in (Kind.LEAP, Kind.LAME, Kind.RIDE) and forward & c.vectors
        for c in components
    )
    if steps:
        return (
            "also moves diagonally forward without capturing, so it cannot take en passant "
            "(Fairy-Stockfish's rule: en passant only where a piece captures but cannot move)"
        )
    return ""


def _rows(value: Any, source: str, key: str, ranks: int) -> frozenset[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise VariantError(source, key, "must be a list of row numbers")
    for v in value:
        if not 1 <= v <= ranks:
            raise VariantError(source, key, f"row {v} is not between 1 and {ranks}")
    return frozenset(value)


def _step_rows(
    value: Any, source: str, key: str, ranks: int, name: str = "double"
) -> list[Component]:
    """`double-step-rows` (`triple-step-rows`): the rows (from the owner) a Pawn's two-square
    (three-square) step starts from, the same for both sides (`[2, 3]`) or per side
    (`{ white = [2], black = [] }`: on Minihouse's six ranks Fairy-Stockfish's seventh-rank
    double step is off Black's board)."""
    where = f"{key}.{name}-step-rows"
    if isinstance(value, dict):
        unknown = set(value) - {"white", "black"}
        if unknown or len(value) != 2:
            raise VariantError(source, where, "give both `white` and `black` (lists of rows)")
        per_side = [_rows(value[s], source, f"{where}.{s}", ranks) for s in ("white", "black")]
        if not (per_side[0] or per_side[1]):
            raise VariantError(
                source, where, f'no rows for either side: write {name}-step = "none"'
            )
    else:
        rows = _rows(value, source, where, ranks)
        if not rows:
            raise VariantError(source, where, f'no rows: write {name}-step = "none"')
        per_side = [rows, rows]
    groups = (
        [((0, 1), per_side[0])]
        if per_side[0] == per_side[1]
        else [((c,), per_side[c]) for c in (0, 1) if per_side[c]]
    )
    betza = "fmnD" if name == "double" else "fmnH"
    out: list[Component] = []
    for colors, rows in groups:
        out.extend(
            dataclasses.replace(c, rows=frozenset(r - 1 for r in rows), sides=frozenset(colors))
            for c in parse_betza(betza, pawnlike=True)
        )
    return out


def _multi_steps(merged: Mapping[str, Any], source: str, key: str, ranks: int) -> list[Component]:
    """A Pawn's double and triple steps: `double-step` and `triple-step` ("initial": the
    first move only, "any": from any square, "none"), or the rows they start from
    (`double-step-rows`, `triple-step-rows`: Wildebeest's Pawns triple-step from the second
    row and double-step from the second and third)."""
    out: list[Component] = []
    for name, betza in (("double", "fmnD"), ("triple", "fmnH")):
        kind = merged.get(f"{name}-step", "none")
        if kind not in ("none", "initial", "any"):
            raise VariantError(source, f"{key}.{name}-step", "must be none, initial or any")
        if kind != "none":
            out.extend(parse_betza(("i" if kind == "initial" else "") + betza, pawnlike=True))
        if f"{name}-step-rows" in merged:
            if kind != "none":
                raise VariantError(
                    source,
                    f"{key}.{name}-step-rows",
                    f'replaces {name}-step: set it to "none"',
                )
            out.extend(_step_rows(merged[f"{name}-step-rows"], source, key, ranks, name))
    return out


def _build_pieces(
    data: dict[str, Any], source: str, geometry: Geometry, regions: Mapping[str, Region]
) -> tuple[PieceType, ...]:
    table = data.get("pieces")
    if not isinstance(table, dict) or not table:
        raise VariantError(source, "pieces", "required: a table of piece ids and their letters")
    cat = catalogue()
    out: list[PieceType] = []
    letters_seen: dict[str, str] = {}
    for pid, raw in table.items():
        key = f"pieces.{pid}"
        if raw is False:
            continue  # removed by a child or an option
        entry: dict[str, Any] = {"letter": raw} if isinstance(raw, str) else raw
        if not isinstance(entry, dict):
            raise VariantError(source, key, "must be the piece's letters or a table")
        for k in entry:
            if k not in PIECE_KEYS:
                raise VariantError(source, f"{key}.{k}", "unknown key")
        base = cat.get(pid)
        defines_movement = any(k in entry for k in MOVEMENT_KEYS)
        never_moves = entry.get("never-moves", False)
        if not isinstance(never_moves, bool):
            raise VariantError(source, f"{key}.never-moves", "must be true or false")
        if never_moves and defines_movement:
            raise VariantError(
                source, f"{key}.never-moves", "a piece that never moves is given no movement"
            )
        defines_movement = defines_movement or never_moves
        if base is None and not defines_movement:
            raise VariantError(
                source, key, f"unknown piece {pid!r}: not in the catalogue and no movement given"
            )
        merged: dict[str, Any] = {}
        if base is not None and not defines_movement:
            merged.update(base)
        elif base is not None:
            merged.update({k: v for k, v in base.items() if k not in MOVEMENT_KEYS})
        merged.update(entry)
        letters = merged.get("letter")
        if not isinstance(letters, str) or (letters and not LETTERS_RE.fullmatch(letters)):
            raise VariantError(
                source, f"{key}.letter", "one or two uppercase letters, or '' for the Pawn"
            )
        if letters in letters_seen:
            raise VariantError(
                source,
                f"{key}.letter",
                f"{letters or 'no letter'!r} is already the letter of {letters_seen[letters]}",
            )
        letters_seen[letters] = pid
        name = merged.get("name", pid.replace("-", " ").title() if base is None else None)
        if not isinstance(name, str) or not name:
            raise VariantError(source, f"{key}.name", "every piece needs a name")
        if len(name) > limits.MAX_NAME:
            raise VariantError(source, f"{key}.name", f"at most {limits.MAX_NAME} characters")
        raw_aliases = merged.get("aliases", [])
        if not isinstance(raw_aliases, list) or not all(isinstance(a, str) for a in raw_aliases):
            raise VariantError(source, f"{key}.aliases", "must be a list of names")
        aliases = list(raw_aliases)
        for ref_key in ("flip", "family", "succession", "demotes-to", "counts-as"):
            if ref_key in merged and not isinstance(merged[ref_key], str):
                raise VariantError(source, f"{key}.{ref_key}", "must be a piece id (text)")
        if base is not None and name != base["name"]:
            aliases.insert(0, base["name"])
        comps = list(components_from_entry(merged, source, key))
        comps.extend(_multi_steps(merged, source, key, geometry.ranks))
        promotion = _build_promotion(
            merged.get("promotion"), source, f"{key}.promotion", geometry, regions
        )
        once: tuple[Component, ...] = ()
        if "once-per-game" in merged:
            try:
                once = parse_betza(str(merged["once-per-game"]))
            except BetzaError as exc:
                raise VariantError(source, f"{key}.once-per-game", str(exc)) from None
        leap, first_leaps, lost_by = _initial_leap(merged.get("initial-leap"), source, key)
        in_check = merged.get("in-check")
        if in_check not in (None, "capture-checker"):
            raise VariantError(
                source,
                f"{key}.in-check",
                "the only value is 'capture-checker' (in check, the piece may only take the "
                "piece that gives it: Makpong)",
            )
        royal = merged.get("royal", False)
        if not isinstance(royal, bool):
            raise VariantError(source, f"{key}.royal", "must be true or false")
        if (once or leap or in_check) and not royal:
            raise VariantError(
                source, key, "only a royal piece has once-per-game or initial leaps, or in-check"
            )
        _check_expressible(comps, once, source, key)
        region = merged.get("region")
        if region is not None:
            region_named(regions, region, source, f"{key}.region")
        region_moves = _build_region_moves(merged.get("region-moves"), regions, source, key)
        restrictions = {}
        for rkey in ("cannot-capture", "cannot-hop-over"):
            ids = merged.get(rkey, [])
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise VariantError(source, f"{key}.{rkey}", 'a list of piece ids: ["cannon"]')
            restrictions[rkey] = tuple(ids)
        drop_region = merged.get("drop-region")
        if drop_region is not None:
            region_named(regions, drop_region, source, f"{key}.drop-region")
        one_per_file = merged.get("drop-one-per-file", False)
        if not isinstance(one_per_file, bool):
            raise VariantError(source, f"{key}.drop-one-per-file", "must be true or false")
        other_colour = merged.get("drop-other-colour", False)
        if not isinstance(other_colour, bool):
            raise VariantError(source, f"{key}.drop-other-colour", "must be true or false")
        drop_mate = merged.get("drop-mate", "legal")
        if drop_mate not in DROP_MATES:
            raise VariantError(
                source,
                f"{key}.drop-mate",
                "must be 'legal', 'loss' (a mate given by dropping this piece loses) or "
                "'illegal' (such a drop may not be made)",
            )
        out.append(
            PieceType(
                id=pid,
                name=name,
                letters=letters,
                aliases=tuple(dict.fromkeys(a for a in aliases if a != name)),
                components=tuple(comps),
                royal=royal,
                promotion=promotion,
                flip=merged.get("flip"),
                family=merged.get("family"),
                initial_leap=leap,
                first_leaps=first_leaps,
                first_leap_lost_by=lost_by,
                capture_checker_only=in_check is not None,
                once_per_game=once,
                succession=merged.get("succession"),
                no_drop_rows=_rows(
                    merged.get("no-drop-rows", []), source, f"{key}.no-drop-rows", geometry.ranks
                ),
                region=region,
                region_moves=region_moves,
                cannot_capture=restrictions["cannot-capture"],
                cannot_hop_over=restrictions["cannot-hop-over"],
                demotes_to=merged.get("demotes-to"),
                counts_as=merged.get("counts-as"),
                drop_region=drop_region,
                drop_one_per_file=one_per_file,
                drop_other_colour=other_colour,
                drop_mate=drop_mate,
                glyph=_glyph(merged.get("glyph"), source, f"{key}.glyph"),
            )
        )
    return tuple(out)


def _initial_leap(
    raw: Any, source: str, key: str
) -> tuple[str | None, tuple[Component, ...], frozenset[str]]:
    """`initial-leap = "metamachy"`, or a table `{ betza = "mfsN", lost-on-check-by = [...] }`:
    the leaps an unmoved royal piece may make while not in check, to empty squares."""
    key = f"{key}.initial-leap"
    if raw is None or raw == "metamachy":
        return raw, (), frozenset()
    if not isinstance(raw, dict) or "betza" not in raw or set(raw) - {"betza", "lost-on-check-by"}:
        raise VariantError(
            source,
            key,
            '\'metamachy\', or a table { betza = "mfsN", lost-on-check-by = ["rook"] } of '
            "leaps the unmoved King may make when not in check",
        )
    try:
        comps = parse_betza(str(raw["betza"]))
    except BetzaError as exc:
        raise VariantError(source, f"{key}.betza", str(exc)) from None
    for c in comps:
        if c.kind is not Kind.LEAP or c.capture or c.initial:
            raise VariantError(
                source,
                f"{key}.betza",
                f"{c.source!r}: a first leap is a plain leap that never captures (mfsN, mD)",
            )
    lost = raw.get("lost-on-check-by", [])
    if not isinstance(lost, list) or not all(isinstance(x, str) for x in lost):
        raise VariantError(source, f"{key}.lost-on-check-by", "must list piece ids")
    return "moves", tuple(comps), frozenset(lost)


MAX_GLYPH = 2
"""Characters on a traditional piece (Shogi's promoted Lance may be written 成香)."""


def _glyph(raw: Any, source: str, key: str) -> tuple[str, str] | None:
    """`glyph = "歩"`, or `{ white = "玉", black = "王" }` when the sides differ."""
    if raw is None:
        return None
    if isinstance(raw, Mapping) and set(raw) == {"white", "black"}:
        white, black = raw["white"], raw["black"]
    else:
        white = black = raw
    for value in (white, black):
        if not isinstance(value, str) or not 1 <= len(value) <= MAX_GLYPH or value != value.strip():
            raise VariantError(
                source,
                key,
                f'one or {MAX_GLYPH} characters, or {{ white = "玉", black = "王" }}',
            )
    return white, black


def _build_region_moves(
    raw: Any, regions: Mapping[str, Region], source: str, key: str
) -> tuple[RegionMoves, ...]:
    """`region-moves = [{ region = "across-river", betza = "sW" }]`: each entry names a
    region and gives movement with the usual keys (betza, bent, paths, ...)."""
    if raw is None:
        return ()
    key = f"{key}.region-moves"
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        raise VariantError(source, key, 'a list of tables: [{ region = "palace", betza = "F" }]')
    out = []
    for i, entry in enumerate(raw):
        at = f"{key}[{i}]"
        unknown = set(entry) - {"region", *MOVEMENT_KEYS}
        if unknown:
            raise VariantError(source, f"{at}.{sorted(unknown)[0]}", "unknown key")
        region_named(regions, entry.get("region"), source, f"{at}.region")
        if not any(k in entry for k in MOVEMENT_KEYS):
            raise VariantError(source, at, "gives no movement (betza = ...)")
        comps = components_from_entry(entry, source, at)
        for c in comps:
            if c.initial:
                raise VariantError(source, at, f"{c.source!r}: 'i' moves are not region moves")
        out.append(RegionMoves(entry["region"], tuple(comps)))
    return tuple(out)


def _check_expressible(
    comps: list[Component], once: tuple[Component, ...], source: str, key: str
) -> None:
    """Movement the engine cannot compile, refused by name before any game meets it."""
    leaps = (Kind.LEAP, Kind.LAME, Kind.PATHS)
    for c in comps:
        if c.initial and c.kind not in leaps:
            raise VariantError(
                source,
                f"{key}.betza",
                f"{c.source!r}: first-move-only riders are not supported; 'i' applies to "
                "leaps and lame leaps (ifmnD)",
            )
    for c in once:
        if c.kind not in leaps:
            raise VariantError(
                source,
                f"{key}.once-per-game",
                f"{c.source!r}: a once-per-game move must be a leap (N, (1,3)), not a rider",
            )


def _build_promotion(
    raw: Any, source: str, key: str, geometry: Geometry, regions: Mapping[str, Region]
) -> Promotion | None:
    if raw is None or raw is False:
        return None
    if not isinstance(raw, dict):
        raise VariantError(source, key, "must be a table with 'to'")
    for k in raw:
        if k not in PROMOTION_KEYS:
            raise VariantError(source, f"{key}.{k}", "unknown key")
    to = raw.get("to")
    if not isinstance(to, list) or not all(isinstance(t, str) for t in to):
        raise VariantError(source, f"{key}.to", "must list piece ids")
    if not to and (raw.get("zone") is not None or raw.get("in-place") or "optional-rows" in raw):
        raise VariantError(
            source,
            f"{key}.to",
            "an empty list only keeps the piece off its compulsory rows: no zone, optional "
            "rows or in-place promotion beside it",
        )
    zone = raw.get("zone")
    if zone is not None:
        region_named(regions, zone, source, f"{key}.zone")
    in_place = raw.get("in-place", False)
    if not isinstance(in_place, bool):
        raise VariantError(source, f"{key}.in-place", "must be true or false")
    if in_place:
        for k in ("compulsory-rows", "optional-rows", "mandatory", "on-capture", "pawn-moves-only"):
            if k in raw:
                raise VariantError(
                    source,
                    f"{key}.{k}",
                    "an in-place promotion is a move of its own: it has no rows (zone = "
                    "the region where the piece may promote)",
                )
    compulsory = _rows(
        raw.get("compulsory-rows", [] if zone is not None or in_place else [geometry.ranks]),
        source,
        f"{key}.compulsory-rows",
        geometry.ranks,
    )
    optional = _rows(raw.get("optional-rows", []), source, f"{key}.optional-rows", geometry.ranks)
    both = sorted(compulsory & optional)
    if both:
        rows = ", ".join(map(str, both))
        if "compulsory-rows" in raw:
            reason = f"row {rows} is in compulsory-rows too; a row cannot be both"
        else:
            reason = (
                f"row {rows} is compulsory already: compulsory-rows defaults to the last "
                f"row, [{geometry.ranks}]; to make it optional write compulsory-rows = [] "
                "(or the rows where promotion is compulsory) beside optional-rows"
            )
        raise VariantError(source, f"{key}.optional-rows", reason)
    limit = raw.get("limit", "none")
    limit_ok = isinstance(limit, int) and not isinstance(limit, bool) and 1 <= limit <= 64
    if limit not in ("none", "start-count") and not limit_ok:
        raise VariantError(
            source,
            f"{key}.limit",
            "must be 'none', 'start-count' or a number from 1 to 64 (at most that many of "
            "the new piece on the board)",
        )
    flags = []
    for name in ("pawn-moves-only", "mandatory", "on-capture", "anywhere-if-last", "peaceful"):
        value = raw.get(name, False)
        if not isinstance(value, bool):
            raise VariantError(source, f"{key}.{name}", "must be true or false")
        flags.append(value)
    pawn_only, mandatory, on_capture, anywhere, peaceful = flags
    if (anywhere or peaceful) and not in_place:
        raise VariantError(
            source,
            f"{key}.{'anywhere-if-last' if anywhere else 'peaceful'}",
            "applies to an in-place promotion: give in-place = true too",
        )
    if (mandatory or on_capture) and zone is None:
        raise VariantError(
            source,
            f"{key}.{'mandatory' if mandatory else 'on-capture'}",
            'applies to a promotion zone: give zone = "name of a region" too',
        )
    return Promotion(
        tuple(to),
        compulsory,
        optional,
        limit == "start-count",
        pawn_only,
        zone=zone,
        mandatory=mandatory,
        on_capture=on_capture,
        in_place=in_place,
        limit_count=limit if limit_ok else 0,
        anywhere_if_last=anywhere,
        peaceful=peaceful,
    )


def _build_setup(
    data: dict[str, Any], source: str, geometry: Geometry, pieces: tuple[PieceType, ...]
) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...] | None]:
    """White's army from `[setup]` (ranks 1, 2, ...) and Black's from `[setup.black]` when
    given (ranks numbered from White's side too, files from a); without it Black's army is
    the mirror image of White's."""
    table = data.get("setup")
    if not isinstance(table, dict) or not table:
        raise VariantError(source, "setup", "required: White's pieces rank by rank")
    pawn_symbol = "+" if any(p.letters == "P" for p in pieces) else "P"
    by_token = {p.letters: p.id for p in pieces if p.letters}
    pawn = next((p for p in pieces if p.is_pawn), None)
    if pawn is not None:
        by_token[pawn_symbol] = pawn.id

    def army(rows: Mapping[str, Any], prefix: str) -> tuple[tuple[int, str], ...]:
        out: list[tuple[int, str]] = []
        for rank_key, row in rows.items():
            key = f"{prefix}.{rank_key}"
            if prefix == "setup" and rank_key in ("black", "first", "walls"):
                continue
            if (
                not re.fullmatch(r"[0-9]{1,2}", rank_key)
                or not 1 <= int(rank_key) <= geometry.ranks
            ):
                hint = " (Black's army is the table [setup.black])" if prefix == "setup" else ""
                raise VariantError(source, key, f"ranks are numbered 1 to {geometry.ranks}{hint}")
            if not isinstance(row, str):
                raise VariantError(source, key, "must be a string of piece letters")
            tokens = row.split()
            if not tokens:
                continue  # an emptied rank (a child or an option removing a parent's row)
            if len(tokens) != geometry.files:
                raise VariantError(
                    source, key, f"has {len(tokens)} squares; the board has {geometry.files} files"
                )
            rank = int(rank_key) - 1
            for file, token in enumerate(tokens):
                if token == ".":
                    continue
                pid = by_token.get(token)
                if pid is None:
                    letters = ", ".join(sorted(by_token))
                    capitals = (
                        f"; Black's pieces are written in capitals too: {token.upper()}"
                        if token != token.upper() and token.upper() in by_token
                        else ""
                    )
                    raise VariantError(
                        source,
                        key,
                        f"{token!r} is not a piece letter of this variant (its letters: "
                        f"{letters}; '.' for an empty square{capitals})",
                    )
                out.append((geometry.index(file, rank), pid))
        return tuple(sorted(out))

    white = army(table, "setup")
    black_rows = table.get("black")
    if black_rows is None or black_rows is False:
        mirrored = {geometry.mirror(sq) for sq, _ in white}
        if mirrored & {sq for sq, _ in white}:
            raise VariantError(
                source,
                "setup",
                "White's array reaches the ranks of Black's mirror (give Black's army as "
                "[setup.black] if it is not the mirror image)",
            )
        return white, None
    if not isinstance(black_rows, dict):
        raise VariantError(source, "setup.black", "must be a table of ranks, like [setup]")
    black = army(black_rows, "setup.black")
    if not black:
        raise VariantError(source, "setup.black", "Black has no pieces")
    both = {sq for sq, _ in white} & {sq for sq, _ in black}
    if both:
        where = ", ".join(geometry.name(sq) for sq in sorted(both))
        raise VariantError(source, "setup.black", f"White and Black both stand on {where}")
    return white, black


def _first_side(data: Mapping[str, Any], source: str) -> int:
    """`[setup] first`: the side that makes the first move, 0 (White, the default) or 1."""
    table = data.get("setup")
    raw = table.get("first", "white") if isinstance(table, dict) else "white"
    if raw not in ("white", "black"):
        raise VariantError(source, "setup.first", 'the side that moves first: "white" or "black"')
    return 0 if raw == "white" else 1


def _castling_sides(raw: Any, source: str) -> tuple[int, ...]:
    """`[castling] sides = ["white"]`: only those sides castle (default both)."""
    if not isinstance(raw, dict) or "sides" not in raw:
        return (0, 1)
    sides = raw["sides"]
    names = ("white", "black")
    if not isinstance(sides, list) or not sides or any(s not in names for s in sides):
        raise VariantError(
            source, "castling.sides", 'must list "white", "black" or both: ["white"]'
        )
    return tuple(c for c, name in enumerate(names) if name in sides)


def _castling_drops(raw: Any, source: str, by_id: Mapping[str, PieceType]) -> tuple[str, ...]:
    """`[castling] dropped = true` (Placement): the royal piece and the `rook-piece`
    (default `rook`) may castle once dropped on their castling squares."""
    if not isinstance(raw, dict) or not raw.get("dropped", False):
        return ()
    if raw["dropped"] is not True:
        raise VariantError(source, "castling.dropped", "must be true or false")
    royals = [p.id for p in by_id.values() if p.royal]
    if len(royals) != 1:
        raise VariantError(source, "castling.dropped", "needs exactly one royal piece")
    rook = raw.get("rook-piece", "rook")
    if not isinstance(rook, str) or rook not in by_id or rook == royals[0]:
        raise VariantError(
            source, "castling.rook-piece", f"must name the castling piece, not {rook!r}"
        )
    return (royals[0], rook)


def _build_castling(
    data: dict[str, Any],
    source: str,
    square: Any,
    setup: tuple[tuple[int, str], ...],
    by_id: dict[str, PieceType],
) -> tuple[tuple[StandardCastling, ...], FastCastling | None]:
    raw = data.get("castling")
    if raw is None or raw is False:  # `castling = false` removes a parent's castling
        return (), None
    if not isinstance(raw, dict):
        raise VariantError(source, "castling", "must be a table")
    occupant = dict(setup)
    style = raw.get("style", "standard")
    if style == "standard":
        known = {"style", "moves", "dropped", "rook-piece", "sides", "opposite"}
        if set(raw) - known:
            raise VariantError(source, f"castling.{sorted(set(raw) - known)[0]}", "unknown key")
        moves = raw.get("moves")
        if not isinstance(moves, list) or not moves:
            raise VariantError(source, "castling.moves", "must list the castling moves")
        out = []
        for i, mv in enumerate(moves):
            key = f"castling.moves[{i}]"
            if not isinstance(mv, dict) or set(mv) - {"wins"} != {
                "king",
                "king-to",
                "rook",
                "rook-to",
            }:
                raise VariantError(
                    source, key, "needs exactly king, king-to, rook, rook-to (and maybe wins)"
                )
            wins = mv.get("wins", [])
            if not isinstance(wins, list) or not set(wins) <= {"white", "black"}:
                raise VariantError(
                    source, f"{key}.wins", 'the sides it wins for: ["white"], ["black"] or both'
                )
            c = StandardCastling(
                square(mv["king"], f"{key}.king"),
                square(mv["king-to"], f"{key}.king-to"),
                square(mv["rook"], f"{key}.rook"),
                square(mv["rook-to"], f"{key}.rook-to"),
                frozenset(("white", "black").index(w) for w in wins),
            )
            king = occupant.get(c.king_from)
            # White without a royal piece (Horde): the castling is Black's alone.
            blacks_only = raw.get("sides") == ["black"] or (
                not any(by_id[pid].royal for pid in occupant.values())
                and "black" in data.get("setup", {})
            )
            plain = not any(p.royal for p in by_id.values())  # Giveaway: a plain King castles
            # Placement: the King is dropped onto its castling square later.
            dropped = raw.get("dropped") is True and king is None
            if not (blacks_only or dropped) and (king is None or not (by_id[king].royal or plain)):
                raise VariantError(
                    source,
                    f"{key}.king",
                    "no royal piece stands there at the start (a King dropped there from a "
                    "reserve: dropped = true)",
                )
            if not (blacks_only or dropped) and occupant.get(c.rook_from) is None:
                raise VariantError(source, f"{key}.rook", "no piece stands there at the start")
            rank = {sq // data["files"] for sq in (c.king_from, c.king_to, c.rook_from, c.rook_to)}
            if len(rank) != 1:
                raise VariantError(source, key, "castling happens along one rank")
            out.append(c)
        return tuple(out), None
    if style == "fast":
        if set(raw) - {"style", "king", "rooks"}:
            raise VariantError(source, "castling", "fast castling takes king and rooks")
        king_sq = square(raw.get("king"), "castling.king")
        rooks = raw.get("rooks")
        if not isinstance(rooks, list) or not rooks:
            raise VariantError(source, "castling.rooks", "must list the Rooks' squares")
        rook_sqs = tuple(square(r, f"castling.rooks[{i}]") for i, r in enumerate(rooks))
        return (), FastCastling(king_sq, rook_sqs)
    raise VariantError(source, "castling.style", "must be 'standard' or 'fast'")
