"""Refusals of the service layer: things a player asked for that cannot be done.

Each carries a message written for the player (what was wrong and what to do). Rules errors
(`rules.errors.RulesError`) and storage refusals keep their own classes; `bot.replies` turns
all three families into replies in one place.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A refusal with a message meant for the player who asked."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class NoGameHereError(ServiceError):
    def __init__(self) -> None:
        super().__init__(
            "There is no game in this channel. Use the command in a game's thread, "
            "or give the game number (see /games)."
        )


class NoSuchGameError(ServiceError):
    """A game number that names no game, or a game of another server (the same words: a
    game is not even confirmed to exist outside its server)."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            f"There is no game #{game_id} here. A game is found by its number in its own "
            "server, or by its players in direct messages; /games lists yours."
        )


class NotPlayingError(ServiceError):
    def __init__(self, game_id: int) -> None:
        super().__init__(f"You are not playing in game #{game_id}; only its two players can act.")


class NotYourTurnError(ServiceError):
    def __init__(self, game_id: int, opponent_name: str) -> None:
        super().__init__(f"It is not your turn in game #{game_id}: {opponent_name} is to move.")


class GameFinishedError(ServiceError):
    def __init__(self, game_id: int, how: str) -> None:
        super().__init__(f"Game #{game_id} is over ({how}).")


class PositionChangedError(ServiceError):
    def __init__(self, game_id: int) -> None:
        super().__init__(
            f"The position in game #{game_id} has changed since this menu was opened. "
            "Press **Move** under the latest board to choose again."
        )


class BadRequestError(ServiceError):
    """Anything else the player typed that we cannot act on; the message says why."""


class LineStepError(ServiceError):
    """A step of a conditional line that `/move` would refuse: `bot.replies` words it as
    `/move` does (from `cause`), naming the step."""

    def __init__(self, number: int, text: str, mine: bool, cause: Exception) -> None:
        self.number = number
        self.text = text
        self.mine = mine
        self.cause = cause
        whose = "your answer" if mine else "your opponent's move"
        self.prefix = f"Step {number} of the line ({whose}): "
        super().__init__(f"{self.prefix}{cause}")
