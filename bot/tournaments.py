"""The background task that moves tournaments on and carries out the posts they owe.

It wakes when a game ends (a hint from the service), when a start time or round deadline
comes, and at start-up; each pass runs `TournamentService.advance_all` (everything due,
derived from storage) and then every pending post in order. A post is claimed (its attempt
counted) before it is sent and marked done with its message after; if the bot died in
between, the retry first looks for the message it may already have sent (each post's embed
carries a marker in its footer, each game thread the game's number in its name), so a
restart never doubles a post. A post Discord keeps refusing is given up after five tries.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from typing import Literal

import discord

from bot.service.tournaments import Table, TournamentService
from bot.ui.embeds import game_embed
from bot.ui.format import mention
from bot.ui.tournaments import signup_embed, table_embed
from storage.tournaments import Post
from tournament.model import points_text

log = logging.getLogger("fairypost.tournaments")
MAX_SLEEP = 3600.0
MAX_ATTEMPTS = 5
ARCHIVE_MINUTES: Literal[10080] = 10080  # a week: correspondence is slow


class TournamentLoop:
    def __init__(self, client: discord.Client, service: TournamentService) -> None:
        self.client = client
        self.service = service
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.passes = 0  # completed passes, for tests and logs
        service.games.end_listeners.append(lambda _game: self.poke())

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="fairypost-tournaments")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def poke(self) -> None:
        self._wake.set()

    async def _run(self) -> None:
        await self.client.wait_until_ready()
        clock = self.service.clock
        while True:
            self._wake.clear()
            try:
                await self.run_once()
                due = await self.service.next_due_at()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tournament pass failed; retrying in a minute")
                due = clock.now() + 60
            self.passes += 1
            delay = MAX_SLEEP if due is None else max(0.0, min(MAX_SLEEP, due - clock.now()))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay if delay > 0 else 0.05):
                    await self._wake.wait()

    async def run_once(self) -> None:
        await self.service.advance_all()
        for post in await self.service.storage.tournaments.pending_posts():
            await self._carry_out(post)

    async def _carry_out(self, post: Post) -> None:
        store = self.service.storage.tournaments
        now = self.service.clock.now()
        await store.post_failed(post.id, now, give_up=False)  # claim: one more attempt
        try:
            message_id = await self._send(post, retry=post.attempts > 0)
        except discord.HTTPException:
            log.warning("post %s (%s) failed", post.id, post.kind, exc_info=True)
            if post.attempts + 1 >= MAX_ATTEMPTS:
                log.error("post %s (%s) given up after %d tries", post.id, post.kind, MAX_ATTEMPTS)
                await store.post_failed(post.id, now, give_up=True)
            return
        await store.posted(post.id, self.service.clock.now(), message_id)

    # --- the posts -----------------------------------------------------------------------

    async def _send(self, post: Post, *, retry: bool) -> int | None:
        t = await self.service.storage.tournaments.get(post.tournament_id)
        marker = f"Tournament #{t.id} · {post.kind} {post.subject}"
        if post.kind == "game":
            return await self._game_thread(t.id, post.subject, t.channel_id, retry=retry)
        if post.kind in ("started", "cancelled"):
            await self._edit_signup(t.id)
        if post.kind == "cancelled":
            return None
        target = await self._thread_of(t.id, retry=retry)
        if target is None:
            return None
        if retry:
            found = await self._already_sent(target, marker)
            if found is not None:
                return found
        table = await self.service.table(t.id)
        if post.kind == "started":
            names = " ".join(mention(user) for user, _name in table.view.players)
            text = f"Sign-up is closed: {len(table.view.players)} players. Good luck, {names}!"
            return await self._send_table(target, table, text, marker)
        if post.kind == "round":
            return (await target.send(self._round_text(table, post.subject), embed=discord.Embed(
                description="Each game has its own thread in the tournament's channel.",
            ).set_footer(text=marker))).id  # fmt: skip
        if post.kind == "result":
            game = await self.service.games.view(post.subject)
            g = game.game
            result = g.result.value.replace("1/2", "½") if g.result else "aborted"
            where = f" in <#{g.thread_id}>" if g.thread_id else ""
            text = f"Result: {game.white_name} {result} {game.black_name}{where} ({game.status})."
            return await self._send_table(target, table, text, marker)
        if post.kind == "final":
            leaders = table.standings.leaders
            names = " and ".join(mention(r.entrant.id) for r in leaders)
            points = points_text(leaders[0].points) if leaders else "0"
            text = (
                f"🏆 **{t.name}** is over: {names} win{'s' if len(leaders) == 1 else ''} "
                f"with {points} points!" + (f" ({t.end_reason})" if t.end_reason else "")
            )
            return await self._send_table(target, table, text, marker)
        return None

    async def _send_table(
        self, target: discord.abc.Messageable, table: Table, text: str, marker: str
    ) -> int:
        picture = await self.service.picture(table)
        message = await target.send(
            content=text,
            embed=table_embed(table, marker=marker),
            file=discord.File(io.BytesIO(picture.png), filename=picture.filename),
        )
        return message.id

    @staticmethod
    def _round_text(table: Table, round_no: int) -> str:
        lines = [f"**Round {round_no}** pairings:"]
        for p in table.pairings:
            if p.round != round_no:
                continue
            if p.black is None:
                lines.append(f"{p.board}. {mention(p.white)} has the bye")
                continue
            game = table.games.get((p.round, p.board))
            suffix = f" — game #{game}" if game else " — scored without play (withdrawal)"
            lines.append(
                f"{p.board}. {mention(p.white)} (White) vs {mention(p.black)} (Black){suffix}"
            )
        text = "\n".join(lines)
        return text if len(text) <= 2000 else text[:1990] + "\n…"

    async def _edit_signup(self, tournament_id: int) -> None:
        t = await self.service.storage.tournaments.get(tournament_id)
        if t.message_id is None:
            return
        channel = await self._channel(t.channel_id)
        if channel is None:
            return
        view = await self.service.view(tournament_id)
        with contextlib.suppress(discord.HTTPException):
            message = channel.get_partial_message(t.message_id)  # type: ignore[attr-defined]
            await message.edit(embed=signup_embed(view), view=None)

    async def _thread_of(
        self, tournament_id: int, *, retry: bool
    ) -> discord.abc.Messageable | None:
        """The tournament's thread (created from the sign-up post the first time)."""
        t = await self.service.storage.tournaments.get(tournament_id)
        if t.thread_id is not None:
            return await self._channel(t.thread_id)
        channel = await self._channel(t.channel_id)
        if not isinstance(channel, discord.TextChannel):
            return channel
        name = f"🏆 {t.name}"[:100]
        thread: discord.Thread | None = None
        if retry:
            thread = await self._find_thread(channel, name)
        if thread is None:
            if t.message_id is not None:
                try:
                    thread = await channel.get_partial_message(t.message_id).create_thread(
                        name=name, auto_archive_duration=ARCHIVE_MINUTES
                    )
                except discord.HTTPException:
                    thread = None
            if thread is None:
                thread = await channel.create_thread(
                    name=name,
                    type=discord.ChannelType.public_thread,
                    auto_archive_duration=ARCHIVE_MINUTES,
                )
        await self.service.set_thread(tournament_id, thread.id)
        return thread

    async def _game_thread(
        self, tournament_id: int, game_id: int, channel_id: int, *, retry: bool
    ) -> int | None:
        games = self.service.games
        view = await games.view(game_id)
        if view.game.thread_id is not None:
            return None
        channel = await self._channel(channel_id)
        if not isinstance(channel, discord.TextChannel):
            return None
        round_no = (await self.service.storage.tournaments.of_game(game_id) or (0, 0))[1]
        name = f"#{game_id} R{round_no}: {view.white_name} vs {view.black_name}"[:100]
        thread = await self._find_thread(channel, name) if retry else None
        if thread is None:
            thread = await channel.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=ARCHIVE_MINUTES,
            )
        await games.attach_thread(game_id, thread.id)
        t = await self.service.storage.tournaments.get(tournament_id)
        picture = await games.render(view.scene)
        intro = (
            f"{mention(view.game.white_id)} (White) vs {mention(view.game.black_id)} (Black): "
            f"round {round_no} of **{t.name}**. Play with `/move` here."
        )
        await thread.send(
            content=intro,
            embed=game_embed(view),
            file=discord.File(io.BytesIO(picture.png), filename=picture.filename),
        )
        return None

    async def _find_thread(self, channel: discord.TextChannel, name: str) -> discord.Thread | None:
        try:
            threads = await channel.guild.active_threads()
        except discord.HTTPException:
            return None
        for thread in threads:
            if thread.parent_id == channel.id and thread.name == name:
                return thread
        return None

    async def _already_sent(self, target: discord.abc.Messageable, marker: str) -> int | None:
        """The id of a message with this post's marker among the channel's recent ones."""
        me = self.client.user
        try:
            async for message in target.history(limit=30):
                if me is not None and message.author.id != me.id:
                    continue
                if any(e.footer.text == marker for e in message.embeds):
                    return message.id
        except discord.HTTPException:
            return None
        return None

    async def _channel(self, channel_id: int) -> discord.abc.Messageable | None:
        channel = self.client.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.client.fetch_channel(channel_id)
            except discord.HTTPException:
                return None
        if isinstance(channel, discord.Thread) and channel.archived:
            with contextlib.suppress(discord.HTTPException):
                await channel.edit(archived=False)
        return channel if isinstance(channel, discord.abc.Messageable) else None
