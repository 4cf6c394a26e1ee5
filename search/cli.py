"""`python -m search`: the engine's move, a game review and the derived piece values.

    python -m search bestmove chess --moves e2e4 e7e5 --level 6
    python -m search bestmove bigorra --movetime 3000
    python -m search analyze patricia --moves b2b3 d4d3 c1c2
    python -m search values grand

Variants are named as for `python -m rules` (id, name, options appended with `+`);
`--moves` takes moves in any accepted form.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence

from rules.errors import RulesError
from rules.game import game_after
from rules.variant import load_variant, resolve_variant_id
from search.analysis import analyze
from search.levels import DEFAULT_LEVEL, LEVELS, MAX_LEVEL, MIN_LEVEL
from search.play import best_move, score_text
from search.values import piece_values


def cmd_bestmove(args: argparse.Namespace) -> int:
    game = game_after(args.variant, args.moves)
    outcome = game.outcome()
    if outcome is not None:
        print(f"no move: the game is over ({outcome.result_text})")
        return 0
    movetime = args.movetime / 1000 if args.movetime is not None else None
    if args.infinite:
        movetime = math.inf
    choice = best_move(
        game,
        args.level,
        movetime=movetime,
        nodes=args.nodes,
        depth=args.depth,
        seed=args.seed,
    )
    if choice is None:  # pragma: no cover - outcome() above says the game is over
        return 0
    side = "White" if game.side_to_move == 0 else "Black"
    white_view = choice.score if game.side_to_move == 0 else -choice.score
    rate = choice.nodes / choice.elapsed if choice.elapsed > 0 else 0.0
    print(f"bestmove {choice.notation} ({choice.coordinates})")
    print(
        f"score {score_text(choice.score)} for {side} to move"
        f" (White's view {score_text(white_view)}),"
        f" depth {choice.depth}, {choice.nodes:,} nodes, {choice.elapsed:.2f} s,"
        f" {rate:,.0f} nodes/s"
    )
    print(f"pv {' '.join(choice.pv)}")
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    game = game_after(args.variant, args.moves)
    if not game.history:
        print("no moves to review: give them with --moves")
        return 1
    result = analyze(
        game,
        nodes_per_move=args.nodes,
        movetime_per_move=args.movetime / 1000 if args.movetime is not None else None,
    )
    print(result.record())
    for color, name in ((0, "White"), (1, "Black")):
        c = result.counts(color)
        print(f"{name}: {c['??']} blunders, {c['?']} mistakes, {c['?!']} inaccuracies, {c['!']} !")
    print("evaluation (White's view, centipawns):")
    print(" ".join("-" if s is None else str(s) for s in result.scores))
    return 0


def cmd_values(args: argparse.Namespace) -> int:
    variant_id, options = resolve_variant_id(args.variant)
    variant = load_variant(variant_id, options)
    print(f"{'piece':<24} {'letters':<8} {'value':>6} {'mobility':>9}  notes")
    for v in piece_values(variant):
        notes = []
        piece = variant.piece(v.piece_id)
        if piece.royal:
            notes.append("royal: no material value")
        if v.pawn_class:
            notes.append("forward-only, measured against the Pawn")
        if piece.region:
            notes.append(f"confined to its {piece.region.replace('-', ' ')}")
        if v.board_share < 0.999:
            where = "of those squares" if piece.region else "of the board"
            notes.append(f"reaches {v.board_share:.0%} {where}")
        if piece.flip and piece.flip != piece.id:
            notes.append(f"mean of its two faces ({variant.piece(piece.flip).name})")
        letters = v.letters or "(Pawn)"
        print(f"{v.name:<24} {letters:<8} {v.value:>6} {v.mobility:>9.2f}  {'; '.join(notes)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m search", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def with_variant(p: argparse.ArgumentParser) -> None:
        p.add_argument("variant", help="variant id or name, options appended with '+'")
        p.add_argument("--moves", nargs="*", default=[], metavar="MOVE", help="moves to play first")

    p = sub.add_parser("bestmove", help="the engine's move and its evaluation")
    with_variant(p)
    p.add_argument(
        "--level",
        type=int,
        default=DEFAULT_LEVEL,
        choices=range(MIN_LEVEL, MAX_LEVEL + 1),
        metavar="N",
        help=f"{MIN_LEVEL} to {MAX_LEVEL} (default {DEFAULT_LEVEL}): "
        + "; ".join(f"{n}: {lv.description}" for n, lv in LEVELS.items()),
    )
    p.add_argument("--movetime", type=int, metavar="MS", help="time for the move (milliseconds)")
    p.add_argument("--infinite", action="store_true", help="no time limit, only depth and nodes")
    p.add_argument("--nodes", type=int, help="node budget (overrides the level's)")
    p.add_argument("--depth", type=int, help="depth limit in plies (overrides the level's)")
    p.add_argument("--seed", type=int, default=0, help="seed of the low levels' random choice")
    p.set_defaults(func=cmd_bestmove)
    p = sub.add_parser("analyze", help="review the moves: ?!, ?, ?? and ! marks, evaluations")
    with_variant(p)
    p.add_argument("--nodes", type=int, default=30_000, help="node budget per position")
    p.add_argument("--movetime", type=int, default=2_000, metavar="MS", help="time per position")
    p.set_defaults(func=cmd_analyze)
    p = sub.add_parser("values", help="piece values derived from their movement")
    p.add_argument("variant", help="variant id or name")
    p.set_defaults(func=cmd_values)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result: int = args.func(args)
    except RulesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `... | head` closed the pipe: not an error
        sys.stderr.close()
        return 0
    return result
