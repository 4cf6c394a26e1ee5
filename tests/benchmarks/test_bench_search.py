"""The engine benchmarks' machinery: Elo arithmetic, the players, one game, the UCI peer.
Strength and speed are reported by `make bench`, never asserted here."""

from __future__ import annotations

import math

import pytest

from benchmarks.elo import elo, estimate
from benchmarks.match import (
    EnginePlayer,
    FairyStockfishPlayer,
    GreedyPlayer,
    RandomPlayer,
    load_match_variant,
    match,
    play_game,
)
from rules.game import Game
from rules.variant import load_variant
from search.searcher import Limits
from search.uci import UciEngine, find_engine


def test_elo_of_even_and_lopsided_scores() -> None:
    assert elo(0.5) == 0
    assert elo(0.75) == pytest.approx(190.8, abs=0.1)
    even = estimate([1, 0, 0.5, 0.5])
    assert even.mid == 0 and even.low < 0 < even.high
    perfect = estimate([1.0] * 20)
    assert math.isinf(perfect.mid) and 250 < perfect.low < 350  # Wilson: p >= 0.84
    assert perfect.text().startswith("> +")
    assert estimate([0.0] * 5).text().startswith("< -")
    assert estimate([]).text() == "no games"


def test_a_game_between_two_movers_ends_by_rule_or_cap() -> None:
    variant = load_variant("patricia")
    points, reason, plies = play_game(variant, RandomPlayer(1), GreedyPlayer(2), max_plies=60)
    assert points in (0.0, 0.5, 1.0)
    assert reason and plies <= 60


def test_the_engine_beats_a_random_mover_in_a_short_match() -> None:
    variant = load_variant("chess")
    engine = EnginePlayer(Limits(nodes=400), "Fairy Post", table_mb=1)
    result = match(variant, engine, RandomPlayer(3), 2, max_plies=300)
    assert len(result.games) == 2
    assert engine.nodes > 0
    assert result.tally().count("+") == 1


def test_greedy_takes_the_biggest_piece() -> None:
    game = Game.from_position_text("chess", "4k3/8/8/3q1r2/4P3/8/8/4K3 w - - 0 1")
    assert GreedyPlayer(0).choose(game).move == "e4d5"


def test_players_variant_files_are_read_like_a_guilds() -> None:
    assert load_match_variant("chess").id == "chess"
    assert load_match_variant("capablanca").geometry.files == 10
    assert load_match_variant("s-chess").digest  # a player's definition, pinned by its hash


@pytest.mark.skipif(find_engine() is None, reason="Fairy-Stockfish is not installed")
def test_fairy_stockfish_answers_with_a_legal_move() -> None:
    path = find_engine()
    assert path is not None
    uci = UciEngine(path, {"Threads": "1", "Hash": "1"})
    try:
        player = FairyStockfishPlayer(uci, "grand", 0, 50, {"M": "C", "C": "A"})
        game = Game.new("grand")
        player.start(game)
        choice = player.choose(game)
        game.play(choice.move, check_marks=False)
        assert game.ply == 1
    finally:
        uci.close()
