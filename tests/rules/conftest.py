"""Shared helpers for the rules tests.

`data/` holds copies of the project's shared reference material (the recorded games of
`../shared/games` and the Fairy-Stockfish counts of `../shared/oracle`), so the tests run
from a fresh clone on its own.
"""

from __future__ import annotations

import re
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
GAMES = DATA / "games"
ORACLE = DATA / "oracle"


def record_moves(path: Path) -> list[str]:
    """The moves of a game record, as written (for playing them through other layers)."""
    return [
        line.split(None, 1)[1].strip()
        for line in path.read_text().splitlines()
        if re.match(r"\d+\.", line)
    ]
