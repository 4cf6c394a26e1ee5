"""/analyze's answer: the summary beside the annotated record and the evaluation graph."""

from __future__ import annotations

import discord

from bot.service.analysis import Review
from bot.ui.fit import fit_embed
from bot.ui.format import clip, shown

COLOUR = discord.Colour.from_rgb(84, 110, 139)


def review_embed(review: Review) -> discord.Embed:
    embed = discord.Embed(title=f"Analysis of {shown(review.title)}", colour=COLOUR)
    embed.description = "\n".join(shown(line) for line in review.summary)
    if review.worst:
        embed.add_field(
            name="Where the game turned", value=clip("\n".join(review.worst), 1024), inline=False
        )
    else:
        embed.add_field(
            name="Where the game turned",
            value="No mistakes found: the evaluation never swung by much.",
            inline=False,
        )
    embed.add_field(
        name="In the file",
        value="Every move with its mark (`?!` inaccuracy, `?` mistake, `??` blunder, "
        "`!` the only good move); the record replays as it is.",
        inline=False,
    )
    embed.set_image(url=f"attachment://{review.graph.filename}")
    embed.set_footer(text=f"{review.engine}: {review.footer}")
    return fit_embed(embed)
