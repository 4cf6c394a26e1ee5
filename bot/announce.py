"""The Discord side of effects: the posts that game events set off.

Each handler reads what to show from the service (`bot.service.consequences`), draws the
board in a worker thread and posts through `EffectRun.post`: the message carries a nonce
derived from the effect (Discord hands back the first message when a nonce repeats) and its
id is remembered before the effect is marked done, so a post is never doubled by a restart.
Posts go to the game's thread (created by `game.started`), or by DM for players who asked
for DMs; a DM that Discord refuses falls back to a mention in the thread. Messages in the
thread also keep it from being archived.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Callable
from typing import Literal

import discord

from bot.service import consequences
from bot.service.conditional import DROPPED
from bot.service.consequences import DigestNotice, GameEvent, digest, game_event, notice
from bot.service.effects import EffectRegistry, EffectRun, GiveUp
from bot.service.games import GameService
from bot.service.models import GameView, engine_credit
from bot.service.offer_posts import OfferPostService
from bot.ui.embeds import (
    challenge_embed,
    game_embed,
    rating_lines,
    settled_offer_text,
    to_move_mention,
)
from bot.ui.fit import fit_content
from bot.ui.format import (
    NO_PINGS,
    count,
    deadline,
    mention,
    pings,
    plain,
    shown,
)
from storage.models import Color, Termination

log = logging.getLogger("fairypost.announce")
THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080  # a week: correspondence games are slow
THREAD_EXISTS = 160004  # "A thread has already been created for this message"


BoardButtons = Callable[[GameView], "discord.ui.View | None"]
"""The buttons under a board (the Move button of `bot.cogs.boards`), given by the client."""


def install(
    registry: EffectRegistry,
    client: discord.Client,
    service: GameService,
    buttons: BoardButtons = lambda view: None,
) -> None:
    """Registers the handlers of the posts (`bot.service.consequences` records them)."""
    bot = Poster(client, service, buttons)

    async def game_post(run: EffectRun) -> None:
        await post_game_event(bot, run)

    async def notice_post(run: EffectRun) -> None:
        await post_notice(bot, run)

    async def challenge_expired(run: EffectRun) -> None:
        await edit_expired_challenge(bot, run)

    async def replay_post(run: EffectRun) -> None:
        await post_replay(bot, run)

    for kind in consequences.GAME_POSTS:
        registry.register(kind, game_post)
    registry.register(consequences.REPLAY, replay_post)
    registry.register(consequences.NOTICE, notice_post)

    async def digest_post(run: EffectRun) -> None:
        await post_digest(bot, run)

    registry.register(consequences.DIGEST, digest_post)

    async def conditional_dropped(run: EffectRun) -> None:
        await post_conditional_dropped(bot, run)

    registry.register(DROPPED, conditional_dropped)
    registry.register(consequences.CHALLENGE_EXPIRED, challenge_expired)


class Poster:
    """The client and the service, as the handlers use them."""

    def __init__(self, client: discord.Client, service: GameService, buttons: BoardButtons) -> None:
        self.client = client
        self.service = service
        self.buttons = buttons

    def get_channel(self, channel_id: int) -> object:
        return self.client.get_channel(channel_id)

    async def fetch_channel(self, channel_id: int) -> object:
        return await self.client.fetch_channel(channel_id)

    def get_user(self, user_id: int) -> discord.User | None:
        return self.client.get_user(user_id)

    async def fetch_user(self, user_id: int) -> discord.User:
        return await self.client.fetch_user(user_id)


def thread_name(event: GameEvent) -> str:
    """`Chess: Ann vs Bob`, or for a tournament game `Club Cup · R2: Ann vs Bob`."""
    view, tag = event.view, event.tournament
    what = f"{tag.name} · R{tag.round}" if tag is not None else view.variant.name
    return plain(f"{what}: {view.white_name} vs {view.black_name}")[:100]


async def channel_of(bot: Poster, channel_id: int | None) -> discord.abc.Messageable:
    """The channel or thread, unarchived; raises (so the effect is retried) if Discord
    cannot give it."""
    if channel_id is None:
        raise GiveUp("no channel to post in")
    channel = bot.get_channel(channel_id)
    if channel is None:
        channel = await bot.fetch_channel(channel_id)
    if isinstance(channel, discord.Thread) and channel.archived:
        with contextlib.suppress(discord.HTTPException):
            await channel.edit(archived=False)
    if not isinstance(channel, discord.abc.Messageable):
        raise GiveUp(f"channel {channel_id} cannot hold messages")
    return channel


async def open_thread(bot: Poster, event: GameEvent) -> int:
    """The game's thread: started from the challenge's post when it is known (Discord allows
    one thread per message, so a repeat finds the first one: its id is the message's), else
    a new thread in the channel. Remembered on the game at once; a thread started from the
    post is remembered before it exists (its id is the post's), so a player's first /move in
    it finds the game however fast it comes."""
    game = event.view.game
    if game.thread_id is not None and game.thread_id != game.message_id:
        return game.thread_id
    name = thread_name(event)
    parent = await channel_of(bot, game.channel_id)
    thread_id: int
    if game.message_id is not None and isinstance(parent, discord.TextChannel):
        thread_id = game.message_id
        if game.thread_id is None:
            await bot.service.attach_thread(game.id, thread_id)
        try:
            await parent.get_partial_message(game.message_id).create_thread(
                name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
            )
        except discord.HTTPException as exc:
            if exc.code != THREAD_EXISTS:
                await bot.service.attach_thread(game.id, None)  # no thread after all
                raise
        return thread_id
    if isinstance(parent, discord.TextChannel):
        thread = await parent.create_thread(
            name=name,
            auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            type=discord.ChannelType.public_thread,
        )
        thread_id = thread.id
    else:
        return game.channel_id  # no threads here: the game is played in the channel itself
    await bot.service.attach_thread(game.id, thread_id)
    return thread_id


async def link_challenge(bot: Poster, event: GameEvent, thread_id: int) -> None:
    """Points the accepted challenge's post at the game's thread (an edit: idempotent)."""
    game = event.view.game
    if game.challenge_id is None or game.message_id is None or thread_id == game.channel_id:
        return
    challenge = await bot.service.storage.challenges.get(game.challenge_id)
    who = await bot.service.name_of(challenge.resolved_by) if challenge.resolved_by else "?"
    channel = await channel_of(bot, game.channel_id)
    message = channel.get_partial_message(game.message_id)  # type: ignore[attr-defined]
    try:
        await message.edit(
            content=f"Accepted by {shown(who)}: the game goes on in <#{thread_id}>.",
            allowed_mentions=NO_PINGS,
        )
    except discord.NotFound:
        log.info("game %s: the challenge's post is gone", game.id)


def headline(event: GameEvent) -> str | None:
    who = shown(event.actor_name) if event.actor_name else "A player"
    if event.kind == consequences.MOVED or event.notation is not None:
        note = " *(conditional move)*" if event.conditional else ""
        if event.engine is not None:
            note = f" *({engine_credit(event.view.game.engine_level, event.engine)})*"
        return f"{who} played **{event.notation}**{note}"
    if event.kind == consequences.TAKEBACK:
        return f"{who} accepted the takeback."
    if event.kind != consequences.ENDED:
        return None
    termination = event.view.game.termination
    if event.view.game.decided_by is not None:  # a moderator's decision (/mod)
        verb = "adjudicated" if termination is Termination.ADJUDICATION else "cancelled"
        return f"{who}, a moderator, {verb} the game."
    return (
        {
            Termination.RESIGNATION: f"{who} resigned.",
            Termination.AGREEMENT: "Draw agreed.",
            Termination.TIMEOUT: "The deadline passed.",
            Termination.ABORTED: f"{who} aborted the game.",
            Termination.ADJUDICATION: "The game was adjudicated.",
        }.get(termination)
        if termination is not None
        else f"{who} aborted the game."
    )


def content(event: GameEvent) -> str:
    view = event.view
    g = view.game
    if event.kind == consequences.STARTED:
        tag = event.tournament
        where = f" Round {tag.round} of **{shown(tag.name)}**." if tag is not None else ""
        # A variant that Black opens says so: players expect White to begin.
        first = " Black moves first." if g.ply_count == 0 and g.turn is Color.BLACK else ""
        return (
            f"{mention(g.white_id)} (White) vs {mention(g.black_id)} (Black): "
            f"the game begins!{where}{first} Play with `/move` here."
        )
    if event.kind == consequences.ENDED:
        text = f"{to_move_mention(view)} — **{shown(view.status)}**"
        if event.rating_changes:
            names = {g.white_id: view.white_name, g.black_id: view.black_name}
            text += "\n" + rating_lines(event.rating_changes, names)
        return text
    if event.answered:
        return ""  # the conditional answer's post follows: nobody is asked to move here
    if g.engine_to_move:
        engine = view.white_name if g.engine_id == g.white_id else view.black_name
        return f"{shown(engine)} is thinking…"
    return f"{to_move_mention(view)}, your move."


def pinged(event: GameEvent) -> list[int]:
    """The players `content(event)` mentions, whom its post may ping: both at the start and
    the end, the player to move after a move (nobody while the engine thinks)."""
    g = event.view.game
    if event.kind in (consequences.STARTED, consequences.ENDED) or not g.is_active:
        return [g.white_id, g.black_id]
    if event.answered or g.engine_to_move or not event.ping_to_move:
        return []  # nobody asked to move, or the player hears of it otherwise (notices)
    return [g.player_id(g.turn)]


async def post_game_event(bot: Poster, run: EffectRun) -> None:
    event = await game_event(bot.service, run)
    if event is None:
        return
    if run.effect.game_id is not None and event.kind != consequences.STARTED:
        # A move, takeback or ending settles pending offers: their posts say so first.
        await settle_offer_posts(bot, run.effect.game_id)
    if run.posted:
        return
    if event.kind == consequences.STARTED:
        channel_id = await open_thread(bot, event)
        await link_challenge(bot, event, channel_id)
    else:
        game = event.view.game
        channel_id = game.thread_id or game.channel_id
    channel = await channel_of(bot, channel_id)
    # The board is drawn with the piece set of the player who must read it to move.
    scene = event.view.scene
    g = event.view.game
    to_move = (g.white_id if scene.position.side == 0 else g.black_id) if g.is_active else None
    picture = await bot.service.render(scene, viewer=to_move)

    buttons = bot.buttons(event.view) if event.view.game.is_active else None

    async def send(nonce: str) -> tuple[int, int]:
        message = await channel.send(
            content=fit_content(content(event)) or None,
            allowed_mentions=pings(*pinged(event)),
            embed=game_embed(event.view, headline=headline(event)),
            file=discord.File(
                io.BytesIO(picture.png),
                filename=picture.filename,
                description=picture.description or None,
            ),
            view=buttons or discord.utils.MISSING,
            nonce=nonce,
        )
        return message.channel.id, message.id

    await run.post(send)
    log.info(
        "game %s: %s posted (ply %s)", event.view.game.id, event.kind, event.view.game.ply_count
    )


async def settle_offer_posts(bot: Poster, game_id: int | None = None) -> None:
    """Posts of draw offers and takeback requests that a move, a takeback or the game's end
    settled lose their buttons and say what happened (of one game, or of all). Editing is
    idempotent: a repeat sets the same text again."""
    posts = OfferPostService(bot.service)
    for post in await posts.to_settle(game_id):
        try:
            channel = await channel_of(bot, post.channel_id)
            message = channel.get_partial_message(post.message_id)  # type: ignore[attr-defined]
            await message.edit(
                content=settled_offer_text(post), view=None, allowed_mentions=NO_PINGS
            )
        except discord.NotFound:
            log.info("the post of %s %s is gone; nothing to update", post.kind, post.request_id)
        await posts.settled(post.kind, post.request_id)


async def post_replay(bot: Poster, run: EffectRun) -> None:
    """After a game's last post: the whole game as an animated picture."""
    game_id = run.effect.game_id
    if game_id is None or run.posted:
        return
    animation = await bot.service.replay(game_id)
    if animation is None:
        return
    game = await bot.service.storage.games.get(game_id)
    channel = await channel_of(bot, game.thread_id or game.channel_id)

    async def send(nonce: str) -> tuple[int, int]:
        message = await channel.send(
            content=f"🎞 Game #{game_id}, move by move ({count(animation.plies, 'ply', 'plies')}).",
            file=discord.File(
                io.BytesIO(animation.data),
                filename=animation.filename,
                description=animation.description or None,
            ),
            nonce=nonce,
        )
        return message.channel.id, message.id

    await run.post(send)


async def post_notice(bot: Poster, run: EffectRun) -> None:
    note = await notice(bot.service, run)
    if note is None or run.posted:
        return
    g = note.game
    where = f"<#{g.thread_id}>" if g.thread_id else f"game #{g.id}"
    versus = f"{shown(note.variant_name)} vs {shown(note.opponent_name)}"
    if note.reminder:
        text = f"⏰ Reminder: your move in {where} ({versus}) is due {deadline(g.deadline_at)}."
    else:
        text = f"Your turn in {where} ({versus})." + (
            f" Deadline {deadline(g.deadline_at)}." if g.deadline_at else ""
        )
    if not note.via_dm and not note.reminder and not note.held:
        return  # the move's own post in the thread already pinged the player

    async def send(nonce: str) -> tuple[int, int]:
        if note.via_dm:
            try:
                user = bot.get_user(note.user_id) or await bot.fetch_user(note.user_id)
                message = await user.send(text, nonce=nonce, allowed_mentions=NO_PINGS)
                return message.channel.id, message.id
            except discord.Forbidden:
                log.info("DM to %s refused; mentioning in the thread instead", note.user_id)
        channel = await channel_of(bot, g.thread_id or g.channel_id)
        message = await channel.send(
            f"{mention(note.user_id)} {text}", nonce=nonce, allowed_mentions=pings(note.user_id)
        )
        return message.channel.id, message.id

    await run.post(send)


DIGEST_LINES = 10
"""Games listed by name in a digest; more are counted (and /games lists them all)."""


def digest_text(note: DigestNotice) -> str:
    """`📬 Your move in 4 games:` then one line per game: its thread, the variant and the
    opponent, the deadline. Within Discord's 2,000 characters whatever the names."""
    n = len(note.games)
    lines = [f"📬 Your move in {count(n, 'game')}:"]
    for s in note.games[:DIGEST_LINES]:
        g = s.game
        where = f"<#{g.thread_id}>" if g.thread_id else f"game #{g.id}"
        clock = f", due {deadline(g.deadline_at)}" if g.deadline_at else ""
        versus = f"{shown(s.variant_name)} vs {shown(s.opponent_name)}"
        lines.append(f"• {where} {versus}{clock}")
    if n > DIGEST_LINES:
        lines.append(f"…and {n - DIGEST_LINES} more: /games lists them all.")
    lines.append("-# Your daily digest (/settings changes it).")
    return fit_content("\n".join(lines))


async def post_digest(bot: Poster, run: EffectRun) -> None:
    """The daily digest, by direct message; should Discord refuse it, a mention in the
    thread of the game whose deadline comes first."""
    note = await digest(bot.service, run)
    if note is None or run.posted:
        return
    text = digest_text(note)
    first = note.games[0].game

    async def send(nonce: str) -> tuple[int, int]:
        try:
            user = bot.get_user(note.user_id) or await bot.fetch_user(note.user_id)
            message = await user.send(text, nonce=nonce, allowed_mentions=NO_PINGS)
            return message.channel.id, message.id
        except discord.Forbidden:
            log.info("digest DM to %s refused; mentioning in a thread instead", note.user_id)
        channel = await channel_of(bot, first.thread_id or first.channel_id)
        message = await channel.send(
            fit_content(f"{mention(note.user_id)} {text}"),
            nonce=nonce,
            allowed_mentions=pings(note.user_id),
        )
        return message.channel.id, message.id

    await run.post(send)
    log.info("digest of %s posted (%d games)", note.user_id, len(note.games))


async def post_conditional_dropped(bot: Poster, run: EffectRun) -> None:
    """A player's conditional moves were dropped for a reason they should hear (an answer
    that could not be played): told privately, by DM. If Discord refuses the DM, a mention
    in the game's thread says so without naming any move (they stay the player's secret)."""
    payload = run.effect.payload
    user_id, reason = payload.get("user_id"), payload.get("reason")
    if run.effect.game_id is None or not isinstance(user_id, int):
        raise GiveUp("a conditional notice without a game or a player")
    if run.posted:
        return
    g = await bot.service.storage.games.get(run.effect.game_id)
    where = f"<#{g.thread_id}>" if g.thread_id else f"game #{g.id}"
    your_move = " It is your move." if g.is_active and g.to_move_id == user_id else ""
    text = fit_content(f"Your conditional moves in {where} were dropped: {reason}.{your_move}")

    async def send(nonce: str) -> tuple[int, int]:
        try:
            user = bot.get_user(user_id) or await bot.fetch_user(user_id)
            message = await user.send(text, nonce=nonce, allowed_mentions=NO_PINGS)
            return message.channel.id, message.id
        except discord.Forbidden:
            log.info("DM to %s refused; a move-less notice in the thread instead", user_id)
        channel = await channel_of(bot, g.thread_id or g.channel_id)
        message = await channel.send(
            f"{mention(user_id)}, your conditional moves in this game were dropped: one of "
            f"your answers could not be played.{your_move}",
            nonce=nonce,
            allowed_mentions=pings(user_id),
        )
        return message.channel.id, message.id

    await run.post(send)


async def edit_expired_challenge(bot: Poster, run: EffectRun) -> None:
    """Editing is idempotent: a repeat only sets the same embed again."""
    challenge_id = run.effect.payload.get("challenge_id")
    if not isinstance(challenge_id, int):
        raise GiveUp("no challenge id")
    view = await bot.service.challenge_view(challenge_id)
    c = view.challenge
    if c.message_id is None:
        return
    channel = await channel_of(bot, c.channel_id)
    message = channel.get_partial_message(c.message_id)  # type: ignore[attr-defined]
    try:
        await message.edit(
            content="This challenge expired: nobody took it in time.",
            embed=challenge_embed(view, with_image=False),
            view=None,
            attachments=[],
        )
    except discord.NotFound:
        log.info("challenge %s: its post is gone; nothing to update", c.id)
