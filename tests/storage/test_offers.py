"""Draw offers and takebacks: one pending at a time, answered once, history kept."""

from __future__ import annotations

import asyncio

import pytest

from storage import Storage
from storage.errors import (
    GameEndedError,
    GameMovedOnError,
    InvalidValueError,
    NotAParticipantError,
    RefusedError,
    RequestAlreadyPendingError,
    RequestNotPendingError,
    TakebackNotFoundError,
)
from storage.models import (
    DAY,
    Clock,
    Color,
    GameStatus,
    RequestStatus,
    Result,
    Termination,
)
from tests.storage.conftest import BLACK, T0, THIRD, WHITE, make_move, new_game, play
from tests.storage.fakes import fake_replay


async def test_a_draw_offer_accepted_ends_the_game_drawn(store: Storage) -> None:
    game = await play(store, await new_game(store), ["e2e4"], T0)
    offer = await store.draws.offer(game.id, WHITE, T0 + 5)
    assert (offer.status, offer.ply, offer.offered_by) == (RequestStatus.PENDING, 1, WHITE)
    assert await store.draws.pending(game.id) == offer
    with pytest.raises(RequestAlreadyPendingError):
        await store.draws.offer(game.id, BLACK, T0 + 6)
    with pytest.raises(RefusedError):
        await store.draws.accept(offer.id, WHITE, T0 + 6)
    with pytest.raises(NotAParticipantError):
        await store.draws.accept(offer.id, THIRD, T0 + 6)
    over = await store.draws.accept(offer.id, BLACK, T0 + 7)
    assert over.status is GameStatus.FINISHED
    assert (over.result, over.termination) == (Result.DRAW, Termination.AGREEMENT)
    assert (await store.draws.get(offer.id)).status is RequestStatus.ACCEPTED
    with pytest.raises(RequestNotPendingError):
        await store.draws.accept(offer.id, BLACK, T0 + 8)
    with pytest.raises(GameEndedError):
        await store.draws.offer(game.id, WHITE, T0 + 8)


async def test_two_accepts_of_one_offer_end_the_game_once(store: Storage) -> None:
    game = await new_game(store)
    offer = await store.draws.offer(game.id, WHITE, T0)
    results = await asyncio.gather(
        *(store.draws.accept(offer.id, BLACK, T0 + 1) for _ in range(10)),
        store.games.resign(game.id, WHITE, T0 + 1),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1


async def test_an_offer_lapses_when_its_offerer_moves(store: Storage) -> None:
    game = await new_game(store)
    offer = await store.draws.offer(game.id, WHITE, T0)
    game = await play(store, game, ["e2e4"], T0 + 1)
    assert (await store.draws.get(offer.id)).status is RequestStatus.LAPSED
    assert await store.draws.pending(game.id) is None

    offer = await store.draws.offer(game.id, WHITE, T0 + 2)  # White offers after moving
    game = await play(store, game, ["e7e5"], T0 + 3)  # Black moves without answering
    assert (await store.draws.get(offer.id)).status is RequestStatus.PENDING
    game = await play(store, game, ["g1f3"], T0 + 4)
    assert (await store.draws.get(offer.id)).status is RequestStatus.LAPSED


async def test_decline_or_withdraw(store: Storage) -> None:
    game = await new_game(store)
    offer = await store.draws.offer(game.id, WHITE, T0)
    declined = await store.draws.decline(offer.id, BLACK, T0 + 1)
    assert (declined.status, declined.resolved_at) == (RequestStatus.DECLINED, T0 + 1)
    offer = await store.draws.offer(game.id, BLACK, T0 + 2)
    assert (await store.draws.decline(offer.id, BLACK, T0 + 3)).status is RequestStatus.WITHDRAWN
    assert [o.status for o in await store.draws.list_for_game(game.id)] == [
        RequestStatus.DECLINED,
        RequestStatus.WITHDRAWN,
    ]
    assert (await store.games.get(game.id)).is_active


async def test_a_takeback_archives_the_removed_moves(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 0))
    game = await play(store, game, ["e2e4", "e7e5", "g1f3", "b8c6"], T0)
    request = await store.takebacks.request(game.id, WHITE, 2, T0 + 100)
    assert (request.ply, request.plies, request.status) == (4, 2, RequestStatus.PENDING)
    assert await store.takebacks.pending(game.id) == request
    with pytest.raises(RefusedError):
        await store.takebacks.accept(request.id, WHITE, "x", T0 + 101)
    position = fake_replay("chess", (), ["e2e4", "e7e5"])
    back = await store.takebacks.accept(request.id, BLACK, position, T0 + 200)
    assert (back.ply_count, back.turn, back.position_text) == (2, Color.WHITE, position)
    assert back.deadline_at == T0 + 200 + DAY
    assert [m.coordinate for m in await store.games.moves(game.id)] == ["e2e4", "e7e5"]
    archived = await store.games.archived_moves(game.id)
    assert [(a.ply, a.coordinate, a.takeback_id, a.archived_at) for a in archived] == [
        (3, "g1f3", request.id, T0 + 200),
        (4, "b8c6", request.id, T0 + 200),
    ]
    assert archived[0].made_at == T0 + 2
    assert (await store.takebacks.get(request.id)).status is RequestStatus.ACCEPTED

    # The game goes on from the restored position, replacing the taken-back plies.
    game = await play(store, back, ["d2d4", "d7d5"], T0 + 300)
    moves = await store.games.moves(game.id)
    assert [m.coordinate for m in moves] == ["e2e4", "e7e5", "d2d4", "d7d5"]
    assert len(await store.games.archived_moves(game.id)) == 2


async def test_one_ply_takeback_gives_the_turn_back(store: Storage) -> None:
    game = await play(store, await new_game(store), ["e2e4"], T0)
    request = await store.takebacks.request(game.id, WHITE, 1, T0 + 1)
    back = await store.takebacks.accept(request.id, BLACK, fake_replay("chess", (), []), T0 + 2)
    assert (back.ply_count, back.turn, back.to_move_id) == (0, Color.WHITE, WHITE)


async def test_a_takeback_request_lapses_when_anyone_moves(store: Storage) -> None:
    game = await play(store, await new_game(store), ["e2e4"], T0)
    request = await store.takebacks.request(game.id, WHITE, 1, T0 + 1)
    await play(store, game, ["e7e5"], T0 + 2)
    assert (await store.takebacks.get(request.id)).status is RequestStatus.LAPSED
    with pytest.raises(RequestNotPendingError, match="lapsed"):
        await store.takebacks.accept(request.id, BLACK, "x", T0 + 3)


async def test_takeback_rules(store: Storage) -> None:
    game = await new_game(store)
    with pytest.raises(RefusedError):
        await store.takebacks.request(game.id, WHITE, 1, T0)
    game = await play(store, game, ["e2e4"], T0)
    with pytest.raises(InvalidValueError):
        await store.takebacks.request(game.id, WHITE, 3, T0)
    with pytest.raises(NotAParticipantError):
        await store.takebacks.request(game.id, THIRD, 1, T0)
    request = await store.takebacks.request(game.id, WHITE, 1, T0)
    with pytest.raises(RequestAlreadyPendingError):
        await store.takebacks.request(game.id, BLACK, 1, T0)
    declined = await store.takebacks.decline(request.id, BLACK, T0 + 1)
    assert declined.status is RequestStatus.DECLINED
    again = await store.takebacks.request(game.id, WHITE, 1, T0 + 2)
    assert (await store.takebacks.decline(again.id, WHITE, T0 + 3)).status is (
        RequestStatus.WITHDRAWN
    )
    assert len(await store.takebacks.list_for_game(game.id)) == 2
    with pytest.raises(TakebackNotFoundError):
        await store.takebacks.get(999)


async def test_pending_requests_lapse_when_the_game_ends(store: Storage) -> None:
    game = await play(store, await new_game(store), ["e2e4"], T0)
    offer = await store.draws.offer(game.id, WHITE, T0)
    request = await store.takebacks.request(game.id, WHITE, 1, T0)
    await store.games.resign(game.id, BLACK, T0 + 1)
    assert (await store.draws.get(offer.id)).status is RequestStatus.LAPSED
    assert (await store.takebacks.get(request.id)).status is RequestStatus.LAPSED


@pytest.mark.parametrize("takeback_first", [False, True])
async def test_a_takeback_racing_a_move_one_wins(store: Storage, takeback_first: bool) -> None:
    game = await play(store, await new_game(store, clock=Clock(DAY, 0)), ["e2e4"], T0)
    request = await store.takebacks.request(game.id, WHITE, 1, T0)
    move = store.games.append_move(game.id, BLACK, 1, make_move(game, ["e2e4"], "e7e5"), T0 + 1)
    takeback = store.takebacks.accept(request.id, BLACK, fake_replay("chess", (), []), T0 + 1)
    racers = [takeback, move] if takeback_first else [move, takeback]
    results = await asyncio.gather(*racers, return_exceptions=True)
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    loser = next(r for r in results if isinstance(r, BaseException))
    assert isinstance(loser, RequestNotPendingError | GameMovedOnError)
    game = await store.games.get(game.id)
    moves = await store.games.moves(game.id)
    assert [m.ply for m in moves] == list(range(1, game.ply_count + 1))
    assert game.ply_count == (0 if takeback_first else 2)
