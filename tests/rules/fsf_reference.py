"""Regenerate `data/user-variants.tsv`: perft counts by Fairy-Stockfish for the players'
variant files of `docs/examples/` and the tutorial files of `docs/variants.md`, at the start
and in positions of seeded random games.

    .venv/bin/python -m tests.rules.fsf_reference [/usr/games/fairy-stockfish]

Needs Debian's `fairy-stockfish` (11.1) for the examples, which are its built-in variants, and
pyffish 0.0.90 (`make bench` installs it) for the tutorial ones, defined for it in
`data/guide-variants.ini`; the tests only read the table this writes. Moves are
kept in Fairy Post's coordinate form and translated to Fairy-Stockfish's UCI form here, with
each variant's letters (`LETTERS`). The random games prefer captures, promotions, drops,
gating and castling, so that the positions exercise the mechanisms the files define.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from rules.game import Game
from rules.notation import coordinates
from rules.position import CASTLE, DROP, KIND_MASK, KIND_SHIFT
from rules.tables import MC
from rules.variant import Variant, load_definition, load_variant_argument
from tests.rules.test_guide import guide_files

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
TABLE = Path(__file__).resolve().parent / "data" / "user-variants.tsv"

FSF_NAMES = {
    "capablanca": "capablanca",
    "gothic": "gothic",
    "embassy": "embassy",
    "janus": "janus",
    "shatranj": "shatranj",
    "courier": "courier",
    "crazyhouse": "crazyhouse",
    "s-chess": "seirawan",
    "shako": "shako",
    "grand": "grand",
}
"""Example file stem -> Fairy-Stockfish's UCI_Variant."""

GUIDE_NAMES = {
    "paladin-chess": "paladin",
    "alamos-house": "alamoshouse",
    "lancer-chess": "lancer",
}
"""Tutorial file stem -> its name in `data/guide-variants.ini` (counted with pyffish)."""
GUIDE_INI = Path(__file__).resolve().parent / "data" / "guide-variants.ini"

LETTERS = {
    "embassy": {"M": "c", "C": "a"},
    "grand": {"M": "c", "C": "a"},
}
"""Our piece letters -> Fairy-Stockfish's, where they differ beyond case."""

POSITIONS = {"crazyhouse": 16, "s-chess": 16}
"""Random positions per file (8 unless listed): more where the hand is involved."""
FIXED = {
    "s-chess": ["e2e4 e7e5 g1f3 b8c6 f1c4 g8f6"],  # castling may gate on e1 or h1
}
"""Lines played before the random ones, to reach a mechanism for certain."""


class FairyStockfish:
    def __init__(self, path: str) -> None:
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("uci")
        self.read_until("uciok")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, marker: str) -> list[str]:
        assert self.proc.stdout is not None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("\n".join(lines))
            lines.append(line.rstrip("\n"))
            if line.startswith(marker):
                return lines

    def perft(self, variant: str, moves: list[str], depth: int) -> int:
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
        self.send(f"go perft {depth}")
        return int(self.read_until("Nodes searched")[-1].split()[-1])


def uci(stem: str, move: str) -> str:
    """Our coordinate form as Fairy-Stockfish's UCI move."""
    letters = LETTERS.get(stem, {})
    if "@" in move and "/" not in move:  # a drop: P@e4
        piece, square = move.split("@")
        return letters.get(piece, piece).upper() + "@" + square
    body, _slash, gate = move.partition("/")
    gate_letters, _at, gate_square = gate.partition("@")
    tail = ""
    i = len(body)
    while body[i - 1].isalpha() and body[i - 1].isupper():
        i -= 1
    body, promo = body[:i], body[i:]
    if promo:
        tail = letters.get(promo, promo).lower()
    if gate_letters:
        tail += letters.get(gate_letters, gate_letters).lower()
    if gate_square:  # castling with the piece entering the Rook's square: h1e1h
        return gate_square + body[:2] + tail
    return body + tail


def interesting(code: int) -> bool:
    """Drops, castling and promotions; not gating, which random play would otherwise spend
    at once (S-Chess positions then keep their reserve pieces a while)."""
    kind = (code >> KIND_SHIFT) & KIND_MASK
    return bool(kind in (DROP, CASTLE) or (code >> MC.PROMO_SHIFT) & MC.PROMO_MASK)


def variant_of(stem: str) -> Variant:
    """An example file of docs/examples/, or a tutorial file of docs/variants.md."""
    if stem in GUIDE_NAMES:
        return load_definition(guide_files()[f"{stem}.toml"])
    return load_variant_argument(str(EXAMPLES / f"{stem}.toml"))


class PyFfish:
    """pyffish as a perft oracle for variants of an ini file (it has no perft: recursion)."""

    def __init__(self) -> None:
        import pyffish

        self.sf = pyffish
        pyffish.load_variant_config(GUIDE_INI.read_text(encoding="utf-8"))

    def perft(self, variant: str, moves: list[str], depth: int) -> int:
        fen = self.sf.start_fen(variant)
        legal = self.sf.legal_moves(variant, fen, moves)
        if depth == 1:
            return len(legal)
        return sum(self.perft(variant, [*moves, m], depth - 1) for m in legal)


def random_game(stem: str, seed: int) -> list[str]:
    rng = random.Random(f"{stem}-{seed}")
    game = Game(variant_of(stem))
    plies = rng.randrange(6, 70)
    out: list[str] = []
    for _ in range(plies):
        if game.outcome() is not None:
            break
        pos = game.position
        codes = pos.legal_codes()
        captures = [
            c for c in codes if (pos.board[(c >> 8) & 0xFF] and c < MC.GATED) or interesting(c)
        ]
        pool = captures if captures and rng.random() < 0.6 else codes
        if rng.random() < 0.7:  # gating is a move of its own beside the plain one
            pool = [c for c in pool if c < MC.GATED] or pool
        code = rng.choice(pool)
        text = coordinates(pos, code)
        game.play(text)
        out.append(text)
    while game.outcome() is not None:  # end on a position where the game goes on
        game.undo()
        out.pop()
    return out


def main(argv: list[str]) -> int:
    binary = FairyStockfish(argv[1] if len(argv) > 1 else "/usr/games/fairy-stockfish")
    library = PyFfish()
    rows = ["variant\tid\tmoves\tperft1\tperft2\tperft3"]
    for stem, fsf in (FSF_NAMES | GUIDE_NAMES).items():
        engine: FairyStockfish | PyFfish = library if stem in GUIDE_NAMES else binary
        fixed = [line.split() for line in FIXED.get(stem, [])]
        count = POSITIONS.get(stem, 8)
        games = [[], *fixed] + [random_game(stem, seed) for seed in range(count)]
        for i, moves in enumerate(games):
            counts = [engine.perft(fsf, [uci(stem, m) for m in moves], d) for d in (1, 2, 3)]
            rows.append(
                f"{stem}\t{stem}-{i:02d}\t{' '.join(moves)}\t" + "\t".join(map(str, counts))
            )
            print(rows[-1][:120], file=sys.stderr)
    TABLE.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {TABLE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
