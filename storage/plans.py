"""Guarded writes of a game as plans: what a write changes, decided from a snapshot.

A guarded write (a move, a conditional answer, an ending, an accepted takeback or draw) reads
the game and what its decision depends on (a `Snapshot`: the game row, its two players'
clock settings, the conditional moves, the pending offers), decides (the refusals, the clock
rule, who moves next, what it sets off) and writes. The deciding happens here, in pure
functions returning a `Plan`: the game's row as it will be, the rows to insert or delete, and
the events raised. Each backend writes a plan its own way (`storage.apply`):

- inside a write transaction that read the snapshot (SQLite always; PostgreSQL when the
  write must settle a deadline first, or when several games are written together): the
  plan's writes go with the transaction, its events become effects at COMMIT;
- on PostgreSQL otherwise, as one call of the server function `fp_apply`: it locks the
  game's row, checks that the snapshot is still what the database holds (a digest of it),
  and writes everything, the effects included, in that one statement: one round trip.

So the rules of a write are written once, and both backends run them under the same tests.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from storage import _rows
from storage.clock import bank_after_move, reminder_times, turn_allowance
from storage.errors import (
    AbortNotAllowedError,
    DeadlineNotReachedError,
    GameEndedError,
    GameMovedOnError,
    InvalidValueError,
    NotAParticipantError,
    NotYourTurnError,
    RefusedError,
    RequestNotPendingError,
)
from storage.models import (
    Color,
    DrawOffer,
    DueItem,
    DueKind,
    EventKind,
    Game,
    GameStatus,
    Move,
    NewEffect,
    NewMove,
    NotificationKind,
    Outcome,
    RequestStatus,
    Result,
    StorageEvent,
    TakebackRequest,
    Termination,
)

# --- what a plan is decided from -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerState:
    """What a player's turn depends on: notices, reminders, vacation."""

    user_id: int
    turn_notices: bool = True
    reminder_offsets: tuple[int, ...] = ()
    vacation_started_at: int | None = None
    vacation_ends_at: int | None = None


@dataclass(frozen=True, slots=True)
class StoredBranch:
    """A row of `conditional_moves` as the snapshot holds it."""

    owner_id: int
    node: str
    reply: str
    reply_notation: str
    answer: str
    answer_notation: str
    child: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game and everything a guarded write of it decides on, read at one moment.
    `digest` (PostgreSQL) names that state exactly: `fp_apply` writes only while the
    database still holds it."""

    game: Game
    players: Mapping[int, PlayerState]
    branches: tuple[StoredBranch, ...] = ()
    draw: DrawOffer | None = None
    """The pending draw offer."""
    takeback: TakebackRequest | None = None
    """The pending takeback request."""
    sides_moved: int = 0
    """How many sides have made a move (0, 1 or 2): an abort needs fewer than 2."""
    last_colors: tuple[Color, ...] = ()
    """The colours of the last two plies, oldest first (a takeback's side to move)."""
    digest: str | None = None

    def player(self, user_id: int) -> PlayerState:
        return self.players.get(user_id) or PlayerState(user_id)


class SettleFirst(Exception):
    """The snapshot shows a deadline (or a vacation) that ran out and is not written yet:
    the write must settle it first, in a transaction (`_shared.settle_deadline`)."""


def needs_settling(game: Game, player: PlayerState, now: int) -> bool:
    """True when the clock decided something by `now` that is not written: the player to
    move's vacation ran out, or the deadline passed."""
    if not game.is_active:
        return False
    if player.vacation_ends_at is not None and player.vacation_ends_at <= now:
        return True
    return game.deadline_at is not None and now >= game.deadline_at


# --- what a plan is --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NotificationRow:
    game_id: int
    ply: int
    kind: str
    offset_seconds: int
    user_id: int
    due_at: int
    sent_at: int | None


@dataclass(frozen=True, slots=True)
class Archive:
    """A takeback: the moves after `keep` are copied to `archived_moves`, then deleted."""

    takeback_id: int
    keep: int
    at: int


@dataclass(frozen=True, slots=True)
class Resolve:
    """A draw offer or takeback request answered."""

    table: str  # draw_offers or takeback_requests
    id: int
    status: RequestStatus
    at: int


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything one guarded write of one game changes."""

    before: Game
    """The game as the plan found it: the row is written only if it is still so."""
    after: Game
    """The game's row as the plan leaves it."""
    moves: tuple[Move, ...] = ()
    archive: Archive | None = None
    resolve: tuple[Resolve, ...] = ()
    lapse_takebacks: bool = False
    lapse_draws: bool = False
    """Every pending draw offer lapses (the game ended or went back)."""
    lapse_draws_by: tuple[int, ...] = ()
    """Pending draw offers of these players lapse (they moved)."""
    notifications: tuple[NotificationRow, ...] | None = None
    """The game's notifications are replaced by these (None: left as they are)."""
    drop_branches: bool = False
    delete_branches: tuple[tuple[str, str], ...] = ()
    effects: tuple[NewEffect, ...] = ()
    """Effects recorded directly (before those of the events)."""
    events: tuple[StorageEvent, ...] = ()
    at: int = 0
    """`now` of the write."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """What the caller wants back (the moves recorded)."""


MUTABLE_GAME_COLUMNS = (
    "status",
    "result",
    "termination",
    "end_detail",
    "turn",
    "ply_count",
    "position_text",
    "engine_version",
    "deadline_at",
    "paused_remaining",
    "white_bank",
    "black_bank",
    "updated_at",
    "ended_at",
    "revision",
    "decided_by",
)
"""The columns of `games` a plan may change (all of them are written, from `Plan.after`)."""


def game_columns(game: Game) -> dict[str, Any]:
    """The values of `MUTABLE_GAME_COLUMNS` for `game`."""
    return {
        "status": game.status.value,
        "result": None if game.result is None else game.result.value,
        "termination": None if game.termination is None else game.termination.value,
        "end_detail": game.end_detail,
        "turn": game.turn.value,
        "ply_count": game.ply_count,
        "position_text": game.position_text,
        "engine_version": game.engine_version,
        "deadline_at": game.deadline_at,
        "paused_remaining": game.paused_remaining,
        "white_bank": game.white_bank,
        "black_bank": game.black_bank,
        "updated_at": game.updated_at,
        "ended_at": game.ended_at,
        "revision": game.revision,
        "decided_by": game.decided_by,
    }


# --- deciding --------------------------------------------------------------------------------


def check_move(move: NewMove) -> None:
    _rows.check_text("the move notation", move.notation, max_len=64)
    _rows.check_token("the coordinate move", move.coordinate, max_len=32)
    _rows.hash_text(move.position_hash)
    _rows.check_text("the position text", move.position_text, max_len=_rows.MAX_POSITION)
    if move.outcome is not None:
        check_outcome(move.outcome)
    if move.engine is not None:
        _rows.check_text("the engine's name", move.engine, max_len=_rows.MAX_ENGINE_NAME)


def check_outcome(outcome: Outcome) -> None:
    if outcome.termination is Termination.ABORTED:
        raise InvalidValueError("an aborted game has no result; use abort()")


class Builder:
    """Builds a plan step by step on a snapshot, as the writes would change it."""

    def __init__(self, snapshot: Snapshot, now: int) -> None:
        self.snapshot = snapshot
        self.now = now
        self.game = snapshot.game
        self.moves: list[Move] = []
        self.archive: Archive | None = None
        self.resolve: list[Resolve] = []
        self.lapse_takebacks = False
        self.lapse_draws = False
        self.lapse_draws_by: list[int] = []
        self.notifications: tuple[NotificationRow, ...] | None = None
        self.drop_branches = False
        self.delete_branches: tuple[tuple[str, str], ...] = ()
        self.effects: list[NewEffect] = []
        self.events: list[StorageEvent] = []
        self._notice: StorageEvent | None = None
        self.extra: dict[str, Any] = {}

    def plan(self) -> Plan:
        events = list(self.events)
        if self._notice is not None:
            events.append(self._notice)
        return Plan(
            before=self.snapshot.game,
            after=self.game,
            moves=tuple(self.moves),
            archive=self.archive,
            resolve=tuple(self.resolve),
            lapse_takebacks=self.lapse_takebacks,
            lapse_draws=self.lapse_draws,
            lapse_draws_by=tuple(dict.fromkeys(self.lapse_draws_by)),
            notifications=self.notifications,
            drop_branches=self.drop_branches,
            delete_branches=self.delete_branches,
            effects=tuple(self.effects),
            events=tuple(events),
            at=self.now,
            extra=self.extra,
        )

    # --- guards ------------------------------------------------------------------------

    def active(self, expected_ply: int | None, *, settle: bool = True) -> Game:
        """The game, refused unless still going (and at `expected_ply`); with `settle`, a
        clock that ran out and is not written yet sends the write to a transaction."""
        game = self.game
        if settle and needs_settling(game, self.snapshot.player(game.to_move_id), self.now):
            raise SettleFirst
        if not game.is_active:
            raise GameEndedError(game.id, game.ply_count)
        if expected_ply is not None and game.ply_count != expected_ply:
            raise GameMovedOnError(game.id, expected_ply, game.ply_count)
        return game

    def participant(self, user_id: int) -> Color:
        color = self.game.color_of(user_id)
        if color is None:
            raise NotAParticipantError(user_id)
        return color

    # --- steps -------------------------------------------------------------------------

    def append(self, user_id: int, expected_ply: int, move: NewMove, engine_version: str) -> Move:
        """One move (see `Games.append_move`)."""
        game = self.active(expected_ply)
        mover = self.participant(user_id)
        if mover is not game.turn:
            raise NotYourTurnError(user_id)
        now = self.now
        ply = expected_ply + 1
        banks = {Color.WHITE: game.white_bank, Color.BLACK: game.black_bank}
        if game.deadline_at is not None:
            banks[mover] = bank_after_move(game.clock, game.deadline_at - now)
        elif game.paused_remaining is not None:
            banks[mover] = bank_after_move(game.clock, game.paused_remaining)
        recorded = Move(
            game.id,
            ply,
            mover,
            move.notation,
            move.coordinate,
            _rows.hash_text(move.position_hash),
            now,
            move.conditional,
            move.engine,
        )
        self.moves.append(recorded)
        next_turn = move.turn_after or mover.other
        self.game = dataclasses.replace(
            game,
            ply_count=ply,
            position_text=move.position_text,
            engine_version=engine_version,
            turn=next_turn,
            white_bank=banks[Color.WHITE],
            black_bank=banks[Color.BLACK],
            deadline_at=None,
            paused_remaining=None,
            updated_at=max(game.updated_at, now),
            revision=game.revision + 1,
        )
        self.lapse_takebacks = True
        self.lapse_draws_by.append(user_id)
        if move.outcome is not None:
            self.finish(move.outcome, actor_id=user_id)
        else:
            self.start_turn(ply, self.game.player_id(next_turn), banks[next_turn])
            self.events.insert(
                len(self.events),
                StorageEvent(EventKind.MOVE_PLAYED, now, game=self.game, ply=ply, actor_id=user_id),
            )
            # The turn notice's event comes after the move's (see `plan`).
            if self._notice is not None:
                self._notice = dataclasses.replace(self._notice, game=self.game)
        return recorded

    def start_turn(self, ply: int, user_id: int, bank: int) -> None:
        """The turn of `user_id` begins at `ply`: its clock, its reminders, and its turn
        notice, which is an effect of this write (an event raised here), not a timer."""
        game, now = self.game, self.now
        player = self.snapshot.player(user_id)
        deadline, paused = turn_clock(game, bank, player, now)
        self.game = dataclasses.replace(game, deadline_at=deadline, paused_remaining=paused)
        rows = turn_notifications(game.id, ply, player, deadline, now)
        self.notifications = tuple(rows)
        self._notice = None
        if player.turn_notices:
            due = DueItem(DueKind.TURN_NOTICE, now, user_id, game.id, ply)
            self._notice = StorageEvent(EventKind.NOTICE_DUE, now, game=self.game, due=due, ply=ply)

    def finish(
        self,
        outcome: Outcome | None,
        *,
        actor_id: int | None = None,
        ended_at: int | None = None,
        abort_detail: str = "",
        part_of: EventKind | None = None,
    ) -> None:
        """Ends the game (see `_shared.finish_game`); `outcome=None` aborts it."""
        game, now = self.game, self.now
        if outcome is None:
            detail = _rows.check_text(
                "the end detail", abort_detail, max_len=_rows.MAX_DETAIL, allow_empty=True
            )
            status, result, termination = GameStatus.ABORTED, None, Termination.ABORTED
        else:
            detail = _rows.check_text(
                "the end detail", outcome.detail, max_len=_rows.MAX_DETAIL, allow_empty=True
            )
            status, result, termination = GameStatus.FINISHED, outcome.result, outcome.termination
        self.game = dataclasses.replace(
            game,
            status=status,
            result=result,
            termination=termination,
            end_detail=detail,
            deadline_at=None,
            paused_remaining=None,
            ended_at=now if ended_at is None else ended_at,
            updated_at=max(game.updated_at, now),
        )
        self.lapse_takebacks = True
        self.lapse_draws = True
        self.notifications = ()
        self._notice = None
        self.drop_branches = True
        self.delete_branches = ()
        self.events.append(
            StorageEvent(
                EventKind.GAME_ENDED,
                now,
                game=self.game,
                ply=self.game.ply_count,
                actor_id=actor_id,
                part_of=part_of,
            )
        )


def turn_clock(
    game: Game, bank: int, player: PlayerState, now: int
) -> tuple[int | None, int | None]:
    """(deadline_at, paused_remaining) of a turn beginning now: stopped while the player is
    on vacation."""
    allowance = turn_allowance(game.clock, bank)
    if allowance is None:
        return None, None
    if player.vacation_started_at is not None:
        return None, allowance
    return now + allowance, None


def turn_notifications(
    game_id: int, ply: int, player: PlayerState, deadline: int | None, now: int
) -> list[NotificationRow]:
    """The rows of a turn: its notice (sent with the write that began the turn) and the
    reminders still ahead of its deadline."""
    rows = []
    if player.turn_notices:
        rows.append(
            NotificationRow(
                game_id, ply, NotificationKind.TURN.value, 0, player.user_id, now, sent_at=now
            )
        )
    if deadline is not None:
        rows += [
            NotificationRow(
                game_id, ply, NotificationKind.REMINDER.value, offset, player.user_id, due, None
            )
            for offset, due in reminder_times(deadline, player.reminder_offsets, now)
        ]
    return rows


# --- the guarded writes ----------------------------------------------------------------------


def move_plan(
    snapshot: Snapshot,
    user_id: int,
    expected_ply: int,
    move: NewMove,
    now: int,
    engine_version: str,
    *,
    conditional: Any = None,
    answer: NewMove | None = None,
) -> Plan:
    """`Games.append_move` decided: the waiting player's tree checked against the plan the
    service made (`storage.conditional.ConditionalPlan`), the move, and the answer."""
    b = Builder(snapshot, now)
    b.active(expected_ply)
    _conditional_step(b, conditional)
    first = b.append(user_id, expected_ply, move, engine_version)
    b.extra["move"] = first
    if answer is not None:
        assert conditional is not None and conditional.owner_id is not None
        b.extra["answer"] = b.append(conditional.owner_id, expected_ply + 1, answer, engine_version)
    return b.plan()


def _conditional_step(b: Builder, plan: Any) -> None:
    """`storage.conditional.after_move`, decided on the snapshot's branches."""
    from storage.conditional import Branch, ConditionalTreeChangedError

    rows = b.snapshot.branches
    if plan is None:
        b.drop_branches = bool(rows)
        return
    current = frozenset(
        Branch(r.node, r.reply, r.reply_notation, r.answer, r.answer_notation, r.child)
        for r in rows
    )
    owners = {r.owner_id for r in rows}
    if current != plan.seen or (rows and owners != {plan.owner_id}):
        raise ConditionalTreeChangedError(b.game.id)
    b.effects.extend(plan.effects)
    if not plan.keep:
        b.drop_branches = bool(rows)
        return
    if not plan.keep <= current:
        raise InvalidValueError("a conditional plan keeps branches the tree does not have")
    b.delete_branches = tuple(
        sorted((branch.node, branch.reply) for branch in current if branch not in plan.keep)
    )


def resign_plan(snapshot: Snapshot, user_id: int, now: int, expected_ply: int | None) -> Plan:
    b = Builder(snapshot, now)
    b.active(expected_ply)
    color = b.participant(user_id)
    b.finish(Outcome(Result.win_for(color.other), Termination.RESIGNATION), actor_id=user_id)
    return b.plan()


def abort_plan(snapshot: Snapshot, user_id: int, now: int) -> Plan:
    b = Builder(snapshot, now)
    b.active(None)
    b.participant(user_id)
    if snapshot.sides_moved >= 2:
        raise AbortNotAllowedError(snapshot.game.id)
    b.finish(None, actor_id=user_id)
    return b.plan()


def end_plan(snapshot: Snapshot, expected_ply: int, outcome: Outcome, now: int) -> Plan:
    check_outcome(outcome)
    b = Builder(snapshot, now)
    b.active(expected_ply)
    b.finish(outcome)
    return b.plan()


def timeout_plan(
    snapshot: Snapshot,
    expected_ply: int,
    now: int,
    *,
    result: Result | None = None,
    detail: str = "",
) -> Plan:
    """`Games.claim_timeout` decided: the game ends on time at `now`."""
    b = Builder(snapshot, now)
    game = b.active(expected_ply, settle=False)
    if game.deadline_at is None or now < game.deadline_at:
        raise DeadlineNotReachedError(game.id, game.deadline_at)
    winner = game.turn.other
    if not detail and result is None:
        detail = f"{winner.value} wins on time"
    b.finish(Outcome(result or Result.win_for(winner), Termination.TIMEOUT, detail))
    return b.plan()


def draw_accept_plan(snapshot: Snapshot, offer_id: int, user_id: int, now: int) -> Plan:
    """`DrawOffers.accept` decided (the offer must be the game's pending one)."""
    offer = snapshot.draw
    if offer is None or offer.id != offer_id:
        raise RequestNotPendingError("draw offer", offer_id, "answered")
    b = Builder(snapshot, now)
    b.active(None)
    b.participant(user_id)
    if user_id == offer.offered_by:
        raise RefusedError("you cannot accept your own draw offer")
    b.resolve.append(Resolve("draw_offers", offer_id, RequestStatus.ACCEPTED, now))
    b.finish(Outcome(Result.DRAW, Termination.AGREEMENT), actor_id=user_id)
    return b.plan()


def takeback_accept_plan(
    snapshot: Snapshot,
    request_id: int,
    user_id: int,
    position_text: str,
    now: int,
    engine_version: str,
) -> Plan:
    """`Takebacks.accept` decided (the request must be the game's pending one)."""
    request = snapshot.takeback
    if request is None or request.id != request_id:
        raise RequestNotPendingError("takeback request", request_id, "answered")
    b = Builder(snapshot, now)
    game = b.active(request.ply)
    b.participant(user_id)
    if user_id == request.requested_by:
        raise RefusedError("you cannot accept your own takeback request")
    keep = game.ply_count - request.plies
    removed = snapshot.last_colors[-request.plies :]
    if len(removed) != request.plies:  # pragma: no cover - plies are contiguous
        raise GameMovedOnError(game.id, request.ply, game.ply_count)
    turn = removed[0]
    b.resolve.append(Resolve("takeback_requests", request_id, RequestStatus.ACCEPTED, now))
    b.archive = Archive(request_id, keep, now)
    b.drop_branches = True
    b.game = dataclasses.replace(
        game,
        ply_count=keep,
        position_text=position_text,
        engine_version=engine_version,
        turn=turn,
        updated_at=max(game.updated_at, now),
        revision=game.revision + 1,
    )
    b.lapse_draws = True
    b.start_turn(keep, b.game.player_id(turn), game.bank(turn))
    b.events.append(StorageEvent(EventKind.TAKEBACK, now, game=b.game, ply=keep, actor_id=user_id))
    if b._notice is not None:
        b._notice = dataclasses.replace(b._notice, game=b.game)
    return b.plan()


# --- snapshots as the database gives them -----------------------------------------------------


def player_state(row: Mapping[str, Any] | Any) -> PlayerState:
    return PlayerState(
        user_id=int(row["user_id"]),
        turn_notices=bool(row["turn_notices"]),
        reminder_offsets=_rows.parse_offsets(row["reminder_offsets"]),
        vacation_started_at=row["vacation_started_at"],
        vacation_ends_at=row["vacation_ends_at"],
    )


def stored_branch(row: Mapping[str, Any] | Any) -> StoredBranch:
    return StoredBranch(
        owner_id=int(row["owner_id"]),
        node=row["node"],
        reply=row["reply"],
        reply_notation=row["reply_notation"],
        answer=row["answer"],
        answer_notation=row["answer_notation"],
        child=row["child"],
    )


def snapshot_from(
    game: Game,
    players: Iterable[PlayerState],
    branches: Sequence[StoredBranch],
    draw: DrawOffer | None,
    takeback: TakebackRequest | None,
    sides_moved: int,
    last_colors: Sequence[str],
    digest: str | None = None,
) -> Snapshot:
    return Snapshot(
        game=game,
        players={p.user_id: p for p in players},
        branches=tuple(branches),
        draw=draw,
        takeback=takeback,
        sides_moved=int(sides_moved),
        last_colors=tuple(Color(c) for c in last_colors),
        digest=digest,
    )
