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
from storage import Storage
from storage.crashpoints import crashpoint
from storage.models import DueItem, DueKind
from storage.timers import BATCH

log = logging.getLogger("fairypost.timers")


class TimerService:
    """Several processes may run timers on one database: each batch of due rows is taken
    `FOR UPDATE SKIP LOCKED` in the transaction that handles it (`storage.timers`), so
    processes take different rows, and a process that dies holds nothing once its
    connection is gone: no lease to wait for."""

    def __init__(self, storage: Storage, clock: Clock) -> None:
        self.storage = storage
        self.clock = clock

    async def next_due_at(self) -> int | None:
        """When the next item falls due (any process's: they share the rows)."""
        return await self.storage.timers.next_due_at()

    async def run_due(self) -> list[DueItem]:
        """Handles everything due now, batch after batch, earliest first; returns the items
        that changed something. A batch smaller than `BATCH` means the rest (if any) is
        another process's, held under its lock."""
        now = self.clock.now()
        timers = self.storage.timers
        handled: list[DueItem] = []
        while True:
            ended = await timers.time_out_due(now, limit=BATCH)
            if ended:
                crashpoint("event.committed:timeout")
            handled += ended
            if len(ended) < BATCH:
                break
        while True:
            sent = await timers.notify_due(now, limit=BATCH)
            if sent:
                crashpoint("event.committed:notice")
            handled += sent
            if len(sent) < BATCH:
                break
        for challenge in await self.storage.challenges.expire_due(now):
            handled.append(
                DueItem(
                    DueKind.CHALLENGE_EXPIRY,
                    challenge.expires_at,
                    challenge.challenger_id,
                    challenge_id=challenge.id,
                )
            )
        for status in await self.storage.vacations.end_due(now):
            handled.append(DueItem(DueKind.VACATION_END, now, status.user_id))
        return handled
