"""Wall squares (`[setup] walls`) and petrification (`[rules] petrify`): walls block every
walk for both sides, are never captured, screen hoppers, survive blasts, read and write as
`*`, and are drawn; a petrifying capture leaves a wall and its undo takes it back."""

from __future__ import annotations

import random

import pytest

from renderer.board import WALL_FILL, draw_board, layout_for
from renderer.from_rules import board_view, render_position
from rules import ini
from rules.errors import PositionTextError, VariantError
from rules.fsf import fen, uci_moves
from rules.game import Game
from rules.position import Position
from rules.postext import format_position, parse_position
from rules.summary import rules_summary
from rules.variant import Variant, load_definition
from tests.rules.test_staged import check_stages

PILLARS = """
id = "pillars-test"
name = "Pillars"
description = "Chess with four walls in the middle and Cannons for Bishops."
files = 8
ranks = 8

[pieces]
pawn = { letter = "", double-step = "initial", promotion = { to = ["queen", "cannon"] } }
knight = "N"
rook = "R"
queen = "Q"
cannon = "C"
king = { letter = "K", royal = true }

[setup]
1 = "R N C Q K C N R"
2 = "P P P P P P P P"
walls = ["c4", "f4", "c5", "f5"]

[rules]
en-passant = { capturers = ["pawn"], victims = ["pawn"] }
"""

STONE = """
id = "stone-test"
name = "Stone"
description = "Six by six: a capturing Pawn or Queen turns into a wall."
files = 6
ranks = 6

[pieces]
pawn = { letter = "", promotion = { to = ["queen", "rook", "knight"], compulsory-rows = [6] } }
knight = "N"
rook = "R"
queen = "Q"
king = { letter = "K", royal = true }

[setup]
1 = "R N Q K N R"
2 = "P P P P P P"

[rules]
petrify = ["pawn", "queen"]
"""


def variant(text: str) -> Variant:
    return load_definition(text, source="test")


def moves_from(pos: Position, square: str) -> set[str]:
    return {m for m in uci_moves(pos) if m.startswith(square)}


def test_walls_block_riders_and_are_never_captured() -> None:
    pos = parse_position(variant(PILLARS), "4k3/8/8/8/R1*4K/8/8/8 w - - 0 1")
    assert moves_from(pos, "a4") == {
        f"a4{s}" for s in ("a1", "a2", "a3", "a5", "a6", "a7", "a8", "b4")
    }
    black = parse_position(variant(PILLARS), "4k3/8/8/8/r1*4K/8/8/8 b - - 0 1")
    assert "a4c4" not in moves_from(black, "a4")  # nor for Black (the wall's odd code)
    assert black.is_wall(black.t.geo.parse("c4") or 0)
    assert black.piece_at(black.t.geo.parse("c4") or 0) is None


def test_a_hopper_hops_over_a_wall_and_checks_over_it() -> None:
    pos = parse_position(variant(PILLARS), "4k3/8/8/8/C1*1p2K/8/8/8 w - - 0 1")
    assert "a4e4" in moves_from(pos, "a4")  # the Cannon takes over the wall
    checked = parse_position(variant(PILLARS), "4k3/8/8/4*3/8/8/8/4C2K b - - 0 1")
    assert checked.is_check()  # the wall on e5 screens the Cannon's check


def test_position_text_and_fen_write_walls_as_stars_and_read_them_back() -> None:
    start = Position.start(variant(PILLARS))
    text = format_position(start)
    assert text.split()[0] == "rncqkcnr/pppppppp/8/2*2*2/2*2*2/8/PPPPPPPP/RNCQKCNR"
    assert fen(start).split()[0] == text.split()[0]
    again = parse_position(variant(PILLARS), text)
    assert again.board == start.board and again.hash == start.hash
    with pytest.raises(PositionTextError, match="'\\*' is not a piece"):
        parse_position("chess", "rnbqkbnr/pppppppp/8/3*4/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")


def test_a_petrifying_capture_leaves_a_wall_and_its_undo_takes_it_back() -> None:
    game = Game(variant(STONE))
    for move in ("c2c3", "b5b4", "c3b4"):  # the Pawn takes and turns to stone on b4
        game.play(move)
    pos = game.position
    b4 = pos.t.geo.parse("b4") or 0
    assert pos.is_wall(b4) and pos.walls() == [b4]
    assert format_position(pos).split()[0] == "rnqknr/p1pppp/1*4/6/PP1PPP/RNQKNR"
    fresh = pos.copy()
    fresh.rehash()
    assert fresh.hash == pos.hash  # the incremental hash knows the wall
    pos.pop_code()
    assert not pos.is_wall(b4) and pos.piece_at(b4) is not None and not pos.walls()


def test_a_promotion_capture_petrifies_by_the_type_that_moved() -> None:
    v = variant(STONE.replace('petrify = ["pawn", "queen"]', 'petrify = ["queen"]'))
    game = Game.from_position_text(v, "rn1k2/P5/6/6/6/3K2 w - - 0 1")
    game.play("a5b6q")  # a Pawn promoting with a capture is not a Queen that captures
    assert format_position(game.position).split()[0] == "rQ1k2/6/6/6/6/3K2"


def test_walls_stand_through_blasts() -> None:
    text = """
id = "fallout-test"
name = "Fallout"
description = "Atomic chess whose capturing Queen stands as a wall in the crater."
extends = "atomic"

[rules]
petrify = ["queen"]
"""
    v = variant(text)
    game = Game.from_position_text(v, "4k3/8/8/2*p4/8/8/8/3QK3 w - - 0 1")
    game.play("d1d5")
    assert format_position(game.position).split()[0] == "4k3/8/8/2**4/8/8/8/4K3"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ('walls = ["c4", "f4", "c5", "f5"]', 'walls = ["e2"]'),
        ('walls = ["c4", "f4", "c5", "f5"]', 'walls = ["c4", "c4"]'),
        ('walls = ["c4", "f4", "c5", "f5"]', 'walls = ["z9"]'),
        ('walls = ["c4", "f4", "c5", "f5"]', 'walls = "c4"'),
    ],
)
def test_bad_walls_are_refused_by_name(change: str, message: str) -> None:
    with pytest.raises(VariantError, match=r"setup\.walls"):
        variant(PILLARS.replace(change, message))


def test_a_royal_piece_cannot_petrify() -> None:
    with pytest.raises(VariantError, match="royal"):
        variant(STONE.replace('petrify = ["pawn", "queen"]', 'petrify = ["king"]'))
    with pytest.raises(VariantError, match="unknown piece"):
        variant(STONE.replace('petrify = ["pawn", "queen"]', 'petrify = ["dragon"]'))


@pytest.mark.parametrize("text", [PILLARS, STONE])
def test_staged_generation_agrees_with_the_legal_moves(text: str) -> None:
    v = variant(text)
    rng = random.Random(7)
    for _game in range(6):
        pos = Position.start(v)
        before: list[int] = []
        for _ply in range(60):
            if pos.decided() is not None:
                break
            legal = pos.legal_codes()
            if not legal:
                break
            check_stages(pos, before)
            before = legal
            pos.push_code(rng.choice(legal))
    assert not Position.start(variant(STONE)).t.staged  # petrification: the full list
    assert Position.start(variant(PILLARS)).t.staged  # static walls keep the cheap test


def test_walls_are_drawn_as_dark_squares() -> None:
    pos = Position.start(variant(PILLARS))
    view = board_view(pos)
    assert view.walls == frozenset(pos.walls())
    img = draw_board(view)
    lay = layout_for(view, 0, True, "traditional")
    x0, y0, _x1, _y1 = lay.square_box(pos.walls()[0])
    assert img.getpixel((x0 + 2, y0 + 2)) == WALL_FILL
    assert render_position(pos, perspective=1).startswith(b"\x89PNG")


def test_ini_walls_and_petrification_convert_and_export_back() -> None:
    section = (
        "[walled:chess]\n"
        "startFen = rnbqkbnr/pppppppp/8/3*4/4*3/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"
        "petrifyOnCaptureTypes = rb\n"
    )
    (item,) = ini.convert_ini(section, "walled.ini")
    assert item.toml is not None
    v = load_definition(item.toml, source="walled")
    geo = v.geometry
    assert v.walls == {geo.parse("d5"), geo.parse("e4")}
    assert v.petrify == {"rook", "bishop"}
    out = ini.export_ini(v)
    assert "startFen = rnbqkbnr/pppppppp/8/3*4/4*3/8/PPPPPPPP/RNBQKBNR" in out
    assert "petrifyOnCaptureTypes = br" in out
    (back,) = ini.convert_ini(out, "back.ini")
    assert back.toml is not None
    again = load_definition(back.toml, source="back")
    assert (again.walls, again.petrify) == (v.walls, v.petrify)


def test_ini_refuses_a_petrifying_king() -> None:
    (item,) = ini.convert_ini("[x:chess]\npetrifyOnCaptureTypes = k\n", "x.ini")
    assert item.error is not None and "royal piece (king)" in str(item.error)


def test_the_rules_summary_names_the_walls_and_the_petrifying_pieces() -> None:
    walls = " ".join(rules_summary(variant(PILLARS)))
    assert "Walls stand on c4, f4, c5, f5" in walls
    stone = " ".join(rules_summary(variant(STONE)))
    assert "A capturing Pawn or Queen turns into a wall" in stone


def test_a_petrified_capturer_gives_no_check() -> None:
    pos = parse_position(variant(STONE), "3k2/6/6/3p2/6/3QK1 w - - 0 1")
    assert not pos.gives_check(uci_moves(pos)["d1d3"])  # a Queen on d3 would check d6
    other = parse_position(variant(STONE), "3k2/6/6/3p2/6/2Q1K1 w - - 0 1")
    assert other.gives_check(uci_moves(other)["c1c5"])  # a quiet move still checks
