"""/config: the server's settings, for members with Manage Server (Discord's own command
permissions decide who sees it; admins can change that in Server Settings > Integrations)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.challenges import DAYS
from bot.cogs.common import Fairy, fairy, guild_of, install
from bot.service import notices as schedules
from bot.service.server_config import ConfigChange, RatedPolicy, ServerConfig, Unset
from bot.ui.embeds import GREEN
from bot.ui.format import channel, days
from storage.models import GuildSettings

RATED_WORDS = {
    RatedPolicy.RATED: "rated unless the challenge says casual",
    RatedPolicy.CASUAL: "casual unless the challenge says rated",
    RatedPolicy.OFF: "casual only (rated games are off)",
}


def config_embed(settings: GuildSettings, *, changed: bool) -> discord.Embed:
    embed = discord.Embed(
        title="Fairy Post settings for this server",
        description="Saved." if changed else "Change any of them with the options of /config.",
        colour=GREEN,
    )
    embed.add_field(
        name="Challenge channel",
        value=channel(settings.challenge_channel_id)
        if settings.challenge_channel_id
        else "any channel",
        inline=False,
    )
    embed.add_field(name="Games", value=RATED_WORDS[RatedPolicy.of(settings)], inline=False)
    embed.add_field(name="Default clock", value=days(settings.default_move_seconds), inline=False)
    schedule = settings.notice_schedule or schedules.NOW
    embed.add_field(
        name="Turn notices (players' default)",
        value=f"{schedules.describe(schedule)} (players choose their own with /settings)",
        inline=False,
    )
    embed.add_field(
        name="Tournament organisers",
        value=f"<@&{settings.organiser_role_id}>"
        if settings.organiser_role_id
        else "no role (server admins only)",
        inline=False,
    )
    return embed


class ServerConfigCog(commands.Cog, name="Server"):
    def __init__(self, bot: Fairy) -> None:
        self.bot = bot
        self.server = ServerConfig(bot.service.storage, bot.service.clock)

    @app_commands.command(name="config", description="Show or change this server's settings")
    @app_commands.describe(
        challenge_channel="The only channel where /challenge may be used",
        rated="Whether games are rated when the challenge does not say",
        days_per_move="The clock when a challenge names none",
        organisers="The role whose members run tournaments",
        clear="Reset a setting: challenges anywhere, or no organisers' role",
        notices="When players who did not choose hear of their turns",
        notice_hour="The digest's hour, or when quiet hours start (0-23)",
        quiet_until="When quiet hours end (0-23)",
        utc_offset="The server's time zone as hours from UTC, e.g. +1, -5",
    )
    @app_commands.choices(
        rated=[
            app_commands.Choice(name=text, value=policy.value)
            for policy, text in RATED_WORDS.items()
        ],
        clear=[
            app_commands.Choice(
                name="challenges in any channel", value=Unset.CHALLENGE_CHANNEL.value
            ),
            app_commands.Choice(name="no organisers' role", value=Unset.ORGANISERS.value),
        ],
        notices=[
            app_commands.Choice(name="at once", value="now"),
            app_commands.Choice(name="a daily digest by direct message", value="digest"),
            app_commands.Choice(name="quiet hours: only deadline warnings", value="quiet"),
        ],
    )
    @app_commands.choices(days_per_move=DAYS)
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    async def config(
        self,
        interaction: discord.Interaction[Any],
        challenge_channel: discord.TextChannel | None = None,
        rated: str | None = None,
        days_per_move: int | None = None,
        organisers: discord.Role | None = None,
        clear: str | None = None,
        notices: str | None = None,
        notice_hour: app_commands.Range[int, 0, 23] | None = None,
        quiet_until: app_commands.Range[int, 0, 23] | None = None,
        utc_offset: app_commands.Range[str, 1, 12] | None = None,
    ) -> None:
        guild_id = guild_of(interaction)
        timing = None
        if (notices, notice_hour, quiet_until, utc_offset) != (None, None, None, None):
            current = (await self.server.get(guild_id)).notice_schedule
            timing = schedules.change(
                current, timing=notices, hour=notice_hour, until=quiet_until, utc_offset=utc_offset
            )
        change = ConfigChange(
            challenge_channel_id=challenge_channel.id if challenge_channel else None,
            rated=RatedPolicy(rated) if rated else None,
            days_per_move=days_per_move,
            organiser_role_id=organisers.id if organisers else None,
            unset=Unset(clear) if clear else None,
            notice_schedule=timing,
        )
        settings = await self.server.change(guild_id, change)
        await interaction.response.send_message(
            embed=config_embed(settings, changed=not change.empty),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: commands.Bot) -> None:
    await install(bot, ServerConfigCog(fairy(bot)))
