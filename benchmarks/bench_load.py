"""Load: 10,000 active games, bot processes applying moves and timers at the same time.

The database is built once on SQLite (10,000 active games among 2,000 players, 1,000 of them
with deadlines falling due during the run), then moved to PostgreSQL with the code of
`python -m storage copy` (timed, verified) for each PostgreSQL run: the copied games are the
ones played on. Each run starts from the same data and lasts the same wall time:

- SQLite, one process (the default deployment);
- PostgreSQL, one process;
- PostgreSQL, several processes (like one process per range of shards) serving the same
  players: the same 8 playing tasks in all, spread over the processes, as sharding spreads
  the same servers' traffic. (`FAIRYPOST_BENCH_TASKS_EACH=1` gives every process 8 tasks of
  its own instead: four times the offered load.)

Every process runs concurrent tasks that each play their own games (games are split between
processes as shards split guilds): read the game, append a move through the guarded
`append_move` (its effects and the next turn's notice are written with it). One more task per
process runs the timers the way the bot does: batches of what fell due (reminders, losses on
time), each batch's rows taken FOR UPDATE SKIP LOCKED. Reported per run: moves committed per
second, the p95 latency of a move (read + commit), timer items handled, and refusals (a move
whose game a timer ended meanwhile). After each run the data is checked: every move list is
whole and every deadline game ended on time exactly once.

What a network between the bot and the server adds is measured apart, without load: moves
made one at a time through a proxy that holds every round trip 0, 0.5 and 2 ms
(`benchmarks/pgproxy.py`, in a process of its own); the median move's latency above the
proxy at 0 ms is what the round trips cost (about round trips × delay).

Before the runs, the cost of one move is counted rather than timed: round trips to the
server and transactions (PostgreSQL, read off the wire by the proxy), statements and
transactions (SQLite, from its trace callback), for the storage move (read + write, the
first time this process writes the game and afterwards) and for the bot's whole `/move`
(`GameService.play`, with the rules engine, without its posts).
The replayer of the load runs is a stand-in: the rules engine is measured elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import random
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import Row, percentiles
from benchmarks.pgproxy import PgProxy
from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from storage import Engine, Storage
from storage.copy import copy_database
from storage.db import connect
from storage.errors import ConflictError, RefusedError
from storage.games import insert_game
from storage.models import DAY, Clock, NewGame, NewMove

SECTION = "load"
T0 = 1_767_225_600
GAMES = 10_000
PLAYERS = 2_000
DEADLINE_GAMES = 1_000
TASKS = 8
"""Playing tasks in all (each process gets its share), or per process with TASKS_EACH."""
TASKS_EACH = os.environ.get("FAIRYPOST_BENCH_TASKS_EACH", "") == "1"
SEVERAL = 4
ROUNDS = 3
DELAYS_MS = (0.0, 0.5, 2.0)
DELAYED_MOVES = 200
COUNTED_MOVES = 100
POSTGRES = os.environ.get("FAIRYPOST_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def _replay(variant_id: str, options: Sequence[str], moves: Sequence[str]) -> str:
    return f"{variant_id}:{len(moves)}:{'/'.join(moves[-4:])}"


ENGINE = Engine(version="bench", replay=_replay)


@dataclass
class Stats:
    moves: int = 0
    latencies: list[float] = field(default_factory=list)
    timers: int = 0
    refused: int = 0
    seconds: float = 0.0

    def add(self, other: Stats) -> None:
        self.moves += other.moves
        self.latencies += other.latencies
        self.timers += other.timers
        self.refused += other.refused
        self.seconds = max(self.seconds, other.seconds)


def run(quick: bool = False) -> list[Row]:
    if quick:
        return measure(games=1_000, deadlines=100, seconds=3.0, rounds=1)
    return measure(games=GAMES, deadlines=DEADLINE_GAMES, seconds=8.0, rounds=ROUNDS)


def measure(*, games: int, deadlines: int, seconds: float, rounds: int) -> list[Row]:
    """The three configurations on `games` games (`deadlines` of them timing out), taking
    turns for `rounds` rounds of `seconds` each: a machine whose load changes meanwhile
    (other work on its cores) weighs on every configuration alike."""
    with tempfile.TemporaryDirectory(prefix="fairypost-load-") as folder, ExitStack() as stack:
        base = str(Path(folder) / "base.sqlite3")
        setup = time.perf_counter()
        movers, timed = asyncio.run(_populate(base, games, deadlines))
        setup = time.perf_counter() - setup
        rows = [Row(SECTION, f"setup: {games:,} active games on SQLite", f"{setup:.1f} s")]
        postgres_ok = asyncio.run(_postgres_answers())
        rows += asyncio.run(_count_sqlite(str(Path(folder) / "count.sqlite3")))
        if postgres_ok:
            with _schema() as url:
                rows += asyncio.run(_count_postgres(url))
        sqlite_copy = str(Path(folder) / "run.sqlite3")
        shutil.copy(base, sqlite_copy)
        configurations: list[tuple[str, int, str | None]] = [("SQLite, 1 process", 1, sqlite_copy)]
        for label, processes in (
            ("PostgreSQL, 1 process", 1),
            (f"PostgreSQL, {SEVERAL} processes", SEVERAL),
        ):
            if not postgres_ok:
                configurations.append((label, processes, None))
                continue
            url = stack.enter_context(_schema())
            began = time.perf_counter()
            report = asyncio.run(copy_database(base, url, engine=None))
            copied = time.perf_counter() - began
            if processes == 1:
                moved = sum(c.source for c in report.counts)
                rows.append(
                    Row(
                        SECTION,
                        f"python -m storage copy to PostgreSQL ({moved:,} rows, verified: "
                        f"{'yes' if report.ok else 'NO'})",
                        f"{copied:.1f} s",
                    )
                )
            configurations.append((label, processes, url))
        totals = [Stats() for _ in configurations]
        rates: list[list[float]] = [[] for _ in configurations]
        for round_no in range(rounds):
            for k, (_, processes, target) in enumerate(configurations):
                if target is None:
                    continue
                stats = _load(target, processes, movers, timed, seconds, round_no * 1000)
                rates[k].append(stats.moves / stats.seconds)
                totals[k].add(stats)
        pg_url = configurations[1][2]
        delayed = _delays(pg_url, movers) if pg_url is not None else []
    base_rate = statistics.median(rates[0])
    for k, (label, processes, target) in enumerate(configurations):
        if target is None:
            rows.append(Row(SECTION, label, f"not measured: no PostgreSQL server at {POSTGRES}"))
            continue
        stats = totals[k]
        rate = statistics.median(rates[k])
        p95 = percentiles(stats.latencies, 95)[0] if stats.latencies else 0.0
        value = (
            f"{rate:,.0f} moves/s (median of {len(rates[k])} rounds: "
            f"{', '.join(f'{r:,.0f}' for r in rates[k])}), p95 {p95 * 1000:.1f} ms, "
            f"{stats.timers:,} timer items, {stats.refused:,} refused "
            "(stale, or handled by another process)"
        )
        peer = peer_value = ratio = ""
        if k:
            peer, peer_value = "SQLite, 1 process", f"{base_rate:,.0f} moves/s"
            ratio = f"{rate / base_rate:.2f}×"
        tasks = TASKS * processes if TASKS_EACH else TASKS
        rows.append(
            Row(
                SECTION,
                f"{label}, {tasks} playing tasks in all, {games:,} games",
                value,
                peer,
                peer_value,
                ratio,
            )
        )
    return rows + delayed


# --- the database ------------------------------------------------------------------------


async def _populate(target: str, games: int, deadlines: int) -> tuple[list[int], list[int]]:
    """`games` active games on a 3-day clock; the last `deadlines` of them run out during the
    run (their deadlines spread over its first seconds) and are never moved."""
    rng = random.Random(2026)
    clock = Clock(3 * DAY, DAY)
    ids: list[int] = []
    async with (
        await Storage.open(target, engine=ENGINE) as storage,
        storage._db.transaction() as tx,
    ):
        for i in range(games):
            white = rng.randint(1, PLAYERS)
            black = rng.randint(1, PLAYERS - 1)
            black += black >= white
            variant = ("chess", "grand", "patricia", "bigorra")[i % 4]
            new = NewGame(
                guild_id=1 + i % 50,
                channel_id=100 + i % 50,
                white_id=white,
                black_id=black,
                variant_id=variant,
                start_position=_replay(variant, (), []),
                clock=clock,
            )
            ids.append(await insert_game(tx, new, T0, ENGINE.version))
        timed = ids[games - deadlines :]
        for k, game_id in enumerate(timed):
            await tx.run(
                "UPDATE games SET deadline_at = ? WHERE id = ?",
                (T0 + 1 + k % 3, game_id),
            )
        await tx.run("UPDATE notifications SET sent_at = ?", (T0,))
    return ids[: games - deadlines], timed


async def _postgres_answers() -> bool:
    try:
        db = await connect(POSTGRES)
    except Exception:
        return False
    await db.close()
    return True


@contextlib.contextmanager
def _schema() -> Iterator[str]:
    """A schema of the benchmark's own on the PostgreSQL server, dropped afterwards."""
    name = f"fp_bench_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    asyncio.run(_admin(f'CREATE SCHEMA "{name}"'))
    sep = "&" if "?" in POSTGRES else "?"
    try:
        yield f"{POSTGRES}{sep}search_path={name}"
    finally:
        asyncio.run(_admin(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))


async def _admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


# --- the load ----------------------------------------------------------------------------


def _load(
    target: str,
    processes: int,
    movers: list[int],
    timed: list[int],
    seconds: float,
    offset: int = 0,
) -> Stats:
    """`processes` processes playing `movers` for `seconds` (their clock starts at
    `T0 + offset`), then the data checked."""
    parts = [movers[k::processes] for k in range(processes)]
    tasks = TASKS if TASKS_EACH else max(1, TASKS // processes)
    context = multiprocessing.get_context("spawn")
    total = Stats()
    with (
        context.Manager() as manager,
        ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool,
    ):
        # Every process starts playing when all have connected (a process still starting
        # would take the cores from the others' measured seconds).
        ready = manager.Barrier(processes)
        futures = [
            pool.submit(_process, target, part, ready, seconds, k, tasks, offset)
            for k, part in enumerate(parts)
        ]
        for future in futures:
            total.add(future.result())
    problems = asyncio.run(_verify(target, timed))
    if problems:
        raise AssertionError(f"the load run on {target} broke the data: {problems}")
    return total


def _process(
    target: str,
    games: list[int],
    ready: Any,
    seconds: float,
    seed: int,
    tasks: int,
    offset: int,
) -> Stats:
    """One bot process (run in a child)."""
    return asyncio.run(_process_async(target, games, ready, seconds, seed, tasks, offset))


async def _process_async(
    target: str,
    games: list[int],
    ready: Any,
    seconds: float,
    seed: int,
    tasks: int,
    offset: int,
) -> Stats:
    async with await Storage.open(target, engine=ENGINE, migrate=False) as storage:
        # The pool's connections opened (one per playing task) before the clock starts.
        await asyncio.gather(*(storage.games.get(game_id) for game_id in games[:tasks]))
        await asyncio.to_thread(ready.wait)
        end = time.perf_counter() + seconds
        began = time.perf_counter()

        def now() -> int:
            return T0 + offset + int(time.perf_counter() - began)

        async def mover(mine: list[int], rng: random.Random) -> Stats:
            stats = Stats()
            while time.perf_counter() < end:
                game_id = rng.choice(mine)
                t = time.perf_counter()
                game = await storage.games.get(game_id)
                ply = game.ply_count + 1
                coordinate = f"m{ply}x"
                history = [coordinate]
                try:
                    await storage.games.append_move(
                        game_id,
                        game.to_move_id,
                        game.ply_count,
                        NewMove(
                            notation=coordinate.upper(),
                            coordinate=coordinate,
                            position_hash=format(rng.getrandbits(64), "x"),
                            position_text=_replay(game.variant_id, game.options, history),
                        ),
                        now(),
                    )
                except (ConflictError, RefusedError):
                    stats.refused += 1
                    continue
                stats.latencies.append(time.perf_counter() - t)
                stats.moves += 1
            return stats

        async def timers() -> Stats:
            """The bot's timer pass: batches of what fell due, each batch's rows taken
            FOR UPDATE SKIP LOCKED (other processes' batches are skipped, not waited for)."""
            stats = Stats()
            while time.perf_counter() < end:
                ended = await storage.timers.time_out_due(now())
                sent = await storage.timers.notify_due(now())
                stats.timers += len(ended) + len(sent)
                if not ended and not sent:
                    # As the bot's loop: sleep until the next item falls due, looking again
                    # at least every second (the bot: every 2 s on PostgreSQL).
                    due = await storage.timers.next_due_at()
                    wait = 1.0 if due is None else min(1.0, max(0.05, due - now()))
                    await asyncio.sleep(wait)
            return stats

        rng = random.Random(seed)
        chunks = [games[k::tasks] for k in range(tasks)]
        results = await asyncio.gather(
            *(mover(chunk, random.Random(rng.random())) for chunk in chunks if chunk), timers()
        )
        total = Stats()
        for stats in results:
            total.add(stats)
        total.seconds = time.perf_counter() - began
        return total


async def _verify(target: str, timed: list[int]) -> list[str]:
    """After the run: the next timer pass (as a restarted bot would make) handles what is
    still due; then every move list is whole and every deadline game lost on time once."""
    problems = []
    async with await Storage.open(target, engine=ENGINE, migrate=False) as storage:
        later = T0 + DAY
        while await storage.timers.time_out_due(later, limit=500):
            pass
        while await storage.timers.notify_due(later, limit=500):
            pass
        async with storage._db.transaction(write=False) as tx:
            holes = await tx.scalar(
                "SELECT count(*) FROM games g WHERE g.ply_count <> "
                "(SELECT count(*) FROM moves m WHERE m.game_id = g.id)"
            )
            if holes:
                problems.append(f"{holes} games whose move list does not match their ply count")
            ended = await tx.scalar(
                "SELECT count(*) FROM games WHERE id BETWEEN ? AND ? AND status = 'finished' "
                "AND termination = 'timeout' AND ply_count = 0",
                (min(timed), max(timed)),
            )
            if ended != len(timed):
                problems.append(f"{ended} of {len(timed)} deadline games ended on time")
    return problems


# --- counting one move ---------------------------------------------------------------------


async def _count_games(storage: Storage, count: int) -> list[int]:
    clock = Clock(3 * DAY, DAY)
    ids = []
    for i in range(count):
        new = NewGame(
            guild_id=1,
            channel_id=100,
            white_id=90_000 + 2 * i,
            black_id=90_001 + 2 * i,
            variant_id="chess",
            start_position=_replay("chess", (), []),
            clock=clock,
        )
        ids.append((await storage.games.create(new, T0)).id)
    return ids


async def _storage_move(storage: Storage, game_id: int, at: int) -> None:
    game = await storage.games.get(game_id)
    coordinate = f"m{game.ply_count + 1}x"
    await storage.games.append_move(
        game_id,
        game.to_move_id,
        game.ply_count,
        NewMove(
            notation=coordinate.upper(),
            coordinate=coordinate,
            position_hash="ab",
            position_text=_replay(game.variant_id, game.options, [coordinate]),
        ),
        at,
    )


async def _service_moves(storage: Storage) -> tuple[GameService, int, list[str]]:
    """A real game of chess through the bot's service, set up for `/move`s."""
    service = GameService(storage, clock=ManualClock(T0))
    ann, bob = UserRef(70_001, "Ann"), UserRef(70_002, "Bob")
    view = await service.create_challenge(
        guild_id=1, channel_id=100, challenger=ann, opponent=bob, variant="chess", color="white"
    )
    game = await service.accept_challenge(view.challenge.id, bob)
    await service.attach_thread(game.game.id, 555)
    line = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8"
    return service, game.game.id, line.split()


def _per_move(label: str, what: str, counts: list[tuple[int, int]], unit: str) -> Row:
    trips = sum(c[0] for c in counts) / len(counts)
    transactions = sum(c[1] for c in counts) / len(counts)
    return Row(
        SECTION,
        f"{label}: {what} (mean of {len(counts)})",
        f"{trips:.1f} {unit}, {transactions:.1f} transactions",
    )


async def _count_postgres(url: str) -> list[Row]:
    """Round trips and transactions of one move, read off the wire."""
    rows = []
    async with (
        PgProxy.for_url(url) as proxy,
        await Storage.open(proxy.url(url), engine=STORAGE_ENGINE) as storage,
    ):
        games = await _count_games(storage, COUNTED_MOVES)
        for rounds, what in ((0, "first move of a game by this process"), (1, "next moves")):
            counts = []
            for game_id in games:
                before = proxy.snapshot()
                await _storage_move(storage, game_id, T0 + 60 + rounds)
                spent = proxy.snapshot() - before
                counts.append((spent.round_trips, spent.transactions))
            rows.append(
                _per_move("PostgreSQL", f"a move (read + write), {what}", counts, "round trips")
            )
        service, game_id, line = await _service_moves(storage)
        users = [UserRef(70_001, "Ann"), UserRef(70_002, "Bob")]
        counts = []
        for ply, text in enumerate(line):
            before = proxy.snapshot()
            await service.play(channel_id=555, user=users[ply % 2], text=text)
            spent = proxy.snapshot() - before
            counts.append((spent.round_trips, spent.transactions))
        rows.append(
            _per_move(
                "PostgreSQL",
                "the bot's /move (GameService.play: find, check, rules, write, reply; no posts)",
                counts,
                "round trips",
            )
        )
    return rows


async def _count_sqlite(path: str) -> list[Row]:
    """Statements (each a call to SQLite's thread) and transactions of one move."""
    statements: list[str] = []
    rows = []
    async with await Storage.open(path, engine=STORAGE_ENGINE) as storage:
        conn = storage._db._conn  # type: ignore[attr-defined]
        await conn.set_trace_callback(statements.append)
        games = await _count_games(storage, COUNTED_MOVES)

        def spent(mark: int) -> tuple[int, int]:
            done = statements[mark:]
            return len(done), sum(s.strip().upper().startswith("BEGIN") for s in done)

        counts = []
        for game_id in games:
            mark = len(statements)
            await _storage_move(storage, game_id, T0 + 60)
            counts.append(spent(mark))
        rows.append(_per_move("SQLite", "a move (read + write)", counts, "statements"))
        service, game_id, line = await _service_moves(storage)
        users = [UserRef(70_001, "Ann"), UserRef(70_002, "Bob")]
        counts = []
        for ply, text in enumerate(line):
            mark = len(statements)
            await service.play(channel_id=555, user=users[ply % 2], text=text)
            counts.append(spent(mark))
        rows.append(
            _per_move(
                "SQLite", "the bot's /move (GameService.play, no posts)", counts, "statements"
            )
        )
    return rows


# --- a network between the bot and the server --------------------------------------------


def _delays(url: str, movers: list[int]) -> list[Row]:
    """Moves one at a time (read + write) through proxies holding each round trip 0, 0.5 and
    2 ms, taking turns move by move (a change in the machine's load meets all three alike):
    the median of each move's latency above the 0 ms move next to it is what the network
    adds."""
    with ExitStack() as stack:
        urls = [stack.enter_context(_delaying_proxy(url, d / 1000)) for d in DELAYS_MS]
        latencies = asyncio.run(_moves_taking_turns(urls, movers))
    rows = []
    for delay, mine in zip(DELAYS_MS, latencies, strict=True):
        median, p95 = percentiles(mine, 50, 95)
        peer = peer_value = ratio = ""
        if delay:
            added = statistics.median(a - b for a, b in zip(mine, latencies[0], strict=True))
            peer = "the proxy at 0 ms"
            peer_value = f"median {percentiles(latencies[0], 50)[0] * 1000:.2f} ms"
            ratio = f"{added * 1000:+.2f} ms"
        rows.append(
            Row(
                SECTION,
                f"PostgreSQL, a move (read + write) one at a time through a proxy holding each "
                f"round trip {delay:g} ms ({DELAYED_MOVES} moves)",
                f"median {median * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms",
                peer,
                peer_value,
                ratio,
            )
        )
    return rows


async def _moves_taking_turns(urls: list[str], movers: list[int]) -> list[list[float]]:
    """One store per URL, each moving its own games; returns each one's latencies."""
    rng = random.Random(7)
    picked = rng.sample(movers, min(len(movers), 40 * len(urls)))
    shares = [picked[k :: len(urls)] for k in range(len(urls))]
    latencies: list[list[float]] = [[] for _ in urls]
    async with contextlib.AsyncExitStack() as stack:
        stores = [
            await stack.enter_async_context(await Storage.open(u, engine=ENGINE, migrate=False))
            for u in urls
        ]
        warm = len(shares[0])
        for k in range(DELAYED_MOVES + warm):
            for storage, games, mine in zip(stores, shares, latencies, strict=True):
                began = time.perf_counter()
                await _storage_move(storage, games[k % len(games)], T0 + 100_000)
                if k >= warm:  # the first write of each game reads its state: warm up
                    mine.append(time.perf_counter() - began)
    return latencies


@contextlib.contextmanager
def _delaying_proxy(url: str, delay: float) -> Iterator[str]:
    """A `PgProxy` holding each round trip `delay` seconds, in a process of its own; yields
    the URL through it."""
    context = multiprocessing.get_context("spawn")
    ports: multiprocessing.Queue[int] = context.Queue()
    process = context.Process(target=_serve_proxy, args=(url, delay, ports), daemon=True)
    process.start()
    try:
        proxy = PgProxy.for_url(url)
        proxy.port = ports.get(timeout=30)
        yield proxy.url(url)
    finally:
        process.terminate()
        process.join(10)


def _serve_proxy(url: str, delay: float, ports: multiprocessing.Queue[int]) -> None:
    async def serve() -> None:
        async with PgProxy.for_url(url, delay=delay) as proxy:
            ports.put(proxy.port)
            await asyncio.Event().wait()

    asyncio.run(serve())


if __name__ == "__main__":
    for row in run(quick=True):
        print(f"{row.entry}: {row.value} {row.peer} {row.peer_value} {row.ratio}")
