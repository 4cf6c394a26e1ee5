"""Regenerate `data/ini-endings.tsv`: how pyffish 0.0.90 ends random games of the
self-written sections of `data/ini-sections.ini`, which `test_ini_endings.py` replays with
the Fairy Post variants that `rules.ini` converts them into (CI has no pyffish).

    .venv/bin/python -m tests.rules.ini_endings [--missing]

`--missing` plays only the sections that have no rows yet and keeps the others' rows.
Each row is a seeded random game of pyffish's legal moves from the section's start, up to
the first ply where pyffish says the game is over (`fsf_endings._verdict`: a rule that ends
it at once, no legal move, or a claimable end such as repetition), or `PLIES` plies.
"""

from __future__ import annotations

import random
import re
import sys
from typing import Any

from tests.rules.fsf_endings import _verdict
from tests.rules.ini_reference import INI

TABLE = INI.parent / "ini-endings.tsv"
HEADER = "section\tmoves\tending\twinner"
GAMES = 3
PLIES = 160


def games(sf: Any, name: str) -> list[str]:
    """The rows of one section: `GAMES` seeded random games, each to its end."""
    fen = sf.start_fen(name)
    first = 1 if fen.split()[1] == "b" else 0  # a section that Black opens
    rows = []
    for game in range(GAMES):
        rng = random.Random(f"{name}/{game}")
        moves: list[str] = []
        ending, winner = _verdict(sf, name, fen, moves, first)
        while not ending and len(moves) < PLIES:
            moves.append(rng.choice(sorted(sf.legal_moves(name, fen, moves))))
            ending, winner = _verdict(sf, name, fen, moves, (first + len(moves)) & 1)
        rows.append("\t".join([name, " ".join(moves), ending or "-", winner or "-"]))
        print(name, len(moves), ending, winner, file=sys.stderr)
    return rows


def main(argv: list[str]) -> int:
    import pyffish as sf

    text = INI.read_text(encoding="utf-8")
    sf.load_variant_config(text)
    kept: dict[str, list[str]] = {}
    if "--missing" in argv and TABLE.exists():
        for line in TABLE.read_text(encoding="utf-8").splitlines()[1:]:
            if line:
                kept.setdefault(line.split("\t")[0], []).append(line)
    rows = []
    for name in re.findall(r"^\[([^:\]]+)", text, re.M):
        rows.extend(kept[name] if name in kept else games(sf, name))
    TABLE.write_text(HEADER + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
