"""Plain values the service hands to the cogs (and to tests): nothing from discord.py."""

from __future__ import annotations

from dataclasses import dataclass

from rules.moves import Move
from rules.position import Position
from rules.variant import Variant
from storage.models import Challenge, DrawOffer, Game, TakebackRequest


@dataclass(frozen=True, slots=True)
class UserRef:
    """Who is acting, as the cog saw them."""

    id: int
    name: str
    bot: bool = False


@dataclass(frozen=True, slots=True)
class TournamentTag:
    """A tournament game's place: which tournament, which round and board."""

    tournament_id: int
    name: str
    round: int
    board: int


@dataclass(frozen=True, slots=True)
class Picture:
    png: bytes
    width: int
    height: int
    filename: str = "board.png"
    description: str = ""  # alt text: the picture in words (bot/service/describe.py)


@dataclass(frozen=True, slots=True)
class Animation:
    """An animated replay of a whole game (GIF: Discord animates it inline everywhere)."""

    data: bytes
    frames: int
    plies: int
    width: int
    height: int
    filename: str = "replay.gif"
    description: str = ""  # alt text (`describe.describe_replay`)


@dataclass(frozen=True, slots=True)
class Scene:
    """What a picture shows: a private copy of the position and the marks on it. Views
    carry a scene; the cog has it drawn (`GameService.render`) after acknowledging the
    interaction, so a refusal never waits for a picture."""

    position: Position
    perspective: int
    last_move: Move | None = None
    highlights: tuple[int, ...] = ()
    captures: tuple[int, ...] = ()
    selected: int | None = None


@dataclass(frozen=True, slots=True)
class VariantInfo:
    id: str
    name: str
    description: str
    files: int
    ranks: int
    status: str
    inventor: str
    options: tuple[tuple[str, str], ...]  # (name, description)
    own: bool = False
    """One of this server's own variants (defined with /variant define)."""
    version: int = 0
    author_id: int | None = None
    start_array: str | None = None
    """A random setup's array drawn for this game (`BQNBRKRN`), shown in its post."""

    @property
    def size(self) -> str:
        return f"{self.files}×{self.ranks}"

    @property
    def label(self) -> str:
        """The name as lists show it: a server's variant says so (with its version)."""
        if not self.own:
            return self.name
        return f"{self.name} · this server's" + (f" v{self.version}" if self.version else "")


@dataclass(frozen=True, slots=True)
class PieceInfo:
    letters: str
    name: str
    id: str
    movement: str  # a one-line description for legends
    value: int | None = None
    """The engine's value in centipawns, derived from the movement (`search.values`); 0
    for a royal piece, which has no material value."""
    characters: str = ""
    """What the traditional set writes on it (`飛`; `帥/將` when the sides differ), so a
    player reading the pictures' characters finds the letters they type."""


@dataclass(frozen=True, slots=True)
class RulesView:
    variant: VariantInfo
    pieces: tuple[PieceInfo, ...]
    summary: tuple[str, ...]  # rule lines: castling, promotion, end of game, decisions
    scene: Scene


@dataclass(frozen=True, slots=True)
class ChallengeView:
    challenge: Challenge
    variant: VariantInfo
    challenger_name: str
    opponent_name: str | None
    scene: Scene | None


@dataclass(frozen=True, slots=True)
class GameView:
    """A game as players see it after any action."""

    game: Game
    variant: VariantInfo
    white_name: str
    black_name: str
    status: str
    recent_moves: tuple[str, ...]
    scene: Scene
    last_move: str | None = None
    in_check: bool = False

    @property
    def finished(self) -> bool:
        return not self.game.is_active

    @property
    def to_move_id(self) -> int | None:
        return self.game.to_move_id if self.game.is_active else None

    def name_of(self, user_id: int) -> str:
        return self.white_name if user_id == self.game.white_id else self.black_name


@dataclass(frozen=True, slots=True)
class PieceMoves:
    """`/moves`: a piece's moves on the picture; `planning` when its side (`side`, "White"
    or "Black") is not to move and these are the moves it would have if it were."""

    view: GameView
    square: str
    moves: tuple[str, ...]
    planning: bool = False
    side: str = ""


@dataclass(frozen=True, slots=True)
class MoveResult:
    view: GameView
    notation: str
    answer: str | None = None
    """The opponent's conditional answer, played at once after the move (`view` shows the
    game after it)."""


@dataclass(frozen=True, slots=True)
class EndResult:
    """A game ended by resignation, agreement, abort or timeout."""

    view: GameView


@dataclass(frozen=True, slots=True)
class OfferView:
    """A draw offer or takeback request waiting for the opponent's answer."""

    game: Game
    offer: DrawOffer | None = None
    takeback: TakebackRequest | None = None
    by_name: str = ""
    to_id: int = 0


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One autocomplete choice: `name` is shown, `value` is sent back."""

    name: str
    value: str


@dataclass(frozen=True, slots=True)
class GameSummary:
    game: Game
    variant_name: str
    opponent_id: int
    opponent_name: str
    my_turn: bool
    color: str
    ending: str = ""  # for finished games: how it ended (`black wins by checkmate`)


@dataclass(frozen=True, slots=True)
class RecordFile:
    filename: str
    text: str


@dataclass(frozen=True, slots=True)
class DefinedVariant:
    """What /variant define answers: the stored version, its rules as /rules shows them, the
    pieces new to Fairy Post (each gets a diagram) and what the sanity run found."""

    variant: Variant
    rules: RulesView
    new_pieces: tuple[PieceInfo, ...]
    sanity: tuple[str, ...]
    replaced_version: int
    """The version this one replaces (0 for a new variant)."""
    origin: str = ""
    """For a variant imported from another server: `by alice, v3 from another server`."""


@dataclass(frozen=True, slots=True)
class DefinedFile:
    """What /variant define answers for a Fairy-Stockfish variants.ini: each section that
    became a variant, and each refused one with the reason (`[name] option: why`)."""

    defined: tuple[DefinedVariant, ...]
    refused: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GuildVariantLine:
    """One line of /variant list."""

    info: VariantInfo
    author_name: str
    games: int
    origin: str = ""
    """For an imported variant: `by alice, v3 from another server` (untrusted text)."""


@dataclass(frozen=True, slots=True)
class GalleryLine:
    """One line of /variant gallery: a shared variant, its author's name and its imports."""

    code: str
    variant_id: str
    name: str
    version: int
    author_name: str
    imports: int


@dataclass(frozen=True, slots=True)
class VariantFile:
    """A server variant's definition as a file, for /variant export."""

    filename: str
    text: str
    version: int
    name: str


def engine_credit(level: int | None, engine: str | None) -> str:
    """Fairy Post's level and who chose its moves, as the /challenge reply and each engine
    move's post say it: `level 8, played by Fairy-Stockfish 11.1`; the level alone where
    nobody is named (no partner configured, a move stored before names were kept)."""
    shown_level = "level ?" if level is None else f"level {level}"
    return shown_level if engine is None else f"{shown_level}, played by {engine}"
