"""Engine II (issue 29) measured: the engine of the working tree against the engine of an
earlier commit ("the present engine", 34c1e75 unless `FAIRYPOST_BENCH_BASELINE` names
another) and against Fairy-Stockfish's `UCI_Elo` ladder.

1. Speed: nodes per CPU-second and the depth reached in one CPU-second, at the start and in
   a middle game of chess, Shako, Grand Chess and Bigorra, both engines in the same run.
2. Matches at one CPU-second a move (level 8, the top level, its time set to that): the new
   engine against the present one in chess and Shako, and against Fairy-Stockfish at
   `UCI_Elo` 2100 in chess and 1600 in Shako (one thread, 16 MB). At a `UCI_Elo` it picks
   its move from the lines of one depth (8 or 9 at 2100, 3 or 4 at 1600) and searching on
   does not change that move, so it searches to that depth (`match.elo_pick_depth`), which
   it reaches in a fraction of a second: it then plays as it would at one second a move,
   however loaded the machine (`--fsf-movetime` gives it 1000 ms of wall time instead).
   Each pair of games starts from one of the fixed
   openings of `benchmarks/openings.py`, once with each colour. A game both engines score
   at 6 Pawns or more for one side for three moves running each is adjudicated to it (a
   two-core machine shared with others gives a CPU-second a move 5 to 7 s of wall time, and
   a won ending played out costs many of them); one both score within 0.20 Pawns of level
   for eight moves after move 40 is adjudicated a draw; a game at the ply cap (200) is a
   draw.

Both Fairy Post engines run in processes of their own (`benchmarks/engine_driver.py`; the
present one from `git archive BASELINE rules search`, so a clone with its history is
needed) on the CPU clock: one second a move is one CPU-second, however busy the machine.

`make bench` plays 2 games a match; for the issue's measurements:

    python -m benchmarks.bench_engine --games 40 --parallel 2 --log engine.jsonl \\
        --until 09:55 [--matches chess:present,shako:present,chess:fsf2100,shako:fsf1600]
    python -m benchmarks.bench_engine --summary engine.jsonl

(`FAIRYPOST_BENCH_ENGINE_GAMES`, `FAIRYPOST_BENCH_ENGINE_MATCHES`,
`FAIRYPOST_BENCH_ENGINE_PARALLEL` and `FAIRYPOST_BENCH_ENGINE_SPEED=0` do the same inside
`make bench`.) `--until HH:MM` (UTC) starts no game after that time; the games are
interleaved across the matches, so every match has played about as many when it stops.
"""

from __future__ import annotations

import argparse
import atexit
import datetime
import functools
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmarks.bench_search import middle_game
from benchmarks.common import ROOT, Row
from benchmarks.elo import estimate
from benchmarks.match import (
    DriverPlayer,
    FairyStockfishPlayer,
    Player,
    elo_pick_depth,
    play_game,
)
from benchmarks.openings import OPENINGS
from rules.variant import load_variant
from search.uci import INSTALL_HINT, UciEngine, find_engine

BASELINE = os.environ.get("FAIRYPOST_BENCH_BASELINE", "34c1e75")
MOVETIME = 1.0  # CPU-seconds a move for the Fairy Post engines, wall seconds for FSF
LEVEL = 8
MAX_PLIES = 200
ADJUDICATE_CP = 600
MATCHES = ("chess:present", "shako:present", "chess:fsf2100", "shako:fsf1600")
GOALS = {"present": "≥ +200 Elo", "fsf2100": "≥ 50%", "fsf1600": "≥ 50%"}
SPEED_VARIANTS = ("chess", "shako", "grand", "bigorra")
# Shako has no recorded game: its middle game is the first fixed opening continued by the
# present engine at depth 4 to ply 24 (two minor pieces and a Pawn exchanged).
SHAKO_MIDDLE = (
    *OPENINGS["shako"][0],
    *("f3f4", "a9c7", "g2a8", "c9a8", "a1a8", "g7d7", "g3g4", "b9a9"),
    *("f1a1", "g9e7", "j2h4", "h9f8", "c2d4", "c7b6", "d4f3", "b6a7"),
)
SECTION_SPEED = "engine II: speed"
SECTION_MATCH = "engine II: match"


def _progress(line: str) -> None:
    print(f"  {line}", file=sys.stderr, flush=True)


@functools.cache
def baseline_tree(commit: str = BASELINE) -> Path:
    """`rules` and `search` of `commit`, extracted once per process into a temporary
    directory (removed at exit); RuntimeError without the git history."""
    folder = Path(tempfile.mkdtemp(prefix=f"fairypost-{commit}-"))
    archive = subprocess.run(
        ["git", "archive", commit, "rules", "search"], cwd=ROOT, capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise RuntimeError(f"git archive {commit} failed: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    atexit.register(shutil.rmtree, folder, True)
    return folder


def present_name() -> str:
    return f"present engine ({BASELINE})"


# --------------------------------------------------------------------------- speed


def speed_positions() -> Iterator[tuple[str, str, list[str]]]:
    """(variant, label, moves from the start) for each speed row."""
    for variant in SPEED_VARIANTS:
        yield variant, "start", []
        if variant == "shako":
            moves = list(SHAKO_MIDDLE)
        else:
            moves = [m.coordinates for m in middle_game(variant).history]
        yield variant, f"middle game (ply {len(moves)})", moves


def speed_rows(movetime: float) -> list[Row]:
    """Both engines search each position once for `movetime` CPU-seconds from a fresh
    table, one after the other; each variant's tables are built by a short search first."""
    new = DriverPlayer(ROOT, "new engine", movetime)
    old = DriverPlayer(baseline_tree(), present_name(), movetime)
    rows = []
    try:
        warmed: set[str] = set()
        for variant, label, moves in speed_positions():
            answers = []
            for engine in (new, old):
                if variant not in warmed:
                    engine.ask({"op": "speed", "variant": variant, "moves": [], "movetime": 0.05})
                request = {"op": "speed", "variant": variant, "moves": moves}
                answers.append(engine.ask({**request, "movetime": movetime, "level": LEVEL}))
            warmed.add(variant)
            (n_rate, n_depth), (o_rate, o_depth) = (
                (float(str(a["nodes"])) / float(str(a["cpu"])), a["depth"]) for a in answers
            )
            name = load_variant(variant).name
            rows.append(
                Row(
                    SECTION_SPEED,
                    f"{name}, {label}: nodes per CPU-second (depth reached in {movetime:g} "
                    f"CPU-s, level {LEVEL})",
                    f"{n_rate:,.0f}/s (depth {n_depth})",
                    present_name(),
                    f"{o_rate:,.0f}/s (depth {o_depth})",
                    f"{n_rate / o_rate:.2f}×" if o_rate else "",
                )
            )
            _progress(f"speed {variant} {label}: {rows[-1].value} vs {rows[-1].peer_value}")
    finally:
        new.close()
        old.close()
    return rows


# --------------------------------------------------------------------------- matches


@dataclass(frozen=True, slots=True)
class Job:
    """One game to play: the new engine against `opponent` from opening `opening`."""

    variant: str
    opponent: str  # "present" or "fsfNNNN"
    opening: int
    engine_color: int  # 0: the new engine has White


@dataclass(frozen=True, slots=True)
class Played:
    """One game's result, as a line of the log."""

    engine: str  # the engine under test: "new" or "present"
    variant: str
    opponent: str
    opening: int
    engine_color: int
    points: float  # for the engine under test
    reason: str
    plies: int
    movetime: float
    moves: int  # the engine's moves (searches) in the game
    mean_depth: float
    opponent_depth: float  # the opponent's mean depth reached
    nodes_per_cpu_second: float
    cpu_per_move: float
    wall_per_move: float
    load: tuple[float, float]  # 1-minute load average at the start and the end
    started: str
    seconds: float
    error: str = ""
    line: str = ""  # the moves, opening included (coordinates), to replay the game


def jobs(matches: Sequence[str], games: int) -> list[Job]:
    """Games in pairs (same opening, each colour), interleaved across the matches."""
    out = []
    for pair in range((games + 1) // 2):
        for spec in matches:
            variant, opponent = spec.split(":")
            lines = OPENINGS[variant]
            for color in (0, 1):
                out.append(Job(variant, opponent, pair % len(lines), color))
    return out


class Seat:
    """One worker's players: the engine under test ("new", or "present" to measure the
    present engine against Fairy-Stockfish) and each opponent, started when first needed and
    kept for the worker's later games."""

    def __init__(self, movetime: float, engine: str = "new", fsf_movetime: bool = False) -> None:
        self.movetime = movetime
        self.engine = engine
        self.fsf_movetime = fsf_movetime
        self.players: dict[str, Player] = {}
        self.uci: UciEngine | None = None

    def player(self, kind: str, variant: str) -> Player:
        key = f"{kind}:{variant}" if kind.startswith("fsf") else kind
        if key not in self.players:
            if kind == "new":
                self.players[key] = DriverPlayer(ROOT, "new engine", self.movetime, level=LEVEL)
            elif kind == "present":
                tree = baseline_tree()
                self.players[key] = DriverPlayer(tree, present_name(), self.movetime, level=LEVEL)
            elif kind.startswith("fsf"):
                path = find_engine()
                if path is None:
                    raise RuntimeError(f"Fairy-Stockfish is not installed: {INSTALL_HINT}")
                if self.uci is None:
                    self.uci = UciEngine(path, {"Threads": "1", "Hash": "16"})
                elo = int(kind[3:])
                self.players[key] = FairyStockfishPlayer(
                    self.uci,
                    variant,
                    0,
                    round(self.movetime * 1000),
                    elo=elo,
                    depth=None if self.fsf_movetime else elo_pick_depth(elo),
                )
            else:
                raise ValueError(f"unknown opponent {kind!r}")
        return self.players[key]

    def close(self) -> None:
        for p in self.players.values():
            p.close()
        self.players.clear()
        if self.uci is not None:
            self.uci.close()
            self.uci = None


def play_job(seat: Seat, job: Job, max_plies: int) -> Played:
    started = datetime.datetime.now(datetime.UTC).strftime("%H:%M:%S")
    load0 = os.getloadavg()[0]
    clock = time.monotonic()
    engine = seat.player(seat.engine, job.variant)
    assert isinstance(engine, DriverPlayer)
    before = (engine.moves, engine.nodes, engine.cpu, engine.wall, len(engine.depths))
    opponent = seat.player(job.opponent, job.variant)
    assert isinstance(opponent, DriverPlayer | FairyStockfishPlayer)
    opponent_before = len(opponent.depths)
    white, black = (engine, opponent) if job.engine_color == 0 else (opponent, engine)
    variant = load_variant(job.variant)
    error = ""
    record: list[str] = []
    try:
        points, reason, plies = play_game(
            variant,
            white,
            black,
            OPENINGS[job.variant][job.opening],
            max_plies=max_plies,
            adjudicate=True,
            adjudicate_draws=True,
            adjudicate_cp=ADJUDICATE_CP,
            record=record,
        )
        mine = points if job.engine_color == 0 else 1 - points
    except Exception as exc:  # a crashed or illegal player: logged, the seat restarted
        seat.close()
        mine, reason, plies, error = 0.5, "error", 0, f"{type(exc).__name__}: {exc}"
    moves = engine.moves - before[0]
    cpu = engine.cpu - before[2]
    depths = engine.depths[before[4] :]
    theirs = opponent.depths[opponent_before:]
    return Played(
        seat.engine,
        job.variant,
        job.opponent,
        job.opening,
        job.engine_color,
        mine,
        reason,
        plies,
        seat.movetime,
        moves,
        round(sum(depths) / len(depths), 2) if depths else 0.0,
        round(sum(theirs) / len(theirs), 2) if theirs else 0.0,
        round((engine.nodes - before[1]) / cpu) if cpu else 0.0,
        round(cpu / moves, 3) if moves else 0.0,
        round((engine.wall - before[3]) / moves, 3) if moves else 0.0,
        (load0, os.getloadavg()[0]),
        started,
        round(time.monotonic() - clock, 1),
        error,
        " ".join(record),
    )


def play_matches(
    todo: Sequence[Job],
    *,
    parallel: int = 1,
    movetime: float = MOVETIME,
    max_plies: int = MAX_PLIES,
    engine: str = "new",
    fsf_movetime: bool = False,
    until: float | None = None,
    log: Path | None = None,
    progress: Callable[[str], None] = _progress,
) -> list[Played]:
    """Plays the jobs, `parallel` games at a time (each worker with its own engine
    processes); no game starts after `until` (epoch seconds)."""
    pending: queue.Queue[Job] = queue.Queue()
    for job in todo:
        pending.put(job)
    results: list[Played] = []
    lock = threading.Lock()

    def worker() -> None:
        seat = Seat(movetime, engine, fsf_movetime)
        try:
            while until is None or time.time() < until:
                try:
                    job = pending.get_nowait()
                except queue.Empty:
                    return
                played = play_job(seat, job, max_plies)
                with lock:
                    results.append(played)
                    if log is not None:
                        with log.open("a", encoding="utf-8") as fh:
                            fh.write(json.dumps(asdict(played)) + "\n")
                    progress(
                        f"{played.engine}: {played.variant} vs {played.opponent}, "
                        f"opening {played.opening + 1}, "
                        f"{'White' if played.engine_color == 0 else 'Black'}: {played.points} "
                        f"({played.reason}, {played.plies} plies, depth {played.mean_depth} / "
                        f"{played.opponent_depth}, "
                        f"{played.seconds:.0f} s, load {played.load[1]:.1f}) {played.error}"
                    )
        finally:
            seat.close()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, parallel))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def read_log(path: Path) -> list[Played]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            data = json.loads(line)
            data["load"] = tuple(data["load"])
            out.append(Played(**data))
    return out


def opponent_name(opponent: str) -> str:
    if opponent == "present":
        return present_name()
    return f"Fairy-Stockfish UCI_Elo {opponent[3:]}"


def engine_name(engine: str) -> str:
    return present_name() if engine == "present" else "new engine"


def match_rows(results: Sequence[Played]) -> list[Row]:
    """One row per (engine, opponent, variant): score, Elo with its 95% interval, how the
    games ended, both sides' depth, the engine's speed in them and the machine's load."""
    rows = []
    for key in sorted({(r.engine, r.opponent, r.variant) for r in results}):
        engine, opponent, variant = key
        games = [r for r in results if (r.engine, r.opponent, r.variant) == key]
        errors = [g for g in games if g.error]
        games = [g for g in games if not g.error]
        name = f"{load_variant(variant).name}, {engine_name(engine)}"
        if not games:
            rows.append(Row(SECTION_MATCH, f"{name}: {len(errors)} games, every one failed", ""))
            continue
        points = [g.points for g in games]
        wins = sum(1 for p in points if p > 0.5)
        losses = sum(1 for p in points if p < 0.5)
        moves = sum(g.moves for g in games) or 1
        depth = sum(g.mean_depth * g.moves for g in games) / moves
        theirs = sum(g.opponent_depth * g.moves for g in games) / moves
        cpu = sum(g.cpu_per_move * g.moves for g in games) / moves
        wall = sum(g.wall_per_move * g.moves for g in games) / moves
        nodes = sum(g.nodes_per_cpu_second * g.cpu_per_move * g.moves for g in games)
        loads = [x for g in games for x in g.load]
        reasons: dict[str, int] = {}
        for g in games:
            reasons[g.reason] = reasons.get(g.reason, 0) + 1
        entry = (
            f"{name}: {len(games)} games, {games[0].movetime:g} CPU-s a move (depth "
            f"{depth:.1f} on average, the opponent's {theirs:.1f}; {nodes / (cpu * moves):,.0f} "
            f"nodes/CPU-s, {cpu:.2f} CPU-s and {wall:.2f} s of wall time a move; load "
            f"{min(loads):.1f}-{max(loads):.1f})"
            + (f"; {len(errors)} games failed, not counted" if errors else "")
        )
        rows.append(
            Row(
                SECTION_MATCH,
                entry,
                f"+{wins} ={len(games) - wins - losses} -{losses} "
                f"({sum(points) / len(points):.0%}), Elo {estimate(points).text()}",
                opponent_name(opponent),
                ", ".join(f"{n}× {r}" for r, n in sorted(reasons.items(), key=lambda x: -x[1])),
                goal=GOALS.get(opponent, "") if engine == "new" else "",
            )
        )
    return rows


def run(quick: bool = False) -> list[Row]:
    movetime = 0.2 if quick else MOVETIME
    rows: list[Row] = []
    try:
        baseline_tree()
    except RuntimeError as exc:
        return [Row(SECTION_SPEED, f"not measured: {exc}", "")]
    if os.environ.get("FAIRYPOST_BENCH_ENGINE_SPEED", "1") != "0":
        rows += speed_rows(movetime)
    games = int(os.environ.get("FAIRYPOST_BENCH_ENGINE_GAMES", "2"))
    matches = os.environ.get(
        "FAIRYPOST_BENCH_ENGINE_MATCHES", "chess:present" if quick else ",".join(MATCHES)
    ).split(",")
    parallel = int(os.environ.get("FAIRYPOST_BENCH_ENGINE_PARALLEL", "1"))
    if games > 0 and matches != [""]:
        results = play_matches(
            jobs(matches, games),
            parallel=parallel,
            movetime=movetime,
            max_plies=60 if quick else MAX_PLIES,
        )
        rows += match_rows(results)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_engine", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--matches", default=",".join(MATCHES))
    parser.add_argument("--games", type=int, default=2, help="games per match (pairs)")
    parser.add_argument("--parallel", type=int, default=1, help="games at a time (at most 2)")
    parser.add_argument("--movetime", type=float, default=MOVETIME)
    parser.add_argument("--max-plies", type=int, default=MAX_PLIES)
    parser.add_argument("--until", help="HH:MM UTC: no game starts after it")
    parser.add_argument("--log", type=Path, help="append each game as a JSON line")
    parser.add_argument("--speed", action="store_true", help="the speed rows only")
    parser.add_argument(
        "--engine", choices=("new", "present"), default="new", help="the engine under test"
    )
    parser.add_argument(
        "--fsf-movetime", action="store_true", help="Fairy-Stockfish: 1 s of wall time a move"
    )
    parser.add_argument("--summary", type=Path, help="the rows of a log, nothing played")
    args = parser.parse_args(argv)
    from benchmarks.__main__ import markdown_table

    if args.summary is not None:
        print(markdown_table(match_rows(read_log(args.summary))))
        return 0
    if args.speed:
        print(markdown_table(speed_rows(args.movetime)))
        return 0
    until = None
    if args.until:
        hh, mm = (int(x) for x in args.until.split(":"))
        now = datetime.datetime.now(datetime.UTC)
        until = now.replace(hour=hh, minute=mm, second=0, microsecond=0).timestamp()
    results = play_matches(
        jobs(args.matches.split(","), args.games),
        parallel=min(args.parallel, 2),
        movetime=args.movetime,
        max_plies=args.max_plies,
        engine=args.engine,
        fsf_movetime=args.fsf_movetime,
        until=until,
        log=args.log,
    )
    print(markdown_table(match_rows(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
