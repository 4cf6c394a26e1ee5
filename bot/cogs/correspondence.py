"""Correspondence life: /settings, /vacation, /rating, /leaderboard."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import Fairy, fairy, install, user_ref
from bot.service import notices
from bot.service.errors import BadRequestError
from bot.service.glicko2 import PROVISIONAL_DEVIATION
from bot.service.inputs import player_name, whole_number
from bot.ui.embeds import GREEN
from bot.ui.format import clip, count, shown, timestamp
from storage.models import HOUR, NotifyMode


def _hours(text: str) -> list[int]:
    """`"24, 1"` -> seconds before the deadline; refusals name the bad part."""
    out = []
    for part in (p.strip() for p in text.replace(";", ",").split(",")):
        if not part:
            continue
        hours = whole_number(part)
        if hours is None or not 1 <= hours <= 14 * 24:
            raise BadRequestError(
                f"Reminders are hours before the deadline (1 to 336), like `24, 1`; not {part!r}."
            )
        out.append(hours * HOUR)
    return sorted(set(out), reverse=True)


PIECE_SET_NAMES = {
    "traditional": "traditional where a game has them (Xiangqi, Janggi, Shogi)",
    "letters": "letter tokens everywhere",
}


class Correspondence(commands.Cog):
    def __init__(self, bot: Fairy) -> None:
        self.bot = bot

    @app_commands.command(
        name="settings", description="How Fairy Post tells you it is your turn, and your pieces"
    )
    @app_commands.describe(
        notify="Where to tell you: a mention in the game's thread, or a direct message",
        turn_notices="A notice when it becomes your turn",
        reminders="Hours before the deadline to remind you, e.g. `24, 1` (empty: none)",
        schedule="When: at once, one daily digest, or not in your quiet hours",
        hour="The digest's hour, or when quiet hours start (0-23, your time)",
        until="When quiet hours end (0-23, your time)",
        utc_offset="Your time zone as hours from UTC, e.g. +2, -5, +5:30",
        pieces="Board pictures: traditional pieces (Xiangqi's, Shogi's characters) or letters",
    )
    @app_commands.choices(
        notify=[
            app_commands.Choice(name="mention me in the game thread", value="thread"),
            app_commands.Choice(name="send me a direct message", value="dm"),
        ],
        schedule=[
            app_commands.Choice(name="at once", value="now"),
            app_commands.Choice(name="a daily digest by direct message", value="digest"),
            app_commands.Choice(name="quiet hours: only deadline warnings", value="quiet"),
            app_commands.Choice(name="this server's default", value=notices.DEFAULT),
        ],
        pieces=[
            app_commands.Choice(name="traditional where a game has them", value="traditional"),
            app_commands.Choice(name="letter tokens everywhere", value="letters"),
        ],
    )
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        notify: str | None = None,
        turn_notices: bool | None = None,
        reminders: str | None = None,
        schedule: str | None = None,
        hour: app_commands.Range[int, 0, 23] | None = None,
        until: app_commands.Range[int, 0, 23] | None = None,
        utc_offset: app_commands.Range[str, 1, 12] | None = None,
        pieces: str | None = None,
    ) -> None:
        service = self.bot.service
        now = service.clock.now()
        me = user_ref(interaction.user)
        await service.storage.players.upsert(me.id, me.name, now)
        player = await service.storage.players.set_preferences(
            interaction.user.id,
            now,
            notify_mode=NotifyMode(notify) if notify else None,
            turn_notices=turn_notices,
            reminder_offsets=_hours(reminders) if reminders is not None else None,
            piece_set=pieces,
        )
        if (schedule, hour, until, utc_offset) != (None, None, None, None):
            chosen = notices.change(
                player.schedule, timing=schedule, hour=hour, until=until, utc_offset=utc_offset
            )
            player = await service.storage.players.set_schedule(me.id, chosen, now)
        offsets = [o // HOUR for o in player.reminder_offsets]
        hours = ", ".join(str(o) for o in offsets) or "none"
        unit = "hour" if offsets == [1] else "hours"
        where = "direct messages" if player.notify_mode is NotifyMode.DM else "thread mentions"
        if player.schedule is not None:
            timing = notices.explain(player.schedule, now)
        elif interaction.guild_id is not None:
            server = await service.storage.guilds.get(interaction.guild_id)
            default = server.notice_schedule or notices.NOW
            timing = f"this server's default, {notices.explain(default, now)}"
        else:
            timing = "each game's server's default"
        text = (
            f"Notices: **{where}**\n"
            f"Turn notices: **{'on' if player.turn_notices else 'off'}**\n"
            f"Reminders: **{hours}** {unit} before the deadline\n"
            f"When: {timing}\n"
            f"Pieces: **{PIECE_SET_NAMES[player.piece_set]}**\n"
            "-# A notice that would come after its game's deadline is sent at once."
        )
        await interaction.response.send_message(text, ephemeral=True)
        self.bot.timers.poke()

    @app_commands.command(
        name="vacation", description="Stop your clocks for a while (14 days a year)"
    )
    @app_commands.describe(action="on, off or status")
    @app_commands.choices(
        action=[
            app_commands.Choice(name="on", value="on"),
            app_commands.Choice(name="off", value="off"),
            app_commands.Choice(name="status", value="status"),
        ]
    )
    async def vacation(self, interaction: discord.Interaction[Any], action: str = "status") -> None:
        storage = self.bot.service.storage
        now = self.bot.service.clock.now()
        user_id = interaction.user.id
        await storage.players.upsert(user_id, user_ref(interaction.user).name, now)
        if action == "on":
            status = await storage.vacations.start(user_id, now)
        elif action == "off":
            status = await storage.vacations.end(user_id, now)
        else:
            status = await storage.vacations.status(user_id, now)
        days_left = status.remaining_seconds / 86_400
        if status.on_vacation:
            until = timestamp(status.ends_at or now, "f")
            text = f"🏖 You are on vacation: your clocks are stopped until {until} at the latest."
        else:
            text = "You are not on vacation."
        text += f"\nVacation left for {status.year}: **{days_left:.1f} days**."
        await interaction.response.send_message(text, ephemeral=action == "status")
        self.bot.timers.poke()

    @app_commands.command(name="rating", description="Ratings of a player (Glicko-2, per variant)")
    @app_commands.describe(user="Whose ratings (you by default)", variant="Only this variant")
    async def rating(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        variant: str | None = None,
    ) -> None:
        who = user or interaction.user
        storage = self.bot.service.storage
        variants = self.bot.service.variants
        ratings = await storage.ratings.for_player(who.id)
        if variant:
            key = (await variants.resolve(interaction.guild_id, variant)).key
            ratings = [r for r in ratings if r.variant_id == key]
        embed = discord.Embed(title=f"Ratings of {shown(user_ref(who).name)}", colour=GREEN)
        if not ratings:
            embed.description = "No rated game yet."
        for r in ratings[:25]:
            # A provisional rating is a first guess: its ±95% range (often ±500 and more)
            # would alarm more than inform.
            if r.deviation > PROVISIONAL_DEVIATION:
                value = f"**{r.rating:.0f}** (provisional)"
            else:
                value = f"**{r.rating:.0f}** ±{2 * r.deviation:.0f}"
            name = await variants.name_of_key(r.variant_id)
            record = f"{r.wins}W {r.draws}D {r.losses}L"
            embed.add_field(name=clip(shown(name), 256), value=f"{value}\n{record}")
        history = await storage.ratings.history(who.id, limit=5)
        if history:
            lines = [
                f"{shown(await variants.name_of_key(h.variant_id))}: {h.rating_before:.0f} → "
                f"{h.rating_after:.0f} ({h.delta:+.0f}) vs <@{h.opponent_id}>"
                for h in history
            ]
            embed.add_field(name="Recent rated games", value="\n".join(lines), inline=False)
        await interaction.response.send_message(embed=embed, ephemeral=user is None)

    @app_commands.command(name="leaderboard", description="The top 20 players of a variant")
    @app_commands.describe(variant="The variant")
    async def leaderboard(self, interaction: discord.Interaction[Any], variant: str) -> None:
        found = await self.bot.service.variants.resolve(interaction.guild_id, variant)
        v = found.variant
        entries = await self.bot.service.storage.ratings.leaderboard(found.key, 20)
        embed = discord.Embed(title=f"{shown(v.name)} leaderboard", colour=GREEN)
        if not entries:
            embed.description = "No rated game has been played yet."
        else:
            embed.description = "\n".join(
                f"{e.rank}. **{shown(player_name(e.user_id, e.display_name))}** {e.rating:.0f}"
                + (" *(provisional)*" if e.deviation > PROVISIONAL_DEVIATION else "")
                + f" · {count(e.games, 'game')}"
                for e in entries
            )
            embed.set_footer(
                text=f"Provisional: rating deviation above {PROVISIONAL_DEVIATION:.0f}."
            )
        await interaction.response.send_message(embed=embed)

    @rating.autocomplete("variant")
    @leaderboard.autocomplete("variant")
    async def variant_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        found = await self.bot.service.variants.suggestions(interaction.guild_id, current)
        return [app_commands.Choice(name=s.name, value=s.value) for s in found]


async def setup(bot: commands.Bot) -> None:
    await install(bot, Correspondence(fairy(bot)))
