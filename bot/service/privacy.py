"""What Fairy Post keeps about players, and forgetting a player on request.

`STORED` is the one statement of it: `/privacy` shows it and the README repeats it (a test
keeps the two in step)."""

from __future__ import annotations

from bot.service.clock import Clock
from bot.service.errors import BadRequestError
from bot.service.models import UserRef
from storage import Storage
from storage.errors import PlayerHasActiveGamesError
from storage.models import Forgotten

STORED = (
    ("Your Discord id and display name", "as last seen, to show names in games and tables"),
    ("Your games", "moves, times, results, the server and thread they were played in"),
    ("Your ratings", "per variant, with the change after each rated game"),
    ("Your challenges and offers", "draw offers and takeback requests, with their answers"),
    (
        "Your settings",
        "notices (thread or DM, when and in which time zone), reminder times, vacation days "
        "used, the pieces of your pictures",
    ),
)
NOT_STORED = (
    "Fairy Post never reads messages: everything arrives as commands and button clicks. "
    "It stores no e-mail, no IP address and nothing about server members who do not play."
)
KEPT_FOR = (
    "Everything is kept as long as the bot runs, so that records and ratings stay complete; "
    "the operator's backups keep copies until they are rotated out. "
    "Posts in Discord threads are Discord's: moderators can delete them there."
)
FORGET = (
    "/forget-me replaces your name and id in every stored game, rating and challenge by an "
    'anonymous label ("Anonymous 7"). The games stay, so your opponents\' records and '
    "ratings keep working; your settings are deleted and you leave the leaderboards. "
    "Finish or resign your games in progress, and leave open tournaments, first."
)


class Privacy:
    def __init__(self, storage: Storage, clock: Clock) -> None:
        self.storage = storage
        self.clock = clock

    async def knows(self, user: UserRef) -> bool:
        return await self.storage.players.find(user.id) is not None

    async def forget(self, user: UserRef) -> Forgotten | None:
        """Forget `user` everywhere; None when nothing was stored about them."""
        if not await self.knows(user):
            return None
        try:
            return await self.storage.players.forget(user.id, self.clock.now())
        except PlayerHasActiveGamesError as exc:
            parts = []
            if exc.game_ids:
                games = ", ".join(f"#{g}" for g in exc.game_ids)
                which = "game" if len(exc.game_ids) == 1 else "games"
                them = "it" if len(exc.game_ids) == 1 else "them"
                parts.append(f"You still play {which} {games}: finish or resign {them} (/resign)")
            if exc.tournaments:
                names = ", ".join(exc.tournaments)
                which = "tournament" if len(exc.tournaments) == 1 else "tournaments"
                them = "it" if len(exc.tournaments) == 1 else "them"
                parts.append(f"you are entered in the {which} {names}: leave {them} first")
            if not parts and exc.pending:
                raise BadRequestError(
                    "The end of your last game is still being posted and rated; "
                    "ask again in a minute."
                ) from None
            text = "; ".join(parts)
            raise BadRequestError(text[:1].upper() + text[1:] + ". Then ask again.") from None
