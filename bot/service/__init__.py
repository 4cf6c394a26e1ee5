"""The Discord-free service layer: everything a player can do, as plain async methods.

Cogs call it with ids and text and get back plain values (`bot.service.models`) to format;
tests drive it directly. It uses `rules` for the game logic, `renderer` for pictures and
`storage` for everything that must survive a restart.

`GameService` is imported on first use: the search workers import `bot.service.searchpool`
(a package's module imports the package first), and a worker spawned on a player's request
must not spend half a second of the move's budget importing storage and the renderer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.service.clock import Clock, ManualClock, SystemClock
from bot.service.errors import ServiceError

if TYPE_CHECKING:
    from bot.service.games import GameService


def __getattr__(name: str) -> object:
    if name == "GameService":
        from bot.service.games import GameService

        return GameService
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Clock", "GameService", "ManualClock", "ServiceError", "SystemClock"]
