"""The Discord side of a server's variant: the announcement of each new version.

`/variant define` stores the version and its announcement in one transaction (the effect
`variant.announce`, `bot.service.variants.on_defined`); this handler posts it in the channel
where the variant was defined, once, through `EffectRun.post` like every post of
`bot.announce`: the rules, the start position and a diagram of each new piece, fitted to
Discord's limits however long the author's texts are.
"""

from __future__ import annotations

import dataclasses
import io
import logging

import discord

from bot.announce import Poster, channel_of
from bot.service.effects import EffectRegistry, EffectRun, GiveUp
from bot.service.games import GameService
from bot.service.models import Picture
from bot.service.variants import ANNOUNCE
from bot.ui.embeds import defined_embed, piece_embed
from bot.ui.fit import fit_embeds
from bot.ui.format import NO_PINGS

log = logging.getLogger("fairypost.variants")

MAX_DIAGRAMS = 9
"""Piece diagrams under a definition: with the board, Discord's 10 files and embeds."""


def install(registry: EffectRegistry, client: discord.Client, service: GameService) -> None:
    bot = Poster(client, service, lambda view: None)

    async def announce(run: EffectRun) -> None:
        await post_announcement(bot, run)

    registry.register(ANNOUNCE, announce)


def _file(picture: Picture) -> discord.File:
    return discord.File(
        io.BytesIO(picture.png), filename=picture.filename, description=picture.description or None
    )


async def post_announcement(bot: Poster, run: EffectRun) -> None:
    payload = run.effect.payload
    guild_id, variant_id = payload.get("guild_id"), payload.get("variant_id")
    version, channel_id = payload.get("version"), payload.get("channel_id")
    if not (
        isinstance(guild_id, int)
        and isinstance(variant_id, str)
        and isinstance(version, int)
        and isinstance(channel_id, int)
    ):
        raise GiveUp("a variant's announcement without its variant or channel")
    if run.posted:
        return
    service = bot.service
    try:
        defined = await service.variants.announcement(guild_id, variant_id, version)
    except LookupError as exc:
        raise GiveUp(str(exc)) from exc
    board = await service.render(defined.rules.scene)
    files = [_file(board)]
    embeds = [defined_embed(defined)]
    name = defined.rules.variant.name
    for i, info in enumerate(defined.new_pieces[:MAX_DIAGRAMS]):
        diagram = await service.render_piece(defined.variant, info.id)
        filename = f"piece-{i}.png"
        files.append(_file(dataclasses.replace(diagram, filename=filename)))
        embed = piece_embed(info, name)
        embed.set_image(url=f"attachment://{filename}")
        embeds.append(embed)
    channel = await channel_of(bot, channel_id)

    async def send(nonce: str) -> tuple[int, int]:
        message = await channel.send(
            embeds=fit_embeds(embeds), files=files, nonce=nonce, allowed_mentions=NO_PINGS
        )
        return message.channel.id, message.id

    await run.post(send)
    log.info("variant %s@%s version %s announced", variant_id, guild_id, version)
