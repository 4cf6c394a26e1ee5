"""/variant define|show|export|list|delete|share|import|gallery: a server's own variants,
from TOML files (or Fairy-Stockfish's variants.ini, in and out), and shared between servers
by code."""

from __future__ import annotations

import io
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.common import Fairy, channel_of, fairy, guild_of, install, picture_file, user_ref
from bot.service.errors import BadRequestError
from bot.service.models import Picture
from bot.ui.embeds import defined_embed, gallery_embed, rules_embed, variant_list_embed
from bot.ui.format import NO_PINGS, shown
from rules.limits import MAX_FILE_BYTES


def _manages(interaction: discord.Interaction[Any]) -> bool:
    return bool(interaction.permissions.manage_guild)


class Variants(commands.Cog):
    def __init__(self, bot: Fairy) -> None:
        self.bot = bot

    variant = app_commands.Group(
        name="variant", description="This server's own variants", guild_only=True
    )

    @variant.command(
        name="define",
        description="Add a variant from a TOML file (or a Fairy-Stockfish variants.ini)",
    )
    @app_commands.describe(
        file="A .toml file (docs/variants.md), or a Fairy-Stockfish variants.ini"
    )
    async def define(self, interaction: discord.Interaction[Any], file: discord.Attachment) -> None:
        guild_id = guild_of(interaction)
        if file.size > MAX_FILE_BYTES:
            raise BadRequestError(
                f"{file.filename} is {file.size:,} bytes; a definition may be at most "
                f"{MAX_FILE_BYTES:,} bytes."
            )
        # Deferred privately: a refusal reaches only the author. The announcement to the
        # channel was recorded with the new version and is posted by the effects loop.
        await interaction.response.defer(thinking=True, ephemeral=True)
        data = await file.read()
        result = await self.bot.service.variants.define_file(
            guild_id,
            user_ref(interaction.user),
            can_manage=_manages(interaction),
            filename=file.filename,
            data=data,
            channel_id=channel_of(interaction),
        )
        self.bot.effects.poke()
        if len(result.defined) == 1 and not result.refused:
            one = result.defined[0]
            v = one.rules.variant
            await interaction.followup.send(
                f"Done: **{shown(v.name)}** (`{v.id}`) version {v.version} is defined; "
                "its announcement follows in this channel.",
                embed=defined_embed(one, with_image=False),
                ephemeral=True,
            )
            return
        lines = [
            f"- **{shown(d.rules.variant.name)}** (`{d.rules.variant.id}`) version "
            f"{d.rules.variant.version}"
            for d in result.defined
        ]
        refused = [f"- {shown(r.splitlines()[0])[:300]}" for r in result.refused[:8]]
        text = f"Defined from {shown(file.filename)} (announcements follow):\n" + "\n".join(lines)
        if refused:
            more = len(result.refused) - len(refused)
            text += (
                "\nNot defined:\n" + "\n".join(refused) + (f"\n… and {more} more" if more else "")
            )
        await interaction.followup.send(text[:1900], ephemeral=True, allowed_mentions=NO_PINGS)

    @variant.command(
        name="show", description="Rules, pieces and start of one of this server's variants"
    )
    @app_commands.describe(variant="The server's variant")
    async def show(self, interaction: discord.Interaction[Any], variant: str) -> None:
        guild_id = guild_of(interaction)
        await interaction.response.defer(thinking=True, ephemeral=True)
        view = await self.bot.service.variants.show(guild_id, variant)
        picture: Picture = await self.bot.service.render(view.scene, viewer=interaction.user.id)
        await interaction.followup.send(
            embed=rules_embed(view), file=picture_file(picture), ephemeral=True
        )

    @variant.command(
        name="export",
        description="One of this server's variants as its TOML file, or any as a variants.ini",
    )
    @app_commands.describe(
        variant="The server's variant (or, as ini, any variant)",
        format="toml (the file, to edit and define again) or ini (for Fairy-Stockfish)",
    )
    async def export(
        self,
        interaction: discord.Interaction[Any],
        variant: str,
        format: Literal["toml", "ini"] = "toml",
    ) -> None:
        guild_id = guild_of(interaction)
        found = await self.bot.service.variants.export(guild_id, variant, format)
        file = discord.File(io.BytesIO(found.text.encode("utf-8")), filename=found.filename)
        if format == "ini":
            note = (
                f"**{shown(found.name)}** as a Fairy-Stockfish variants.ini section: load it "
                "with `load_variant_config` (pyffish) or the engine's VariantPath."
            )
        else:
            note = (
                f"**{shown(found.name)}**, version {found.version}: edit it and give it back "
                "with /variant define to make the next version."
            )
        await interaction.response.send_message(note, file=file, ephemeral=True)

    @variant.command(name="list", description="This server's variants, their authors and games")
    async def list_(self, interaction: discord.Interaction[Any]) -> None:
        guild_id = guild_of(interaction)
        await interaction.response.defer(thinking=True, ephemeral=True)
        lines = await self.bot.service.variants.listing(guild_id)
        await interaction.followup.send(embed=variant_list_embed(lines), ephemeral=True)

    @variant.command(name="delete", description="Remove one of this server's variants")
    @app_commands.describe(variant="The server's variant (its games keep working)")
    async def delete(self, interaction: discord.Interaction[Any], variant: str) -> None:
        guild_id = guild_of(interaction)
        info = await self.bot.service.variants.delete(
            guild_id,
            user_ref(interaction.user),
            can_manage=_manages(interaction),
            text=variant,
        )
        await interaction.response.send_message(
            f"**{shown(info.name)}** (`{info.id}`) is no longer one of this server's variants. "
            "Its games keep their rules; defining the same id again continues its versions.",
            allowed_mentions=NO_PINGS,
        )

    @variant.command(
        name="share", description="A code other servers import one of this server's variants by"
    )
    @app_commands.describe(variant="The server's variant (its current version is shared)")
    async def share(self, interaction: discord.Interaction[Any], variant: str) -> None:
        guild_id = guild_of(interaction)
        shared = await self.bot.service.variants.share(
            guild_id,
            user_ref(interaction.user),
            can_manage=_manages(interaction),
            text=variant,
        )
        await interaction.response.send_message(
            f"**{shown(shared.name)}** (`{shared.variant_id}`) version {shared.version} is "
            f"shared under the code `{shared.code}`. On another server: "
            f"`/variant import code:{shared.code}`. Later versions need a new code.",
            allowed_mentions=NO_PINGS,
        )

    @variant.command(name="import", description="Copy a variant another server shared here")
    @app_commands.describe(code="The code /variant share gave on the other server")
    async def import_(self, interaction: discord.Interaction[Any], code: str) -> None:
        guild_id = guild_of(interaction)
        await interaction.response.defer(thinking=True, ephemeral=True)
        one = await self.bot.service.variants.import_share(
            guild_id, user_ref(interaction.user), code=code, channel_id=channel_of(interaction)
        )
        self.bot.effects.poke()
        v = one.rules.variant
        await interaction.followup.send(
            f"Done: **{shown(v.name)}** (`{v.id}`) is imported ({shown(one.origin)}); "
            "its announcement follows in this channel.",
            embed=defined_embed(one, with_image=False),
            ephemeral=True,
            allowed_mentions=NO_PINGS,
        )

    @variant.command(name="gallery", description="The shared variants imported most often")
    async def gallery(self, interaction: discord.Interaction[Any]) -> None:
        lines = await self.bot.service.variants.gallery()
        await interaction.response.send_message(embed=gallery_embed(lines), ephemeral=True)

    @show.autocomplete("variant")
    @export.autocomplete("variant")
    @delete.autocomplete("variant")
    @share.autocomplete("variant")
    async def own_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        found = await self.bot.service.variants.suggestions(
            interaction.guild_id, current, own_only=True
        )
        return [app_commands.Choice(name=s.name, value=s.value) for s in found]


async def setup(bot: commands.Bot) -> None:
    await install(bot, Variants(fairy(bot)))
