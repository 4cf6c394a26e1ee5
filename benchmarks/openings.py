"""Fixed openings of the engine matches (issue 29): every pair of games starts from one of
these lines, once with each colour, so that two runs play the same openings and the match
measures the engines rather than the luck of a random start.

Chess: twelve main lines of the books, six to eight plies. Shako has no book: its lines are
eight plies drawn by the engine of commit 34c1e75 at depth 3 choosing at random among moves
within 0.40 Pawns of its best (seeds 1 to 22), kept when a depth-5 search scored the
position within 0.35 Pawns of level. Moves are coordinates, as the rules engine reads them.
"""

from __future__ import annotations

OPENINGS: dict[str, tuple[tuple[str, ...], ...]] = {
    "chess": (
        ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"),  # Ruy Lopez
        ("e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6"),  # Sicilian
        ("e2e4", "e7e6", "d2d4", "d7d5", "b1c3", "g8f6"),  # French
        ("e2e4", "c7c6", "d2d4", "d7d5", "e4e5", "c8f5"),  # Caro-Kann, advance
        ("d2d4", "d7d5", "c2c4", "e7e6", "b1c3", "g8f6"),  # Queen's Gambit Declined
        ("d2d4", "d7d5", "c2c4", "c7c6", "g1f3", "g8f6"),  # Slav
        ("d2d4", "g8f6", "c2c4", "g7g6", "b1c3", "f8g7", "e2e4", "d7d6"),  # King's Indian
        ("d2d4", "g8f6", "c2c4", "e7e6", "b1c3", "f8b4"),  # Nimzo-Indian
        ("c2c4", "e7e5", "b1c3", "g8f6", "g2g3", "d7d5"),  # English, reversed Sicilian
        ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"),  # Italian
        ("e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5"),  # Scandinavian
        ("d2d4", "d7d5", "c1f4", "g8f6", "e2e3", "c7c5"),  # London
    ),
    "shako": (
        ("a2c4", "j9h7", "j1f1", "f8f6", "j3j4", "a10f10", "b3b4", "e9g7"),
        ("j2h4", "j9h7", "c3c5", "f8f7", "d2c3", "e9f8", "d3d4", "j10d10"),
        ("a2c4", "j9h7", "b3b4", "a10d10", "j2h4", "e8e7", "f3f4", "a9c7"),
        ("c2d4", "j9h7", "g3g5", "j10e10", "b2c2", "c9d7", "j2h4", "b8b7"),
        ("h2g4", "a9c7", "i2h2", "j10e10", "a2c4", "f9f10", "a1a2", "i8i7"),
        ("h2g4", "j9h7", "i2i1", "a9c7", "i3i5", "d8d6", "a2c4", "g8g6"),
        ("h2g4", "a9c7", "d3d4", "f9f10", "a1g1", "e8e7", "j3j4", "g8g6"),
        ("a2c4", "j9h7", "g3g5", "a10g10", "a1a2", "e8e7", "c2d4", "a9c7"),
        ("j2h4", "j9h7", "j1g1", "j10c10", "a1b1", "i8i7", "i3i5", "c9d7"),
        ("a2c4", "j9h7", "f3f4", "e8e6", "d3d5", "d9f7", "j1g1", "i8i6"),
    ),
}
