"""The Discord side of a review that outlived its interaction: `/analyze` answers in the
interaction while its token lives (15 minutes); a review that finishes later (queued behind
others, or long) is recorded in the outbox (`bot.service.analysis.POST`) and posted here,
once, in the channel or thread where it was asked for."""

from __future__ import annotations

import io
import logging

import discord

from bot.announce import Poster, channel_of
from bot.service.analysis import POST, review_of
from bot.service.effects import EffectRegistry, EffectRun, GiveUp
from bot.service.games import GameService
from bot.ui.analysis import review_embed
from bot.ui.format import NO_PINGS

log = logging.getLogger("fairypost.analysis")


def install(registry: EffectRegistry, client: discord.Client, service: GameService) -> None:
    bot = Poster(client, service, lambda view: None)

    async def post(run: EffectRun) -> None:
        await post_review(bot, run)

    registry.register(POST, post)


async def post_review(bot: Poster, run: EffectRun) -> None:
    payload = run.effect.payload
    channel_id = payload.get("channel_id")
    if not isinstance(channel_id, int):
        raise GiveUp("a review without its channel")
    if run.posted:
        return
    try:
        review = review_of(payload)
    except (KeyError, TypeError, ValueError) as exc:
        raise GiveUp(f"a review that does not read: {exc}") from exc
    channel = await channel_of(bot, channel_id)

    async def send(nonce: str) -> tuple[int, int]:
        record = discord.File(
            io.BytesIO(review.record.text.encode()), filename=review.record.filename
        )
        graph = discord.File(
            io.BytesIO(review.graph.png),
            filename=review.graph.filename,
            description=review.graph.description or None,
        )
        message = await channel.send(
            embed=review_embed(review),
            files=[record, graph],
            nonce=nonce,
            allowed_mentions=NO_PINGS,
        )
        return message.channel.id, message.id

    await run.post(send)
    log.info("review of game %s posted in %s", review.game_id, channel_id)
