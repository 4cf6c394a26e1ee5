"""Regenerate `data/shogi-san.tsv`: Fairy-Stockfish's Western Shogi notation (Hodges, as
pyffish 0.0.90's NOTATION_SHOGI_HODGES writes it) of every legal move in positions of the
Shogi games, which `test_shogi_family.py` compares with Fairy Post's `format_short`.

    .venv/bin/python -m tests.rules.fsf_shogi_san

Needs pyffish 0.0.90 (`make bench` installs it); the test only reads the table. Positions are
the start and the ends of seeded random pyffish games (captures and drops preferred, so that
promotions, drops, disambiguations and declined promotions all occur).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "data" / "shogi-san.tsv"
GAMES = ("shogi", "minishogi", "kyotoshogi", "micro", "dobutsu", "euroshogi", "judkins", "gorogoro")
POSITIONS = 3


def main() -> int:
    import pyffish as sf

    rows = ["variant\tmoves\tsan"]
    for variant in GAMES:
        start = sf.start_fen(variant)
        for seed in range(POSITIONS + 1):
            rng = random.Random(f"{variant}-san-{seed}")
            moves: list[str] = []
            for _ in range(0 if seed == 0 else rng.randint(8, 50)):
                legal = sf.legal_moves(variant, start, moves)
                if not legal:
                    break
                busy = [m for m in legal if "@" in m or sf.is_capture(variant, start, moves, m)]
                pick = rng.choice(busy if busy and rng.random() < 0.5 else legal)
                if sf.is_immediate_game_end(variant, start, [*moves, pick])[0]:
                    break
                moves.append(pick)
            fen = sf.get_fen(variant, start, moves)
            san = " ".join(
                f"{m}={sf.get_san(variant, fen, m, False, sf.NOTATION_SHOGI_HODGES)}"
                for m in sorted(sf.legal_moves(variant, start, moves))
            )
            rows.append(f"{variant}\t{' '.join(moves)}\t{san}")
            print(rows[-1][:120], file=sys.stderr)
    TABLE.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {TABLE} ({len(rows) - 1} rows)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
