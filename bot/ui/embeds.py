"""Embeds built from the service's views: what players read beside the board picture.

Names and texts that players chose go in through `shown` (their markdown and `@` inert), and
every embed leaves through `fit_embed` (each part within Discord's limits)."""

from __future__ import annotations

import discord

from bot.service.models import (
    ChallengeView,
    DefinedVariant,
    GalleryLine,
    GameSummary,
    GameView,
    GuildVariantLine,
    PieceInfo,
    RulesView,
    VariantInfo,
)
from bot.service.offer_posts import WHAT, SettledOfferPost
from bot.ui.fit import fit_embed
from bot.ui.format import clip, days, deadline, jump_link, mention, shown
from storage.models import ChallengeStatus, RatingChange, RequestStatus

GREEN = discord.Colour.from_rgb(84, 139, 84)
GOLD = discord.Colour.from_rgb(196, 160, 64)
GREY = discord.Colour.from_rgb(120, 120, 120)
RED = discord.Colour.from_rgb(190, 70, 60)
IMAGE = "attachment://board.png"


def challenge_embed(view: ChallengeView, *, with_image: bool = True) -> discord.Embed:
    c = view.challenge
    v = view.variant
    who = f"**{shown(view.challenger_name)}** challenges " + (
        f"**{shown(view.opponent_name)}**" if view.opponent_name else "anyone in this channel"
    )
    colour_text = {"white": "plays White", "black": "plays Black", "random": "colours at random"}
    embed = discord.Embed(
        title=f"{shown(v.name)} — challenge #{c.id}",
        description=f"{who}.\n*{shown(one_line(v.description, 300))}*",
        colour=GOLD if c.status is ChallengeStatus.OPEN else GREY,
    )
    embed.add_field(name="Board", value=v.size)
    embed.add_field(name="Clock", value=days(c.clock.move_seconds))
    embed.add_field(name="Rated", value="yes" if c.rated else "no (casual)")
    embed.add_field(name="Colours", value=f"the challenger {colour_text[c.color.value]}")
    if c.options:
        embed.add_field(name="Options", value=", ".join(c.options))
    if c.status is ChallengeStatus.OPEN:
        embed.add_field(name="Expires", value=deadline(c.expires_at), inline=False)
    else:
        embed.add_field(name="Status", value=c.status.value, inline=False)
    if v.status != "documented":
        embed.set_footer(text="The starting array of this variant is reconstructed (see /rules).")
    if with_image:
        embed.set_image(url=IMAGE)
    return fit_embed(embed)


def one_line(text: str, limit: int) -> str:
    """A player's text (a description may hold line breaks) on one line of a list."""
    return clip(" ".join(text.split()), limit)


def game_title(view: GameView) -> str:
    names = f"{shown(view.white_name)} vs {shown(view.black_name)}"
    return f"{shown(view.variant.name)} · {names} · game #{view.game.id}"


def game_embed(
    view: GameView, *, headline: str | None = None, with_image: bool = True
) -> discord.Embed:
    g = view.game
    colour = RED if view.in_check else GREEN if g.is_active else GREY
    # Wherever the post is seen (a /board in the lobby, a DM), its title opens the game's
    # thread, and the footer says how anyone follows the game from any channel.
    where = g.thread_id or g.channel_id
    embed = discord.Embed(
        title=clip(game_title(view), 256), colour=colour, url=jump_link(g.guild_id, where)
    )
    embed.set_footer(text=f"Follow this game from any channel: /board game:{g.id}")
    lines = []
    if headline:
        lines.append(headline)
    lines.append(f"**{shown(view.status)}**")
    if g.is_active:
        if g.clock_paused:
            lines.append("⏸ Clock stopped: the player to move is on vacation.")
        elif g.deadline_at is not None:
            lines.append(f"Deadline: {deadline(g.deadline_at)}")
    embed.description = "\n".join(lines)
    if view.recent_moves:
        embed.add_field(name="Last moves", value="\n".join(view.recent_moves), inline=False)
    embed.add_field(name="White", value=shown(view.white_name))
    embed.add_field(name="Black", value=shown(view.black_name))
    if view.variant.start_array:
        # A random setup's array, drawn when the game started: the same for its whole life.
        embed.add_field(name="Starting array", value=f"`{view.variant.start_array}`")
    if with_image:
        embed.set_image(url=IMAGE)
    return fit_embed(embed)


def rating_lines(changes: tuple[RatingChange, ...], names: dict[int, str]) -> str:
    return "\n".join(
        f"{shown(names.get(c.user_id, str(c.user_id)))}: {c.rating_before:.0f} → "
        f"{c.rating_after:.0f} "
        f"({c.delta:+.0f})"
        for c in changes
    )


def games_embed(
    user_name: str, games: list[GameSummary], *, finished: bool = False
) -> discord.Embed:
    who = shown(user_name)
    title = f"Finished games of {who}" if finished else f"Games of {who}"
    embed = discord.Embed(title=title, colour=GREEN)
    if not games:
        embed.description = (
            "No finished game yet."
            if finished
            else "No game in progress. Start one with /challenge."
        )
        return fit_embed(embed)
    lines = []
    for s in games[:20]:
        g = s.game
        where = f"<#{g.thread_id}>" if g.thread_id else f"game #{g.id}"
        if finished:
            lines.append(
                f"{where} · {shown(s.variant_name)} vs {shown(s.opponent_name)} ({s.color}) · "
                f"{shown(s.ending)}"
            )
            continue
        turn = "**your turn**" if s.my_turn else f"{shown(s.opponent_name)} to move"
        clock = f", {deadline(g.deadline_at)}" if g.deadline_at else ""
        lines.append(
            f"{where} · {shown(s.variant_name)} vs {shown(s.opponent_name)} ({s.color}) · "
            f"{turn}{clock}"
        )
    embed.description = clip("\n".join(lines), 4096)
    if len(games) > 20:
        embed.set_footer(text=f"and {len(games) - 20} more")
    return fit_embed(embed)


def variants_embed(infos: list[VariantInfo]) -> discord.Embed:
    """The built-in variants, then this server's own in a field of their own."""
    embed = discord.Embed(title="Variants", colour=GREEN)
    lines = [
        f"**{shown(v.name)}** (`{v.id}`, {v.size}) — {shown(one_line(v.description, 90))}"
        for v in infos
        if not v.own
    ]
    embed.description = clip("\n".join(lines), 4096)
    own = [
        f"**{shown(v.name)}** (`{v.id}`, {v.size}, v{v.version} by {mention(v.author_id or 0)})"
        for v in infos
        if v.own
    ]
    if own:
        embed.add_field(
            name="This server's variants", value=clip("\n".join(own), 1024), inline=False
        )
    embed.set_footer(
        text="/rules VARIANT for the rules and the pieces, /challenge VARIANT to play, "
        "/variant define to add your own"
    )
    return fit_embed(embed)


def piece_embed(info: PieceInfo, variant_name: str) -> discord.Embed:
    embed = discord.Embed(
        title=f"{shown(info.name)} ({info.letters}) in {shown(variant_name)}",
        description=shown(info.movement),
        colour=GREEN,
    )
    embed.set_image(url=IMAGE)
    embed.set_footer(text="Dots: moves. Rings: captures. Both: moves or captures.")
    return fit_embed(embed)


def piece_value(centipawns: int | None) -> str:
    """The value column of /rules: Pawns with one decimal (`9.4`), `royal` for a royal
    piece (no material value: losing it ends the game)."""
    if centipawns is None:
        return "?"
    if centipawns == 0:
        return "royal"
    return f"{centipawns / 100:.1f}"


def rules_embed(view: RulesView, *, with_image: bool = True) -> discord.Embed:
    v = view.variant
    embed = discord.Embed(
        title=f"{shown(v.label)} ({v.size})",
        description=shown(v.description) or None,
        colour=GREEN,
    )
    if v.own and v.author_id:
        embed.add_field(name="Defined by", value=mention(v.author_id))
    if v.inventor:
        embed.add_field(name="Inventor", value=shown(v.inventor), inline=False)
    legend = "\n".join(
        f"`{p.letters:>2}` {p.characters + ' ' if p.characters else ''}{shown(p.name)} "
        f"`{piece_value(p.value)}` — {shown(p.movement)}"
        for p in view.pieces
    )
    embed.add_field(name="Pieces (value in Pawns)", value=clip(legend, 1024), inline=False)
    if view.summary:
        rules = "\n".join(shown(line) for line in view.summary)
        embed.add_field(name="Rules", value=clip(rules, 1024), inline=False)
    if v.options:
        embed.add_field(
            name="Options",
            value=clip("\n".join(f"`{n}`: {shown(d)}" for n, d in v.options), 1024),
            inline=False,
        )
    if with_image:
        embed.set_image(url=IMAGE)
    return fit_embed(embed)


def settled_offer_text(post: SettledOfferPost) -> str:
    """A draw offer's or takeback request's post once it is settled: who made it and what
    became of it."""
    by = shown(post.by_name)
    what = WHAT[post.kind]
    if post.status is not RequestStatus.LAPSED:
        return f"{by}'s {what} was {post.status.value}."
    why = f"{by} {post.why}" if post.why.startswith("moved") else post.why
    return f"{by}'s {what} lapsed: {why}."


def to_move_mention(view: GameView) -> str:
    if not view.game.is_active:
        return f"{mention(view.game.white_id)} {mention(view.game.black_id)}"
    return mention(view.game.player_id(view.game.turn))


def defined_embed(result: DefinedVariant, *, with_image: bool = True) -> discord.Embed:
    """/variant define's answer and announcement: the rules as /rules shows them, what is
    new, the sanity run (for the author)."""
    embed = rules_embed(result.rules, with_image=with_image)
    v = result.rules.variant
    if result.replaced_version:
        headline = f"Version {v.version} of `{v.id}` replaces version {result.replaced_version}."
    else:
        headline = f"`{v.id}` is now one of this server's variants: /challenge variant:{v.id}"
    origin = f"\nImported: {shown(result.origin)}." if result.origin else ""
    embed.description = clip(f"**{headline}**{origin}\n{shown(v.description)}", 4096)
    if result.new_pieces:
        names = ", ".join(f"{shown(p.name)} ({p.letters})" for p in result.new_pieces)
        embed.add_field(name="New to Fairy Post", value=clip(names, 1024), inline=False)
    if result.sanity:
        sanity = "\n".join(shown(line) for line in result.sanity)
        embed.add_field(name="Sanity run", value=clip(sanity, 1024), inline=False)
    embed.set_footer(
        text="Games keep the version they start with. /variant export gives the file back."
    )
    return fit_embed(embed)


def variant_list_embed(lines: list[GuildVariantLine]) -> discord.Embed:
    embed = discord.Embed(title="This server's variants", colour=GREEN)
    if not lines:
        embed.description = (
            "None yet. Write one (docs/variants.md) and add it with /variant define."
        )
        return fit_embed(embed)
    embed.description = clip(
        "\n".join(
            f"**{shown(line.info.name)}** (`{line.info.id}`, {line.info.size}) "
            f"v{line.info.version} by {shown(line.author_name)} · "
            f"{line.games} game{'' if line.games == 1 else 's'}"
            + (f" · imported: {shown(line.origin)}" if line.origin else "")
            for line in lines
        ),
        4096,
    )
    return fit_embed(embed)


def gallery_embed(lines: list[GalleryLine]) -> discord.Embed:
    """/variant gallery: the shared variants imported most often (names from every server:
    shown as text, never a mention)."""
    embed = discord.Embed(title="Shared variants, the most imported first", colour=GREEN)
    if not lines:
        embed.description = (
            "No shared variant has been imported yet. /variant share gives a code for one of "
            "this server's; /variant import takes one."
        )
        return fit_embed(embed)
    embed.description = clip(
        "\n".join(
            f"**{shown(line.name)}** (`{line.variant_id}`) v{line.version} by "
            f"{shown(line.author_name)} · {line.imports} import"
            f"{'' if line.imports == 1 else 's'} · /variant import code:{line.code}"
            for line in lines
        ),
        4096,
    )
    return fit_embed(embed)
