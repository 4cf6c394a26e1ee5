"""The search pool keeps time from the request: a job's deadline is a wall-clock moment,
so the time it waited for a worker, the worker's start and the game's replay all count."""

from __future__ import annotations

import asyncio
import time

from bot.service.searchpool import SearchJob, SearchPool
from rules.variant import load_variant

FOOLS_MATE = ("f2f3", "e7e5", "g2g4")  # Black mates in one


def test_a_deadline_spent_before_the_search_still_brings_the_mate_in_one() -> None:
    """The deadline passed before the worker even started: depth 1 is still completed (by
    glances, not by searching), so the move is the mate and nothing more is searched."""
    pool = SearchPool(1, table_megabytes=1)
    try:
        job = SearchJob(load_variant("chess"), FOOLS_MATE, level=8, deadline=time.time() - 1.0)
        answer = asyncio.run(pool.search(job))
    finally:
        pool.close()
    assert answer is not None
    assert answer.coordinates == "d8h4"
    assert answer.score_text == "mate in 1"
    assert answer.depth == 1
    assert answer.nodes <= 4
