"""The posts of draw offers and takeback requests, kept true after the request is settled.

An offer's post carries **Accept**/**Decline** buttons. When the request is settled some
other way than by those buttons — it lapses because its player moved, because a move or a
takeback changed the game, or because the game ended — the post must lose its buttons and
say so. The post's place is stored when it is made (`storage.offer_posts`); after every
move and end of game, and at start-up for whatever a crash left, the cogs ask for the posts
to settle, edit them, and mark them settled. Editing a post twice shows the same text, so a
crash between the edit and the mark repeats nothing a player can see.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.service.games import GameService
from storage.models import RequestStatus


@dataclass(frozen=True, slots=True)
class SettledOfferPost:
    kind: str  # "draw" or "takeback"
    request_id: int
    channel_id: int
    message_id: int
    by_name: str  # who made the request
    status: RequestStatus
    why: str = ""
    """Why it lapsed: "the game is over", "moved before it was accepted" (said of its
    player), "the game moved on before it was answered". `bot.ui.embeds.settled_offer_text`
    words the post."""


WHAT = {"draw": "draw offer", "takeback": "takeback request"}


class OfferPostService:
    def __init__(self, games: GameService) -> None:
        self.games = games
        self.storage = games.storage

    async def record(
        self, kind: str, request_id: int, game_id: int, channel_id: int, message_id: int
    ) -> None:
        await self.storage.offer_posts.record(kind, request_id, game_id, channel_id, message_id)

    async def to_settle(self, game_id: int | None = None) -> list[SettledOfferPost]:
        """Posts still showing the buttons of a request that is no longer pending."""
        out = []
        for post in await self.storage.offer_posts.unsettled(game_id):
            by = await self.games.name_of(post.by_id)
            game = await self.storage.games.get(post.game_id)
            why = ""
            if post.status is RequestStatus.LAPSED:
                if not game.is_active:
                    why = "the game is over"
                elif post.kind == "draw":
                    why = "moved before it was accepted"
                else:
                    why = "the game moved on before it was answered"
            out.append(
                SettledOfferPost(
                    post.kind,
                    post.request_id,
                    post.channel_id,
                    post.message_id,
                    by,
                    post.status,
                    why,
                )
            )
        return out

    async def settled(self, kind: str, request_id: int) -> None:
        await self.storage.offer_posts.settle(kind, request_id, self.games.clock.now())
