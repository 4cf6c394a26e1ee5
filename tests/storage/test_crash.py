"""A writer killed with SIGKILL at random moments never loses a move it reported committed."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from storage import Storage
from storage.check import check_database
from storage.models import Clock
from tests.storage.conftest import T0, new_game
from tests.storage.fakes import FAKE_ENGINE

REPO = Path(__file__).resolve().parents[2]
ROUNDS = 5


async def create_game(target: str) -> int:
    async with await Storage.open(target, engine=FAKE_ENGINE) as storage:
        game = await new_game(storage, clock=Clock.untimed(), now=T0)
    return game.id


def run_and_kill(target: str, game_id: int, rng: random.Random) -> list[int]:
    """Starts the writer, lets it commit a random number of moves, waits a random moment
    (usually mid-transaction) and kills it. Returns every ply it reported."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.storage.crash_writer", target, str(game_id)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert child.stdout is not None
    try:
        assert child.stdout.readline() == "ready\n"
        reported = [int(child.stdout.readline()) for _ in range(rng.randint(0, 40))]
        time.sleep(rng.uniform(0, 0.01))
    finally:
        child.send_signal(signal.SIGKILL)
        rest = child.stdout.read()
        child.wait()
    # Lines printed before the kill were committed too; a torn last line was not printed.
    reported += [int(line) for line in rest.splitlines(keepends=True) if line.endswith("\n")]
    assert child.returncode == -signal.SIGKILL
    return reported


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
async def test_sigkill_at_random_moments_loses_no_committed_move(db_target: str) -> None:
    game_id = await create_game(db_target)
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    reported: list[int] = []
    for _ in range(ROUNDS):
        reported += await asyncio.to_thread(run_and_kill, db_target, game_id, rng)

    async def verify() -> None:
        async with await Storage.open(db_target, engine=FAKE_ENGINE) as storage:
            assert await storage.integrity_check() == ["ok"], f"seed {seed}"
            game, moves = await storage.games.get_with_moves(game_id)
            plies = [m.ply for m in moves]
            assert plies == list(range(1, len(plies) + 1)), f"seed {seed}"
            assert game.ply_count == len(plies), f"seed {seed}"
            assert set(reported) <= set(plies), f"seed {seed}: lost {set(reported) - set(plies)}"
            assert [m.coordinate for m in moves] == [f"c{p}x" for p in plies]
            report = await check_database(storage, FAKE_ENGINE)
            assert report.ok, (seed, report.lines())
            assert report.games_checked == 1

    await verify()
    assert len(set(reported)) == len(reported)
    assert reported == sorted(reported)
