"""Durable timers: everything that falls due lives in the database, not in memory.

The bot's timer task sleeps until `next_claimable_at()`, then `claim`s what is due: each item
goes to the guarded call that acts on it (see `DueItem`) and is then released. After a
restart the same query returns whatever fell due while the bot was down; an item already
handled is refused by its guard. Several processes may share the database: a claim makes an
item one process's for a lease, and a process that dies has its claims taken over when the
lease runs out.
"""

from __future__ import annotations

from storage import _rows, _shared
from storage.db import Database, Row
from storage.errors import InvalidValueError
from storage.models import DueItem, DueKind, EventKind, NotificationKind, StorageEvent

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

_CLAIMABLE_SQL = f"""
SELECT due.* FROM ({_DUE_ITEMS}) AS due
LEFT JOIN timer_claims AS c ON c.item = due.item
WHERE c.item IS NULL OR c.lease_until <= :now OR c.owner = :owner
ORDER BY 2, 1, 4, 6, 3
LIMIT :limit
"""

_CLAIM_SQL = """
INSERT INTO timer_claims (item, owner, lease_until) VALUES (:item, :owner, :until)
ON CONFLICT (item) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
WHERE timer_claims.lease_until <= :now OR timer_claims.owner = excluded.owner
"""

STALE_CLAIM_SECONDS = 86_400
"""Claims whose lease ended this long ago are removed (their item is long gone)."""

_NEXT_SQL = """
SELECT min(t) FROM (
  SELECT min(due_at) AS t FROM notifications WHERE sent_at IS NULL
  UNION ALL SELECT min(deadline_at) FROM games WHERE deadline_at IS NOT NULL
  UNION ALL SELECT min(expires_at) FROM challenges WHERE status = 'open'
  UNION ALL SELECT min(vacation_ends_at) FROM players WHERE vacation_ends_at IS NOT NULL
) AS earliest
"""


_NEXT_AFTER_SQL = """
SELECT min(t) FROM (
  SELECT min(due_at) AS t FROM notifications WHERE sent_at IS NULL AND due_at > :now
  UNION ALL SELECT min(deadline_at) FROM games WHERE deadline_at > :now
  UNION ALL SELECT min(expires_at) FROM challenges WHERE status = 'open' AND expires_at > :now
  UNION ALL SELECT min(vacation_ends_at) FROM players WHERE vacation_ends_at > :now
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


def item_key(item: DueItem) -> str:
    """The claim key of an item, as the due query builds it."""
    if item.kind in (DueKind.TURN_NOTICE, DueKind.REMINDER):
        kind = (
            NotificationKind.TURN if item.kind is DueKind.TURN_NOTICE else NotificationKind.REMINDER
        )
        return f"notice:{item.game_id}:{item.ply}:{kind.value}:{item.offset_seconds}"
    if item.kind is DueKind.TIMEOUT:
        return f"timeout:{item.game_id}:{item.ply}"
    if item.kind is DueKind.CHALLENGE_EXPIRY:
        return f"challenge:{item.challenge_id}"
    return f"vacation:{item.user_id}"


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
        """Everything due at `now`, earliest first (claimed or not)."""
        _rows.check_positive("the limit", limit)
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(_DUE_SQL, {"now": now, "limit": limit})
        return [_item(row) for row in rows]

    async def claim(
        self, now: int, owner: str, *, lease_seconds: int, limit: int = 100
    ) -> list[DueItem]:
        """Claims up to `limit` items due at `now` for `owner` until `now + lease_seconds`,
        earliest first, and returns them. An item another owner holds under a running lease
        is left out; once that lease has run out (its process died) it can be claimed again.
        Of processes claiming at once, each item goes to exactly one. Handle each item
        through its guard, then `release` it."""
        _rows.check_positive("the limit", limit)
        _rows.check_positive("the lease", lease_seconds)
        _rows.check_text("a timer owner", owner, max_len=200)
        claimed: list[DueItem] = []
        async with self._db.transaction() as tx:
            await tx.run(
                "DELETE FROM timer_claims WHERE lease_until <= ?", (now - STALE_CLAIM_SECONDS,)
            )
            rows = await tx.all(_CLAIMABLE_SQL, {"now": now, "owner": owner, "limit": limit})
            for row in rows:
                won = await tx.run(
                    _CLAIM_SQL,
                    {"item": row[7], "owner": owner, "until": now + lease_seconds, "now": now},
                )
                if won:
                    claimed.append(_item(row))
        return claimed

    async def release(self, item: DueItem, owner: str) -> None:
        """Drops `owner`'s claim on a handled item."""
        async with self._db.transaction() as tx:
            await tx.run(
                "DELETE FROM timer_claims WHERE item = ? AND owner = ?", (item_key(item), owner)
            )

    async def release_all(self) -> int:
        """Drops every claim, so what a stopped process had claimed is taken at once instead
        of when its lease ends. Only for a process that knows the owners are gone: the bot
        at start-up, holding the database's instance lock (as `Effects.release`)."""
        async with self._db.transaction() as tx:
            return await tx.run("DELETE FROM timer_claims")

    async def next_claimable_at(self, now: int, owner: str) -> int | None:
        """When `owner` may next claim something: `now` if an unclaimed item is due, else the
        earliest of the next item to fall due and the end of another owner's lease."""
        async with self._db.transaction(write=False) as tx:
            waiting = await tx.one(_CLAIMABLE_SQL, {"now": now, "owner": owner, "limit": 1})
            if waiting is not None:
                return now
            later = await tx.scalar(_NEXT_AFTER_SQL, {"now": now})
            lease = await tx.scalar(
                "SELECT min(lease_until) FROM timer_claims WHERE lease_until > ? AND owner <> ?",
                (now, owner),
            )
        times = [int(t) for t in (later, lease) if t is not None]
        return min(times) if times else None

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
