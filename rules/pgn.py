"""PGN for the games other tools read: every variant Fairy-Stockfish knows (a variant with a
`[fairy-stockfish]` table, a player's too), as the variant servers and Fairy-Stockfish write
it: a `[Variant]` tag (the table's `pgn`, else its variant id; none for chess), a `[FEN]`
tag in Fairy-Stockfish's FEN of the start (always outside chess, as the servers write it),
and the moves in the notation Fairy-Stockfish writes by default (`rules.fsf.san`: SAN with
its letters, Western notation with numbers for the Shogi games).

`read_pgn` reads such a PGN back to the game; the record of spec §6 stays the format for
every variant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rules import fsf
from rules.errors import IllegalMoveError
from rules.game import Game
from rules.postext import parse_position
from rules.variant import Variant

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")


def has_pgn(variant: Variant) -> bool:
    """Whether other tools read this variant's games as PGN: Fairy-Stockfish knows it (its
    `[fairy-stockfish] variant`) and no option changes it."""
    return variant.fsf_variant is not None and not variant.options


def variant_tag(variant: Variant) -> str | None:
    """The `[Variant]` tag of the variant's PGN: the servers' name, else Fairy-Stockfish's
    id; None for chess, which has none."""
    if variant.fsf_variant in (None, "chess"):
        return None
    return variant.pgn_variant or variant.fsf_variant


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def format_pgn(game: Game, tags: Mapping[str, str], result: str = "*") -> str:
    """The game as PGN (export format: the seven tag roster first, then `Variant`, `FEN`
    and `SetUp` where they apply and the other `tags`, the moves wrapped at 80 columns, the
    result at the end). `result` is one of `1-0`, `0-1`, `1/2-1/2`, `*`."""
    variant = game.variant
    if not has_pgn(variant):
        raise ValueError(f"{variant.name} games have no PGN form other tools read")
    if result not in RESULTS:
        raise ValueError(f"a PGN result is one of {', '.join(RESULTS)}, not {result!r}")
    defaults = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "-"}
    roster = {**defaults, "White": "?", "Black": "?", **tags, "Result": result}
    lines = [f'[{key} "{_escape(roster[key])}"]' for key in SEVEN_TAGS]
    extra = {k: v for k, v in tags.items() if k not in SEVEN_TAGS}
    pos = parse_position(variant, game.start_text)
    table = fsf.letters(variant)
    start = fsf.fen(pos)
    tag = variant_tag(variant)
    if tag is not None:
        extra = {"Variant": tag, **extra}
    if tag is not None or start != fsf.fen(parse_position(variant, Game(variant).start_text)):
        extra["FEN"] = start
        extra["SetUp"] = "1"
    lines += [f'[{key} "{_escape(value)}"]' for key, value in extra.items()]
    tokens = []
    for index, played in enumerate(game.history):
        code = pos.to_code(played.move)
        san = fsf.san(pos, code, table)
        # A move number stays on the line of its move; a game that Black opens starts
        # `1... e5`, as after any FEN with Black to move.
        if pos.side == 0:
            tokens.append(f"{pos.fullmove}. {san}")
        elif index == 0:
            tokens.append(f"{pos.fullmove}... {san}")
        else:
            tokens.append(san)
        pos.push_code(code)
    tokens.append(result)
    return "\n".join(lines) + "\n\n" + _wrap(tokens) + "\n"


TAG_RE = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$', re.MULTILINE)
MOVE_NUMBER_RE = re.compile(r"^\d+\.+$")


def pgn_tags(text: str) -> dict[str, str]:
    """The tag pairs of a PGN (unescaped)."""
    return {m.group(1): re.sub(r"\\(.)", r"\1", m.group(2)) for m in TAG_RE.finditer(text)}


def read_pgn(variant: Variant, text: str) -> Game:
    """A PGN that `format_pgn` wrote (or a server, in the same notation) read back to the
    game of `variant`: each move is the legal move whose Fairy-Stockfish notation it is.
    Comments, variations and a `FEN` start other than the variant's are not read (ValueError
    for the last); IllegalMoveError names the first move that is not legal."""
    tags = pgn_tags(text)
    game = Game(variant)
    if "FEN" in tags and tags["FEN"] != fsf.fen(game.position):
        raise ValueError("a PGN from a start other than the variant's is not read")
    body = TAG_RE.sub("", text)
    table = fsf.letters(variant)
    for token in body.split():
        if MOVE_NUMBER_RE.fullmatch(token) or token in RESULTS:
            continue
        token = re.sub(r"^\d+\.+", "", token)
        pos = game.position
        by_san = {fsf.san(pos, c, table): c for c in pos.legal_codes()}
        code = by_san.get(token)
        if code is None:
            raise IllegalMoveError(token, "no legal move is written so in Fairy-Stockfish's SAN")
        game.play_move(pos.to_move(code))
    return game


def _wrap(tokens: list[str], width: int = 79) -> str:
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines)


__all__ = ["format_pgn", "has_pgn", "pgn_tags", "read_pgn", "variant_tag"]
