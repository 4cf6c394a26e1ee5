"""/privacy (what is kept about players) and /forget-me (be replaced by an anonymous label)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import Fairy, fairy, install, send_error, user_ref
from bot.service import privacy
from bot.service.privacy import Privacy
from bot.ui.embeds import GREEN, RED
from bot.ui.format import count


def privacy_embed() -> discord.Embed:
    embed = discord.Embed(title="What Fairy Post keeps about you", colour=GREEN)
    for what, why in privacy.STORED:
        embed.add_field(name=what, value=why, inline=False)
    embed.add_field(name="Nothing else", value=privacy.NOT_STORED, inline=False)
    embed.add_field(name="For how long", value=privacy.KEPT_FOR, inline=False)
    embed.add_field(name="Being forgotten", value=privacy.FORGET, inline=False)
    return embed


class ForgetView(discord.ui.View):
    """Confirm or cancel, for the one person who asked (an ephemeral message)."""

    def __init__(self, service: Privacy) -> None:
        super().__init__(timeout=600)
        self.service = service

    @discord.ui.button(label="Forget me", style=discord.ButtonStyle.danger)
    async def confirm(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[ForgetView]
    ) -> None:
        try:
            done = await self.service.forget(user_ref(interaction.user))
        except Exception as exc:
            await send_error(interaction, exc, "/forget-me")
            return
        text = (
            "Fairy Post kept nothing about you, so there was nothing to forget."
            if done is None
            else f"Done: you are now **{done.label}** in {count(done.games, 'stored game')}; "
            "your name, id and settings are gone. Using Fairy Post again starts afresh."
        )
        self.stop()
        await interaction.response.edit_message(content=text, embed=None, view=None)

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[ForgetView]
    ) -> None:
        self.stop()
        await interaction.response.edit_message(
            content="Nothing was changed.", embed=None, view=None
        )


class PrivacyCog(commands.Cog, name="Privacy"):
    def __init__(self, bot: Fairy) -> None:
        self.bot = bot
        self.privacy = Privacy(bot.service.storage, bot.service.clock)

    @app_commands.command(name="privacy", description="What Fairy Post keeps about you")
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(embed=privacy_embed(), ephemeral=True)

    @app_commands.command(
        name="forget-me", description="Replace your name and id in every stored game"
    )
    async def forget_me(self, interaction: discord.Interaction[Any]) -> None:
        embed = discord.Embed(
            title="Forget me?",
            description=privacy.FORGET + "\n\nThis cannot be undone.",
            colour=RED,
        )
        await interaction.response.send_message(
            embed=embed, view=ForgetView(self.privacy), ephemeral=True
        )


async def setup(bot: commands.Bot) -> None:
    await install(bot, PrivacyCog(fairy(bot)))
