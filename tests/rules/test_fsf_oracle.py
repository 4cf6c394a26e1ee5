"""Fairy Post against Fairy-Stockfish on its own games: every row of `data/fsf-oracle.tsv`
(written by `fsf_oracle.py` with pyffish 0.0.90, Debian's fairy-stockfish 11.1 beside it) is
a position reached by moves in Fairy-Stockfish's UCI form, which Fairy Post's one move parser
must read; there the legal moves (by their UCI text), the perft counts and the FEN must be
Fairy-Stockfish's."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from rules import Game
from rules.fsf import fen, uci_moves
from rules.perft import perft
from rules.variant import Variant, load_variant_argument

DATA = Path(__file__).resolve().parent / "data" / "fsf-oracle.tsv"
REPO = Path(__file__).resolve().parents[2]


def _rows() -> list[list[str]]:
    lines = DATA.read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t") for line in lines if line]


@cache
def _variant(spec: str) -> Variant:
    if spec.endswith(".toml"):
        return load_variant_argument(str(REPO / spec))
    return load_variant_argument(spec)


def _pocket_sorted(text: str) -> str:
    """FEN with the pocket's letters in one order (Fairy-Stockfish lists them by its own
    piece order; the position is the same)."""
    board, _, rest = text.partition(" ")
    if "[" in board:
        head, _, tail = board.partition("[")
        pocket, _, after = tail.partition("]")
        board = f"{head}[{''.join(sorted(pocket))}]{after}"
    return f"{board} {rest}"


ROWS = _rows()


@pytest.mark.parametrize("row", ROWS, ids=[f"{r[1]}-{i}" for i, r in enumerate(ROWS)])
def test_position_agrees_with_fairy_stockfish(row: list[str]) -> None:
    spec, _fsf, moves, counts, _old, expected_fen, legal = row
    game = Game(_variant(spec))
    for move in moves.split():
        game.play(move)
    pos = game.position
    assert sorted(uci_moves(pos)) == legal.split()
    wanted = [int(n) for n in counts.split(",")]
    assert [perft(pos, depth) for depth in range(1, len(wanted) + 1)] == wanted
    assert _pocket_sorted(fen(pos)) == _pocket_sorted(expected_fen)


def test_every_registered_game_has_rows() -> None:
    from tests.rules.fsf_oracle import REGISTRY

    assert {entry.spec for entry in REGISTRY} <= {row[0] for row in ROWS}
