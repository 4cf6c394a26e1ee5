"""Ratings: Glicko-2 per variant, applied once when a rated game finishes."""

from __future__ import annotations

from bot.service.clock import Clock
from bot.service.glicko2 import PERIOD_SECONDS, Glicko, inactive, update
from rules.outcome import Outcome as RulesOutcome
from storage import Storage
from storage.errors import RatingChangedError
from storage.models import Color, Game, Rating, RatingChange, RatingUpdate, Termination


def game_scores(game: Game) -> tuple[float, float]:
    """White's and Black's scores: 1/0/½, or 3/5-2/5 for a Bat-game stalemate."""
    assert game.result is not None
    if game.termination is Termination.RULES and game.end_detail:
        try:
            parsed = RulesOutcome.from_text(game.end_detail)
        except ValueError:
            parsed = None
        if parsed is not None:
            return parsed.score
    return game.result.score_for(Color.WHITE), game.result.score_for(Color.BLACK)


def current(rating: Rating, now: int) -> Glicko:
    """A stored rating with its deviation widened for the time since the last game."""
    glicko = Glicko(rating.rating, rating.deviation, rating.volatility)
    if rating.last_played_at is None or rating.games == 0:
        return glicko
    return inactive(glicko, (now - rating.last_played_at) // PERIOD_SECONDS)


class RatingService:
    def __init__(self, storage: Storage, clock: Clock) -> None:
        self.storage = storage
        self.clock = clock

    async def apply(self, game: Game) -> tuple[RatingChange, ...]:
        """Update both players after a finished rated game (idempotent per game)."""
        for _attempt in range(3):
            now = self.clock.now()
            white = await self.storage.ratings.get(game.white_id, game.variant_id)
            black = await self.storage.ratings.get(game.black_id, game.variant_id)
            when = game.ended_at or now
            w, b = current(white, when), current(black, when)
            sw, sb = game_scores(game)
            new_w = update(w, [(b, sw)])
            new_b = update(b, [(w, sb)])
            updates = [
                RatingUpdate(
                    game.white_id, new_w.rating, new_w.deviation, new_w.volatility, white.games, sw
                ),
                RatingUpdate(
                    game.black_id, new_b.rating, new_b.deviation, new_b.volatility, black.games, sb
                ),
            ]
            try:
                applied = await self.storage.ratings.apply_game(game.id, updates, now)
            except RatingChangedError:
                continue  # another game of a player finished meanwhile: read again
            return applied.changes
        return tuple(await self.storage.ratings.game_changes(game.id))

    async def rating(self, user_id: int, variant_id: str) -> Glicko:
        stored = await self.storage.ratings.get(user_id, variant_id)
        return current(stored, self.clock.now())
