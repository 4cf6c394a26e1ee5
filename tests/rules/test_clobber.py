"""Clobber (Fairy-Stockfish's clobber and clobber10) beyond the perft rows of
`data/fsf-oracle.tsv`: how a game ends. pyffish 0.0.90 agrees: after a1b1 below Black has no
legal move and the game's result is a loss for the side to move."""

from __future__ import annotations

from rules.fsf import fen, uci_moves
from rules.game import Game
from rules.outcome import Termination
from rules.variant import load_variant


def test_clobber_starts_full_and_every_move_captures() -> None:
    game = Game(load_variant("clobber"))
    assert fen(game.position) == "PpPpP/pPpPp/PpPpP/pPpPp/PpPpP/pPpPp w - - 0 1"
    assert len(uci_moves(game.position)) == 49


def test_the_side_that_cannot_capture_loses() -> None:
    game = Game.from_position_text("clobber", "5/5/5/5/5/Pp2p w - - 0 1")
    game.play("a1b1")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.termination is Termination.STALEMATE_WIN


def test_the_side_left_without_stones_loses() -> None:
    game = Game.from_position_text("clobber", "5/5/5/5/1p3/1P3 w - - 0 1")
    game.play("b1b2")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.termination is Termination.EXTINCTION


def test_clobber10_is_the_same_game_on_10x10() -> None:
    game = Game(load_variant("clobber10"))
    assert fen(game.position).startswith("PpPpPpPpPp/pPpPpPpPpP/")
    assert len(uci_moves(game.position)) == 180
