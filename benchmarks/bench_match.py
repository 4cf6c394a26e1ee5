"""The engine's strength as match results, with Elo differences and 95% error bars.

1. Against a random mover and a one-ply greedy mover, in one variant of every family of the
   catalogue, at a fixed node budget per move (goals: 100% and 90% or more).
2. Against Fairy-Stockfish over UCI at fixed Skill Levels and the same time per move, in
   the variants both engines play: chess, Grand Chess, and Capablanca Chess and Shako as
   players' variant files (docs/examples/, read as a guild's would be). Goal: an even score
   against Skill Level 0 at one second a move in chess and Grand. Fairy-Stockfish is
   Debian's package; without it the rows say how to install it.

`benchmarks/match.py` plays the games (pairs from one opening, colours swapped; adjudication
only against Fairy-Stockfish). The game counts are small by default so that `make bench`
stays within the hour; more games narrow the error bars:
`FAIRYPOST_BENCH_GAMES=40 FAIRYPOST_BENCH_SKILLS=0,3 python -m benchmarks --only match`
(`FAIRYPOST_BENCH_FSF_VARIANTS=chess,grand` plays only those against Fairy-Stockfish,
`FAIRYPOST_BENCH_FSF_GAMES=6` sets its game count apart, and
`FAIRYPOST_BENCH_OPPONENTS=fsf` plays only those matches: `random`, `greedy`, `fsf`;
`FAIRYPOST_BENCH_FAMILIES=chess,bigorra` the variants against the random and greedy movers).
"""

from __future__ import annotations

import os
import sys

from benchmarks.common import Row
from benchmarks.elo import estimate
from benchmarks.match import (
    EnginePlayer,
    FairyStockfishPlayer,
    GreedyPlayer,
    MatchResult,
    RandomPlayer,
    load_match_variant,
    match,
)
from search.searcher import Limits
from search.uci import INSTALL_HINT, UciEngine, UciError, find_engine

FAMILIES = (
    "chess",
    "grand",
    "patchanka",
    "heavy-shako",
    "bigorra",
    "timurid-herat",
    "frog-gryphon",
    "leaping-bat",
    "patricia",
)
FSF_MATCHES = {  # variant -> (Fairy-Stockfish's name, letters that differ)
    "chess": ("chess", {}),
    "grand": ("grand", {"M": "C", "C": "A"}),
    "capablanca": ("capablanca", {}),
    "shako": ("shako", {}),
}
WEAK_NODES = 1_500  # engine's budget a move against the random and the greedy movers
MOVETIME = 1.0  # seconds a move for both engines against Fairy-Stockfish


def _progress(line: str) -> None:
    print(f"  {line}", file=sys.stderr, flush=True)


def _row(section: str, entry: str, result: MatchResult, goal: str = "") -> Row:
    est = estimate(result.points)
    share = sum(result.points) / len(result.points) if result.points else 0.0
    value = f"{result.tally()} ({share:.0%}), Elo {est.text()}"
    return Row(section, entry, value, result.opponent, result.reasons(), goal=goal)


def run(quick: bool = False) -> list[Row]:
    games = int(os.environ.get("FAIRYPOST_BENCH_GAMES", "2" if quick else "4"))
    skills = [int(s) for s in os.environ.get("FAIRYPOST_BENCH_SKILLS", "0").split(",") if s]
    fsf_variants = os.environ.get("FAIRYPOST_BENCH_FSF_VARIANTS", ",".join(FSF_MATCHES))
    fsf_games = int(os.environ.get("FAIRYPOST_BENCH_FSF_GAMES", str(games)))
    opponents = os.environ.get("FAIRYPOST_BENCH_OPPONENTS", "random,greedy,fsf").split(",")
    families = FAMILIES[:2] if quick else FAMILIES
    if os.environ.get("FAIRYPOST_BENCH_FAMILIES"):
        families = tuple(os.environ["FAIRYPOST_BENCH_FAMILIES"].split(","))
    weak_limits = Limits(nodes=200 if quick else WEAK_NODES)
    rows = []
    for opponent_kind in [o for o in ("random", "greedy") if o in opponents]:
        section = f"search: match vs {opponent_kind} mover"
        goal = "100%" if opponent_kind == "random" else "≥ 90%"
        for variant_id in families:
            # The seed is the family's place in FAMILIES, whichever families are played.
            i = FAMILIES.index(variant_id) if variant_id in FAMILIES else len(FAMILIES)
            variant = load_match_variant(variant_id)
            engine = EnginePlayer(weak_limits, "Fairy Post", table_mb=4)
            opponent = RandomPlayer(i) if opponent_kind == "random" else GreedyPlayer(i)
            result = match(
                variant, engine, opponent, games, seed=i, max_plies=500, progress=_progress
            )
            entry = f"{variant.name}: {len(result.games)} games, {weak_limits.nodes:,} nodes a move"
            rows.append(_row(section, entry, result, goal))
    if "fsf" in opponents:
        rows += fsf_rows(quick, fsf_games, skills, [v for v in fsf_variants.split(",") if v])
    return rows


def fsf_rows(quick: bool, games: int, skills: list[int], variants: list[str]) -> list[Row]:
    section = "search: match vs Fairy-Stockfish"
    path = find_engine()
    if path is None:
        return [Row(section, "not played", "", "Fairy-Stockfish", f"not installed: {INSTALL_HINT}")]
    movetime = 0.2 if quick else MOVETIME
    rows = []
    for variant_id in variants[:1] if quick else variants:
        name, letters = FSF_MATCHES[variant_id]
        variant = load_match_variant(variant_id)
        for skill in skills:
            try:
                uci = UciEngine(path, {"Threads": "1", "Hash": "16"})
            except (OSError, UciError) as exc:
                rows.append(
                    Row(section, f"{variant.name}: not played", "", "Fairy-Stockfish", str(exc))
                )
                continue
            try:
                opponent = FairyStockfishPlayer(uci, name, skill, int(movetime * 1000), letters)
                engine = EnginePlayer(Limits(movetime=movetime), "Fairy Post")
                result = match(
                    variant,
                    engine,
                    opponent,
                    games,
                    opening_plies=2,
                    adjudicate=True,
                    seed=skill,
                    progress=_progress,
                )
            finally:
                uci.close()
            rate = engine.nodes / engine.seconds if engine.seconds else 0.0
            entry = (
                f"{variant.name}: {len(result.games)} games, {movetime:g} s a move each "
                f"(Fairy Post searched {rate:,.0f} nodes/s)"
            )
            goal = "≥ 50%" if skill == 0 and variant_id in ("chess", "grand") else ""
            rows.append(_row(section, entry, result, goal))
    return rows
