"""The Discord side of tournament effects: the posts that tournament events set off.

`bot.service.tournaments` records them (see its docstring for which event records which);
each handler here reads what to show from the service and posts through `EffectRun.post`,
like every post of `bot.announce`: the message carries a nonce derived from the effect and
its id is remembered before the effect is marked done, so a restart never doubles a post.
The tournament's thread is opened from its sign-up post, and a game's thread from the
game's post in the channel (`tournament.game`; `game.started` then opens the thread and
posts the board): Discord allows one thread per message, so opening it again finds the
first one. Edits (the sign-up post when sign-up closes) are idempotent by nature.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Awaitable, Callable, Sequence

import discord

from bot.announce import THREAD_ARCHIVE_MINUTES, THREAD_EXISTS, Poster, channel_of
from bot.service import tournaments as events
from bot.service.effects import EffectRegistry, EffectRun, GiveUp
from bot.service.models import Picture
from bot.service.tournaments import Table, TournamentService, tournament_of
from bot.ui import tournaments as ui
from bot.ui.format import NO_PINGS, pings
from storage.errors import GameNotFoundError
from storage.models import Tournament

log = logging.getLogger("fairypost.tournaments")


def install(registry: EffectRegistry, client: discord.Client, service: TournamentService) -> None:
    """Registers the handlers of the tournament posts (`bot.service.tournaments` records
    them)."""
    bot = TournamentPoster(client, service)
    handlers: dict[str, Callable[[TournamentPoster, EffectRun], Awaitable[None]]] = {
        events.STARTED: post_started,
        events.ROUND: post_round,
        events.GAME: post_game,
        events.RESULT: post_result,
        events.WITHDRAWAL: post_withdrawal,
        events.DEADLINE_PASSED: post_deadline,
        events.FINAL: post_final,
        events.CANCELLED: edit_cancelled,
    }
    for kind, handler in handlers.items():
        registry.register(kind, _bound(bot, handler))


def _bound(
    bot: TournamentPoster, handler: Callable[[TournamentPoster, EffectRun], Awaitable[None]]
) -> Callable[[EffectRun], Awaitable[None]]:
    async def run(effect_run: EffectRun) -> None:
        await handler(bot, effect_run)

    return run


class TournamentPoster(Poster):
    def __init__(self, client: discord.Client, service: TournamentService) -> None:
        super().__init__(client, service.games, lambda view: None)
        self.tournaments = service


async def tournament_thread(bot: TournamentPoster, t: Tournament) -> discord.abc.Messageable:
    """The tournament's thread, opened from its sign-up post the first time (a repeat finds
    the same thread: its id is the post's) and remembered. Without a sign-up post (or where
    threads cannot be opened) the posts go to the channel itself."""
    if t.thread_id is not None:
        return await channel_of(bot, t.thread_id)
    parent = await channel_of(bot, t.channel_id)
    if t.message_id is None or not isinstance(parent, discord.TextChannel):
        return parent
    name = f"🏆 {t.name}"[:100]
    try:
        thread = await parent.get_partial_message(t.message_id).create_thread(
            name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
        )
        thread_id = thread.id
    except discord.NotFound:
        log.info("tournament %s: its sign-up post is gone; posting in the channel", t.id)
        return parent
    except discord.HTTPException as exc:
        if exc.code != THREAD_EXISTS:
            raise
        thread_id = t.message_id
    t = await bot.tournaments.set_thread(t.id, thread_id)
    assert t.thread_id is not None
    return await channel_of(bot, t.thread_id)


async def _tournament(bot: TournamentPoster, run: EffectRun) -> Tournament:
    return await bot.tournaments.storage.tournaments.get(tournament_of(run))


async def _post_table(
    bot: TournamentPoster,
    run: EffectRun,
    t: Tournament,
    text: str,
    table: Table | None = None,
    *,
    pinged: Sequence[int] = (),
) -> None:
    """`text` with the standings (text and crosstable picture) in the tournament's thread;
    it pings the players `pinged` and nobody else."""
    if run.posted:
        return
    target = await tournament_thread(bot, t)
    table = table or await bot.tournaments.table(t.id)
    picture = await bot.tournaments.picture(table)

    async def send(nonce: str) -> tuple[int, int]:
        message = await target.send(
            content=text,
            embed=ui.table_embed(table),
            file=_file(picture),
            nonce=nonce,
            allowed_mentions=pings(*pinged),
        )
        return message.channel.id, message.id

    await run.post(send)
    log.info("tournament %s: %s posted", t.id, run.effect.kind)


def _file(picture: Picture) -> discord.File:
    return discord.File(
        io.BytesIO(picture.png), filename=picture.filename, description=picture.description or None
    )


async def _edit_signup(bot: TournamentPoster, t: Tournament) -> None:
    """The sign-up post shows the tournament's state, without its buttons once closed."""
    if t.message_id is None:
        return
    channel = await channel_of(bot, t.channel_id)
    view = await bot.tournaments.view(t.id)
    message = channel.get_partial_message(t.message_id)  # type: ignore[attr-defined]
    try:
        await message.edit(embed=ui.signup_embed(view), view=None)
    except discord.NotFound:
        log.info("tournament %s: its sign-up post is gone", t.id)


# --- the handlers ---------------------------------------------------------------------------


async def post_started(bot: TournamentPoster, run: EffectRun) -> None:
    t = await _tournament(bot, run)
    await tournament_thread(bot, t)  # first: the sign-up post then links it
    t = await bot.tournaments.storage.tournaments.get(t.id)
    await _edit_signup(bot, t)
    view = await bot.tournaments.view(t.id)
    players = [user_id for user_id, _name in view.players]
    await _post_table(bot, run, t, ui.started_text(view), pinged=players)


async def edit_cancelled(bot: TournamentPoster, run: EffectRun) -> None:
    await _edit_signup(bot, await _tournament(bot, run))


async def post_round(bot: TournamentPoster, run: EffectRun) -> None:
    round_no = run.effect.payload.get("round")
    if not isinstance(round_no, int):
        raise GiveUp("a round's post without its round")
    if run.posted:
        return
    t = await _tournament(bot, run)
    target = await tournament_thread(bot, t)
    text = ui.round_text(await bot.tournaments.table(t.id), round_no)

    async def send(nonce: str) -> tuple[int, int]:
        message = await target.send(text, nonce=nonce, allowed_mentions=NO_PINGS)
        return message.channel.id, message.id

    await run.post(send)


async def post_game(bot: TournamentPoster, run: EffectRun) -> None:
    """A tournament game's post in the tournament's channel, remembered as the game's
    message: `game.started` opens the game's thread from it."""
    game_id = run.effect.game_id
    if game_id is None:
        raise GiveUp("a tournament game's post without its game")
    try:
        game = await bot.service.storage.games.get(game_id)
    except GameNotFoundError as exc:
        raise GiveUp(str(exc)) from exc
    if game.thread_id is not None or (game.message_id is not None and not run.posted):
        return  # its thread exists already (a database from before the outbox)
    t = await _tournament(bot, run)
    channel = await channel_of(bot, game.channel_id)
    board = await bot.tournaments.storage.tournaments.board_of(game.id)
    text = ui.game_post_text(await bot.tournaments.view(t.id), game, board.round if board else 0)

    async def send(nonce: str) -> tuple[int, int]:
        message = await channel.send(
            text, nonce=nonce, allowed_mentions=pings(game.white_id, game.black_id)
        )
        return message.channel.id, message.id

    _channel_id, message_id = await run.post(send)
    await bot.service.storage.games.set_message(game.id, message_id)


async def post_result(bot: TournamentPoster, run: EffectRun) -> None:
    game_id = run.effect.game_id
    if game_id is None:
        raise GiveUp("a result's post without its game")
    if run.posted:
        return
    t = await _tournament(bot, run)
    view = await bot.service.view(game_id)
    text = ui.result_text(view.white_name, view.black_name, view.game, view.status)
    await _post_table(bot, run, t, text)


async def post_withdrawal(bot: TournamentPoster, run: EffectRun) -> None:
    payload = run.effect.payload
    user_id, games = payload.get("user_id"), payload.get("games", [])
    if not isinstance(user_id, int) or not isinstance(games, list):
        raise GiveUp("a withdrawal's post without its player")
    t = await _tournament(bot, run)
    text = ui.withdrawal_text(user_id, [g for g in games if isinstance(g, int)], t.swiss)
    await _post_table(bot, run, t, text, pinged=[user_id])


async def post_deadline(bot: TournamentPoster, run: EffectRun) -> None:
    payload = run.effect.payload
    round_no, games = payload.get("round"), payload.get("games", [])
    if not isinstance(round_no, int) or not isinstance(games, list):
        raise GiveUp("a deadline's post without its round")
    t = await _tournament(bot, run)
    text = ui.deadline_text(round_no, [g for g in games if isinstance(g, int)])
    await _post_table(bot, run, t, text)


async def post_final(bot: TournamentPoster, run: EffectRun) -> None:
    t = await _tournament(bot, run)
    with contextlib.suppress(discord.HTTPException):
        await _edit_signup(bot, t)  # the sign-up post says it is over
    table = await bot.tournaments.table(t.id)
    winners = [row.entrant.id for row in table.standings.leaders]
    await _post_table(bot, run, t, ui.final_text(table), table, pinged=winners)
