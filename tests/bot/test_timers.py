"""Clocks over weeks of game time: turn notices, reminders, timeouts, vacation, restarts."""

from __future__ import annotations

import pytest

from bot.replies import refusal
from bot.service import GameService, ManualClock
from bot.service.consequences import ENDED, GameEvent, Notice
from bot.service.effects import EffectRunner
from bot.service.errors import GameFinishedError
from bot.service.timers import TimerService
from storage.errors import DeadlinePassedError
from storage.models import DAY, HOUR, DueKind, NotifyMode, Termination
from tests.bot.conftest import ANN, BOB, Announced, start_game

THREAD = 5000


def notices(announced: Announced) -> list[Notice]:
    out = [a for a in announced if isinstance(a, Notice)]
    announced.clear()
    return out


def endings(announced: Announced) -> list[GameEvent]:
    return [a for a in announced if isinstance(a, GameEvent) and a.kind == ENDED]


async def test_reminders_then_timeout_for_the_player_to_move(
    service: GameService, clock: ManualClock, effects: EffectRunner, announced: Announced
) -> None:
    timers = TimerService(service.storage, clock)
    await start_game(service, "chess", days_per_move=3)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    assert await timers.run_due() == []  # the turn notice is an effect of the move
    await effects.run_due()
    assert [(n.user_id, n.reminder) for n in notices(announced)] == [(BOB.id, False)]
    assert await timers.run_due() == []
    clock.advance(2 * DAY)  # 24 h before the deadline
    await timers.run_due()
    await effects.run_due()
    assert [(n.user_id, n.reminder, n.seconds_left) for n in notices(announced)] == [
        (BOB.id, True, DAY)
    ]
    clock.advance(DAY - HOUR)
    await timers.run_due()
    await effects.run_due()
    assert [n.seconds_left for n in notices(announced)] == [HOUR]
    clock.advance(HOUR)
    assert [i.kind for i in await timers.run_due()] == [DueKind.TIMEOUT]
    await effects.run_due()
    (ended,) = endings(announced)
    assert ended.view.game.termination is Termination.TIMEOUT
    assert ended.view.status == "White wins on time"
    assert len(ended.rating_changes) == 2


async def test_a_move_in_time_cancels_the_pending_reminders(
    service: GameService, clock: ManualClock, effects: EffectRunner, announced: Announced
) -> None:
    timers = TimerService(service.storage, clock)
    await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    await timers.run_due()
    await effects.run_due()
    announced.clear()
    clock.advance(12 * HOUR)
    await service.play(channel_id=THREAD, user=BOB, text="e7e5")
    clock.advance(23 * HOUR + 30 * 60)  # Bob's old deadline has passed; Ann's has not
    handled = await timers.run_due()
    assert DueKind.TIMEOUT not in [i.kind for i in handled]
    await effects.run_due()
    assert [(n.user_id, n.reminder) for n in notices(announced)] == [
        (ANN.id, False),
        (ANN.id, True),
    ]


async def test_dm_preference_is_carried_to_the_notice(
    service: GameService, effects: EffectRunner, announced: Announced
) -> None:
    timers = TimerService(service.storage, service.clock)
    await start_game(service, "chess", days_per_move=2)
    await service.storage.players.set_preferences(
        BOB.id, service.clock.now(), notify_mode=NotifyMode.DM
    )
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    await timers.run_due()
    await effects.run_due()
    found = notices(announced)
    assert found and found[0].via_dm


async def test_vacation_stops_the_clock(service: GameService, clock: ManualClock) -> None:
    timers = TimerService(service.storage, clock)
    await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    await service.storage.vacations.start(BOB.id, clock.now())
    clock.advance(5 * DAY)
    assert DueKind.TIMEOUT not in [i.kind for i in await timers.run_due()]
    view = await service.board(channel_id=THREAD, user_id=ANN.id)
    assert view.game.clock_paused and view.game.is_active
    await service.storage.vacations.end(BOB.id, clock.now())
    clock.advance(DAY)
    assert DueKind.TIMEOUT in [i.kind for i in await timers.run_due()]
    status = await service.storage.vacations.status(BOB.id, clock.now())
    assert round(status.used_seconds / DAY) == 5


async def test_a_restart_handles_what_fell_due_while_down(
    service: GameService, clock: ManualClock
) -> None:
    await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    clock.advance(30 * DAY)  # the bot was down for a month
    restarted = TimerService(service.storage, clock)
    handled = await restarted.run_due()
    assert [i.kind for i in handled].count(DueKind.TIMEOUT) == 1
    assert await TimerService(service.storage, clock).run_due() == []


async def test_a_late_move_is_refused_and_the_loss_on_time_stands(
    service: GameService, clock: ManualClock, effects: EffectRunner, announced: Announced
) -> None:
    """The bot was down when Bob's deadline passed: his move after it settles the loss on
    time first (and its post and ratings follow), then is refused; /abort cannot undo it."""
    game_id = await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    clock.advance(DAY + 60)
    with pytest.raises(DeadlinePassedError) as late:
        await service.abort(channel_id=THREAD, user=BOB)  # Bob has not moved: abort allowed?
    assert refusal(late.value) == "The deadline had passed: the game is over, white wins on time."
    with pytest.raises(GameFinishedError):
        await service.play(channel_id=THREAD, user=BOB, text="e7e5")
    game = await service.storage.games.get(game_id)
    assert (game.termination, game.ply_count) == (Termination.TIMEOUT, 1)
    await effects.run_due()
    (ended,) = endings(announced)
    assert ended.view.status == "White wins on time" and len(ended.rating_changes) == 2


async def test_a_late_move_settles_the_deadline_before_its_legality(
    service: GameService, clock: ManualClock
) -> None:
    """Even an illegal late move gets the answer that matters: the game was lost on time."""
    await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    clock.advance(DAY)
    with pytest.raises(DeadlinePassedError, match="white wins on time"):
        await service.play(channel_id=THREAD, user=BOB, text="e7e4")


async def test_a_process_killed_mid_batch_leaves_nothing_claimed(
    service: GameService, clock: ManualClock, effects: EffectRunner, announced: Announced
) -> None:
    """Two bot processes share the database. A takes the due deadline in its timer
    transaction and dies there: its transaction never commits, and what it held is free at
    once (on PostgreSQL the server rolls back the dead connection's transaction and its row
    locks go; no lease to wait for). B's next pass ends the game on time, once."""
    a, b = TimerService(service.storage, clock), TimerService(service.storage, clock)
    await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    clock.advance(DAY)

    class Killed(Exception):
        pass

    with pytest.raises(Killed):
        async with service.storage._db.transaction() as tx:
            await tx.all(
                f"SELECT id FROM games WHERE deadline_at <= ?{tx.skip_locked}", (clock.now(),)
            )
            raise Killed  # ...process A is gone, mid-transaction
    assert DueKind.TIMEOUT in [i.kind for i in await b.run_due()]
    assert await b.run_due() == [] and await a.run_due() == []
    await effects.run_due()
    (ended,) = endings(announced)
    assert ended.view.game.termination is Termination.TIMEOUT
    assert ended.view.status == "White wins on time"
