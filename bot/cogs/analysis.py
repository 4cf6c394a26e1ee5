"""/analyze: the engine's review of a game (marks, a summary, an evaluation graph)."""

from __future__ import annotations

import io
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import Fairy, answered, defer_first, fairy, install, picture_file
from bot.service.analysis import AnalysisService
from bot.ui.analysis import review_embed


class Analysis(commands.Cog):
    def __init__(self, bot: Fairy) -> None:
        self.bot = bot
        self.service = AnalysisService(bot.service)

    @app_commands.command(
        name="analyze",
        description="The engine reviews a finished game: marks (?, ??, !) and a graph",
    )
    @app_commands.describe(game="The game number (only needed outside the game's thread)")
    async def analyze(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        # A review takes seconds to a minute: acknowledge first.
        await defer_first(interaction)
        me = interaction.client.user
        review = await self.service.review(
            channel_id=interaction.channel_id or 0,
            game_id=game,
            engine_ids=(me.id,) if me is not None else (),
            guild_id=interaction.guild_id,
            user_id=interaction.user.id,
        )
        record = discord.File(
            io.BytesIO(review.record.text.encode()), filename=review.record.filename
        )
        await interaction.followup.send(
            embed=review_embed(review), files=[record, picture_file(review.graph)]
        )
        answered(interaction)


async def setup(bot: commands.Bot) -> None:
    await install(bot, Analysis(fairy(bot)))
