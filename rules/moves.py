"""The move value type: what a ply does, independent of how it is written."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.geometry import Square


class MoveKind(Enum):
    """Kinds of ply (spec §3.8: moves of different kinds are different moves)."""

    NORMAL = "normal"
    EN_PASSANT = "en passant"
    CASTLING = "castling"
    DROP = "drop"
    PLACEMENT = "placement"
    SWAP = "swap"
    PASS = "pass"


@dataclass(frozen=True, slots=True)
class Move:
    """One ply. `origin` is None for drops and placements, which name `piece` instead;
    `promotion` is the id of the piece a promoting move becomes (None: no promotion).
    For castling, `origin` and `target` are the King's squares; for a swap, the King's
    and the Prince's; a pass (Janggi) names the King's square as both."""

    kind: MoveKind
    origin: Square | None
    target: Square
    promotion: str | None = None
    piece: str | None = None
    gate: str | None = None
    """S-Chess: the id of the reserve piece that enters the square the mover left."""
    gate_square: Square | None = None
    """Where that piece enters when it is not `origin` (castling onto the Rook's square)."""
