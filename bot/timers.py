"""The one background task that sleeps until the next due item and announces it.

It wakes early when poked (after anything that may have created an earlier item), and on
start it first handles everything that fell due while the bot was down. Announcements go to
the game's thread, or by DM for players who asked for DMs; a DM that Discord refuses falls
back to a mention in the thread. Messages in the thread also keep it from being archived.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging

import discord

from bot.service.timers import (
    ChallengeExpiredEvent,
    Event,
    NoticeEvent,
    TimeoutEvent,
    TimerService,
    VacationEndedEvent,
)
from bot.ui.embeds import challenge_embed, game_embed, rating_lines
from bot.ui.format import deadline, mention

log = logging.getLogger("fairypost.timers")
MAX_SLEEP = 3600.0


class TimerLoop:
    def __init__(self, bot: discord.Client, service: TimerService) -> None:
        self.bot = bot
        self.service = service
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.handled = 0  # events announced, for tests and logs

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="fairypost-timers")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def poke(self) -> None:
        """Something may be due earlier than the loop thinks: look again now."""
        self._wake.set()

    async def _run(self) -> None:
        await self.bot.wait_until_ready()
        while True:
            try:
                for event in await self.service.run_due():
                    await self._announce(event)
                    self.handled += 1
                due = await self.service.next_due_at()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer pass failed; retrying in a minute")
                due = self.service.clock.now() + 60
            delay = (
                MAX_SLEEP
                if due is None
                else max(0.0, min(MAX_SLEEP, due - self.service.clock.now()))
            )
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay if delay > 0 else 0.05):
                    await self._wake.wait()

    async def _channel(self, channel_id: int | None) -> discord.abc.Messageable | None:
        if channel_id is None:
            return None
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except discord.HTTPException:
                return None
        if isinstance(channel, discord.Thread) and channel.archived:
            with contextlib.suppress(discord.HTTPException):
                await channel.edit(archived=False)
        return channel if isinstance(channel, discord.abc.Messageable) else None

    async def _announce(self, event: Event) -> None:
        try:
            if isinstance(event, TimeoutEvent):
                await self._timeout(event)
            elif isinstance(event, NoticeEvent):
                await self._notice(event)
            elif isinstance(event, ChallengeExpiredEvent):
                await self._expired(event)
            elif isinstance(event, VacationEndedEvent):
                log.info("vacation of %s ended", event.user_id)
        except discord.HTTPException:
            log.exception("could not announce %s", type(event).__name__)

    async def _timeout(self, event: TimeoutEvent) -> None:
        view = event.view
        g = view.game
        text = (
            f"{mention(g.white_id)} {mention(g.black_id)} — **{view.status}**: the deadline passed."
        )
        if event.rating_changes:
            names = {g.white_id: view.white_name, g.black_id: view.black_name}
            text += "\n" + rating_lines(event.rating_changes, names)
        channel = await self._channel(g.thread_id or g.channel_id)
        if channel is None:
            return
        picture = await self.service.games.render(view.scene)
        await channel.send(
            content=text,
            embed=game_embed(view),
            file=discord.File(
                io.BytesIO(picture.png),
                filename=picture.filename,
                description=picture.description or None,
            ),
        )
        log.info("game %s ended on time", g.id)
        animation = await self.service.games.replay(g.id)
        if animation is not None:
            await channel.send(
                content=f"🎞 Game #{g.id}, move by move ({animation.plies} plies).",
                file=discord.File(io.BytesIO(animation.data), filename=animation.filename),
            )

    async def _notice(self, event: NoticeEvent) -> None:
        g = event.game
        where = f"<#{g.thread_id}>" if g.thread_id else f"game #{g.id}"
        if event.reminder:
            text = (
                f"⏰ Reminder: your move in {where} ({event.variant_name} vs "
                f"{event.opponent_name}) is due {deadline(g.deadline_at)}."
            )
        else:
            text = f"Your turn in {where} ({event.variant_name} vs {event.opponent_name})." + (
                f" Deadline {deadline(g.deadline_at)}." if g.deadline_at else ""
            )
        if event.via_dm:
            try:
                user = self.bot.get_user(event.user_id) or await self.bot.fetch_user(event.user_id)
                await user.send(text)
                return
            except discord.HTTPException:
                log.info("DM to %s refused; mentioning in the thread instead", event.user_id)
        elif not event.reminder:
            return  # the move's own post in the thread already mentioned the player
        channel = await self._channel(g.thread_id or g.channel_id)
        if channel is not None:
            await channel.send(f"{mention(event.user_id)} {text}")

    async def _expired(self, event: ChallengeExpiredEvent) -> None:
        c = event.challenge
        channel = await self._channel(c.channel_id)
        if channel is None or c.message_id is None:
            return
        view = await self.service.games.challenge_view(c.id)
        with contextlib.suppress(discord.HTTPException):
            message = channel.get_partial_message(c.message_id)  # type: ignore[attr-defined]
            await message.edit(
                embed=challenge_embed(view, with_image=False), view=None, attachments=[]
            )
