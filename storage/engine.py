"""The narrow window through which storage sees the rules engine: a replay function.

Storage never imports `rules`; whoever opens the store passes an `Engine`. The real one is
built from `rules.replay_to_text` and `rules.ENGINE_VERSION` by `storage.__main__` and by the
bot; tests pass a fake.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from storage.models import Game


class Replayer(Protocol):
    """Plays `moves` (coordinate form) from the start of the variant and returns the final
    position text; raises a `ValueError` subclass on an illegal move. `definition` is the
    pinned text of a player's variant (then `variant_id` is only its key); it is passed
    only when the game has one."""

    def __call__(
        self,
        variant_id: str,
        options: Sequence[str],
        moves: Sequence[str],
        definition: str | None = None,
        /,
    ) -> str: ...


@dataclass(frozen=True, slots=True)
class Engine:
    version: str
    """Stamped on every game row the store writes a position for."""
    replay: Replayer


UNKNOWN_ENGINE_VERSION = "unknown"
"""Stamped when the store was opened without an engine; the next load with one verifies."""


def replay_game(engine: Engine, game: Game, moves: Sequence[str], definition: str | None) -> str:
    """The position text after `moves` of `game`, by its pinned definition if it has one."""
    if game.definition_digest is None:
        return engine.replay(game.variant_id, game.options, moves)
    if definition is None:
        raise ValueError(f"the definition {game.definition_digest[:12]} of the game is missing")
    return engine.replay(game.variant_id, game.options, moves, definition)
