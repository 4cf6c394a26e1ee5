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
    EventKind,
    GameStatus,
    NewChallenge,
    NewEffect,
    Result,
    StorageEvent,
    Termination,
)
from tests.storage.conftest import BLACK, CHANNEL, GUILD, T0, WHITE, new_game, play
from tests.storage.fakes import FAKE_ENGINE


def kinds(items: list[DueItem]) -> list[tuple[DueKind, int | None, int]]:
    return [(i.kind, i.user_id, i.due_at) for i in items]


async def notices(store: Storage, game_id: int) -> list[tuple[int, str, int, bool]]:
    """The game's notification rows: (ply, kind, offset, sent)."""
    rows = await store._db.all(
        "SELECT ply, kind, offset_seconds, sent_at FROM notifications WHERE game_id = ? "
        "ORDER BY ply, kind, offset_seconds",
        (game_id,),
    )
    return [(r[0], r[1], r[2], r[3] is not None) for r in rows]


def notice_events(store: Storage) -> list[StorageEvent]:
    """Records every NOTICE_DUE event from now on (as the bot's effect rule does)."""
    seen: list[StorageEvent] = []

    def rule(event: StorageEvent) -> list[NewEffect]:
        seen.append(event)
        return []

    store.effects.rules.on(EventKind.NOTICE_DUE, rule)
    return seen


async def test_a_turn_sends_its_notice_at_once_and_schedules_reminders(store: Storage) -> None:
    """The turn notice is an event of the write that begins the turn (its effect is
    recorded with it), not a timer; the reminders and the deadline are timers."""
    seen = notice_events(store)
    game = await new_game(store, clock=Clock(3 * DAY, 0))
    deadline = T0 + 3 * DAY
    assert [(e.due.kind, e.due.user_id, e.ply, e.at) for e in seen if e.due] == [
        (DueKind.TURN_NOTICE, WHITE, 0, T0)
    ]
    assert await notices(store, game.id) == [
        (0, "reminder", HOUR, False),
        (0, "reminder", DAY, False),
        (0, "turn", 0, True),
    ]
    assert await store.timers.next_due_at() == deadline - DAY
    assert kinds(await store.timers.due(deadline)) == [
        (DueKind.REMINDER, WHITE, deadline - DAY),
        (DueKind.REMINDER, WHITE, deadline - HOUR),
        (DueKind.TIMEOUT, WHITE, deadline),
    ]
    items = await store.timers.due(deadline)
    assert [(i.game_id, i.ply) for i in items] == [(game.id, 0)] * 3
    assert [i.offset_seconds for i in items] == [DAY, HOUR, 0]
    await play(store, game, ["e2e4"], T0 + 60)
    assert [(e.due.user_id, e.ply) for e in seen if e.due] == [(WHITE, 0), (BLACK, 1)]


async def test_claiming_is_once_only_and_only_when_due(store: Storage) -> None:
    await new_game(store, clock=Clock(3 * DAY, 0))
    reminder = (await store.timers.due(T0 + 3 * DAY))[0]
    assert not await store.timers.claim_notification(reminder, T0)  # not due yet
    assert await store.timers.claim_notification(reminder, T0 + 2 * DAY)
    assert not await store.timers.claim_notification(reminder, T0 + 2 * DAY)
    assert kinds(await store.timers.due(T0 + 2 * DAY)) == []
    assert await store.timers.next_due_at() == T0 + 3 * DAY - HOUR
    timeout = (await store.timers.due(T0 + 3 * DAY))[-1]
    with pytest.raises(InvalidValueError):
        await store.timers.claim_notification(timeout, T0 + 3 * DAY)


async def test_batches_send_reminders_and_end_games_on_time(store: Storage) -> None:
    """The timer task's batches: each notice sent once (with its `NOTICE_DUE`), each game
    ended on time once; a batch never takes more than its limit."""
    seen = notice_events(store)
    games = [
        await new_game(store, clock=Clock(DAY, 0), white=5000 + k, black=6000 + k) for k in range(3)
    ]
    seen.clear()
    deadline = T0 + DAY
    first = await store.timers.notify_due(deadline - HOUR, limit=2)
    second = await store.timers.notify_due(deadline - HOUR, limit=2)
    assert len(first) == 2 and len(second) == 1
    assert await store.timers.notify_due(deadline - HOUR) == []
    assert sorted(e.game.id for e in seen if e.game) == sorted(g.id for g in games)
    ended = await store.timers.time_out_due(deadline, limit=2)
    ended += await store.timers.time_out_due(deadline, limit=2)
    assert sorted(i.game_id or 0 for i in ended) == sorted(g.id for g in games)
    assert await store.timers.time_out_due(deadline) == []
    for game in games:
        over = await store.games.get(game.id)
        assert (over.status, over.termination, over.ended_at) == (
            GameStatus.FINISHED,
            Termination.TIMEOUT,
            deadline,
        )
    assert await store.timers.next_due_at() is None


async def test_a_move_replaces_the_previous_turns_items(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 0))
    stale = await store.timers.due(T0 + DAY)
    game = await play(store, game, ["e2e4"], T0 + 600)
    assert not await store.timers.claim_notification(stale[0], T0 + DAY)
    due = await store.timers.due(T0 + 10 * DAY)
    assert {(i.kind, i.user_id, i.ply) for i in due} == {
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
    seen = notice_events(store)
    game = await new_game(store, clock=Clock.untimed())
    assert await store.timers.due(T0 + 1000 * DAY) == []
    assert [e.ply for e in seen] == [0]
    assert await notices(store, game.id) == [(0, "turn", 0, True)]


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
    """A timer task that "crashes" after every batch: each restart picks up what is due,
    and nothing is handled twice. Three weeks of game time, two games."""
    sent: list[tuple[int, int, int]] = []
    ended: list[int] = []

    async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
        first = await new_game(storage, clock=Clock(7 * DAY, 0))
        second = await new_game(storage, white=2001, black=2002, clock=Clock(3 * DAY, 0))
        await play(storage, second, ["e2e4"], T0 + HOUR)

    now = T0
    while now <= T0 + 21 * DAY:
        async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
            for item in await storage.timers.time_out_due(now, limit=1):
                assert item.game_id is not None
                ended.append(item.game_id)
        async with await Storage.open(db_path, engine=FAKE_ENGINE) as storage:
            for item in await storage.timers.notify_due(now, limit=1):
                assert item.game_id is not None and item.ply is not None
                sent.append((item.game_id, item.ply, item.offset_seconds))
                # the item is offered again after a "restart": the guard must hold
                assert not await storage.timers.claim_notification(item, now)
            next_at = await storage.timers.next_due_at()
        now = next_at if next_at is not None and next_at > now else now + DAY

    assert sorted(ended) == sorted([first.id, second.id])
    assert sorted(sent) == sorted(
        [
            (first.id, 0, DAY),
            (first.id, 0, HOUR),
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


async def test_a_batch_held_by_one_process_is_skipped_by_another(db_target: str) -> None:
    """Two processes at once: while one holds a batch of deadlines (its transaction open),
    the other takes the others (SKIP LOCKED on PostgreSQL; SQLite serialises them). A
    process that dies mid-batch holds nothing: its transaction is rolled back."""
    a = await Storage.open(db_target, engine=FAKE_ENGINE)
    b = await Storage.open(db_target, engine=FAKE_ENGINE)
    try:
        games = [
            await new_game(a, clock=Clock(DAY, 0), white=3000 + k, black=4000 + k) for k in range(6)
        ]
        when = T0 + DAY
        if a.dialect == "postgresql":
            async with a._db.transaction() as tx:
                held = await tx.all(
                    "SELECT id FROM games WHERE deadline_at <= ? ORDER BY deadline_at, id "
                    "LIMIT 2 FOR UPDATE",
                    (when,),
                )
                taken = await b.timers.time_out_due(when, limit=10)
                assert sorted(i.game_id or 0 for i in taken) == sorted(
                    g.id for g in games if g.id not in {r[0] for r in held}
                )
            # the holder's rows are free once its transaction ends (commit, rollback, or
            # its connection dropped by a dying process)
            rest = await b.timers.time_out_due(when, limit=10)
            assert len(rest) == 2
        else:
            assert len(await b.timers.time_out_due(when, limit=10)) == 6
        assert await a.timers.time_out_due(when) == []
    finally:
        await a.close()
        await b.close()


async def test_processes_taking_batches_at_once_handle_each_item_once(db_target: str) -> None:
    """Five stores (five pools on PostgreSQL) take the same 30 due deadlines at the same
    moment, batch after batch: every game is ended on time exactly once."""
    stores = [await Storage.open(db_target, engine=FAKE_ENGINE) for _ in range(5)]
    try:
        for k in range(30):
            await new_game(stores[0], clock=Clock(DAY, 0), white=3000 + k, black=4000 + k)
        when = T0 + DAY

        async def drain(i: int) -> list[int]:
            out: list[int] = []
            while batch := await stores[i].timers.time_out_due(when, limit=4):
                out += [item.game_id or 0 for item in batch]
            return out

        results = await asyncio.gather(*(drain(i) for i in range(5)))
        handled = [game for result in results for game in result]
        assert len(handled) == 30
        assert len(set(handled)) == 30
    finally:
        for storage in stores:
            await storage.close()
