"""/conditional add, list and clear: answers left in advance for the opponent's moves.

Every reply is ephemeral: conditional moves are their owner's secret until they are played
(the service plays them from `GameService.play`, in the opponent's move's transaction).
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import Fairy, fairy, install, user_ref
from bot.service.conditional import MAX_LINE_CHARS, ConditionalService
from bot.ui.conditional import DESCRIPTION_LIMIT, added_headline, tree_embed
from bot.ui.fit import fit_embeds

MAX_EMBEDS = 5
EMBEDS_TOTAL = 5000  # Discord allows 6000 characters over all the embeds of a message
GAME = "The game number (only needed outside the game's thread)"
LINE = (
    "Their expected move, your answer, their next move, your answer… "
    "e.g. e7-e5 Ng1-f3 Nb8-c6 Bf1-b5"
)


class Conditional(commands.GroupCog, group_name="conditional"):
    """Answers left in advance: "if they play this, I answer that"."""

    def __init__(self, bot: Fairy) -> None:
        self.bot = bot
        self.service = ConditionalService(bot.service)

    @app_commands.command(
        name="add", description="Leave answers to your opponent's next moves (only you see them)"
    )
    @app_commands.describe(line=LINE, game=GAME)
    async def add(
        self,
        interaction: discord.Interaction[Any],
        line: app_commands.Range[str, 1, MAX_LINE_CHARS],
        game: int | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        added = await self.service.add(
            channel_id=interaction.channel_id or 0,
            user=user_ref(interaction.user),
            text=line,
            game_id=game,
            guild_id=interaction.guild_id,
        )
        await interaction.followup.send(
            embed=tree_embed(added.tree, headline=added_headline(added)), ephemeral=True
        )

    @add.autocomplete("line")
    async def line_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        game = getattr(interaction.namespace, "game", None)
        suggestions = await self.service.suggest(
            channel_id=interaction.channel_id or 0,
            user_id=interaction.user.id,
            typed=current,
            game_id=game if isinstance(game, int) else None,
            guild_id=interaction.guild_id,
        )
        return [app_commands.Choice(name=s.name, value=s.value) for s in suggestions]

    @app_commands.command(name="list", description="Your conditional moves (only you see them)")
    @app_commands.describe(game=GAME)
    async def list_(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        views = await self.service.show(
            channel_id=interaction.channel_id or 0,
            user_id=interaction.user.id,
            game_id=game,
            guild_id=interaction.guild_id,
        )
        if not views:
            await interaction.followup.send(
                "You have no conditional moves in any game. In a game's thread, while your "
                "opponent is to move, add some with `/conditional add`.",
                ephemeral=True,
            )
            return
        shown = views[:MAX_EMBEDS]
        limit = min(DESCRIPTION_LIMIT, EMBEDS_TOTAL // len(shown))
        await interaction.followup.send(
            embeds=fit_embeds([tree_embed(view, limit=limit) for view in shown]), ephemeral=True
        )

    @app_commands.command(name="clear", description="Drop all your conditional moves in a game")
    @app_commands.describe(game=GAME)
    async def clear(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        found, count = await self.service.clear(
            channel_id=interaction.channel_id or 0,
            user=user_ref(interaction.user),
            game_id=game,
            guild_id=interaction.guild_id,
        )
        text = (
            f"Dropped your {count} conditional move{'s' if count != 1 else ''} in game #{found.id}."
            if count
            else f"You had no conditional moves in game #{found.id}."
        )
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await install(bot, Conditional(fairy(bot)))
