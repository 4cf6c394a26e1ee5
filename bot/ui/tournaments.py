"""Tournament embeds: the sign-up post, the standings beside the crosstable picture."""

from __future__ import annotations

import discord

from bot.service.tournaments import Table, TournamentView
from bot.ui.embeds import GOLD, GREEN, GREY
from bot.ui.format import clip, days, mention, timestamp

CROSSTABLE = "attachment://crosstable.png"
STATUS = {
    "signup": "sign-up open",
    "running": "running",
    "finished": "finished",
    "cancelled": "cancelled",
}


def signup_embed(view: TournamentView) -> discord.Embed:
    t = view.tournament
    colour = GOLD if t.status == "signup" else GREEN if t.status == "running" else GREY
    embed = discord.Embed(
        title=clip(f"🏆 {t.name} — tournament #{t.id}", 256),
        description=f"A {view.format_name} of **{view.variant_name}**, organised by "
        f"{mention(t.created_by)}.",
        colour=colour,
    )
    if t.swiss:
        rounds = f"{t.rounds} rounds" if t.rounds else "rounds: set at the start"
        bye = {"1": "1 point", "1/2": "½ point", "0": "0 points"}[t.bye_points]
        embed.add_field(name="Rounds", value=f"{rounds}; a bye scores {bye}")
    else:
        embed.add_field(
            name="Games",
            value="all at once" if t.all_at_once else "round by round",
        )
    embed.add_field(name="Clock", value=days(t.clock.move_seconds))
    embed.add_field(name="Rated", value="yes" if t.rated else "no")
    names = ", ".join(name for _id, name in view.players) or "nobody yet"
    embed.add_field(
        name=f"Players ({len(view.players)}/{t.max_players})", value=clip(names, 1024), inline=False
    )
    if t.status == "signup":
        when = (
            f"starts {timestamp(t.starts_at)}" if t.starts_at else "starts when the organiser says"
        )
        embed.add_field(name="Status", value=f"sign-up open; {when}", inline=False)
    else:
        embed.add_field(
            name="Status",
            value=STATUS[t.status] + (f" ({t.end_reason})" if t.end_reason else ""),
            inline=False,
        )
    embed.set_footer(text=f"Tournament #{t.id}")
    return embed


def table_embed(table: Table, *, headline: str = "", marker: str = "") -> discord.Embed:
    t = table.view.tournament
    embed = discord.Embed(
        title=clip(f"{t.name} — standings", 256),
        description=clip((headline + "\n" if headline else "") + f"```\n{table.text}\n```", 4000),
        colour=GREEN if t.status == "running" else GREY,
    )
    embed.set_image(url=CROSSTABLE)
    embed.set_footer(text=marker or f"Tournament #{t.id}")
    return embed
