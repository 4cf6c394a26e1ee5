"""Discord markup: mentions and timestamps, in one place."""

from __future__ import annotations

DISCORD_LIMIT = 2000


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def channel(channel_id: int) -> str:
    return f"<#{channel_id}>"


def timestamp(when: int, style: str = "R") -> str:
    """A Discord timestamp, shown in each reader's own time zone (`R`: "in 2 days")."""
    return f"<t:{when}:{style}>"


def deadline(when: int | None) -> str:
    if when is None:
        return "no clock"
    return f"{timestamp(when, 'R')} ({timestamp(when, 'f')})"


def clip(text: str, limit: int = DISCORD_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def days(seconds: int | None) -> str:
    if seconds is None:
        return "no clock (casual)"
    d = seconds // 86_400
    return f"{d} day{'s' if d != 1 else ''} per move"


def count(n: int, word: str, plural: str | None = None) -> str:
    """`1 game`, `2 games`, `1 ply`, `3 plies`."""
    return f"{n} {word if n == 1 else plural or word + 's'}"
