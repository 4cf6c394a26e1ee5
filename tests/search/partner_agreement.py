"""How far a Fairy-Stockfish binary plays our rules, per exportable built-in variant: from the
start, the partner moves (`best_move`, which compares its legal moves with ours before every
search) and a seeded random reply answers, `PLIES` times each; then a seeded random game of
up to `PLAYOUT` plies, whose every position's legal moves must be the same (it reaches the
promotions a short game does not). A variant agrees when all of them did and every answer
was legal. Used by tests/search/test_partner_fsf.py, and by hand on another binary:

    python -m tests.search.partner_agreement [/path/to/fairy-stockfish]
"""

from __future__ import annotations

import random
import sys
import tempfile
import zlib
from pathlib import Path

from rules.game import Game
from rules.variant import load_variant, variant_ids
from search.partner import FairyStockfish, PartnerError, Unsupported, section_for
from search.uci import find_engine

PLIES = 6
"""Moves of each side: the previous measurement's 6 engine moves against 6 random replies."""
MOVETIME = 0.05
PLAYOUT = 120
"""Plies of the random game whose positions are compared (legal moves only, no search)."""


def exportable() -> list[str]:
    """The built-ins variants.ini can say (the others never reach the partner)."""
    out = []
    for variant_id in variant_ids():
        try:
            section_for(load_variant(variant_id))
        except Unsupported:
            continue
        out.append(variant_id)
    return out


def disagreement(partner: FairyStockfish, variant_id: str, *, search: bool = True) -> str | None:
    """Why the partner does not play `variant_id` as we do (its first mismatch, crash or
    illegal answer), or None when it agreed throughout. `search=False`: only the random
    game's positions, which do not depend on the engine's (timed, so varying) moves."""
    if search:
        game = Game(load_variant(variant_id))
        replies = random.Random(zlib.crc32(variant_id.encode()))
        for _ in range(PLIES):
            if game.outcome() is not None:
                break
            try:
                found = partner.best_move(game, MOVETIME)
            except PartnerError as exc:
                return str(exc)
            assert found is not None
            game.play(found.coordinates)
            if game.outcome() is not None:
                break
            game.play(replies.choice(game.legal_moves()).coordinates)
    game = Game(load_variant(variant_id))
    playout = random.Random(zlib.crc32(variant_id.encode()) + 1)
    for _ in range(PLAYOUT):
        if game.outcome() is not None:
            break  # an ended game's moves are nobody's: Fairy-Stockfish's perft lists some
        try:
            partner.check(game)
        except PartnerError as exc:
            return str(exc)
        game.play(playout.choice(game.legal_moves()).coordinates)
    return None


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else find_engine()
    if path is None:
        raise SystemExit("no Fairy-Stockfish found (give its path)")
    agree = 0
    ids = exportable()
    with tempfile.TemporaryDirectory() as folder:
        for variant_id in ids:
            partner = FairyStockfish(path, Path(folder))
            try:
                why = disagreement(partner, variant_id)
            finally:
                partner.stop()
            agree += why is None
            print(f"{variant_id}\t{'agrees' if why is None else why[:160]}", flush=True)
    print(f"{agree} of {len(ids)} agree")


if __name__ == "__main__":
    main()
