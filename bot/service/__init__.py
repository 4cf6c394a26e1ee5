"""The Discord-free service layer: everything a player can do, as plain async methods.

Cogs call it with ids and text and get back plain values (`bot.service.models`) to format;
tests drive it directly. It uses `rules` for the game logic, `renderer` for pictures and
`storage` for everything that must survive a restart.
"""

from bot.service.clock import Clock, ManualClock, SystemClock
from bot.service.errors import ServiceError
from bot.service.games import GameService

__all__ = ["Clock", "GameService", "ManualClock", "ServiceError", "SystemClock"]
