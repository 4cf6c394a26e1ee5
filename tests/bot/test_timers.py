"""Clocks over weeks of game time: turn notices, reminders, timeouts, vacation, restarts."""

from __future__ import annotations

from bot.service import GameService, ManualClock
from bot.service.timers import NoticeEvent, TimeoutEvent, TimerService
from storage.models import DAY, HOUR, NotifyMode, Termination
from tests.bot.conftest import ANN, BOB, start_game

THREAD = 5000


async def test_reminders_then_timeout_for_the_player_to_move(
    service: GameService, clock: ManualClock
) -> None:
    timers = TimerService(service)
    await start_game(service, "chess", days_per_move=3)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    events = await timers.run_due()
    notices = [e for e in events if isinstance(e, NoticeEvent)]
    assert [(n.user_id, n.reminder) for n in notices] == [(BOB.id, False)]
    assert await timers.run_due() == []  # nothing is handled twice
    clock.advance(2 * DAY)  # 24 h before the deadline
    reminders = [e for e in await timers.run_due() if isinstance(e, NoticeEvent)]
    assert [(r.user_id, r.reminder, r.seconds_left) for r in reminders] == [(BOB.id, True, DAY)]
    clock.advance(DAY - HOUR)
    reminders = [e for e in await timers.run_due() if isinstance(e, NoticeEvent)]
    assert [r.seconds_left for r in reminders] == [HOUR]
    clock.advance(HOUR)
    events = await timers.run_due()
    timeouts = [e for e in events if isinstance(e, TimeoutEvent)]
    assert len(timeouts) == 1
    view = timeouts[0].view
    assert view.game.termination is Termination.TIMEOUT
    assert view.status == "White wins on time"
    assert len(timeouts[0].rating_changes) == 2


async def test_a_move_in_time_cancels_the_pending_reminders(
    service: GameService, clock: ManualClock
) -> None:
    timers = TimerService(service)
    await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    await timers.run_due()
    clock.advance(12 * HOUR)
    await service.play(channel_id=THREAD, user=BOB, text="e7e5")
    clock.advance(23 * HOUR + 30 * 60)  # Bob's old deadline has passed; Ann's has not
    events = await timers.run_due()
    assert not [e for e in events if isinstance(e, TimeoutEvent)]
    assert [(e.user_id, e.reminder) for e in events if isinstance(e, NoticeEvent)] == [
        (ANN.id, False),
        (ANN.id, True),
    ]


async def test_dm_preference_is_carried_to_the_notice(service: GameService) -> None:
    timers = TimerService(service)
    await start_game(service, "chess", days_per_move=2)
    await service.storage.players.set_preferences(
        BOB.id, service.clock.now(), notify_mode=NotifyMode.DM
    )
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    notices = [e for e in await timers.run_due() if isinstance(e, NoticeEvent)]
    assert notices and notices[0].via_dm


async def test_vacation_stops_the_clock(service: GameService, clock: ManualClock) -> None:
    timers = TimerService(service)
    await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    await service.storage.vacations.start(BOB.id, clock.now())
    clock.advance(5 * DAY)
    assert not [e for e in await timers.run_due() if isinstance(e, TimeoutEvent)]
    view = await service.board(channel_id=THREAD, user_id=ANN.id)
    assert view.game.clock_paused and view.game.is_active
    await service.storage.vacations.end(BOB.id, clock.now())
    clock.advance(DAY)
    assert [e for e in await timers.run_due() if isinstance(e, TimeoutEvent)]
    status = await service.storage.vacations.status(BOB.id, clock.now())
    assert round(status.used_seconds / DAY) == 5


async def test_a_restart_handles_what_fell_due_while_down(
    service: GameService, clock: ManualClock
) -> None:
    await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e2e4")
    clock.advance(30 * DAY)  # the bot was down for a month
    restarted = TimerService(GameService(service.storage, clock=clock))
    events = await restarted.run_due()
    assert len([e for e in events if isinstance(e, TimeoutEvent)]) == 1
    assert await TimerService(service).run_due() == []
