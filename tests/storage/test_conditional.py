"""Conditional moves in storage: private trees, guarded adds, conflicts, and every change of
the game pruning or dropping them in its own transaction (both backends)."""

from __future__ import annotations

import pytest

from storage import Storage
from storage.conditional import (
    MAX_BRANCHES,
    Branch,
    ConditionalConflictError,
    ConditionalPlan,
    ConditionalTreeChangedError,
    TooManyBranchesError,
)
from storage.errors import (
    GameEndedError,
    GameMovedOnError,
    InvalidValueError,
    NotAParticipantError,
    RefusedError,
)
from storage.models import GameStatus
from tests.storage.conftest import BLACK, T0, THIRD, WHITE, make_move, new_game, play


def branch(node: str, reply: str, answer: str, child: str) -> Branch:
    return Branch(node, reply, reply.upper(), answer, answer.upper(), child)


# White waits after 1. e2e4: if e7e5 then g1f3; after that if b8c6 then f1b5, if g8f6 then f3e5.
E5 = branch("p1", "e7e5", "g1f3", "p3")
NC6 = branch("p3", "b8c6", "f1b5", "p5")
NF6 = branch("p3", "g8f6", "f3e5", "p5b")
C5 = branch("p1", "c7c5", "g1f3", "p3c")


async def white_waits(store: Storage):  # type: ignore[no-untyped-def]
    game = await play(store, await new_game(store), ["e2e4"], T0)
    return game


async def test_a_tree_is_its_owners_only(store: Storage) -> None:
    game = await white_waits(store)
    tree = await store.conditional.add(game.id, WHITE, 1, [E5, NC6], T0 + 1)
    assert tree.owner_id == WHITE and tree.branches == (E5, NC6)
    tree = await store.conditional.add(game.id, WHITE, 1, [E5, NF6, C5], T0 + 2)
    assert tree.branches == (E5, NC6, NF6, C5)  # shared beginnings are stored once
    assert (await store.conditional.tree(game.id, WHITE)).branches == (E5, NC6, NF6, C5)
    assert (await store.conditional.tree(game.id, BLACK)).empty
    assert (await store.conditional.tree(game.id, THIRD)).empty
    assert await store.conditional.games_of(WHITE) == [game.id]
    assert await store.conditional.games_of(BLACK) == []
    waiting = await store.conditional.waiting(game.id)
    assert waiting is not None and waiting.owner_id == WHITE
    assert await store.conditional.clear(game.id, BLACK) == 0
    assert await store.conditional.clear(game.id, WHITE) == 4
    assert await store.conditional.waiting(game.id) is None


async def test_adds_are_guarded(store: Storage) -> None:
    game = await white_waits(store)
    with pytest.raises(RefusedError, match="while your opponent is to move"):
        await store.conditional.add(game.id, BLACK, 1, [E5], T0)
    with pytest.raises(NotAParticipantError):
        await store.conditional.add(game.id, THIRD, 1, [E5], T0)
    with pytest.raises(GameMovedOnError):
        await store.conditional.add(game.id, WHITE, 0, [E5], T0)
    await store.conditional.add(game.id, WHITE, 1, [E5], T0)
    other = branch("p1", "e7e5", "b1c3", "p3x")
    with pytest.raises(ConditionalConflictError) as caught:
        await store.conditional.add(game.id, WHITE, 1, [C5, other], T0)
    assert caught.value.existing == E5
    # Nothing of a refused add was written.
    assert (await store.conditional.tree(game.id, WHITE)).branches == (E5,)


async def test_a_tree_is_bounded(store: Storage) -> None:
    game = await white_waits(store)
    many = [branch(f"n{i}", "a7a6", "a2a3", f"c{i}") for i in range(MAX_BRANCHES)]
    await store.conditional.add(game.id, WHITE, 1, many, T0)
    with pytest.raises(TooManyBranchesError):
        await store.conditional.add(game.id, WHITE, 1, [E5], T0)


async def test_a_move_that_matches_nothing_drops_the_tree(store: Storage) -> None:
    game = await white_waits(store)
    await store.conditional.add(game.id, WHITE, 1, [E5, NC6], T0)
    plan = ConditionalPlan(WHITE, frozenset({E5, NC6}))
    moved = await store.games.append_move(
        game.id, BLACK, 1, make_move(game, ["e2e4"], "d7d5"), T0 + 5, conditional=plan
    )
    assert moved.game.ply_count == 2
    assert await store.conditional.waiting(game.id) is None


async def test_a_move_without_a_plan_drops_the_tree(store: Storage) -> None:
    game = await white_waits(store)
    await store.conditional.add(game.id, WHITE, 1, [E5], T0)
    await play(store, game, ["e7e5"], T0 + 5)
    assert await store.conditional.waiting(game.id) is None


async def test_a_plan_made_from_another_tree_refuses_the_move(store: Storage) -> None:
    game = await white_waits(store)
    # The service read no tree, then (another process) White added one: the move is refused.
    await store.conditional.add(game.id, WHITE, 1, [E5], T0)
    with pytest.raises(ConditionalTreeChangedError) as caught:
        await store.games.append_move(
            game.id,
            BLACK,
            1,
            make_move(game, ["e2e4"], "e7e5"),
            T0 + 5,
            conditional=ConditionalPlan(None),
        )
    assert "e7e5" not in str(caught.value) and "g1f3" not in str(caught.value)
    assert (await store.games.get(game.id)).ply_count == 1
    assert (await store.conditional.tree(game.id, WHITE)).branches == (E5,)


@pytest.mark.parametrize("ending", ["resign", "draw", "abort", "timeout", "takeback"])
async def test_every_ending_and_takebacks_drop_the_tree(store: Storage, ending: str) -> None:
    game = await new_game(store)
    if ending == "abort":
        game = await play(store, game, ["e2e4"], T0)
    else:
        game = await play(store, game, ["e2e4", "e7e5", "g1f3"], T0)
    await store.conditional.add(game.id, WHITE, game.ply_count, [E5], T0 + 10)
    now = T0 + 20
    if ending == "resign":
        await store.games.resign(game.id, BLACK, now)
    elif ending == "draw":
        offer = await store.draws.offer(game.id, BLACK, now)
        await store.draws.accept(offer.id, WHITE, now + 1)
    elif ending == "abort":
        await store.games.abort(game.id, BLACK, now)
    elif ending == "timeout":
        assert game.deadline_at is not None
        await store.games.claim_timeout(game.id, game.ply_count, game.deadline_at)
    else:
        request = await store.takebacks.request(game.id, WHITE, 1, now)
        await store.takebacks.accept(request.id, BLACK, "after 2", now + 1)
    assert await store.conditional.waiting(game.id) is None
    after = await store.games.get(game.id)
    assert after.status is (GameStatus.ACTIVE if ending == "takeback" else after.status)
    if ending != "takeback":
        with pytest.raises(GameEndedError):
            await store.conditional.add(game.id, WHITE, after.ply_count, [E5], now + 2)


async def test_an_answer_is_recorded_with_the_move_it_answers(store: Storage) -> None:
    game = await white_waits(store)
    assert game.deadline_at is not None
    await store.conditional.add(game.id, WHITE, 1, [E5, NC6, NF6, C5], T0 + 1)
    now = T0 + 3600
    plan = ConditionalPlan(WHITE, frozenset({E5, NC6, NF6, C5}), frozenset({NC6, NF6}))
    moved = await store.games.append_move(
        game.id,
        BLACK,
        1,
        make_move(game, ["e2e4"], "e7e5"),
        now,
        conditional=plan,
        answer=make_move(game, ["e2e4", "e7e5"], "g1f3"),
    )
    assert moved.move.ply == 2 and moved.move.coordinate == "e7e5"
    assert (
        moved.answer is not None and moved.answer.ply == 3 and moved.answer.color.value == "white"
    )
    after = moved.game
    assert (after.ply_count, after.to_move_id, after.revision) == (3, BLACK, game.revision + 2)
    # Black's clock starts after the answer; White, whose move was automatic, is not told.
    assert after.deadline_at == now + 3 * 86_400
    assert await store.timers.due(now) == []
    turn = await store._db.all(
        "SELECT user_id, ply, sent_at FROM notifications WHERE game_id = ? AND kind = 'turn'",
        (game.id,),
    )
    assert [tuple(r) for r in turn] == [(BLACK, 3, now)]  # sent with the move, Black only
    assert [m.coordinate for m in await store.games.moves(game.id)] == ["e2e4", "e7e5", "g1f3"]
    # Only the branches ahead stay.
    assert (await store.conditional.tree(game.id, WHITE)).branches == (NC6, NF6)


async def test_an_answer_that_ends_the_game_drops_the_rest(store: Storage) -> None:
    from storage.models import Outcome, Result, Termination

    game = await white_waits(store)
    await store.conditional.add(game.id, WHITE, 1, [E5, NC6], T0 + 1)
    mate = Outcome(Result.WHITE_WINS, Termination.RULES, "white wins by checkmate")
    moved = await store.games.append_move(
        game.id,
        BLACK,
        1,
        make_move(game, ["e2e4"], "e7e5"),
        T0 + 5,
        conditional=ConditionalPlan(WHITE, frozenset({E5, NC6}), frozenset({NC6})),
        answer=make_move(game, ["e2e4", "e7e5"], "g1f3", outcome=mate),
    )
    assert moved.game.status is GameStatus.FINISHED and moved.game.ply_count == 3
    assert moved.game.end_detail == "white wins by checkmate"
    assert await store.conditional.waiting(game.id) is None
    assert await store.timers.due(T0 + 5) == []


async def test_an_answer_needs_its_plan(store: Storage) -> None:
    game = await white_waits(store)
    with pytest.raises(InvalidValueError):
        await store.games.append_move(
            game.id,
            BLACK,
            1,
            make_move(game, ["e2e4"], "e7e5"),
            T0 + 5,
            answer=make_move(game, ["e2e4", "e7e5"], "g1f3"),
        )
    assert (await store.games.get(game.id)).ply_count == 1


async def test_no_answer_is_recorded_in_a_game_lost_on_time(store: Storage) -> None:
    """A move after its deadline settles the timeout first (committed), so the answer it
    would have set off is never recorded, even when the caller did not check the clock."""
    from storage.errors import GameLostOnTimeError
    from storage.models import Result, Termination

    game = await white_waits(store)
    assert game.deadline_at is not None
    await store.conditional.add(game.id, WHITE, 1, [E5, NC6], T0 + 1)
    with pytest.raises(GameLostOnTimeError):
        await store.games.append_move(
            game.id,
            BLACK,
            1,
            make_move(game, ["e2e4"], "e7e5"),
            game.deadline_at,
            conditional=ConditionalPlan(WHITE, frozenset({E5, NC6}), frozenset({NC6})),
            answer=make_move(game, ["e2e4", "e7e5"], "g1f3"),
        )
    after = await store.games.get(game.id)
    assert after.status is GameStatus.FINISHED and after.ply_count == 1
    assert (after.result, after.termination) == (Result.WHITE_WINS, Termination.TIMEOUT)
    assert [m.coordinate for m in await store.games.moves(game.id)] == ["e2e4"]
    assert await store.conditional.waiting(game.id) is None


async def test_a_move_that_ends_the_game_ends_it_whatever_the_tree(store: Storage) -> None:
    """The opponent's mate (or any ending) matches nothing and drops the tree with the
    game; it is never refused because the ending dropped the tree it was checked against."""
    from storage.models import Outcome, Result, Termination

    game = await white_waits(store)
    await store.conditional.add(game.id, WHITE, 1, [E5, C5], T0 + 1)
    mate = Outcome(Result.BLACK_WINS, Termination.RULES, "black wins by checkmate")
    moved = await store.games.append_move(
        game.id,
        BLACK,
        1,
        make_move(game, ["e2e4"], "d7d5", outcome=mate),
        T0 + 5,
        conditional=ConditionalPlan(WHITE, frozenset({E5, C5})),
    )
    assert moved.game.status is GameStatus.FINISHED and moved.game.ply_count == 2
    assert await store.conditional.waiting(game.id) is None
