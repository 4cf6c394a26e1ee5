"""Durable timers: everything that falls due lives in the database, not in memory.

The bot's timer task sleeps until `next_due_at()`, then handles what is due in small batches,
each one transaction: `time_out_due` (games whose deadline passed end on time),
`notify_due` (reminders: the notice to send is recorded as an effect), and the challenges'
and vacations' own `expire_due` / `end_due`. Each batch takes its rows `FOR UPDATE SKIP
LOCKED` on PostgreSQL: several processes sharing the database each take different rows, and
rows another process is handling are skipped, not waited for. The lock is the claim: it ends
with the transaction, so a process that dies mid-batch holds nothing (the server rolls its
transaction back) and the next pass of any process takes the rows. After a restart the same
queries return whatever fell due while the bot was down.

A turn's own notice is not a timer: the write that begins the turn records it as an effect.
(`TURN_NOTICE` items remain for notices written by older versions.) The `timer_claims`
table of migration 0008 is no longer used.
"""

from __future__ import annotations

from storage import _rows, _shared, plans
from storage.apply import apply_plans
from storage.crashpoints import crashpoint
from storage.db import Database, Row
from storage.errors import InvalidValueError
from storage.models import DueItem, DueKind, EventKind, NotificationKind, StorageEvent

BATCH = 10
"""Rows one timer transaction takes: a process that dies holds up this few, for no longer
than its connection takes to drop."""

_KIND = {
    NotificationKind.TURN.value: DueKind.TURN_NOTICE,
    NotificationKind.REMINDER.value: DueKind.REMINDER,
}

_DUE_ITEMS = """
SELECT kind, due_at, user_id, game_id, ply, CAST(NULL AS BIGINT) AS challenge_id,
       offset_seconds,
       'notice:' || game_id || ':' || ply || ':' || kind || ':' || offset_seconds AS item
  FROM notifications WHERE sent_at IS NULL AND due_at <= :now
UNION ALL
SELECT 'timeout', deadline_at, CASE turn WHEN 'white' THEN white_id ELSE black_id END,
       id, ply_count, CAST(NULL AS BIGINT), 0, 'timeout:' || id || ':' || ply_count
  FROM games WHERE deadline_at IS NOT NULL AND deadline_at <= :now
UNION ALL
SELECT 'challenge_expiry', expires_at, challenger_id, NULL, NULL, id, 0, 'challenge:' || id
  FROM challenges WHERE status = 'open' AND expires_at <= :now
UNION ALL
SELECT 'vacation_end', vacation_ends_at, user_id, NULL, NULL, NULL, 0, 'vacation:' || user_id
  FROM players WHERE vacation_ends_at IS NOT NULL AND vacation_ends_at <= :now
"""

_DUE_SQL = f"""
SELECT * FROM ({_DUE_ITEMS}) AS due
ORDER BY 2, 1, 4, 6, 3
LIMIT :limit
"""

_NEXT_SQL = """
SELECT min(t) FROM (
  SELECT min(due_at) AS t FROM notifications WHERE sent_at IS NULL
  UNION ALL SELECT min(deadline_at) FROM games WHERE deadline_at IS NOT NULL
  UNION ALL SELECT min(expires_at) FROM challenges WHERE status = 'open'
  UNION ALL SELECT min(vacation_ends_at) FROM players WHERE vacation_ends_at IS NOT NULL
) AS earliest
"""


def _item(row: Row) -> DueItem:
    return DueItem(
        kind=_KIND.get(row[0]) or DueKind(row[0]),
        due_at=row[1],
        user_id=row[2],
        game_id=row[3],
        ply=row[4],
        challenge_id=row[5],
        offset_seconds=row[6],
    )


class Timers:
    """Obtain it as `Storage.timers`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def next_due_at(self) -> int | None:
        """The earliest pending deadline, reminder, challenge expiry or vacation end."""
        value = await self._db.scalar(_NEXT_SQL)
        return None if value is None else int(value)

    async def due(self, now: int, limit: int = 100) -> list[DueItem]:
        """Everything due at `now`, earliest first (claimed or not)."""
        _rows.check_positive("the limit", limit)
        rows = await self._db.all(_DUE_SQL, {"now": now, "limit": limit})
        return [_item(row) for row in rows]

    async def time_out_due(self, now: int, *, limit: int = BATCH) -> list[DueItem]:
        """Ends on time up to `limit` games whose deadline passed by `now` (at `now`, as
        `Games.claim_timeout` does), in one transaction; their rows are taken `FOR UPDATE
        SKIP LOCKED`. Returns the items handled (fewer than `limit`: nothing else is due,
        or another process holds it)."""
        _rows.check_positive("the limit", limit)
        async with self._db.transaction() as tx:
            rows = await tx.all(
                "SELECT * FROM games WHERE deadline_at IS NOT NULL AND deadline_at <= ? "
                f"AND status = 'active' ORDER BY deadline_at, id LIMIT ?{tx.skip_locked}",
                (now, limit),
            )
            items, found = [], []
            for row in rows:
                game = _rows.game(row)
                crashpoint(f"timer.claimed:{DueKind.TIMEOUT.value}")
                found.append(plans.timeout_plan(plans.Snapshot(game, {}), game.ply_count, now))
                items.append(
                    DueItem(
                        DueKind.TIMEOUT,
                        game.deadline_at or now,
                        game.to_move_id,
                        game.id,
                        game.ply_count,
                    )
                )
            await apply_plans(tx, found)
        return items

    async def notify_due(self, now: int, *, limit: int = BATCH) -> list[DueItem]:
        """Marks up to `limit` notices due by `now` as sent, in one transaction (rows taken
        `FOR UPDATE SKIP LOCKED`), each emitting `NOTICE_DUE`: the effect rules record the
        notice to send in the same transaction. A notice whose turn is over is marked
        without a notice. Returns the notices handled."""
        _rows.check_positive("the limit", limit)
        async with self._db.transaction() as tx:
            rows = await tx.all(
                "SELECT game_id, ply, kind, offset_seconds, user_id, due_at FROM notifications "
                "WHERE sent_at IS NULL AND due_at <= ? "
                "ORDER BY due_at, game_id, ply, kind, offset_seconds "
                f"LIMIT ?{tx.skip_locked}",
                (now, limit),
            )
            if not rows:
                return []
            ids = sorted({int(row["game_id"]) for row in rows})
            games = {
                game.id: game
                for game in map(
                    _rows.game,
                    await tx.all(
                        f"{_shared.GAME_SELECT} WHERE id IN ({', '.join('?' * len(ids))})", ids
                    ),
                )
            }
            await tx.many(
                "UPDATE notifications SET sent_at = ? "
                "WHERE game_id = ? AND ply = ? AND kind = ? AND offset_seconds = ?",
                [(now, r["game_id"], r["ply"], r["kind"], r["offset_seconds"]) for r in rows],
            )
            items = []
            for row in rows:
                item = DueItem(
                    _KIND[row["kind"]],
                    row["due_at"],
                    row["user_id"],
                    row["game_id"],
                    row["ply"],
                    None,
                    row["offset_seconds"],
                )
                crashpoint(f"timer.claimed:{item.kind.value}")
                game = games.get(item.game_id or 0)
                if game is None or not game.is_active or game.ply_count != item.ply:
                    continue  # the turn is over: nothing to say any more
                tx.emit(StorageEvent(EventKind.NOTICE_DUE, now, game=game, due=item, ply=item.ply))
                items.append(item)
        return items

    async def claim_notification(self, item: DueItem, now: int) -> bool:
        """Marks a turn notice or reminder as sent. True for exactly one caller while the
        game is still at that ply; False if it was claimed already or the turn is over.
        The claim emits `NOTICE_DUE`: the effect rules record the notice to send in the same
        transaction, so a crash after the claim neither loses nor doubles it."""
        if item.kind not in (DueKind.TURN_NOTICE, DueKind.REMINDER):
            raise InvalidValueError(f"{item.kind.value} items are not notifications")
        kind = (
            NotificationKind.TURN if item.kind is DueKind.TURN_NOTICE else NotificationKind.REMINDER
        )
        async with self._db.transaction() as tx:
            # The game row first, as every write to a game takes it (a move locks the game,
            # then replaces its notifications): the other order could deadlock on PostgreSQL.
            await tx.one(f"SELECT id FROM games WHERE id = ?{tx.for_update}", (item.game_id,))
            changed = await tx.run(
                "UPDATE notifications SET sent_at = ? "
                "WHERE game_id = ? AND ply = ? AND kind = ? AND offset_seconds = ? "
                "AND sent_at IS NULL AND due_at <= ? "
                "AND EXISTS (SELECT 1 FROM games WHERE id = notifications.game_id "
                "            AND status = 'active' AND ply_count = notifications.ply)",
                (now, item.game_id, item.ply, kind.value, item.offset_seconds, now),
            )
            if changed == 1 and item.game_id is not None:
                game = await _shared.fetch_game(tx, item.game_id)
                tx.emit(StorageEvent(EventKind.NOTICE_DUE, now, game=game, due=item, ply=item.ply))
        return changed == 1
