"""/tournament: create, join (buttons), start, withdraw, standings, pairings, games."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.challenges import DAYS
from bot.cogs.common import (
    Fairy,
    channel_of,
    fairy,
    guild_of,
    install,
    picture_file,
    send_error,
    user_ref,
)
from bot.service.errors import BadRequestError
from bot.service.tournaments import MAX_NAME
from bot.ui.format import NO_PINGS, mention, shown
from bot.ui.tournaments import games_text, round_text, signup_embed, table_embed

log = logging.getLogger("fairypost.tournaments")
TOURNAMENT = "The tournament (#number or name); by default the one of this thread"


class SignupButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"fp:tournament:(?P<id>\d+):(?P<action>join|leave)",
):
    def __init__(self, tournament_id: int, action: str) -> None:
        join = action == "join"
        super().__init__(
            discord.ui.Button(
                label="Join" if join else "Leave",
                style=discord.ButtonStyle.success if join else discord.ButtonStyle.secondary,
                custom_id=f"fp:tournament:{tournament_id}:{action}",
            )
        )
        self.tournament_id = tournament_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SignupButton:
        return cls(int(match["id"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        service = fairy(interaction.client).tournaments
        user = user_ref(interaction.user)
        try:
            if self.action == "join":
                view = await service.join(self.tournament_id, user, guild_id=interaction.guild_id)
            else:
                view = await service.leave(self.tournament_id, user, guild_id=interaction.guild_id)
        except Exception as exc:
            await send_error(interaction, exc, f"tournament {self.tournament_id}")
            return
        await interaction.response.edit_message(embed=signup_embed(view))


def signup_view(tournament_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(SignupButton(tournament_id, "join"))
    view.add_item(SignupButton(tournament_id, "leave"))
    return view


class Tournaments(commands.GroupCog, group_name="tournament"):
    """Round robins and Swiss tournaments run by the bot."""

    def __init__(self, bot: Fairy) -> None:
        self.bot = bot
        self.service = bot.tournaments
        super().__init__()

    async def _organiser(self, interaction: discord.Interaction[Any]) -> None:
        guild_id = guild_of(interaction)
        roles = {r.id for r in getattr(interaction.user, "roles", [])}
        manage = bool(interaction.permissions.manage_guild)
        if not await self.service.may_organise(guild_id, manage, roles):
            raise BadRequestError(
                "Only members with Manage Server or the organisers' role can do that."
            )

    @app_commands.command(name="create", description="Create a tournament with a sign-up post")
    @app_commands.describe(
        name="The tournament's name",
        variant="The variant (start typing its name)",
        format="Round robin (everyone meets everyone) or Swiss",
        rounds="Swiss: the number of rounds (default: enough to find a winner)",
        days_per_move="Time for each move",
        rated="Whether the games change ratings",
        max_players="Most players who can join",
        starts_in_hours="Close sign-up and start by itself after this many hours",
        double="Round robin: everyone meets twice, once with each colour",
        round_by_round="Round robin: create each round's games when the last is over",
        bye="Swiss: what a bye scores",
        round_days="Swiss: pair the next round after this many days at the latest",
    )
    @app_commands.choices(
        format=[
            app_commands.Choice(name="round robin", value="round-robin"),
            app_commands.Choice(name="Swiss", value="swiss"),
        ],
        bye=[
            app_commands.Choice(name="1 point", value="1"),
            app_commands.Choice(name="½ point", value="1/2"),
            app_commands.Choice(name="0 points", value="0"),
        ],
    )
    @app_commands.choices(days_per_move=DAYS)
    @app_commands.guild_only()
    async def create(
        self,
        interaction: discord.Interaction[Any],
        name: app_commands.Range[str, 1, MAX_NAME],
        variant: str,
        format: str,
        rounds: app_commands.Range[int, 1, 20] | None = None,
        days_per_move: int | None = None,
        rated: bool = True,
        max_players: app_commands.Range[int, 2, 64] | None = None,
        starts_in_hours: app_commands.Range[int, 1, 1440] | None = None,
        double: bool = False,
        round_by_round: bool = False,
        bye: str = "1",
        round_days: app_commands.Range[int, 1, 90] | None = None,
    ) -> None:
        guild_id, channel_id = guild_of(interaction), channel_of(interaction)
        await self._organiser(interaction)
        if not isinstance(interaction.channel, discord.TextChannel):
            raise BadRequestError(
                "Create a tournament in a text channel: its games get their threads there."
            )
        view = await self.service.create(
            guild_id=guild_id,
            channel_id=channel_id,
            organiser=user_ref(interaction.user),
            name=name,
            variant=variant,
            format=format,
            rounds=rounds,
            days_per_move=days_per_move,
            rated=rated,
            max_players=max_players,
            starts_in_hours=starts_in_hours,
            double=double,
            round_by_round=round_by_round,
            bye=bye,
            round_days=round_days,
        )
        await interaction.response.send_message(
            embed=signup_embed(view), view=signup_view(view.tournament.id)
        )
        message = await interaction.original_response()
        await self.service.set_signup_message(view.tournament.id, message.id)
        log.info("tournament %s created", view.tournament.id)

    @create.autocomplete("variant")
    async def variant_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        found = await self.bot.service.variants.suggestions(interaction.guild_id, current)
        return [app_commands.Choice(name=s.name, value=s.value) for s in found]

    async def _find(self, interaction: discord.Interaction[Any], tournament: str | None) -> int:
        guild_id = guild_of(interaction)
        t = await self.service.find(guild_id, interaction.channel_id or 0, tournament)
        return t.id

    @app_commands.command(name="start", description="Close sign-up and pair the first round")
    @app_commands.describe(tournament=TOURNAMENT)
    @app_commands.guild_only()
    async def start(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        await self._organiser(interaction)
        tid = await self._find(interaction, tournament)
        view = await self.service.start(tid)
        await interaction.response.send_message(
            f"**{shown(view.tournament.name)}** has started with {len(view.players)} players: "
            "pairings and game threads follow.",
            allowed_mentions=NO_PINGS,
        )
        self.bot.effects.poke()

    @app_commands.command(name="cancel", description="Cancel a tournament still in sign-up")
    @app_commands.describe(tournament=TOURNAMENT)
    @app_commands.guild_only()
    async def cancel(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        await self._organiser(interaction)
        view = await self.service.cancel(await self._find(interaction, tournament))
        await interaction.response.send_message(
            f"**{shown(view.tournament.name)}** is cancelled.", allowed_mentions=NO_PINGS
        )
        self.bot.effects.poke()

    @app_commands.command(name="withdraw", description="Leave a tournament you play in")
    @app_commands.describe(tournament=TOURNAMENT)
    @app_commands.guild_only()
    async def withdraw(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        tid = await self._find(interaction, tournament)
        await interaction.response.defer(thinking=True)
        resigned = await self.service.withdraw(tid, user_ref(interaction.user))
        games = ", ".join(f"#{g}" for g in resigned)
        await interaction.followup.send(
            f"{mention(interaction.user.id)} withdrew from the tournament."
            + (f" Games resigned: {games}." if games else ""),
            allowed_mentions=NO_PINGS,
        )
        self.bot.effects.poke()

    @app_commands.command(name="standings", description="The crosstable and the standings")
    @app_commands.describe(tournament=TOURNAMENT)
    @app_commands.guild_only()
    async def standings(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        tid = await self._find(interaction, tournament)
        await interaction.response.defer(thinking=True)
        table = await self.service.table(tid)
        picture = await self.service.picture(table)
        await interaction.followup.send(embed=table_embed(table), file=picture_file(picture))

    @app_commands.command(name="pairings", description="A round's pairings (the current one)")
    @app_commands.describe(tournament=TOURNAMENT, round="The round (default: the current one)")
    @app_commands.guild_only()
    async def pairings(
        self,
        interaction: discord.Interaction[Any],
        tournament: str | None = None,
        round: int | None = None,
    ) -> None:
        tid = await self._find(interaction, tournament)
        table = await self.service.table(tid)
        number = round or table.view.tournament.current_round
        if not table.games_of_round(number):
            raise BadRequestError(f"Round {number} has not been paired.")
        await interaction.response.send_message(
            round_text(table, number), allowed_mentions=NO_PINGS
        )

    @app_commands.command(name="games", description="The tournament's games and their threads")
    @app_commands.describe(tournament=TOURNAMENT)
    @app_commands.guild_only()
    async def games(
        self, interaction: discord.Interaction[Any], tournament: str | None = None
    ) -> None:
        tid = await self._find(interaction, tournament)
        table = await self.service.table(tid)
        await interaction.response.send_message(
            games_text(table, dict(table.view.players)), ephemeral=True
        )


async def setup(bot: commands.Bot) -> None:
    await install(bot, Tournaments(fairy(bot)), SignupButton)
