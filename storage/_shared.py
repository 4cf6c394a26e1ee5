"""Steps shared by several repositories, always run inside a caller's write transaction."""

from __future__ import annotations

from collections.abc import Iterable

from storage import _rows
from storage.clock import reminder_times, split_by_year
from storage.db import Reader, Tx
from storage.errors import (
    GameEndedError,
    GameLostOnTimeError,
    GameMovedOnError,
    GameNotFoundError,
)
from storage.models import (
    DueItem,
    DueKind,
    EventKind,
    Game,
    NotificationKind,
    Outcome,
    RequestStatus,
    Result,
    StorageEvent,
    Termination,
)

GAME_SELECT = "SELECT * FROM games"


async def fetch_game(tx: Reader, game_id: int) -> Game:
    """The game; in a write transaction its row stays locked until COMMIT (PostgreSQL), so
    whatever the caller decides from it still holds when it writes."""
    row = await tx.one(f"{GAME_SELECT} WHERE id = ?{tx.for_update}", (game_id,))
    if row is None:
        raise GameNotFoundError(game_id)
    return _rows.game(row)


async def definition_of(tx: Tx, digest: str | None) -> str | None:
    """The text of a pinned variant definition (None for a built-in variant's game)."""
    if digest is None:
        return None
    row = await tx.one("SELECT content FROM variant_definitions WHERE digest = ?", (digest,))
    return None if row is None else str(row[0])


async def fetch_active_game(
    tx: Tx, game_id: int, expected_ply: int | None, *, now: int | None = None
) -> Game:
    """The game, refused unless it is still going and (if given) still at `expected_ply`.

    With `now`, a deadline that has passed is settled first (deadlines win): the game is
    lost on time in this transaction, which commits, and `GameLostOnTimeError` is raised
    before the caller's action is considered."""
    game = await fetch_game(tx, game_id)
    if now is not None and game.is_active:
        settled = await settle_deadline(tx, game, now)
        if not settled.is_active:
            raise GameLostOnTimeError(settled)
        game = settled
    if not game.is_active:
        raise GameEndedError(game_id, game.ply_count)
    if expected_ply is not None and game.ply_count != expected_ply:
        raise GameMovedOnError(game_id, expected_ply, game.ply_count)
    return game


async def ensure_players(tx: Tx, user_ids: Iterable[int], now: int) -> None:
    """Foreign keys need a player row; people may act before the bot has seen them."""
    await tx.many(
        "INSERT INTO players (user_id, created_at, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO NOTHING",
        [(user_id, now, now) for user_id in user_ids],
    )


async def start_turn(
    tx: Tx, *, game: Game, ply: int, user_id: int, bank: int, now: int
) -> tuple[int | None, int | None, StorageEvent | None]:
    """Begins the turn of `user_id` at `ply` of `game` (a game being created; guarded
    writes do this in their plan, `storage.plans`): returns the game's new (deadline_at,
    paused_remaining), replaces the game's notifications with this turn's, and returns the
    turn notice's event (None when the player wants none), to emit once the game row is
    written: the notice is an effect of this transaction, not a timer."""
    from storage.plans import player_state, turn_clock, turn_notifications

    row = await tx.one(
        "SELECT user_id, turn_notices, reminder_offsets, vacation_started_at, vacation_ends_at "
        "FROM players WHERE user_id = ?",
        (user_id,),
    )
    if row is None:  # pragma: no cover - foreign keys guarantee the row
        raise GameNotFoundError(game.id)
    player = player_state(row)
    deadline, paused = turn_clock(game, bank, player, now)
    await tx.run("DELETE FROM notifications WHERE game_id = ?", (game.id,))
    await tx.many(
        "INSERT INTO notifications (game_id, ply, kind, offset_seconds, user_id, due_at, sent_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (n.game_id, n.ply, n.kind, n.offset_seconds, n.user_id, n.due_at, n.sent_at)
            for n in turn_notifications(game.id, ply, player, deadline, now)
        ],
    )
    notice = None
    if player.turn_notices:
        due = DueItem(DueKind.TURN_NOTICE, now, user_id, game.id, ply)
        notice = StorageEvent(EventKind.NOTICE_DUE, now, due=due, ply=ply)
    return deadline, paused, notice


async def schedule_reminders(
    tx: Tx,
    *,
    game_id: int,
    ply: int,
    user_id: int,
    deadline_at: int,
    offsets: Iterable[int],
    now: int,
) -> None:
    """Adds the reminders still ahead; one already sent for this turn is not sent again."""
    rows = [
        (game_id, ply, NotificationKind.REMINDER.value, offset, user_id, due)
        for offset, due in reminder_times(deadline_at, offsets, now)
    ]
    if rows:
        await tx.many(
            "INSERT INTO notifications (game_id, ply, kind, offset_seconds, user_id, due_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            rows,
        )


async def drop_pending_reminders(tx: Tx, game_id: int) -> None:
    await tx.run(
        "DELETE FROM notifications WHERE game_id = ? AND kind = ? AND sent_at IS NULL",
        (game_id, NotificationKind.REMINDER.value),
    )


async def drop_conditional_moves(tx: Tx, game_id: int) -> int:
    """Conditional moves never outlive the position they were made for: every ending and
    takeback drops them (`storage.conditional`)."""
    return await tx.run("DELETE FROM conditional_moves WHERE game_id = ?", (game_id,))


async def lapse_requests(tx: Tx, game_id: int, now: int, *, offered_by: int | None = None) -> None:
    """Pending takebacks lapse on any change of the game; draw offers lapse when their
    offerer moves (`offered_by`) or when the game ends (no `offered_by`)."""
    lapsed = RequestStatus.LAPSED.value
    pending = RequestStatus.PENDING.value
    await tx.run(
        "UPDATE takeback_requests SET status = ?, resolved_at = ? WHERE game_id = ? AND status = ?",
        (lapsed, now, game_id, pending),
    )
    if offered_by is None:
        await tx.run(
            "UPDATE draw_offers SET status = ?, resolved_at = ? WHERE game_id = ? AND status = ?",
            (lapsed, now, game_id, pending),
        )
    else:
        await tx.run(
            "UPDATE draw_offers SET status = ?, resolved_at = ? "
            "WHERE game_id = ? AND status = ? AND offered_by = ?",
            (lapsed, now, game_id, pending, offered_by),
        )


async def settle_deadline(tx: Tx, game: Game, now: int) -> Game:
    """What the clock decided by `now` and nobody has written yet, written now: a vacation of
    the player to move that ran out (their clocks restart from its end), then a deadline that
    has passed (the player to move loses on time). Returns the game as it is afterwards."""
    if not game.is_active:
        return game
    user_id = game.to_move_id
    ends_at = await tx.scalar(
        "SELECT vacation_ends_at FROM players WHERE user_id = ? AND vacation_ends_at <= ?",
        (user_id, now),
    )
    if ends_at is not None:
        await end_vacation(tx, user_id, int(ends_at), now)
        game = await fetch_game(tx, game.id)
    if game.deadline_at is None or now < game.deadline_at:
        return game
    winner = game.turn.other
    outcome = Outcome(Result.win_for(winner), Termination.TIMEOUT, f"{winner.value} wins on time")
    # The game was lost when the deadline passed, however late this is written.
    await finish_game(tx, game, outcome, game.deadline_at)
    return await fetch_game(tx, game.id)


async def end_vacation(tx: Tx, user_id: int, at: int, now: int) -> None:
    """Ends the player's vacation at `at` (<= `now`): counts the days used and restarts the
    clocks it stopped, from `at`."""
    started = int(
        await tx.scalar("SELECT vacation_started_at FROM players WHERE user_id = ?", (user_id,))
    )
    for year, seconds in split_by_year(started, max(started, at)).items():
        await tx.run(
            "INSERT INTO vacation_usage (user_id, year, used_seconds) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id, year) DO UPDATE SET "
            "used_seconds = vacation_usage.used_seconds + excluded.used_seconds",
            (user_id, year, seconds),
        )
    await tx.run(
        "UPDATE players SET vacation_started_at = NULL, vacation_ends_at = NULL, "
        "updated_at = greatest(updated_at, ?) WHERE user_id = ?",
        (now, user_id),
    )
    offsets = _rows.parse_offsets(
        await tx.scalar("SELECT reminder_offsets FROM players WHERE user_id = ?", (user_id,))
    )
    games = await tx.all(
        f"SELECT id, ply_count, paused_remaining FROM games WHERE {PLAYER_TO_MOVE} "
        f"AND paused_remaining IS NOT NULL ORDER BY id{tx.for_update}",
        {"user": user_id},
    )
    for game in games:
        deadline = at + game["paused_remaining"]
        await tx.run(
            "UPDATE games SET deadline_at = ?, paused_remaining = NULL WHERE id = ?",
            (deadline, game["id"]),
        )
        await schedule_reminders(
            tx,
            game_id=game["id"],
            ply=game["ply_count"],
            user_id=user_id,
            deadline_at=deadline,
            offsets=offsets,
            now=now,
        )


PLAYER_TO_MOVE = (
    "status = 'active' AND ((turn = 'white' AND white_id = :user) "
    "OR (turn = 'black' AND black_id = :user))"
)
"""SQL condition (named parameter `:user`): the player's active games where it is their turn."""


async def finish_game(
    tx: Tx,
    game: Game,
    outcome: Outcome | None,
    now: int,
    *,
    actor_id: int | None = None,
    abort_detail: str = "",
    part_of: EventKind | None = None,
) -> None:
    """Ends `game` as seen at its current ply; `outcome=None` aborts it (`abort_detail`
    says why, when a moderator cancels it). Compare-and-set on status and ply, so a game
    can never end twice. Emits `GAME_ENDED` (`part_of` the larger event that ended it, if
    any: a withdrawal, a round's deadline). The same step as every guarded ending
    (`storage.plans.Builder.finish`), written in the caller's transaction."""
    from storage.apply import apply_plan
    from storage.plans import Builder, Snapshot

    current = await fetch_game(tx, game.id)  # with what the caller wrote since it read it
    if current.status is not game.status or current.ply_count != game.ply_count:
        raise GameMovedOnError(game.id, game.ply_count, current.ply_count)
    builder = Builder(Snapshot(current, {}), now)
    builder.finish(outcome, actor_id=actor_id, abort_detail=abort_detail, part_of=part_of)
    await apply_plan(tx, builder.plan())
