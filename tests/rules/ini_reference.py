"""Regenerate `data/ini-perft.tsv`: pyffish 0.0.90's counts for the self-written sections of
`data/ini-sections.ini`, which `test_ini.py` compares with the Fairy Post variants that
`rules.ini` converts them into (CI has no pyffish: the test reads the table).

    .venv/bin/python -m tests.rules.ini_reference [--sections-only]

Rows: the section, the moves played from the start (Fairy-Stockfish's UCI, chosen at
random among pyffish's legal moves), and the perft counts at depths 1, 2, ... there.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
INI = DATA / "ini-sections.ini"
TABLE = DATA / "ini-perft.tsv"
EXPORTS = DATA / "ini-export-perft.tsv"


def pyffish_legal(sf: Any, variant: str, moves: list[str]) -> list[str]:
    """pyffish's legal moves after `moves` from the start; none once the game has ended."""
    fen = sf.start_fen(variant)
    if sf.is_immediate_game_end(variant, fen, moves)[0]:
        return []
    return sorted(sf.legal_moves(variant, fen, moves))


def pyffish_perft(sf: Any, variant: str, moves: list[str], depth: int) -> int:
    """pyffish's perft after `moves`, counting as `rules.perft` counts (0 past an end)."""
    ms = pyffish_legal(sf, variant, moves)
    if depth == 1:
        return len(ms)
    return sum(pyffish_perft(sf, variant, [*moves, m], depth - 1) for m in ms)


def random_games(sf: Any, variant: str, games: int = 2) -> list[list[str]]:
    """The start (no moves) and `games` seeded random games of 8-40 plies of pyffish-legal
    moves: the positions whose counts are compared."""
    rng = random.Random(variant)
    out: list[list[str]] = [[]]
    for _ in range(games):
        moves: list[str] = []
        for _ in range(rng.randint(8, 40)):
            ms = pyffish_legal(sf, variant, moves)
            if not ms:
                break
            moves.append(rng.choice(ms))
        out.append(moves)
    return out


def main() -> None:
    """Both tables; `--sections-only` leaves the export table as it is."""
    import sys

    import pyffish as sf

    text = INI.read_text(encoding="utf-8")
    sf.load_variant_config(text)
    names = re.findall(r"^\[([^:\]]+)", text, re.M)

    rows = ["section\tmoves\tcounts"]
    for name in names:
        for i, moves in enumerate(random_games(sf, name)):
            depth = 3 if i == 0 else 2
            counts = [pyffish_perft(sf, name, moves, d) for d in range(1, depth + 1)]
            rows.append(f"{name}\t{' '.join(moves)}\t{','.join(map(str, counts))}")
    TABLE.write_text("\n".join(rows) + "\n", encoding="utf-8")
    if "--sections-only" not in sys.argv[1:]:
        write_exports(sf)


def write_exports(sf: object) -> None:
    """pyffish's counts from the start for `export-ini` of every built-in variant that
    Fairy-Stockfish's format can say (depth 3, or 2 where that passes 50,000)."""
    import sys

    sys.path.insert(0, str(DATA.parents[2]))
    from rules.ini import IniRefusal, export_ini, read_sections
    from rules.variant import load_variant, variant_ids

    texts = {}
    for vid in variant_ids():
        try:
            texts[vid] = export_ini(load_variant(vid))
        except IniRefusal:
            continue
    pyffish = sf
    pyffish.load_variant_config("\n".join(texts.values()))  # type: ignore[attr-defined]

    def perft(v: str, moves: list[str], depth: int) -> int:
        fen = pyffish.start_fen(v)  # type: ignore[attr-defined]
        if pyffish.is_immediate_game_end(v, fen, moves)[0]:  # type: ignore[attr-defined]
            return 0
        ms = pyffish.legal_moves(v, fen, moves)  # type: ignore[attr-defined]
        if depth == 1:
            return len(ms)
        return sum(perft(v, [*moves, m], depth - 1) for m in ms)

    rows = ["variant\tsection\tcounts"]
    for vid, text in texts.items():
        name = read_sections(text)[0].name
        counts = [perft(name, [], 1), perft(name, [], 2)]
        if counts[-1] < 2000:
            counts.append(perft(name, [], 3))
        rows.append(f"{vid}\t{name}\t{','.join(map(str, counts))}")
    EXPORTS.write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
