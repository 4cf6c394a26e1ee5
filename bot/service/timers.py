"""Durable timers: what fell due (deadlines, reminders, expiries, vacation ends) is written.

Every item goes through its storage guard, so it is handled once whatever restarts happen,
and whatever fell due while the bot was down is handled at the next start. What an item
sets off (the "lost on time" post, the ratings, the reminder itself, the challenge's updated
post) is recorded by the effect rules in the same transaction (`bot.service.consequences`)
and carried out by the effects runner: a crash right after a timer write loses nothing.
"""

from __future__ import annotations

import logging

from bot.service.clock import Clock
from bot.service.effects import default_owner
from storage import Storage
from storage.crashpoints import crashpoint
from storage.errors import ConflictError, NotFoundError, RefusedError
from storage.models import DueItem, DueKind

log = logging.getLogger("fairypost.timers")

BATCH = 100


DEFAULT_LEASE_SECONDS = 60
"""How long a claimed timer item is this process's: handling one is a single transaction,
so a minute is ample; a process that dies delays its items by at most this much."""


class TimerService:
    """Several processes may run timers on one database: each claims due items for a lease
    (`Timers.claim`), handles them through their guards and releases them; items another
    process holds are left to it until its lease runs out (it died), then taken over."""

    def __init__(
        self,
        storage: Storage,
        clock: Clock,
        *,
        owner: str | None = None,
        lease_seconds: int = DEFAULT_LEASE_SECONDS,
    ) -> None:
        self.storage = storage
        self.clock = clock
        self.owner = owner or default_owner()
        self.lease_seconds = lease_seconds

    async def resume(self, *, exclusive: bool) -> int:
        """At start-up: with `exclusive` (this process alone serves the database: the bot
        holds its instance lock), the claims a killed process left are dropped at once, so
        a deadline or notice it was handling is handled now rather than after its lease."""
        released = await self.storage.timers.release_all() if exclusive else 0
        if released:
            log.info("timers: %d claims of a stopped process released", released)
        return released

    async def next_due_at(self) -> int | None:
        """When this process may next claim something (an item of a process that died
        counts from the end of its lease)."""
        return await self.storage.timers.next_claimable_at(self.clock.now(), self.owner)

    async def run_due(self) -> list[DueItem]:
        """Claims and handles everything due now, earliest first; returns the items that
        changed something (stale ones, refused by their guards, are left out)."""
        now = self.clock.now()
        handled: list[DueItem] = []
        while True:
            items = await self.storage.timers.claim(
                now, self.owner, lease_seconds=self.lease_seconds, limit=BATCH
            )
            if not items:
                return handled
            acted = []
            for item in items:
                crashpoint(f"timer.claimed:{item.kind.value}")
                if await self._handle(item, now):
                    acted.append(item)
                await self.storage.timers.release(item, self.owner)
            handled += acted
            if not acted and len(items) < BATCH:
                return handled

    async def _handle(self, item: DueItem, now: int) -> bool:
        if item.kind is DueKind.TIMEOUT:
            if item.game_id is None or item.ply is None:
                return False
            try:
                await self.storage.games.claim_timeout(item.game_id, item.ply, now)
            except (ConflictError, RefusedError, NotFoundError):
                return False  # already handled, or the player moved just in time
            crashpoint("event.committed:timeout")
            return True
        if item.kind in (DueKind.TURN_NOTICE, DueKind.REMINDER):
            claimed = await self.storage.timers.claim_notification(item, now)
            if claimed:
                crashpoint("event.committed:notice")
            return claimed
        if item.kind is DueKind.CHALLENGE_EXPIRY:
            return bool(await self.storage.challenges.expire_due(now))
        return bool(await self.storage.vacations.end_due(now))
