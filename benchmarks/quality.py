"""Move quality: how much worse Fairy Post's chosen move is than Fairy-Stockfish's best, by
Fairy-Stockfish's own deeper search (dev-only; needs fairy-stockfish).

A match needs hundreds of games to tell 50 Elo apart; the centipawns a move loses against a
much stronger judge tell it in a hundred positions, at a fixed node budget (so the load of
the machine changes nothing), and say where the engine goes wrong (a blunder's position is
printed). For each position of a positions file (`benchmarks.tune positions`), Fairy Post
searches `--nodes` nodes; Fairy-Stockfish searches the position to `--depth` for its best
move and score, then (when the moves differ) the position after Fairy Post's move; the loss
is the difference, capped at 1,000 centipawns, and the expected result it costs (a
logistic of 400 centipawns, so that a lost position made more lost costs little).

    python -m benchmarks.quality chess-11.tsv.gz --count 100 --nodes 60000 --depth 12
    python -m benchmarks.quality chess-11.tsv.gz --set FUTILITY_DEPTH=0   # a constant
    python -m benchmarks.quality chess-11.tsv.gz --elo 2100   # the matches' opponent, judged alike
    python -m benchmarks.quality --games match.jsonl --depth 11   # every move of the games

`--games` reads a match log of `benchmarks.bench_engine --log` instead and judges the moves
played, both sides', past the fixed opening, by the game's phase: where the games are lost
(a probe on single positions scores Fairy Post as good as the 2100 it loses to).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import search.searcher as searcher_module
from benchmarks.match import elo_pick_depth
from benchmarks.openings import OPENINGS
from benchmarks.tune import position_line, read_positions
from rules.fsf import fen, format_uci
from rules.notation import coordinates, parse
from rules.position import Position
from rules.postext import format_position, parse_position
from rules.variant import load_variant
from search.evaluate import EvalTables
from search.searcher import Limits, Searcher
from search.uci import UciEngine, find_engine

CAP = 1_000  # centipawns: a lost piece or a missed mate count alike beyond this
BLUNDER = 150  # centipawns lost that make a move a blunder
PHASES = ((0, 30, "plies 1-30"), (30, 60, "plies 31-60"), (60, 1 << 30, "plies 61-"))


class Judgements:
    """Fairy-Stockfish's judgements kept in a file (`--cache`): its search is not quite
    repeatable (the hash table's state), so two runs compared position by position should
    read the same judgement of the same position, and a second run costs half the time."""

    def __init__(self, path: str | None) -> None:
        self.path = Path(path) if path else None
        self.known: dict[str, list[int | str]] = {}
        if self.path is not None and self.path.exists():
            self.known = json.loads(self.path.read_text(encoding="utf-8"))

    def get(
        self, engine: UciEngine, position_fen: str, depth: int, moves: str = ""
    ) -> tuple[int, str]:
        key = f"{position_fen}|{moves}|{depth}"
        hit = self.known.get(key)
        if hit is not None:
            return int(hit[0]), str(hit[1])
        score, best = judge(engine, position_fen, depth, moves)
        self.known[key] = [score, best]
        return score, best

    def save(self) -> None:
        """Merge into the file (another run may have added to it meanwhile)."""
        if self.path is None:
            return
        merged = json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}
        merged.update(self.known)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(merged), encoding="utf-8")
        tmp.replace(self.path)


def _peer_move(peer: UciEngine, position_fen: str, depth: int) -> str:
    """The move Fairy-Stockfish at its UCI_Elo plays (a fresh game: its Skill draws anew)."""
    peer.send("ucinewgame")
    peer.send(f"position fen {position_fen}")
    peer.send(f"go depth {depth}")
    for line in peer.read_until("bestmove"):
        if line.startswith("bestmove"):
            return line.split()[1]
    raise RuntimeError("Fairy-Stockfish gave no move")


def judge(engine: UciEngine, position_fen: str, depth: int, moves: str = "") -> tuple[int, str]:
    """Fairy-Stockfish's score of a position (side to move, centipawns, mates as +-CAP*3)
    and its best move."""
    engine.send(f"position fen {position_fen}" + (f" moves {moves}" if moves else ""))
    engine.send(f"go depth {depth}")
    score = 0
    for line in engine.read_until("bestmove"):
        words = line.split()
        if line.startswith("info") and "score" in words:
            i = words.index("score")
            kind, value = words[i + 1], int(words[i + 2])
            score = value if kind == "cp" else (3 * CAP if value > 0 else -3 * CAP)
        if line.startswith("bestmove"):
            return score, words[1]
    return score, ""


def scores_of(
    engine: UciEngine, judgements: Judgements, text: str, move: str, depth: int
) -> tuple[int, int]:
    """Fairy-Stockfish's score of the position `text` at `depth` and of `move` there (the
    position after it at `depth - 1`), for the side to move."""
    best, choice = judgements.get(engine, text, depth)
    after = best if choice == move else -judgements.get(engine, text, depth - 1, move)[0]
    return best, after


def loss(best: int, after: int) -> tuple[int, float]:
    """(centipawns lost, capped; expected result lost) going from `best` to `after`."""
    return max(0, min(CAP, best - after)), max(0.0, expected(best) - expected(after))


def review_games(
    log: str, engine: UciEngine, judgements: Judgements, depth: int, keep: str | None = None
) -> str:
    """Every move of the logged games past their opening, judged: per side and phase the
    moves, mean loss, blunders and expected result lost; then each lost game's worst move.
    `keep`: a positions file (as `benchmarks.tune positions` writes) of the positions where
    the engine under test moved, to probe a change on the games' own positions."""
    cells: dict[tuple[str, str], list[tuple[int, float]]] = {}
    worst: list[str] = []
    kept: list[str] = []
    for line in Path(log).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if not row.get("line"):
            continue
        variant_id, moves = row["variant"], row["line"].split()
        engine.set_option("UCI_Variant", load_variant(variant_id).fsf_variant or variant_id)
        pos = Position.start(variant_id)
        opening = len(OPENINGS[variant_id][row["opening"]])
        ours = row["engine"]
        points = row["points"] if row["engine_color"] == 0 else 1 - row["points"]  # White's
        lost: tuple[int, int, str, str] | None = None
        for ply, text in enumerate(moves):
            code = parse(pos, text).code
            if ply >= opening:
                uci = format_uci(pos, code)
                position_fen = fen(pos)
                best, after = scores_of(engine, judgements, position_fen, uci, depth)
                cp, drop = loss(best, after)
                side = ours if ply % 2 == row["engine_color"] else row["opponent"]
                if side == ours:
                    white = best if pos.side == 0 else -best
                    kept.append(position_line(variant_id, points, format_position(pos), white))
                phase = next(name for lo, hi, name in PHASES if lo <= ply < hi)
                cells.setdefault((side, phase), []).append((cp, drop))
                if side == ours and (lost is None or cp > lost[0]):
                    lost = (cp, ply, text, position_fen)
            pos.push_code(code)
        if row["points"] == 0 and lost is not None:
            cp, ply, text, position_fen = lost
            number = row["opening"] + 1  # as bench_engine numbers them
            worst.append(f"  opening {number}, ply {ply + 1}: {text} loses {cp} cp  {position_fen}")
        judgements.save()
    if keep is not None:
        with gzip.open(keep, "wt", encoding="utf-8") as f:
            f.writelines(kept)
    out = ["| side | phase | moves | mean loss | blunders | expected result lost a move |"]
    out.append("|---|---|---|---|---|---|")
    for side in sorted({s for s, _p in cells}):
        for _lo, _hi, phase in PHASES:
            got = cells.get((side, phase), [])
            if got:
                cps = [cp for cp, _d in got]
                out.append(
                    f"| {side} | {phase} | {len(got)} | {statistics.mean(cps):.1f} cp | "
                    f"{sum(cp >= BLUNDER for cp in cps)} | "
                    f"{statistics.mean(d for _c, d in got):.4f} |"
                )
    if worst:
        out.append("Each lost game's worst move of the engine under test:")
        out.extend(worst)
    return "\n".join(out)


def expected(cp: int) -> float:
    """The expected result of a score (the logistic of the tuning, 400 centipawns)."""
    return 1 / (1 + 10 ** (-cp / 400))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.quality", description=__doc__)
    parser.add_argument(
        "positions", help="a positions file written by benchmarks.tune (a match log: --games)"
    )
    parser.add_argument("--games", action="store_true", help="judge the moves of a match log")
    parser.add_argument("--keep", help="with --games: write the engine's positions to this file")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--skip", type=int, default=0, help="positions to skip first")
    parser.add_argument("--every", type=int, default=7, help="take one position in this many")
    parser.add_argument("--nodes", type=int, default=60_000)
    parser.add_argument(
        "--movetime", type=float, help="CPU-seconds a move instead of nodes (as the matches)"
    )
    parser.add_argument("--depth", type=int, default=12, help="Fairy-Stockfish's depth")
    parser.add_argument("--derived", action="store_true", help="derived, not learned tables")
    parser.add_argument("--set", action="append", default=[], help="NAME=VALUE of searcher")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--cache", help="a file keeping Fairy-Stockfish's judgements")
    parser.add_argument("--out", help="write each position's move and loss (JSON lines)")
    parser.add_argument("--against", help="an earlier run's --out: compare position by position")
    parser.add_argument(
        "--elo", type=int, help="judge Fairy-Stockfish at this UCI_Elo instead (the matches' peer)"
    )
    args = parser.parse_args(argv)
    for item in args.set:
        name, _, value = item.partition("=")
        if not hasattr(searcher_module, name):
            sys.exit(f"search.searcher has no {name}")
        kind = type(getattr(searcher_module, name))
        if kind is bool:
            setattr(searcher_module, name, value.lower() in ("1", "true", "on", "yes"))
        else:
            setattr(searcher_module, name, kind(value))
    path = find_engine()
    if path is None:
        sys.exit("fairy-stockfish is needed to judge the moves")
    engine = UciEngine(path, {"Threads": "1", "Hash": "64"})
    judgements = Judgements(args.cache)
    if args.games:
        print(review_games(args.positions, engine, judgements, args.depth, args.keep))
        engine.close()
        return
    losses: list[int] = []
    drops: list[float] = []  # expected result lost
    picked = read_positions(args.positions)[args.skip :: args.every][: args.count]
    variant_id = picked[0][0]
    fsf_variant = load_variant(variant_id).fsf_variant or variant_id
    engine.set_option("UCI_Variant", fsf_variant)
    peer: UciEngine | None = None
    if args.elo is not None:
        # The matches' opponent, as bench_engine sets it: UCI_Elo, its pick depth.
        peer = UciEngine(path, {"Threads": "1", "Hash": "16"})
        peer.set_option("UCI_Variant", fsf_variant)
        peer.set_option("UCI_LimitStrength", "true")
        peer.set_option("UCI_Elo", str(args.elo))
    tables: EvalTables | None = None
    rows: list[dict[str, object]] = []
    for fields in picked:
        pos: Position = parse_position(fields[0], fields[2])
        if tables is None:
            tables = EvalTables(pos.t, learned=not args.derived)
        text = fen(pos)
        if peer is not None and args.elo is not None:
            depth, score = elo_pick_depth(args.elo), 0
            uci = shown = _peer_move(peer, text, depth)
        else:
            if args.movetime is not None:
                # The matches' budget: what is measured is the use of a CPU-second.
                searcher = Searcher(pos, evaluation=tables, clock=time.process_time)
                result = searcher.search(Limits(movetime=args.movetime))
            else:
                result = Searcher(pos, evaluation=tables).search(Limits(nodes=args.nodes))
            assert result.move is not None
            uci = format_uci(pos, result.move)
            depth, score, shown = result.depth, result.score, coordinates(pos, result.move)
        best, after = scores_of(engine, judgements, text, uci, args.depth)
        cp, drop = loss(best, after)
        losses.append(cp)
        drops.append(drop)
        rows.append({"fen": text, "move": uci, "depth": depth, "drop": drops[-1]})
        if args.verbose or cp >= BLUNDER:
            print(
                f"{cp:5d} cp  {shown:8} depth {depth:2d}  "
                f"ours {score:6d}  fsf {best:6d} -> {after:6d}  {text}",
                flush=True,
            )
    engine.close()
    if peer is not None:
        peer.close()
    judgements.save()
    blunders = sum(1 for x in losses if x >= BLUNDER)
    mover = (
        f"Fairy-Stockfish UCI_Elo {args.elo}"
        if peer
        else f"{args.movetime:g} CPU-s"
        if args.movetime is not None
        else f"{args.nodes} nodes"
    )
    print(
        f"{variant_id}: {len(losses)} positions, {mover}, judged at depth {args.depth}: "
        f"mean loss {statistics.mean(losses):.1f} cp, median "
        f"{statistics.median(losses):.0f}, blunders (>= {BLUNDER}) {blunders} "
        f"({100 * blunders / len(losses):.0f}%), expected result lost "
        f"{statistics.mean(drops):.4f} a move; settings {' '.join(args.set) or 'as shipped'}"
        f"{', derived tables' if args.derived else ''}"
    )
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    if args.against:
        print(compare(rows, args.against))


def compare(rows: Sequence[dict[str, object]], against: str) -> str:
    """This run against an earlier one on the positions both judged: the mean difference of
    expected result lost a move (0 where both chose the same move) and its standard error,
    which tells a change apart from the noise of the positions far better than two means."""
    earlier = {}
    for line in Path(against).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        earlier[row["fen"]] = row
    diffs = []
    same = 0
    for row in rows:
        old = earlier.get(str(row["fen"]))
        if old is None:
            continue
        if old["move"] == row["move"]:
            same += 1
            diffs.append(0.0)
        else:
            diffs.append(float(str(row["drop"])) - float(old["drop"]))
    if len(diffs) < 2:
        return f"against {against}: fewer than two positions in common"
    se = statistics.stdev(diffs) / len(diffs) ** 0.5
    return (
        f"against {against}: {len(diffs)} positions ({same} same move), expected result lost "
        f"a move {statistics.mean(diffs):+.4f} (standard error {se:.4f}; negative is better)"
    )


if __name__ == "__main__":
    main()
