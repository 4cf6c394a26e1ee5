"""`python -m renderer`: board pictures, piece diagrams and legends from the command line.

    python -m renderer board chess out.png --moves e2e4 e7e5 --perspective black
    python -m renderer piece bigorra Eagle eagle.png
    python -m renderer legend bigorra legend.png
    python -m renderer replay RECORD.txt OUT.gif    # an animated replay of a game record
    python -m renderer themes

Variants are named as `python -m rules` names them: by id (`heavy-shako`), by name
(`"Heavy Shako"`), with options after `+` (`patricia+fixed-king`), or by the path of a
definition file (`my-variant.toml`). `--moves` takes moves in
any accepted form. Bad input prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from renderer.diagram import render_piece
from renderer.from_rules import destinations, find_piece, render_game
from renderer.legend import render_legend
from renderer.replay import render_replay
from renderer.theme import ThemeError, load_theme, theme_names
from rules.errors import RulesError
from rules.game import Game, game_after
from rules.record import read_record, replay_record
from rules.variant import load_variant_argument

USER_ERROR = 2


class UserError(Exception):
    """Bad input from the command line: reported in one line, exit status 2."""


def _game(variant: str, moves: Sequence[str]) -> Game:
    try:
        return game_after(variant, moves)
    except RulesError as exc:
        raise UserError(str(exc)) from None


def _perspective(text: str) -> int:
    t = text.strip().lower()
    if t in ("white", "w", "0"):
        return 0
    if t in ("black", "b", "1"):
        return 1
    raise argparse.ArgumentTypeError(f"{text!r}: expected white or black")


def _write(path: str, data: bytes, suffix: str = ".png") -> None:
    out = Path(path)
    if out.suffix.lower() != suffix:
        raise UserError(f"{path}: the output file must end in {suffix}")
    try:
        out.write_bytes(data)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"{path}: {len(data) // 1024 + 1} KB")


def cmd_board(args: argparse.Namespace) -> int:
    load_theme(args.theme)
    game = _game(args.variant, args.moves)
    highlights: list[int] = []
    captures: list[int] = []
    if args.select:
        try:
            highlights, captures = destinations(game.position, args.select)
        except ValueError as exc:
            raise UserError(f"--select: {exc}") from None
    png = render_game(
        game,
        perspective=args.perspective,
        highlights=highlights,
        captures=captures,
        selected=args.select,
        coordinates=not args.no_coordinates,
        theme=args.theme,
    )
    _write(args.out, png)
    return 0


def cmd_piece(args: argparse.Namespace) -> int:
    load_theme(args.theme)
    variant = load_variant_argument(args.variant)
    try:
        piece = find_piece(variant, args.piece)
    except KeyError as exc:
        raise UserError(str(exc.args[0])) from None
    _write(args.out, render_piece(variant, piece.id, color=args.color, theme=args.theme))
    return 0


def cmd_legend(args: argparse.Namespace) -> int:
    load_theme(args.theme)
    _write(args.out, render_legend(load_variant_argument(args.variant), theme=args.theme))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    if Path(args.out).suffix.lower() != ".gif":
        raise UserError(f"{args.out}: the output file must end in .gif")
    try:
        text = Path(args.record).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {args.record}: {exc}") from None
    record = read_record(text)
    game = replay_record(record)
    replay = render_replay(game, result=record.result, perspective=args.perspective)
    _write(args.out, replay.data, ".gif")
    print(f"{replay.frames} frames for {replay.plies} plies, {replay.width}x{replay.height}")
    return 0


def cmd_themes(_args: argparse.Namespace) -> int:
    for name in theme_names():
        print(f"{name}: {load_theme(name).description}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m renderer",
        description="Board pictures, piece diagrams and legends (PNG), game replays (GIF).",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def theme_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--theme", default="default", help=f"one of {', '.join(theme_names())}")

    board = sub.add_parser("board", help="the position after some moves")
    board.add_argument("variant", help="variant id or name (options after +), or FILE.toml")
    board.add_argument("out", help="the PNG file to write")
    board.add_argument("--moves", nargs="*", default=[], help="moves in any accepted form")
    board.add_argument(
        "--perspective", type=_perspective, default=0, help="white (default) or black at the bottom"
    )
    board.add_argument("--select", help="mark the moves of the piece on this square")
    board.add_argument("--no-coordinates", action="store_true", help="no file letters and ranks")
    theme_option(board)
    board.set_defaults(func=cmd_board)

    piece = sub.add_parser("piece", help="one piece's moves on a small board")
    piece.add_argument("variant", help="variant id or name, or FILE.toml")
    piece.add_argument("piece", help="piece id, letters or name")
    piece.add_argument("out", help="the PNG file to write")
    piece.add_argument(
        "--color", type=_perspective, default=0, help="white (default) or black piece"
    )
    theme_option(piece)
    piece.set_defaults(func=cmd_piece)

    legend = sub.add_parser("legend", help="every piece of a variant with letters and name")
    legend.add_argument("variant", help="variant id or name, or FILE.toml")
    legend.add_argument("out", help="the PNG file to write")
    theme_option(legend)
    legend.set_defaults(func=cmd_legend)

    replay = sub.add_parser("replay", help="an animated GIF of a game record (spec §6)")
    replay.add_argument("record", help="the game record file")
    replay.add_argument("out", help="the GIF file to write")
    replay.add_argument(
        "--perspective", type=_perspective, default=0, help="white (default) or black at the bottom"
    )
    replay.set_defaults(func=cmd_replay)

    themes = sub.add_parser("themes", help="list the themes")
    themes.set_defaults(func=cmd_themes)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.func(args)
        return result
    except (UserError, RulesError, ThemeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USER_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
