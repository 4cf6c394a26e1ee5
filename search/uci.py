"""The one UCI client: an engine process (Fairy-Stockfish) talked to line by line.

The product's partner (`search.partner`) and the benchmarks' matches both use it. Every read
has a deadline: a reader thread queues the engine's lines, so a hung engine costs a timeout,
never a blocked caller, and a crashed one an `UciError` at once. Debian's `fairy-stockfish`
package installs `/usr/games/fairy-stockfish`; `find_engine()` looks there, in `/usr/bin`
and on PATH.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

INSTALL_HINT = "apt-get install fairy-stockfish (Debian/Ubuntu)"
CANDIDATES = ("/usr/games/fairy-stockfish", "/usr/bin/fairy-stockfish")
START_SECONDS = 10.0
"""How long an engine may take to start and say `uciok`."""
READY_SECONDS = 10.0
"""How long an engine may take to answer `isready` (loading a variants file included)."""
STOP_GRACE_SECONDS = 2.0
"""How long an engine may take to give its move once told to stop."""
_EOF = None


def find_engine() -> str | None:
    """The Fairy-Stockfish executable, or None when it is not installed."""
    for path in CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("fairy-stockfish")


def short_name(id_name: str) -> str:
    """The engine's name as players read it: its `id name` up to the version number
    (`Fairy-Stockfish 11.1` from `Fairy-Stockfish 11.1 LB 64`), the whole name otherwise."""
    found = re.match(r"\s*(.*?\d+(?:\.\d+)*)(?:\s|$)", id_name)
    return found.group(1) if found else id_name.strip()


class UciError(RuntimeError):
    """The engine died, hung or said something unexpected."""


class UciTimeout(UciError):
    """The engine did not answer in time."""


@dataclass(frozen=True, slots=True)
class Info:
    """One `info` line of a search: `score` in centipawns, or `mate` in moves (positive:
    the side to move mates), for the side to move; `multipv` 1 is the best line."""

    depth: int
    multipv: int
    score: int | None
    mate: int | None
    nodes: int
    pv: tuple[str, ...]
    bound: str = ""
    """`lowerbound` or `upperbound` when the score is only a bound (an unfinished line)."""
    nps: int = 0
    """Nodes per second as the engine counts them (0 when the line gives none)."""


@dataclass(frozen=True, slots=True)
class GoResult:
    """A finished search: the move (`(none)` when the engine has none) and the last `info`
    of each line (`lines[0]` the best), plus how many nodes and seconds it took."""

    bestmove: str
    lines: tuple[Info, ...]
    nodes: int
    depth: int
    elapsed: float


def parse_info(line: str) -> Info | None:
    """An `info` line with a score, or None (strings, currmove and the like)."""
    words = line.split()
    if not words or words[0] != "info" or "score" not in words:
        return None

    def number(key: str, default: int = 0) -> int:
        if key in words:
            i = words.index(key)
            if i + 1 < len(words):
                with contextlib.suppress(ValueError):
                    return int(words[i + 1])
        return default

    i = words.index("score")
    if i + 2 >= len(words):
        return None
    kind, value = words[i + 1], words[i + 2]
    try:
        amount = int(value)
    except ValueError:
        return None
    pv = tuple(words[words.index("pv") + 1 :]) if "pv" in words else ()
    return Info(
        depth=number("depth"),
        multipv=number("multipv", 1),
        score=amount if kind == "cp" else None,
        mate=amount if kind == "mate" else None,
        nodes=number("nodes"),
        pv=pv,
        bound=next((w for w in words if w in ("lowerbound", "upperbound")), ""),
        nps=number("nps"),
    )


class UciEngine:
    """One engine process. Not thread-safe: one caller at a time."""

    def __init__(
        self,
        path: str,
        options: Mapping[str, str] | None = None,
        *,
        start_timeout: float = START_SECONDS,
    ) -> None:
        try:
            self.proc = subprocess.Popen(
                [path],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise UciError(f"{path} cannot be started: {exc}") from exc
        self._lines: queue.Queue[str | None] = queue.Queue()
        assert self.proc.stdout is not None
        stdout = self.proc.stdout
        threading.Thread(target=self._read, args=(stdout,), name="uci-reader", daemon=True).start()
        self.id_name = ""
        try:
            self.send("uci")
            for line in self.read_until("uciok", timeout=start_timeout):
                if line.startswith("id name "):
                    self.id_name = line.removeprefix("id name ").strip()
            for key, value in (options or {}).items():
                self.set_option(key, value)
        except UciError:
            self.kill()
            raise

    @property
    def name(self) -> str:
        """The engine's `id name` as it gave it."""
        return self.id_name

    def _read(self, stdout: TextIO) -> None:
        """The reader thread: every line into the queue, then the end (and the pipe closed,
        here, where nothing else reads it)."""
        with contextlib.suppress(OSError, ValueError):
            for line in stdout:
                self._lines.put(line.rstrip("\n"))
        self._lines.put(_EOF)
        with contextlib.suppress(OSError):
            stdout.close()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise UciError("the engine has exited") from exc

    def read_line(self, deadline: float | None) -> str:
        """The engine's next line; UciTimeout past `deadline` (monotonic), UciError when it
        has exited."""
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise UciTimeout("the engine did not answer in time") from None
        if line is _EOF:
            self._lines.put(_EOF)  # every later read fails the same way
            raise UciError("the engine has exited")
        assert line is not None
        return line

    def read_until(self, prefix: str, timeout: float | None = None) -> list[str]:
        """The lines up to and including the first that starts with `prefix`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        lines = []
        while True:
            line = self.read_line(deadline)
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def set_option(self, name: str, value: str) -> None:
        self.send(f"setoption name {name} value {value}")

    def ready(self, timeout: float = READY_SECONDS) -> list[str]:
        """Waits for `readyok`; the lines before it (`info string` answers to options)."""
        self.send("isready")
        return self.read_until("readyok", timeout=timeout)

    def new_game(self, variant: str, variant_path: Path | None = None) -> None:
        if variant_path is not None:
            self.set_option("VariantPath", str(variant_path))
        self.set_option("UCI_Variant", variant)
        self.send("ucinewgame")
        self.ready()

    def go(
        self,
        position: str,
        limits: str,
        *,
        timeout: float | None,
        should_stop: Callable[[], bool] | None = None,
        poll: float = 0.25,
    ) -> GoResult | None:
        """Searches `position` (`startpos ...` or `fen ... moves ...`) within `limits` (`movetime
        1000`, `nodes 50000`, ...). Past `timeout` seconds the engine is told to stop and
        given STOP_GRACE_SECONDS to answer (UciTimeout if it does not); when `should_stop()`
        turns true it is stopped and None is returned."""
        start = time.monotonic()
        self.send(f"position {position}")
        self.send(f"go {limits}")
        deadline = None if timeout is None else start + timeout
        best: dict[int, Info] = {}
        stopped = cancelled = False
        while True:
            wait = deadline
            if should_stop is not None and not stopped:
                step = time.monotonic() + poll
                wait = step if wait is None else min(wait, step)
            try:
                line = self.read_line(wait)
            except UciTimeout:
                if should_stop is not None and not stopped and should_stop():
                    cancelled = stopped = True
                    self.send("stop")
                    deadline = time.monotonic() + STOP_GRACE_SECONDS
                    continue
                if deadline is not None and time.monotonic() >= deadline:
                    if stopped:
                        raise UciTimeout("the engine did not stop when told") from None
                    stopped = True
                    self.send("stop")
                    deadline = time.monotonic() + STOP_GRACE_SECONDS
                continue
            if line.startswith("info"):
                info = parse_info(line)
                # A bound (an unfinished line) only where no exact score is known yet.
                if info is not None and info.pv and (not info.bound or info.multipv not in best):
                    best[info.multipv] = info
            elif line.startswith("bestmove"):
                words = line.split()
                if cancelled:
                    return None
                lines = tuple(best[k] for k in sorted(best))
                return GoResult(
                    bestmove=words[1] if len(words) > 1 else "(none)",
                    lines=lines,
                    nodes=max((i.nodes for i in lines), default=0),
                    depth=lines[0].depth if lines else 0,
                    elapsed=time.monotonic() - start,
                )

    def legal_moves(self, position: str, timeout: float = READY_SECONDS) -> frozenset[str]:
        """The moves the engine finds legal in `position` (`go perft 1`)."""
        self.send(f"position {position}")
        self.send("go perft 1")
        moves = set()
        for line in self.read_until("Nodes searched", timeout=timeout):
            move, colon, count = line.partition(": ")
            if colon and count.strip().isdigit() and " " not in move:
                moves.add(move)
        return frozenset(moves)

    def best_move(self, moves: list[str], movetime_ms: int) -> tuple[str, int | None]:
        """The engine's move after `moves` from the start, and its last score (centipawns
        for the side to move; +-100000 for a mate) when it gave one."""
        position = "startpos" + (" moves " + " ".join(moves) if moves else "")
        timeout = _answer_seconds(movetime_ms)  # then told to stop; UciTimeout if it won't
        result = self.go(position, f"movetime {movetime_ms}", timeout=timeout)
        assert result is not None  # nothing can call it off
        score: int | None = None
        if result.lines:
            first = result.lines[0]
            if first.mate is not None:
                score = 100_000 if first.mate > 0 else -100_000
            else:
                score = first.score
        return result.bestmove, score

    def speed(self, fen: str, movetime_ms: int) -> tuple[int, int, int]:
        """(nodes, nodes per second, depth) of a search of `fen` for `movetime_ms`, as the
        engine's last line reports them; told to stop, then UciTimeout, when it hangs."""
        result = self.go(
            f"fen {fen}", f"movetime {movetime_ms}", timeout=_answer_seconds(movetime_ms)
        )
        assert result is not None  # nothing can call it off
        nps = result.lines[0].nps if result.lines else 0
        return result.nodes, nps, result.depth

    def kill(self) -> None:
        """Ends the process at once (a hung or misbehaving engine)."""
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.proc.wait()
        self._close_stdin()

    def _close_stdin(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                self.proc.stdin.close()

    def close(self) -> None:
        """Asks the engine to quit; kills it if it does not within five seconds."""
        try:
            self.send("quit")
            self.proc.wait(timeout=5)
            self._close_stdin()
        except (UciError, subprocess.TimeoutExpired):
            self.kill()


def _answer_seconds(movetime_ms: int) -> float:
    """How long a benchmark waits for a search of `movetime_ms`: its time and READY_SECONDS
    more, so that a hung engine ends a benchmark's game, not the benchmark."""
    return movetime_ms / 1000 + READY_SECONDS
