"""Playing: /move with autocomplete, /board, /moves, /resign, /draw, /takeback, /abort."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.boards import acknowledge, post_move, post_view
from bot.cogs.common import Fairy, answered, defer_first, fairy, install, send_error, user_ref
from bot.service.models import EndResult, GameView, OfferView
from bot.service.offer_posts import OfferPostService
from bot.ui.embeds import settled_offer_text
from bot.ui.format import NO_PINGS, mention, pings, shown

log = logging.getLogger("fairypost.play")
GAME = "The game number (only needed outside the game's thread)"


class OfferButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"fp:(?P<kind>draw|takeback):(?P<id>\d+):(?P<action>accept|decline)",
):
    """Accept or decline a draw offer or a takeback request."""

    def __init__(self, kind: str, request_id: int, action: str) -> None:
        accept = action == "accept"
        label = {"draw": ("Accept draw", "Decline"), "takeback": ("Allow takeback", "Refuse")}[kind]
        super().__init__(
            discord.ui.Button(
                label=label[0] if accept else label[1],
                style=discord.ButtonStyle.success if accept else discord.ButtonStyle.secondary,
                custom_id=f"fp:{kind}:{request_id}:{action}",
            )
        )
        self.kind = kind
        self.request_id = request_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> OfferButton:
        return cls(match["kind"], int(match["id"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await answer_offer(
            fairy(interaction.client),
            interaction,
            self.kind,
            self.request_id,
            self.action == "accept",
        )


def offer_view(kind: str, request_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(OfferButton(kind, request_id, "accept"))
    view.add_item(OfferButton(kind, request_id, "decline"))
    return view


class Play(commands.Cog):
    def __init__(self, bot: Fairy) -> None:
        self.bot = bot

    @app_commands.command(name="move", description="Play a move in this game")
    @app_commands.describe(
        move="Your move, e.g. e2-e4, Ng1-f3, e7-e8Q, O-O (start typing for the list)", game=GAME
    )
    async def move(
        self, interaction: discord.Interaction[Any], move: str, game: int | None = None
    ) -> None:
        await defer_first(interaction, ephemeral=True)
        user = user_ref(interaction.user)
        result = await self.bot.service.play(
            channel_id=interaction.channel_id or 0,
            user=user,
            text=move,
            game_id=game,
            guild_id=interaction.guild_id,
        )
        await post_move(self.bot, interaction, user, result)

    @move.autocomplete("move")
    async def move_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        game = interaction.namespace.game if hasattr(interaction.namespace, "game") else None
        suggestions = await self.bot.service.suggest_moves(
            channel_id=interaction.channel_id or 0,
            user_id=interaction.user.id,
            typed=current,
            game_id=game if isinstance(game, int) else None,
            guild_id=interaction.guild_id,
        )
        return [app_commands.Choice(name=s.name, value=s.value) for s in suggestions]

    @app_commands.command(name="board", description="Show the current position")
    @app_commands.describe(
        own_side="Show it from your side",
        private="Show it only to you",
        game=GAME,
        fen="Give the position as a FEN that Fairy-Stockfish reads, too",
    )
    async def board(
        self,
        interaction: discord.Interaction[Any],
        own_side: bool = False,
        private: bool = False,
        game: int | None = None,
        fen: bool = False,
    ) -> None:
        await defer_first(interaction, ephemeral=private)
        if fen:
            fsf_variant, text = await self.bot.service.fen(
                channel_id=interaction.channel_id or 0,
                game_id=game,
                guild_id=interaction.guild_id,
                user_id=interaction.user.id,
            )
            await interaction.followup.send(
                f"Fairy-Stockfish (UCI_Variant `{fsf_variant}`):\n```\n{text}\n```",
                ephemeral=private,
            )
        view = await self.bot.service.board(
            channel_id=interaction.channel_id or 0,
            user_id=interaction.user.id,
            own_side=own_side,
            game_id=game,
            guild_id=interaction.guild_id,
        )
        await post_view(self.bot, interaction, view, ephemeral=private)

    @app_commands.command(name="moves", description="Show where the piece on a square can go")
    @app_commands.describe(square="The piece's square, e.g. g1", game=GAME)
    async def moves(
        self, interaction: discord.Interaction[Any], square: str, game: int | None = None
    ) -> None:
        await defer_first(interaction, ephemeral=True)
        found = await self.bot.service.moves_from(
            channel_id=interaction.channel_id or 0,
            user_id=interaction.user.id,
            square=square,
            game_id=game,
            guild_id=interaction.guild_id,
        )
        listing = ", ".join(found.moves) if found.moves else "no legal move"
        where = f"From {found.square}"
        if found.planning:
            # Whoever asks, on whichever turn: say whose piece and when it could move.
            where += f" ({found.side}'s piece, on {found.side}'s next turn)"
        await post_view(
            self.bot, interaction, found.view, headline=f"{where}: {listing}", ephemeral=True
        )

    @app_commands.command(name="resign", description="Resign this game")
    @app_commands.describe(game=GAME)
    async def resign(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        await defer_first(interaction, ephemeral=True)
        result = await self.bot.service.resign(
            channel_id=interaction.channel_id or 0,
            user=user_ref(interaction.user),
            game_id=game,
            guild_id=interaction.guild_id,
        )
        await acknowledge(self.bot, interaction, f"You resigned: **{result.view.status}**.")

    @app_commands.command(
        name="abort", description="Abort this game (only before both sides have moved)"
    )
    @app_commands.describe(game=GAME)
    async def abort(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        await defer_first(interaction, ephemeral=True)
        await self.bot.service.abort(
            channel_id=interaction.channel_id or 0,
            user=user_ref(interaction.user),
            game_id=game,
            guild_id=interaction.guild_id,
        )
        await acknowledge(self.bot, interaction, "You aborted the game.")

    @app_commands.command(name="draw", description="Offer a draw (or accept your opponent's offer)")
    @app_commands.describe(game=GAME)
    async def draw(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        await defer_first(interaction)  # an offer is posted for both players to see
        outcome = await self.bot.opponent.offer_draw(
            channel_id=interaction.channel_id or 0,
            user=user_ref(interaction.user),
            game_id=game,
            guild_id=interaction.guild_id,
        )
        if isinstance(outcome, EndResult):
            engine = outcome.view.game.engine_id is not None
            text = "Fairy Post accepts the draw" if engine else "You accepted the draw offer"
            await acknowledge(self.bot, interaction, f"{text}: **draw**.")
            return
        if outcome.offer is not None and outcome.game.engine_id is not None:
            await interaction.followup.send(
                "Fairy Post declines the draw: it thinks it stands better. Play on!"
            )
            answered(interaction)
            return
        await self._post_offer(interaction, outcome, "draw")

    @app_commands.command(
        name="takeback", description="Ask your opponent to take back your last move"
    )
    @app_commands.describe(game=GAME)
    async def takeback(
        self, interaction: discord.Interaction[Any], game: int | None = None
    ) -> None:
        await defer_first(interaction)  # the request is posted for both players to see
        offer = await self.bot.opponent.request_takeback(
            channel_id=interaction.channel_id or 0,
            user=user_ref(interaction.user),
            game_id=game,
            guild_id=interaction.guild_id,
        )
        if isinstance(offer, GameView):  # Fairy Post granted it at once
            await interaction.followup.send(
                f"Fairy Post allows the takeback: **{shown(offer.status)}**. The board follows."
            )
            answered(interaction)
            self.bot.effects.poke()
            return
        await self._post_offer(interaction, offer, "takeback")

    async def _post_offer(
        self, interaction: discord.Interaction[Any], offer: OfferView, kind: str
    ) -> None:
        if kind == "draw":
            assert offer.offer is not None
            request_id = offer.offer.id
            text = (
                f"{mention(offer.to_id)}, {shown(offer.by_name)} offers a draw. "
                f"(It stands until {shown(offer.by_name)} moves again.)"
            )
        else:
            assert offer.takeback is not None
            request_id = offer.takeback.id
            plies = (
                "their last move" if offer.takeback.plies == 1 else "their last move and your reply"
            )
            text = f"{mention(offer.to_id)}, {shown(offer.by_name)} asks to take back {plies}."
        message = await interaction.followup.send(
            text, view=offer_view(kind, request_id), wait=True, allowed_mentions=pings(offer.to_id)
        )
        answered(interaction)
        posts = OfferPostService(self.bot.service)
        await posts.record(kind, request_id, offer.game.id, message.channel.id, message.id)
        # Moves after this one settle the post through their effects; a move made while
        # this post was being sent may have settled the request already.
        for post in await posts.to_settle(offer.game.id):
            if (post.kind, post.request_id) == (kind, request_id):
                await message.edit(
                    content=settled_offer_text(post), view=None, allowed_mentions=NO_PINGS
                )
                await posts.settled(kind, request_id)


async def answer_offer(
    bot: Fairy, interaction: discord.Interaction[Any], kind: str, request_id: int, accept: bool
) -> None:
    """The opponent's answer to a draw offer or a takeback request, from its buttons."""
    await interaction.response.defer()
    user = user_ref(interaction.user)
    service = bot.service
    outcome: OfferView | EndResult | GameView
    try:
        if kind == "draw":
            outcome = await service.answer_draw(request_id, user, accept=accept)
        else:
            outcome = await service.answer_takeback(request_id, user, accept=accept)
    except Exception as exc:
        await send_error(interaction, exc, f"{kind} {request_id}")
        return
    posts = OfferPostService(service)
    if isinstance(outcome, OfferView):
        request = outcome.offer or outcome.takeback
        verdict = request.status.value if request is not None else "declined"
        what = "draw offer" if kind == "draw" else "takeback request"
        await interaction.edit_original_response(
            content=f"The {what} was {verdict} by {shown(user.name)}.",
            view=None,
            allowed_mentions=NO_PINGS,
        )
        await posts.settled(kind, request_id)
        return
    await interaction.edit_original_response(
        content=f"{shown(user.name)} accepted the {'draw' if kind == 'draw' else 'takeback'}.",
        view=None,
        allowed_mentions=NO_PINGS,
    )
    await posts.settled(kind, request_id)
    # The board (or the final result) follows in the thread: a recorded effect of the event.
    bot.effects.poke()
    bot.timers.poke()


async def setup(bot: commands.Bot) -> None:
    await install(bot, Play(fairy(bot)), OfferButton)
