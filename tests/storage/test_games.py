"""Games and moves: guarded appends, races, endings that happen once, listings, lookups."""

from __future__ import annotations

import asyncio
import dataclasses
import random

import pytest

from storage import Storage
from storage.conditional import Branch
from storage.errors import (
    AbortNotAllowedError,
    DeadlineNotReachedError,
    DeadlinePassedError,
    GameEndedError,
    GameLostOnTimeError,
    GameMovedOnError,
    GameNotFoundError,
    InvalidValueError,
    NotAParticipantError,
    NotYourTurnError,
)
from storage.models import (
    DAY,
    HOUR,
    Clock,
    Color,
    GameStatus,
    NewGame,
    NewMove,
    Outcome,
    Result,
    Termination,
)
from tests.storage.conftest import (
    BLACK,
    CHANNEL,
    GUILD,
    T0,
    THIRD,
    WHITE,
    make_move,
    new_game,
    play,
)
from tests.storage.fakes import FAKE_ENGINE, fake_replay, start_text


async def test_a_new_game_starts_with_whites_clock_running(store: Storage) -> None:
    game = await new_game(store, clock=Clock(2 * DAY, 0))
    assert game.status is GameStatus.ACTIVE
    assert (game.turn, game.ply_count, game.to_move_id) == (Color.WHITE, 0, WHITE)
    assert game.deadline_at == T0 + 2 * DAY
    assert game.engine_version == FAKE_ENGINE.version
    assert (game.guild_id, game.channel_id, game.thread_id) == (GUILD, CHANNEL, None)
    assert await store.games.moves(game.id) == []


async def test_a_game_that_black_opens_starts_with_blacks_clock_running(store: Storage) -> None:
    """A variant that Black opens (`[setup] first = "black"`): the service passes the start
    position's side to move as `NewGame.first`."""
    game = await store.games.create(
        NewGame(
            guild_id=GUILD,
            channel_id=CHANNEL,
            white_id=WHITE,
            black_id=BLACK,
            variant_id="chess",
            start_position=start_text("chess", ()),
            clock=Clock(2 * DAY, 0),
            first=Color.BLACK,
        ),
        T0,
    )
    assert (game.turn, game.ply_count, game.to_move_id) == (Color.BLACK, 0, BLACK)
    assert game.deadline_at == T0 + 2 * DAY
    with pytest.raises(NotYourTurnError):
        await store.games.append_move(game.id, WHITE, 0, make_move(game, [], "e2e4"), T0)


async def test_moves_are_stored_in_order_with_everything_a_record_needs(store: Storage) -> None:
    game = await new_game(store)
    game = await play(store, game, ["e2e4", "e7e5", "g1f3"], T0 + 60)
    moves = await store.games.moves(game.id)
    assert [(m.ply, m.color, m.coordinate, m.notation) for m in moves] == [
        (1, Color.WHITE, "e2e4", "E2E4"),
        (2, Color.BLACK, "e7e5", "E7E5"),
        (3, Color.WHITE, "g1f3", "G1F3"),
    ]
    assert [m.made_at for m in moves] == [T0 + 60, T0 + 61, T0 + 62]
    assert all(len(m.position_hash) == 16 for m in moves)
    assert game.ply_count == 3
    assert game.turn is Color.BLACK
    assert game.position_text == fake_replay("chess", (), ["e2e4", "e7e5", "g1f3"])
    assert game.updated_at == T0 + 62


async def test_the_engine_that_chose_a_move_is_stored_with_it(store: Storage) -> None:
    """Written in the move's own write (no second step a crash could skip), kept by a
    takeback's archive, and None for a player's move."""
    game = await new_game(store, clock=Clock(DAY, 0))
    by = ["Fairy-Stockfish 11.1", None, "Fairy Post's engine"]
    history: list[str] = []
    for coordinate, engine in zip(["e2e4", "e7e5", "g1f3"], by, strict=True):
        move = dataclasses.replace(make_move(game, history, coordinate), engine=engine)
        done = await store.games.append_move(game.id, game.to_move_id, game.ply_count, move, T0)
        assert done.move.engine == engine
        game = done.game
        history.append(coordinate)
    assert [m.engine for m in await store.games.moves(game.id)] == by
    _, moves = await store.games.get_with_moves(game.id)
    assert [m.engine for m in moves] == by
    request = await store.takebacks.request(game.id, BLACK, 2, T0 + 100)
    await store.takebacks.accept(request.id, WHITE, fake_replay("chess", (), history[:1]), T0 + 200)
    assert [m.engine for m in await store.games.moves(game.id)] == by[:1]
    assert [a.engine for a in await store.games.archived_moves(game.id)] == by[1:]
    with pytest.raises(InvalidValueError, match="engine"):
        await store.games.append_move(
            game.id,
            game.to_move_id,
            1,
            dataclasses.replace(make_move(game, history[:1], "e7e5"), engine="x" * 61),
            T0 + 300,
        )


async def test_append_returns_the_move_and_the_new_game(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 0))
    done = await store.games.append_move(game.id, WHITE, 0, make_move(game, [], "e2e4"), T0 + 5)
    assert done.move.ply == 1 and done.move.color is Color.WHITE
    assert done.game.ply_count == 1
    assert done.game.deadline_at == T0 + 5 + DAY
    assert done.game == await store.games.get(game.id)


async def test_integer_hashes_are_stored_as_hex(store: Storage) -> None:
    game = await new_game(store)
    move = NewMove("E2-e4", "e2e4", 2**64 - 1, fake_replay("chess", (), ["e2e4"]))
    done = await store.games.append_move(game.id, WHITE, 0, move, T0)
    assert done.move.position_hash == "f" * 16
    assert (await store.games.moves(game.id))[0].position_hash == "f" * 16


async def test_a_stale_ply_is_refused_with_the_moved_on_error(store: Storage) -> None:
    game = await new_game(store)
    game = await play(store, game, ["e2e4"], T0)
    with pytest.raises(GameMovedOnError, match="the game has moved on") as caught:
        await store.games.append_move(game.id, BLACK, 0, make_move(game, [], "e7e5"), T0)
    assert (caught.value.expected_ply, caught.value.actual_ply) == (0, 1)
    assert len(await store.games.moves(game.id)) == 1


async def test_only_the_player_to_move_may_move(store: Storage) -> None:
    game = await new_game(store)
    with pytest.raises(NotYourTurnError):
        await store.games.append_move(game.id, BLACK, 0, make_move(game, [], "e7e5"), T0)
    with pytest.raises(NotAParticipantError):
        await store.games.append_move(game.id, THIRD, 0, make_move(game, [], "e2e4"), T0)
    with pytest.raises(GameNotFoundError):
        await store.games.append_move(999, WHITE, 0, make_move(game, [], "e2e4"), T0)


async def test_bad_move_values_are_refused_before_anything_is_written(store: Storage) -> None:
    game = await new_game(store)
    text = fake_replay("chess", (), ["e2e4"])
    for bad in (
        NewMove("", "e2e4", "ab", text),
        NewMove("E2-e4", "e2 e4", "ab", text),
        NewMove("E2-e4", "e2e4", "not hex", text),
        NewMove("E2-e4", "e2e4", -1, text),
        NewMove("E2-e4", "e2e4", "ab", ""),
        NewMove("E2-e4", "e2e4", "ab", text, outcome=Outcome(Result.DRAW, Termination.ABORTED)),
    ):
        with pytest.raises(InvalidValueError):
            await store.games.append_move(game.id, WHITE, 0, bad, T0)
    assert (await store.games.get(game.id)).ply_count == 0


async def test_fifty_concurrent_moves_for_one_ply_exactly_one_lands(db_target: str) -> None:
    """Ten tasks on each of five stores (like a double-click on bot processes sharing the
    database; on PostgreSQL each store is a pool of its own)."""
    stores = [await Storage.open(db_target, engine=FAKE_ENGINE) for _ in range(5)]
    try:
        game = await new_game(stores[0])
        game = await play(stores[0], game, ["e2e4"], T0)

        async def attempt(i: int) -> str:
            storage = stores[i % len(stores)]
            coordinate = f"m{i}x"
            try:
                await storage.games.append_move(
                    game.id, BLACK, 1, make_move(game, ["e2e4"], coordinate), T0 + 10
                )
            except GameMovedOnError:
                return "moved on"
            return coordinate

        outcomes = await asyncio.gather(*(attempt(i) for i in range(50)))
        winners = [o for o in outcomes if o != "moved on"]
        assert len(winners) == 1
        assert outcomes.count("moved on") == 49
        moves = await stores[3].games.moves(game.id)
        assert [m.coordinate for m in moves] == ["e2e4", winners[0]]
        final = await stores[4].games.get(game.id)
        assert final.ply_count == 2
        assert final.position_text == fake_replay("chess", (), ["e2e4", winners[0]])
        assert await stores[0].integrity_check() == ["ok"]
    finally:
        for storage in stores:
            await storage.close()


async def test_a_long_race_keeps_the_move_list_consistent(store: Storage) -> None:
    """Both players' tasks race on every ply: each ply gets exactly one move."""
    game = await new_game(store)
    rng = random.Random(3)
    history: list[str] = []
    for ply in range(20):
        current = await store.games.get(game.id)
        candidates = [f"p{ply}c{k}" for k in range(8)]
        rng.shuffle(candidates)
        results = await asyncio.gather(
            *(
                store.games.append_move(
                    game.id,
                    current.to_move_id,
                    ply,
                    make_move(current, history, coordinate),
                    T0 + ply,
                )
                for coordinate in candidates
            ),
            return_exceptions=True,
        )
        landed = [r for r in results if not isinstance(r, BaseException)]
        assert len(landed) == 1
        assert all(isinstance(r, GameMovedOnError) for r in results if r not in landed)
        history.append(landed[0].move.coordinate)
    moves = await store.games.moves(game.id)
    assert [m.coordinate for m in moves] == history
    assert [m.ply for m in moves] == list(range(1, 21))


async def test_a_move_can_end_the_game_once(store: Storage) -> None:
    game = await new_game(store)
    game = await play(store, game, ["f2f3", "e7e5", "g2g4"], T0)
    mate = Outcome(Result.BLACK_WINS, Termination.RULES, "black wins by checkmate")
    history = ["f2f3", "e7e5", "g2g4"]
    done = await store.games.append_move(
        game.id, BLACK, 3, make_move(game, history, "d8h4", outcome=mate), T0 + 9
    )
    over = done.game
    assert over.status is GameStatus.FINISHED
    assert (over.result, over.termination) == (Result.BLACK_WINS, Termination.RULES)
    assert over.end_detail == "black wins by checkmate"
    assert over.winner_id == BLACK
    assert over.deadline_at is None and over.ended_at == T0 + 9
    assert over.ply_count == 4
    with pytest.raises(GameEndedError, match="the game is over"):
        await store.games.resign(game.id, WHITE, T0 + 10)
    with pytest.raises(GameMovedOnError):  # GameEndedError is a GameMovedOnError
        await store.games.append_move(game.id, WHITE, 4, make_move(over, history, "a2a3"), T0)
    assert (await store.timers.due(T0 + 100 * DAY)) == []


async def test_resignation_and_its_guard(store: Storage) -> None:
    game = await new_game(store)
    game = await play(store, game, ["e2e4"], T0)
    with pytest.raises(GameMovedOnError):
        await store.games.resign(game.id, BLACK, T0, expected_ply=0)
    with pytest.raises(NotAParticipantError):
        await store.games.resign(game.id, THIRD, T0)
    over = await store.games.resign(game.id, BLACK, T0 + 3, expected_ply=1)
    assert (over.result, over.termination, over.winner_id) == (
        Result.WHITE_WINS,
        Termination.RESIGNATION,
        WHITE,
    )


async def test_concurrent_endings_end_the_game_exactly_once(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 0))
    game = await play(store, game, ["e2e4", "e7e5"], T0)
    deadline = game.deadline_at
    assert deadline is not None
    results = await asyncio.gather(
        store.games.resign(game.id, WHITE, deadline + 1),
        store.games.resign(game.id, BLACK, deadline + 1),
        store.games.claim_timeout(game.id, 2, deadline + 1),
        store.games.end(game.id, 2, Outcome(Result.DRAW, Termination.ADJUDICATION), deadline),
        store.games.append_move(game.id, WHITE, 2, make_move(game, [], "g1f3"), deadline + 1),
        return_exceptions=True,
    )
    ended = [r for r in results if not isinstance(r, BaseException)]
    assert len(ended) <= 1
    errors = [r for r in results if isinstance(r, BaseException)]
    assert all(isinstance(e, GameMovedOnError | DeadlinePassedError) for e in errors)
    final = await store.games.get(game.id)
    assert final.status is GameStatus.FINISHED
    assert final.ended_at is not None
    # Every action came at or after the deadline: whichever ran first settled it (deadlines
    # win), so the game is lost on time whatever the order.
    assert final.termination is Termination.TIMEOUT and final.winner_id == BLACK


async def test_timeouts_only_after_the_deadline_and_at_the_seen_ply(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 0))
    game = await play(store, game, ["e2e4"], T0)
    assert game.deadline_at == T0 + DAY
    with pytest.raises(DeadlineNotReachedError):
        await store.games.claim_timeout(game.id, 1, T0 + DAY - 1)
    with pytest.raises(GameMovedOnError):
        await store.games.claim_timeout(game.id, 0, T0 + DAY)
    over = await store.games.claim_timeout(game.id, 1, T0 + DAY + 30)
    assert (over.result, over.termination) == (Result.WHITE_WINS, Termination.TIMEOUT)
    with pytest.raises(GameEndedError):
        await store.games.claim_timeout(game.id, 1, T0 + DAY + 30)


async def test_a_late_action_settles_the_deadline_first(store: Storage) -> None:
    """Deadlines win: a move (or any action) after the deadline first writes the loss on
    time, which stays committed, and is then refused."""
    game = await new_game(store, clock=Clock(DAY, 0))
    game = await play(store, game, ["e2e4"], T0)
    with pytest.raises(GameLostOnTimeError) as refused:
        await store.games.append_move(
            game.id, BLACK, 1, make_move(game, ["e2e4"], "e7e5"), T0 + DAY + 600
        )
    assert isinstance(refused.value, DeadlinePassedError)
    assert "white wins on time" in str(refused.value)
    over = await store.games.get(game.id)
    assert (over.result, over.termination, over.ply_count) == (
        Result.WHITE_WINS,
        Termination.TIMEOUT,
        1,
    )
    assert over.ended_at == T0 + DAY  # lost when the deadline passed, not when noticed
    with pytest.raises(GameEndedError):
        await store.games.claim_timeout(game.id, 1, T0 + DAY + 700)


NO_RESCUE = [
    "move",
    "abort",
    "abort_by_winner",
    "resign",
    "resign_by_loser",
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "takeback",
    "accept_takeback",
    "decline_takeback",
    "conditional_add",
    "end",
    "cancel",
    "adjudicate",
]


@pytest.mark.parametrize("action", NO_RESCUE)
async def test_no_action_rescues_a_game_lost_on_time(store: Storage, action: str) -> None:
    """Black has not moved and ran out of time: neither aborting nor anything else turns
    the loss on time into something else. Each action settles the deadline first (that is
    committed) and is then refused."""
    game = await new_game(store, clock=Clock(DAY, 0))
    game = await play(store, game, ["e2e4"], T0)
    offer = await store.draws.offer(game.id, WHITE, T0 + 1)
    request = await store.takebacks.request(game.id, WHITE, 1, T0 + 2)
    late = T0 + 3 * DAY
    branch = Branch("p1", "e7e5", "E7E5", "g1f3", "G1F3", "p3")
    draw = Outcome(Result.DRAW, Termination.AGREEMENT)
    calls = {
        "move": lambda: store.games.append_move(
            game.id, BLACK, 1, make_move(game, ["e2e4"], "e7e5"), late
        ),
        "abort": lambda: store.games.abort(game.id, BLACK, late),
        "abort_by_winner": lambda: store.games.abort(game.id, WHITE, late),
        "resign": lambda: store.games.resign(game.id, WHITE, late),
        "resign_by_loser": lambda: store.games.resign(game.id, BLACK, late),
        "offer_draw": lambda: store.draws.offer(game.id, BLACK, late),
        "accept_draw": lambda: store.draws.accept(offer.id, BLACK, late),
        "decline_draw": lambda: store.draws.decline(offer.id, BLACK, late),
        "takeback": lambda: store.takebacks.request(game.id, WHITE, 1, late),
        "accept_takeback": lambda: store.takebacks.accept(
            request.id, BLACK, fake_replay("chess", (), []), late
        ),
        "decline_takeback": lambda: store.takebacks.decline(request.id, BLACK, late),
        "conditional_add": lambda: store.conditional.add(game.id, WHITE, 1, [branch], late),
        "end": lambda: store.games.end(game.id, 1, draw, late),
        "cancel": lambda: store.games.cancel(game.id, late, by=THIRD, reason="stuck"),
        "adjudicate": lambda: store.games.adjudicate(
            game.id, Result.BLACK_WINS, late, by=THIRD, reason="Black left"
        ),
    }
    with pytest.raises(GameLostOnTimeError):
        await calls[action]()
    over = await store.games.get(game.id)
    assert (over.status, over.termination, over.winner_id, over.ply_count) == (
        GameStatus.FINISHED,
        Termination.TIMEOUT,
        WHITE,
        1,
    )
    assert over.ended_at == T0 + DAY and over.decided_by is None
    assert await store.draws.pending(game.id) is None
    assert await store.takebacks.pending(game.id) is None
    assert await store.conditional.waiting(game.id) is None


async def test_a_timeout_may_be_scored_as_a_draw(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 0))
    over = await store.games.claim_timeout(
        game.id, 0, T0 + DAY, result=Result.DRAW, detail="insufficient material"
    )
    assert (over.result, over.end_detail) == (Result.DRAW, "insufficient material")


async def test_untimed_games_never_time_out(store: Storage) -> None:
    game = await new_game(store, clock=Clock.untimed())
    assert game.deadline_at is None
    game = await play(store, game, ["e2e4"], T0 + 400 * DAY)
    assert game.deadline_at is None
    with pytest.raises(DeadlineNotReachedError):
        await store.games.claim_timeout(game.id, 1, T0 + 900 * DAY)


async def test_abort_is_allowed_until_both_sides_have_moved(store: Storage) -> None:
    game = await new_game(store)
    game = await play(store, game, ["e2e4"], T0)
    with pytest.raises(NotAParticipantError):
        await store.games.abort(game.id, THIRD, T0)
    aborted = await store.games.abort(game.id, BLACK, T0 + 1)
    assert aborted.status is GameStatus.ABORTED
    assert (aborted.result, aborted.termination) == (None, Termination.ABORTED)
    assert aborted.winner_id is None

    other = await new_game(store, white=2001, black=2002)
    other = await play(store, other, ["e2e4", "e7e5"], T0)
    with pytest.raises(AbortNotAllowedError):
        await store.games.abort(other.id, 2001, T0)


async def test_end_is_guarded_and_refuses_an_abort_disguised_as_a_result(store: Storage) -> None:
    game = await new_game(store)
    with pytest.raises(InvalidValueError):
        await store.games.end(game.id, 0, Outcome(Result.DRAW, Termination.ABORTED), T0)
    with pytest.raises(GameMovedOnError):
        await store.games.end(game.id, 3, Outcome(Result.DRAW, Termination.ADJUDICATION), T0)
    over = await store.games.end(game.id, 0, Outcome(Result.DRAW, Termination.ADJUDICATION), T0)
    assert over.result is Result.DRAW


async def test_time_bank_accumulates_unused_time_up_to_the_cap(store: Storage) -> None:
    game = await new_game(store, clock=Clock(DAY, 2 * DAY))
    history: list[str] = []
    now = T0

    async def move_after(seconds: int) -> None:
        nonlocal game, now
        now += seconds
        coordinate = f"m{len(history)}"
        done = await store.games.append_move(
            game.id, game.to_move_id, game.ply_count, make_move(game, history, coordinate), now
        )
        game = done.game
        history.append(coordinate)

    await move_after(6 * HOUR)  # White had 1 day and keeps 18 h
    assert game.white_bank == 18 * HOUR
    assert game.deadline_at == now + DAY  # Black has no bank yet
    await move_after(1 * HOUR)  # Black keeps 23 h
    assert game.black_bank == 23 * HOUR
    assert game.deadline_at == now + DAY + 18 * HOUR  # White's day plus White's bank
    await move_after(DAY + 17 * HOUR)  # White dips into the bank: 1 h left
    assert game.white_bank == HOUR
    assert game.deadline_at == now + DAY + 23 * HOUR
    await move_after(60)  # Black keeps almost 2 days
    assert game.black_bank == DAY + 23 * HOUR - 60
    await move_after(60)
    await move_after(60)  # Black would keep 2 days 23 h: capped
    assert game.black_bank == 2 * DAY
    assert game.deadline_at == now + DAY + game.white_bank


async def test_without_a_bank_every_turn_gets_the_same_time(store: Storage) -> None:
    game = await new_game(store, clock=Clock(3 * DAY, 0))
    game = await play(store, game, ["e2e4"], T0 + 60)
    assert (game.white_bank, game.deadline_at) == (0, T0 + 60 + 3 * DAY)


async def test_thread_and_message_ids(store: Storage) -> None:
    game = await new_game(store)
    assert await store.games.list_without_thread() == [game]
    assert await store.games.find_by_thread(555) is None
    game = await store.games.set_thread(game.id, 555)
    game = await store.games.set_message(game.id, 666)
    assert (game.thread_id, game.message_id) == (555, 666)
    assert await store.games.find_by_thread(555) == game
    assert await store.games.list_without_thread() == []
    other = await new_game(store, white=2001, black=2002)
    with pytest.raises(InvalidValueError):
        await store.games.set_thread(other.id, 555)
    with pytest.raises(GameNotFoundError):
        await store.games.set_thread(12345, 1)


async def test_active_games_list_whose_turn_first(store: Storage) -> None:
    waiting_for_black = await play(store, await new_game(store), ["e2e4"], T0)  # due T0+3d
    no_clock = await new_game(store, white=BLACK, black=THIRD, clock=Clock.untimed())
    soon = await new_game(store, white=BLACK, black=WHITE, clock=Clock(DAY, 0))  # due T0+1d
    finished = await new_game(store, white=BLACK, black=2001)
    await store.games.resign(finished.id, 2001, T0)
    active = await store.games.list_active(BLACK)
    assert [g.id for g in active] == [soon.id, waiting_for_black.id, no_clock.id]
    assert all(g.to_move_id == BLACK for g in active)
    for_white = await store.games.list_active(WHITE)
    assert [g.id for g in for_white] == [soon.id, waiting_for_black.id]
    assert all(g.to_move_id != WHITE for g in for_white)
    assert await store.games.list_active(9999) == []


async def test_recent_games_are_the_twenty_newest_of_either_colour(store: Storage) -> None:
    ids = []
    for i in range(30):
        white, black = (WHITE, 3000 + i) if i % 2 else (3000 + i, WHITE)
        game = await new_game(store, white=white, black=black, now=T0 + i)
        ids.append(game.id)
    await new_game(store, white=BLACK, black=THIRD, now=T0 + 100)
    first = await store.games.get(ids[0])
    await play(store, first, ["e2e4"], T0 + 50)  # the oldest game becomes the most recent
    recent = await store.games.list_recent(WHITE)
    assert len(recent) == 20
    assert recent[0].id == ids[0]
    assert [g.id for g in recent[1:]] == ids[29:10:-1]
    assert all(WHITE in (g.white_id, g.black_id) for g in recent)
    assert [g.id for g in await store.games.list_recent(WHITE, 3)] == [ids[0], ids[29], ids[28]]
    await store.games.resign(ids[5], WHITE, T0 + 60)
    finished = await store.games.list_recent(WHITE, finished_only=True)
    assert [g.id for g in finished] == [ids[5]]


async def test_nothing_is_ever_deleted_or_rewritten_behind_the_api(store: Storage) -> None:
    """The triggers and CHECKs hold against raw SQL too, on both backends."""
    game = await play(store, await new_game(store), ["e2e4", "e7e5"], T0)
    attempts = [
        ("UPDATE moves SET coordinate = 'x' WHERE game_id = ?", "never changed"),
        ("DELETE FROM moves WHERE game_id = ?", "archived"),
        ("DELETE FROM games WHERE id = ?", "never deleted"),
        ("UPDATE games SET white_id = black_id WHERE id = ?", None),
        ("UPDATE games SET status = 'finished' WHERE id = ?", None),
    ]
    for sql, message in attempts:
        with pytest.raises(InvalidValueError, match=message):
            async with store._db.transaction() as tx:
                await tx.run(sql, (game.id,))
    assert len(await store.games.moves(game.id)) == 2


async def test_a_cancelled_writer_leaves_no_half_transaction(store: Storage) -> None:
    game = await new_game(store)
    task = asyncio.create_task(
        store.games.append_move(game.id, WHITE, 0, make_move(game, [], "e2e4"), T0)
    )
    await asyncio.sleep(0)
    task.cancel()
    try:
        await task
        landed = True
    except asyncio.CancelledError:
        landed = len(await store.games.moves(game.id)) == 1
    game = await store.games.get(game.id)
    assert game.ply_count == (1 if landed else 0)
    assert len(await store.games.moves(game.id)) == game.ply_count
    done = await store.games.append_move(
        game.id, game.to_move_id, game.ply_count, make_move(game, [], "x1x2"), T0 + 1
    )
    assert done.game.ply_count == game.ply_count + 1
