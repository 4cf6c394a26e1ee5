"""The partner with the real Fairy-Stockfish (Debian's /usr/games/fairy-stockfish): it loads
the exported sections, plays legal moves in the variants it can say, finds a mate in one and
judges a position with its two best lines. Skipped where it is not installed, unless
FAIRYPOST_REQUIRE_FAIRY_STOCKFISH=1 (set by `.ci/run`) makes that a failure."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rules.game import Game
from rules.variant import load_variant
from search.partner import FairyStockfish, Unsupported
from search.searcher import MATE_BOUND
from tests.fairy_stockfish import fairy_stockfish


@pytest.fixture(scope="module")
def partner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FairyStockfish]:
    engine = FairyStockfish(fairy_stockfish(), Path(tmp_path_factory.mktemp("variants")))
    try:
        yield engine
    finally:
        engine.stop()


def test_it_finds_the_mate_in_one_and_names_itself(partner: FairyStockfish) -> None:
    game = Game.replay_variant(
        load_variant("chess"), ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6"]
    )
    found = partner.best_move(game, 0.3)
    assert found is not None
    assert found.coordinates == "h5f7" and found.mate_in == 1 and found.score >= MATE_BOUND
    assert partner.name.startswith("Fairy-Stockfish ")


@pytest.mark.parametrize("variant", ["capablanca", "crazyhouse", "janus", "3check", "extinction"])
def test_it_plays_legal_moves_in_the_variants_it_can_say(
    partner: FairyStockfish, variant: str
) -> None:
    """Six plies each, every one legal in our rules (`best_move` checks its legal moves
    and its answer), switching between variants in one process. (Debian's 11.1 is older
    than the export in Shako, Grand and Gardner: it does not know `doubleStepRegion` and
    `promotionRegion`, the check refuses them, and Fairy Post's engine plays them.)"""
    game = Game(load_variant(variant))
    for _ in range(6):
        if game.outcome() is not None:
            break
        found = partner.best_move(game, 0.05)
        assert found is not None
        game.play(found.coordinates)
    assert game.ply >= 1


def test_it_judges_a_position_with_its_two_best_lines(partner: FairyStockfish) -> None:
    game = Game.replay_variant(load_variant("chess"), ["e2e4", "e7e5", "g1f3", "b8c6"])
    judged = partner.judge(game, 20_000, timeout=30.0)
    assert judged is not None
    assert len(judged.scores) == 2
    assert abs(judged.scores[0]) < 300  # an opening: nobody is a piece up


def test_it_is_not_asked_for_what_variants_ini_cannot_say(partner: FairyStockfish) -> None:
    with pytest.raises(Unsupported):
        partner.best_move(Game(load_variant("bigorra")), 0.05)
