"""Buttons that keep working after a restart: each is a `DynamicItem` whose custom id
carries what it acts on; clicking loads everything from storage through the service."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord

if TYPE_CHECKING:
    from bot.client import FairyPost


def _client(interaction: discord.Interaction[Any]) -> FairyPost:
    from bot.client import FairyPost

    client = interaction.client
    assert isinstance(client, FairyPost)
    return client


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"fp:challenge:(?P<id>\d+):(?P<action>accept|decline)",
):
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
        from bot.cogs.challenges import answer_challenge

        await answer_challenge(
            _client(interaction), interaction, self.challenge_id, self.action == "accept"
        )


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
        from bot.cogs.play import answer_offer

        await answer_offer(
            _client(interaction), interaction, self.kind, self.request_id, self.action == "accept"
        )


def challenge_view(challenge_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ChallengeButton(challenge_id, "accept"))
    view.add_item(ChallengeButton(challenge_id, "decline"))
    return view


def offer_view(kind: str, request_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(OfferButton(kind, request_id, "accept"))
    view.add_item(OfferButton(kind, request_id, "decline"))
    return view
