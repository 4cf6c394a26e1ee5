"""Fairy-Stockfish's Western games (issue 28) beyond what the perft rows of
`data/fsf-oracle.tsv` show: the Pocket Knight's drop, S-House's gating from a refilled hand,
Crazyhouse's promoted pieces in the FEN, Breakthrough's ends. FENs as pyffish 0.0.90 gives
them for the same moves."""

from __future__ import annotations

import pytest

from rules.errors import IllegalMoveError, VariantError
from rules.fsf import fen, uci_moves
from rules.game import Game
from rules.outcome import Termination
from rules.summary import rules_summary
from rules.variant import load_definition, load_variant


def test_the_pocket_knight_is_dropped_once_anywhere() -> None:
    game = Game(load_variant("pocketknight"))
    assert fen(game.position).startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w")
    for move in ("g1f3", "g8f6", "N*e4"):
        game.play(move)
    # pyffish: rnbqkb1r/pppppppp/5n2/8/4N3/5N2/PPPPPPPP/RNBQKB1R[n] b KQkq - 0 2
    assert fen(game.position) == "rnbqkb1r/pppppppp/5n2/8/4N3/5N2/PPPPPPPP/RNBQKB1R[n] b KQkq - 0 2"
    game.play("N@e5")
    assert not any("@" in m for m in uci_moves(game.position))  # both hands are empty
    with pytest.raises(IllegalMoveError):
        game.play("N*d4")


def test_captures_in_pocket_knight_leave_the_game() -> None:
    game = Game.from_position_text("pocketknight", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1 hand:-")
    game.play("e4d5")
    assert fen(game.position) == "4k3/8/8/3P4/8/8/8/4K3[] b - - 0 1"


def test_the_drop_reserve_is_summarised_and_checked() -> None:
    assert any(
        "dropped on any empty square" in line
        for line in rules_summary(load_variant("pocketknight"))
    )
    text = (
        'id = "two-pockets"\nname = "Two pockets"\nextends = "chess"\n'
        '[reserve]\npieces = ["knight", "knight"]\nstyle = "dropped"\n'
    )
    with pytest.raises(VariantError, match="'drop'"):
        load_definition(text)


def test_s_house_gates_what_its_hand_holds_but_no_pawn_onto_the_first_row() -> None:
    """pyffish 0.0.90 (shouse), after these moves: White holds a Pawn and may gate the Hawk
    or the Elephant, never the Pawn; its unmoved pieces' files stay rights."""
    game = Game(load_variant("shouse"))
    for move in ["e2e4", "d7d5", "e4d5", "g8f6"]:
        game.play(move)
    legal = uci_moves(game.position)
    assert sorted(m for m in legal if m.startswith("g1f3")) == ["g1f3", "g1f3e", "g1f3h"]
    # pyffish lists the same pocket as [EHPeh]
    assert fen(game.position) == (
        "rnbqkb1r/ppp1pppp/5n2/3P4/8/8/PPPP1PPP/RNBQKBNR[PHEhe] w KQBCDFGkqbcdf - 1 3"
    )


def test_s_chess_writes_the_rooks_files_once_the_king_has_moved() -> None:
    game = Game(load_variant("seirawan"))
    for move in ["e2e4", "e7e5", "e1e2"]:
        game.play(move)
    assert fen(game.position).split()[2] == "ABCDFGHkqbcdfg"  # pyffish 0.0.90


def test_crazyhouse_marks_promoted_pieces_as_fairy_stockfish_does() -> None:
    game = Game.from_position_text("crazyhouse", "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 hand:-")
    game.play("b7b8q")
    assert fen(game.position) == "1Q~2k3/8/8/8/8/8/8/4K3[] b - - 0 1"
    loop = Game.from_position_text("loop", "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1 hand:-")
    loop.play("b7b8q")
    assert fen(loop.position) == "1Q2k3/8/8/8/8/8/8/4K3[] b - - 0 1"  # loop keeps no mark


def test_breakthrough_is_won_on_the_far_rank_or_by_taking_everything() -> None:
    game = Game.from_position_text("breakthrough", "8/1P6/8/8/8/8/p7/8 w - - 0 1")
    game.play("b7b8")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.termination is Termination.GOAL
    game = Game.from_position_text("breakthrough", "8/8/8/8/8/1p6/P7/8 w - - 0 1")
    game.play("a2b3")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.termination is Termination.EXTINCTION


def test_jeson_mor_is_won_by_holding_the_centre_for_a_move() -> None:
    """pyffish 0.0.90: after d3e5 the game goes on (Black to move, not ended); after
    Black's reply that leaves the Knight there, White has won (is_immediate_game_end)."""
    start = "n7n/9/9/5n3/9/9/3N5/9/N7N w - - 0 1"
    game = Game.from_position_text("jesonmor", start)
    game.play("d3e5")
    assert game.outcome() is None and len(uci_moves(game.position)) == 12
    game.play("a9b7")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.termination is Termination.GOAL
    taken = Game.from_position_text("jesonmor", "n7n/9/5n3/9/9/9/3N5/9/N7N w - - 0 1")
    taken.play("d3e5")
    taken.play("f7e5")  # taken: now Black's Knight must hold the centre
    assert taken.outcome() is None


def test_placement_castles_with_a_king_and_rook_dropped_on_their_squares() -> None:
    game = Game(load_variant("placement"))
    for move in ["K@e1", "K@e8", "R@h1", "R@a8"]:
        game.play(move)
    # pyffish 0.0.90: r3k3/pppppppp/8/8/8/8/PPPPPPPP/4K2R[QRBBNNqrbbnn] w Kq - 0 3
    assert fen(game.position).split()[2] == "Kq"
    assert not any(m.startswith("K@") for m in uci_moves(game.position))


def test_placement_puts_the_bishops_on_both_colours() -> None:
    game = Game(load_variant("placement"))
    game.play("B@c1")
    game.play("B@d8")
    bishops = sorted(m for m in uci_moves(game.position) if m.startswith("B@"))
    assert bishops == ["B@b1", "B@d1", "B@f1", "B@h1"]  # as pyffish 0.0.90
    # With one light square left for the second Bishop, no other piece may take it.
    game = Game.from_position_text(
        "placement", "2q1rk2/pppppppp/8/8/8/8/PPPPPPPP/1R3Q1R w - - 0 4 hand:B,B,K,N,N,b,b,n,n,r"
    )
    legal = uci_moves(game.position)
    assert "B@d1" in legal and "K@d1" not in legal and "N@d1" not in legal
