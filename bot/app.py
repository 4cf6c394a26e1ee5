"""Process start-up: logging, the client, and a clean exit code."""

from __future__ import annotations

from bot.config import Settings


def run(settings: Settings) -> int:
    """Start the bot and block until it stops."""
    raise NotImplementedError("the Discord client arrives with the bot issue")
