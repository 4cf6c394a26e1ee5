"""Text players type, checked once by one rule before anything uses it.

Every string option of every slash command passes `odd_text` first (the client's command
tree calls it, with the option's declared length): a line break, a tab or another control
character, an invisible formatting character (bidi overrides, zero-width spaces), or text
longer than the option holds, is refused with a sentence naming the option and the problem,
instead of reaching a parser. The services check what they keep or show with `player_text`
(tournament names, moderators' reasons, conditional lines): the same rule (`rules.text`, which
also checks the texts of variant files), so a service called by other means refuses the
same things. Display names, which players choose on Discord, are cleaned instead
(`player_name`). Numbers typed as text are read with `whole_number`, which accepts ASCII
digits only (`"²".isdigit()` is true, `int("²")` fails).
"""

from __future__ import annotations

from bot.service.errors import BadRequestError, ServiceError
from rules.text import shown_name, text_problem

MAX_OPTION_LENGTH = 400
"""An option that declares no length of its own: longer than any such command needs (a
move is at most a few dozen characters)."""
MAX_DISPLAY_NAME = 32
"""Discord's own bound on display names; longer stored names are cut to it."""


class OddTextError(BadRequestError):
    def __init__(self, option: str, problem: str) -> None:
        hint = "shorten it" if problem.startswith("is ") else "type it on one line, as plain text"
        super().__init__(f"`{option}` {problem}: {hint}.")


def odd_text(option: str, value: str, limit: int = MAX_OPTION_LENGTH) -> None:
    """Raises `OddTextError` if `value` cannot be a player's intended input."""
    problem = text_problem(value, limit=limit)
    if problem is not None:
        raise OddTextError(option, problem)


def player_text(
    what: str, value: str, *, limit: int, required: bool = False, lines: bool = False
) -> str:
    """`value`, a text a player gives the bot to keep or show, checked by the one rule and
    with its spaces collapsed (line breaks kept with `lines`). `what` names it in the
    refusal: "`name` contains a line break: type it on one line, as plain text."."""
    problem = text_problem(value, limit=limit, lines=lines)
    if problem is not None:
        raise OddTextError(what, problem)
    if lines:
        text = "\n".join(" ".join(line.split()) for line in value.strip().splitlines())
    else:
        text = " ".join(value.split())
    if required and not text:
        raise ServiceError(f"`{what}` is empty: give it a few words.")
    return text


def player_name(user_id: int, name: str) -> str:
    """A display name as Fairy Post shows it: without the characters the rule refuses
    (Discord allows some), at most `MAX_DISPLAY_NAME` characters, never blank."""
    return shown_name(name, MAX_DISPLAY_NAME) or f"player {user_id}"


def whole_number(text: str) -> int | None:
    """`text` as a non-negative integer if it is one written in ASCII digits, else None."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else None
