"""Text players type, checked once before any command sees it.

Every string option of every slash command passes `odd_text` first (the client's command
tree calls it): a line break, a tab or another control character, or text far longer than
any command needs, is refused with a sentence naming the option and the problem, instead of
reaching a parser. Numbers typed as text are read with `whole_number`, which accepts ASCII
digits only (`"²".isdigit()` is true, `int("²")` fails).
"""

from __future__ import annotations

import unicodedata

from bot.service.errors import ServiceError

MAX_OPTION_LENGTH = 400
"""Longer than any command needs (a move is at most a few dozen characters)."""

_NAMES = {"\n": "a line break", "\r": "a line break", "\t": "a tab", "\x00": "a NUL character"}


class OddTextError(ServiceError):
    def __init__(self, option: str, problem: str) -> None:
        super().__init__(f"`{option}` {problem}: type it on one line, as plain text.")


def odd_text(option: str, value: str) -> None:
    """Raises `OddTextError` if `value` cannot be a player's intended input."""
    if len(value) > MAX_OPTION_LENGTH:
        raise OddTextError(option, f"is {len(value)} characters long (at most {MAX_OPTION_LENGTH})")
    for char in value:
        if char in _NAMES:
            raise OddTextError(option, f"contains {_NAMES[char]}")
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Co", "Cn") or char in "\u2028\u2029":
            raise OddTextError(option, f"contains the control character U+{ord(char):04X}")


def whole_number(text: str) -> int | None:
    """`text` as a non-negative integer if it is one written in ASCII digits, else None."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else None
