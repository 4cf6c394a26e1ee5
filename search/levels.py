"""Playing levels 1 to 8: how deep, how long, and how imperfect the engine plays.

Every level aims at three plies at least, so that a mate in one or two is seen and played
and a mate in one against it is seen; on a big board its time may allow less, but depth 1
always completes (`search.searcher`), so a mate in one is played at every level on every
board. The budgets: Bigorra 100 to 130 plies in reaches depth 7-8 at level 8 (60 s) and
3-6 at level 6 on a loaded two-core machine (benchmarks/bench_clock.py). Beyond that, the
low levels are weaker on purpose: they may play any move within a margin of the best, drawn
at random with a preference for the better ones (the way a club player overlooks a
quieter, stronger move), and they look less far ahead. The high levels search longer.
The node budget bounds every level, so a level plays the same on a fast or a busy machine
once its time is not the limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from search.searcher import Limits

MIN_LEVEL = 1
MAX_LEVEL = 8
DEFAULT_LEVEL = 4


@dataclass(frozen=True, slots=True)
class Level:
    """One playing level. `movetime` is in seconds."""

    number: int
    depth: int
    nodes: int
    movetime: float
    margin: int  # centipawns: moves this close to the best may be chosen
    temperature: float  # how strongly the better of those moves are preferred (lower: more)
    description: str

    def limits(self, *, movetime: float | None = None, seed: int = 0) -> Limits:
        """The search budget of this level; `movetime` overrides the level's own time
        (None keeps it; use `math.inf` for no time limit, only depth and nodes)."""
        time = self.movetime if movetime is None else movetime
        return Limits(
            depth=self.depth,
            nodes=self.nodes,
            movetime=None if time == float("inf") else time,
            margin=self.margin,
            temperature=self.temperature,
            seed=seed,
        )


LEVELS: dict[int, Level] = {
    level.number: level
    for level in (
        Level(1, 3, 150_000, 2.0, 400, 120, "a beginner: sees mates and hanging pieces, often not"),
        Level(2, 3, 150_000, 2.0, 250, 80, "a casual player"),
        Level(3, 3, 200_000, 3.0, 150, 45, "a club player on a bad day"),
        Level(4, 4, 300_000, 4.0, 80, 20, "a club player"),
        Level(5, 5, 500_000, 5.0, 30, 8, "a strong club player"),
        Level(6, 8, 1_000_000, 8.0, 0, 0, "full strength, 8 seconds a move"),
        Level(7, 24, 2_500_000, 20.0, 0, 0, "full strength, 20 seconds a move"),
        Level(8, 64, 8_000_000, 60.0, 0, 0, "full strength, a minute a move"),
    )
}


def level(number: int) -> Level:
    """The level `number` (1 to 8); ValueError outside that range."""
    if number not in LEVELS:
        raise ValueError(f"levels run from {MIN_LEVEL} to {MAX_LEVEL}, not {number}")
    return LEVELS[number]
