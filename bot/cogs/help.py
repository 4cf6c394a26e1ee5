"""/help: every command in one short page, built from the registered commands themselves
(so it can never forget one), grouped by the cog that answers it."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import install
from bot.ui.embeds import GREEN
from bot.ui.format import clip

# Section titles, in reading order; a cog not listed here comes after them, under its name.
SECTIONS = {
    "Challenges": "Start a game",
    "Play": "Play",
    "Info": "Look things up",
    "Analysis": "Review a game",
    "Correspondence": "Clocks, notices and ratings",
    "Tournaments": "Tournaments",
    "Privacy": "Your data",
    "Server": "Server settings (Manage Server)",
    "Moderation": "Moderators",
    "Help": "Help",
}


def _lines(command: app_commands.Command[Any, Any, Any] | app_commands.Group) -> list[str]:
    if isinstance(command, app_commands.Group):
        return [line for sub in command.commands for line in _lines(sub)]
    return [f"`/{command.qualified_name}` {command.description}"]


def start_here(bot_id: int | None) -> str:
    """The three things a newcomer wants, first: a game with someone, a game at once
    against the bot, and the rules of a variant."""
    me = f"<@{bot_id}>" if bot_id is not None else "Fairy Post"
    return "\n".join(
        [
            "**Play someone:** `/challenge variant:chess`, then they press **Accept**;",
            "the game gets its own thread: play there with `/move` or the **Move** button.",
            f"**Play now, against the bot:** `/challenge variant:chess opponent:` {me}",
            "(`level:` 1 to 8). It answers at once, in every variant.",
            "**Learn a variant:** `/variants` lists them, `/rules` explains one,",
            "`/piece` draws how a piece moves.",
        ]
    )


def help_embed(bot: commands.Bot) -> discord.Embed:
    embed = discord.Embed(
        title="Fairy Post commands",
        description="Inside a game's thread, commands need no game number. "
        "Start typing a command to see its options.",
        colour=GREEN,
    )
    embed.add_field(
        name="Start here", value=start_here(bot.user.id if bot.user else None), inline=False
    )
    order = list(SECTIONS)
    cogs = sorted(
        bot.cogs.values(),
        key=lambda c: order.index(c.qualified_name) if c.qualified_name in order else 99,
    )
    for cog in cogs:
        group = cog.__cog_app_commands_group__  # a GroupCog: /group sub...
        found = [group] if group is not None else cog.get_app_commands()
        lines = [line for cmd in found for line in _lines(cmd)]
        if lines:
            title = SECTIONS.get(cog.qualified_name, cog.qualified_name)
            embed.add_field(name=title, value=clip("\n".join(lines), 1024), inline=False)
    return embed


class Help(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="Every command, in one short page")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(embed=help_embed(self.bot), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await install(bot, Help(bot))
