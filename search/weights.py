"""The evaluation's tuned weights, written by `python -m benchmarks.tune fit --write`.

Every weight is variant-general: it multiplies a count that `search.evaluate` takes the
same way in every game (Pawn structure over the pawn-class pieces, royal safety over the
royal pieces, mobility by value class, pieces in hand). The counts are White's minus
Black's; `_MG` weights count fully while the board is full, `_EG` ones in the ending.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, cast


@dataclass(frozen=True, slots=True)
class Weights:
    """Centipawns per unit of each evaluation term (see search/evaluate.py)."""

    doubled_mg: float  # per pawn-class piece behind another of its side on its file
    doubled_eg: float
    isolated_mg: float  # per pawn-class piece with none of its side on the files beside
    isolated_eg: float
    passed_mg: float  # per passed pawn-class piece, times its progress squared (0 to 1)
    passed_eg: float
    shield_mg: float  # per pawn-class piece in the two rows before its royal piece
    danger_mg: float  # per centipawn of enemy pieces within two squares of a royal piece
    mobility_mg: tuple[float, ...]  # per square reached beyond the empty-board expectation,
    mobility_eg: tuple[float, ...]  # ... by value class (see MOBILITY_CLASSES)
    hand: float  # a piece in hand, as a share of its value on the board
    tempo: float  # the side to move's bonus


WEIGHT_NAMES = frozenset(f.name for f in fields(Weights) if f.type in ("float", float))
"""The single weights a learned file may set for its variant (`search.learned`)."""


def with_values(weights: Weights, values: Mapping[str, float]) -> Weights:
    """`weights` with some single weights replaced (names of `WEIGHT_NAMES`)."""
    unknown = set(values) - WEIGHT_NAMES
    if unknown:
        raise ValueError(f"no such weights: {', '.join(sorted(unknown))}")
    return replace(weights, **cast("dict[str, Any]", dict(values)))


MOBILITY_CLASSES = (250, 450, 700)
"""Value bounds of the mobility classes: below 250 (Ferz, Advisor, Wazir), minor pieces,
Rook-like pieces, and Queen-like pieces from 700."""

# fmt: off
# BASELINE's values: the weights tuned on 18,994 positions (doubled -13.91/-8.02, isolated
# -17.81/-9.974, passed -18.91/-2.347, shield 7.774, danger 0.09251, hand 1.063, tempo 7.148;
# held-out loss 0.14548 against 0.14595) were no stronger at equal nodes and cost their time:
# at 0.1 CPU-s a move these values beat them, chess 16 games +6 =9 -1 (+112, 95%: +9 to
# +240), Shako 16 games +9 =3 -4 (+112, 95%: -35 to +320): depth 4.7 and 3.3 against 4.5 and 3.0.
WEIGHTS = Weights(
    doubled_mg=0.0,
    doubled_eg=0.0,
    isolated_mg=0.0,
    isolated_eg=0.0,
    passed_mg=0.0,
    passed_eg=0.0,
    shield_mg=0.0,
    danger_mg=1 / 14,
    mobility_mg=(0.0, 0.0, 0.0, 0.0),
    mobility_eg=(0.0, 0.0, 0.0, 0.0),
    hand=1.1,
    tempo=10.0,
)
# fmt: on

BASELINE = Weights(
    doubled_mg=0.0,
    doubled_eg=0.0,
    isolated_mg=0.0,
    isolated_eg=0.0,
    passed_mg=0.0,
    passed_eg=0.0,
    shield_mg=0.0,
    danger_mg=1 / 14,
    mobility_mg=(0.0, 0.0, 0.0, 0.0),
    mobility_eg=(0.0, 0.0, 0.0, 0.0),
    hand=1.1,
    tempo=10.0,
)
"""The evaluation before these terms (material, square tables, enemy pieces near the royal
piece, hand pieces at 1.1): the tuner's starting point and the engine matches' reference."""
