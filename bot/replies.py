"""The one place where errors become replies.

Known refusals (from the service, the rules engine and storage) become a short message for
the player; anything else is unexpected: it is logged with a traceback under an error id,
and the player gets an apology quoting that id.
"""

from __future__ import annotations

import logging
import re
import secrets

from bot.service.errors import LineStepError, ServiceError
from rules.errors import AmbiguousMoveError, GameOverError, MoveError, RulesError, VariantError
from storage.errors import (
    ChallengeExpiredError,
    ChallengeNotFoundError,
    ChallengeNotOpenError,
    ConflictError,
    DeadlinePassedError,
    GameEndedError,
    GameLostOnTimeError,
    GameMovedOnError,
    NotFoundError,
    RefusedError,
    RequestNotPendingError,
)

log = logging.getLogger("fairypost.errors")


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ")")) else text + "."


_THEIRS = (
    (re.compile(r"\byours\b"), "theirs"),
    (re.compile(r"\byour\b"), "their"),
    (re.compile(r"\bYour\b"), "Their"),
    (re.compile(r"\byou\b"), "they"),
    (re.compile(r"\bYou\b"), "They"),
)


def _as_opponent(text: str) -> str:
    """A refusal of the rules engine, which speaks to the player to move, said of the
    opponent (a conditional line names the opponent's moves too): "no Knight of theirs"."""
    for pattern, word in _THEIRS:
        text = pattern.sub(word, text)
    return text


def refusal(exc: BaseException) -> str | None:
    """The player-facing message for a known refusal, or None if `exc` is unexpected."""
    if isinstance(exc, LineStepError):
        text = refusal(exc.cause) or _sentence(str(exc.cause))
        mine = exc.mine or isinstance(exc.cause, AmbiguousMoveError)  # "which one do you mean"
        return exc.prefix + (text if mine else _as_opponent(text))
    if isinstance(exc, ServiceError):
        return exc.message
    if isinstance(exc, AmbiguousMoveError) and len(exc.candidates) > 1:
        quoted = [f"`{c}`" for c in exc.candidates]
        choice = ", ".join(quoted[:-1]) + f" or {quoted[-1]}"
        return f"`{exc.text.strip()}` fits several moves: which one do you mean, {choice}?"
    if isinstance(exc, MoveError):
        shown = f"`{exc.text.strip()}`: " if exc.text.strip() else ""
        return f"{shown}{_sentence(exc.reason)}"
    if isinstance(exc, GameOverError):
        return _sentence(str(exc))
    if isinstance(exc, VariantError):
        return str(exc)  # it starts with the file's name, which keeps its case
    if isinstance(exc, RulesError):
        return _sentence(str(exc))
    if isinstance(exc, ChallengeExpiredError):
        return "This challenge has expired. Post a new one with /challenge."
    if isinstance(exc, ChallengeNotOpenError):
        return _sentence(str(exc))
    if isinstance(exc, ChallengeNotFoundError):
        return "That challenge no longer exists."
    if isinstance(exc, GameLostOnTimeError):
        return _sentence(str(exc))
    if isinstance(exc, GameEndedError):
        return "This game is already over."
    if isinstance(exc, DeadlinePassedError):
        return "Too late: the deadline has passed and the game is lost on time."
    if isinstance(exc, GameMovedOnError):
        return (
            "The game has moved on: someone acted first. Look at the board (/board) and try again."
        )
    if isinstance(exc, RequestNotPendingError):
        if exc.status == "lapsed":
            return (
                f"This {exc.what} has lapsed: the game moved on since it was made, "
                "so there is nothing left to answer."
            )
        return f"This {exc.what} was already {exc.status}; there is nothing left to answer."
    if isinstance(exc, (RefusedError, ConflictError, NotFoundError)):
        return _sentence(str(exc))
    return None


def unexpected(exc: BaseException, context: str) -> str:
    """Log `exc` with a traceback and return the apology shown to the player."""
    error_id = secrets.token_hex(4)
    log.error("unexpected error %s in %s", error_id, context, exc_info=exc)
    return (
        f"Sorry, something went wrong on our side (error `{error_id}`). "
        "Your game is safe; please try again in a moment."
    )


def reply_for(exc: BaseException, context: str) -> str:
    return refusal(exc) or unexpected(exc, context)
