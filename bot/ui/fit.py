"""Discord's limits on a message, and the one layer that fits what the bot sends to them.

Discord refuses a whole message when one part is too long (an embed field over 1,024
characters, a description over 4,096, the embeds of a message over 6,000 together, more
than 10 embeds, content over 2,000), and a refused post is a post nobody sees. Much of what
the bot shows is written by players (a variant's description, its pieces' names, a
tournament's name), so no builder can know in advance how long its parts will be. Every
embed the bot builds leaves `bot.ui` through `fit_embed` (each part clipped to its limit, with
"…"), a message of several embeds through `fit_embeds` (then the longest parts shortened until
the message holds 6,000), and content through `fit_content`. The local stand-in of Discord
(`localdiscord`) checks every message against the same limits, and the tests fail on any
message it would refuse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import discord

from bot.ui.format import clip

CONTENT = 2000
TITLE = 256
DESCRIPTION = 4096
FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
AUTHOR = 256
TOTAL = 6000
"""Every title, description, field, footer and author name of a message's embeds."""
EMBEDS = 10
SHORTEST = 80
"""A part is never shortened below this many characters to fit the total: fields are
dropped (from the last embed's end) before that."""


def fit_content(text: str) -> str:
    return clip(text, CONTENT)


def fit_embed(embed: discord.Embed) -> discord.Embed:
    """`embed` with every part clipped to Discord's limit for it (changed in place and
    returned); an empty field value becomes "—" (Discord requires one)."""
    if embed.title:
        embed.title = clip(embed.title, TITLE)
    if embed.description:
        embed.description = clip(embed.description, DESCRIPTION)
    fields = embed.fields
    if len(fields) > FIELDS or any(
        len(f.name or "") > FIELD_NAME or len(f.value or "") > FIELD_VALUE or not f.value
        for f in fields
    ):
        embed.clear_fields()
        for f in fields[:FIELDS]:
            embed.add_field(
                name=clip(f.name or "—", FIELD_NAME),
                value=clip(f.value or "—", FIELD_VALUE),
                inline=bool(f.inline),
            )
    if embed.footer.text and len(embed.footer.text) > FOOTER:
        embed.set_footer(text=clip(embed.footer.text, FOOTER), icon_url=embed.footer.icon_url)
    author = embed.author
    if author.name and len(author.name) > AUTHOR:
        embed.set_author(name=clip(author.name, AUTHOR), url=author.url, icon_url=author.icon_url)
    return embed


def fit_embeds(embeds: Sequence[discord.Embed]) -> list[discord.Embed]:
    """The embeds of one message, each fitted, then shortened together to Discord's total:
    the longest text (a description, a field, a title, a footer) is cut first, as little
    as needed, so short parts (names, numbers) stay whole. More than `EMBEDS` is a mistake
    of the caller."""
    if len(embeds) > EMBEDS:
        raise ValueError(f"{len(embeds)} embeds in one message; Discord takes {EMBEDS}")
    out = [fit_embed(e) for e in embeds]
    excess = sum(len(e) for e in out) - TOTAL
    while excess > 0:
        longest = max(
            (part for embed in out for part in _parts(embed) if len(part.text) > SHORTEST),
            key=lambda part: len(part.text),
            default=None,
        )
        if longest is None:
            _drop_last_field(out)
        else:
            longest.set(clip(longest.text, max(SHORTEST, len(longest.text) - excess)))
        excess = sum(len(e) for e in out) - TOTAL
    return out


@dataclass(frozen=True)
class _Part:
    text: str
    set: Callable[[str], object]


def _parts(embed: discord.Embed) -> list[_Part]:
    """The texts of an embed that count towards the total, each with how to replace it."""

    def description(text: str) -> None:
        embed.description = text

    def title(text: str) -> None:
        embed.title = text

    def footer(text: str) -> None:
        embed.set_footer(text=text, icon_url=embed.footer.icon_url)

    def field(index: int, *, name: bool) -> Callable[[str], object]:
        f = embed.fields[index]
        if name:
            return lambda text: embed.set_field_at(index, name=text, value=f.value, inline=f.inline)
        return lambda text: embed.set_field_at(index, name=f.name, value=text, inline=f.inline)

    parts = [
        _Part(embed.description or "", description),
        _Part(embed.title or "", title),
        _Part(embed.footer.text or "", footer),
    ]
    for i, f in enumerate(embed.fields):
        parts.append(_Part(f.value or "", field(i, name=False)))
        parts.append(_Part(f.name or "", field(i, name=True)))
    return parts


def _drop_last_field(embeds: list[discord.Embed]) -> None:
    for embed in reversed(embeds):
        if embed.fields:
            embed.remove_field(len(embed.fields) - 1)
            return
    raise ValueError("embeds too long for one message even without their fields")
