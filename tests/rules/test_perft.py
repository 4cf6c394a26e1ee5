"""Perft: the move generator against published counts and Fairy-Stockfish's."""

from __future__ import annotations

import csv

import pytest

from rules import Game
from rules.perft import perft
from rules.postext import parse_position
from tests.rules.conftest import ORACLE

# Published counts (chessprogramming.org, "Perft Results").
CHESS_POSITIONS = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", [20, 400, 8902, 197281]),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48, 2039, 97862]),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379]),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", [46, 2079, 89890]),
]


@pytest.mark.parametrize(("fen", "counts"), CHESS_POSITIONS)
def test_chess_perft(fen: str, counts: list[int]) -> None:
    pos = parse_position("chess", fen)
    for depth, expected in enumerate(counts, start=1):
        assert perft(pos, depth) == expected, f"depth {depth}"


def _rows(name: str) -> list[dict[str, str]]:
    with (ORACLE / name).open() as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.mark.parametrize("row", _rows("perft-start.tsv"), ids=lambda r: r["variant"])
def test_start_positions_against_fairy_stockfish(row: dict[str, str]) -> None:
    pos = Game.new(row["variant"]).position
    depth = 3 if row["variant"] != "chess" else 4
    for d in range(1, depth + 1):
        assert perft(pos, d) == int(row[f"perft{d}"]), f"depth {d}"


ORACLE_ROWS = [
    (name, row) for name in ("patchanka", "heavy-shako") for row in _rows(f"positions-{name}.tsv")
]


@pytest.mark.parametrize(
    ("variant", "row"), ORACLE_ROWS, ids=lambda x: x if isinstance(x, str) else x["id"]
)
def test_random_positions_against_fairy_stockfish(variant: str, row: dict[str, str]) -> None:
    """Positions from seeded random games, with en passant by and of Soldiers and
    promotions with all eleven choices among them (oracle/README.md)."""
    pos = Game.replay(variant, (), row["moves"].split()).position
    for d in (1, 2):
        assert perft(pos, d) == int(row[f"perft{d}"]), f"depth {d}"
    if row["id"] in ("patchanka-07", "patchanka-09", "heavyshako-07", "heavyshako-09"):
        assert perft(pos, 3) == int(row["perft3"])
