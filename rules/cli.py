"""`python -m rules`: check a variant file, perft, legal moves, game-record replay,
position display, and Fairy-Stockfish's variants.ini in (`convert`) and out (`export-ini`).

    python -m rules check my-variant.toml
    python -m rules perft chess 4
    python -m rules perft my-variant.toml 3
    python -m rules moves patchanka --moves e3e5 e8e6
    python -m rules replay ../shared/games/patchanka.txt
    python -m rules replay fairypost-12-mine.txt --definition mine.toml
    python -m rules show grand --moves e3e5
    python -m rules convert variants.ini --section makhouse
    python -m rules export-ini grand

Variants are named by id (`heavy-shako`), by name (`"Heavy Shako"`), with options
appended by `+` (`patricia+fixed-king`), or by the path of a definition file
(`my-variant.toml`, `my-variant.toml+option`). `--moves` takes moves in any accepted form;
coordinates (`e3e5`, `a10a9`, `b2b1B`) are the usual.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rules.errors import GameRecordError, RulesError
from rules.game import game_after
from rules.ini import LOCAL_FILE, convert_ini, convert_section, export_ini
from rules.notation import coordinates, format_code, square_label
from rules.perft import divide, perft
from rules.postext import piece_token
from rules.record import read_record, replay_record
from rules.sanity import sanity_check
from rules.summary import describe_movement, new_pieces, rules_summary
from rules.variant import decode_definition, load_variant_argument


def cmd_check(args: argparse.Namespace) -> int:
    """The bot's validation of a definition, then its summary: what `/variant define` says."""
    variant = load_variant_argument(args.variant)
    report = sanity_check(variant)
    fresh = {p.id for p in new_pieces(variant)}
    print(f"{variant.name} ({variant.id}), {variant.geometry.describe()}: the file is valid.")
    if variant.description:
        print(variant.description)
    print("\nRules:")
    for line in rules_summary(variant):
        print(f"  {line}")
    print("\nPieces:")
    for p in variant.pieces:
        mark = "  (new to Fairy Post)" if p.id in fresh else ""
        print(f"  {p.letters or '(none)':<6} {p.name:<16} {describe_movement(p)}{mark}")
    print("\nSanity run:")
    for line in report.lines():
        print(f"  {line}")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    game = game_after(args.variant, args.moves)
    pos = game.position
    if args.divide:
        total = 0
        for code, count in divide(pos, args.depth):
            print(f"{coordinates(pos, code)} {count}")
            total += count
        print(total)
        return 0
    print(perft(pos, args.depth))
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    game = game_after(args.variant, args.moves)
    outcome = game.outcome()
    if outcome is not None:
        print(f"# game over: {outcome.result_text}", file=sys.stderr)
        return 0
    pos = game.position
    for code in pos.legal_codes():
        print(coordinates(pos, code) if args.coordinates else format_code(pos, code))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 1
    definition = None
    if args.definition:
        try:
            definition = decode_definition(Path(args.definition).read_bytes(), args.definition)
        except OSError as exc:
            print(f"cannot read {args.definition}: {exc.strerror}", file=sys.stderr)
            return 1
    try:
        game = replay_record(read_record(text, definition))
    except GameRecordError as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return 1
    outcome = game.outcome()
    state = outcome.result_text if outcome else "unfinished"
    print(f"{path}: {game.ply} plies replayed, {state}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    game = game_after(args.variant, args.moves)
    pos = game.position
    geo = pos.t.geo
    width = 4
    for rank in range(geo.ranks - 1, -1, -1):
        cells = []
        for f in range(geo.files):
            code = pos.board[geo.index(f, rank)]
            token = piece_token(pos.variant, pos.t, code, bracket=False) if code else "."
            cells.append(token.ljust(width))
        # Shogi names ranks by letters from the top and files by numbers from the right.
        label = square_label(pos.variant, geo.index(0, rank))[1:]
        if pos.variant.notation != "shogi":
            label = str(rank + 1)
        print(f"{label:>3}  {''.join(cells).rstrip()}")
    files = [square_label(pos.variant, geo.index(f, 0)) for f in range(geo.files)]
    files = [name[:-1] if pos.variant.notation == "shogi" else name[0] for name in files]
    print("     " + "".join(name.ljust(width) for name in files))
    print(game.position_text)
    outcome = game.outcome()
    if outcome:
        print(outcome.result_text)
    return 0


def cmd_convert(args: argparse.Namespace) -> int:
    """Fairy-Stockfish's variants.ini sections as Fairy Post TOML (one section, or all)."""
    path = Path(args.file)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        print(f"cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as exc:
        print(f"{path}: not UTF-8 text (byte {exc.start + 1})", file=sys.stderr)
        return 1
    if args.section:
        print(convert_section(text, args.section, path.name, LOCAL_FILE), end="")
        return 0
    failed = 0
    items = convert_ini(text, path.name, LOCAL_FILE)
    for i, item in enumerate(items):
        if item.error is not None:
            failed += 1
            print(f"error: {item.error}", file=sys.stderr)
            continue
        if i:
            print()
        print(item.toml, end="")
    return 2 if failed else 0


def cmd_export_ini(args: argparse.Namespace) -> int:
    """A variant as a variants.ini section Fairy-Stockfish plays the same way."""
    print(export_ini(load_variant_argument(args.variant)), end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rules", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def with_variant(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "variant", help="variant id or name, or FILE.toml; options appended with '+'"
        )
        p.add_argument("--moves", nargs="*", default=[], metavar="MOVE", help="moves to play first")

    p = sub.add_parser("check", help="validate a variant file as the bot does; print its rules")
    p.add_argument("variant", help="a definition file (FILE.toml), or a built-in variant")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("perft", help="count the legal move sequences of DEPTH plies")
    with_variant(p)
    p.add_argument("depth", type=int)
    p.add_argument("--divide", action="store_true", help="count below each legal move")
    p.set_defaults(func=cmd_perft)
    p = sub.add_parser("moves", help="list the legal moves, one per line")
    with_variant(p)
    p.add_argument("--coordinates", action="store_true", help="print coordinates, not notation")
    p.set_defaults(func=cmd_moves)
    p = sub.add_parser("replay", help="replay a game record and check it")
    p.add_argument("file")
    p.add_argument(
        "--definition", metavar="FILE.toml", help="the file of the record's variant (a player's)"
    )
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("show", help="print the board and its position text")
    with_variant(p)
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("convert", help="print Fairy-Stockfish variants.ini sections as TOML")
    p.add_argument("file", help="a variants.ini file")
    p.add_argument("--section", metavar="NAME", help="only this section (default: all)")
    p.set_defaults(func=cmd_convert)
    p = sub.add_parser(
        "export-ini", help="print a variant as a Fairy-Stockfish variants.ini section"
    )
    p.add_argument("variant", help="variant id or name, or FILE.toml")
    p.set_defaults(func=cmd_export_ini)
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
