"""Tournaments played out on a simulated clock through the service layer, with every effect
carried out as the bot does (posts to a stand-in that keeps each message once): a 6-player
round robin and a 9-player Swiss of 4 rounds, each with a loss on time, a withdrawal, a bye
(Swiss) and restarts in the middle of a round; a round's deadline, a start time; and every
post exactly once."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from bot.service import consequences, tournaments
from bot.service.errors import BadRequestError
from bot.service.models import UserRef
from storage.errors import ConflictError, RefusedError
from storage.models import DAY, DueKind, EffectStatus, Termination
from tests.bot.conftest import TINY_CHESS, TINY_CHESS_V2
from tests.bot.tournament_world import CHANNEL, GUILD, ORGANISER, World, people


async def finish_game(world: World, game_id: int, rng: random.Random) -> None:
    game = await world.storage.games.get(game_id)
    white, black = UserRef(game.white_id, "w"), UserRef(game.black_id, "b")
    roll = rng.random()
    if roll < 0.35:
        await world.games.resign(channel_id=0, user=black, game_id=game_id)
    elif roll < 0.7:
        await world.games.resign(channel_id=0, user=white, game_id=game_id)
    else:
        await world.games.offer_draw(channel_id=0, user=white, game_id=game_id)
        await world.games.offer_draw(channel_id=0, user=black, game_id=game_id)
    await world.runner.run_due()


def payloads(world: World, kind: str) -> list[dict[str, object]]:
    return [json.loads(p) for _k, _g, p in world.discord.of_kind(kind)]


async def everything_done(world: World) -> None:
    statuses = await world.effects_by_status()
    assert statuses[EffectStatus.PENDING] == 0 and statuses[EffectStatus.FAILED] == 0
    assert set(world.discord.counts().values()) == {1}, "a post was made twice"


async def test_round_robin_of_six(db_target: str) -> None:
    world = World(db_target)
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
    await world.runner.run_due()
    assert started.tournament.status == "running" and started.tournament.rounds == 5
    games = await world.running_games(tid)
    assert len(games) == 15, "every game of every round at once"
    # Each game: its post in the channel, then its thread with the first board.
    assert len(world.discord.of_kind(tournaments.GAME)) == 15
    assert len(world.discord.of_kind(consequences.STARTED)) == 15
    assert [p["round"] for p in payloads(world, tournaments.ROUND)] == [1, 2, 3, 4, 5]

    # A second start (the start time firing as the organiser clicks) changes nothing.
    with pytest.raises(BadRequestError, match="already started"):
        await world.tournaments.start(tid)
    await world.tournaments.advance(tid)
    assert len(await world.storage.tournaments.pairings(tid)) == 15

    # Ten games end by resignation or agreement; then a restart mid-tournament.
    for gid in games[:10]:
        await finish_game(world, gid, rng)
    await world.restart()
    await world.runner.run_due()
    table = await world.tournaments.table(tid)
    assert sum(r.games for r in table.standings.rows) == 20  # ten games, two sides each
    assert len(world.discord.of_kind(tournaments.RESULT)) == 10

    # p6 withdraws: their games still going are resigned (losses), each in its own thread.
    resigned = await world.tournaments.withdraw(tid, players[5])
    await world.runner.run_due()
    left = await world.running_games(tid)
    assert resigned and all(g not in left for g in resigned)
    ended_posts = {g for _k, g, _p in world.discord.of_kind(consequences.ENDED)}
    assert set(resigned) <= ended_posts
    (withdrawal,) = payloads(world, tournaments.WITHDRAWAL)
    assert withdrawal["user_id"] == players[5].id and withdrawal["games"] == resigned
    # One table for the withdrawal, not one per resigned game.
    assert len(world.discord.of_kind(tournaments.RESULT)) == 10
    for gid in resigned:
        game = await world.storage.games.get(gid)
        assert game.termination is Termination.RESIGNATION
        assert "withdrew from the tournament" in game.end_detail

    # One more game is decided, and the rest are lost on time by White.
    for gid in left[:-1]:
        await finish_game(world, gid, rng)
    world.clock.advance(2 * DAY)
    handled = await world.timers.run_due()
    assert DueKind.TIMEOUT in [item.kind for item in handled]
    await world.runner.run_due()

    t = await world.storage.tournaments.get(tid)
    assert t.status == "finished"
    table = await world.tournaments.table(tid)
    assert sum(r.points for r in table.standings.rows) == 15
    assert table.standings.row_of(players[5].id).entrant.withdrawn_after is not None
    assert all(
        sum(1 for c in row.cells if c.tone.value == "self") == 1 for row in table.crosstable.rows
    )
    await everything_done(world)
    kinds = Counter(k for k, _g, _p in world.discord.messages)
    assert kinds[tournaments.STARTED] == 1 and kinds[tournaments.FINAL] == 1
    assert kinds[tournaments.RESULT] + len(resigned) == 15
    assert kinds[consequences.ENDED] == 15
    # The final post comes last in the tournament's thread.
    thread = [k for k, _g, _p in world.discord.messages if k.startswith("tournament.")]
    assert thread[-1] == tournaments.FINAL
    await world.close()


async def test_swiss_of_nine_in_four_rounds(db_target: str) -> None:
    world = World(db_target)
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
    await world.runner.run_due()
    byes: list[int] = []
    quitter = 0
    for round_no in range(1, 5):
        t = await world.storage.tournaments.get(tid)
        assert t.current_round == round_no
        rows = [r for r in await world.storage.tournaments.pairings(tid) if r.round == round_no]
        byes += [r.white_id for r in rows if r.black_id is None]
        games = [r.game_id for r in rows if r.game_id is not None]
        if round_no == 2:
            # One game is lost on time; the others end before the deadline.
            for gid in games[1:]:
                await finish_game(world, gid, rng)  # type: ignore[arg-type]
            world.clock.advance(2 * DAY)
            await world.timers.run_due()
        elif round_no == 3:
            # A restart in the middle of the round, then a withdrawal.
            await finish_game(world, games[0], rng)  # type: ignore[arg-type]
            await world.restart()
            await world.restart()
            assert (await world.storage.tournaments.get(tid)).current_round == 3
            quitter = next(r.white_id for r in rows if r.game_id == games[1])
            await world.tournaments.withdraw(tid, UserRef(quitter, "quitter"))
            await world.runner.run_due()
            for gid in await world.running_games(tid):
                await finish_game(world, gid, rng)
        else:
            for gid in games:
                await finish_game(world, gid, rng)  # type: ignore[arg-type]
        await world.runner.run_due()
        await world.tournaments.advance(tid)  # again by hand: nothing is paired twice

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
    await everything_done(world)
    assert [p["round"] for p in payloads(world, tournaments.ROUND)] == [1, 2, 3, 4]
    assert len(world.discord.of_kind(tournaments.FINAL)) == 1
    await world.close()


async def test_a_double_round_robin_all_at_once(db_target: str) -> None:
    """Four players meet twice, once with each colour: every game of both cycles is created
    at the start, and everyone has White exactly as often as Black."""
    world = World(db_target)
    await world.open()
    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Twice",
        variant="chess", format="round-robin", double=True,
    )  # fmt: skip
    tid = view.tournament.id
    for p in people(4):
        await world.tournaments.join(tid, p)
    started = await world.tournaments.start(tid)
    await world.runner.run_due()
    assert started.tournament.rounds == 6 and started.tournament.cycles == 2
    boards = await world.storage.tournaments.pairings(tid)
    assert len(boards) == 12 and len(await world.running_games(tid)) == 12
    met = Counter((b.white_id, b.black_id) for b in boards)
    assert set(met.values()) == {1}
    assert all((black, white) in met for white, black in met), "each pair once with each colour"
    whites = Counter(b.white_id for b in boards)
    blacks = Counter(b.black_id for b in boards)
    assert set(whites.values()) == set(blacks.values()) == {3}
    assert [p["round"] for p in payloads(world, tournaments.ROUND)] == [1, 2, 3, 4, 5, 6]
    rng = random.Random(12)
    for gid in await world.running_games(tid):
        await finish_game(world, gid, rng)
    assert (await world.storage.tournaments.get(tid)).status == "finished"
    table = await world.tournaments.table(tid)
    assert sum(r.points for r in table.standings.rows) == 12
    assert all(r.games == 6 for r in table.standings.rows)
    await everything_done(world)
    await world.close()


async def test_a_round_robin_round_by_round_with_an_odd_field(db_target: str) -> None:
    """Five players, one round at a time: a round's games are created only when the one
    before is over, the player without an opponent sits the round out (a bye in the Berger
    table, worth nothing), and nobody has White more than once more than Black."""
    world = World(db_target)
    await world.open()
    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Slow RR",
        variant="chess", format="round-robin", round_by_round=True,
    )  # fmt: skip
    tid = view.tournament.id
    players = people(5)
    for p in players:
        await world.tournaments.join(tid, p)
    await world.tournaments.start(tid)
    await world.runner.run_due()
    rng = random.Random(5)
    for round_no in range(1, 6):
        t = await world.storage.tournaments.get(tid)
        assert (t.status, t.current_round) == ("running", round_no)
        games = await world.running_games(tid)
        assert len(games) == 2, f"round {round_no}: only its own games"
        boards = await world.storage.tournaments.pairings(tid)
        assert max(b.round for b in boards) == round_no, "no later round created early"
        if round_no == 3:
            await world.restart()
        for gid in games:
            await finish_game(world, gid, rng)
        await world.runner.run_due()
    assert (await world.storage.tournaments.get(tid)).status == "finished"
    boards = await world.storage.tournaments.pairings(tid)
    played = [b for b in boards if b.black_id is not None]
    assert len(played) == 10
    assert len({frozenset((b.white_id, b.black_id)) for b in played}) == 10
    whites = Counter(b.white_id for b in played)
    blacks = Counter(b.black_id for b in played)
    assert all(abs(whites[p.id] - blacks[p.id]) <= 1 for p in players)
    assert all(whites[p.id] + blacks[p.id] == 4 for p in players)
    table = await world.tournaments.table(tid)
    assert sum(r.points for r in table.standings.rows) == 10
    await everything_done(world)
    assert [p["round"] for p in payloads(world, tournaments.ROUND)] == [1, 2, 3, 4, 5]
    await world.close()


async def test_a_rounds_deadline_draws_the_games_still_going(db_target: str) -> None:
    world = World(db_target)
    await world.open()
    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Quick Swiss",
        variant="chess", format="swiss", rounds=2, days_per_move=7, round_days=3,
    )  # fmt: skip
    tid = view.tournament.id
    for p in people(4):
        await world.tournaments.join(tid, p)
    await world.tournaments.start(tid)
    await world.runner.run_due()
    first, second = await world.running_games(tid)
    await finish_game(world, first, random.Random(1))
    # Nothing happens before the deadline; at the deadline the effects runner (due then)
    # draws the other game, unrated, and pairs round 2.
    world.clock.advance(3 * DAY - 1)
    await world.runner.run_due()
    assert (await world.storage.games.get(second)).is_active
    world.clock.advance(1)
    await world.runner.run_due()
    drawn = await world.storage.games.get(second)
    assert drawn.termination is Termination.ADJUDICATION and not drawn.rated
    assert await world.storage.ratings.game_changes(second) == []
    t = await world.storage.tournaments.get(tid)
    assert t.current_round == 2 and t.round_deadline_at == world.clock.now() + 3 * DAY
    (passed,) = payloads(world, tournaments.DEADLINE_PASSED)
    assert passed == {"tournament_id": tid, "round": 1, "games": [second]}
    assert len(world.discord.of_kind(tournaments.RESULT)) == 1  # the deadline's post says it
    # Round 2's games all end early: the tournament is over, and round 2's deadline,
    # when it comes, changes nothing.
    for gid in await world.running_games(tid):
        await finish_game(world, gid, random.Random(2))
    assert (await world.storage.tournaments.get(tid)).status == "finished"
    world.clock.advance(3 * DAY)
    await world.runner.run_due()
    await everything_done(world)
    assert len(world.discord.of_kind(tournaments.DEADLINE_PASSED)) == 1
    await world.close()


async def test_the_start_time_starts_or_cancels(db_target: str) -> None:
    world = World(db_target)
    await world.open()
    made = []
    for name in ("Full", "Empty"):
        view = await world.tournaments.create(
            guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name=name,
            variant="chess", format="swiss", starts_in_hours=2,
        )  # fmt: skip
        made.append(view.tournament.id)
    for p in people(3):
        await world.tournaments.join(made[0], p)
    await world.tournaments.join(made[1], people(1)[0])
    await world.restart()  # the start times are stored, not kept in memory
    world.clock.advance(2 * 3600 - 1)
    await world.runner.run_due()
    assert (await world.storage.tournaments.get(made[0])).status == "signup"
    world.clock.advance(1)
    await world.runner.run_due()
    full, empty = [await world.storage.tournaments.get(t) for t in made]
    assert full.status == "running" and full.rounds == 3
    assert (empty.status, empty.end_reason) == ("cancelled", "fewer than two players signed up")
    cancelled = payloads(world, tournaments.CANCELLED)
    assert [p["tournament_id"] for p in cancelled] == [made[1]]
    await everything_done(world)
    await world.close()


async def test_results_just_before_the_end_keep_their_posts(db_target: str) -> None:
    """The last games of the last round end together, before anything is carried out: each
    result still gets its post, and the winner is announced after them."""
    world = World(db_target)
    await world.open()
    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Last Seconds",
        variant="chess", format="round-robin",
    )  # fmt: skip
    tid = view.tournament.id
    for p in people(4):
        await world.tournaments.join(tid, p)
    await world.tournaments.start(tid)
    games = await world.running_games(tid)
    rng = random.Random(4)
    for gid in games:  # no effect runs in between
        game = await world.storage.games.get(gid)
        await world.games.resign(channel_id=0, user=UserRef(game.black_id, "b"), game_id=gid)
    assert rng  # results are all Black resigning
    await world.runner.run_due()
    await everything_done(world)
    thread = [(k, g) for k, g, _p in world.discord.messages if k.startswith("tournament.")]
    results = [g for k, g in thread if k == tournaments.RESULT]
    assert sorted(results) == sorted(games)
    assert thread[-1] == (tournaments.FINAL, None)
    await world.close()


async def test_sign_up_refusals(db_target: str) -> None:
    """Joining twice, leaving without having joined, joining a full tournament and signing
    up once it has started are refused with a sentence, and change nothing."""
    world = World(db_target)
    await world.open()
    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Small",
        variant="chess", format="round-robin", max_players=3,
    )  # fmt: skip
    tid = view.tournament.id
    a, b, c, d = people(4)
    await world.tournaments.join(tid, a)
    with pytest.raises(ConflictError, match="already joined"):
        await world.tournaments.join(tid, a)
    with pytest.raises(ConflictError, match="not signed up"):
        await world.tournaments.leave(tid, b)
    with pytest.raises(BadRequestError, match="Bots cannot play"):
        await world.tournaments.join(tid, UserRef(999, "robot", bot=True))
    await world.tournaments.join(tid, b)
    await world.tournaments.join(tid, c)
    with pytest.raises(RefusedError, match=r"full \(3 players\)"):
        await world.tournaments.join(tid, d)
    await world.tournaments.leave(tid, c)
    await world.tournaments.join(tid, d)
    assert [p.user_id for p in await world.storage.tournaments.players(tid)] == [a.id, b.id, d.id]
    await world.tournaments.start(tid)
    with pytest.raises(RefusedError, match="sign-up for this tournament is closed"):
        await world.tournaments.join(tid, c)
    with pytest.raises(RefusedError, match="use /tournament withdraw"):
        await world.tournaments.leave(tid, a)
    with pytest.raises(RefusedError, match="still in sign-up"):
        await world.tournaments.cancel(tid)
    assert len(await world.storage.tournaments.players(tid)) == 3
    await world.close()


async def test_organisers_are_admins_or_the_configured_role(db_target: str) -> None:
    from bot.service.server_config import ConfigChange, ServerConfig, Unset

    world = World(db_target)
    await world.open()
    service = world.tournaments
    assert await service.may_organise(GUILD, True, set())
    assert not await service.may_organise(GUILD, False, {555})
    config = ServerConfig(world.storage, world.clock)
    await config.change(GUILD, ConfigChange(organiser_role_id=555))
    assert await service.may_organise(GUILD, False, {1, 555})
    assert not await service.may_organise(GUILD, False, {1})
    assert not await service.may_organise(GUILD + 1, False, {555}), "another server's role"
    await config.change(GUILD, ConfigChange(unset=Unset.ORGANISERS))
    assert not await service.may_organise(GUILD, False, {555})
    await world.close()


async def test_a_tournament_in_this_servers_own_variant(db_target: str) -> None:
    """The one resolver of built-in or server variants: a server's variant is offered and
    accepted, its definition is pinned by the tournament when it is created, and every game
    of every round plays it, whatever edits come later; another server cannot use it."""
    world = World(db_target)
    await world.open()
    variants = world.games.variants
    await variants.define(GUILD, ORGANISER, can_manage=True, filename="tiny.toml", data=TINY)
    offered = await variants.suggestions(GUILD, "tin")
    assert offered[0].value == "tiny" and "this server's" in offered[0].name
    view = await world.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, organiser=ORGANISER, name="Tiny Cup",
        variant="Tiny Chess", format="round-robin", round_by_round=True,
    )  # fmt: skip
    assert view.variant_name == "Tiny Chess"
    pinned = view.tournament.definition_digest
    assert pinned is not None and view.tournament.variant_id == f"tiny@{GUILD}"
    with pytest.raises(BadRequestError, match="unknown variant 'tiny'"):
        await world.tournaments.create(
            guild_id=GUILD + 1, channel_id=CHANNEL, organiser=ORGANISER, name="Elsewhere",
            variant="tiny", format="swiss",
        )  # fmt: skip
    # The variant changes after the tournament was announced: its games keep the first rules.
    edited = TINY_CHESS_V2.encode()
    await variants.define(GUILD, ORGANISER, can_manage=True, filename="tiny.toml", data=edited)
    tid = view.tournament.id
    players = people(3)
    for p in players:
        await world.tournaments.join(tid, p)
    await world.tournaments.start(tid)
    await world.runner.run_due()
    for _round in range(3):
        (game_id,) = await world.running_games(tid)
        game = await world.storage.games.get(game_id)
        assert (game.variant_id, game.definition_digest) == (view.tournament.variant_id, pinned)
        white = UserRef(game.white_id, "w")
        moves = await world.games.suggest_moves(
            channel_id=0, user_id=white.id, typed="R", game_id=game_id
        )
        assert "Ra1-d1" in [m.value for m in moves], "the Rook still rides (the first rules)"
        await world.games.play(channel_id=0, user=white, text="a2-a3", game_id=game_id)
        await world.games.resign(channel_id=0, user=white, game_id=game_id)
        await world.runner.run_due()
    assert (await world.storage.tournaments.get(tid)).status == "finished"
    await everything_done(world)
    await world.close()


TINY = TINY_CHESS.encode()
