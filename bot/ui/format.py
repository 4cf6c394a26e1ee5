"""Discord markup: mentions, who a post may ping, players' names, timestamps, in one place.

A message pings only whom it names on purpose: the client's default allows user mentions and
nothing else (never everyone, here or a role), and a post that pings passes `pings(...)`, the
exact players, so a name written inside it cannot ping anyone else. Every name or text a
player chose (a display name, a tournament's or a variant's name, a reason) goes into a
message through `shown`, which keeps its markdown from formatting the message around it and
its `@` from reading as a mention (names are already plain, one-line text: `rules.text`).
Thread names, button labels and alt texts show no markdown and ping nobody: names go there
as they are.
"""

from __future__ import annotations

import discord

from rules.text import without_refused

DISCORD_LIMIT = 2000
ZERO_WIDTH_SPACE = "\u200b"

DEFAULT_MENTIONS = discord.AllowedMentions(
    everyone=False, users=True, roles=False, replied_user=False
)
"""The client's default: a mention of a user may ping them; `@everyone`, `@here` and roles
never do, whatever a message says."""


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def pings(*user_ids: int | None) -> discord.AllowedMentions:
    """Who a post may ping: exactly these players (None: nobody, for a player unknown)."""
    users = [discord.Object(i) for i in dict.fromkeys(i for i in user_ids if i is not None)]
    return discord.AllowedMentions(everyone=False, users=users, roles=False, replied_user=False)


NO_PINGS = discord.AllowedMentions.none()


def shown(text: str) -> str:
    """A player's name or text as a message shows it: markdown escaped (`**Cup**` stays as
    typed), and every `@` followed by a zero-width space, so `@everyone` or `<@123>` in a
    name is text, not a mention, even where mentions may ping. Characters the one rule
    refuses, in a text stored before it, are dropped."""
    escaped = discord.utils.escape_markdown(plain(text, lines=True), ignore_links=False)
    return escaped.replace("@", "@" + ZERO_WIDTH_SPACE)


def plain(text: str, *, lines: bool = False) -> str:
    """A player's text where no markdown shows (a thread's name, a label): without what
    the one rule refuses (`rules.text`), for texts stored before it."""
    return without_refused(text, lines=lines)


def channel(channel_id: int) -> str:
    return f"<#{channel_id}>"


def jump_link(guild_id: int, channel_id: int) -> str:
    """A link that opens a channel or thread in Discord (clients open it in place)."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}"


def timestamp(when: int, style: str = "R") -> str:
    """A Discord timestamp, shown in each reader's own time zone (`R`: "in 2 days")."""
    return f"<t:{when}:{style}>"


def deadline(when: int | None) -> str:
    if when is None:
        return "no clock"
    return f"{timestamp(when, 'R')} ({timestamp(when, 'f')})"


def clip(text: str, limit: int = DISCORD_LIMIT) -> str:
    """`text` in at most `limit` characters, cut with "…" (never after a lone backslash,
    which would escape the ellipsis)."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip("\\") + "…"


def days(seconds: int | None) -> str:
    if seconds is None:
        return "no clock (casual)"
    d = seconds // 86_400
    return f"{d} day{'s' if d != 1 else ''} per move"


def count(n: int, word: str, plural: str | None = None) -> str:
    """`1 game`, `2 games`, `1 ply`, `3 plies`."""
    return f"{n} {word if n == 1 else plural or word + 's'}"
