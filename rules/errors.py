"""One error hierarchy for the rules engine.

Every error is a `ValueError` whose message is written for a player or a variant author:
it quotes the input and says what was expected. The bot turns these into replies in one place.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error the rules engine raises on bad input or bad data."""


class BetzaError(RulesError):
    """A piece's movement text cannot be read; the message names the character and position."""

    def __init__(self, text: str, position: int, reason: str) -> None:
        self.text = text
        self.position = position
        self.reason = reason
        pointer = f"{text!r}, character {position + 1}" if text else "an empty movement"
        shown = f" ({text[position]!r})" if 0 <= position < len(text) else ""
        super().__init__(f"movement {pointer}{shown}: {reason}")


class VariantError(RulesError):
    """A variant definition is invalid; the message names the file, the key, the line when
    it is known, what was expected and, for a player's file, an example of the right form."""

    def __init__(
        self,
        source: str,
        key: str,
        reason: str,
        *,
        line: int | None = None,
        example: str | None = None,
    ) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        self.line = line
        self.example = example
        where = f"{source}, line {line}" if line is not None else source
        where = f"{where}: {key}" if key else where
        text = f"{where}: {reason}"
        if example:
            text += f"\nExample: {example}"
        super().__init__(text)

    def located(self, line: int | None, example: str | None) -> VariantError:
        """The same error with its line in the file and an example of the right form."""
        return VariantError(
            self.source,
            self.key,
            self.reason,
            line=self.line if line is None else line,
            example=self.example if example is None else example,
        )


class UnknownVariantError(RulesError):
    """No variant has this id or name."""


class PositionTextError(RulesError):
    """A position text cannot be read, or describes an impossible position."""


class MoveError(RulesError):
    """A move the player typed was rejected; nothing changed."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"{text!r}: {reason}" if text else reason)


class InvalidMoveError(MoveError):
    """The text is not a move in any accepted form (syntax, unknown square, bad letters)."""


class IllegalMoveError(MoveError):
    """The text names a move that the rules do not allow in this position."""


class AmbiguousMoveError(MoveError):
    """The text fits several legal moves; the message lists them and `candidates` holds
    each one's shortest form (`Nbd2`, `Nfd2`), for a reply that offers the choice."""

    def __init__(self, text: str, reason: str, candidates: tuple[str, ...]) -> None:
        self.candidates = candidates
        super().__init__(text, reason)


class GameOverError(RulesError):
    """A move was attempted in a game that has already ended."""


class GameRecordError(RulesError):
    """A game record file is malformed or does not replay; names the line or ply."""

    def __init__(self, reason: str, line: int | None = None, ply: int | None = None) -> None:
        self.reason = reason
        self.line = line
        self.ply = ply
        where = []
        if line is not None:
            where.append(f"line {line}")
        if ply is not None:
            where.append(f"ply {ply}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)
