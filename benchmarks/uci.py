"""A minimal UCI client for Fairy-Stockfish, the peer of the engine matches.

Debian's `fairy-stockfish` package installs `/usr/games/fairy-stockfish`; `find_engine()`
looks there, in `/usr/bin` and on PATH. Only what a match needs: choose the variant and the
Skill Level, set a position by its move list, ask for a move at a fixed time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

INSTALL_HINT = "apt-get install fairy-stockfish (Debian/Ubuntu; `make bench` uses it when present)"
CANDIDATES = ("/usr/games/fairy-stockfish", "/usr/bin/fairy-stockfish")


def find_engine() -> str | None:
    """The Fairy-Stockfish executable, or None when it is not installed."""
    for path in CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("fairy-stockfish")


class UciError(RuntimeError):
    """The engine died or said something unexpected."""


class UciEngine:
    """One engine process, talked to line by line."""

    def __init__(self, path: str, options: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.send("uci")
        self.name = ""
        for line in self.read_until("uciok"):
            if line.startswith("id name "):
                self.name = line.removeprefix("id name ").strip()
        for key, value in (options or {}).items():
            self.set_option(key, value)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError as exc:
            raise UciError("the engine has exited") from exc

    def read_until(self, prefix: str) -> list[str]:
        assert self.proc.stdout is not None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise UciError(f"the engine exited before {prefix!r}")
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def set_option(self, name: str, value: str) -> None:
        self.send(f"setoption name {name} value {value}")

    def ready(self) -> None:
        self.send("isready")
        self.read_until("readyok")

    def new_game(self, variant: str, variant_path: Path | None = None) -> None:
        if variant_path is not None:
            self.set_option("VariantPath", str(variant_path))
        self.set_option("UCI_Variant", variant)
        self.send("ucinewgame")
        self.ready()

    def best_move(self, moves: list[str], movetime_ms: int) -> tuple[str, int | None]:
        """The engine's move after `moves` from the start, and its last score (centipawns
        for the side to move; +-100000 for a mate) when it gave one."""
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go movetime {movetime_ms}")
        score: int | None = None
        for line in self.read_until("bestmove"):
            if line.startswith("info") and " score " in line:
                words = line.split()
                i = words.index("score")
                kind, value = words[i + 1], int(words[i + 2])
                score = value if kind == "cp" else (100_000 if value > 0 else -100_000)
            if line.startswith("bestmove"):
                return line.split()[1], score
        raise UciError("no bestmove")  # pragma: no cover - read_until returns on bestmove

    def speed(self, fen: str, movetime_ms: int) -> tuple[int, int, int]:
        """(nodes, nodes per second, depth) of a search of `fen` for `movetime_ms`."""
        self.send(f"position fen {fen}")
        self.send(f"go movetime {movetime_ms}")
        nodes = nps = depth = 0
        for line in self.read_until("bestmove"):
            words = line.split()
            if words and words[0] == "info" and "nodes" in words:
                nodes = int(words[words.index("nodes") + 1])
                if "nps" in words:
                    nps = int(words[words.index("nps") + 1])
                if "depth" in words:
                    depth = int(words[words.index("depth") + 1])
        return nodes, nps, depth

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=5)
        except (UciError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
