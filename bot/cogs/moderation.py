"""/mod cancel and /mod adjudicate: a server's moderators end a stuck game. Offered by
default to members who can manage threads (games live in threads); server admins can give
it to another role in Server Settings > Integrations."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.boards import acknowledge
from bot.cogs.common import Fairy, fairy, guild_of, install, user_ref
from bot.service.models import EndResult
from bot.service.moderation import MAX_REASON, Moderation, Verdict
from bot.ui.format import shown

log = logging.getLogger("fairypost.moderation")
GAME = "The game number (see /games; the thread's title shows it)"


class ModerationCog(commands.Cog, name="Moderation"):
    mod = app_commands.Group(
        name="mod",
        description="Moderators: end a stuck game",
        guild_only=True,
        default_permissions=discord.Permissions(manage_threads=True),
    )

    def __init__(self, bot: Fairy) -> None:
        self.bot = bot
        self.moderation = Moderation(bot.service)

    @mod.command(name="cancel", description="End a game without a result (no rating change)")
    @app_commands.describe(game=GAME, reason="Why, in a few words (the players will read it)")
    async def cancel(
        self,
        interaction: discord.Interaction[Any],
        game: int,
        reason: app_commands.Range[str, 0, MAX_REASON] = "",
    ) -> None:
        guild_id = guild_of(interaction)
        result = await self.moderation.cancel(
            guild_id=guild_id,
            game_id=game,
            moderator=user_ref(interaction.user),
            reason=reason,
        )
        await self._announce(interaction, result, "cancelled")

    @mod.command(name="adjudicate", description="Decide the result of a game that cannot go on")
    @app_commands.describe(
        game=GAME, result="Who wins, or a draw", reason="Why (the players will read it)"
    )
    @app_commands.choices(
        result=[
            app_commands.Choice(name="White wins", value=Verdict.WHITE.value),
            app_commands.Choice(name="Black wins", value=Verdict.BLACK.value),
            app_commands.Choice(name="Draw", value=Verdict.DRAW.value),
        ]
    )
    async def adjudicate(
        self,
        interaction: discord.Interaction[Any],
        game: int,
        result: str,
        reason: app_commands.Range[str, 1, MAX_REASON],
    ) -> None:
        guild_id = guild_of(interaction)
        ended = await self.moderation.adjudicate(
            guild_id=guild_id,
            game_id=game,
            moderator=user_ref(interaction.user),
            verdict=Verdict(result),
            reason=reason,
        )
        await self._announce(interaction, ended, "adjudicated")

    async def _announce(
        self, interaction: discord.Interaction[Any], result: EndResult, verb: str
    ) -> None:
        """The moderator's confirmation. The final board, the result and any rating change
        were recorded with the decision and are posted in the game's thread by the effects
        loop, exactly once (`bot/announce.py`), like any other end of a game."""
        game = result.view.game
        log.info(
            "game %d %s by moderator %d",
            game.id,
            verb,
            interaction.user.id,
            extra={"game": game.id, "moderator": interaction.user.id},
        )
        where = f" in <#{game.thread_id}>" if game.thread_id else ""
        await acknowledge(
            self.bot,
            interaction,
            f"Game #{game.id} {verb}: **{shown(result.view.status)}**. "
            f"The players are told{where}.",
        )


async def setup(bot: commands.Bot) -> None:
    await install(bot, ModerationCog(fairy(bot)))
