"""Durable timers: what fell due (deadlines, reminders, expiries, vacation ends) becomes
events for the bot to announce. Every item goes through its storage guard, so an item is
handled once whatever restarts happen, and whatever fell due while the bot was down is
handled at the next start."""

from __future__ import annotations

from dataclasses import dataclass

from bot.service.games import GameService
from bot.service.models import GameView
from storage.errors import ConflictError, NotFoundError, RefusedError
from storage.models import Challenge, Color, DueItem, DueKind, Game, NotifyMode, RatingChange


@dataclass(frozen=True, slots=True)
class TimeoutEvent:
    view: GameView
    rating_changes: tuple[RatingChange, ...]


@dataclass(frozen=True, slots=True)
class NoticeEvent:
    """A "your turn" notice or a reminder before the deadline, for one player."""

    game: Game
    user_id: int
    variant_name: str
    opponent_name: str
    via_dm: bool
    reminder: bool
    seconds_left: int | None


@dataclass(frozen=True, slots=True)
class ChallengeExpiredEvent:
    challenge: Challenge


@dataclass(frozen=True, slots=True)
class VacationEndedEvent:
    user_id: int


Event = TimeoutEvent | NoticeEvent | ChallengeExpiredEvent | VacationEndedEvent


class TimerService:
    def __init__(self, games: GameService) -> None:
        self.games = games
        self.storage = games.storage
        self.clock = games.clock

    async def next_due_at(self) -> int | None:
        return await self.storage.timers.next_due_at()

    async def run_due(self) -> list[Event]:
        """Handle everything due now, earliest first, and return what to announce."""
        now = self.clock.now()
        events: list[Event] = []
        while True:
            items = await self.storage.timers.due(now)
            if not items:
                return events
            handled = len(events)
            for item in items:
                events.extend(await self._handle(item, now))
            if len(events) == handled and len(items) < 100:
                return events

    async def _handle(self, item: DueItem, now: int) -> list[Event]:
        if item.kind is DueKind.TIMEOUT:
            return await self._timeout(item, now)
        if item.kind in (DueKind.TURN_NOTICE, DueKind.REMINDER):
            return await self._notice(item, now)
        if item.kind is DueKind.CHALLENGE_EXPIRY:
            return [ChallengeExpiredEvent(c) for c in await self.storage.challenges.expire_due(now)]
        return [VacationEndedEvent(v.user_id) for v in await self.storage.vacations.end_due(now)]

    async def _timeout(self, item: DueItem, now: int) -> list[Event]:
        assert item.game_id is not None and item.ply is not None
        try:
            game = await self.storage.games.get(item.game_id)
            winner = "black" if game.turn is Color.WHITE else "white"
            ended = await self.storage.games.claim_timeout(
                item.game_id, item.ply, now, detail=f"{winner} wins on time"
            )
        except (ConflictError, RefusedError, NotFoundError):
            return []  # already handled, or the player moved just in time
        self.games.game_ended(ended)
        changes = await self.games.ratings.apply(ended) if ended.rated else ()
        return [TimeoutEvent(await self.games.view(ended.id), changes)]

    async def _notice(self, item: DueItem, now: int) -> list[Event]:
        assert item.game_id is not None and item.user_id is not None
        if not await self.storage.timers.claim_notification(item, now):
            return []
        game = await self.storage.games.get(item.game_id)
        player = await self.storage.players.find(item.user_id)
        via_dm = player is not None and player.notify_mode is NotifyMode.DM
        left = game.deadline_at - now if game.deadline_at is not None else None
        variant = self.games.resolve_variant(game.variant_id, ",".join(game.options))
        return [
            NoticeEvent(
                game=game,
                user_id=item.user_id,
                variant_name=variant.name,
                opponent_name=await self.games.name_of(game.opponent_of(item.user_id)),
                via_dm=via_dm,
                reminder=item.kind is DueKind.REMINDER,
                seconds_left=left,
            )
        ]
