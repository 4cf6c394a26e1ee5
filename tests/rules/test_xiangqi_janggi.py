"""Xiangqi and Janggi (issue 27): the games Fairy-Stockfish calls xiangqi, minixiangqi,
manchu, janggi, janggicasual, janggimodern and janggitraditional, their rules as data (facing
Generals, passing, bikjang, material points, perpetual check, repeated moves, the Janggi
Cannon) and their notations. Every count and result below is pyffish 0.0.90's for the same
moves (Debian's fairy-stockfish 11.1 agrees on every perft count)."""

from __future__ import annotations

import pytest

from rules import Game
from rules.errors import AmbiguousMoveError, IllegalMoveError
from rules.notation import coordinates, format_code, parse
from rules.outcome import Outcome, Termination
from rules.perft import perft
from rules.position import Position
from rules.summary import rules_summary
from rules.variant import load_definition, load_variant

START = [
    ("xiangqi", 2, 1920),
    ("minixiangqi", 3, 6664),
    ("manchu", 3, 17648),
    ("janggi", 3, 33000),  # 33,316 without bikjang: the 316 end the game
    ("janggicasual", 2, 1024),
    ("janggimodern", 2, 1024),
    ("janggitraditional", 2, 1024),
]

# (variant, moves from the start in Fairy-Stockfish's UCI form, perft 1, perft 2)
RANDOM = [
    ("xiangqi", "i4i5 h8g8 b3a3 b8b6 h3h4 b6b5 e1e2 g8f8 a3b3 b5b9", 45, 2052),
    ("xiangqi", "h1i3 b8b6 g1e3 h8f8 i4i5 f8a8 b1c3 b6c6", 41, 1455),
    (
        "xiangqi",
        "c1a3 c10e8 b3c3 b10c8 b1d2 c8b10 h3h5 e8c10 c4c5 e10e9 g1e3 b8b6 d2c4 b6d6 h5h6 "
        "b10c8 c3b3 h8i8 f1e2 e9f9 a3c1 g7g6 c5c6 a10a8 h6h4 i8g8 c1a3 c8e9 h4h3 e9d7 h3g3 "
        "d6d5 i4i5 g8c8 b3b4 c8b8 e3g5 d5b5",
        39,
        1582,
    ),
    ("xiangqi", "c1e3 b8d8 h3h10 h8i8 h10h9 c7c6 a1a2 b10a8 b3c3", 36, 1752),
    ("minixiangqi", "f1f4 b7b4 f4e4 f7f3 g2g3 d6d5 b1b2 e6f6", 20, 571),
    (
        "minixiangqi",
        "b1b3 f7f4 b3c3 f4g4 a2a3 g7f7 f1f6 g4b4 a3a4 b4b5 c3f3 g6g5 a4b4 b7b4 f3f1 a6b6 a1a7",
        23,
        498,
    ),
    ("minixiangqi", "g2g3 a6a5 d2d3 b7b5 f1f2 e6e5 f2f4 f7f6 b1b3 a5a4 b3a3 b5b7 g1f1 b7b3 "
     "d3e3", 29, 696),
    ("janggi", "e2e3 g7h7 c4c5 h10g8 h1g3 b10a8 f1e1 h8e8", 35, 1290),
    ("janggi", "e4e5 a10a9 g1e4 d10d9 e4b6 b10a8 a4a5 e9e10", 39, 1202),
    ("janggi", "e2d3 g7h7 e4e5 a7a6 i4h4 b10a8 c4c5 i10i8 c5b5 e9d9 e5d5 a10b10 b5a5 "
     "h7h6", 39, 1070),
    (
        "janggi",
        "g4f4 c7d7 d1d2 d10d9 a4a5 a7a6 c4c5 i10i8 e2f3 d9d8 f1e1 f10f9 h1g3 d7d6 e1f1 e7d7 "
        "f1e1 a6b6 b1a3 i8i9 g3h5 e9f10 a3b5 g7f7 f4f5 a10a5 i4h4 f7e7 e1f1 a5a9 i1h1 b8g8 "
        "h5g7 g8g6 c5d5 i9i10 g7e6 a9b9",
        50,
        1724,
    ),
    ("janggimodern", "e2d3 g7h7 e4e5 a7a6 i4h4 b10a8 c4c5 i10i8 c5b5 e9d9 h3h7 a10b10 "
     "b3h3 f10e9", 42, 1200),
]  # fmt: skip


@pytest.mark.parametrize(("variant", "depth", "count"), START)
def test_perft_from_the_start(variant: str, depth: int, count: int) -> None:
    assert perft(Position.start(variant), depth) == count


@pytest.mark.parametrize(("variant", "moves", "p1", "p2"), RANDOM)
def test_perft_after_random_plies(variant: str, moves: str, p1: int, p2: int) -> None:
    pos = Game.replay(variant, (), moves.split()).position
    assert (perft(pos, 1), perft(pos, 2)) == (p1, p2)


def _legal(variant: str, text: str) -> list[str]:
    pos = Game.from_position_text(variant, text).position
    return sorted(coordinates(pos, c) for c in pos.legal_codes())


def test_the_janggi_cannon_neither_jumps_over_nor_takes_a_cannon() -> None:
    # Its only screen on the third rank is a Cannon: no move along it (and none elsewhere).
    assert _legal("janggi", "4k4/9/9/9/9/9/9/1C1c1p3/9/4K4 w - - 0 1") == ["e1d1", "e1e1", "e1f1"]
    # Over the Soldier to e3, but the Cannon beyond blocks and is not taken.
    assert "b3e3" in _legal("janggi", "4k4/9/9/9/9/9/9/1C1p1c3/9/4K4 w - - 0 1")
    assert "b3f3" not in _legal("janggi", "4k4/9/9/9/9/9/9/1C1p1c3/9/4K4 w - - 0 1")


def test_bikjang_must_be_parted_or_answered_by_a_pass() -> None:
    # The Generals face each other on the d-file and nothing can step between: pass only.
    assert _legal("janggi", "3k5/4c4/9/9/9/9/9/9/4C4/3KR4 w - - 0 1") == ["d1d1"]
    assert len(_legal("janggicasual", "3k5/4c4/9/9/9/9/9/9/4C4/3KR4 w - - 0 1")) > 1


def _ended(variant: str, moves: str, start: str | None = None) -> str | None:
    game = Game.new(variant) if start is None else Game.from_position_text(variant, start)
    for m in moves.split():
        game.play(m)
    outcome = game.outcome()
    return outcome.result_text if outcome else None


CYCLE = "a1a2 a10a9 a2a1 a9a10 a1a2 a10a9 a2a1 a9a10"


@pytest.mark.parametrize(
    ("variant", "moves", "result"),
    [
        ("janggi", "e4d4 e7d7 e2e2", "black wins on points after bikjang"),
        ("janggi", "e2e2 e9e9", "black wins on points after both sides passed"),
        ("janggi", CYCLE, "black wins on points after repetition"),
        ("janggitraditional", "e4d4 e7d7 e2e2", "draw by bikjang"),
        ("janggitraditional", "e2e2 e9e9", "draw: both sides passed"),
        ("janggicasual", "e4d4 e7d7 e2e2", None),
        ("janggicasual", "e4d4 e7d7 e2e2 e9e9", "draw: both sides passed"),
        ("janggicasual", CYCLE, "draw by repetition"),
        ("janggimodern", "e4d4 e7d7 e2e2 e9e9", "black wins on points after both sides passed"),
        ("janggimodern", CYCLE, None),
        ("janggimodern", CYCLE + " a1a2", "black wins: white repeated a move"),
    ],
)  # fmt: skip
def test_janggi_endings_as_fairy_stockfish(variant: str, moves: str, result: str | None) -> None:
    assert _ended(variant, moves) == result


def test_xiangqi_perpetual_check_loses_and_stalemate_loses() -> None:
    checks = "i9i10 d10d9 i10i9 d9d10 i9i10 d10d9 i10i9 d9d10"
    start = "3k5/8R/9/9/9/9/9/9/9/4K4 w - - 0 1"
    assert _ended("xiangqi", checks[:-5], start) is None
    assert _ended("xiangqi", checks, start) == "black wins: white gave perpetual check"
    assert _ended("xiangqi", "", "3k5/2R6/9/9/9/9/9/9/9/4K4 b - - 0 1") == "white wins by stalemate"


# Chases found in random Xiangqi games and ended as pyffish 0.0.90 ends them.
CHASES = [
    (
        "1h1k5/9/9/9/9/9/9/9/9/1R2K4 b - - 0 1",
        "b10c8 b1c1 c8b10 c1b1 b10c8 b1c1 c8b10 c1b1",
        "black wins: white chased perpetually",
    ),
    (
        "4k4/4a1r2/9/4p3H/9/3R2E2/9/9/3K5/5h3 w - - 0 1",
        "d2d3 g9g5 d5f5 g5g9 f5f10 e9f10 i7g6 f10e9 g6i7 g9g7 i7g6 g7g9 g6i7 g9g7 i7h9 g7g9 h9i7",
        "white wins: black chased perpetually",
    ),
    (
        "2P6/9/3k5/9/p2H1c3/3H5/9/4p4/3K5/2E3h2 w - - 0 1",
        "d6f5 f6g6 f5h4 g6f6 d2d1 f6g6 h4f5 g6f6 c1e3 f6g6 f5e7 g6f6 e7g8 f6g6 g8i7 "
        "g6f6 i7h5 f6g6 h5i7 g6f6 i7g8 f6g6 g8i7",
        "black wins: white chased perpetually",
    ),
    (
        "4ka2H/9/9/5C3/9/1P7/2c6/4EA3/5R3/3K5 w - - 0 1",
        "f2e2 c4e4 e2f2 e4f4 f2e2 f4e4 e2f2 e4f4 f2e2 f4e4",
        "white wins: black chased perpetually",
    ),
    (
        "9/5k3/9/9/1c7/P4P3/9/1H7/2p1K4/9 w - - 0 1",
        "e2e3 b6e6 b3c5 e6b6 c5d7 b6e6 d7c5 e6b6 c5d7 b6b3 d7c5 b3b6",
        "black wins: white chased perpetually",
    ),
    (
        "6R2/4hk3/3a4e/8r/9/1p7/5P3/9/3A5/3KR4 w - - 0 1",
        "g10g9 f9f10 g9g10 f10f9 g10g9 f9f10 g9g10 f10f9",
        "black wins: white gave perpetual check",
    ),
]


@pytest.mark.parametrize(("start", "moves", "result"), CHASES)
def test_xiangqi_perpetual_chasing_loses(start: str, moves: str, result: str) -> None:
    assert _ended("xiangqi", moves.rsplit(" ", 1)[0], start) is None
    assert _ended("xiangqi", moves, start) == result


def test_manchu_repetitions_are_drawn_without_the_chasing_rule() -> None:
    start = "1h1k5/9/9/9/9/9/9/9/9/1R2K4 b - - 0 1"
    assert _ended("manchu", CHASES[0][1], start) == "draw by repetition"


def test_a_pass_is_written_pass_and_read_in_every_form() -> None:
    game = Game.new("janggi")
    pos = game.position
    for text in ("pass", "PASS", "e2e2", "K95-95", "0000"):
        assert format_code(pos, parse(pos, text).code) == "pass"
    assert game.play("pass").coordinates == "e2e2"
    with pytest.raises(IllegalMoveError, match="no passing in Xiangqi"):
        Game.new("xiangqi").play("pass")


def test_flying_general_pins_the_piece_between() -> None:
    text = 'id = "f"\nname = "F"\nextends = "chess"\n[rules]\nflying-general = true\n'
    game = Game.from_position_text(load_definition(text), "r3k3/8/8/8/4N3/8/8/R3K3 w - - 0 1")
    assert not [m for m in game.legal_moves() if m.notation.startswith("N")]


# Fairy-Stockfish's NOTATION_XIANGQI_WXF and NOTATION_JANGGI for the same moves.
WXF = [
    ("xiangqi", "", "b1c3", "H8+7"),
    ("xiangqi", "", "h3e3", "C2=5"),
    ("xiangqi", "h3e3", "h8e8", "C8=5"),
    ("xiangqi", "", "a1a3", "R9+2"),
    ("xiangqi", "", "e1e2", "K5+1"),
    ("minixiangqi", "", "a2b2", "P7=6"),
]
TANDEM = "3k5/9/9/9/9/4R4/9/4R4/9/4K4 w - - 0 1"
PAWNS = "3k5/9/9/4p4/4p4/4p4/9/9/9/3K5 b - - 0 1"
PAIRS = "3k5/9/9/2P1P4/2P1P4/9/9/9/9/3K5 w - - 0 1"


@pytest.mark.parametrize(("variant", "before", "uci", "text"), WXF)
def test_wxf_as_fairy_stockfish_writes_it(variant: str, before: str, uci: str, text: str) -> None:
    pos = Game.replay(variant, (), before.split()).position
    code = parse(pos, uci).code
    assert format_code(pos, code) == text
    assert parse(pos, text).code == code
    assert parse(pos, text.replace("=", ".").lower()).code == code


@pytest.mark.parametrize(
    ("start", "uci", "text", "also"),
    [
        (TANDEM, "e5e10", "R++5", ["+R+5"]),
        (TANDEM, "e3e2", "R--1", ["-R-1"]),
        (TANDEM, "e3a3", "R-=9", ["-R.9"]),
        (PAWNS, "e5d5", "15=4", ["P+=4", "P+.4", "+P=4", "5+=4"]),
        (PAIRS, "c6d6", "27=6", []),
        (PAIRS, "e7d7", "15=6", ["5+=6"]),
    ],
)
def test_wxf_tandem_pieces(start: str, uci: str, text: str, also: list[str]) -> None:
    pos = Game.from_position_text("xiangqi", start).position
    code = parse(pos, uci).code
    assert format_code(pos, code) == text
    for spelling in [text, *also]:
        assert parse(pos, spelling).code == code


def test_wxf_refusals_say_what_the_piece_can_do() -> None:
    pos = Position.start("xiangqi")
    with pytest.raises(
        IllegalMoveError, match=r"no Cannon move reads C2\+8; the Cannons can play C2=3"
    ):
        parse(pos, "C2+8")
    tandem = Game.from_position_text("xiangqi", TANDEM).position
    with pytest.raises(AmbiguousMoveError, match="R\\+=9 or R-=9"):
        parse(tandem, "R5=9")


def test_janggi_notation_as_fairy_stockfish_writes_it() -> None:
    pos = Position.start("janggi")
    assert format_code(pos, parse(pos, "b1c3").code) == "H02-83"
    assert format_code(pos, parse(pos, "a4b4").code) == "P71-72"
    assert parse(pos, "H02-83").code == parse(pos, "b1c3").code
    assert format_code(pos, parse(pos, "a4a5").code) == "P71-61"


def test_rules_summaries_name_the_new_rules() -> None:
    janggi = rules_summary(load_variant("janggi"))
    points = "Chariot 13, Cannon 7, Horse 5, Elephant 3, Guard 3, Soldier 2; Black gets 1.5 more"
    assert f"Points: {points}." in janggi
    assert "Cannon: never captures a Cannon." in janggi
    xiangqi = rules_summary(load_variant("xiangqi"))
    assert any("may never face each other" in line for line in xiangqi)
    assert any("gave check on every one of its moves" in line for line in xiangqi)


@pytest.mark.parametrize(
    "outcome",
    [
        Outcome(Termination.PERPETUAL_CHECK, 1),
        Outcome(Termination.MOVE_REPETITION, 0),
        Outcome(Termination.BIKJANG, None),
        Outcome(Termination.BIKJANG, 1),
        Outcome(Termination.PASSES, None),
        Outcome(Termination.PASSES, 0),
        Outcome(Termination.REPETITION, 1),
        Outcome(Termination.MOVE_RULE, 0, 50),
        Outcome(Termination.STALEMATE, 1),
    ],
)
def test_new_results_read_back(outcome: Outcome) -> None:
    assert Outcome.from_text(outcome.result_text) == outcome


def test_a_copy_remembers_the_passes_before_it() -> None:
    """The search plays from a copy of the game's position (no undo stack): after a pass
    the copy's pass ends the game, and after two passes the copy is over already, as the
    game is (found by hypothesis: a search gave a move in a game both sides had passed)."""
    game = Game.new("janggi")
    game.play("pass")
    copy = game.position.copy()
    assert copy.decided() is None
    copy.push_code(parse(copy, "pass").code)
    assert copy.decided() == Outcome(Termination.PASSES, copy.points_winner())
    game.play("pass")
    assert game.outcome() is not None
    ended = game.position.copy()
    assert ended.decided() == game.position.decided()
    assert ended.legal_codes() == [] or ended.decided() is not None
