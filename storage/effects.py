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

DEFAULT_LEASE_SECONDS = 300
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


async def record_effects(tx: Tx, effects: Iterable[NewEffect], now: int) -> list[int]:
    """Records `effects` in the caller's write transaction; returns the ids of the rows
    written (an effect whose `dedupe_key` exists already is skipped)."""
    ids: list[int] = []
    for effect in effects:
        _rows.check_text("an effect kind", effect.kind, max_len=64)
        payload = _payload_json(effect)
        queue = effect.queue
        if queue is None and effect.game_id is not None:
            queue = f"game:{effect.game_id}"
        if queue is not None:
            _rows.check_text("an effect queue", queue, max_len=100)
        if effect.dedupe_key is not None:
            _rows.check_text("an effect's dedupe key", effect.dedupe_key, max_len=200)
        row = await tx.one(
            "INSERT INTO effects (kind, payload, game_id, queue, dedupe_key, next_attempt_at, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (dedupe_key) DO NOTHING RETURNING id",
            (
                effect.kind,
                payload,
                effect.game_id,
                queue,
                effect.dedupe_key,
                max(now, effect.not_before or now),
                now,
                now,
            ),
        )
        if row is not None:
            ids.append(int(row[0]))
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

    async def _record_events(self, tx: Tx, events: list[StorageEvent]) -> None:
        for event in events:
            await record_effects(tx, self.rules.effects_for(event), event.at)

    async def add(self, effects: Sequence[NewEffect], now: int) -> list[Effect]:
        """Records effects in a transaction of their own (for events that have none)."""
        async with self._db.transaction() as tx:
            ids = await record_effects(tx, effects, now)
            return [await self._fetch(tx, effect_id) for effect_id in ids]

    async def get(self, effect_id: int) -> Effect:
        async with self._db.transaction(write=False) as tx:
            return await self._fetch(tx, effect_id)

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
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                f"SELECT * FROM effects WHERE {' AND '.join(where)} ORDER BY id LIMIT ?",
                (*params, limit),
            )
        return [_rows.effect(row) for row in rows]

    async def counts(self) -> dict[EffectStatus, int]:
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all("SELECT status, count(*) FROM effects GROUP BY status")
        out = dict.fromkeys(EffectStatus, 0)
        out.update({EffectStatus(row[0]): int(row[1]) for row in rows})
        return out

    async def next_due_at(self, kinds: Sequence[str] | None = None) -> int | None:
        """When the next pending effect (of `kinds`, if given) may be claimed: its attempt
        time, or the end of the lease holding it. None when nothing is pending."""
        kind_filter, params = _kind_filter(kinds)
        async with self._db.transaction(write=False) as tx:
            value = await tx.scalar(
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
        async with self._db.transaction() as tx:
            rows = await tx.all(
                "UPDATE effects SET claimed_by = :owner, lease_until = :until, "
                "attempts = attempts + 1, updated_at = greatest(updated_at, :now) "
                f"WHERE id IN (SELECT id FROM effects WHERE {_CLAIMABLE} {kind_filter} "
                f"ORDER BY next_attempt_at, id LIMIT :limit{tx.skip_locked}) RETURNING *",
                params,
            )
        return sorted((_rows.effect(row) for row in rows), key=lambda e: e.id)

    async def claim_one(
        self, effect_id: int, owner: str, now: int, *, lease_seconds: int = DEFAULT_LEASE_SECONDS
    ) -> Effect | None:
        """Claims one effect if it is claimable now (pending, due, unclaimed or its lease
        over, first in its queue); None otherwise."""
        async with self._db.transaction() as tx:
            row = await tx.one(
                "UPDATE effects SET claimed_by = :owner, lease_until = :until, "
                "attempts = attempts + 1, updated_at = greatest(updated_at, :now) "
                f"WHERE id = :id AND {_CLAIMABLE} RETURNING *",
                {"id": effect_id, "owner": owner, "now": now, "until": now + lease_seconds},
            )
        return None if row is None else _rows.effect(row)

    async def remember_message(
        self, effect_id: int, owner: str, channel_id: int, message_id: int, now: int
    ) -> bool:
        """Records the message a post became, before anything else happens to the effect:
        whoever carries the effect out again sees it and does not post twice."""
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE effects SET channel_id = ?, message_id = ?, "
                "updated_at = greatest(updated_at, ?) "
                "WHERE id = ? AND claimed_by = ? AND status = 'pending'",
                (channel_id, message_id, now, effect_id, owner),
            )
        return changed == 1

    async def complete(self, effect_id: int, owner: str, now: int) -> bool:
        """Marks a claimed effect done. False if `owner` no longer holds the claim."""
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE effects SET status = 'done', claimed_by = NULL, lease_until = NULL, "
                "last_error = '', done_at = ?, updated_at = greatest(updated_at, ?) "
                "WHERE id = ? AND claimed_by = ? AND status = 'pending'",
                (now, now, effect_id, owner),
            )
        return changed == 1

    async def retry(self, effect_id: int, owner: str, now: int, *, at: int, error: str) -> bool:
        """Gives a claimed effect back, to be tried again at `at`."""
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE effects SET claimed_by = NULL, lease_until = NULL, next_attempt_at = ?, "
                "last_error = ?, updated_at = greatest(updated_at, ?) "
                "WHERE id = ? AND claimed_by = ? AND status = 'pending'",
                (max(at, now), error[:MAX_ERROR], now, effect_id, owner),
            )
        return changed == 1

    async def fail(self, effect_id: int, owner: str, now: int, *, error: str) -> bool:
        """Gives up on a claimed effect: it stays in the table as failed, for the operator
        (`python -m storage effects`), and no longer holds up its queue."""
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE effects SET status = 'failed', claimed_by = NULL, lease_until = NULL, "
                "last_error = ?, done_at = ?, updated_at = greatest(updated_at, ?) "
                "WHERE id = ? AND claimed_by = ? AND status = 'pending'",
                (error[:MAX_ERROR] or "failed", now, now, effect_id, owner),
            )
        return changed == 1

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
