"""The durable outbox: consequences of an event, recorded in the event's transaction.

An event (a move, an ending, a timeout, a claimed reminder) commits together with the effects
it sets off, so a crash can never leave an event without its consequences. A worker then
claims due effects, carries them out and marks them done; a failed attempt is retried later
and, after its last attempt, recorded as failed. Storage keeps the rows; what an effect does
is the worker's business (the bot's effect registry maps each `kind` to a handler).

Two ways to record effects, both inside the transaction of the event:

- **Rules.** Repositories emit `StorageEvent`s (`tx.emit(...)`); just before COMMIT every rule
  registered for the event's kind (`Effects.rules.on(EventKind.GAME_ENDED, rule)`) returns the
  effects to record. This is how consequences attach to events storage raises itself (a move,
  every ending including a deadline settled during another action, a claimed reminder).
- **Directly.** Code that runs its own write transaction calls `record_effects(tx, effects,
  now)`; `Effects.add` does it in a transaction of its own.

Claiming works for several workers (and, with a `FOR UPDATE SKIP LOCKED` query, several
processes): a claim sets `claimed_by` and `lease_until`; a claim whose lease ran out may be
taken by another worker. Only the head of each queue (the oldest pending effect sharing its
`queue`) is claimable, so a game's posts come out in order. Every state change after the
claim is compare-and-set on `claimed_by`: a worker that lost its lease changes nothing.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from storage import _rows
from storage.db import Database, Tx
from storage.errors import EffectNotFoundError, InvalidValueError
from storage.models import (
    Effect,
    EffectStatus,
    EventKind,
    NewEffect,
    StorageEvent,
)

log = logging.getLogger(__name__)

DEFAULT_LEASE_SECONDS = 30
"""How long a claim holds without being renewed. A worker renews the claims it holds while
it works (`extend`); one that died, or hangs, loses them this long after its last renewal.
Comfortably shorter than the few minutes in which Discord recognises a repeated message
nonce, so a post whose process died after Discord accepted it is retried in time to be
recognised (and its message id is remembered the moment it is known)."""
INSTANCE_LOCK_KEY = "hashtextextended(split_part({column}, '/', 1), 0)"
"""The advisory lock (PostgreSQL, one BIGINT) a running process holds under its instance
name: the part of a worker's owner name before the first `/`."""
MAX_ERROR = 2000
MAX_PAYLOAD = 16_000


def player_queue(user_id: int, name: str) -> str:
    """The queue of a player's own effects, not a game's (a daily digest): `player:<id>:<name>`.
    Forgetting the player (`Players.forget`) deletes them, done or not, with their keys."""
    return f"player:{user_id}:{name}"


Rule = Callable[[StorageEvent], Iterable[NewEffect]]
"""Turns one event into the effects it sets off (pure: no I/O, runs inside the transaction)."""


class EffectRules:
    """Which effects each kind of storage event sets off. Rules of one kind run in the
    order they were added; their effects are recorded in that order."""

    def __init__(self) -> None:
        self._rules: defaultdict[EventKind, list[Rule]] = defaultdict(list)

    def on(self, kind: EventKind, rule: Rule) -> None:
        self._rules[kind].append(rule)

    def clear(self) -> None:
        self._rules.clear()

    def effects_for(self, event: StorageEvent) -> list[NewEffect]:
        return [effect for rule in self._rules.get(event.kind, ()) for effect in rule(event)]


EFFECT_COLUMNS = (
    "kind",
    "payload",
    "game_id",
    "queue",
    "dedupe_key",
    "next_attempt_at",
    "created_at",
    "updated_at",
)
_INSERT_CHUNK = 500


def effect_row(effect: NewEffect, now: int) -> tuple[object, ...]:
    """The values of `EFFECT_COLUMNS` for `effect` recorded at `now` (checked)."""
    _rows.check_text("an effect kind", effect.kind, max_len=64)
    payload = _payload_json(effect)
    queue = effect.queue
    if queue is None and effect.game_id is not None:
        queue = f"game:{effect.game_id}"
    if queue is not None:
        _rows.check_text("an effect queue", queue, max_len=100)
    if effect.dedupe_key is not None:
        _rows.check_text("an effect's dedupe key", effect.dedupe_key, max_len=200)
    return (
        effect.kind,
        payload,
        effect.game_id,
        queue,
        effect.dedupe_key,
        max(now, effect.not_before or now),
        now,
        now,
    )


async def record_effects(tx: Tx, effects: Iterable[NewEffect], now: int) -> list[int]:
    """Records `effects` in the caller's write transaction; returns the ids of the rows
    written (an effect whose `dedupe_key` exists already is skipped)."""
    return await record_effect_rows(tx, [effect_row(effect, now) for effect in effects])


async def record_effect_rows(tx: Tx, rows: Sequence[tuple[object, ...]]) -> list[int]:
    """Rows of `effect_row`, in one statement (per 500): one round trip on PostgreSQL."""
    ids: list[int] = []
    columns = ", ".join(EFFECT_COLUMNS)
    one = f"({', '.join('?' * len(EFFECT_COLUMNS))})"
    for start in range(0, len(rows), _INSERT_CHUNK):
        chunk = rows[start : start + _INSERT_CHUNK]
        inserted = await tx.all(
            f"INSERT INTO effects ({columns}) VALUES {', '.join([one] * len(chunk))} "
            "ON CONFLICT (dedupe_key) DO NOTHING RETURNING id",
            [value for row in chunk for value in row],
        )
        # Ids grow in the order of the VALUES: sorted, they are the recording order.
        ids += sorted(int(row[0]) for row in inserted)
    return ids


def _payload_json(effect: NewEffect) -> str:
    try:
        text = json.dumps(dict(effect.payload), sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise InvalidValueError(f"a {effect.kind} effect's payload is not JSON: {exc}") from exc
    if len(text) > MAX_PAYLOAD:
        raise InvalidValueError(f"the payload of a {effect.kind} effect is too large")
    return text


_HEAD_OF_QUEUE = """(queue IS NULL OR NOT EXISTS (
    SELECT 1 FROM effects AS earlier
    WHERE earlier.queue = effects.queue AND earlier.status = 'pending' AND earlier.id < effects.id))
"""

_CLAIMABLE = f"""
status = 'pending' AND next_attempt_at <= :now
AND (claimed_by IS NULL OR lease_until <= :now)
AND {_HEAD_OF_QUEUE}
"""


def _kind_filter(kinds: Sequence[str] | None) -> tuple[str, dict[str, object]]:
    if kinds is None:
        return "", {}
    names = [f":k{i}" for i in range(len(kinds))]
    return f"AND kind IN ({', '.join(names) or 'NULL'})", {
        f"k{i}": kind for i, kind in enumerate(kinds)
    }


class Effects:
    """The outbox. Obtain it as `Storage.effects`."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.rules = EffectRules()
        db.on_events = self._record_events
        db.effect_rows_of = self.rows_of

    def rows_of(self, events: Sequence[StorageEvent]) -> list[tuple[object, ...]]:
        """The effect rows the rules record for `events`, in order (for a write that
        records them itself, in one statement)."""
        return [
            effect_row(effect, event.at)
            for event in events
            for effect in self.rules.effects_for(event)
        ]

    async def _record_events(self, tx: Tx, events: list[StorageEvent]) -> None:
        await record_effect_rows(tx, self.rows_of(events))

    async def add(self, effects: Sequence[NewEffect], now: int) -> list[Effect]:
        """Records effects in a transaction of their own (for events that have none)."""
        async with self._db.transaction() as tx:
            ids = await record_effects(tx, effects, now)
            return [await self._fetch(tx, effect_id) for effect_id in ids]

    async def get(self, effect_id: int) -> Effect:
        row = await self._db.one("SELECT * FROM effects WHERE id = ?", (effect_id,))
        if row is None:
            raise EffectNotFoundError(effect_id)
        return _rows.effect(row)

    async def find(
        self,
        *,
        status: EffectStatus | None = None,
        game_id: int | None = None,
        kind: str | None = None,
        limit: int = 100,
    ) -> list[Effect]:
        """Effects, oldest first, filtered by status, game and kind."""
        _rows.check_positive("the limit", limit)
        where, params = ["1 = 1"], []
        for column, value in (("status", status), ("game_id", game_id), ("kind", kind)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value.value if isinstance(value, EffectStatus) else value)
        rows = await self._db.all(
            f"SELECT * FROM effects WHERE {' AND '.join(where)} ORDER BY id LIMIT ?",
            (*params, limit),
        )
        return [_rows.effect(row) for row in rows]

    async def counts(self) -> dict[EffectStatus, int]:
        rows = await self._db.all("SELECT status, count(*) FROM effects GROUP BY status")
        out = dict.fromkeys(EffectStatus, 0)
        out.update({EffectStatus(row[0]): int(row[1]) for row in rows})
        return out

    async def next_due_at(self, kinds: Sequence[str] | None = None) -> int | None:
        """When the next pending effect (of `kinds`, if given) may be claimed: its attempt
        time, or the end of the lease holding it. None when nothing is pending."""
        kind_filter, params = _kind_filter(kinds)
        value = await self._db.scalar(
            "SELECT min(greatest(next_attempt_at, coalesce(lease_until, 0))) FROM effects "
            f"WHERE status = 'pending' AND {_HEAD_OF_QUEUE} {kind_filter}",
            params,
        )
        return None if value is None else int(value)

    async def claim(
        self,
        owner: str,
        now: int,
        *,
        lease_seconds: int = DEFAULT_LEASE_SECONDS,
        limit: int = 20,
        kinds: Sequence[str] | None = None,
    ) -> list[Effect]:
        """Claims up to `limit` due effects for `owner` (at most one per queue, the oldest),
        counting an attempt for each. A claim holds until `now + lease_seconds`."""
        _rows.check_positive("the limit", limit)
        _rows.check_positive("the lease", lease_seconds)
        _rows.check_text("an effect owner", owner, max_len=200)
        kind_filter, params = _kind_filter(kinds)
        params.update({"now": now, "owner": owner, "until": now + lease_seconds, "limit": limit})
        skip_locked = " FOR UPDATE SKIP LOCKED" if self._db.dialect == "postgresql" else ""
        rows = await self._db.returning(
            "UPDATE effects SET claimed_by = :owner, lease_until = :until, "
            "attempts = attempts + 1, updated_at = greatest(updated_at, :now) "
            f"WHERE id IN (SELECT id FROM effects WHERE {_CLAIMABLE} {kind_filter} "
            f"ORDER BY next_attempt_at, id LIMIT :limit{skip_locked}) "
            # A claim taken meanwhile by another worker is not taken again (PostgreSQL
            # re-reads a row it waited for; the lease test must still hold).
            "AND (claimed_by IS NULL OR lease_until <= :now) RETURNING *",
            params,
        )
        return sorted((_rows.effect(row) for row in rows), key=lambda e: e.id)

    async def claim_one(
        self, effect_id: int, owner: str, now: int, *, lease_seconds: int = DEFAULT_LEASE_SECONDS
    ) -> Effect | None:
        """Claims one effect if it is claimable now (pending, due, unclaimed or its lease
        over, first in its queue); None otherwise."""
        rows = await self._db.returning(
            "UPDATE effects SET claimed_by = :owner, lease_until = :until, "
            "attempts = attempts + 1, updated_at = greatest(updated_at, :now) "
            f"WHERE id = :id AND {_CLAIMABLE} RETURNING *",
            {"id": effect_id, "owner": owner, "now": now, "until": now + lease_seconds},
        )
        return _rows.effect(rows[0]) if rows else None

    async def remember_message(
        self, effect_id: int, owner: str, channel_id: int, message_id: int, now: int
    ) -> bool:
        """Records the message a post became, before anything else happens to the effect:
        whoever carries the effect out again sees it and does not post twice."""
        changed = await self._db.run(
            "UPDATE effects SET channel_id = ?, message_id = ?, "
            "updated_at = greatest(updated_at, ?) "
            "WHERE id = ? AND claimed_by = ? AND status = 'pending'",
            (channel_id, message_id, now, effect_id, owner),
        )
        return changed == 1

    async def complete(self, effect_id: int, owner: str, now: int) -> bool:
        """Marks a claimed effect done. False if `owner` no longer holds the claim."""
        changed = await self._db.run(
            "UPDATE effects SET status = 'done', claimed_by = NULL, lease_until = NULL, "
            "last_error = '', done_at = ?, updated_at = greatest(updated_at, ?) "
            "WHERE id = ? AND claimed_by = ? AND status = 'pending'",
            (now, now, effect_id, owner),
        )
        return changed == 1

    async def retry(self, effect_id: int, owner: str, now: int, *, at: int, error: str) -> bool:
        """Gives a claimed effect back, to be tried again at `at`."""
        changed = await self._db.run(
            "UPDATE effects SET claimed_by = NULL, lease_until = NULL, next_attempt_at = ?, "
            "last_error = ?, updated_at = greatest(updated_at, ?) "
            "WHERE id = ? AND claimed_by = ? AND status = 'pending'",
            (max(at, now), error[:MAX_ERROR], now, effect_id, owner),
        )
        return changed == 1

    async def fail(self, effect_id: int, owner: str, now: int, *, error: str) -> bool:
        """Gives up on a claimed effect: it stays in the table as failed, for the operator
        (`python -m storage effects`), and no longer holds up its queue."""
        changed = await self._db.run(
            "UPDATE effects SET status = 'failed', claimed_by = NULL, lease_until = NULL, "
            "last_error = ?, done_at = ?, updated_at = greatest(updated_at, ?) "
            "WHERE id = ? AND claimed_by = ? AND status = 'pending'",
            (error[:MAX_ERROR] or "failed", now, now, effect_id, owner),
        )
        return changed == 1

    async def extend(self, owner: str, effect_ids: Sequence[int], now: int, until: int) -> int:
        """Renews `owner`'s claims on these effects until `until` (a worker still at work
        keeps what it holds); returns how many it still held."""
        if not effect_ids:
            return 0
        marks = ", ".join("?" * len(effect_ids))
        return await self._db.run(
            f"UPDATE effects SET lease_until = ?, updated_at = greatest(updated_at, ?) "
            f"WHERE id IN ({marks}) AND claimed_by = ? AND status = 'pending' "
            "AND lease_until < ?",
            (until, now, *effect_ids, owner, until),
        )

    async def release_dead(self, now: int) -> int:
        """Drops the claims of workers whose process is gone, so their effects are taken at
        once rather than when their leases end (PostgreSQL). A worker's owner name starts
        with its process's instance name (`instance/worker`); a running process holds the
        session advisory lock of that name (`Storage.hold_instance`). A lock that can be
        taken proves the process gone. Returns how many claims were dropped; always 0 on
        SQLite, where the bot alone holds the file and releases at start-up (`release`)."""
        if self._db.dialect != "postgresql":
            return 0
        rows = await self._db.returning(
            "UPDATE effects SET claimed_by = NULL, lease_until = NULL, "
            "updated_at = greatest(updated_at, ?) "
            "WHERE status = 'pending' AND claimed_by IN ("
            "  SELECT owner FROM (SELECT DISTINCT claimed_by AS owner FROM effects"
            "   WHERE status = 'pending' AND claimed_by IS NOT NULL AND lease_until > ?)"
            "   AS owners"
            f"  WHERE pg_try_advisory_xact_lock({INSTANCE_LOCK_KEY.format(column='owner')}))"
            " RETURNING id",
            (now, now),
        )
        return len(rows)

    async def release(self, now: int, owner: str | None = None) -> int:
        """Drops the claims of `owner` (every claim with None), so the effects can be taken
        at once instead of when their leases end. Only for a process that knows the owners
        are gone: the bot at start-up, holding the database's instance lock."""
        where = "status = 'pending' AND claimed_by IS NOT NULL"
        params: tuple[object, ...] = (now,)
        if owner is not None:
            where += " AND claimed_by = ?"
            params = (now, owner)
        async with self._db.transaction() as tx:
            return await tx.run(
                "UPDATE effects SET claimed_by = NULL, lease_until = NULL, "
                f"updated_at = greatest(updated_at, ?) WHERE {where}",
                params,
            )

    async def prune(self, before: int, limit: int = 10_000) -> int:
        """Deletes up to `limit` effects carried out before `before` (their consequences are
        in the other tables and in Discord); pending and failed ones are kept."""
        _rows.check_positive("the limit", limit)
        async with self._db.transaction() as tx:
            return await tx.run(
                "DELETE FROM effects WHERE id IN (SELECT id FROM effects "
                "WHERE status = 'done' AND done_at < ? ORDER BY id LIMIT ?)",
                (before, limit),
            )

    async def requeue(self, effect_id: int, now: int) -> Effect:
        """Puts a failed effect back in line (an operator decision, after fixing the cause)."""
        async with self._db.transaction() as tx:
            effect = await self._fetch(tx, effect_id)
            if effect.status is not EffectStatus.FAILED:
                raise InvalidValueError(f"effect {effect_id} is {effect.status.value}, not failed")
            await tx.run(
                "UPDATE effects SET status = 'pending', attempts = 0, next_attempt_at = ?, "
                "done_at = NULL, updated_at = greatest(updated_at, ?) WHERE id = ?",
                (now, now, effect_id),
            )
            return await self._fetch(tx, effect_id)

    @staticmethod
    async def _fetch(tx: Tx, effect_id: int) -> Effect:
        row = await tx.one("SELECT * FROM effects WHERE id = ?", (effect_id,))
        if row is None:
            raise EffectNotFoundError(effect_id)
        return _rows.effect(row)
