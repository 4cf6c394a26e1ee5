"""The durable outbox: effects are written with their event, claimed once, in order, retried
and given up on explicitly; claims of dead workers run out."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

import pytest

from storage import Storage
from storage.effects import record_effects
from storage.errors import (
    EffectNotFoundError,
    GameLostOnTimeError,
    InvalidValueError,
    NotYourTurnError,
)
from storage.models import (
    DAY,
    Clock,
    EffectStatus,
    EventKind,
    NewEffect,
    StorageEvent,
    Termination,
)
from tests.storage.conftest import BLACK, T0, make_move, new_game, play
from tests.storage.fakes import FAKE_ENGINE


def announce(event: StorageEvent) -> Iterable[NewEffect]:
    assert event.game is not None
    yield NewEffect("announce", {"event": event.kind.value, "ply": event.ply}, event.game.id)


def rate(event: StorageEvent) -> Iterable[NewEffect]:
    game = event.game
    assert game is not None
    if game.rated and game.result is not None:
        yield NewEffect("ratings", {}, game.id, dedupe_key=f"ratings:{game.id}")


@pytest.fixture
def rules(store: Storage) -> Storage:
    store.effects.rules.on(EventKind.MOVE_PLAYED, announce)
    store.effects.rules.on(EventKind.GAME_ENDED, rate)
    store.effects.rules.on(EventKind.GAME_ENDED, announce)
    return store


async def test_an_event_commits_with_its_effects(rules: Storage) -> None:
    store = rules
    game = await new_game(store)
    game = await play(store, game, ["e2e4"], T0)
    ended = await store.games.resign(game.id, BLACK, T0 + 5)
    effects = await store.effects.find(game_id=game.id)
    assert [(e.kind, e.payload) for e in effects] == [
        ("announce", {"event": "move_played", "ply": 1}),
        ("ratings", {}),
        ("announce", {"event": "game_ended", "ply": 1}),
    ]
    assert all(e.status is EffectStatus.PENDING and e.queue == f"game:{game.id}" for e in effects)
    assert effects[-1].created_at == ended.ended_at == T0 + 5


async def test_a_refused_event_records_nothing(rules: Storage) -> None:
    store = rules
    game = await new_game(store)
    with pytest.raises(NotYourTurnError):
        await store.games.append_move(game.id, BLACK, 0, make_move(game, [], "e2e4"), T0)
    assert await store.effects.find() == []


async def test_a_deadline_settled_by_a_late_action_keeps_its_effects(rules: Storage) -> None:
    """The refused action rolls back nothing of the loss on time it settled first."""
    store = rules
    game = await new_game(store, clock=Clock(DAY, 0))
    game = await play(store, game, ["e2e4"], T0)
    with pytest.raises(GameLostOnTimeError):
        await store.games.abort(game.id, BLACK, T0 + 2 * DAY)
    assert (await store.games.get(game.id)).termination is Termination.TIMEOUT
    kinds = [e.kind for e in await store.effects.find(game_id=game.id)]
    assert kinds == ["announce", "ratings", "announce"]


async def test_a_vacation_that_ran_out_restarts_the_clock_before_the_deadline_is_judged(
    rules: Storage,
) -> None:
    """Black went on vacation with a day left; it ran out at T0 + 14 days and nobody wrote
    it. A move a few hours after that is in time: the clock restarted at the vacation's end."""
    store = rules
    game = await new_game(store, clock=Clock(2 * DAY, 0))
    game = await play(store, game, ["e2e4"], T0)
    await store.vacations.start(BLACK, T0 + DAY)
    end = T0 + DAY + 14 * DAY
    moved = await store.games.append_move(
        game.id, BLACK, 1, make_move(game, ["e2e4"], "e7e5"), end + 3600
    )
    assert moved.game.ply_count == 2 and moved.game.is_active
    status = await store.vacations.status(BLACK, end + 3600)
    assert not status.on_vacation and status.used_seconds == 14 * DAY


async def test_recording_is_idempotent_with_a_dedupe_key(store: Storage) -> None:
    game = await new_game(store)
    first = await store.effects.add([NewEffect("x", {"a": 1}, game.id, dedupe_key="k")], T0)
    again = await store.effects.add([NewEffect("x", {"a": 2}, game.id, dedupe_key="k")], T0)
    assert len(first) == 1 and again == []
    assert [e.payload for e in await store.effects.find()] == [{"a": 1}]


async def test_bad_effects_are_refused(store: Storage) -> None:
    with pytest.raises(InvalidValueError, match="not JSON"):
        await store.effects.add([NewEffect("x", {"a": object()})], T0)
    with pytest.raises(InvalidValueError, match="too large"):
        await store.effects.add([NewEffect("x", {"a": "x" * 20_000})], T0)
    with pytest.raises(InvalidValueError):
        await store.effects.add([NewEffect("")], T0)
    with pytest.raises(EffectNotFoundError):
        await store.effects.get(99)


async def test_a_queue_runs_in_order_one_at_a_time(store: Storage) -> None:
    a = await store.effects.add([NewEffect("a", queue="q"), NewEffect("b", queue="q")], T0)
    c = await store.effects.add([NewEffect("c", queue="other"), NewEffect("d")], T0)
    claimed = await store.effects.claim("w1", T0)
    assert [e.kind for e in claimed] == ["a", "c", "d"]
    assert await store.effects.claim("w2", T0) == []  # "b" waits for "a"
    assert await store.effects.complete(a[0].id, "w1", T0 + 1)
    (b,) = await store.effects.claim("w2", T0 + 1)
    assert b.id == a[1].id and b.attempts == 1 and b.claimed_by == "w2"
    assert c[0].id in {e.id for e in claimed}


async def test_only_the_claimant_finishes_and_a_dead_claim_runs_out(store: Storage) -> None:
    (effect,) = await store.effects.add([NewEffect("post", {}, None)], T0)
    (mine,) = await store.effects.claim("w1", T0, lease_seconds=60)
    assert mine.lease_until == T0 + 60
    assert not await store.effects.complete(effect.id, "w2", T0 + 1)
    assert await store.effects.claim("w2", T0 + 59) == []
    assert await store.effects.next_due_at() == T0 + 60
    (theirs,) = await store.effects.claim("w2", T0 + 60)  # w1 died: its lease ran out
    assert theirs.attempts == 2 and theirs.claimed_by == "w2"
    assert not await store.effects.complete(effect.id, "w1", T0 + 61)
    assert await store.effects.remember_message(effect.id, "w2", 5, 42, T0 + 61)
    assert await store.effects.complete(effect.id, "w2", T0 + 62)
    done = await store.effects.get(effect.id)
    assert (done.status, done.channel_id, done.message_id, done.done_at) == (
        EffectStatus.DONE,
        5,
        42,
        T0 + 62,
    )
    assert done.claimed_by is None and await store.effects.next_due_at() is None


async def test_retry_waits_and_holds_the_queue_failure_releases_it(store: Storage) -> None:
    first, second = await store.effects.add(
        [NewEffect("a", queue="q"), NewEffect("b", queue="q")], T0
    )
    await store.effects.claim("w", T0)
    assert await store.effects.retry(first.id, "w", T0, at=T0 + 30, error="HTTP 503")
    assert await store.effects.next_due_at() == T0 + 30
    assert await store.effects.claim("w", T0 + 29) == []
    (again,) = await store.effects.claim("w", T0 + 30)
    assert (again.id, again.attempts, again.last_error) == (first.id, 2, "HTTP 503")
    assert await store.effects.fail(first.id, "w", T0 + 31, error="gave up")
    (next_one,) = await store.effects.claim("w", T0 + 31)
    assert next_one.id == second.id
    failed = await store.effects.find(status=EffectStatus.FAILED)
    assert [(e.id, e.last_error) for e in failed] == [(first.id, "gave up")]
    counts = await store.effects.counts()
    assert counts[EffectStatus.FAILED] == 1 and counts[EffectStatus.PENDING] == 1
    requeued = await store.effects.requeue(first.id, T0 + 40)
    assert (requeued.status, requeued.attempts) == (EffectStatus.PENDING, 0)
    with pytest.raises(InvalidValueError):
        await store.effects.requeue(second.id, T0 + 40)


async def test_release_frees_claims_at_once(store: Storage) -> None:
    await store.effects.add([NewEffect("a"), NewEffect("b")], T0)
    await store.effects.claim("old", T0, lease_seconds=3600)
    assert await store.effects.release(T0 + 1, owner="someone else") == 0
    assert await store.effects.release(T0 + 1) == 2
    assert len(await store.effects.claim("new", T0 + 1)) == 2


async def test_kinds_filter_and_delayed_effects(store: Storage) -> None:
    await store.effects.add([NewEffect("a"), NewEffect("b", not_before=T0 + 100)], T0)
    assert [e.kind for e in await store.effects.claim("w", T0, kinds=["b"])] == []
    assert [e.kind for e in await store.effects.claim("w", T0 + 100, kinds=["b"])] == ["b"]


async def test_record_effects_inside_a_transaction_of_ones_own(store: Storage) -> None:
    """Code with its own write transaction records effects in it; a rollback drops them."""
    db = store._db
    async with db.transaction() as tx:
        ids = await record_effects(tx, [NewEffect("mine", {"n": 1})], T0)
    assert len(ids) == 1
    with pytest.raises(RuntimeError):
        async with db.transaction() as tx:
            await record_effects(tx, [NewEffect("lost")], T0)
            raise RuntimeError("boom")
    assert [e.kind for e in await store.effects.find()] == ["mine"]


async def test_two_processes_claim_each_effect_once(db_path: Path) -> None:
    """Five connections (as five processes would) claim concurrently: every effect goes to
    exactly one worker."""
    async with await Storage.open(db_path, engine=FAKE_ENGINE) as store:
        await store.effects.add([NewEffect("job", {"n": n}) for n in range(60)], T0)
    stores = [await Storage.open(db_path, engine=FAKE_ENGINE) for _ in range(5)]
    try:

        async def worker(store: Storage, name: str) -> list[int]:
            got: list[int] = []
            while batch := await store.effects.claim(name, T0, limit=3):
                for effect in batch:
                    got.append(effect.id)
                    assert await store.effects.complete(effect.id, name, T0)
            return got

        results = await asyncio.gather(*(worker(s, f"w{i}") for i, s in enumerate(stores)))
    finally:
        for store in stores:
            await store.close()
    claimed = [effect_id for got in results for effect_id in got]
    assert sorted(claimed) == list(range(1, 61))


async def test_effects_tie_to_games_by_foreign_key(store: Storage) -> None:
    with pytest.raises(InvalidValueError):
        await store.effects.add([NewEffect("x", {}, game_id=12345)], T0)
    game = await new_game(store)
    await store.effects.add([NewEffect("x", {}, game_id=game.id, queue="custom")], T0)
    (effect,) = await store.effects.find(game_id=game.id)
    assert effect.queue == "custom"
