"""Shared measuring tools: every entry is a median over repeats, with a peer ratio when one
exists, measured in the same run."""

from __future__ import annotations

import importlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


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


def optional_import(name: str) -> ModuleType | None:
    """A peer module, or None when it is not installed (the dev extra has no peers)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


NOT_INSTALLED = "not installed (`make bench` installs it)"


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size of this process in MB, from /proc (Linux)."""
    fields: dict[str, float] = {}
    try:
        with open("/proc/self/status", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    fields[key] = int(value.split()[0]) / 1024
    except OSError:
        pass
    return fields.get("VmRSS", float("nan")), fields.get("VmHWM", float("nan"))


def interleaved_medians(
    fns: Sequence[Callable[[], object]], repeats: int = 5, warmup: int = 1
) -> list[float]:
    """Median wall time of each of `fns`, run in turn within every repeat so that a slower
    stretch of the machine weighs on all of them alike (how peers are timed side by side)."""
    for _ in range(warmup):
        for fn in fns:
            fn()
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for fn, out in zip(fns, samples, strict=True):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return [statistics.median(s) for s in samples]


def child_json(module: str, *args: str, stdin: str = "") -> dict[str, Any]:
    """Runs `python -m module args` in a fresh interpreter (for first-call and memory
    figures that the running process would spoil) and reads the JSON of its last line."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))
