"""Durable timers: turn notices, reminders, timeouts, expiries; each handled at most once,
whatever restarts happen. Weeks of game time pass in milliseconds with an explicit clock."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage import Storage
from storage.errors import InvalidValueError
from storage.models import (
    DAY,
    HOUR,
    Clock,
    DueItem,
    DueKind,
    GameStatus,
    NewChallenge,
    Result,
    Termination,
)
from tests.storage.conftest import BLACK, CHANNEL, GUILD, T0, WHITE, new_game, play
from tests.storage.fakes import FAKE_ENGINE


def kinds(items: list[DueItem]) -> list[tuple[DueKind, int | None, int]]:
    return [(i.kind, i.user_id, i.due_at) for i in items]


async def test_a_turn_schedules_a_notice_and_reminders(store: Storage) -> None:
    game = await new_game(store, clock=Clock(3 * DAY, 0))
    deadline = T0 + 3 * DAY
    assert await store.timers.next_due_at() == T0
    assert kinds(await store.timers.due(T0)) == [(DueKind.TURN_NOTICE, WHITE, T0)]
    assert kinds(await store.timers.due(deadline)) == [
        (DueKind.TURN_NOTICE, WHITE, T0),
        (DueKind.REMINDER, WHITE, deadline - DAY),
        (DueKind.REMINDER, WHITE, deadline - HOUR),
        (DueKind.TIMEOUT, WHITE, deadline),
    ]
    items = await store.timers.due(deadline)
    assert [(i.game_id, i.ply) for i in items] == [(game.id, 0)] * 4
    assert [i.offset_seconds for i in items] == [0, DAY, HOUR, 0]


async def test_claiming_is_once_only_and_only_when_due(store: Storage) -> None:
    await new_game(store, clock=Clock(3 * DAY, 0))
    notice, reminder = (await store.timers.due(T0 + 2 * DAY))[:2]
    assert await store.timers.claim_notification(notice, T0)
    assert not await store.timers.claim_notification(notice, T0)
    assert not await store.timers.claim_notification(reminder, T0)  # not due yet
    assert await store.timers.claim_notification(reminder, T0 + 2 * DAY)
    assert kinds(await store.timers.due(T0 + 2 * DAY)) == []
    assert await store.timers.next_due_at() == T0 + 3 * DAY - HOUR
    timeout = (await store.timers.due(T0 + 3 * DAY))[-1]
    with pytest.raises(InvalidValueError):
        await store.timers.claim_notification(timeout, T0 + 3 * DAY)


async def test_a_move_replaces_the_previous_turns_items(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 0))
    stale = await store.timers.due(T0)
    game = await play(store, game, ["e2e4"], T0 + 600)
    assert not await store.timers.claim_notification(stale[0], T0 + 700)
    due = await store.timers.due(T0 + 10 * DAY)
    assert {(i.kind, i.user_id, i.ply) for i in due} == {
        (DueKind.TURN_NOTICE, BLACK, 1),
        (DueKind.REMINDER, BLACK, 1),
        (DueKind.TIMEOUT, BLACK, 1),
    }
    # a 1-day clock: the 24 h reminder would come at the start of the turn, so only 1 h is kept
    assert [i.offset_seconds for i in due if i.kind is DueKind.REMINDER] == [HOUR]


async def test_preferences_shape_the_schedule_of_running_turns(store: Storage) -> None:
    await new_game(store, clock=Clock(3 * DAY, 0))
    await store.players.set_preferences(WHITE, T0, turn_notices=False, reminder_offsets=[2 * DAY])
    assert kinds(await store.timers.due(T0 + 3 * DAY)) == [
        (DueKind.REMINDER, WHITE, T0 + DAY),
        (DueKind.TIMEOUT, WHITE, T0 + 3 * DAY),
    ]
    await store.players.set_preferences(WHITE, T0, reminder_offsets=[])
    assert [i.kind for i in await store.timers.due(T0 + 3 * DAY)] == [DueKind.TIMEOUT]


async def test_an_untimed_game_only_gets_turn_notices(store: Storage) -> None:
    await new_game(store, clock=Clock.untimed())
    assert [i.kind for i in await store.timers.due(T0 + 1000 * DAY)] == [DueKind.TURN_NOTICE]


async def test_challenge_expiry_is_a_due_item(store: Storage) -> None:
    made = await store.challenges.create(
        NewChallenge(GUILD, CHANNEL, WHITE, BLACK, "chess", ttl_seconds=3600), T0
    )
    assert await store.timers.next_due_at() == T0 + 3600
    [item] = await store.timers.due(T0 + 3600)
    assert (item.kind, item.challenge_id, item.user_id) == (
        DueKind.CHALLENGE_EXPIRY,
        made.id,
        WHITE,
    )
    assert [c.id for c in await store.challenges.expire_due(item.due_at)] == [made.id]
    assert await store.timers.due(T0 + 3600) == []
    assert await store.timers.next_due_at() is None


async def test_nothing_is_missed_or_handled_twice_across_restarts(db_path: Path) -> None:
    """A timer loop that "crashes" after every item: each restart picks up what is due,
    the guards refuse what was handled. Three weeks of game time, two games."""
    sent: list[tuple[int, int, int]] = []
    ended: list[int] = []

    async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
        first = await new_game(storage, clock=Clock(7 * DAY, 0))
        second = await new_game(storage, white=2001, black=2002, clock=Clock(3 * DAY, 0))
        await play(storage, second, ["e2e4"], T0 + HOUR)

    now = T0
    while now <= T0 + 21 * DAY:
        async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
            for item in await storage.timers.due(now):
                assert item.game_id is not None and item.ply is not None
                if item.kind is DueKind.TIMEOUT:
                    game = await storage.games.claim_timeout(item.game_id, item.ply, now)
                    ended.append(game.id)
                elif await storage.timers.claim_notification(item, now):
                    sent.append((item.game_id, item.ply, item.offset_seconds))
                # every item is offered again after a "restart": the guards must hold
                if item.kind is not DueKind.TIMEOUT:
                    assert not await storage.timers.claim_notification(item, now)
            next_at = await storage.timers.next_due_at()
        now = next_at if next_at is not None and next_at > now else now + DAY

    assert sorted(ended) == sorted([first.id, second.id])
    assert sorted(sent) == sorted(
        [
            (first.id, 0, 0),
            (first.id, 0, DAY),
            (first.id, 0, HOUR),
            (second.id, 1, 0),  # its ply-0 notice was made obsolete by the first move
            (second.id, 1, DAY),
            (second.id, 1, HOUR),
        ]
    )
    async with await Storage.open(db_path) as storage:
        for game_id in ended:
            game = await storage.games.get(game_id)
            assert (game.status, game.termination) == (GameStatus.FINISHED, Termination.TIMEOUT)
        assert (await storage.games.get(second.id)).result is Result.WHITE_WINS  # Black idled
        assert await storage.timers.next_due_at() is None


async def test_a_claimed_item_is_one_owners_until_its_lease_runs_out(store: Storage) -> None:
    """Two processes: A claims what is due (the deadline among it) and dies; B sees nothing
    to do until A's lease ends, then takes the items over. A release frees an item."""
    game = await new_game(store, clock=Clock(DAY, 0))
    deadline = T0 + DAY

    def timeouts(items: list[DueItem]) -> list[int | None]:
        return [i.game_id for i in items if i.kind is DueKind.TIMEOUT]

    assert timeouts(await store.timers.claim(deadline, "A", lease_seconds=60)) == [game.id]
    assert await store.timers.claim(deadline + 59, "B", lease_seconds=60) == []
    assert await store.timers.next_claimable_at(deadline + 1, "B") == deadline + 60
    assert await store.timers.next_claimable_at(deadline + 1, "A") == deadline + 1
    taken = await store.timers.claim(deadline + 60, "B", lease_seconds=60)
    assert timeouts(taken) == [game.id]
    await store.games.claim_timeout(game.id, 0, deadline + 60)
    for item in taken:
        await store.timers.release(item, "B")
    assert await store.timers.claim(deadline + 61, "A", lease_seconds=60) == []  # game over
    assert timeouts(await store.timers.due(deadline + 61)) == []
    async with store._db.transaction(write=False) as tx:
        left = await tx.scalar("SELECT count(*) FROM timer_claims WHERE owner = 'B'")
    assert left == 0


async def test_release_all_frees_the_claims_of_a_stopped_process(store: Storage) -> None:
    """The bot at start-up, alone on the database: what a killed process had claimed is
    claimable at once, not when its lease ends."""
    game = await new_game(store, clock=Clock(DAY, 0))
    deadline = T0 + DAY
    assert [i.game_id for i in await store.timers.claim(deadline, "dead", lease_seconds=60)]
    assert await store.timers.claim(deadline + 1, "new", lease_seconds=60) == []
    assert await store.timers.release_all() >= 1
    taken = await store.timers.claim(deadline + 1, "new", lease_seconds=60)
    assert game.id in [i.game_id for i in taken if i.kind is DueKind.TIMEOUT]
    assert await store.timers.release_all() == len(taken)


async def test_processes_claiming_at_once_get_each_item_once(db_target: str) -> None:
    """Five stores (five pools on PostgreSQL) claim the same 30 due deadlines at the same
    moment: every item is claimed by exactly one of them."""
    stores = [await Storage.open(db_target, engine=FAKE_ENGINE) for _ in range(5)]
    try:
        for k in range(30):
            await new_game(stores[0], clock=Clock(DAY, 0), white=3000 + k, black=4000 + k)
        when = T0 + DAY

        async def claim(i: int) -> list[tuple[DueKind, int | None]]:
            items = await stores[i].timers.claim(when, f"p{i}", lease_seconds=60, limit=500)
            return [(item.kind, item.game_id) for item in items if item.kind is DueKind.TIMEOUT]

        results = await asyncio.gather(*(claim(i) for i in range(5)))
        claimed = [item for result in results for item in result]
        assert len(claimed) == 30
        assert len(set(claimed)) == 30
    finally:
        for storage in stores:
            await storage.close()
