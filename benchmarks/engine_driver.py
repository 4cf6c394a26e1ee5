"""One Fairy Post engine in a process of its own, spoken to in JSON lines: the match and
speed harness (`benchmarks/bench_engine.py`) runs two engines side by side with it, the
working tree's and an earlier commit's (`git archive COMMIT rules search`, which is all the
engine needs: both packages are standard library only).

    python -I -S benchmarks/engine_driver.py --root DIR [--clock cpu|wall]

`-I -S` keep the virtual environment's editable install (today's `rules`) out of the way:
the engine imported is the one under DIR. With `--clock cpu` (the default) the engine's own
clock is this process's CPU time, so "one second a move" means one CPU-second however many
other processes share the machine: the engines' budgets are wall time, and a wall second
on a loaded two-core machine is a fraction of a CPU-second that changes from move to move.

Requests, one JSON object a line; each gets one JSON line back:

- `{"op": "new", "variant": "chess"}`: a new game (a fresh table for it).
- `{"op": "go", "moves": [...], "movetime": 1.0, "level": 8}`: the move after these moves
  (coordinates) from the start: `move`, `score` (centipawns for the side to move), `depth`,
  `nodes`, and the `cpu` and `wall` seconds the search took.
- `{"op": "speed", "variant": "chess", "moves": [...], "movetime": 1.0}`: one search from a
  fresh table, the same answer (the table of the game in progress is left alone).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

TABLE_MB = 16  # Fairy-Stockfish's default hash in the matches is 16 MB too


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the directory holding rules/ and search/")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args()
    wall = time.perf_counter
    if args.clock == "cpu":
        # Before the engine is imported, so that whatever it binds reads the CPU clock.
        time.monotonic = time.process_time
        time.perf_counter = time.process_time
    sys.path.insert(0, args.root)
    engine = Engine(wall)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = engine.handle(request)
        except Exception as exc:  # the harness reports it; the process stays usable
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


class Engine:
    """The engine under `--root`, with the game it is playing."""

    def __init__(self, wall: Any) -> None:
        from rules.game import Game
        from search.tt import TranspositionTable

        self.wall = wall
        self.game_class = Game
        self.table_class = TranspositionTable
        self.variant_id = ""
        self.game: Any = None
        self.table: Any = None

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request["op"]
        if op == "new":
            self.variant_id = request["variant"]
            self.game = self.game_class.new(self.variant_id)
            self.table = self.table_class(TABLE_MB)
            return {"ok": True}
        if op == "go":
            self._follow(request["moves"])
            return self._search(self.game, self.table, request)
        if op == "speed":
            game = self.game_class.new(request["variant"])
            for text in request["moves"]:
                game.play(text, check_marks=False)
            return self._search(game, self.table_class(TABLE_MB), request)
        raise ValueError(f"unknown op {op!r}")

    def _follow(self, moves: list[str]) -> None:
        """Bring the game to `moves`: play the new ones, or start again if they differ."""
        played = [m.coordinates for m in self.game.history]
        if moves[: len(played)] != played:
            self.game = self.game_class.new(self.variant_id)
            played = []
        for text in moves[len(played) :]:
            self.game.play(text, check_marks=False)

    def _search(self, game: Any, table: Any, request: dict[str, Any]) -> dict[str, Any]:
        from search.play import best_move

        cpu, wall = time.process_time(), self.wall()
        choice = best_move(
            game, int(request.get("level", 8)), movetime=float(request["movetime"]), tt=table
        )
        cpu, wall = time.process_time() - cpu, self.wall() - wall
        if choice is None:
            return {"move": None, "cpu": cpu, "wall": wall}
        return {
            "move": choice.coordinates,
            "score": choice.score,
            "depth": choice.depth,
            "nodes": choice.nodes,
            "cpu": cpu,
            "wall": wall,
        }


if __name__ == "__main__":
    sys.exit(main())
