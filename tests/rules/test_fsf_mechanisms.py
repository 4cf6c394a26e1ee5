"""The rules mechanisms of Fairy-Stockfish's catalogue (issue 28), each on a position built
for it; the expected results are pyffish 0.0.90's (`game_result`, `is_immediate_game_end`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules import Game, Termination
from rules.fsf import fen
from rules.outcome import Outcome


@pytest.mark.parametrize(
    ("variant", "text", "termination", "winner"),
    [
        # Losers: the checkmated side wins; one left with only its King wins at once.
        ("losers", "k6n/8/1Q6/8/8/8/8/R3K3 b - - 0 1", Termination.CHECKMATED_WIN, 1),
        ("losers", "k7/8/1Q6/8/8/8/8/4K3 w - - 0 1", Termination.BARED_WIN, 1),
        # Suicide: stalemated with fewer pieces wins; with as many, a draw.
        ("suicide", "8/8/8/8/8/p7/P7/1n6 w - - 0 1", Termination.STALEMATE_WIN, 0),
        ("suicide", "8/8/8/8/8/p7/P7/8 w - - 0 1", Termination.STALEMATE, None),
        # Antichess: stalemated wins; a side with nothing left has won.
        ("antichess", "8/8/8/8/8/p7/P7/8 w - - 0 1", Termination.STALEMATE_WIN, 0),
        ("giveaway", "8/8/8/8/8/8/8/4K2R w K - 0 1", Termination.EXTINCTION, 1),
        # Three-check: the third check has been given.
        ("3check", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 checks:0+3", Termination.CHECK_COUNT, 1),
    ],
)
def test_the_rule_ends_the_game(
    variant: str, text: str, termination: Termination, winner: int | None
) -> None:
    outcome = Game.from_position_text(variant, text).outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner) == (termination, winner)


def test_captures_are_compulsory_even_for_the_king() -> None:
    game = Game.from_position_text("antichess", "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1")
    assert [m.notation for m in game.legal_moves()] == ["Ke1xd2"]


def test_a_losers_king_still_may_not_be_left_in_check() -> None:
    # Black's Pawn on f2 checks; Qd1xc2 is a capture but leaves the King in check.
    game = Game.from_position_text("losers", "k7/8/8/8/8/8/2p2p2/3QK3 w - - 0 1")
    assert [m.notation for m in game.legal_moves()] == ["Ke1xf2"]


def test_giveaway_s_king_castles_through_attack() -> None:
    text = "rnbqk2r/pppp1ppp/5n2/4p3/4P3/7b/PPPP1P1P/RNBQK2R w KQkq - 0 1"
    game = Game.from_position_text("giveaway", text)
    moves = {m.notation for m in game.legal_moves()}
    assert "O-O" in moves and len(moves) == 21  # pyffish lists 21, e1g1 among them


def test_horde_pawns_double_step_from_the_first_two_rows_only() -> None:
    assert len(Game("horde").legal_moves()) == 8  # as pyffish 0.0.90
    game = Game.from_position_text("horde", "4k3/8/8/8/8/8/1P6/P7 w - - 0 1")
    assert {m.coordinates for m in game.legal_moves()} == {"a1a2", "a1a3", "b2b3", "b2b4"}
    assert fen(Game("horde").position).split()[2] == "kq"  # only Black castles


def test_an_atomic_capture_explodes_all_but_pawns() -> None:
    # As pyffish: Rd1xd5 removes the Rook, the d5 Pawn, the Knight on c6 and White's own
    # Bishop on c4; the Pawn on e6 stays.
    game = Game.from_position_text("atomic", "4k3/8/2n1p3/3p4/2B5/8/8/3RK3 w - - 0 1")
    game.play("Rd1xd5")
    assert fen(game.position) == "4k3/8/4p3/8/8/8/8/4K3 b - - 0 1"


def test_atomic_kings_never_capture_and_touching_kings_give_no_check() -> None:
    game = Game.from_position_text("atomic", "4k3/8/8/8/8/8/4p3/4K3 w - - 0 1")
    assert {m.coordinates for m in game.legal_moves()} == {"e1d2", "e1f2"}
    game = Game.from_position_text("atomic", "8/8/8/3k4/3K4/8/8/3r4 w - - 0 1")
    assert not game.position.is_check()
    assert len(game.legal_moves()) == 6  # as pyffish: never d3, the Rook's square


def test_exploding_the_king_wins() -> None:
    game = Game.from_position_text("atomic", "4k3/3n4/8/8/8/8/8/3RK3 w - - 0 1")
    game.play("Rd1xd7")
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.EXPLOSION
    assert outcome.result_text == "white wins by exploding the king"


def test_racing_kings_forbids_checks() -> None:
    game = Game.from_position_text("racingkings", "8/8/8/8/8/1k6/8/R5K1 w - - 0 1")
    assert not {m.notation for m in game.legal_moves()} & {"Ra1-a3", "Ra1-b1"}


@pytest.mark.parametrize(
    "termination",
    [
        Termination.CHECK_COUNT,
        Termination.EXTINCTION,
        Termination.EXPLOSION,
        Termination.BARED_WIN,
        Termination.CHECKMATED_WIN,
    ],
)
def test_the_new_endings_read_back_from_their_text(termination: Termination) -> None:
    for winner in (0, 1):
        outcome = Outcome(
            termination, winner, 3 if termination is Termination.CHECK_COUNT else None
        )
        assert Outcome.from_text(outcome.result_text) == outcome


def test_pseudo_royal_pieces_may_not_be_left_attacked() -> None:
    """As pyffish with extinctionPseudoRoyal (tests/rules/data/pseudo-royal.ini): a Knight
    shielding the last King is pinned; of three Kings, each must be saved."""
    from rules.variant import load_variant_argument

    data = Path(__file__).resolve().parent / "data"
    king = load_variant_argument(str(data / "pseudo-royal-king.toml"))
    game = Game.from_position_text(king, "4k3/8/8/8/8/8/8/r2NK3 w - - 0 1")
    assert {m.coordinates for m in game.legal_moves()} == {"e1d2", "e1e2", "e1f1", "e1f2"}
    three = load_variant_argument(str(data / "pseudo-royal-threekings.toml"))
    game = Game.from_position_text(three, "k3k2k/8/8/8/8/8/r7/K3K2K w - - 0 1")
    assert game.position.is_check()
    assert {m.coordinates for m in game.legal_moves()} == {"a1a2", "a1b1"}
