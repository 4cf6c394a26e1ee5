"""Regenerate `data/fsf-san.tsv`: the moves of one seeded random game of every variant with a
`[fairy-stockfish]` table, in UCI and as pyffish 0.0.90 writes them by default
(`get_san`, NOTATION_DEFAULT: what the variant servers read in PGN), which
`test_pgn.py` compares with `rules.fsf.san`.

    .venv/bin/python -m tests.rules.fsf_san

Needs pyffish 0.0.90; the test only reads the table. Captures, drops and promotions are
preferred half of the time, so that disambiguations, promotions and checks all occur.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from rules.errors import UnknownVariantError
from rules.variant import Variant, load_variant

ROOT = Path(__file__).resolve().parents[2]
TABLE = Path(__file__).resolve().parent / "data" / "fsf-san.tsv"
PLIES = 40


def variants() -> list[Variant]:
    """Every built-in variant Fairy-Stockfish plays."""
    out = []
    for path in sorted((ROOT / "rules" / "variants").glob("*.toml")):
        try:
            variant = load_variant(path.stem)
        except UnknownVariantError:
            continue  # a family definition
        if variant.fsf_variant is not None:
            out.append(variant)
    return out


def main() -> int:
    import pyffish as sf

    rows = ["variant\tmoves\tsan"]
    for variant in variants():
        fv = variant.fsf_variant
        assert fv is not None
        rng = random.Random(f"{variant.id}-fsf-san")
        start = sf.start_fen(fv)
        fen = start
        moves: list[str] = []
        san: list[str] = []
        for _ in range(PLIES):
            # Legality from the start and the moves: a FEN drops some of the game's state.
            legal = sf.legal_moves(fv, start, moves)
            if not legal or sf.is_immediate_game_end(fv, start, moves)[0]:
                break
            busy = [
                m
                for m in legal
                if "@" in m or sf.is_capture(fv, fen, [], m) or m[-1] in "+-" or m[-1].isalpha()
            ]
            pick = rng.choice(busy if busy and rng.random() < 0.5 else legal)
            moves.append(pick)
            san.append(sf.get_san(fv, fen, pick))
            fen = sf.get_fen(fv, start, moves)
        rows.append(f"{variant.id}\t{' '.join(moves)}\t{' '.join(san)}")
        print(rows[-1][:120], file=sys.stderr)
    TABLE.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {TABLE} ({len(rows) - 1} rows)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
