"""Ratings per player and variant, their history, and leaderboards.

Storage keeps the numbers; the Glicko-2 arithmetic lives with the caller. An update is applied
for both players of a game at once, at most once per game, and only if neither rating changed
since the caller read it (`RatingUpdate.based_on_games`).
"""

from __future__ import annotations

from collections.abc import Sequence

from storage import _rows, _shared
from storage.db import Database, Tx
from storage.errors import InvalidValueError, RatingChangedError, RatingNotApplicableError
from storage.models import (
    Color,
    GameStatus,
    LeaderboardEntry,
    Rating,
    RatingApplication,
    RatingChange,
    RatingUpdate,
)

LEADERBOARD_LIMIT = 20
HISTORY_LIMIT = 50


class Ratings:
    """Obtain it as `Storage.ratings`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, user_id: int, variant_id: str) -> Rating:
        """The player's rating, or the Glicko-2 starting values if they never played it."""
        async with self._db.transaction(write=False) as tx:
            return await self._fetch(tx, user_id, variant_id)

    async def for_player(self, user_id: int) -> list[Rating]:
        """Every variant the player has a rating in, most games first."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM ratings WHERE user_id = ? ORDER BY games DESC, variant_id",
                (user_id,),
            )
        return [_rows.rating(row) for row in rows]

    async def apply_game(
        self, game_id: int, updates: Sequence[RatingUpdate], now: int
    ) -> RatingApplication:
        """Applies the new ratings of both players of a finished rated game, atomically and
        once: a repeated call changes nothing and returns the stored changes with
        `applied_now=False`. Raises `RatingChangedError` if a rating moved since it was read,
        and `RatingNotApplicableError` for casual, aborted or unfinished games."""
        by_user = {update.user_id: update for update in updates}
        for update in updates:
            _rows.check_rating_value("a rating", update.rating, -100_000, 100_000)
            _rows.check_rating_value("a rating deviation", update.deviation, 0, 10_000)
            _rows.check_rating_value("a volatility", update.volatility, 0, 10)
            if update.score is not None and not 0.0 <= update.score <= 1.0:
                raise InvalidValueError(f"a score {update.score!r} is out of range (0 to 1)")
        async with self._db.transaction() as tx:
            game = await _shared.fetch_game(tx, game_id)
            if game.status is not GameStatus.FINISHED or game.result is None:
                raise RatingNotApplicableError("only finished games change ratings")
            if not game.rated:
                raise RatingNotApplicableError("this game was not rated")
            done = await self._changes(tx, game_id)
            if done:
                return RatingApplication(False, (done[0], done[1]))
            if len(updates) != 2 or set(by_user) != {game.white_id, game.black_id}:
                raise InvalidValueError("a rating update needs exactly the game's two players")
            changes: dict[Color, RatingChange] = {}
            # Lower user id first: two games of one player applied at once lock the rating
            # rows in the same order (PostgreSQL), so they queue instead of deadlocking.
            for color in sorted((Color.WHITE, Color.BLACK), key=game.player_id):
                user_id = game.player_id(color)
                update = by_user[user_id]
                before = await self._fetch(tx, user_id, game.variant_id)
                if before.games != update.based_on_games:
                    raise RatingChangedError(user_id, update.based_on_games, before.games)
                score = update.score if update.score is not None else game.result.score_for(color)
                wins = before.wins + (score > 0.5)
                draws = before.draws + (score == 0.5)
                losses = before.losses + (score < 0.5)
                written = await tx.run(
                    "INSERT INTO ratings (user_id, variant_id, rating, deviation, volatility, "
                    "games, wins, draws, losses, last_played_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (user_id, variant_id) DO UPDATE SET "
                    "rating = excluded.rating, deviation = excluded.deviation, "
                    "volatility = excluded.volatility, games = excluded.games, "
                    "wins = excluded.wins, draws = excluded.draws, losses = excluded.losses, "
                    "last_played_at = excluded.last_played_at, updated_at = excluded.updated_at "
                    "WHERE ratings.games = ?",
                    (
                        user_id,
                        game.variant_id,
                        update.rating,
                        update.deviation,
                        update.volatility,
                        before.games + 1,
                        wins,
                        draws,
                        losses,
                        game.ended_at,
                        now,
                        before.games,
                    ),
                )
                if not written:
                    # Another game of this player was rated since we read the row.
                    now_games = (await self._fetch(tx, user_id, game.variant_id)).games
                    raise RatingChangedError(user_id, update.based_on_games, now_games)
                change = RatingChange(
                    game_id=game_id,
                    user_id=user_id,
                    opponent_id=game.opponent_of(user_id),
                    variant_id=game.variant_id,
                    score=score,
                    rating_before=before.rating,
                    deviation_before=before.deviation,
                    volatility_before=before.volatility,
                    rating_after=update.rating,
                    deviation_after=update.deviation,
                    volatility_after=update.volatility,
                    created_at=now,
                )
                await tx.run(
                    "INSERT INTO rating_history (game_id, user_id, opponent_id, variant_id, "
                    "score, rating_before, deviation_before, volatility_before, rating_after, "
                    "deviation_after, volatility_after, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        change.game_id,
                        change.user_id,
                        change.opponent_id,
                        change.variant_id,
                        change.score,
                        change.rating_before,
                        change.deviation_before,
                        change.volatility_before,
                        change.rating_after,
                        change.deviation_after,
                        change.volatility_after,
                        change.created_at,
                    ),
                )
                changes[color] = change
            return RatingApplication(True, (changes[Color.WHITE], changes[Color.BLACK]))

    async def game_changes(self, game_id: int) -> list[RatingChange]:
        """The rating changes a game caused: White's then Black's, or none."""
        async with self._db.transaction(write=False) as tx:
            return await self._changes(tx, game_id)

    async def history(
        self, user_id: int, variant_id: str | None = None, limit: int = HISTORY_LIMIT
    ) -> list[RatingChange]:
        """The player's rating changes, newest first."""
        _rows.check_positive("the limit", limit)
        variant = "AND variant_id = ?" if variant_id is not None else ""
        params: tuple[object, ...] = (
            (user_id, variant_id, limit) if variant_id is not None else (user_id, limit)
        )
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                f"SELECT * FROM rating_history WHERE user_id = ? {variant} "
                "ORDER BY created_at DESC, game_id DESC LIMIT ?",
                params,
            )
        return [_rows.rating_change(row) for row in rows]

    async def leaderboard(
        self, variant_id: str, limit: int = LEADERBOARD_LIMIT, *, min_games: int = 1
    ) -> list[LeaderboardEntry]:
        """The top players of a variant by rating. Provisional marking (a deviation above
        some threshold) is the caller's choice; the deviation is included for it."""
        _rows.check_positive("the limit", limit)
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT r.user_id, p.display_name, r.rating, r.deviation, r.games "
                "FROM ratings r JOIN players p ON p.user_id = r.user_id "
                "WHERE r.variant_id = ? AND r.games >= ? "
                "AND r.user_id > 0 "  # forgotten players (negative ids) play no more
                "ORDER BY r.rating DESC, r.user_id LIMIT ?",
                (variant_id, min_games, limit),
            )
        return [
            LeaderboardEntry(
                rank=rank,
                user_id=row["user_id"],
                display_name=row["display_name"],
                rating=row["rating"],
                deviation=row["deviation"],
                games=row["games"],
            )
            for rank, row in enumerate(rows, start=1)
        ]

    @staticmethod
    async def _fetch(tx: Tx, user_id: int, variant_id: str) -> Rating:
        row = await tx.one(
            "SELECT * FROM ratings WHERE user_id = ? AND variant_id = ?", (user_id, variant_id)
        )
        return Rating(user_id, variant_id) if row is None else _rows.rating(row)

    @staticmethod
    async def _changes(tx: Tx, game_id: int) -> list[RatingChange]:
        rows = await tx.all(
            "SELECT h.* FROM rating_history h JOIN games g ON g.id = h.game_id "
            "WHERE h.game_id = ? ORDER BY h.user_id = g.black_id",
            (game_id,),
        )
        return [_rows.rating_change(row) for row in rows]
