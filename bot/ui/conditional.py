"""Conditional moves as their owner reads them: a tree in short lines that fit a phone."""

from __future__ import annotations

import discord

from bot.service.conditional import Added, TreeView
from bot.ui.embeds import GOLD, GREY
from bot.ui.fit import fit_embed
from bot.ui.format import clip, shown

DESCRIPTION_LIMIT = 4096
INDENT = "\u2003"  # an em space: Discord keeps it at the start of a line
MAX_INDENT = 4
"""Deeper continuations are indented no further, so a long line still fits a phone's width
(the move numbers tell the depth)."""


def tree_lines(view: TreeView) -> list[str]:
    """One line per branch: `If 2... Nb8-c6 → 3. Bf1-b5`, continuations indented under the
    move they follow."""
    out = []
    for row in view.rows:
        lead = "If" if row.depth == 0 else INDENT * min(row.depth, MAX_INDENT) + "↳ if"
        line = f"{lead} {row.reply} → **{row.answer}**"
        if row.joins:
            line += " *(then as above)*"
        out.append(line)
    return out


def tree_embed(
    view: TreeView, *, headline: str | None = None, limit: int = DESCRIPTION_LIMIT
) -> discord.Embed:
    """The player's conditional moves in one game (ephemeral: only their owner sees it);
    the description stays under `limit` characters (several embeds share 6000)."""
    g = view.game
    count = view.count
    embed = discord.Embed(
        title=f"Conditional moves · game #{g.id} · {shown(view.variant_name)}",
        colour=GOLD if count else GREY,
    )
    head = [headline] if headline else []
    if not count:
        body = [
            f"You have no conditional moves against {shown(view.opponent_name)}.",
            "While they are to move, add a line with `/conditional add`: their expected "
            "move, your answer, and so on.",
        ]
    else:
        moves = "answer" if count == 1 else "answers"
        body = [f"{count} {moves} waiting for {shown(view.opponent_name)}'s moves:"]
        lines = tree_lines(view)
        used = sum(len(x) + 1 for x in head + body)
        for i, line in enumerate(lines):
            rest = len(lines) - i
            if used + len(line) + 1 > limit - 40:
                body.append(f"… and {rest} more")
                break
            body.append(line)
            used += len(line) + 1
    embed.description = "\n".join(head + body)
    embed.set_footer(text="Only you can see these. /conditional clear drops them all.")
    return fit_embed(embed)


def added_headline(added: Added) -> str:
    """What `/conditional add` read, step by step, as numbered moves."""
    steps = " ".join(s.notation for s in added.line.steps)
    text = f"Added: {steps}" if added.new_branches else f"Already there: {steps}"
    if added.line.ends_game:
        text += f" — that would end the game ({added.line.ends_game})"
    return clip(text, 1000)
