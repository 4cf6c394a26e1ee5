"""The effects runner: handlers run once, failures are retried with back-off and finally
recorded as failed, a remembered post is never sent again, stale claims are resumed."""

from __future__ import annotations

import asyncio
import logging
import os

import pytest

from bot.service import ManualClock
from bot.service.effects import (
    EffectRegistry,
    EffectRun,
    EffectRunner,
    GiveUp,
    RetryPolicy,
)
from storage import Storage
from storage.models import EffectStatus, NewEffect

RUN = os.getpid()
"""Instance names are PostgreSQL advisory locks of the whole database: CI runs the suite of
two Pythons at once, each in schemas of its own, so each run's names are its own."""


@pytest.fixture
def registry(storage: Storage) -> EffectRegistry:
    return EffectRegistry(storage)


async def test_a_handler_runs_once_and_the_effect_is_done(
    storage: Storage, registry: EffectRegistry, clock: ManualClock
) -> None:
    seen: list[dict[str, object]] = []

    async def handler(run: EffectRun) -> None:
        seen.append(dict(run.effect.payload))

    registry.register("job", handler)
    (effect,) = await storage.effects.add([NewEffect("job", {"n": 1})], clock.now())
    runner = EffectRunner(registry, clock)
    assert await runner.run_due() == 1
    assert await runner.run_due() == 0
    assert seen == [{"n": 1}]
    assert (await storage.effects.get(effect.id)).status is EffectStatus.DONE


async def test_failures_back_off_then_fail_for_good(
    storage: Storage, registry: EffectRegistry, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    attempts: list[int] = []

    async def flaky(run: EffectRun) -> None:
        attempts.append(clock.now())
        raise RuntimeError("Discord said 503")

    registry.register("post", flaky, policy=RetryPolicy(max_attempts=3, first_delay=10, factor=3))
    (effect,) = await storage.effects.add([NewEffect("post")], clock.now())
    runner = EffectRunner(registry, clock)
    start = clock.now()
    await runner.run_due()
    assert await runner.next_due_at() == start + 10
    clock.advance(9)
    assert await runner.run_due() == 0
    clock.advance(1)
    await runner.run_due()
    assert await runner.next_due_at() == start + 10 + 30
    clock.advance(30)
    with caplog.at_level(logging.ERROR, "fairypost.effects"):
        await runner.run_due()
    assert attempts == [start, start + 10, start + 40]
    failed = await storage.effects.get(effect.id)
    assert failed.status is EffectStatus.FAILED and "503" in failed.last_error
    assert "FAILED" in caplog.text and runner.failed == 1
    assert await runner.next_due_at() is None


async def test_give_up_fails_at_once(
    storage: Storage, registry: EffectRegistry, clock: ManualClock
) -> None:
    async def hopeless(run: EffectRun) -> None:
        raise GiveUp("the thread is gone")

    registry.register("post", hopeless)
    (effect,) = await storage.effects.add([NewEffect("post")], clock.now())
    await EffectRunner(registry, clock).run_due()
    failed = await storage.effects.get(effect.id)
    assert (failed.status, failed.attempts) == (EffectStatus.FAILED, 1)
    assert failed.last_error == "gave up: the thread is gone"


async def test_a_remembered_post_is_not_sent_again(
    storage: Storage, registry: EffectRegistry, clock: ManualClock
) -> None:
    """The process died after the post was sent and its id remembered, before the effect
    was marked done: the next attempt finds the message and sends nothing."""
    sent: list[str] = []

    async def post(run: EffectRun) -> None:
        await run.post(lambda nonce: _send(sent, nonce))

    registry.register("post", post)
    (effect,) = await storage.effects.add([NewEffect("post")], clock.now())
    dead = EffectRunner(registry, clock, owner=f"dead-{RUN}")
    (claimed,) = await storage.effects.claim(f"dead-{RUN}", clock.now())
    run = EffectRun(dead, claimed)
    await run.post(lambda nonce: _send(sent, nonce))
    # ... killed here. A new process starts, holding the instance lock:
    fresh = EffectRunner(registry, clock)
    assert await fresh.resume(exclusive=True) == 1
    await fresh.run_due()
    done = await storage.effects.get(effect.id)
    assert (done.status, done.channel_id, done.message_id) == (EffectStatus.DONE, 10, 1001)
    assert sent == [f"fp{effect.id}-{effect.created_at}"]


async def _send(sent: list[str], nonce: str) -> tuple[int, int]:
    sent.append(nonce)
    return 10, 1000 + len(sent)


async def test_a_claim_of_a_live_worker_is_left_alone(
    storage: Storage, registry: EffectRegistry, clock: ManualClock
) -> None:
    ran: list[int] = []

    async def handler(run: EffectRun) -> None:
        ran.append(run.effect.id)

    registry.register("job", handler)
    await storage.effects.add([NewEffect("job")], clock.now())
    assert await storage.hold_instance(f"other-process-{RUN}")  # it runs (PostgreSQL can tell)
    await storage.effects.claim(f"other-process-{RUN}/effects", clock.now(), lease_seconds=60)
    runner = EffectRunner(registry, clock)
    await runner.resume(exclusive=False)  # another process may be alive: keep its claim
    assert await runner.run_due() == 0
    assert runner.taken_over == 0
    clock.advance(60)
    assert await runner.run_due() == 1 and len(ran) == 1


async def test_a_dead_process_claims_are_taken_over_at_once_on_postgresql(
    storage: Storage, registry: EffectRegistry, clock: ManualClock
) -> None:
    """A process that claimed and died holds no instance lock any more: on PostgreSQL the
    next pass of any live runner releases its claims and carries them out, without waiting
    for the lease. (SQLite has one process per file: its restart releases everything.)"""
    ran: list[int] = []

    async def handler(run: EffectRun) -> None:
        ran.append(run.effect.id)

    registry.register("job", handler)
    await storage.effects.add([NewEffect("job"), NewEffect("job")], clock.now())
    await storage.effects.claim(f"dead-process-{RUN}/effects", clock.now(), lease_seconds=300)
    runner = EffectRunner(registry, clock, owner=f"live-process-{RUN}/effects")
    if storage.dialect == "postgresql":
        assert await runner.run_due() == 2 and runner.taken_over == 2
    else:
        assert await runner.run_due() == 0
        clock.advance(300)
        assert await runner.run_due() == 2
    assert len(ran) == 2


async def test_a_long_handler_keeps_its_claim(
    storage: Storage, registry: EffectRegistry, clock: ManualClock
) -> None:
    """The runner renews its leases while a handler works: nobody else takes the effect
    after `lease_seconds`, however long the handler takes."""
    other = EffectRunner(registry, clock, owner=f"other-{RUN}/effects", lease_seconds=3)
    seen: list[int] = []

    async def slow(run: EffectRun) -> None:
        clock.advance(10)  # the lease would have run out three times over
        await asyncio.sleep(2.5)  # lease / 3 = 1 s: renewed meanwhile
        seen.append(await other.run_due())

    registry.register("slow", slow)
    await storage.effects.add([NewEffect("slow")], clock.now())
    assert await storage.hold_instance(f"me-{RUN}")  # alive (else PostgreSQL would take it over)
    runner = EffectRunner(registry, clock, owner=f"me-{RUN}/effects", lease_seconds=3)
    assert await runner.run_due() == 1
    assert seen == [0]  # the other runner found nothing to take


async def test_unknown_kinds_wait_and_do_not_spin(
    storage: Storage, registry: EffectRegistry, clock: ManualClock
) -> None:
    await storage.effects.add([NewEffect("from.a.newer.version")], clock.now())
    runner = EffectRunner(registry, clock)
    assert await runner.run_due() == 0
    assert await runner.next_due_at() is None


async def test_effects_carried_out_long_ago_are_pruned(
    storage: Storage, registry: EffectRegistry, clock: ManualClock
) -> None:
    async def handler(run: EffectRun) -> None:
        pass

    registry.register("job", handler)
    await storage.effects.add([NewEffect("job"), NewEffect("never")], clock.now())
    runner = EffectRunner(registry, clock)
    await runner.run_due()
    clock.advance(31 * 86_400)
    await EffectRunner(registry, clock).run_due()
    left = await storage.effects.find()
    assert [e.kind for e in left] == ["never"]  # the pending one stays
