"""PGN for the games other tools can read: chess, and Grand Chess as variant servers and
Fairy-Stockfish write it (`[Variant "Grand"]`, a `FEN` tag, their letters: Chancellor `C`
for our Marshal, Archbishop `A` for our Cardinal).

Moves are SAN (`notation.format_short(..., pgn=True)`: `Nf3`, `exd5`, `e8=Q`, `O-O`, `+`,
`#`); the record of spec §6 stays the format for every variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rules.game import Game
from rules.notation import Letters, format_short
from rules.postext import parse_position


@dataclass(frozen=True, slots=True)
class PgnDialect:
    variant_tag: str | None  # None: standard chess, no Variant tag
    letters: Mapping[str, str]  # piece id -> letters where they differ from ours


DIALECTS: Mapping[str, PgnDialect] = {
    "chess": PgnDialect(None, {}),
    "grand": PgnDialect("Grand", {"marshal": "C", "cardinal": "A"}),
}
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")


def has_pgn(variant_id: str) -> bool:
    """Whether other tools read this variant's games as PGN (the variant, not options)."""
    return variant_id in DIALECTS


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def format_pgn(game: Game, tags: Mapping[str, str], result: str = "*") -> str:
    """The game as PGN (export format: the seven tag roster first, SAN moves wrapped at 80
    columns, the result at the end). `tags` may give any of the seven and others; `result`
    is one of `1-0`, `0-1`, `1/2-1/2`, `*`."""
    dialect = DIALECTS.get(game.variant.id)
    if dialect is None or game.variant.options:
        raise ValueError(f"{game.variant.name} games have no PGN form other tools read")
    if result not in RESULTS:
        raise ValueError(f"a PGN result is one of {', '.join(RESULTS)}, not {result!r}")
    letters = Letters({p.id: dialect.letters.get(p.id, p.letters) for p in game.variant.pieces})
    defaults = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "-"}
    roster = {**defaults, "White": "?", "Black": "?", **tags, "Result": result}
    lines = [f'[{key} "{_escape(roster[key])}"]' for key in SEVEN_TAGS]
    extra = {k: v for k, v in tags.items() if k not in SEVEN_TAGS}
    start = parse_position(game.variant, game.start_text)
    if dialect.variant_tag is not None:
        extra = {"Variant": dialect.variant_tag, **extra}
        extra["FEN"] = _fen(game.start_text, letters, game)
        extra["SetUp"] = "1"
    lines += [f'[{key} "{_escape(value)}"]' for key, value in extra.items()]
    tokens = []
    pos = start
    for index, played in enumerate(game.history):
        code = pos.to_code(played.move)
        san = format_short(pos, code, letters=letters, pgn=True)
        # A move number stays on the line of its move.
        tokens.append(f"{index // 2 + 1}. {san}" if index % 2 == 0 else san)
        pos.push_code(code)
    tokens.append(result)
    return "\n".join(lines) + "\n\n" + _wrap(tokens) + "\n"


def _fen(text: str, letters: Letters, game: Game) -> str:
    """A position text in the tools' letters (our text is FEN for these variants)."""
    swap: dict[str, str | int | None] = {}
    for p in game.variant.pieces:
        theirs = letters.of(p.id)
        if theirs != p.letters and len(p.letters) == 1:
            swap[p.letters] = theirs
            swap[p.letters.lower()] = theirs.lower()
    fields = text.split()
    return " ".join([fields[0].translate(str.maketrans(swap)), *fields[1:6]])


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


__all__ = ["DIALECTS", "format_pgn", "has_pgn"]
