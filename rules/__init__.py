"""Fairy Post's rules engine: data-driven chess variants, standard library only.

The usual entry points:

    >>> from rules import Game
    >>> game = Game.new("chess")
    >>> game.play("e2-e4").notation
    'e2-e4'

`rules.variant` loads variants from `rules/variants/*.toml`, `rules.position` generates
moves, `rules.notation` reads and writes moves, `rules.postext` the position text,
`rules.record` game records.
"""

from rules.errors import (
    AmbiguousMoveError,
    BetzaError,
    GameOverError,
    GameRecordError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    PositionTextError,
    RulesError,
    UnknownVariantError,
    VariantError,
)
from rules.game import ENGINE_VERSION, Game, LegalMove, PlayedMove, replay_to_text
from rules.geometry import Square
from rules.moves import Move, MoveKind
from rules.outcome import Outcome, Termination
from rules.position import Position
from rules.variant import Variant, load_variant, resolve_variant_id, variant_ids

__all__ = [
    "ENGINE_VERSION",
    "AmbiguousMoveError",
    "BetzaError",
    "Game",
    "GameOverError",
    "GameRecordError",
    "IllegalMoveError",
    "InvalidMoveError",
    "LegalMove",
    "Move",
    "MoveError",
    "MoveKind",
    "Outcome",
    "PlayedMove",
    "Position",
    "PositionTextError",
    "RulesError",
    "Square",
    "Termination",
    "UnknownVariantError",
    "Variant",
    "VariantError",
    "load_variant",
    "replay_to_text",
    "resolve_variant_id",
    "variant_ids",
]
