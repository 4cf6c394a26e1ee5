"""Regenerate `data/chess960-castling.tsv`: for every one of the 960 arrays, the castling
moves pyffish 0.0.90 (fischerandom, Chess960 mode) gives White when only the Kings and
Rooks stand (so both castlings are free), and for every tenth array also with a Black Rook
attacking a first-rank square; `test_random_setups.py` compares ours.

    .venv/bin/python -m tests.rules.fsf_chess960
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

from rules import shuffle
from rules.variant import load_variant

TABLE = Path(__file__).resolve().parent / "data" / "chess960-castling.tsv"


def fen(array: Sequence[str], attacker: str | None) -> str:
    """The array's Kings and Rooks alone (both castlings free), with a Black Rook on
    `attacker` (on the third rank: it attacks the first-rank square below it) if given;
    Black's Pawns keep Black's Rooks off the files."""

    def pack(cells: Sequence[str]) -> str:
        return re.sub(r"1+", lambda m: str(len(m.group())), "".join(cells))

    row = pack([t if t in "KR" else "1" for t in array])
    third = ["1"] * 8
    if attacker is not None:
        third["abcdefgh".index(attacker[0])] = "r"
    return f"{row.lower()}/pppppppp/8/8/8/{pack(third)}/8/{row} w KQkq - 0 1"


ATTACKERS = ("c3", "d3", "f3", "g3")


def cases(index: int) -> tuple[str | None, ...]:
    """Every array bare; every tenth also with each attacker (the file is kept small)."""
    return (None, *ATTACKERS) if index % 10 == 0 else (None,)


def main() -> int:
    import pyffish

    variant = load_variant("fischerandom")
    assert variant.random_setup is not None
    tokens = ["R", "N", "B", "Q", "K", "B", "N", "R"]
    rows = []
    for index, array in enumerate(shuffle.arrays(variant.random_setup, tokens)):
        for attacker in cases(index):
            legal = pyffish.legal_moves("fischerandom", fen(array, attacker), [], True)
            king = "abcdefgh"[array.index("K")] + "1"
            rooks = {"abcdefgh"[i] + "1" for i, t in enumerate(array) if t == "R"}
            castles = sorted(m for m in legal if m[:2] == king and m[2:4] in rooks)
            rows.append(f"{''.join(array)}\t{attacker or '-'}\t{' '.join(castles) or '-'}")
    TABLE.write_text("array\tattacker\tcastling\n" + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {TABLE} ({len(rows)} rows)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
