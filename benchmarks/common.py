"""Shared measuring tools: every entry is a median over repeats, with a peer ratio when one exists."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the benchmark table.

    `ratio` is Fairy Post's speed divided by the peer's (above 1: Fairy Post is faster),
    always computed from numbers measured in the same run.
    """

    section: str
    entry: str
    value: str
    peer: str = ""
    peer_value: str = ""
    ratio: str = ""
    goal: str = ""


def median_seconds(fn: Callable[[], object], repeats: int = 5, warmup: int = 1) -> float:
    """Median wall time of `fn()` over `repeats` runs, after `warmup` unmeasured runs."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def percentiles(samples: list[float], *qs: float) -> list[float]:
    """Percentiles (0-100) of a list of samples, by the nearest-rank method."""
    ordered = sorted(samples)
    out = []
    for q in qs:
        rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
        out.append(ordered[rank])
    return out


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def ratio(ours: float, theirs: float) -> str:
    """Speed ratio from two durations of the same work: ours faster gives > 1."""
    return f"{theirs / ours:.2f}×" if ours > 0 else "n/a"
