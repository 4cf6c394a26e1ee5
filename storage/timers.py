"""Durable timers: everything that falls due lives in the database, not in memory.

The bot's timer task sleeps until `next_due_at()`, then handles `due(now)`: each item goes to
the guarded call that acts on it (see `DueItem`). After a restart the same query returns
whatever fell due while the bot was down; an item already handled is refused by its guard.
"""

from __future__ import annotations

from storage import _rows, _shared
from storage.db import Database
from storage.errors import InvalidValueError
from storage.models import DueItem, DueKind, EventKind, NotificationKind, StorageEvent

_KIND = {
    NotificationKind.TURN.value: DueKind.TURN_NOTICE,
    NotificationKind.REMINDER.value: DueKind.REMINDER,
}

_DUE_SQL = """
SELECT kind, due_at, user_id, game_id, ply, CAST(NULL AS BIGINT) AS challenge_id, offset_seconds
  FROM notifications WHERE sent_at IS NULL AND due_at <= :now
UNION ALL
SELECT 'timeout', deadline_at, CASE turn WHEN 'white' THEN white_id ELSE black_id END,
       id, ply_count, CAST(NULL AS BIGINT), 0
  FROM games WHERE deadline_at IS NOT NULL AND deadline_at <= :now
UNION ALL
SELECT 'challenge_expiry', expires_at, challenger_id, NULL, NULL, id, 0
  FROM challenges WHERE status = 'open' AND expires_at <= :now
UNION ALL
SELECT 'vacation_end', vacation_ends_at, user_id, NULL, NULL, NULL, 0
  FROM players WHERE vacation_ends_at IS NOT NULL AND vacation_ends_at <= :now
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


class Timers:
    """Obtain it as `Storage.timers`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def next_due_at(self) -> int | None:
        """The earliest pending deadline, reminder, challenge expiry or vacation end."""
        async with self._db.transaction(write=False) as tx:
            value = await tx.scalar(_NEXT_SQL)
        return None if value is None else int(value)

    async def due(self, now: int, limit: int = 100) -> list[DueItem]:
        """Everything due at `now`, earliest first."""
        _rows.check_positive("the limit", limit)
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(_DUE_SQL, {"now": now, "limit": limit})
        items = []
        for row in rows:
            kind = _KIND.get(row[0]) or DueKind(row[0])
            items.append(
                DueItem(
                    kind=kind,
                    due_at=row[1],
                    user_id=row[2],
                    game_id=row[3],
                    ply=row[4],
                    challenge_id=row[5],
                    offset_seconds=row[6],
                )
            )
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
