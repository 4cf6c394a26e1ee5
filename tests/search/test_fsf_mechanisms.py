"""The engine in the games of Fairy-Stockfish's catalogue that need their own rules (n-check,
goal zones with a reply, compulsory captures, extinction): it plays a legal move in random
positions of each, and takes the win a rule offers."""

from __future__ import annotations

import math
import random

import pytest

from rules.game import Game
from rules.notation import format_code
from rules.postext import parse_position
from rules.variant import load_variant
from search.play import best_move, think
from search.searcher import Limits
from tests.search.forced import winning_moves

GAMES = [
    "3check",
    "5check",
    "kingofthehill",
    "racingkings",
    "antichess",
    "giveaway",
    "suicide",
    "losers",
    "extinction",
    "kinglet",
    "threekings",
    "codrus",
    "horde",
    "knightmate",
    "atomic",
]


@pytest.mark.parametrize("variant_id", GAMES)
def test_a_legal_move_in_random_positions(variant_id: str) -> None:
    variant = load_variant(variant_id)
    rng = random.Random(variant_id)
    game = Game(variant)
    for _ply in range(30):
        if game.outcome() is not None:
            break
        result = think(game, Limits(nodes=300))
        codes = game.position.legal_codes()
        assert result.move in codes
        code = result.move if rng.random() < 0.5 else rng.choice(codes)
        game.play_move(game.position.to_move(code))


@pytest.mark.parametrize(
    ("variant_id", "text", "n"),
    [
        # The third check wins at once, even though it is no mate.
        ("3check", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 checks:2+0", 1),
        # Black cannot answer on the eighth rank: White's King gets there first.
        ("racingkings", "8/1K6/8/8/8/8/k7/8 w - - 0 1", 1),
        # Give the last piece away: Black must take it, and has nothing left to lose.
        ("antichess", "8/8/8/3p4/8/8/8/2R5 w - - 0 1", 2),
        # Losers: give up the last piece but the King.
        ("losers", "4k3/8/8/3p4/8/8/8/2R1K3 w - - 0 1", 2),
        # Atomic: take the Knight beside Black's King; the blast takes the King too.
        ("atomic", "4k3/3n4/8/8/8/8/8/3RK3 w - - 0 1", 1),
        # Extinction: take Black's last Knight.
        ("extinction", "r1bqkb1r/pppp1ppp/5n2/4p3/8/5Q2/PPPPPPPP/RNB1KBNR w KQkq - 0 1", 1),
    ],
)
def test_the_rule_s_win_is_taken(variant_id: str, text: str, n: int) -> None:
    variant = load_variant(variant_id)
    pos = parse_position(variant, text)
    solutions = {format_code(pos, c) for c in winning_moves(pos, n)}
    assert solutions
    choice = best_move(Game(variant, pos), 4, movetime=math.inf, seed=1)
    assert choice is not None and choice.notation in solutions
