"""Notices players can live with, over days of simulated time: a daily digest that comes once
a day whatever restarts happen, quiet hours that hold notices to their end, a server's
default, and deadline warnings that nothing holds back. A "restart" is a new timer service
and effects runner on the same database, as a new process would be."""

from __future__ import annotations

import dataclasses

from bot.service import GameService, ManualClock
from bot.service.consequences import MOVED, DigestNotice, GameEvent, Notice
from bot.service.effects import EffectRunner
from bot.service.timers import TimerService
from storage.models import DAY, HOUR, NoticeSchedule, NoticeTiming
from tests.bot.conftest import ANN, BOB, EVE, GUILD, Announced, start_game

NINE = NoticeSchedule(NoticeTiming.DIGEST, hour=9)  # 09:00 UTC
START = 1_800_000_000  # the ManualClock's start: 2027-01-15 08:00 UTC


class Bot:
    """The timers and effects of one process; `restart()` replaces them (same database)."""

    def __init__(self, service: GameService, clock: ManualClock, runner: EffectRunner) -> None:
        self.service, self.clock, self.runner = service, clock, runner
        self.timers = TimerService(service.storage, clock)

    async def restart(self) -> None:
        registry = self.runner.registry
        self.runner = EffectRunner(registry, self.clock, owner=f"{self.runner.owner}+")
        self.timers = TimerService(self.service.storage, self.clock)
        await self.runner.resume(exclusive=True)

    async def at(self, when: int) -> None:
        """The clock moves to `when`; whatever fell due is handled."""
        self.clock.set(when)
        await self.timers.run_due()
        await self.runner.run_due()


def digests(announced: Announced) -> list[DigestNotice]:
    return [a for a in announced if isinstance(a, DigestNotice)]


def notices_of(announced: Announced, user_id: int) -> list[Notice]:
    return [a for a in announced if isinstance(a, Notice) and a.user_id == user_id]


def moves_to(announced: Announced, user_id: int) -> list[GameEvent]:
    return [
        a
        for a in announced
        if isinstance(a, GameEvent) and a.kind == MOVED and a.view.game.to_move_id == user_id
    ]


async def test_a_daily_digest_comes_once_a_day_across_restarts(
    service: GameService, clock: ManualClock, effects: EffectRunner, announced: Announced
) -> None:
    bot = Bot(service, clock, effects)
    await service.storage.players.set_schedule(BOB.id, NINE, clock.now())
    first = await start_game(service, "chess", days_per_move=3, thread=5001)
    second = await start_game(service, "chess", white=EVE, days_per_move=3, thread=5002)
    await service.play(channel_id=5001, user=ANN, text="e2e4")
    await bot.at(START + 30 * 60)
    await service.play(channel_id=5002, user=EVE, text="d2d4")
    await bot.at(START + HOUR - 1)
    # Bob is neither pinged by the moves' posts nor sent a notice: his digest is at 09:00.
    assert [e.ping_to_move for e in moves_to(announced, BOB.id)] == [False, False]
    assert notices_of(announced, BOB.id) == [] and digests(announced) == []
    await bot.restart()
    await bot.at(START + HOUR)
    (digest,) = digests(announced)
    assert (digest.user_id, [s.game.id for s in digest.games]) == (BOB.id, [first, second])
    for _ in range(2):  # nothing more, whatever restarts
        await bot.restart()
        await bot.at(clock.now() + HOUR)
    assert len(digests(announced)) == 1

    # The next day: Bob answers one game, Ann replies; one digest at 09:00 again.
    await bot.at(START + 3 * HOUR)
    await service.play(channel_id=5001, user=BOB, text="e7e5")
    await bot.at(START + 4 * HOUR)
    await service.play(channel_id=5001, user=ANN, text="g1f3")
    await bot.at(START + DAY + HOUR - 60)
    assert len(digests(announced)) == 1
    await bot.restart()
    await bot.at(START + DAY + HOUR)
    assert len(digests(announced)) == 2
    assert [s.game.id for s in digests(announced)[-1].games] == [second, first]  # by deadline
    await bot.restart()
    await bot.at(START + DAY + 2 * HOUR)
    assert len(digests(announced)) == 2
    assert notices_of(announced, BOB.id) == []

    # A deadline warning is never held for the digest: Eve's game is due at 08:30 on day 4,
    # its one-hour reminder (07:30) comes before that day's digest, so it is sent at once.
    await bot.at(START + 3 * DAY - 30 * 60)
    (warning,) = notices_of(announced, BOB.id)
    assert (warning.game.id, warning.reminder, warning.seconds_left) == (second, True, HOUR)
    # Day 3's digest came with the 24-hour reminder of Eve's game (the clock jumped: late).
    assert len(digests(announced)) == 3


async def test_quiet_hours_hold_a_notice_to_their_end(
    service: GameService, clock: ManualClock, effects: EffectRunner, announced: Announced
) -> None:
    bot = Bot(service, clock, effects)
    quiet = NoticeSchedule(NoticeTiming.QUIET, hour=22, until=7)
    await service.storage.players.set_schedule(BOB.id, quiet, clock.now())
    await start_game(service, "chess", days_per_move=2)
    await bot.at(START + 15 * HOUR)  # 23:00
    await service.play(channel_id=5000, user=ANN, text="e2e4")
    await bot.at(START + 15 * HOUR + 60)
    (moved,) = moves_to(announced, BOB.id)
    assert not moved.ping_to_move and notices_of(announced, BOB.id) == []
    await bot.restart()
    await bot.at(START + 23 * HOUR - 1)  # 06:59:59
    assert notices_of(announced, BOB.id) == []
    await bot.at(START + 23 * HOUR)  # 07:00: the notice, which now pings him in the thread
    (held,) = notices_of(announced, BOB.id)
    assert held.held and not held.reminder
    await bot.restart()
    await bot.at(START + 24 * HOUR)
    assert len(notices_of(announced, BOB.id)) == 1


async def test_players_who_did_not_choose_follow_the_servers_default(
    service: GameService, clock: ManualClock, effects: EffectRunner, announced: Announced
) -> None:
    bot = Bot(service, clock, effects)
    settings = await service.storage.guilds.get(GUILD)
    await service.storage.guilds.set(
        dataclasses.replace(settings, notice_schedule=NINE), clock.now()
    )
    await service.storage.players.set_schedule(ANN.id, NoticeSchedule(), clock.now())  # at once
    hers = await start_game(service, "chess", days_per_move=3, thread=5001)
    await start_game(service, "chess", white=BOB, black=ANN, days_per_move=3, thread=5002)
    await service.play(channel_id=5001, user=ANN, text="e2e4")
    await service.play(channel_id=5002, user=BOB, text="e2e4")
    await bot.at(START + 60)
    assert notices_of(announced, BOB.id) == []  # Bob follows the server: the digest
    assert [e.ping_to_move for e in moves_to(announced, BOB.id)] == [False]
    assert [e.ping_to_move for e in moves_to(announced, ANN.id)] == [True]  # Ann: at once
    await bot.at(START + HOUR)
    (digest,) = digests(announced)
    assert digest.user_id == BOB.id and [s.game.id for s in digest.games] == [hers]
