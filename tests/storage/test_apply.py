"""Guarded writes as plans (storage/plans.py, storage/apply.py): the same decisions on both
backends, PostgreSQL's in one call, and what that call costs, counted on the wire."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Awaitable

from benchmarks.pgproxy import PgProxy
from storage import Storage
from storage.apply import parse_state, read_snapshot
from storage.conditional import Branch, ConditionalPlan
from storage.models import (
    DAY,
    Clock,
    EventKind,
    NewEffect,
    Outcome,
    Result,
    StorageEvent,
    Termination,
)
from tests.postgres import require_server, temporary_schema
from tests.storage.conftest import BLACK, T0, WHITE, make_move, new_game, play
from tests.storage.fakes import FAKE_ENGINE

E5 = Branch("h1", "e7e5", "e7-e5", "g1f3", "Ng1-f3", "h2")


async def test_a_plan_leaves_the_game_as_it_says(store: Storage) -> None:
    """What a write returns (the plan's game) is the row the database holds afterwards, on
    both backends, through moves, offers, a takeback and an ending."""
    game = await new_game(store, clock=Clock(3 * DAY, DAY))
    moved = await store.games.append_move(game.id, WHITE, 0, make_move(game, [], "e2e4"), T0 + 5)
    assert moved.game == await store.games.get(game.id)
    game = await play(store, moved.game, ["e7e5", "g1f3"], T0 + 10)
    assert game == await store.games.get(game.id)
    request = await store.takebacks.request(game.id, WHITE, 1, T0 + 20)
    back = await store.takebacks.accept(request.id, BLACK, "taken back", T0 + 30)
    assert back == await store.games.get(game.id)
    offer = await store.draws.offer(game.id, WHITE, T0 + 40)
    drawn = await store.draws.accept(offer.id, BLACK, T0 + 50)
    assert drawn == await store.games.get(game.id)


async def test_postgresql_snapshots_match_the_transaction_read() -> None:
    """`fp_game_state` (one statement, PostgreSQL) and `read_snapshot` (the transaction
    way) read the same snapshot: game, players, conditional moves, offers, history."""
    async with temporary_schema() as url, await Storage.open(url, engine=FAKE_ENGINE) as store:
        game = await new_game(store, clock=Clock(3 * DAY, 0))
        game = await play(store, game, ["e2e4"], T0 + 1)
        await store.conditional.add(game.id, WHITE, 1, [E5], T0 + 2)
        await store.draws.offer(game.id, BLACK, T0 + 3)
        await store.takebacks.request(game.id, WHITE, 1, T0 + 4)
        await store.vacations.start(BLACK, T0 + 5)
        async with store._db.transaction(write=False) as tx:
            read = await read_snapshot(tx, game.id)
        state = await store.writer._read_state(game.id)
        assert dataclasses.replace(parse_state(*state), digest=None) == read
        assert read.branches and read.draw and read.takeback and read.sides_moved == 1


async def test_a_move_on_postgresql_is_one_round_trip_and_a_read_is_one() -> None:
    """Counted on the wire: reading a game is one round trip, a move one more (two when
    this process has not seen the game's state yet); neither opens a transaction block."""
    await require_server()
    async with (
        temporary_schema() as url,
        PgProxy.for_url(url) as proxy,
        await Storage.open(proxy.url(url), engine=FAKE_ENGINE, rng=random.Random(1)) as store,
    ):
        moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
        game = await new_game(store, clock=Clock(3 * DAY, 0))
        cold = True
        for ply, text in enumerate(moves):
            before = proxy.snapshot()
            game = await store.games.get(game.id)
            read = proxy.snapshot()
            moved = await store.games.append_move(
                game.id, game.to_move_id, ply, make_move(game, moves[:ply], text), T0 + ply
            )
            after = proxy.snapshot()
            assert (read - before).round_trips == 1
            assert (after - read).round_trips == (2 if cold else 1)
            assert (after - before).transactions == (3 if cold else 2)
            assert moved.game.ply_count == ply + 1
            cold = False
        assert store.writer.transactions == 0


async def test_a_stale_snapshot_is_refreshed_not_trusted() -> None:
    """Two processes: A remembers the game's state from its own last write; B moves; A's
    next write finds its snapshot stale, gets the current state back in the same call and
    decides again on it (a refusal here: the game moved on)."""
    async with (
        temporary_schema() as url,
        await Storage.open(url, engine=FAKE_ENGINE) as a,
        await Storage.open(url, engine=FAKE_ENGINE) as b,
    ):
        game = await new_game(a, clock=Clock(3 * DAY, 0))
        game = await play(a, game, ["e2e4"], T0 + 1)  # A remembers ply 1
        await b.games.append_move(game.id, BLACK, 1, make_move(game, ["e2e4"], "e7e5"), T0 + 2)
        seen: list[StorageEvent] = []

        def rule(event: StorageEvent) -> list[NewEffect]:
            seen.append(event)
            return [NewEffect("noted", {"ply": event.ply}, event.game.id if event.game else None)]

        a.effects.rules.on(EventKind.MOVE_PLAYED, rule)
        current = await a.games.get(game.id)
        moved = await a.games.append_move(
            game.id, WHITE, 2, make_move(current, ["e2e4", "e7e5"], "g1f3"), T0 + 3
        )
        assert moved.game.ply_count == 3
        assert [e.ply for e in seen] == [3]  # decided once more, on the fresh state
        assert [e.payload["ply"] for e in await a.effects.find(kind="noted")] == [3]
        assert moved.game == await b.games.get(game.id)


async def test_every_guarded_write_on_postgresql_is_one_call() -> None:
    """Counted on the wire, each guarded write of a game is at most three round trips (one
    when this process wrote the game last and remembers its state) and never a transaction
    block: a move with a conditional answer, the acceptance
    of a takeback and of a draw, a resignation, an abort, an ending decided by the rules and
    a loss on time."""
    await require_server()
    async with (
        temporary_schema() as url,
        PgProxy.for_url(url) as proxy,
        await Storage.open(proxy.url(url), engine=FAKE_ENGINE, rng=random.Random(1)) as store,
    ):
        spent: dict[str, int] = {}

        async def counted(name: str, write: Awaitable[object]) -> None:
            before = proxy.snapshot()
            await write
            spent[name] = (proxy.snapshot() - before).round_trips

        game = await play(store, await new_game(store, clock=Clock(3 * DAY, 0)), ["e2e4"], T0)
        await store.conditional.add(game.id, WHITE, 1, [E5], T0 + 1)
        plan = ConditionalPlan(WHITE, frozenset({E5}), frozenset({E5}))
        await counted(
            "move answered by a conditional move",
            store.games.append_move(
                game.id,
                BLACK,
                1,
                make_move(game, ["e2e4"], "e7e5"),
                T0 + 2,
                conditional=plan,
                answer=make_move(game, ["e2e4", "e7e5"], "g1f3"),
            ),
        )
        game = await store.games.get(game.id)
        request = await store.takebacks.request(game.id, BLACK, 1, T0 + 3)
        await counted(
            "takeback accepted",
            store.takebacks.accept(request.id, WHITE, "taken back", T0 + 4),
        )
        offer = await store.draws.offer(game.id, WHITE, T0 + 5)
        await counted("draw accepted", store.draws.accept(offer.id, BLACK, T0 + 6))

        resigned = await play(store, await new_game(store), ["e2e4", "e7e5"], T0)
        await counted("resignation", store.games.resign(resigned.id, WHITE, T0 + 7))
        aborted = await play(store, await new_game(store), ["e2e4"], T0)
        await counted("abort", store.games.abort(aborted.id, BLACK, T0 + 8))
        ended = await play(store, await new_game(store), ["e2e4"], T0)
        mate = Outcome(Result.WHITE_WINS, Termination.RULES, "white wins by checkmate")
        await counted("ending decided by the rules", store.games.end(ended.id, 1, mate, T0 + 9))
        late = await play(store, await new_game(store, clock=Clock(DAY, 0)), ["e2e4"], T0)
        assert late.deadline_at is not None
        await counted("loss on time", store.games.claim_timeout(late.id, 1, late.deadline_at + 1))
        # The move follows a conditional move's entry (a transaction of its own): the state
        # this process remembered is stale, and the call that finds so returns the fresh
        # one. An offer's acceptance first finds its game from the offer (one more).
        assert spent == {
            "move answered by a conditional move": 2,
            "takeback accepted": 3,
            "draw accepted": 3,
            "resignation": 1,
            "abort": 1,
            "ending decided by the rules": 1,
            "loss on time": 1,
        }
        assert store.writer.transactions == 0
