"""Asymmetric setups: `[setup.black]` gives Black's army when it is not White's mirror image
(Makruk's and Shogi's Kings, docs/variants.md, Setup). The counts are pyffish 0.0.90's for
the same game (`asym1` in data/guide-variants.ini): chess with Black's King and Queen
swapped, no castling; from the start and after random games of pyffish's legal moves."""

from __future__ import annotations

import pytest

from rules import Game
from rules.errors import VariantError
from rules.perft import perft
from rules.position import Position
from rules.variant import load_definition

SWAPPED = """
id = "swapped"
name = "Swapped"
extends = "chess"
castling = false
[setup.black]
8 = "R N B K Q B N R"
7 = "P P P P P P P P"
"""

ROWS = [
    ("", 20, 400),
    (
        "g2g4 g7g5 f2f3 g8f6 h2h4 c7c5 b2b4 f6g8 f1g2 h7h5 g2h3 b8c6 b1c3 d8c7 c3b5 c7b6 a2a4 "
        "f7f5 h3f1 h8h7 f3f4 f8g7 a1a3 g7c3",
        26,
        914,
    ),
    (
        "h2h4 b8c6 h1h3 a7a5 h4h5 f7f6 b1a3 a8a6 a3b1 c6a7 c2c4 g7g5 a2a3 e7e6 d2d4 e8e7 d1b3 "
        "e7c5 b3e3 c5e7 h3h4 a5a4 c1d2 e7a3",
        39,
        1431,
    ),
    (
        "d2d3 f7f6 e2e3 b7b5 g1e2 c8b7 d1d2 g7g6 c2c4 d7d6 d2b4 a7a5 b1d2 b7c6 e3e4 a8a7 e1d1 "
        "c6e4 b4a3 a7a6 a1b1 d8d7 a3d6 a6d6 e2d4 e7e6 f1e2 e8d8 f2f4 b8c6",
        33,
        1110,
    ),
]


@pytest.mark.parametrize(("moves", "p1", "p2"), ROWS)
def test_swapped_armies_count_as_fairy_stockfish(moves: str, p1: int, p2: int) -> None:
    pos = Game.replay_variant(load_definition(SWAPPED), moves.split()).position
    assert (perft(pos, 1), perft(pos, 2)) == (p1, p2)


def test_start_position_and_perft_3() -> None:
    variant = load_definition(SWAPPED)
    game = Game(variant)
    assert game.position_text.split()[0] == "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert perft(Position.start(variant), 3) == 8902


@pytest.mark.parametrize(
    ("change", "key", "message"),
    [
        ('8 = "R N B K Q B N R"', "setup.black.8", None),
        ('9 = "R N B K Q B N R"', "setup.black.9", "ranks are numbered 1 to 8"),
        ('8 = "R N B . Q B N R"', "setup.black", "Black has 0"),
        ('2 = "R N B K Q B N R"', "setup.black", "White and Black both stand on a2"),
    ],
)
def test_black_setup_refusals(change: str, key: str, message: str | None) -> None:
    text = SWAPPED.replace('8 = "R N B K Q B N R"', change)
    if message is None:
        load_definition(text)
        return
    with pytest.raises(VariantError) as info:
        load_definition(text)
    assert info.value.key == key
    assert message in str(info.value)


def test_an_overlapping_mirror_points_to_setup_black() -> None:
    text = """
id = "crowded"
name = "Crowded"
extends = "chess"
[setup]
7 = "P P P P P P P P"
"""
    with pytest.raises(VariantError, match=r"\[setup\.black\]"):
        load_definition(text)
