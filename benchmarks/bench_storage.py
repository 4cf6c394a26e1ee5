"""Storage: durable move commits with 1,000 games in progress, and the reads the bot does most.

Every commit is a real, fsync'd SQLite transaction (WAL, synchronous=FULL) on a file in a
temporary folder, going through the same guarded `append_move` the bot uses. The replayer is a
stand-in: the rules engine is not what is measured here.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from benchmarks.common import Row, ms, percentiles
from storage import Engine, Storage
from storage.models import DAY, Clock, Game, NewGame, NewMove

SECTION = "storage"
T = TypeVar("T")
START = 1_767_225_600
ACTIVE_GAMES = 1_000
PLAYERS = 200
HEAVY_PLAYER = 1
HEAVY_FINISHED = 480
"""Finished games of the player whose recent games are loaded (plus their active ones)."""


def _replay(variant_id: str, options: Sequence[str], moves: Sequence[str]) -> str:
    return f"{variant_id}:{len(moves)}:{'/'.join(moves[-4:])}"


ENGINE = Engine(version="bench", replay=_replay)


def run(quick: bool = False) -> list[Row]:
    """Measures commits per second and read latencies; `quick` commits fewer moves."""
    return asyncio.run(_run(quick))


async def _run(quick: bool) -> list[Row]:
    moves_single = 300 if quick else 2_000
    moves_concurrent = 400 if quick else 2_000
    writers = 8
    reads = 50 if quick else 300
    rng = random.Random(2026)
    with tempfile.TemporaryDirectory(prefix="fairypost-bench-") as folder:
        path = Path(folder) / "bench.sqlite3"
        async with await Storage.open(path, engine=ENGINE, rng=rng) as storage:
            games, setup_seconds = await _timed(lambda: _populate(storage, rng))
            histories: dict[int, list[str]] = {g.id: [] for g in games}
            state = {g.id: g for g in games}

            async def move(game_id: int, now: int) -> None:
                game = state[game_id]
                history = histories[game_id]
                coordinate = f"m{len(history)}x"
                history.append(coordinate)
                done = await storage.games.append_move(
                    game_id,
                    game.to_move_id,
                    game.ply_count,
                    NewMove(
                        notation=coordinate.upper(),
                        coordinate=coordinate,
                        position_hash=format(rng.getrandbits(64), "x"),
                        position_text=_replay(game.variant_id, game.options, history),
                    ),
                    now,
                )
                state[game_id] = done.game

            ids = [g.id for g in games]
            latencies: list[float] = []
            start = time.perf_counter()
            for i in range(moves_single):
                begin = time.perf_counter()
                await move(rng.choice(ids), START + 60 + i)
                latencies.append(time.perf_counter() - begin)
            single_rate = moves_single / (time.perf_counter() - start)

            shards = [ids[k::writers] for k in range(writers)]

            async def writer(shard: list[int]) -> None:
                local = random.Random(len(shard))
                for i in range(moves_concurrent // writers):
                    await move(local.choice(shard), START + 10_000 + i)

            start = time.perf_counter()
            await asyncio.gather(*(writer(shard) for shard in shards))
            concurrent_rate = (moves_concurrent // writers * writers) / (
                time.perf_counter() - start
            )

            recent = await _samples(reads, lambda: storage.games.list_recent(HEAVY_PLAYER, 20))
            active = await _samples(reads, lambda: storage.games.list_active(HEAVY_PLAYER))
            loaded = await _samples(reads, lambda: storage.games.get(rng.choice(ids)))
            due = await _samples(reads, lambda: storage.timers.due(START + 3 * DAY))
            heavy_total = len(await storage.games.list_recent(HEAVY_PLAYER, 10_000))

    p50, p95 = percentiles(latencies, 50, 95)
    recent_p50, recent_p95 = percentiles(recent, 50, 95)
    return [
        Row(SECTION, "setup: 1,000 active games + 480 finished", f"{setup_seconds:.2f} s"),
        Row(
            SECTION,
            "moves committed/s, 1,000 active games, one writer",
            f"{single_rate:,.0f}/s",
            goal="≥ 100/s",
        ),
        Row(
            SECTION,
            "move commit latency p50 / p95",
            f"{ms(p50)} / {ms(p95)}",
            goal="p95 < 50 ms",
        ),
        Row(
            SECTION,
            f"moves committed/s, {writers} concurrent writers",
            f"{concurrent_rate:,.0f}/s",
            goal="≥ 100/s",
        ),
        Row(
            SECTION,
            f"load the 20 most recent games of a player ({heavy_total} games) p50 / p95",
            f"{ms(recent_p50)} / {ms(recent_p95)}",
            goal="p50 < 5 ms",
        ),
        Row(SECTION, "list a player's active games, p50", ms(percentiles(active, 50)[0])),
        Row(SECTION, "load one game by id, p50", ms(percentiles(loaded, 50)[0])),
        Row(SECTION, "timer query: everything due, p50", ms(percentiles(due, 50)[0])),
    ]


async def _populate(storage: Storage, rng: random.Random) -> list[Game]:
    """1,000 active games among 200 players (the heavy player in about 50 of them), plus
    480 finished games of the heavy player so "recent" has history to sort through."""
    clock = Clock(3 * DAY, DAY)
    active = []
    for i in range(ACTIVE_GAMES):
        white = HEAVY_PLAYER if i % 20 == 0 else rng.randint(2, PLAYERS)
        black = rng.randint(2, PLAYERS)
        while black == white:
            black = rng.randint(2, PLAYERS)
        if rng.random() < 0.5:
            white, black = black, white
        active.append(await storage.games.create(_new(white, black, clock, i), START + i))
    for i in range(HEAVY_FINISHED):
        opponent = 2 + i % (PLAYERS - 1)
        when = START - 10_000 + i
        game = await storage.games.create(_new(HEAVY_PLAYER, opponent, clock, i), when)
        await storage.games.resign(game.id, opponent, when + 1)
    return active


def _new(white: int, black: int, clock: Clock, i: int) -> NewGame:
    variant = ("chess", "grand", "patricia", "bigorra")[i % 4]
    return NewGame(
        guild_id=1,
        channel_id=2,
        white_id=white,
        black_id=black,
        variant_id=variant,
        start_position=_replay(variant, (), []),
        clock=clock,
    )


async def _timed(make: Callable[[], Awaitable[T]]) -> tuple[T, float]:
    start = time.perf_counter()
    value = await make()
    return value, time.perf_counter() - start


async def _samples(count: int, make: Callable[[], Awaitable[object]]) -> list[float]:
    await make()  # warm-up
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        await make()
        samples.append(time.perf_counter() - start)
    return samples


if __name__ == "__main__":
    for row in run(quick=False):
        print(f"{row.entry}: {row.value}  {row.goal}")
