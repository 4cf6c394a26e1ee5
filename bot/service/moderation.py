"""Moderators end games that cannot go on: cancel (no result, no rating change) or adjudicate
(a result, rated like any other end). Each decision is stored on the game with who took it
and why, shows in its status and record, and goes through the same end-of-game path as a
resignation, so its consequences (ratings, posts) are those of any other end."""

from __future__ import annotations

from enum import StrEnum

from bot.service.errors import BadRequestError
from bot.service.games import GameService
from bot.service.inputs import player_text
from bot.service.models import EndResult, UserRef
from storage.models import Result

MAX_REASON = 150  # the stored end detail holds 200 characters with the words around it


class Verdict(StrEnum):
    WHITE = "white"
    BLACK = "black"
    DRAW = "draw"

    @property
    def result(self) -> Result:
        return {
            Verdict.WHITE: Result.WHITE_WINS,
            Verdict.BLACK: Result.BLACK_WINS,
            Verdict.DRAW: Result.DRAW,
        }[self]

    @property
    def words(self) -> str:
        return {
            Verdict.WHITE: "white wins",
            Verdict.BLACK: "black wins",
            Verdict.DRAW: "draw",
        }[self]


def clean_reason(reason: str) -> str:
    """The reason as the players will read it: the one rule for players' text."""
    return player_text("reason", reason, limit=MAX_REASON)


class Moderation:
    def __init__(self, games: GameService) -> None:
        self.games = games

    async def _game_here(self, guild_id: int, game_id: int, moderator: UserRef) -> int:
        """The game, if this server's, still going, and not the moderator's own: nobody
        judges their own game (another moderator must)."""
        game = await self.games.find(0, game_id, guild_id=guild_id)
        if game.color_of(moderator.id) is not None:
            raise BadRequestError(
                f"You play in game #{game_id}: a moderator does not decide their own game. "
                "Ask another moderator."
            )
        if not game.is_active:
            raise BadRequestError(f"Game #{game_id} is already over.")
        return game.id

    async def cancel(
        self, *, guild_id: int, game_id: int, moderator: UserRef, reason: str = ""
    ) -> EndResult:
        """End the game without a result: nobody wins, ratings do not change."""
        why = clean_reason(reason)
        gid = await self._game_here(guild_id, game_id, moderator)
        await self.games.seen(moderator)
        detail = "cancelled by a moderator" + (f": {why}" if why else "")
        async with self.games.lock(gid):
            ended = await self.games.storage.games.cancel(
                gid, self.games.clock.now(), by=moderator.id, reason=detail
            )
        return await self.games.ended(ended)

    async def adjudicate(
        self, *, guild_id: int, game_id: int, moderator: UserRef, verdict: Verdict, reason: str
    ) -> EndResult:
        """Decide the result; a rated game is then rated as if it had been played out."""
        why = clean_reason(reason)
        if not why:
            raise BadRequestError("Say why the game is adjudicated; the players will read it.")
        gid = await self._game_here(guild_id, game_id, moderator)
        await self.games.seen(moderator)
        detail = f"{verdict.words} by adjudication: {why}"
        async with self.games.lock(gid):
            ended = await self.games.storage.games.adjudicate(
                gid, verdict.result, self.games.clock.now(), by=moderator.id, reason=detail
            )
        return await self.games.ended(ended)
