"""Effects: carrying out, exactly once, everything an event sets off.

An event (a move, an ending, a timeout, a claimed reminder) is committed by storage together
with the effects it sets off (`storage.effects`: a pending row per effect, written in the
event's transaction). This module carries them out:

- `EffectRegistry` maps each effect `kind` to its handler and retry policy, and attaches
  effect rules to storage events (`registry.on(EventKind.GAME_ENDED, rule)`).
- `EffectRunner` claims due effects (at most one per queue, so a game's posts stay in
  order), runs their handlers, and marks each done; a handler that raises is retried with
  back-off and, after its policy's last attempt (or at once on `GiveUp`), recorded as
  failed, never dropped. A claim is a short lease (`storage.effects.DEFAULT_LEASE_SECONDS`)
  that the runner renews while it works. What a dead process held is taken back at once:
  at start-up by the bot alone on its SQLite file (`resume()`), and on PostgreSQL by any
  live process on its next pass, which sees the dead process's instance lock free
  (`Effects.release_dead`).

Adding a consequence to an event, for any capability:

```python
registry.register("tournament.advance", advance)          # async def advance(run) -> None
registry.on(EventKind.GAME_ENDED, lambda e: [NewEffect("tournament.advance", {}, e.game.id)]
            if e.game and e.game.tournament_id else [])
```
or, from code that runs its own storage transaction, `storage.effects.record_effects(tx,
[NewEffect(...)], now)` inside it (`Storage.effects.add` outside one).

**Handlers must be idempotent**: the process may die after a handler did its work and
before the effect is marked done, and then the handler runs again. Storage writes keyed by
the event are (ratings are applied once per game). Posts go through `EffectRun.post`, which
remembers the message id before the effect is marked done and sends with a nonce derived from
the effect id (Discord returns the first message for a repeated nonce), so a post is never
doubled; a handler that posts must post exactly once through it.

Crash points (`storage.crashpoints`) mark every boundary: `effect.claimed:<kind>`,
`effect.sent:<kind>` (the post was accepted, its id not yet remembered), `effect.done:<kind>`
(the handler's work is done, the effect not yet marked) and `effect.completed:<kind>`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.service.clock import Clock
from storage import Storage
from storage.crashpoints import crashpoint
from storage.effects import DEFAULT_LEASE_SECONDS, Rule
from storage.models import Effect, EffectStatus, EventKind

log = logging.getLogger("fairypost.effects")

KEEP_DONE_SECONDS = 30 * 86_400
"""Effects carried out are kept a month (for the operator's questions), then deleted."""
PRUNE_EVERY_SECONDS = 86_400

NONCE_PREFIX = "fp"
"""Discord nonces are at most 25 characters: `fp<effect id>-<created at>`."""


class GiveUp(Exception):
    """Raised by a handler when trying again cannot help (what it acts on is gone): the
    effect is recorded as failed at once, with this message."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """After failed attempt n (1-based) the next waits `first_delay * factor**(n-1)`
    seconds (at most `max_delay`); after attempt `max_attempts` the effect fails."""

    max_attempts: int = 8
    first_delay: int = 30
    factor: int = 3
    max_delay: int = 6 * 3600

    def delay(self, attempt: int) -> int:
        return int(min(self.max_delay, self.first_delay * self.factor ** max(0, attempt - 1)))


DEFAULT_POLICY = RetryPolicy()


class LostClaimError(Exception):
    """Another worker holds the effect now (this one's lease ran out): stop touching it."""


class EffectRun:
    """What a handler gets: the effect, the time, and the one way to record a post."""

    def __init__(self, runner: EffectRunner, effect: Effect) -> None:
        self.runner = runner
        self.effect = effect
        self.storage = runner.storage

    @property
    def now(self) -> int:
        return self.runner.clock.now()

    @property
    def nonce(self) -> str:
        """The Discord message nonce of this effect's post: the same on every attempt, and
        different for another effect even if a restored database reuses this id (the
        creation time is part of it). At most 25 characters, as Discord requires."""
        return f"{NONCE_PREFIX}{self.effect.id}-{self.effect.created_at}"[:25]

    @property
    def posted(self) -> bool:
        """True when an earlier attempt already posted (its message id is remembered)."""
        return self.effect.message_id is not None

    async def post(self, send: Callable[[str], Awaitable[tuple[int, int]]]) -> tuple[int, int]:
        """Posts once: `send(nonce)` sends the message and returns its (channel id, message
        id); the ids are remembered before anything else happens. If an earlier attempt
        remembered them, nothing is sent and they are returned."""
        effect = self.effect
        if effect.channel_id is not None and effect.message_id is not None:
            return effect.channel_id, effect.message_id
        channel_id, message_id = await send(self.nonce)
        crashpoint(f"effect.sent:{effect.kind}")
        if not await self.storage.effects.remember_message(
            effect.id, self.runner.owner, channel_id, message_id, self.now
        ):
            raise LostClaimError(f"effect {effect.id} was taken over")
        self.effect = await self.storage.effects.get(effect.id)
        return channel_id, message_id


Handler = Callable[[EffectRun], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class EffectKind:
    name: str
    handler: Handler
    policy: RetryPolicy


class EffectRegistry:
    """Effect kinds and the rules that record them. One registry per storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._kinds: dict[str, EffectKind] = {}

    def register(
        self, kind: str, handler: Handler, *, policy: RetryPolicy = DEFAULT_POLICY
    ) -> None:
        """`handler` carries out effects of `kind` (replacing any earlier handler)."""
        self._kinds[kind] = EffectKind(kind, handler, policy)

    def on(self, event: EventKind, rule: Rule) -> None:
        """`rule(event)` returns the effects an event of this kind sets off; they are recorded
        in the event's own transaction."""
        self.storage.effects.rules.on(event, rule)

    def get(self, kind: str) -> EffectKind | None:
        return self._kinds.get(kind)

    @property
    def kinds(self) -> list[str]:
        return sorted(self._kinds)


def default_owner() -> str:
    """A name for this process (or worker), unique across processes and restarts. Workers
    of one process are named `<instance>/<worker>`: the instance part is what
    `Storage.hold_instance` proves alive."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


RELEASE_DEAD_EVERY = 1.0
"""Seconds between two looks for the claims of dead processes (PostgreSQL)."""


class EffectRunner:
    """Claims and carries out due effects. Several runners (processes) may share a database:
    a claim holds for `lease_seconds`, and every change after it is compare-and-set on the
    claim. Runs handlers one at a time."""

    def __init__(
        self,
        registry: EffectRegistry,
        clock: Clock,
        *,
        owner: str | None = None,
        lease_seconds: int = DEFAULT_LEASE_SECONDS,
        batch: int = 20,
    ) -> None:
        self.registry = registry
        self.storage = registry.storage
        self.clock = clock
        self.owner = owner or default_owner()
        self.lease_seconds = lease_seconds
        self.batch = batch
        self.done = 0
        self.failed = 0
        self.taken_over = 0
        """Claims of dead processes this runner released."""
        self._pruned_at: int | None = None
        self._looked_at = 0.0

    async def resume(self, *, exclusive: bool) -> int:
        """At start-up: with `exclusive` (this process alone serves the database: the bot
        holds its instance lock) claims left by a dead process are dropped at once instead of
        when their leases end. Returns how many effects are waiting, and logs it."""
        released = await self.storage.effects.release(self.clock.now()) if exclusive else 0
        counts = await self.storage.effects.counts()
        pending = counts[EffectStatus.PENDING]
        if pending or counts[EffectStatus.FAILED]:
            log.info(
                "effects: %d pending (resumed, %d claims of a stopped process released), "
                "%d failed earlier (python -m storage effects lists them)",
                pending,
                released,
                counts[EffectStatus.FAILED],
            )
        unknown = {
            e.kind
            for e in await self.storage.effects.find(status=EffectStatus.PENDING, limit=1000)
            if self.registry.get(e.kind) is None
        }
        if unknown:
            log.warning("effects of unknown kinds wait for a newer version: %s", sorted(unknown))
        return pending

    async def next_due_at(self) -> int | None:
        return await self.storage.effects.next_due_at(self.registry.kinds)

    async def run_due(self) -> int:
        """Carries out everything due now, batch after batch; returns how many ran. Once a
        day, effects carried out more than `KEEP_DONE_SECONDS` ago are deleted."""
        now = self.clock.now()
        if self._pruned_at is None or now - self._pruned_at >= PRUNE_EVERY_SECONDS:
            self._pruned_at = now
            pruned = await self.storage.effects.prune(now - KEEP_DONE_SECONDS)
            if pruned:
                log.info("effects: %d carried out more than 30 days ago deleted", pruned)
        await self.take_over_dead()
        ran = 0
        while True:
            claimed = await self.storage.effects.claim(
                self.owner,
                self.clock.now(),
                lease_seconds=self.lease_seconds,
                limit=self.batch,
                kinds=self.registry.kinds,
            )
            if not claimed:
                return ran
            held = {effect.id for effect in claimed}
            async with self._renewing(held):
                for effect in claimed:
                    await self.run(effect)
                    held.discard(effect.id)
                    ran += 1

    async def take_over_dead(self) -> int:
        """Releases the claims of processes that are gone (PostgreSQL; at most once a
        second), so they are carried out now rather than when their leases end."""
        if time.monotonic() - self._looked_at < RELEASE_DEAD_EVERY:
            return 0
        self._looked_at = time.monotonic()
        released = await self.storage.effects.release_dead(self.clock.now())
        if released:
            self.taken_over += released
            log.info("effects: %d claims of a stopped process taken over", released)
        return released

    @contextlib.asynccontextmanager
    async def _renewing(self, held: set[int]) -> AsyncIterator[None]:
        """Renews the leases of the claims in `held` (those not finished yet), every third
        of a lease, while a batch runs: a long handler (a search, a big picture) keeps its
        claim, and a dead process's claims lapse a lease after its last renewal."""

        async def renew() -> None:
            while True:
                await asyncio.sleep(self.lease_seconds / 3)
                if held:
                    now = self.clock.now()
                    try:
                        await self.storage.effects.extend(
                            self.owner, sorted(held), now, now + self.lease_seconds
                        )
                    except Exception:
                        log.warning("effects: renewing leases failed", exc_info=True)

        task = asyncio.create_task(renew())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def run_now(self, effect_ids: Sequence[int]) -> None:
        """Carries out these effects at once if they can be claimed (used right after an
        event, so its consequences do not wait for the next pass)."""
        for effect_id in effect_ids:
            effect = await self.storage.effects.claim_one(
                effect_id, self.owner, self.clock.now(), lease_seconds=self.lease_seconds
            )
            if effect is not None:
                async with self._renewing({effect.id}):
                    await self.run(effect)

    async def run(self, effect: Effect) -> None:
        """Runs one claimed effect and records how it went."""
        kind = self.registry.get(effect.kind)
        crashpoint(f"effect.claimed:{effect.kind}")
        if kind is None:  # claimed by id with a kind this version does not know
            await self.storage.effects.retry(
                effect.id,
                self.owner,
                self.clock.now(),
                at=self.clock.now() + 3600,
                error=f"no handler for {effect.kind}",
            )
            return
        try:
            await kind.handler(EffectRun(self, effect))
        except LostClaimError as exc:
            log.warning("effect %d (%s): %s", effect.id, effect.kind, exc)
            return
        except GiveUp as exc:
            await self._fail(effect, f"gave up: {exc}")
            return
        except Exception as exc:
            await self._failed_attempt(effect, kind.policy, exc)
            return
        crashpoint(f"effect.done:{effect.kind}")
        if await self.storage.effects.complete(effect.id, self.owner, self.clock.now()):
            self.done += 1
        crashpoint(f"effect.completed:{effect.kind}")

    async def _failed_attempt(self, effect: Effect, policy: RetryPolicy, exc: Exception) -> None:
        error = f"{type(exc).__name__}: {exc}"
        if effect.attempts >= policy.max_attempts:
            await self._fail(effect, f"{error} (after {effect.attempts} attempts)", exc)
            return
        delay = policy.delay(effect.attempts)
        log.warning(
            "effect %d (%s, game %s) failed on attempt %d/%d, retrying in %ds: %s",
            effect.id,
            effect.kind,
            effect.game_id,
            effect.attempts,
            policy.max_attempts,
            delay,
            error,
        )
        now = self.clock.now()
        await self.storage.effects.retry(effect.id, self.owner, now, at=now + delay, error=error)

    async def _fail(self, effect: Effect, error: str, exc: BaseException | None = None) -> None:
        if await self.storage.effects.fail(effect.id, self.owner, self.clock.now(), error=error):
            self.failed += 1
            log.error(
                "effect %d (%s, game %s) FAILED and will not be retried: %s "
                "(python -m storage effects --retry %d puts it back once fixed)",
                effect.id,
                effect.kind,
                effect.game_id,
                error,
                effect.id,
                exc_info=exc,
            )
