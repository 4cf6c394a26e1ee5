"""Tournaments played out on a simulated clock through the service layer: a 6-player round
robin and a 9-player Swiss of 4 rounds, each with a loss on time, a withdrawal, a bye
(Swiss) and a restart in the middle of a round."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from bot.service.errors import BadRequestError
from bot.service.models import UserRef
from bot.service.timers import TimerService
from bot.service.tournaments import TournamentService
from storage import Storage
from storage.models import DAY, DueKind

GUILD, CHANNEL = 900, 901
ORGANISER = UserRef(200, "Org")


def people(n: int) -> list[UserRef]:
    return [UserRef(300 + i, f"p{i}") for i in range(1, n + 1)]


class World:
    """Storage and services over one database file, reopened at will (a restart)."""

    def __init__(self, target: str, clock: ManualClock) -> None:
        self.target, self.clock = target, clock

    async def open(self) -> None:
        self.storage = await Storage.open(self.target, engine=STORAGE_ENGINE, rng=random.Random(1))
        self.games = GameService(self.storage, clock=self.clock)
        self.tournaments = TournamentService(self.games, rng=random.Random(2))
        self.timers = TimerService(self.storage, self.clock, on_game_ended=self.games.game_ended)

    async def restart(self) -> None:
        await self.storage.close()
        await self.open()
        await self.tournaments.advance_all()

    async def finish_game(self, game_id: int, rng: random.Random) -> None:
        game = await self.storage.games.get(game_id)
        white, black = UserRef(game.white_id, "w"), UserRef(game.black_id, "b")
        roll = rng.random()
        if roll < 0.35:
            await self.games.resign(channel_id=0, user=black, game_id=game_id)
        elif roll < 0.7:
            await self.games.resign(channel_id=0, user=white, game_id=game_id)
        else:
            await self.games.offer_draw(channel_id=0, user=white, game_id=game_id)
            await self.games.offer_draw(channel_id=0, user=black, game_id=game_id)


async def running_games(world: World, tid: int) -> list[int]:
    rows = await world.storage.tournaments.pairings(tid)
    return [r.game_id for r in rows if r.game_id is not None and r.game_status == "active"]


async def posts(world: World, tid: int) -> Counter[tuple[str, int]]:
    async with world.storage._db.transaction(write=False) as tx:
        rows = await tx.all(
            "SELECT kind, subject FROM tournament_posts WHERE tournament_id = ?", (tid,)
        )
    return Counter((r[0], r[1]) for r in rows)


async def test_round_robin_of_six(db_target: str) -> None:
    clock = ManualClock()
    world = World(db_target, clock)
    await world.open()
    rng = random.Random(6)
    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Club RR",
        variant="patricia", format="round-robin", days_per_move=1, max_players=6,
    )  # fmt: skip
    tid = view.tournament.id
    players = people(6)
    for p in players:
        await world.tournaments.join(tid, p)
    started = await world.tournaments.start(tid)
    assert started.tournament.status == "running" and started.tournament.rounds == 5
    games = await running_games(world, tid)
    assert len(games) == 15, "every game of every round at once"

    # A second start (the start time firing as the organiser clicks) changes nothing.
    with pytest.raises(BadRequestError, match="already started"):
        await world.tournaments.start(tid)
    await world.tournaments.advance_all()
    assert len(await world.storage.tournaments.pairings(tid)) == 15

    # Ten games end by resignation or agreement; then a restart mid-tournament.
    for gid in games[:10]:
        await world.finish_game(gid, rng)
    await world.restart()
    assert len(await world.storage.tournaments.pairings(tid)) == 15
    table = await world.tournaments.table(tid)
    assert sum(r.games for r in table.standings.rows) == 20  # ten games, two sides each

    # p6 withdraws: their games still going are resigned (losses).
    resigned = await world.tournaments.withdraw(tid, players[5])
    left = await running_games(world, tid)
    assert all(g not in left for g in resigned)
    # One more game is decided, and the rest are lost on time by White.
    for gid in left[:-1]:
        await world.finish_game(gid, rng)
    clock.advance(2 * DAY)
    handled = await world.timers.run_due()
    assert DueKind.TIMEOUT in [item.kind for item in handled]
    await world.tournaments.advance_all()

    t = await world.storage.tournaments.get(tid)
    assert t.status == "finished"
    table = await world.tournaments.table(tid)
    assert sum(r.points for r in table.standings.rows) == 15
    assert table.standings.row_of(players[5].id).entrant.withdrawn_after is not None
    assert all(
        sum(1 for c in row.cells if c.tone.value == "self") == 1 for row in table.crosstable.rows
    )
    made = await posts(world, tid)
    assert set(made.values()) == {1}
    assert made[("started", 0)] == 1 and made[("final", 0)] == 1
    assert sum(1 for k, _ in made if k == "result") == 15
    assert sum(1 for k, _ in made if k == "round") == 5
    await world.storage.close()


async def test_swiss_of_nine_in_four_rounds(db_target: str) -> None:
    clock = ManualClock()
    world = World(db_target, clock)
    await world.open()
    rng = random.Random(9)
    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Club Swiss",
        variant="chess", format="swiss", rounds=4, days_per_move=1, bye="1/2",
    )  # fmt: skip
    tid = view.tournament.id
    players = people(9)
    for p in players:
        await world.tournaments.join(tid, p)
    await world.tournaments.start(tid)
    byes: list[int] = []
    for round_no in range(1, 5):
        t = await world.storage.tournaments.get(tid)
        assert t.current_round == round_no
        rows = [r for r in await world.storage.tournaments.pairings(tid) if r.round == round_no]
        byes += [r.white_id for r in rows if r.black_id is None]
        games = [r.game_id for r in rows if r.game_id is not None]
        if round_no == 2:
            # One game is lost on time; the others end before the deadline.
            for gid in games[1:]:
                await world.finish_game(gid, rng)
            clock.advance(2 * DAY)
            await world.timers.run_due()
        elif round_no == 3:
            # A restart in the middle of the round, then a withdrawal.
            await world.finish_game(games[0], rng)  # type: ignore[arg-type]
            await world.restart()
            await world.restart()
            assert (await world.storage.tournaments.get(tid)).current_round == 3
            quitter = next(r.white_id for r in rows if r.game_id == games[1])
            await world.tournaments.withdraw(tid, UserRef(quitter, "quitter"))
            for gid in await running_games(world, tid):
                await world.finish_game(gid, rng)
        else:
            for gid in games:
                await world.finish_game(gid, rng)  # type: ignore[arg-type]
        await world.tournaments.advance_all()
        await world.tournaments.advance_all()  # twice: nothing is paired twice

    t = await world.storage.tournaments.get(tid)
    assert t.status == "finished" and t.current_round == 4
    rows = await world.storage.tournaments.pairings(tid)
    met = Counter(frozenset((r.white_id, r.black_id)) for r in rows if r.black_id is not None)
    assert set(met.values()) == {1}, "no rematch"
    assert len(byes) == len(set(byes)) >= 3, "a bye in each odd round, never twice"
    assert quitter not in {p for r in rows if r.round == 4 for p in (r.white_id, r.black_id)}
    table = await world.tournaments.table(tid)
    bye_row = table.standings.row_of(byes[0])
    assert bye_row.byes == 1
    assert table.crosstable.swiss and len(table.crosstable.columns) == 4
    assert "½" in " ".join(
        c.text for row in table.crosstable.rows for c in row.cells if c.text.startswith("bye")
    )
    made = await posts(world, tid)
    assert set(made.values()) == {1} and made[("final", 0)] == 1
    await world.storage.close()
