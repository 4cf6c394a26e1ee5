"""The Makruk family and its relatives (issue 27): Makruk's, Cambodian's and ASEAN's counting
rules, Shatar's mate and bare-King rules, each against what Fairy-Stockfish (pyffish 0.0.90)
says of the same position and moves (the expected values below were read from pyffish's
FEN, `is_optional_game_end`, `is_immediate_game_end` and `game_result`)."""

from __future__ import annotations

import pytest

from rules.fsf import fen
from rules.game import Game
from rules.outcome import Outcome, Termination
from rules.perft import perft
from rules.postext import parse_position
from rules.record import read_record, replay_record
from tests.rules.conftest import GAMES


def ended(game: Game) -> Outcome:
    outcome = game.outcome()
    assert outcome is not None
    return outcome


# ------------------------------------------------------------------------ counting rules


def test_asean_counting_starts_when_a_bare_king_faces_a_rook() -> None:
    """pyffish: after 1... Kd8 2. Ra2 the FEN reads `3k4/8/8/8/8/8/R7/4K3 b - 32 0 2`: the
    count runs to 32 plies (16 moves against a Rook) from 0."""
    game = Game.from_position_text("asean", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1")
    game.play("e8d8")
    assert game.position.counting() is None  # White, not bare, does not count
    game.play("a1a2")
    assert game.position.counting() == (0, 32)
    assert game.position_text.endswith("count:0/32")


def test_the_count_draws_when_it_passes_the_limit() -> None:
    game = Game.from_position_text("asean", "3k4/8/8/8/8/8/R7/4K3 b - - 2 2 count:31/32")
    game.play("d8c8")
    assert game.outcome() is None  # 32 of 32: pyffish's is_optional_game_end is False
    game.play("a2b2")
    assert ended(game).termination is Termination.COUNTING  # 33 > 32: True
    assert ended(game).result_text == "draw by the counting rule"
    assert Outcome.from_text("draw by the counting rule") == ended(game)


def test_the_count_round_trips_through_the_position_text() -> None:
    text = "2k5/8/8/8/8/8/R7/4K3 w - - 3 3 count:32/32"
    assert Game.from_position_text("asean", text).position_text == text
    game = Game.from_position_text("asean", text)
    game.play("a2b2")
    game.undo()
    assert game.position_text == text


# ------------------------------------------------------------------------ Shatar


def test_shatar_baring_a_king_draws_at_once() -> None:
    game = Game.from_position_text("shatar", "4k3/8/8/8/8/8/3r4/R3K3 w - - 0 1")
    game.play("a1a8+")
    game.play("e8e7")
    game.play("a8a2")
    assert game.outcome() is None
    game.play("d2a2")  # White is bare: the game is drawn, and no move is listed
    assert ended(game).termination is Termination.BARE_KING
    assert ended(game).result_text == "draw by baring the king"
    assert game.position.legal_codes() == []


def test_shatar_mate_by_a_knight_alone_loses_for_the_mating_side() -> None:
    game = Game.from_position_text("shatar", "6rk/6pp/8/6N1/8/8/8/4K3 w - - 0 1")
    game.play("g5f7")
    outcome = ended(game)
    assert outcome.termination is Termination.FORBIDDEN_MATE and outcome.winner == 1
    assert outcome.result_text == "black wins: white's checkmate was given by a forbidden piece"


def test_shatar_mate_without_a_shak_in_its_series_is_a_draw() -> None:
    game = Game.from_position_text("shatar", "6bk/7p/8/8/8/8/8/2B1K3 w - - 0 1")
    game.play("c1b2")
    assert ended(game).termination is Termination.MATE_DRAW


def test_shatar_mate_after_a_series_with_a_rook_check_wins() -> None:
    """The Pawn mates; the series of checks before it began with a Rook's (a shak)."""
    line = "f1b5 e8f8 a1a7 g7g6 c1a3 f8g8 a7a8 g8g7 a8g8 g7h6 a3c1 h6h5 b5e2 h5h4 g2g3"
    moves = line.split(" ")
    game = Game.from_position_text("shatar", "4k3/pp3ppp/8/8/8/8/5PPP/RNB1KBNR w - - 0 1")
    for move in moves:
        game.play(move)
    outcome = ended(game)
    assert outcome.termination is Termination.CHECKMATE and outcome.winner == 0
    # From the position alone, without the moves, the Pawn's check is the whole series.
    alone = parse_position("shatar", game.position_text)
    assert alone.outcome() is not None
    assert alone.outcome().termination is Termination.MATE_DRAW  # type: ignore[union-attr]


# ------------------------------------------------------------------------ perft


@pytest.mark.parametrize(
    ("variant", "counts"),
    [("asean", (23, 529, 12012)), ("shatar", (20, 400, 8426))],
)
def test_start_perft_equals_pyffish(variant: str, counts: tuple[int, ...]) -> None:
    pos = Game.new(variant).position
    for depth, count in enumerate(counts, start=1):
        assert perft(pos, depth) == count


# ------------------------------------------------------------------------ Makpong, Cambodian


def test_makpong_king_in_check_may_only_take_the_checker() -> None:
    """pyffish: makpong lists only e1d1 where makruk has e1d1 e1e2 e1f2."""
    text = "4k3/8/8/8/8/8/8/3rK3 w - - 0 1"
    assert [m.notation for m in Game.from_position_text("makpong", text).legal_moves()] == [
        "Ke1xd1"
    ]
    makruk = {m.notation for m in Game.from_position_text("makruk", text).legal_moves()}
    assert makruk == {"Ke1xd1", "Ke1-e2", "Ke1-f2"}


def test_cambodian_first_moves_and_their_rights_in_the_fen() -> None:
    game = Game.new("cambodian")
    assert fen(game.position) == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1"
    leaps = {m.coordinates for m in game.legal_moves() if m.coordinates.startswith("d1")}
    assert {"d1b2", "d1f2"} <= leaps
    for move in ("d1b2", "e8g7", "e1f2"):
        game.play(move)
    # pyffish: rnsm1snr/6k1/pppppppp/8/8/PPPPPPPP/1K3M2/RNS2SNR b d - 3 2
    assert fen(game.position) == "rnsm1snr/6k1/pppppppp/8/8/PPPPPPPP/1K3M2/RNS2SNR b d - 3 2"


def test_cambodian_rook_check_takes_the_kings_leap() -> None:
    """pyffish: after a1a8+ Black's rights are gone (`DE`); a Rook move that does not check
    leaves them (`DEe`), and the Cambodian count has begun (126 plies, board's honour)."""
    text = "4k2r/8/8/8/8/8/8/R2KM3 w - - 0 1"
    game = Game.from_position_text("cambodian", text)
    game.play("a1a8")
    assert fen(game.position) == "R3k2r/8/8/8/8/8/8/3KM3 b DE 126 0 1"
    assert not {"e8c7", "e8g7"} & {m.coordinates for m in game.legal_moves()}
    game.undo()
    game.play("a1b1")
    assert fen(game.position) == "4k2r/8/8/8/8/8/8/1R1KM3 b DEe 126 0 1"
    assert {"e8c7", "e8g7"} <= {m.coordinates for m in game.legal_moves()}


@pytest.mark.parametrize(
    ("name", "result"),
    [
        ("makruk-counting.txt", "draw by the counting rule"),
        ("cambodian-mate.txt", "black wins by checkmate"),
    ],
)
def test_game_records_replay_to_their_end(name: str, result: str) -> None:
    """Seeded random games, compared move by move with pyffish 0.0.90 (the same legal moves
    at every ply, the same ending and FEN at the last)."""
    game = replay_record(read_record((GAMES / name).read_text()))
    outcome = game.outcome()
    assert outcome is not None and outcome.result_text == result


# ------------------------------------------------------------------------ Kar Ouk


def test_kar_ouk_ends_at_the_first_check() -> None:
    """pyffish (karouk): after 1. Ra8+ the game is over (`is_immediate_game_end` True, no
    legal move), won by White; its FEN writes White's checks still to give as 0."""
    game = Game.from_position_text("karouk", "r3k3/3m4/2p5/8/8/2P5/3M4/R3K3 w - - 0 1")
    assert fen(game.position).split()[3:5] == ["-", "1+1"]
    game.play("a1a8")
    outcome = ended(game)
    assert outcome.termination is Termination.CHECK_COUNT
    assert outcome.result_text == "white wins by giving 1 check"
    assert Outcome.from_text("white wins by giving 1 check") == outcome
    assert game.position.legal_codes() == []
    assert fen(game.position) == "R3k3/3m4/2p5/8/8/2P5/3M4/4K3 b - 126 0+1 0 1"
