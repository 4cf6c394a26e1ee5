"""The engine in players' variants: the endings and mechanisms that only player files use
(a goal zone, the bare King, stalemate as a loss, S-Chess gating, Crazyhouse drops) are
played and scored through the rules engine like the built-in ones."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from rules.game import Game
from rules.notation import format_code
from rules.position import Position
from rules.postext import parse_position
from rules.variant import Variant, load_definition
from search.play import best_move, think
from search.searcher import Limits, Searcher
from tests.search.forced import winning_moves

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
KING_OF_THE_HILL = """
id = "hill"
name = "King of the Hill"
description = "Chess where a King reaching the centre wins."
extends = "chess"
[rules]
goal-zone = { piece = "king", squares = ["d4", "e4", "d5", "e5"] }
"""


def example(name: str) -> Variant:
    path = EXAMPLES / f"{name}.toml"
    return load_definition(path.read_text(encoding="utf-8"), source=path.name)


def hill() -> Variant:
    return load_definition(KING_OF_THE_HILL, source="hill.toml")


def _check_win(variant: Variant, text: str, n: int) -> None:
    pos = parse_position(variant, text)
    solutions = {format_code(pos, c) for c in winning_moves(pos, n)}
    assert solutions, "the position is not a forced win"
    for level in (1, 4, 8):
        choice = best_move(Game(variant, pos), level, movetime=math.inf, seed=level)
        assert choice is not None and choice.notation in solutions, (level, choice, solutions)


def test_a_king_walks_into_the_goal_zone() -> None:
    _check_win(hill(), "r6k/8/8/8/8/4K3/8/8 w - - 0 1", 1)


def test_a_king_is_kept_out_of_the_zone() -> None:
    """Black to move must stop White's King reaching the centre next move, or lose."""
    game = Game(hill(), parse_position(hill(), "8/8/8/2r5/8/4K3/8/7k b - - 0 1"))
    result = think(game, Limits(depth=3))
    assert result.score > -1000  # the Rook guards the zone; nothing is lost yet


def test_baring_the_king_wins() -> None:
    """Shatranj: take Black's last piece; Black cannot bare White's King in reply."""
    _check_win(example("shatranj"), "4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1", 2)


def test_stalemate_that_loses_is_played() -> None:
    """Shatranj: stalemating the opponent wins the game."""
    variant = example("shatranj")
    text = "7k/p7/P5K1/8/8/8/8/6R1 w - - 0 1"
    pos = parse_position(variant, text)
    stalemating = [format_code(pos, c) for c in winning_moves(pos, 1)]
    assert stalemating
    choice = best_move(Game(variant, pos), 4, movetime=math.inf)
    assert choice is not None and choice.notation in stalemating


@pytest.mark.parametrize("name", ["s-chess", "crazyhouse", "capablanca", "shako", "courier"])
def test_legal_moves_in_player_files(name: str) -> None:
    """Random games in the example files: every move the engine picks is legal, within
    its node budget, and its running evaluation agrees with a fresh count."""
    variant = example(name)
    rng = random.Random(name)
    game = Game(variant)
    for _ply in range(40):
        if game.outcome() is not None:
            break
        result = think(game, Limits(nodes=600))
        assert result.move in game.position.legal_codes()
        assert result.nodes <= 600
        codes = game.position.legal_codes()
        code = result.move if rng.random() < 0.5 else rng.choice(codes)
        game.play_move(game.position.to_move(code))
    searcher = Searcher(game.position)
    saved = []
    for _ in range(30):
        codes = searcher.pos.legal_codes()
        if not codes:
            break
        saved.append((searcher.mg, searcher.eg, searcher.ph, searcher.pk))
        searcher._push(rng.choice(codes))
        assert (searcher.mg, searcher.eg, searcher.ph) == searcher.et.board_terms(searcher.pos)
        assert searcher.pk == searcher.et.pawn_key(searcher.pos)
    while saved:
        searcher._pop(saved.pop())


def test_s_chess_values_its_reserve_in_hand() -> None:
    """Gating a piece in is not a free gain of material: the reserve counts in the hand."""
    variant = example("s-chess")
    start = Position.start(variant)
    searcher = Searcher(start)
    assert abs(searcher.static() - searcher.et.evaluate(start)) == 0
    assert any(start.hands[0])
