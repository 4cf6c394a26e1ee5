"""Random starting arrays (`[setup.random]`: fischerandom, caparandom) and Chess960
castling. The castling moves are compared with pyffish 0.0.90's for all 960 arrays
(`data/chess960-castling.tsv`, written by `fsf_chess960.py`); perft from pinned arrays is in
`data/fsf-oracle.tsv`."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from rules import shuffle
from rules.errors import VariantError
from rules.fsf import fen, uci_moves
from rules.game import Game
from rules.summary import rules_summary
from rules.variant import load_definition, load_variant
from tests.rules.fsf_chess960 import fen as castling_fen

DATA = Path(__file__).resolve().parent / "data" / "chess960-castling.tsv"
CHESS = ["R", "N", "B", "Q", "K", "B", "N", "R"]


def _spec(variant_id: str) -> shuffle.RandomSetup:
    spec = load_variant(variant_id).random_setup
    assert spec is not None
    return spec


def test_there_are_960_chess_arrays() -> None:
    arrays = list(shuffle.arrays(_spec("fischerandom"), CHESS))
    assert len(arrays) == len(set(arrays)) == 960
    assert tuple(CHESS) in arrays


def test_the_draw_is_uniform_over_the_valid_arrays() -> None:
    spec = _spec("fischerandom")
    rng = random.Random(960)
    counts = Counter(shuffle.draw(spec, CHESS, rng) for _ in range(19_200))
    assert set(counts) == set(shuffle.arrays(spec, CHESS))  # every array, nothing else
    assert max(counts.values()) < 45 and min(counts.values()) > 5  # 20 expected each


def test_capablanca_random_keeps_its_colour_rules() -> None:
    spec = _spec("caparandom")
    rng = random.Random(1)
    for _ in range(200):
        array = shuffle.draw(spec, ["R", "N", "A", "B", "Q", "K", "B", "C", "N", "R"], rng)
        bishops = [i % 2 for i, t in enumerate(array) if t == "B"]
        assert bishops[0] != bishops[1]
        assert array.index("Q") % 2 != array.index("A") % 2
        rooks = [i for i, t in enumerate(array) if t == "R"]
        assert rooks[0] < array.index("K") < rooks[1]


def test_a_pinned_array_is_the_start_and_castles_as_chess960() -> None:
    variant = load_variant("fischerandom", ["setup-bqnbrkrn"])
    game = Game(variant)
    assert fen(game.position) == "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1"
    standard = Game(load_variant("fischerandom"))
    assert fen(standard.position).split()[2] == "HAha"


@pytest.mark.parametrize("option", ["setup-rnbqkbnb", "setup-rbqbknnr", "setup-nrbqrbkn"])
def test_arrays_that_break_the_rules_are_refused(option: str) -> None:
    with pytest.raises(VariantError, match="not a valid array"):
        load_variant("fischerandom", [option])


def test_an_array_option_needs_a_random_setup() -> None:
    with pytest.raises(VariantError, match="no random setup"):
        load_variant("chess", ["setup-rnbqkbnr"])


ROWS = [line.split("\t") for line in DATA.read_text(encoding="utf-8").splitlines()[1:]]


def test_castling_in_every_array_is_fairy_stockfishs() -> None:
    """Both castlings free, and a Black Rook attacking c1, d1, f1 or g1: the King's moves
    onto its own Rook are pyffish's. The file holds all 960 arrays; every tenth (each
    pinned array builds its own tables, 20 ms) is played here, with all five positions."""
    assert len({row[0] for row in ROWS}) == 960
    tested = {row[0] for row in ROWS if row[1] != "-"}
    assert len(tested) == 96
    for array, attacker, wanted in ROWS:
        if array not in tested:
            continue
        variant = load_variant("fischerandom", [shuffle.option_for(array)])
        game = Game.from_position_text(
            variant, castling_fen(array, None if attacker == "-" else attacker)
        )
        king = "abcdefgh"[array.index("K")] + "1"
        rooks = {"abcdefgh"[i] + "1" for i, t in enumerate(array) if t == "R"}
        ours = sorted(m for m in uci_moves(game.position) if m[:2] == king and m[2:4] in rooks)
        assert (" ".join(ours) or "-") == wanted, (array, attacker)


def test_castling_ends_on_the_usual_squares() -> None:
    variant = load_variant("fischerandom", ["setup-nrkbbnqr"])
    game = Game.from_position_text(variant, castling_fen("NRKBBNQR", None))
    game.play("c1b1")  # the King takes its own Rook: queenside, King c1 and Rook d1
    assert fen(game.position).startswith("1rk4r/pppppppp/8/8/8/8/8/2KR3R b hb")
    game = Game.from_position_text(variant, castling_fen("NRKBBNQR", None))
    game.play("c1h1")  # kingside: King g1, Rook f1
    assert fen(game.position).startswith("1rk4r/pppppppp/8/8/8/8/8/1R3RK1 b hb")


def test_the_rules_summary_tells_the_shuffle_and_chess960_castling() -> None:
    lines = rules_summary(load_variant("caparandom"))
    assert any("Queen and Archbishop on squares of different colours" in line for line in lines)
    assert any("end on i1 and h1, or c1 and d1, wherever they started" in line for line in lines)


def test_a_players_random_setup_is_checked_when_loaded() -> None:
    base = """
id = "mine"
name = "Mine"
extends = "chess"
description = "Shuffled."
[setup.random]
"""
    with pytest.raises(VariantError, match="'Z' is not a piece of rank 1"):
        load_definition(base + 'between = ["K", "Z"]\n')
    with pytest.raises(VariantError, match="no array found"):
        load_definition(
            base + 'opposite-colours = [["B", "B"], ["K", "Q"]]\nbetween = ["Q", "K"]\n'
        )
    variant = load_definition(base + 'opposite-colours = [["B", "B"]]\n')
    assert variant.random_setup is not None
    assert len(list(shuffle.arrays(variant.random_setup, CHESS))) == 2880
