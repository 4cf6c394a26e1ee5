"""/challenge and its Accept/Decline buttons; accepted challenges open a game thread."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import (
    Fairy,
    answered,
    channel_of,
    defer_first,
    fairy,
    guild_of,
    install,
    picture_file,
    send_error,
    user_ref,
)
from bot.service.errors import BadRequestError
from bot.service.games import ALLOWED_DAYS
from bot.service.models import engine_credit
from bot.ui.embeds import challenge_embed
from bot.ui.format import NO_PINGS, mention, pings, shown

log = logging.getLogger("fairypost.challenges")

DAYS = [
    app_commands.Choice(name=f"{d} day{'s' if d > 1 else ''} per move", value=d)
    for d in ALLOWED_DAYS
] + [app_commands.Choice(name="no clock (casual)", value=0)]


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"fp:challenge:(?P<id>\d+):(?P<action>accept|decline)",
):
    """Accept or Decline under a challenge post."""

    def __init__(self, challenge_id: int, action: str) -> None:
        accept = action == "accept"
        super().__init__(
            discord.ui.Button(
                label="Accept" if accept else "Decline",
                style=discord.ButtonStyle.success if accept else discord.ButtonStyle.secondary,
                custom_id=f"fp:challenge:{challenge_id}:{action}",
            )
        )
        self.challenge_id = challenge_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ChallengeButton:
        return cls(int(match["id"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await answer_challenge(
            fairy(interaction.client), interaction, self.challenge_id, self.action == "accept"
        )


def challenge_view(challenge_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ChallengeButton(challenge_id, "accept"))
    view.add_item(ChallengeButton(challenge_id, "decline"))
    return view


class Challenges(commands.Cog):
    def __init__(self, bot: Fairy) -> None:
        self.bot = bot

    @app_commands.command(
        name="challenge", description="Challenge a player, or anyone here, to a game"
    )
    @app_commands.describe(
        variant="The variant to play (start typing its name)",
        opponent="Who you challenge; leave empty for an open challenge",
        color="Your colour",
        days_per_move="Time for each move (the server's default when empty)",
        rated="Whether the game changes ratings (default: the server's choice, see /config)",
        options="Variant options, comma-separated (e.g. fixed-king for Patricia)",
        bank="Carry unused time over to later moves (up to two moves' worth)",
        level="Against Fairy Post itself: its level, 1 (a beginner) to 8 (default 4)",
    )
    @app_commands.choices(
        color=[
            app_commands.Choice(name="random", value="random"),
            app_commands.Choice(name="white", value="white"),
            app_commands.Choice(name="black", value="black"),
        ]
    )
    @app_commands.choices(days_per_move=DAYS)
    @app_commands.guild_only()
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        variant: str,
        opponent: discord.User | None = None,
        color: str = "random",
        days_per_move: int | None = None,
        rated: bool | None = None,
        options: str = "",
        bank: bool = False,
        level: app_commands.Range[int, 1, 8] | None = None,
    ) -> None:
        guild_id, channel_id = guild_of(interaction), channel_of(interaction)
        await defer_first(interaction)
        service = self.bot.service
        me = interaction.client.user
        if opponent is not None and me is not None and opponent.id == me.id:
            game = await self.bot.opponent.challenge(
                guild_id=guild_id,
                channel_id=channel_id,
                challenger=user_ref(interaction.user),
                engine=user_ref(me),
                variant=variant,
                level_number=level,
                color=color,
                days_per_move=days_per_move,
                rated=rated,
                options=options,
                bank=bank,
            )
            g = game.game
            engine = await self.bot.opponent.engine_for(g)
            await interaction.followup.send(
                f"{interaction.user.mention} plays **{shown(game.variant.name)}** against "
                f"Fairy Post ({engine_credit(g.engine_level, engine)}): the game goes on in "
                "its thread.",
                allowed_mentions=NO_PINGS,
            )
            answered(interaction)
            log.info("game %s against the engine started (%s)", g.id, game.variant.id)
            self.bot.effects.poke()
            return
        if level is not None:
            raise BadRequestError(
                "The level is for games against Fairy Post: choose it as the opponent."
            )
        view = await service.create_challenge(
            guild_id=guild_id,
            channel_id=channel_id,
            challenger=user_ref(interaction.user),
            opponent=user_ref(opponent) if opponent else None,
            variant=variant,
            color=color,
            days_per_move=days_per_move,
            rated=rated,
            options=options,
            bank=bank,
        )
        assert view.scene is not None
        picture = await service.render(view.scene, viewer=interaction.user.id)
        content = f"{mention(opponent.id)}, you are challenged!" if opponent else None
        message = await interaction.followup.send(
            content=content or discord.utils.MISSING,
            allowed_mentions=pings(opponent.id if opponent else None),
            embed=challenge_embed(view),
            file=picture_file(picture),
            view=challenge_view(view.challenge.id),
            wait=True,
        )
        answered(interaction)
        await service.set_challenge_message(view.challenge.id, message.id)
        log.info("challenge %s posted (%s)", view.challenge.id, view.variant.id)

    @challenge.autocomplete("variant")
    async def variant_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        found = await self.bot.service.variants.suggestions(interaction.guild_id, current)
        return [app_commands.Choice(name=s.name, value=s.value) for s in found]


async def answer_challenge(
    bot: Fairy, interaction: discord.Interaction[Any], challenge_id: int, accept: bool
) -> None:
    """Accept (start the game in a new thread) or decline a challenge from its button."""
    await interaction.response.defer()  # a first touch of a big variant takes a moment
    service = bot.service
    user = user_ref(interaction.user)
    try:
        if accept:
            game = await service.accept_challenge(challenge_id, user, guild_id=interaction.guild_id)
        else:
            declined = await service.decline_challenge(
                challenge_id, user, guild_id=interaction.guild_id
            )
    except Exception as exc:
        await send_error(interaction, exc, f"challenge {challenge_id}")
        return
    if not accept:
        who = "withdrew" if user.id == declined.challenge.challenger_id else "declined"
        await interaction.edit_original_response(
            content=f"{shown(user.name)} {who} this challenge.",
            allowed_mentions=NO_PINGS,
            embed=challenge_embed(declined, with_image=False),
            view=None,
            attachments=[],
        )
        return
    cview = await service.challenge_view(challenge_id)
    await interaction.edit_original_response(
        content=f"Accepted by {shown(user.name)}: the game goes on in its thread.",
        allowed_mentions=NO_PINGS,
        embed=challenge_embed(cview, with_image=False),
        view=None,
        attachments=[],
    )
    # The thread and the first board were recorded with the acceptance (`game.started`):
    # the effects loop opens and posts them, exactly once even across a restart.
    log.info("challenge %s accepted: game %s", challenge_id, game.game.id)
    bot.effects.poke()


async def setup(bot: commands.Bot) -> None:
    await install(bot, Challenges(fairy(bot)), ChallengeButton)
