"""One error hierarchy for storage.

Every error the package raises on purpose is a `StorageError`. The messages are written for
the bot's error handler: short, in plain words, safe to show to a player unless the class says
it is an operator problem (`SchemaError`, `ReplayError`, `DatabaseUnavailableError`).
"""

from __future__ import annotations

from storage.models import Game


class StorageError(Exception):
    """Base class of every error raised on purpose by `storage`."""

    keeps_transaction = False
    """True for refusals raised after the transaction settled something that must stay (a
    deadline that had passed): the transaction commits, then the error is raised."""


# --- operator problems -------------------------------------------------------------------


class DatabaseUnavailableError(StorageError):
    """The database file cannot be opened, the server cannot be reached, or this SQLite is
    too old for the schema."""


class DatabaseInUseError(DatabaseUnavailableError):
    """Another process (a running bot) holds the database's instance lock."""


class DatabaseDamagedError(DatabaseUnavailableError):
    """SQLite found the file damaged (a failed integrity check, or not a database at all)."""


class SchemaError(StorageError):
    """The database schema cannot be used by this version of the code."""


class SchemaTooNewError(SchemaError):
    """The database was written by a newer Fairy Post; refusing protects its data."""

    def __init__(self, found: int, known: int) -> None:
        self.found = found
        self.known = known
        super().__init__(
            f"the database has schema version {found}, but this Fairy Post only knows versions "
            f"up to {known}; upgrade Fairy Post, or restore a backup made by this version"
        )


class SchemaOutdatedError(SchemaError):
    """The database needs migrations and the caller asked not to apply them."""

    def __init__(self, found: int, known: int) -> None:
        self.found = found
        self.known = known
        super().__init__(
            f"the database has schema version {found} and this Fairy Post expects {known}; "
            "run `python -m storage migrate` (or start the bot) to upgrade it"
        )


class MigrationError(SchemaError):
    """A migration file is missing, misnumbered, or failed; nothing of it was applied."""


class ReplayError(StorageError):
    """A game's move list does not replay with the current rules engine."""


class GameReplayError(ReplayError):
    """One game failed to replay; the stored data was left untouched."""

    def __init__(self, game_id: int, engine_version: str, reason: str) -> None:
        self.game_id = game_id
        self.engine_version = engine_version
        self.reason = reason
        super().__init__(
            f"game {game_id} does not replay with rules engine {engine_version}: {reason}"
        )


class EngineUnavailableError(ReplayError):
    """The rules engine could not be imported, so nothing can be replayed."""


# --- lookups -------------------------------------------------------------------------------


class NotFoundError(StorageError):
    """The thing asked for does not exist."""


class PlayerNotFoundError(NotFoundError):
    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        super().__init__(f"no player with id {user_id} is known")


class ChallengeNotFoundError(NotFoundError):
    def __init__(self, challenge_id: int) -> None:
        self.challenge_id = challenge_id
        super().__init__(f"there is no challenge {challenge_id}")


class GameNotFoundError(NotFoundError):
    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__(f"there is no game {game_id}")


class DrawOfferNotFoundError(NotFoundError):
    def __init__(self, offer_id: int) -> None:
        self.offer_id = offer_id
        super().__init__(f"there is no draw offer {offer_id}")


class TakebackNotFoundError(NotFoundError):
    def __init__(self, request_id: int) -> None:
        self.request_id = request_id
        super().__init__(f"there is no takeback request {request_id}")


class EffectNotFoundError(NotFoundError):
    def __init__(self, effect_id: int) -> None:
        self.effect_id = effect_id
        super().__init__(f"there is no effect {effect_id}")


# --- guarded writes that lost a race or came too late -------------------------------------


class TournamentNotFoundError(NotFoundError):
    def __init__(self, tournament_id: int) -> None:
        super().__init__(f"there is no tournament #{tournament_id}")
        self.tournament_id = tournament_id


class ConflictError(StorageError):
    """A compare-and-set write found the state changed; re-read and decide again."""


class GameMovedOnError(ConflictError):
    """The game is no longer at the ply the caller saw (a move, takeback or end came first)."""

    def __init__(
        self,
        game_id: int,
        expected_ply: int | None = None,
        actual_ply: int | None = None,
        message: str = "the game has moved on",
    ) -> None:
        self.game_id = game_id
        self.expected_ply = expected_ply
        self.actual_ply = actual_ply
        super().__init__(message)


class GameEndedError(GameMovedOnError):
    """The game is already over; a game can never end twice."""

    def __init__(self, game_id: int, actual_ply: int | None = None) -> None:
        super().__init__(game_id, None, actual_ply, "the game is over")


class ChallengeNotOpenError(ConflictError):
    """The challenge was already accepted, declined, cancelled or expired."""

    def __init__(self, challenge_id: int, status: str) -> None:
        self.challenge_id = challenge_id
        self.status = status
        super().__init__(f"the challenge is no longer open (it was {status})")


class ChallengeExpiredError(ChallengeNotOpenError):
    def __init__(self, challenge_id: int) -> None:
        super().__init__(challenge_id, "expired")


class RequestNotPendingError(ConflictError):
    """A draw offer or takeback request was already answered, withdrawn or lapsed."""

    def __init__(self, what: str, request_id: int, status: str) -> None:
        self.what = what
        self.request_id = request_id
        self.status = status
        super().__init__(f"the {what} is no longer pending (it was {status})")


class RequestAlreadyPendingError(ConflictError):
    """A game has at most one pending draw offer and one pending takeback request."""

    def __init__(self, what: str, request_id: int, requested_by: int) -> None:
        self.what = what
        self.request_id = request_id
        self.requested_by = requested_by
        super().__init__(f"a {what} is already waiting for an answer in this game")


class ConcurrentUpdateError(ConflictError):
    """PostgreSQL gave up on a transaction that collided with another one (a deadlock or a
    serialisation failure); nothing of it was written and trying again is safe."""

    def __init__(self) -> None:
        super().__init__("someone else changed the same thing at the same moment; try again")


class VariantChangedError(ConflictError):
    """A guild's variant was defined again or deleted after the caller read it."""

    def __init__(self, variant_id: str, expected_version: int, actual_version: int) -> None:
        self.variant_id = variant_id
        self.expected_version = expected_version
        self.actual_version = actual_version
        super().__init__(
            f"the variant {variant_id!r} changed meanwhile (version {actual_version}, "
            f"not {expected_version}); look at it again and retry"
        )


class RatingChangedError(ConflictError):
    """A rating changed after the caller read it; recompute from fresh ratings."""

    def __init__(self, user_id: int, expected_games: int, actual_games: int) -> None:
        self.user_id = user_id
        self.expected_games = expected_games
        self.actual_games = actual_games
        super().__init__(
            f"the rating of player {user_id} changed meanwhile "
            f"(expected {expected_games} rated games, found {actual_games})"
        )


# --- refusals: the request is not allowed ------------------------------------------------


class RefusedError(StorageError):
    """The request is well formed but not allowed for this player or in this state."""


class NotAParticipantError(RefusedError):
    def __init__(self, user_id: int, what: str = "game") -> None:
        self.user_id = user_id
        super().__init__(f"only the players of this {what} can do that")


class NotYourTurnError(RefusedError):
    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        super().__init__("it is not your turn")


class NotAddressedToYouError(RefusedError):
    def __init__(self, user_id: int) -> None:
        self.user_id = user_id
        super().__init__("this challenge is addressed to someone else")


class OwnChallengeError(RefusedError):
    def __init__(self) -> None:
        super().__init__("you cannot accept your own challenge; Decline withdraws it")


class DeadlinePassedError(RefusedError):
    """The clock ran out before the move arrived; the game is lost on time."""

    def __init__(self, game_id: int, deadline_at: int) -> None:
        self.game_id = game_id
        self.deadline_at = deadline_at
        super().__init__("the deadline has passed: the game is lost on time")


class GameLostOnTimeError(DeadlinePassedError):
    """The game's deadline had passed before this action: the loss on time was written
    first (that part is committed) and the action itself was refused. `game` is the
    finished game."""

    keeps_transaction = True

    def __init__(self, game: Game) -> None:
        self.game = game
        super().__init__(game.id, game.ended_at or 0)
        detail = game.end_detail or "the player to move lost on time"
        self.args = (f"the deadline had passed: the game is over, {detail}",)


class DeadlineNotReachedError(RefusedError):
    """A timeout was claimed for a game whose clock has not run out."""

    def __init__(self, game_id: int, deadline_at: int | None) -> None:
        self.game_id = game_id
        self.deadline_at = deadline_at
        super().__init__("the deadline of this game has not passed")


class AbortNotAllowedError(RefusedError):
    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__("a game can only be aborted before both sides have moved")


class PlayerHasActiveGamesError(RefusedError):
    """A player asked to be forgotten while games or tournaments of theirs are going."""

    def __init__(
        self, user_id: int, game_ids: list[int], tournaments: list[str], pending: int = 0
    ) -> None:
        super().__init__(
            f"player {user_id} still plays games {game_ids} in {tournaments}, "
            f"{pending} effects of their games pending"
        )
        self.user_id = user_id
        self.game_ids = game_ids
        self.tournaments = tournaments
        self.pending = pending  # consequences of their last games not yet carried out


class RatingNotApplicableError(RefusedError):
    """Ratings change only for finished, rated games."""


class VacationError(RefusedError):
    """Vacation cannot be started or ended now; the message says why."""


class InvalidValueError(StorageError, ValueError):
    """A value passed in is out of range or malformed; nothing was written."""
