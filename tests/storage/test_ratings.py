"""Ratings: both players at once, once per game, compare-and-set, history, leaderboard."""

from __future__ import annotations

import asyncio

import pytest

from storage import Storage
from storage.errors import (
    InvalidValueError,
    RatingChangedError,
    RatingNotApplicableError,
)
from storage.models import (
    DEFAULT_DEVIATION,
    DEFAULT_RATING,
    Game,
    Rating,
    RatingUpdate,
)
from tests.storage.conftest import BLACK, T0, THIRD, WHITE, new_game


def updates(white: Rating, black: Rating, delta: float = 20.0) -> list[RatingUpdate]:
    return [
        RatingUpdate(white.user_id, white.rating + delta, 200.0, 0.06, white.games),
        RatingUpdate(black.user_id, black.rating - delta, 200.0, 0.06, black.games),
    ]


async def decided_game(store: Storage, *, rated: bool = True, now: int = T0) -> Game:
    game = await new_game(store, rated=rated, now=now)
    return await store.games.resign(game.id, BLACK, now + 100)


async def test_an_unrated_player_starts_at_the_glicko2_defaults(store: Storage) -> None:
    rating = await store.ratings.get(WHITE, "chess")
    assert (rating.rating, rating.deviation, rating.games) == (DEFAULT_RATING, DEFAULT_DEVIATION, 0)
    assert rating.last_played_at is None
    assert await store.ratings.for_player(WHITE) == []


async def test_a_game_updates_both_players_once(store: Storage) -> None:
    game = await decided_game(store)
    white = await store.ratings.get(WHITE, "chess")
    black = await store.ratings.get(BLACK, "chess")
    applied = await store.ratings.apply_game(game.id, updates(white, black), T0 + 200)
    assert applied.applied_now
    w, b = applied.changes
    assert (w.user_id, w.opponent_id, w.score, w.rating_before, w.rating_after) == (
        WHITE,
        BLACK,
        1.0,
        1500.0,
        1520.0,
    )
    assert (b.user_id, b.score, b.delta) == (BLACK, 0.0, -20.0)
    new_white = await store.ratings.get(WHITE, "chess")
    assert (new_white.rating, new_white.games, new_white.wins, new_white.losses) == (
        1520.0,
        1,
        1,
        0,
    )
    assert new_white.last_played_at == game.ended_at
    assert (await store.ratings.get(BLACK, "chess")).losses == 1

    again = await store.ratings.apply_game(game.id, updates(white, black, 99), T0 + 300)
    assert not again.applied_now
    assert again.changes == applied.changes
    assert (await store.ratings.get(WHITE, "chess")).rating == 1520.0
    assert await store.ratings.game_changes(game.id) == [w, b]


async def test_concurrent_applications_land_once(store: Storage) -> None:
    game = await decided_game(store)
    white = await store.ratings.get(WHITE, "chess")
    black = await store.ratings.get(BLACK, "chess")
    results = await asyncio.gather(
        *(store.ratings.apply_game(game.id, updates(white, black), T0) for _ in range(10))
    )
    assert sum(r.applied_now for r in results) == 1
    assert (await store.ratings.get(WHITE, "chess")).games == 1


async def test_a_rating_read_before_another_game_is_refused(store: Storage) -> None:
    first = await decided_game(store)
    second = await decided_game(store, now=T0 + 1000)
    white = await store.ratings.get(WHITE, "chess")
    black = await store.ratings.get(BLACK, "chess")
    await store.ratings.apply_game(first.id, updates(white, black), T0 + 2000)
    with pytest.raises(RatingChangedError) as caught:
        await store.ratings.apply_game(second.id, updates(white, black), T0 + 2001)
    assert (caught.value.expected_games, caught.value.actual_games) == (0, 1)
    assert await store.ratings.game_changes(second.id) == []
    fresh_w = await store.ratings.get(WHITE, "chess")
    fresh_b = await store.ratings.get(BLACK, "chess")
    assert (await store.ratings.apply_game(second.id, updates(fresh_w, fresh_b), T0)).applied_now


async def test_only_finished_rated_games_with_their_players(store: Storage) -> None:
    white = Rating(WHITE, "chess")
    black = Rating(BLACK, "chess")
    active = await new_game(store)
    with pytest.raises(RatingNotApplicableError):
        await store.ratings.apply_game(active.id, updates(white, black), T0)
    aborted = await store.games.abort((await new_game(store)).id, WHITE, T0)
    with pytest.raises(RatingNotApplicableError):
        await store.ratings.apply_game(aborted.id, updates(white, black), T0)
    casual = await decided_game(store, rated=False)
    with pytest.raises(RatingNotApplicableError, match="not rated"):
        await store.ratings.apply_game(casual.id, updates(white, black), T0)
    game = await decided_game(store)
    with pytest.raises(InvalidValueError):
        await store.ratings.apply_game(game.id, updates(white, Rating(THIRD, "chess")), T0)
    with pytest.raises(InvalidValueError):
        await store.ratings.apply_game(game.id, updates(white, black)[:1], T0)
    bad = [RatingUpdate(WHITE, float("nan"), 200.0, 0.06, 0), updates(white, black)[1]]
    with pytest.raises(InvalidValueError):
        await store.ratings.apply_game(game.id, bad, T0)
    bad = [RatingUpdate(WHITE, 1500.0, 0.0, 0.06, 0), updates(white, black)[1]]
    with pytest.raises(InvalidValueError):
        await store.ratings.apply_game(game.id, bad, T0)


async def test_history_and_leaderboard(store: Storage) -> None:
    for i in range(3):
        game = await decided_game(store, now=T0 + i * 1000)
        white = await store.ratings.get(WHITE, "chess")
        black = await store.ratings.get(BLACK, "chess")
        await store.ratings.apply_game(game.id, updates(white, black), T0 + i * 1000 + 500)
    other = await new_game(store, white=THIRD, black=BLACK, variant="shogi")
    other = await store.games.resign(other.id, THIRD, T0)
    await store.ratings.apply_game(
        other.id,
        updates(Rating(THIRD, "shogi"), Rating(BLACK, "shogi"), delta=-30),
        T0 + 9000,
    )
    await store.players.upsert(WHITE, "Ann", T0)

    history = await store.ratings.history(BLACK)
    assert [h.variant_id for h in history] == ["shogi", "chess", "chess", "chess"]
    assert [h.rating_after for h in await store.ratings.history(BLACK, "chess")] == [
        1440.0,
        1460.0,
        1480.0,
    ]
    assert len(await store.ratings.history(BLACK, limit=2)) == 2
    board = await store.ratings.leaderboard("chess")
    assert [(e.rank, e.user_id, e.display_name, e.rating, e.games) for e in board] == [
        (1, WHITE, "Ann", 1560.0, 3),
        (2, BLACK, "", 1440.0, 3),
    ]
    assert [e.user_id for e in await store.ratings.leaderboard("shogi", 1)] == [BLACK]
    assert await store.ratings.leaderboard("chess", min_games=4) == []
    assert [r.variant_id for r in await store.ratings.for_player(BLACK)] == ["chess", "shogi"]
    black_chess = await store.ratings.get(BLACK, "chess")
    assert (black_chess.wins, black_chess.draws, black_chess.losses) == (0, 0, 3)


async def test_a_fractional_score_is_recorded_and_tallied(store: Storage) -> None:
    """A Bat Chess stalemate scores 3/5 to 2/5: the history keeps it, the tallies count the
    better score as a win."""
    game = await decided_game(store)
    white = await store.ratings.get(WHITE, "chess")
    black = await store.ratings.get(BLACK, "chess")
    ups = [
        RatingUpdate(WHITE, 1510.0, 300.0, 0.06, white.games, score=0.6),
        RatingUpdate(BLACK, 1490.0, 300.0, 0.06, black.games, score=0.4),
    ]
    w, b = (await store.ratings.apply_game(game.id, ups, T0 + 200)).changes
    assert (w.score, b.score) == (0.6, 0.4)
    new_white = await store.ratings.get(WHITE, "chess")
    new_black = await store.ratings.get(BLACK, "chess")
    assert (new_white.wins, new_white.draws, new_black.losses) == (1, 0, 1)


async def test_a_score_outside_zero_to_one_is_refused(store: Storage) -> None:
    game = await decided_game(store)
    white = await store.ratings.get(WHITE, "chess")
    black = await store.ratings.get(BLACK, "chess")
    ups = [
        RatingUpdate(WHITE, 1510.0, 300.0, 0.06, white.games, score=1.5),
        RatingUpdate(BLACK, 1490.0, 300.0, 0.06, black.games, score=0.0),
    ]
    with pytest.raises(InvalidValueError):
        await store.ratings.apply_game(game.id, ups, T0 + 200)


async def test_two_stores_rating_games_of_one_player_at_once_lose_no_update(
    db_target: str,
) -> None:
    """Two processes apply two games of the same players at the same moment, both from the
    ratings they read before: exactly one lands, the other is told the rating changed, and
    the counters hold both games once the loser retries."""
    stores = [await Storage.open(db_target) for _ in range(2)]
    try:
        games = [await decided_game(stores[0]) for _ in range(2)]
        white = await stores[0].ratings.get(WHITE, "chess")
        black = await stores[0].ratings.get(BLACK, "chess")

        async def apply(i: int) -> str:
            try:
                await stores[i].ratings.apply_game(games[i].id, updates(white, black), T0 + 200)
            except RatingChangedError:
                return "changed"
            return "applied"

        outcomes = sorted(await asyncio.gather(apply(0), apply(1)))
        assert outcomes == ["applied", "changed"]
        loser = games[0] if not await stores[0].ratings.game_changes(games[0].id) else games[1]
        assert await stores[0].ratings.game_changes(loser.id) == []
        w = await stores[0].ratings.get(WHITE, "chess")
        b = await stores[0].ratings.get(BLACK, "chess")
        await stores[1].ratings.apply_game(loser.id, updates(w, b), T0 + 300)
        final = await stores[1].ratings.get(WHITE, "chess")
        assert (final.games, final.wins) == (2, 2)
    finally:
        for storage in stores:
            await storage.close()
