"""The engine's search speed: nodes per second at the start and in a middle game of chess,
Grand Chess, Patchanka and Bigorra, with the depth reached.

Each search is given the same node budget from a fresh table (the variant's tables are
built beforehand: that one-time cost is the rules section's). The middle games are positions
of the recorded games in tests/rules (ply 24, or the last but four of a shorter game).
Fairy-Stockfish, a C++ engine, searched the same positions for the same node count's
worth of time where it plays the variant (Bigorra's 16x16 board is beyond it): its speed is
the peer value, to show the distance, not as a goal.

Run alone: `python -m benchmarks --only search`.
"""

from __future__ import annotations

import statistics

from benchmarks.bench_rules import FSF_VARIANTS, FSF_VARIANTS_FILE, fsf_fen
from benchmarks.common import ROOT, Row
from rules.game import Game, game_after
from rules.postext import format_position
from rules.record import read_record
from search.searcher import Limits, Searcher
from search.uci import INSTALL_HINT, UciEngine, UciError, find_engine

RECORDS = {
    "chess": ROOT / "tests" / "rules" / "games" / "chess-opera.txt",
    "grand": ROOT / "tests" / "rules" / "games" / "grand-mate.txt",
    "patchanka": ROOT / "tests" / "rules" / "data" / "games" / "patchanka.txt",
    "bigorra": ROOT / "tests" / "rules" / "games" / "bigorra.txt",
}
MIDDLE_PLY = 24
SECTION = "search: speed"


def middle_game(variant: str) -> Game:
    moves = [p.text for p in read_record(RECORDS[variant].read_text(encoding="utf-8")).plies]
    return game_after(variant, moves[: min(MIDDLE_PLY, len(moves) - 4)])


def measure(game: Game, nodes: int, repeats: int) -> tuple[float, int]:
    """Median nodes per second over `repeats` searches of `nodes` nodes, and the depth."""
    rates = []
    depth = 0
    for _ in range(repeats):
        searcher = Searcher(game.position)
        result = searcher.search(Limits(nodes=nodes))
        rates.append(result.nodes / result.elapsed if result.elapsed else 0.0)
        depth = result.depth
    return statistics.median(rates), depth


def run(quick: bool = False) -> list[Row]:
    nodes = 2_000 if quick else 40_000
    repeats = 1 if quick else 3
    path = find_engine()
    fsf: UciEngine | None = None
    if path is not None:
        try:
            fsf = UciEngine(path, {"Threads": "1", "Hash": "16"})
            fsf.set_option("VariantPath", str(FSF_VARIANTS_FILE))
        except (OSError, UciError):
            fsf = None
    rows = []
    try:
        for variant in RECORDS:
            for label, game in (
                ("start", Game.new(variant)),
                ("middle game", middle_game(variant)),
            ):
                Searcher(game.position).search(Limits(nodes=200))  # tables built beforehand
                rate, depth = measure(game, nodes, repeats)
                entry = (
                    f"{game.variant.name}, {label} (ply {game.ply}): nodes/s searching "
                    f"{nodes:,} nodes (depth reached)"
                )
                peer = peer_value = ratio = ""
                if variant in FSF_VARIANTS:
                    if fsf is None:
                        peer, peer_value = "Fairy-Stockfish", f"not installed: {INSTALL_HINT}"
                    else:
                        name, _ = FSF_VARIANTS[variant]
                        fsf.new_game(name)
                        fen = fsf_fen(variant, format_position(game.position))
                        ms = 300 if quick else 1_000
                        _n, nps, fdepth = fsf.speed(fen, ms)
                        peer = f"{fsf.name} (C++, 1 thread)"
                        peer_value = f"{nps:,}/s (depth {fdepth} in {ms} ms)"
                        ratio = f"{rate / nps:.4f}×" if nps else ""
                rows.append(
                    Row(SECTION, entry, f"{rate:,.0f}/s (depth {depth})", peer, peer_value, ratio)
                )
    finally:
        if fsf is not None:
            fsf.close()
    return rows
