"""Elo differences from match scores, with 95% error bars.

The score is the mean of the games' points (1, 1/2, 0, and 3/5 or 2/5 for a Bat game's
stalemate). Its standard error comes from the games themselves; the interval's ends are
turned into Elo through the logistic curve. A perfect (or nil) score has no finite Elo:
the Wilson interval then gives the bound that the match proves ("> +480").
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959964


def elo(p: float) -> float:
    """The Elo difference that gives an expected score `p` (0 < p < 1)."""
    return -400 * math.log10(1 / p - 1)


@dataclass(frozen=True, slots=True)
class EloEstimate:
    games: int
    score: float  # mean points per game, 0 to 1
    low: float  # Elo at the ends of the 95% interval (may be infinite)
    mid: float
    high: float

    def text(self) -> str:
        if self.games == 0:
            return "no games"
        if math.isinf(self.mid):
            bound = self.low if self.mid > 0 else self.high
            return f"{'>' if self.mid > 0 else '<'} {bound:+.0f} (95%)"
        return f"{_signed(self.mid)} (95%: {_signed(self.low)} to {_signed(self.high)})"


def _signed(x: float) -> str:
    """An Elo figure with its sign, `+0` for an even score (never `-0`)."""
    return f"{round(x) or 0:+d}"


def estimate(points: Sequence[float]) -> EloEstimate:
    """The Elo difference shown by these per-game points, with its 95% interval."""
    n = len(points)
    if n == 0:
        return EloEstimate(0, 0.0, math.nan, math.nan, math.nan)
    p = sum(points) / n
    if p >= 1 or p <= 0:
        low, high = _wilson(p, n)
        if p >= 1:
            return EloEstimate(n, p, elo(low), math.inf, math.inf)
        return EloEstimate(n, p, -math.inf, -math.inf, elo(high))
    sd = statistics.pstdev(points) if n > 1 else 0.5
    half = Z95 * sd / math.sqrt(n)
    lo_p = max(p - half, 1e-6)
    hi_p = min(p + half, 1 - 1e-6)
    return EloEstimate(n, p, elo(lo_p), elo(p), elo(hi_p))


def _wilson(p: float, n: int) -> tuple[float, float]:
    """The Wilson score interval of a proportion `p` over `n` trials (95%)."""
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(centre - half, 1e-9), min(centre + half, 1 - 1e-9)
