"""The values storage takes and returns: enums and frozen dataclasses, nothing else.

Conventions used everywhere in `storage`:

- Times are integer Unix seconds (UTC). Every method that needs the time takes `now`.
- Discord ids (users, guilds, channels, threads, messages) are plain ints.
- `white` is the side that moves first, `black` the other, whatever the variant calls them.
- Plies are 1-based: the first move of a game has ply 1, and `Game.ply_count` is the number of
  moves made so far, which is also the ply of the last move. A caller that saw a game at
  `ply_count == n` passes `expected_ply=n`; the move it appends gets ply `n + 1`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

DAY = 86_400
HOUR = 3_600

DEFAULT_REMINDER_OFFSETS: tuple[int, ...] = (24 * HOUR, 1 * HOUR)
"""Reminders before a deadline, in seconds, for players who never chose their own."""

VACATION_ALLOWANCE_SECONDS = 14 * DAY
"""Vacation each player may take per calendar year (UTC)."""

DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
"""Glicko-2 starting values for a player's first game in a variant."""


class Color(StrEnum):
    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE


class ColorChoice(StrEnum):
    """The colour the challenger asked for."""

    WHITE = "white"
    BLACK = "black"
    RANDOM = "random"


class NotifyMode(StrEnum):
    """How a player wants turn notices and reminders: a mention in the game thread or a DM."""

    THREAD = "thread"
    DM = "dm"


class NoticeTiming(StrEnum):
    """When a player hears of their turns (`NoticeSchedule`)."""

    NOW = "now"
    """Each notice at once."""
    DIGEST = "digest"
    """One direct message a day, at the schedule's hour, listing the games awaiting a move."""
    QUIET = "quiet"
    """At once, but from `hour` to `until` only deadline warnings."""


@dataclass(frozen=True, slots=True)
class NoticeSchedule:
    """A player's (or a server's default) timing of turn notices and reminders. Hours are
    local: `utc_offset` minutes east of UTC."""

    timing: NoticeTiming = NoticeTiming.NOW
    hour: int | None = None
    """The digest's hour, or when quiet hours begin."""
    until: int | None = None
    """When quiet hours end."""
    utc_offset: int = 0


class ChallengeStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class GameStatus(StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"
    ABORTED = "aborted"


class Result(StrEnum):
    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"

    @staticmethod
    def win_for(color: Color) -> Result:
        return Result.WHITE_WINS if color is Color.WHITE else Result.BLACK_WINS

    def score_for(self, color: Color) -> float:
        """1, 0.5 or 0 points for `color`."""
        if self is Result.DRAW:
            return 0.5
        return 1.0 if self is Result.win_for(color) else 0.0


class Termination(StrEnum):
    """How a game ended. `RULES` covers every end the rules engine decides (checkmate,
    stalemate, repetition, bare king...); the engine's own words go in `Game.end_detail`."""

    RULES = "rules"
    RESIGNATION = "resignation"
    TIMEOUT = "timeout"
    AGREEMENT = "agreement"
    ABORTED = "aborted"
    ADJUDICATION = "adjudication"


class RequestStatus(StrEnum):
    """Life of a draw offer or a takeback request."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    LAPSED = "lapsed"


class NotificationKind(StrEnum):
    TURN = "turn"
    REMINDER = "reminder"


class DueKind(StrEnum):
    """What a durable timer item asks the bot to do."""

    TURN_NOTICE = "turn_notice"
    REMINDER = "reminder"
    TIMEOUT = "timeout"
    CHALLENGE_EXPIRY = "challenge_expiry"
    VACATION_END = "vacation_end"


# --- players and guilds -----------------------------------------------------------------


PIECE_SETS = ("traditional", "letters")
"""The choices of `Player.piece_set` (the renderer's `pieces` option)."""


@dataclass(frozen=True, slots=True)
class Player:
    user_id: int
    display_name: str
    notify_mode: NotifyMode
    turn_notices: bool
    reminder_offsets: tuple[int, ...]
    """Seconds before a deadline at which to remind, largest first; empty for none."""
    vacation_started_at: int | None
    vacation_ends_at: int | None
    """When the running vacation ends by itself (allowance used up), if one runs."""
    created_at: int
    updated_at: int
    schedule: NoticeSchedule | None = None
    """When notices come; None follows the default of the game's server."""
    piece_set: str = "traditional"
    """The pieces of the player's board pictures: `traditional` (Xiangqi's discs, Shogi's
    kanji tokens, where a variant has them) or `letters` (the letter tokens everywhere)."""

    @property
    def on_vacation(self) -> bool:
        return self.vacation_started_at is not None


@dataclass(frozen=True, slots=True)
class GuildSettings:
    guild_id: int
    challenge_channel_id: int | None = None
    """Where challenges may be posted; None allows any channel."""
    challenge_ttl_seconds: int = DAY
    default_move_seconds: int | None = 3 * DAY
    """The clock offered when a challenge names none; None means untimed."""
    rated_allowed: bool = True
    rated_default: bool = True
    """Whether a challenge that does not say is rated (when rated games are allowed)."""
    organiser_role_id: int | None = None
    """Members of this role organise tournaments; None leaves it to the admins."""
    notice_schedule: NoticeSchedule | None = None
    """When players who did not choose hear of their turns; None: at once."""
    updated_at: int | None = None
    """None while the guild still runs on defaults."""


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What `Players.forget` did: the anonymous stand-in and how much it now stands for."""

    anonymous_id: int
    label: str
    games: int
    rows_changed: int
    challenges_cancelled: int


# --- challenges -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Clock:
    """Clock settings of a challenge or game.

    Per move a player gets `move_seconds` plus their bank. When they move, the time they had
    left becomes their new bank, up to `bank_cap_seconds` (0 turns the bank off, making it a
    plain per-move deadline). `move_seconds=None` is an untimed game.
    """

    move_seconds: int | None = 3 * DAY
    bank_cap_seconds: int = 0

    @staticmethod
    def untimed() -> Clock:
        return Clock(None, 0)


@dataclass(frozen=True, slots=True)
class NewChallenge:
    guild_id: int
    channel_id: int
    challenger_id: int
    opponent_id: int | None
    """None for an open challenge anyone in the channel may accept."""
    variant_id: str
    options: tuple[str, ...] = ()
    color: ColorChoice = ColorChoice.RANDOM
    clock: Clock = Clock()
    rated: bool = True
    ttl_seconds: int = DAY
    definition_digest: str | None = None
    """A guild's variant: the definition the challenge offers (`variant_id` is its key)."""


@dataclass(frozen=True, slots=True)
class Challenge:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int | None
    variant_id: str
    options: tuple[str, ...]
    color: ColorChoice
    clock: Clock
    rated: bool
    status: ChallengeStatus
    created_at: int
    expires_at: int
    resolved_at: int | None
    resolved_by: int | None
    game_id: int | None
    definition_digest: str | None = None
    """A guild's variant: the definition the challenge offers, pinned by its game."""

    @property
    def is_open(self) -> bool:
        return self.status is ChallengeStatus.OPEN


# --- games and moves --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game to create directly (acceptance of a challenge builds one of these itself)."""

    guild_id: int
    channel_id: int
    white_id: int
    black_id: int
    variant_id: str
    start_position: str
    options: tuple[str, ...] = ()
    rated: bool = True
    clock: Clock = Clock()
    thread_id: int | None = None
    message_id: int | None = None
    challenge_id: int | None = None
    definition_digest: str | None = None
    tournament_id: int | None = None
    engine_id: int | None = None
    """A game against the engine: the player it plays as (white_id or black_id)."""
    engine_level: int | None = None
    """A game against the engine: its level (1 to 8)."""
    first: Color = Color.WHITE
    """The side whose turn starts the game: Black in a variant that Black opens
    (`[setup] first = "black"`, the start position's side to move)."""


@dataclass(frozen=True, slots=True)
class Game:
    id: int
    challenge_id: int | None
    guild_id: int
    channel_id: int
    thread_id: int | None
    message_id: int | None
    variant_id: str
    options: tuple[str, ...]
    white_id: int
    black_id: int
    rated: bool
    status: GameStatus
    result: Result | None
    termination: Termination | None
    end_detail: str
    turn: Color
    ply_count: int
    position_text: str
    """Cached position after the last move; the move list is the source of truth."""
    engine_version: str
    """Rules engine version that produced `position_text`."""
    clock: Clock
    deadline_at: int | None
    """When the player to move loses on time; None if untimed, over, or paused."""
    paused_remaining: int | None
    """Seconds left on a clock stopped by the mover's vacation."""
    white_bank: int
    black_bank: int
    created_at: int
    updated_at: int
    ended_at: int | None
    revision: int = 0
    """Raised by every move and takeback: equal revisions mean the same move list."""
    decided_by: int | None = None
    """The moderator who cancelled or adjudicated the game; None for every other end."""
    definition_digest: str | None = None
    """A guild's variant: the SHA-256 of the definition the game started with and keeps
    (`GuildVariants.definition` gives its text); None for a built-in variant."""
    tournament_id: int | None = None
    """The tournament whose round created the game (its board: `Tournaments.board_of`)."""
    engine_id: int | None = None
    """A game against Fairy Post's engine: the player it plays as (the bot's own user)."""
    engine_level: int | None = None
    """A game against the engine: its playing level (1 to 8)."""

    @property
    def engine_to_move(self) -> bool:
        """The engine is to move in this game (which is still going)."""
        return self.is_active and self.engine_id is not None and self.to_move_id == self.engine_id

    @property
    def is_active(self) -> bool:
        return self.status is GameStatus.ACTIVE

    @property
    def to_move_id(self) -> int:
        """The player whose turn it is (in a finished game: whose turn it was)."""
        return self.player_id(self.turn)

    def player_id(self, color: Color) -> int:
        return self.white_id if color is Color.WHITE else self.black_id

    def color_of(self, user_id: int) -> Color | None:
        if user_id == self.white_id:
            return Color.WHITE
        if user_id == self.black_id:
            return Color.BLACK
        return None

    def opponent_of(self, user_id: int) -> int:
        """The other player; `user_id` must be one of the two."""
        if user_id == self.white_id:
            return self.black_id
        if user_id == self.black_id:
            return self.white_id
        raise ValueError(f"user {user_id} does not play game {self.id}")

    def bank(self, color: Color) -> int:
        return self.white_bank if color is Color.WHITE else self.black_bank

    @property
    def winner_id(self) -> int | None:
        if self.result is Result.WHITE_WINS:
            return self.white_id
        if self.result is Result.BLACK_WINS:
            return self.black_id
        return None

    @property
    def clock_paused(self) -> bool:
        return self.paused_remaining is not None


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended, as the caller decided it (the rules engine, a resignation...)."""

    result: Result
    termination: Termination
    detail: str = ""


@dataclass(frozen=True, slots=True)
class NewMove:
    """A move the rules engine has already validated, with the position it leads to."""

    notation: str
    """Canonical notation, e.g. `Hi2-g4`."""
    coordinate: str
    """Coordinate form, e.g. `i2g4`; what replays use."""
    position_hash: str | int
    """The engine's hash of the position after the move; ints are stored as hex."""
    position_text: str
    """The position after the move, cached on the game row."""
    turn_after: Color | None = None
    """Who moves next; None means the other side (set it for multi-move turns)."""
    outcome: Outcome | None = None
    """Set when this move ended the game."""
    conditional: bool = False
    """A conditional answer, played for its player (`storage.conditional`)."""
    engine: str | None = None
    """The engine that chose the move, as players read it (`Fairy-Stockfish 11.1`); None for
    a player's move. Stored in the move's own write, so no crash leaves a move without it."""


@dataclass(frozen=True, slots=True)
class Move:
    game_id: int
    ply: int
    color: Color
    notation: str
    coordinate: str
    position_hash: str
    made_at: int
    conditional: bool = False
    """Played for its player as a conditional answer (`storage.conditional`)."""
    engine: str | None = None
    """The engine that chose the move (`NewMove.engine`); None for a player's move and for
    moves stored before migration 0019."""


@dataclass(frozen=True, slots=True)
class ArchivedMove:
    """A move removed by a takeback, kept forever."""

    id: int
    game_id: int
    ply: int
    color: Color
    notation: str
    coordinate: str
    position_hash: str
    made_at: int
    takeback_id: int
    archived_at: int
    conditional: bool = False
    engine: str | None = None


@dataclass(frozen=True, slots=True)
class AppendedMove:
    game: Game
    move: Move
    answer: Move | None = None
    """The conditional answer recorded with the move, if one was (`Games.append_move`)."""


@dataclass(frozen=True, slots=True)
class DrawOffer:
    id: int
    game_id: int
    offered_by: int
    ply: int
    """The game's ply count when the offer was made."""
    status: RequestStatus
    created_at: int
    resolved_at: int | None


@dataclass(frozen=True, slots=True)
class TakebackRequest:
    id: int
    game_id: int
    requested_by: int
    ply: int
    """The game's ply count when asked; the request lapses if a move comes first."""
    plies: int
    """How many plies to take back: 1 or 2."""
    status: RequestStatus
    created_at: int
    resolved_at: int | None


# --- ratings ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rating:
    user_id: int
    variant_id: str
    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last_played_at: int | None = None
    """When the last rated game ended; the deviation grows with inactivity from here."""


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    """New values for one player after a game, computed from a `Rating` the caller read."""

    user_id: int
    rating: float
    deviation: float
    volatility: float
    based_on_games: int
    """`Rating.games` of the rating the values were computed from (compare-and-set)."""
    score: float | None = None
    """The player's score in the game, 0 to 1, when it is not the plain 1/½/0 of the result
    (a Bat Chess stalemate scores 3/5); it goes into the history and the win/draw/loss
    tallies (above ½ a win, below a loss)."""


@dataclass(frozen=True, slots=True)
class RatingChange:
    game_id: int
    user_id: int
    opponent_id: int
    variant_id: str
    score: float
    rating_before: float
    deviation_before: float
    volatility_before: float
    rating_after: float
    deviation_after: float
    volatility_after: float
    created_at: int

    @property
    def delta(self) -> float:
        return self.rating_after - self.rating_before


@dataclass(frozen=True, slots=True)
class RatingApplication:
    """The two changes of a game; `applied_now` is False when an earlier call applied them."""

    applied_now: bool
    changes: tuple[RatingChange, RatingChange]


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int
    user_id: int
    display_name: str
    rating: float
    deviation: float
    games: int


# --- timers and vacation ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DueItem:
    """Something the timer task must handle. Hand it back to the matching guarded call:
    `Timers.claim_notification`, `Games.claim_timeout`, `Challenges.expire_due` or
    `Vacations.end_due`; a stale item is refused there, so nothing is handled twice."""

    kind: DueKind
    due_at: int
    user_id: int | None = None
    game_id: int | None = None
    ply: int | None = None
    challenge_id: int | None = None
    offset_seconds: int = 0
    """For reminders: how long before the deadline it was meant to fire."""


@dataclass(frozen=True, slots=True)
class VacationStatus:
    user_id: int
    year: int
    """The UTC calendar year the figures are for."""
    allowance_seconds: int
    used_seconds: int
    """Used this year, including the running vacation up to `now`."""
    started_at: int | None
    ends_at: int | None

    @property
    def on_vacation(self) -> bool:
        return self.started_at is not None

    @property
    def remaining_seconds(self) -> int:
        return max(0, self.allowance_seconds - self.used_seconds)


# --- the durable outbox -----------------------------------------------------------------


# --- tournaments ------------------------------------------------------------------------

TOURNAMENT_FORMATS = ("round-robin", "swiss")
TOURNAMENT_STATUSES = ("signup", "running", "finished", "cancelled")


@dataclass(frozen=True, slots=True)
class NewTournament:
    guild_id: int
    channel_id: int
    name: str
    variant_id: str
    format: str
    """`round-robin` or `swiss`."""
    created_by: int
    options: tuple[str, ...] = ()
    cycles: int = 1
    rounds: int = 0
    all_at_once: bool = True
    clock: Clock = Clock()
    rated: bool = True
    max_players: int = 16
    starts_at: int | None = None
    round_seconds: int | None = None
    bye_points: str = "1"
    initial_colour: str = "white"
    definition_digest: str | None = None
    """A guild's variant: the definition every game of the tournament pins."""


@dataclass(frozen=True, slots=True)
class Tournament:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    """The sign-up post (its Join and Leave buttons); the tournament's thread starts there."""
    thread_id: int | None
    name: str
    variant_id: str
    options: tuple[str, ...]
    format: str
    cycles: int
    rounds: int
    all_at_once: bool
    clock: Clock
    rated: bool
    max_players: int
    starts_at: int | None
    round_seconds: int | None
    bye_points: str
    initial_colour: str
    status: str
    """`signup`, `running`, `finished` or `cancelled`."""
    current_round: int
    round_deadline_at: int | None
    end_reason: str
    created_by: int
    created_at: int
    started_at: int | None
    ended_at: int | None
    definition_digest: str | None = None
    """A guild's variant: the definition every game of the tournament pins."""

    @property
    def swiss(self) -> bool:
        return self.format == "swiss"


@dataclass(frozen=True, slots=True)
class TournamentPlayer:
    user_id: int
    number: int | None
    """The pairing number, fixed at the start."""
    joined_at: int
    withdrawn_after: int | None
    """The last round the player was paired in before withdrawing (0: before the first)."""


@dataclass(frozen=True, slots=True)
class Board:
    """A board of a round: a game (`game`), a bye (`black_id` None) or a game scored without
    being played (a withdrawal), whose points are exact fractions as text (`'1/2'`)."""

    round: int
    board: int
    white_id: int
    black_id: int | None
    game_id: int | None
    white_points: str | None
    black_points: str | None
    game: Game | None = None
    """The board's game as stored (its result, how it ended), if it has one."""


@dataclass(frozen=True, slots=True)
class NewBoard:
    """A board of a round to store: a game to create (`game`), a bye or a forfeit (points)."""

    round: int
    board: int
    white_id: int
    black_id: int | None
    game: NewGame | None = None
    white_points: str | None = None
    black_points: str | None = None


class EffectStatus(StrEnum):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    """Given up after its last attempt (or refused as hopeless); kept for the operator."""


class EventKind(StrEnum):
    """What happened in a storage transaction. `EffectRules` turn events into effects that
    are recorded in the same transaction."""

    GAME_STARTED = "game_started"
    """A game was created (a challenge accepted, or `Games.create`)."""
    MOVE_PLAYED = "move_played"
    """A move that did not end the game; the game is at the move's ply, the opponent's turn."""
    GAME_ENDED = "game_ended"
    """The game finished (any termination, the move that ended it included) or was aborted."""
    TAKEBACK = "takeback"
    """Moves were taken back; the game is at the ply it went back to."""
    NOTICE_DUE = "notice_due"
    """A turn notice or reminder fell due and was claimed (`StorageEvent.due`)."""
    CHALLENGE_EXPIRED = "challenge_expired"
    """An open challenge expired (`StorageEvent.challenge`)."""
    TOURNAMENT_CREATED = "tournament_created"
    """A tournament opened its sign-up (`StorageEvent.tournament`)."""
    TOURNAMENT_STARTED = "tournament_started"
    """Sign-up closed and the pairing numbers were fixed; its first round follows."""
    ROUND_PAIRED = "round_paired"
    """A round's boards and games were stored (`StorageEvent.round`); each game of it has
    its own `GAME_STARTED` before this event."""
    PLAYER_WITHDREW = "player_withdrew"
    """A player left a running tournament (`actor_id`): their games in progress were resigned
    (each a `GAME_ENDED` that is `part_of` this event), unplayed boards scored."""
    ROUND_DEADLINE_PASSED = "round_deadline_passed"
    """A round's deadline drew the games still going (each a `GAME_ENDED` `part_of` it)."""
    TOURNAMENT_FINISHED = "tournament_finished"
    """The last round is over (or no further round could be paired): the final standings."""
    TOURNAMENT_CANCELLED = "tournament_cancelled"
    """The organiser cancelled a tournament still in sign-up."""
    VARIANT_DEFINED = "variant_defined"
    """A server's variant got a new version (`StorageEvent.variant`, defined by `actor_id`
    from `channel_id`)."""


JsonObject = Mapping[str, Any]
"""A JSON object: str keys; values str, int, float, bool, None, lists and objects."""


@dataclass(frozen=True, slots=True)
class StorageEvent:
    """One event of a transaction, as effect rules see it: the game (or challenge, or due
    notice) as it is after the event, inside the same transaction."""

    kind: EventKind
    at: int
    """The event's time (`now` of the call that caused it)."""
    game: Game | None = None
    challenge: Challenge | None = None
    due: DueItem | None = None
    ply: int | None = None
    """The ply the event happened at (for a move: the move's ply)."""
    actor_id: int | None = None
    """Who caused it, when a player did (the mover, the resigner, the acceptor)."""
    tournament: Tournament | None = None
    """The tournament as it is after the event (tournament events)."""
    round: int | None = None
    """The round a tournament event is about."""
    part_of: EventKind | None = None
    """The larger event this one is a step of (a game resigned by a withdrawal, drawn at a
    round's deadline): that event's own effects tell about it."""
    games: tuple[int, ...] = ()
    """The games a tournament event ended (a withdrawal's resignations, a deadline's draws)."""
    variant: GuildVariant | None = None
    """A server's variant as it is after the event (`VARIANT_DEFINED`)."""
    channel_id: int | None = None
    """Where the event was asked for, when its posts go there (a variant's definition)."""


@dataclass(frozen=True, slots=True)
class NewEffect:
    """A consequence to carry out after the transaction commits.

    `kind` names the handler (the bot's effect registry). Effects sharing a `queue` run in
    the order they were recorded, one at a time; `queue` defaults to `game:<game_id>` when a
    game is given. A `dedupe_key` makes recording idempotent: an effect whose key exists
    already is not recorded again (e.g. `ratings:game:12`). `not_before` delays it."""

    kind: str
    payload: JsonObject = field(default_factory=dict)
    game_id: int | None = None
    queue: str | None = None
    dedupe_key: str | None = None
    not_before: int | None = None


@dataclass(frozen=True, slots=True)
class Effect:
    id: int
    kind: str
    payload: JsonObject
    game_id: int | None
    queue: str | None
    dedupe_key: str | None
    status: EffectStatus
    attempts: int
    """Claims so far, the current one included (a crash mid-effect counts as an attempt)."""
    next_attempt_at: int
    claimed_by: str | None
    lease_until: int | None
    channel_id: int | None
    message_id: int | None
    """The message a post became, once known: the effect never posts again."""
    last_error: str
    created_at: int
    updated_at: int
    done_at: int | None


# --- players' own variants ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GuildVariant:
    """A variant a guild's player defined: its current version (or its last one, if
    deleted). `author_id` is whoever defined it first (or again after a deletion); the text
    is `GuildVariants.definition(digest)`."""

    guild_id: int
    variant_id: str
    version: int
    digest: str
    name: str
    author_id: int
    created_at: int
    updated_at: int
    deleted_at: int | None
    origin_code: str | None = None
    """The share it was imported from (`VariantShare.code`); None if defined here."""

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None


@dataclass(frozen=True, slots=True)
class VariantShare:
    """One version of a guild's variant offered to other servers under `code`."""

    code: str
    guild_id: int
    variant_id: str
    version: int
    digest: str
    name: str
    author_id: int
    """Who defined that version (anonymized by /forget-me like every player reference)."""
    shared_by: int
    created_at: int
    imports: int


@dataclass(frozen=True, slots=True)
class VariantVersion:
    """One version of a guild's variant, as it was defined."""

    guild_id: int
    variant_id: str
    version: int
    digest: str
    author_id: int
    created_at: int
