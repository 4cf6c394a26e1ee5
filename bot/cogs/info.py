"""Looking things up: /games, /history, /variants, /rules, /piece."""

from __future__ import annotations

import io
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import (
    Fairy,
    animation_file,
    defer_first,
    fairy,
    install,
    picture_file,
    user_ref,
)
from bot.ui.embeds import games_embed, piece_embed, rules_embed, variants_embed
from bot.ui.format import count


class Info(commands.Cog):
    def __init__(self, bot: Fairy) -> None:
        self.bot = bot

    @app_commands.command(name="games", description="Your games in progress (or someone else's)")
    @app_commands.describe(
        user="Whose games to list (you by default)",
        finished="List the 20 most recently finished games, with their results",
    )
    async def games(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        finished: bool = False,
    ) -> None:
        who = user or interaction.user
        games = await self.bot.service.my_games(
            who.id, finished=finished, guild_id=interaction.guild_id, viewer_id=interaction.user.id
        )
        await interaction.response.send_message(
            embed=games_embed(user_ref(who).name, games, finished=finished), ephemeral=user is None
        )

    @app_commands.command(
        name="history",
        description="The game record, a PGN (variants Fairy-Stockfish knows) and a replay",
    )
    @app_commands.describe(game="The game number (only needed outside the game's thread)")
    async def history(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        # The replay takes seconds on a long game: acknowledge first.
        await defer_first(interaction, ephemeral=True)
        service = self.bot.service
        channel_id, guild_id, user_id = (
            interaction.channel_id or 0,
            interaction.guild_id,
            interaction.user.id,
        )
        found = await service.find(channel_id, game, guild_id=guild_id, user_id=user_id)
        record = await service.history(
            channel_id=channel_id, game_id=game, guild_id=guild_id, user_id=user_id
        )
        files = [discord.File(io.BytesIO(record.text.encode()), filename=record.filename)]
        pgn = await service.pgn(
            channel_id=channel_id, game_id=game, guild_id=guild_id, user_id=user_id
        )
        if pgn is not None:
            files.append(discord.File(io.BytesIO(pgn.text.encode()), filename=pgn.filename))
        animation = await service.replay(found.id)
        if animation is not None:
            files.append(animation_file(animation))
        lines = [f"The record of game #{found.id} (the format of Fairy Post's books)"]
        if pgn is not None:
            lines.append("a PGN that other chess tools read")
        if animation is not None:
            plies = count(animation.plies, "ply", "plies")
            lines.append(f"the whole game as an animation ({plies})")
        await interaction.followup.send(
            content=", ".join(lines[:-1]) + (f" and {lines[-1]}." if len(lines) > 1 else "."),
            files=files,
            ephemeral=True,
        )

    @app_commands.command(name="variants", description="Every variant you can play here")
    async def variants(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(thinking=True, ephemeral=True)
        infos = await self.bot.service.variants.catalogue(interaction.guild_id)
        await interaction.followup.send(embed=variants_embed(infos), ephemeral=True)

    @app_commands.command(
        name="rules", description="Rules, pieces and starting position of a variant"
    )
    @app_commands.describe(variant="The variant")
    async def rules(self, interaction: discord.Interaction[Any], variant: str) -> None:
        await interaction.response.defer(thinking=True, ephemeral=True)
        view = await self.bot.service.variants.rules_view(interaction.guild_id, variant)
        picture = await self.bot.service.render(view.scene, viewer=interaction.user.id)
        await interaction.followup.send(
            embed=rules_embed(view), file=picture_file(picture), ephemeral=True
        )

    @app_commands.command(name="piece", description="How a piece moves, on a diagram")
    @app_commands.describe(variant="The variant", piece="The piece (letters or name)")
    async def piece(self, interaction: discord.Interaction[Any], variant: str, piece: str) -> None:
        await interaction.response.defer(thinking=True, ephemeral=True)
        service = self.bot.service
        v, info = await service.variants.piece_info(interaction.guild_id, variant, piece)
        picture = await service.render_piece(v, info.id)
        await interaction.followup.send(
            embed=piece_embed(info, v.name), file=picture_file(picture), ephemeral=True
        )

    @rules.autocomplete("variant")
    @piece.autocomplete("variant")
    async def variant_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        found = await self.bot.service.variants.suggestions(interaction.guild_id, current)
        return [app_commands.Choice(name=s.name, value=s.value) for s in found]

    @piece.autocomplete("piece")
    async def piece_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        variant = getattr(interaction.namespace, "variant", "") or ""
        found = await self.bot.service.variants.piece_suggestions(
            interaction.guild_id, variant, current
        )
        return [app_commands.Choice(name=s.name, value=s.value) for s in found]


async def setup(bot: commands.Bot) -> None:
    await install(bot, Info(fairy(bot)))
