"""Board posts and the Move button under them.

`post_view` is how every command posts a position; `board_view` puts a **Move** button
under the board of a running game. The button opens, for the player to move only, a
private menu: the pieces that can move (by type, in pages of 25), then their destinations
(in pages too), then the promotion or other choices when a destination allows several
moves; the move is then played through the service exactly as `/move` plays it, and
posted like a `/move`. Every button and select is a `DynamicItem` whose custom id carries
the game, the ply the menu was made for, and what was chosen so far: the menus keep
working across restarts, and a menu older than the position is refused.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord.ext import commands

from bot.cogs.common import (
    Fairy,
    answered,
    fairy,
    install,
    picture_file,
    reply_privately,
    send_error,
    user_ref,
)
from bot.service.errors import PositionChangedError
from bot.service.models import GameView, MoveResult, UserRef
from bot.service.picker import MovePicker, PickerStep
from bot.ui.embeds import game_embed
from bot.ui.format import NO_PINGS, shown

log = logging.getLogger("fairypost.boards")


def board_view(view: GameView) -> discord.ui.View | None:
    """The Move button under the board of a running game (none once it is over)."""
    if view.finished:
        return None
    out = discord.ui.View(timeout=None)
    out.add_item(MoveButton(view.game.id))
    return out


async def post_view(
    bot: Fairy,
    interaction: discord.Interaction[Any],
    view: GameView,
    *,
    headline: str | None = None,
    content: str | None = None,
    ephemeral: bool = False,
) -> None:
    """Acknowledge, draw the board in a worker thread, then post it (with the Move button
    when the post is public and the game is running)."""
    if not interaction.response.is_done():
        await interaction.response.defer(thinking=True, ephemeral=ephemeral)
    picture = await bot.service.render(view.scene, viewer=interaction.user.id)
    buttons = None if ephemeral else board_view(view)
    await interaction.followup.send(
        content=content or discord.utils.MISSING,
        allowed_mentions=NO_PINGS,
        embed=game_embed(view, headline=headline),
        file=picture_file(picture),
        ephemeral=ephemeral,
        view=buttons or discord.utils.MISSING,
    )
    answered(interaction)


async def acknowledge(bot: Fairy, interaction: discord.Interaction[Any], text: str) -> None:
    """The reply only the actor sees. What everyone sees (the board, the result, the ratings)
    was recorded with the event and is posted in the thread by the effects loop, exactly
    once even if the bot stops right now (`bot/announce.py`)."""
    await reply_privately(interaction, text)
    recorded(bot)


def recorded(bot: Fairy) -> None:
    """An event was committed with its effects (and maybe an earlier timer): wake the loops
    that carry them out."""
    bot.effects.poke()
    bot.timers.poke()


async def post_move(
    bot: Fairy, interaction: discord.Interaction[Any], user: UserRef, result: MoveResult
) -> None:
    """After a move, however it was made: the mover's confirmation. The board after it is
    the move's recorded effect, posted in the thread with the Move button."""
    view = result.view
    log.info("game %s ply %s: %s", view.game.id, view.game.ply_count, result.notation)
    await acknowledge(bot, interaction, played_text(result, user))


def played_text(result: MoveResult, user: UserRef) -> str:
    """What the mover reads, from /move and from the Move button alike: their move, the
    opponent's conditional answer when one was played at once, and the end if it came."""
    view = result.view
    ending = f" — **{shown(view.status)}**" if view.finished else ""
    text = f"You played **{result.notation}**"
    if result.answer is not None:
        answerer = view.name_of(view.game.opponent_of(user.id))
        text += (
            f"; {shown(answerer)} had left an answer to it, played at once: **{result.answer}** "
            "*(conditional move)*"
        )
    return text + f"{ending}."


# ---------------------------------------------------------------------------- the menus


def _picker(interaction: discord.Interaction[Any]) -> tuple[Fairy, MovePicker]:
    bot = fairy(interaction.client)
    return bot, MovePicker(bot.service)


def _page_buttons(step: PickerStep, make: Any) -> list[discord.ui.Item[Any]]:
    out: list[discord.ui.Item[Any]] = []
    if step.page > 0:
        out.append(make(step.page - 1, "◀ Previous"))
    if step.page + 1 < step.pages:
        out.append(make(step.page + 1, "Next ▶"))
    return out


def pieces_view(step: PickerStep) -> discord.ui.View:
    out = discord.ui.View(timeout=None)
    out.add_item(PieceSelect(step.game_id, step.ply, step.page, step))
    for item in _page_buttons(
        step, lambda page, label: PiecePageButton(step.game_id, step.ply, page, label)
    ):
        out.add_item(item)
    return out


def targets_view(step: PickerStep) -> discord.ui.View:
    assert step.origin is not None
    origin = step.origin
    out = discord.ui.View(timeout=None)
    out.add_item(TargetSelect(step.game_id, step.ply, origin, step.page, step))
    for item in _page_buttons(
        step,
        lambda page, label: TargetPageButton(step.game_id, step.ply, origin, page, label),
    ):
        out.add_item(item)
    out.add_item(PiecePageButton(step.game_id, step.ply, 0, "◀ Other piece"))
    return out


def choices_view(step: PickerStep) -> discord.ui.View:
    assert step.origin is not None and step.target is not None
    out = discord.ui.View(timeout=None)
    out.add_item(ChoiceSelect(step.game_id, step.ply, step.origin, step.target, step))
    out.add_item(PiecePageButton(step.game_id, step.ply, 0, "◀ Other piece"))
    return out


def _options(step: PickerStep) -> list[discord.SelectOption]:
    return [
        discord.SelectOption(label=o.label, value=o.value, description=o.description or None)
        for o in step.options
    ]


def _placeholder(step: PickerStep) -> str:
    return step.prompt[:150]


async def _show(
    interaction: discord.Interaction[Any], step: PickerStep, view: discord.ui.View
) -> None:
    await interaction.edit_original_response(content=f"**{step.prompt}**", view=view)


async def _play(interaction: discord.Interaction[Any], game_id: int, ply: int, text: str) -> None:
    """Play the chosen move as `/move` would, then close the menu."""
    bot = fairy(interaction.client)
    user = user_ref(interaction.user)
    result = await bot.service.play(
        channel_id=interaction.channel_id or 0,
        user=user,
        text=text,
        game_id=game_id,
        at_ply=ply,
    )
    await interaction.edit_original_response(content=played_text(result, user), view=None)
    log.info("game %s ply %s: %s", game_id, result.view.game.ply_count, result.notation)
    recorded(bot)  # the board after the move is its recorded effect


async def _step(interaction: discord.Interaction[Any], context: str, action: Any) -> None:
    """Acknowledge at once (the 3-second rule), then compute and show the next menu;
    refusals go to the player alone."""
    if not interaction.response.is_done():
        await interaction.response.defer()
    try:
        await action()
    except Exception as exc:
        await send_error(interaction, exc, context)


class MoveButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"fp:move:(?P<game>\d+)"):
    """Under every board of a running game: opens the move menu for the player to move."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Move", style=discord.ButtonStyle.primary, custom_id=f"fp:move:{game_id}"
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MoveButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        _, picker = _picker(interaction)
        try:
            step = await picker.pieces(game_id=self.game_id, user_id=interaction.user.id)
        except Exception as exc:
            await send_error(interaction, exc, f"move button of game {self.game_id}")
            return
        await interaction.followup.send(
            content=f"**{step.prompt}**", view=pieces_view(step), ephemeral=True
        )


class PiecePageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"fp:mvpage:(?P<game>\d+):(?P<ply>\d+):(?P<page>\d+)",
):
    """A page of the piece menu (also "Other piece", back to the first page)."""

    def __init__(self, game_id: int, ply: int, page: int, label: str = "Pieces") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"fp:mvpage:{game_id}:{ply}:{page}",
            )
        )
        self.game_id, self.ply, self.page = game_id, ply, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PiecePageButton:
        return cls(int(match["game"]), int(match["ply"]), int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async def action() -> None:
            _, picker = _picker(interaction)
            step = await picker.pieces(
                game_id=self.game_id, user_id=interaction.user.id, page=self.page
            )
            if step.ply != self.ply:
                raise PositionChangedError(self.game_id)
            await _show(interaction, step, pieces_view(step))

        await _step(interaction, f"move menu of game {self.game_id}", action)


def _select(custom_id: str, step: PickerStep | None, base: discord.ui.Item[Any] | None) -> Any:
    """The select of a menu: built from a step when sent, from the message when clicked."""
    placeholder: str | None
    if step is not None:
        options = _options(step)
        placeholder = _placeholder(step)
    else:
        assert isinstance(base, discord.ui.Select)
        options, placeholder = list(base.options), base.placeholder
    return discord.ui.Select(custom_id=custom_id, options=options, placeholder=placeholder)


def _chosen(item: discord.ui.DynamicItem[Any]) -> str:
    select = item.item
    assert isinstance(select, discord.ui.Select)
    return str(select.values[0])


class PieceSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"fp:mvpiece:(?P<game>\d+):(?P<ply>\d+):(?P<page>\d+)",
):
    """Step 1: the piece (its square, or `@` and letters for a piece in hand)."""

    def __init__(
        self,
        game_id: int,
        ply: int,
        page: int,
        step: PickerStep | None = None,
        base: discord.ui.Item[Any] | None = None,
    ) -> None:
        super().__init__(_select(f"fp:mvpiece:{game_id}:{ply}:{page}", step, base))
        self.game_id, self.ply = game_id, ply

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PieceSelect:
        return cls(int(match["game"]), int(match["ply"]), int(match["page"]), base=item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async def action() -> None:
            _, picker = _picker(interaction)
            step = await picker.targets(
                game_id=self.game_id,
                user_id=interaction.user.id,
                ply=self.ply,
                origin=_chosen(self),
            )
            await _show(interaction, step, targets_view(step))

        await _step(interaction, f"move menu of game {self.game_id}", action)


class TargetPageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"fp:mvtopage:(?P<game>\d+):(?P<ply>\d+):(?P<origin>[^:]+):(?P<page>\d+)",
):
    """A page of the destinations of a long-range piece."""

    def __init__(self, game_id: int, ply: int, origin: str, page: int, label: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"fp:mvtopage:{game_id}:{ply}:{origin}:{page}",
            )
        )
        self.game_id, self.ply, self.origin, self.page = game_id, ply, origin, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TargetPageButton:
        label = getattr(item, "label", None) or "Page"
        return cls(
            int(match["game"]), int(match["ply"]), match["origin"], int(match["page"]), label
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async def action() -> None:
            _, picker = _picker(interaction)
            step = await picker.targets(
                game_id=self.game_id,
                user_id=interaction.user.id,
                ply=self.ply,
                origin=self.origin,
                page=self.page,
            )
            await _show(interaction, step, targets_view(step))

        await _step(interaction, f"move menu of game {self.game_id}", action)


class TargetSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"fp:mvto:(?P<game>\d+):(?P<ply>\d+):(?P<origin>[^:]+):(?P<page>\d+)",
):
    """Step 2: the destination; a single move there is played at once."""

    def __init__(
        self,
        game_id: int,
        ply: int,
        origin: str,
        page: int,
        step: PickerStep | None = None,
        base: discord.ui.Item[Any] | None = None,
    ) -> None:
        super().__init__(_select(f"fp:mvto:{game_id}:{ply}:{origin}:{page}", step, base))
        self.game_id, self.ply, self.origin = game_id, ply, origin

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TargetSelect:
        return cls(
            int(match["game"]), int(match["ply"]), match["origin"], int(match["page"]), base=item
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async def action() -> None:
            _, picker = _picker(interaction)
            step = await picker.choices(
                game_id=self.game_id,
                user_id=interaction.user.id,
                ply=self.ply,
                origin=self.origin,
                target=_chosen(self),
            )
            text = picker.move_text(step)
            if text is not None:
                await _play(interaction, self.game_id, self.ply, text)
            else:
                await _show(interaction, step, choices_view(step))

        await _step(interaction, f"move menu of game {self.game_id}", action)


class ChoiceSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"fp:mvch:(?P<game>\d+):(?P<ply>\d+):(?P<origin>[^:]+):(?P<target>[a-p]\d{1,2})",
):
    """Step 3, when a destination allows several moves: which one (promotions)."""

    def __init__(
        self,
        game_id: int,
        ply: int,
        origin: str,
        target: str,
        step: PickerStep | None = None,
        base: discord.ui.Item[Any] | None = None,
    ) -> None:
        super().__init__(_select(f"fp:mvch:{game_id}:{ply}:{origin}:{target}", step, base))
        self.game_id, self.ply = game_id, ply

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChoiceSelect:
        return cls(
            int(match["game"]), int(match["ply"]), match["origin"], match["target"], base=item
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async def action() -> None:
            await _play(interaction, self.game_id, self.ply, _chosen(self))

        await _step(interaction, f"move menu of game {self.game_id}", action)


COMPONENTS = (
    MoveButton,
    PiecePageButton,
    PieceSelect,
    TargetPageButton,
    TargetSelect,
    ChoiceSelect,
)


async def setup(bot: commands.Bot) -> None:
    await install(bot, None, *COMPONENTS)
