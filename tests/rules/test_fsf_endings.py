"""Fairy Post ends games where Fairy-Stockfish does, with its result: every row of
`data/fsf-endings.tsv` (written by `fsf_endings.py` with pyffish 0.0.90) is a game in
Fairy-Stockfish's UCI moves that pyffish ends at its last ply, or not at all; replayed with
Fairy Post's rules, no earlier ply may end it, and the last must end it the same way with
the same winner, in the position Fairy-Stockfish writes (its FEN: counts, first-move
rights). Fairy-Stockfish's claimable ends (repetition, the move rule, counting) are applied
automatically by Fairy Post."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules import Game
from rules.fsf import fen
from rules.outcome import Termination
from tests.rules.fsf_endings import variant_for

DATA = Path(__file__).resolve().parent / "data" / "fsf-endings.tsv"

KINDS = {
    "immediate": {
        Termination.BARE_KING,
        Termination.BARED_WIN,
        Termination.BIKJANG,
        Termination.CASTLING,
        Termination.CHECK_COUNT,
        Termination.EXTINCTION,
        Termination.EXPLOSION,
        Termination.GOAL,
        Termination.PASSES,
        Termination.ROYAL_CAPTURE,
    },
    "no-moves": {
        Termination.CHECKMATE,
        Termination.CHECKMATED_WIN,
        Termination.STALEMATE,
        Termination.STALEMATE_WIN,
        Termination.STALEMATE_POINTS,
        Termination.FORBIDDEN_MATE,
        Termination.MATE_DRAW,
    },
    "claim": {
        Termination.REPETITION,
        Termination.MOVE_RULE,
        Termination.COUNTING,
        Termination.INSUFFICIENT_MATERIAL,
    },
}
"""pyffish's kinds of end and the terminations of ours that are of that kind."""


def _rows() -> list[list[str]]:
    lines = DATA.read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t") for line in lines if line]


ROWS = _rows()


def _both_bare(game: Game) -> bool:
    """Both Kings bare under `bare-king = "loss"`: Fairy Post's draw at once, where
    Fairy-Stockfish (whose extinction rule stops at one side bare) lets the Kings walk to the
    move rule's draw, the only end that remains (docs/variants.md, `bare-king`)."""
    pos = game.position
    outcome = game.outcome()
    return (
        outcome is not None
        and outcome.termination is Termination.INSUFFICIENT_MATERIAL
        and pos.variant.bare_king
        and all(pos.t.royal[code] for _sq, code in pos.occupied())
    )


@pytest.mark.parametrize("row", ROWS, ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_game_ends_as_in_fairy_stockfish(row: list[str]) -> None:
    spec, _fsf, start, moves, ending, winner, last = row
    variant = variant_for(spec)
    game = Game(variant) if start == "-" else Game.from_position_text(variant, start)
    for move in moves.split():
        if _both_bare(game) and winner in ("draw", "-"):
            return  # Fairy-Stockfish plays on to its only end left, the move rule's draw
        assert game.outcome() is None, f"ended before {move}: {game.outcome()}"
        game.play(move, check_marks=False)
    assert fen(game.position) == last
    outcome = game.outcome()
    if ending == "-":
        assert outcome is None
        return
    assert outcome is not None, f"pyffish ends the game ({ending}, {winner})"
    assert outcome.termination in KINDS[ending], outcome
    ours = "draw" if outcome.winner is None else ("white", "black")[outcome.winner]
    assert ours == winner


def test_every_registered_game_has_rows() -> None:
    from tests.rules.fsf_endings import REGISTRY

    assert {entry.spec for entry in REGISTRY} <= {row[0] for row in ROWS}
