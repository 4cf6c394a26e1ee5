"""/analyze: the engine's review of a game (marks, a summary, an evaluation graph)."""

from __future__ import annotations

import contextlib
import io
import logging
import time
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import Fairy, answered, defer_first, fairy, install, picture_file
from bot.service.analysis import AnalysisService
from bot.ui.analysis import review_embed

log = logging.getLogger("fairypost.analysis")

ANSWER_SECONDS = 13 * 60
"""How long after the command a review is still sent as the interaction's answer (Discord
keeps its token 15 minutes); later, or if that fails, it is posted through the outbox."""


class Analysis(commands.Cog):
    def __init__(self, bot: Fairy) -> None:
        self.bot = bot
        # Reviews run in the client's own review process (none in tests: a thread).
        self.service = AnalysisService(bot.service, pool=getattr(bot, "reviews", None))

    @app_commands.command(
        name="analyze",
        description="The engine reviews a finished game: marks (?, ??, !) and a graph",
    )
    @app_commands.describe(game="The game number (only needed outside the game's thread)")
    async def analyze(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        # A review takes seconds to a minute: acknowledge first.
        await defer_first(interaction)
        asked = time.monotonic()
        me = interaction.client.user

        async def queued(ahead: int) -> None:
            reviews = "review" if ahead == 1 else "reviews"
            with contextlib.suppress(discord.HTTPException):
                await interaction.followup.send(
                    f"Queued: {ahead} {reviews} ahead of yours (one runs at a time). The "
                    "answer comes here, or as a post in this channel if it takes longer "
                    "than Discord keeps this command open.",
                    ephemeral=True,
                )

        review = await self.service.review(
            channel_id=interaction.channel_id or 0,
            game_id=game,
            engine_ids=(me.id,) if me is not None else (),
            guild_id=interaction.guild_id,
            user_id=interaction.user.id,
            queued=queued,
        )
        if time.monotonic() - asked < ANSWER_SECONDS:
            record = discord.File(
                io.BytesIO(review.record.text.encode()), filename=review.record.filename
            )
            try:
                await interaction.followup.send(
                    embed=review_embed(review), files=[record, picture_file(review.graph)]
                )
                answered(interaction)
                return
            except discord.HTTPException as exc:  # the token expired meanwhile (401), ...
                log.warning("review of game %s: the answer failed (%s), posting it", game, exc)
        await self.service.post_later(review, interaction.channel_id or 0)
        answered(interaction)


async def setup(bot: commands.Bot) -> None:
    await install(bot, Analysis(fairy(bot)))
