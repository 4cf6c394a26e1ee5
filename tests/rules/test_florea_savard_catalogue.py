"""Florea's six gating games and Savard's three Bat Chess forms (spec: florea.md, savard.md).

Every mechanism is checked on a position built for it, with its complete list of legal moves
(worked out by hand from the spec, square by square, and compared with the independent
reference generator's); perft against that generator; the sample game records; and random
playouts in all nine variants.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import AmbiguousMoveError, Game, IllegalMoveError, Termination
from rules.errors import GameRecordError, PositionTextError
from rules.notation import coordinates, format_code, parse
from rules.outcome import Outcome
from rules.perft import perft
from rules.position import Position
from rules.postext import format_position, parse_position
from rules.record import format_record, read_record, replay_record
from tests.rules.reference import reference_moves, reference_perft

FLOREA = (
    "frog-manticore",
    "frog-gryphon",
    "hannibal-manticore",
    "hannibal-gryphon",
    "waffle-manticore",
    "waffle-gryphon",
)
BAT = ("leaping-bat", "missing-bat-zebra", "missing-bat-nightrider")
ALL = FLOREA + BAT
GAMES = Path(__file__).resolve().parent / "games"


def fixed_placement(variant: str) -> tuple[str, ...]:
    """The placement used for perft after the placement phase: each side's Falcon behind
    its c-file piece and its bent rider behind its h-file piece."""
    bent = "M" if variant.endswith("manticore") else "G"
    return ("FA@c1", f"{bent}@h1", "FA@c9", f"{bent}@h9")


def board(variant: str, pieces: dict[str, str], side: str = "w", rest: str = "- - 0 1") -> str:
    """A position text from square -> letters (uppercase White, lowercase Black)."""
    files, ranks = (16, 12) if variant in BAT else (10, 9)
    rows = []
    for rank in range(ranks, 0, -1):
        row, empty = "", 0
        for f in range(files):
            token = pieces.get(f"{chr(97 + f)}{rank}")
            if token is None:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            row += f"({token})" if len(token) == 2 else token
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {side} {rest}"


def legal(pos: Position) -> set[str]:
    """Every legal move in coordinates (`e2e4`, `FA@c1`, `O-O(g1)`), checked to be distinct
    and to be the reference generator's list too."""
    out = [coordinates(pos, c) for c in pos.legal_codes()]
    assert len(out) == len(set(out)), "a move is listed twice"
    assert set(out) == reference_moves(pos.variant.id, text=format_position(pos))
    return set(out)


def printed(pos: Position) -> set[str]:
    return {format_code(pos, c) for c in pos.legal_codes()}


def at(variant: str, pieces: dict[str, str], side: str = "w", rest: str = "- - 0 1") -> Position:
    return parse_position(variant, board(variant, pieces, side, rest))


def moves_from(origin: str, *targets: str) -> set[str]:
    return {origin + t for t in targets}


# ---------------------------------------------------------------------------- the Falcon

FALCON_E5 = ["b3", "b4", "b6", "b7", "c2", "c8", "d2", "d8"]
FALCON_E5 += ["f2", "f8", "g2", "g8", "h3", "h4", "h6", "h7"]


def test_falcon_reaches_its_sixteen_camel_and_zebra_squares() -> None:
    pos = at("frog-gryphon", {"e5": "FA", "a1": "K", "j9": "k"})
    assert legal(pos) == moves_from("e5", *FALCON_E5) | moves_from("a1", "a2", "b1", "b2")
    # It checks the King on j9 from g8 (3,1) and h6 (2,3), along open paths.
    assert {m for m in printed(pos) if m.endswith("+")} == {"FAe5-g8+", "FAe5-h6+"}


# Blockers (pieces of either side) on intermediate squares, and whether the Falcon on e5
# still reaches the target. Paths to f8 (1,3): e6 e7 | e6 f7 | f6 f7. To g8 (2,3):
# f6 g7 | f6 f7 | e6 f7. To b4 (-3,-1): d5 c5 | d5 c4 | d4 c4.
FALCON_PATHS = [
    ("f8", [], True),
    ("f8", ["e6"], True),
    ("f8", ["f7"], True),
    ("f8", ["e7", "f6"], True),
    ("f8", ["f6", "f7"], True),
    ("f8", ["e6", "e7"], True),
    ("f8", ["e6", "f6"], False),
    ("f8", ["e7", "f7"], False),
    ("f8", ["e6", "f7"], False),  # the zig-zag f6, e7 stays open but is not a path
    ("g8", ["f6"], True),
    ("g8", ["f7"], True),
    ("g8", ["e6", "g7"], True),
    ("g8", ["f6", "g7"], True),
    ("g8", ["f6", "f7"], False),
    ("g8", ["e6", "f6"], False),
    ("g8", ["f7", "g7"], False),
    ("b4", ["d5"], True),
    ("b4", ["c4"], True),
    ("b4", ["d5", "d4"], False),
    ("b4", ["c5", "c4"], False),
]


@pytest.mark.parametrize(("target", "blockers", "reaches"), FALCON_PATHS)
def test_falcon_is_blocked_only_when_all_three_paths_are(
    target: str, blockers: list[str], reaches: bool
) -> None:
    pieces = {"e5": "FA", "a1": "K", "j9": "k"}
    for i, sq in enumerate(blockers):
        pieces[sq] = "N" if i % 2 == 0 else "n"
    pos = at("frog-gryphon", pieces)
    assert ("e5" + target in legal(pos)) is reaches
    for sq in blockers:  # it captures only on its destination
        assert "e5" + sq not in legal(pos)


def test_falcon_check_may_need_two_interpositions() -> None:
    # The Falcon on e5 checks f8 along all three paths: no single Rook move parries.
    pieces = {"f8": "k", "a6": "r", "a7": "r", "e5": "FA", "j1": "K"}
    pos = at("frog-gryphon", pieces, "b")
    king = moves_from("f8", "e7", "e8", "e9", "f7", "f9", "g7", "g9")  # g8 is attacked
    assert legal(pos) == king
    # With the path f6-f7 shut by a White Pawn, Ra6-e6 closes the other two; Ra7-e7 or
    # Ra7-f7 close only one of them, and Ra6xf6 just replaces the blocker.
    pieces["f6"] = "P"
    pos = at("frog-gryphon", pieces, "b")
    assert legal(pos) == {"a6e6"} | moves_from("f8", "e8", "e9", "f7", "f9", "g9")


# ------------------------------------------------------------------ Gryphon and Manticore


def test_gryphon_steps_diagonally_then_slides_outward() -> None:
    pieces = {"d4": "G", "e5": "P", "g3": "P", "c5": "p", "b3": "n", "j1": "K", "j9": "k"}
    pos = at("frog-gryphon", pieces)
    gryphon = moves_from("d4", "c5", "c3", "b3", "c2", "c1", "e3", "f3", "e2", "e1")
    assert legal(pos) == gryphon | {"e5e6", "g3g4"} | moves_from("j1", "i1", "i2", "j2")
    assert {"Gd4xc5", "Gd4xb3", "Gd4-f3"} <= printed(pos)


def test_manticore_steps_orthogonally_then_slides_diagonally_outward() -> None:
    pieces = {"e4": "M", "g5": "P", "h2": "r", "d4": "b", "j1": "K", "a5": "k"}
    pos = at("hannibal-manticore", pieces)
    north = ["e5", "f6", "g7", "h8", "i9", "d6", "c7", "b8", "a9"]
    south = ["e3", "f2", "g1", "d2", "c1"]
    east = ["f4", "g3", "h2"]  # g5 holds its own Pawn
    west = ["d4"]  # a capture on the first step ends the path
    manticore = moves_from("e4", *north, *south, *east, *west)
    assert legal(pos) == manticore | {"g5g6", "j1i1"}


# ------------------------------------------------------------------------ placement phase

BACK_RANK = ["a1", "b1", "c1", "d1", "e1", "g1", "h1", "i1", "j1"]  # f1 holds the King


def test_placement_phase_white_twice_then_black_twice() -> None:
    game = Game.new("hannibal-manticore")
    pos = game.position
    assert pos.placing and game.side_to_move == 0
    assert legal(pos) == {f"{p}@{sq}" for p in ("FA", "M") for sq in BACK_RANK}
    assert game.play("FA@c1").notation == "FA@c1"
    # White again, the other piece, on the eight squares left.
    assert game.side_to_move == 0
    assert legal(pos) == {f"M@{sq}" for sq in BACK_RANK if sq != "c1"}
    game.play("M@h1")
    assert game.side_to_move == 1
    black = [sq.replace("1", "9") for sq in BACK_RANK]
    assert legal(pos) == {f"{p}@{sq}" for p in ("FA", "M") for sq in black}
    game.play("M@g9")
    assert legal(pos) == {f"FA@{sq}" for sq in black if sq != "g9"}
    game.play("FA@d9")
    assert not pos.placing and game.side_to_move == 0 and pos.fullmove == 1
    assert pos.halfmove == 0
    assert "e2e4" in legal(pos)
    assert game.position_text.endswith("w KQkq - 0 1 gates:FA@c1,M@h1,fa@d9,m@g9")


@pytest.mark.parametrize(
    ("moves", "text", "reason"),
    [
        ([], "FA@f1", "other than the King"),
        ([], "FA@c2", "behind your back rank"),
        ([], "FA@c9", "behind your back rank"),
        ([], "G@c1", "not one of your reserve pieces"),
        (["FA@c1"], "M@c1", "already waits behind c1"),
        (["FA@c1"], "FA@d1", "not one of your reserve pieces"),
        ([], "e2e4", "placement phase"),
        (["FA@c1", "M@h1", "FA@c9", "M@h9"], "FA@d1", "placement phase is over"),
    ],
)
def test_placement_refusals(moves: list[str], text: str, reason: str) -> None:
    game = Game.replay("hannibal-manticore", (), moves)
    before = game.position_text
    with pytest.raises(IllegalMoveError if "@" in text else ValueError, match=reason):
        game.play(text)
    assert game.position_text == before


def test_placement_order_transposes_and_is_part_of_the_hash() -> None:
    a = Game.replay("frog-gryphon", (), ["FA@c1", "G@h1"])
    b = Game.replay("frog-gryphon", (), ["G@h1", "FA@c1"])
    c = Game.replay("frog-gryphon", (), ["G@c1", "FA@h1"])
    assert a.position_text == b.position_text != c.position_text
    assert a.position.hash == b.position.hash != c.position.hash


def test_placement_states_round_trip_through_position_text() -> None:
    game = Game.new("waffle-gryphon")
    texts = [game.position_text]
    for move in ("G@b1", "FA@j1", "FA@i9", "G@a9"):
        game.play(move)
        texts.append(game.position_text)
    assert texts[0].endswith(" w KQkq - 0 1 reserve:FA,G,fa,g gates:-")
    assert texts[1].endswith(" w KQkq - 0 1 reserve:FA,fa,g gates:G@b1")
    assert texts[2].endswith(" b KQkq - 0 1 reserve:fa,g gates:G@b1,FA@j1")
    assert texts[3].endswith(" b KQkq - 0 1 reserve:g gates:G@b1,FA@j1,fa@i9")
    assert texts[4].endswith(" w KQkq - 0 1 gates:G@b1,FA@j1,g@a9,fa@i9")
    replayed = Game.new("waffle-gryphon")
    for i, text in enumerate(texts):
        pos = parse_position("waffle-gryphon", text)
        assert format_position(pos) == text
        assert pos.hash == replayed.position.hash
        assert legal(pos) == legal(replayed.position)
        if i < 4:
            replayed.play(("G@b1", "FA@j1", "FA@i9", "G@a9")[i])


@pytest.mark.parametrize(
    "text",
    [
        # Black to place while White still has a reserve piece.
        "rwnbqkbnwr/pppppppppp/10/10/10/10/10/PPPPPPPPPP/RWNBQKBNWR b KQkq - 0 1 "
        "reserve:FA,G,fa,g gates:-",
        # Black placed before White finished.
        "rwnbqkbnwr/pppppppppp/10/10/10/10/10/PPPPPPPPPP/RWNBQKBNWR w KQkq - 0 1 "
        "reserve:G,g gates:FA@c1,fa@c9",
        # Three reserve pieces for White.
        "rwnbqkbnwr/pppppppppp/10/10/10/10/10/PPPPPPPPPP/RWNBQKBNWR w KQkq - 0 1 "
        "reserve:FA,G,fa,g gates:FA@c1",
        # A reserve piece behind the King.
        "rwnbqkbnwr/pppppppppp/10/10/10/10/10/PPPPPPPPPP/RWNBQKBNWR w KQkq - 0 1 gates:FA@f1",
    ],
)
def test_impossible_reserve_states_are_refused(text: str) -> None:
    with pytest.raises(PositionTextError):
        parse_position("waffle-gryphon", text)


# ------------------------------------------------------------------------------- gating


def placed(variant: str, *moves: str) -> Game:
    return Game.replay(variant, (), ["FA@b1", "G@j1", "FA@b9", "G@j9", *moves])


def test_gating_on_a_normal_move() -> None:
    game = placed("frog-gryphon")
    assert game.play("Nb1-c3").notation == "Nb1-c3/FA"
    assert game.position_text == (
        "rnb(fr)qk(fr)bnr/pppppppppp/10/10/10/10/2N7/PPPPPPPPPP/R(FA)B(FR)QK(FR)BNR "
        "b KQkq - 1 1 gates:G@j1,fa@b9,g@j9"
    )
    # The Falcon is an ordinary piece from now on; nothing more enters on b1.
    game.play("a8-a6")
    game.play("b2-b4")  # opens the Falcon's path b2-a3 to a4
    game.play("a6-a5")
    assert game.play("FAb1-a4").notation == "FAb1-a4"
    assert game.position_text.endswith(" b KQkq - 1 3 gates:G@j1,fa@b9,g@j9")


def test_gating_suffix_is_optional_on_input_but_must_be_right() -> None:
    game = placed("frog-gryphon")
    for text in ("b1c3", "Nb1-c3", "Nb1-c3/FA", "Nb1c3/FA"):
        assert parse(game.position, text).move.origin is not None
    with pytest.raises(IllegalMoveError, match="the piece that enters is FA, not G"):
        game.play("Nb1-c3/G")
    with pytest.raises(IllegalMoveError, match="no reserve piece enters"):
        game.play("Ni1-h3/FA")


def test_gating_on_a_capture() -> None:
    pieces = {"f1": "K", "b1": "N", "c3": "p", "f9": "k"}
    pos = at("frog-gryphon", pieces, rest="- - 0 1 gates:FA@b1")
    game = Game(pos.variant, pos)
    assert game.play("b1c3").notation == "Nb1xc3/FA"
    assert game.position_text.startswith("5k4/10/10/10/10/10/2N7/10/1(FA)3K4 b ")
    assert game.position_text.endswith(" gates:-")


def test_gating_on_castling_behind_the_rook() -> None:
    pieces = {"a1": "R", "f1": "K", "j1": "R", "g9": "k", "e9": "r"}
    pos = at("frog-gryphon", pieces, rest="KQ - 0 1 gates:G@j1,FA@a1")
    castles = {m for m in printed(pos) if m.startswith("O-O")}
    assert castles == {
        "O-O(g1)/G",
        "O-O(h1)/G",
        "O-O(i1)/G",
        "O-O-O(b1)/FA",
        "O-O-O(c1)/FA",
        "O-O-O(d1)/FA",
        # O-O-O(e1): e1 is attacked by the Rook on e9.
    }
    game = Game(pos.variant, pos)
    assert game.play("O-O(h1)").notation == "O-O(h1)/G"
    assert game.position_text == "4r1k3/10/10/10/10/10/10/10/R4R1K1G b - - 1 1 gates:FA@a1"


def test_reserve_piece_is_lost_when_its_front_piece_is_captured_at_home() -> None:
    pieces = {"f1": "K", "b1": "N", "c3": "n", "f9": "k", "h1": "B"}
    pos = at("hannibal-gryphon", pieces, "b", "- - 0 1 gates:FA@b1,G@h1")
    game = Game(pos.variant, pos)
    assert game.play("c3xb1").notation == "Nc3xb1"
    assert game.position_text.endswith(" w - - 0 2 gates:G@h1")
    # Nothing ever enters b1 again, whatever comes and goes there.
    game.play("Kf1-e2")
    game.play("Nb1-c3")
    assert game.position_text.startswith("5k4/10/10/10/10/10/2n7/4K5/7B2 w ")


def test_the_entering_piece_may_shield_its_king() -> None:
    # The Bishop on g1 is pinned by the Rook on i1, but the Falcon entering g1 takes
    # over the pin: every Bishop move is legal, and only with the gate.
    pieces = {"f1": "K", "g1": "B", "i1": "r", "f9": "k"}
    king = moves_from("f1", "e1", "e2", "f2", "g2")
    bishop = moves_from("g1", "f2", "e3", "d4", "c5", "b6", "a7", "h2", "i3", "j4")
    gated = at("frog-gryphon", pieces, rest="- - 0 1 gates:FA@g1")
    assert legal(gated) == king | bishop
    assert "Bg1-h2/FA" in printed(gated)
    assert legal(at("frog-gryphon", pieces, rest="- - 0 1 gates:-")) == king


def test_the_entering_piece_may_give_check() -> None:
    pieces = {"f1": "K", "h1": "B", "i5": "k"}
    pos = at("frog-gryphon", pieces, rest="- - 0 1 gates:G@h1")
    assert "Bh1-g2/G+" in printed(pos)  # the Gryphon: h1, i2, then up the i-file


# ------------------------------------------------------------------------ fast castling


def test_fast_castling_to_every_safe_empty_square_between_king_and_rook() -> None:
    # b1 and h1 are occupied (jumped over when the King goes beyond), d1 is attacked.
    pieces = {"a1": "R", "b1": "N", "f1": "K", "h1": "B", "j1": "R", "d9": "r", "f9": "k"}
    pos = at("frog-gryphon", pieces, rest="KQ - 0 1 gates:-")
    king = {m for m in legal(pos) if m.startswith(("f1", "O-O"))}
    assert king == {
        "O-O-O(c1)",
        "O-O-O(e1)",
        "O-O(g1)",
        "O-O(i1)",
        *moves_from("f1", "e1", "e2", "f2", "g1", "g2"),
    }
    game = Game(pos.variant, pos)
    assert game.play("O-O(i1)").notation == "O-O(i1)+"  # the Rook checks from f1
    assert game.position_text == "3r1k4/10/10/10/10/10/10/10/RN3R1BK1 b - - 1 1 gates:-"


def test_fast_castling_notation() -> None:
    pieces = {"a1": "R", "b1": "N", "f1": "K", "h1": "B", "j1": "R", "d9": "r", "f9": "k"}
    pos = at("frog-gryphon", pieces, rest="KQ - 0 1 gates:-")
    read = {
        text: coordinates(pos, parse(pos, text).code)
        for text in (
            "O-O(g1)",
            "0-0(g1)",
            "f1g1",
            "Kf1-g1",
            "f1i1",
            "Kf1-i1",
            "O-O-O(c1)",
            "Kf1-c1",
        )
    }
    assert read == {
        "O-O(g1)": "O-O(g1)",
        "0-0(g1)": "O-O(g1)",
        "f1g1": "f1g1",  # the King's ordinary step
        "Kf1-g1": "f1g1",
        "f1i1": "O-O(i1)",
        "Kf1-i1": "O-O(i1)",
        "O-O-O(c1)": "O-O-O(c1)",
        "Kf1-c1": "O-O-O(c1)",
    }
    with pytest.raises(AmbiguousMoveError, match=r"say where the King goes: O-O\(g1\), O-O\(i1\)"):
        parse(pos, "O-O")
    with pytest.raises(IllegalMoveError, match="d1: that square is attacked"):
        parse(pos, "O-O-O(d1)")
    with pytest.raises(IllegalMoveError, match="h1 is occupied"):
        parse(pos, "O-O(h1)")


def test_fast_castling_destination_is_tested_without_the_king() -> None:
    # The Black Falcon on h2 reaches e1 only through f1 (g2 and f2 hold Pawns): the
    # King shields e1 from where it stands, so e1 fails the safe-square test (§4.3)
    # though the castled Rook would stand on f1.
    pieces = {"a1": "R", "f1": "K", "j1": "R", "f2": "P", "g2": "P", "h2": "fa", "f9": "k"}
    pos = at("hannibal-gryphon", pieces, rest="KQ - 0 1 gates:-")
    king = {m for m in legal(pos) if m.startswith(("f1", "O-O"))}
    assert king == {
        "O-O-O(b1)",
        "O-O-O(c1)",
        "O-O-O(d1)",
        "O-O(g1)",
        "O-O(h1)",
        "O-O(i1)",
        "f1e2",
        "f1g1",
    }


@pytest.mark.parametrize(
    ("pieces", "rights", "castles"),
    [
        # In check from the Rook on f8: no castling at all.
        ({"a1": "R", "f1": "K", "j1": "R", "f8": "r", "h9": "k"}, "KQ", set()),
        # The a-Rook has moved (no Q right): only O-O.
        ({"a1": "R", "f1": "K", "j1": "R", "f9": "k"}, "K", {"O-O(g1)", "O-O(h1)", "O-O(i1)"}),
        # A Rook that is not on its corner does not castle.
        ({"b1": "R", "f1": "K", "i1": "R", "f9": "k"}, "-", set()),
    ],
)
def test_fast_castling_rights(pieces: dict[str, str], rights: str, castles: set[str]) -> None:
    pos = at("frog-manticore", pieces, rest=f"{rights} - 0 1 gates:-")
    assert {m for m in legal(pos) if m.startswith("O-O")} == castles


# ------------------------------------------------------------------------ move-count rules


def quiet_plies(game: Game, plies: int) -> None:
    """Play `plies` King and Knight moves that never capture and never repeat a position."""
    pos = game.position
    seen = {pos.hash}
    for _ in range(plies):
        assert game.outcome() is None
        for c in sorted(pos.legal_codes()):
            if pos.board[(c >> 8) & 0xFF]:
                continue
            pos.push_code(c, False)
            fresh = pos.hash not in seen
            pos.pop_code()
            if fresh:
                game.play_move(pos.to_move(c))
                seen.add(pos.hash)
                break
        else:  # pragma: no cover - the positions are built with room to spare
            raise AssertionError("no fresh quiet move")


@pytest.mark.parametrize(
    ("variant", "pieces", "rule"),
    [
        ("frog-gryphon", {"a1": "K", "c3": "N", "j9": "k", "h7": "n"}, 75),
        ("missing-bat-zebra", {"a1": "K", "c3": "N", "p12": "k", "n10": "n"}, 500),
    ],
)
def test_move_count_rule_ends_the_game_exactly_on_time(
    variant: str, pieces: dict[str, str], rule: int
) -> None:
    extra = " gates:-" if variant in FLOREA else " once:-"
    game = Game.from_position_text(variant, board(variant, pieces, rest="- - 0 1" + extra))
    quiet_plies(game, 2 * rule - 1)
    assert game.outcome() is None and game.position.halfmove == 2 * rule - 1
    quiet_plies(game, 1)
    outcome = game.outcome()
    assert outcome == Outcome(Termination.MOVE_RULE, None, rule)
    assert outcome.result_text == f"draw by the {rule}-move rule"


def test_gated_entries_do_not_reset_the_count_but_captures_and_pawns_do() -> None:
    rest = "- - 149 80 gates:FA@b1"
    pieces = {"f1": "K", "b1": "N", "c3": "p", "e2": "P", "f9": "k"}
    for move, ends in (("b1a3", True), ("b1c3", False), ("e2e3", False), ("f1g1", True)):
        game = Game.from_position_text("frog-gryphon", board("frog-gryphon", pieces, rest=rest))
        game.play(move)
        assert (game.outcome() is not None) is ends, move


# ------------------------------------------------------------------------ Savard's pieces


def bat_moves(pieces: dict[str, str], once: str = "-", side: str = "w") -> set[str]:
    return legal(at("leaping-bat", pieces, side, f"- - 0 1 once:{once}"))


def test_bat_leaps_root_65() -> None:
    # The inventor's example: from b1 to i5, f8, a9 and c9 (and j2 on an empty board).
    assert bat_moves({"b1": "BA", "p1": "K", "p12": "k"}) == moves_from(
        "b1", "a9", "c9", "f8", "i5", "j2"
    ) | moves_from("p1", "o1", "o2", "p2")
    # From h5: (8,1) p6 p4, (4,7) d12 l12, (7,4) o9 o1 a9 a1 (a9 own Knight, o1 a capture).
    pieces = {"h5": "BA", "p1": "K", "p12": "k", "a9": "N", "o1": "n"}
    assert bat_moves(pieces) == moves_from(
        "h5", "p6", "p4", "d12", "l12", "o9", "o1", "a1"
    ) | moves_from("a9", "b11", "b7", "c10", "c8") | moves_from("p1", "o1", "o2", "p2")


def test_tiger_moves_as_bishop_and_captures_as_knight() -> None:
    # The Black King on b8 stands on the Tiger's diagonal: not in check, not capturable.
    pieces = {"e5": "T", "f7": "n", "g7": "p", "c3": "P", "b8": "k", "p1": "K"}
    tiger = moves_from("e5", "d6", "c7", "f6", "d4", "f4", "g3", "h2", "i1", "f7")
    assert bat_moves(pieces) == tiger | {"c3c4"} | moves_from("p1", "o1", "o2", "p2")
    # A Black King may not step onto the Tiger's knight squares, but may onto its diagonal.
    pieces = {"e5": "T", "f8": "k", "p1": "K"}
    assert bat_moves(pieces, side="b") == moves_from("f8", "e7", "e8", "e9", "f9", "g7", "g8", "g9")


def test_walker_moves_as_wazir_and_captures_as_ferz() -> None:
    pieces = {"e5": "WK", "e6": "p", "f6": "p", "d4": "P", "p12": "k", "p1": "K"}
    walker = moves_from("e5", "d5", "f5", "e4", "f6")
    assert bat_moves(pieces) == walker | {"d4d5"} | moves_from("p1", "o1", "o2", "p2")


def test_giraffe_is_the_one_four_leaper() -> None:
    pieces = {"e5": "GI", "a6": "r", "i4": "N", "p12": "k", "p1": "K"}
    giraffe = moves_from("e5", "d9", "f9", "d1", "f1", "a6", "a4", "i6")
    knight = moves_from("i4", "g3", "g5", "h2", "h6", "j2", "j6", "k3", "k5")
    assert bat_moves(pieces) == giraffe | knight | moves_from("p1", "o1", "o2", "p2")


def test_nightrider_is_blocked_on_its_landing_squares() -> None:
    pieces = {"o1": "NR", "l7": "P", "i4": "b", "a12": "k", "a1": "K"}
    nightrider = moves_from("o1", "n3", "m5", "p3", "m2", "k3", "i4")
    assert bat_moves(pieces) == nightrider | {"l7l8"} | moves_from("a1", "a2", "b1", "b2")


# The 32 squares of the circular Rhinoceros on i6 of an empty board: the 8 neighbours
# (step 1 or 7), the 8 Knight squares (2 or 6), the 4 (2,2) and 4 (3,0) squares (3 or 5) and
# the 8 (3,1) squares (4).
RHINO_I6 = ["h5", "h6", "h7", "i5", "i7", "j5", "j6", "j7"]
RHINO_I6 += ["g5", "g7", "h4", "h8", "j4", "j8", "k5", "k7"]
RHINO_I6 += ["g4", "g8", "k4", "k8", "f6", "l6", "i3", "i9"]
RHINO_I6 += ["f5", "f7", "l5", "l7", "h3", "j3", "h9", "j9"]


def test_rhinoceros_circles_one_to_seven_steps_along_sixteen_paths() -> None:
    pos = at("leaping-bat", {"i6": "RH", "a1": "K", "p12": "k"}, rest="- - 0 1 once:-")
    assert legal(pos) == moves_from("i6", *RHINO_I6) | moves_from("a1", "a2", "b1", "b2")
    paths = next(c.paths for c in pos.variant.piece("savard-rhinoceros").components)
    assert len(paths) == 16 and all(len(p) == 7 and (0, 0) not in p for p in paths)


def test_rhinoceros_paths_are_blocked_by_any_piece_before_the_last_step() -> None:
    # i7 (own) closes the two paths that start north; j5 (enemy) is captured and closes
    # the two that start south-east. l7 (3,1) is reached only along those: lost. The
    # other squares are still reached along another path, once each.
    pieces = {"i6": "RH", "i7": "P", "j5": "p", "a1": "K", "p12": "k"}
    pos = at("leaping-bat", pieces, rest="- - 0 1 once:-")
    rhino = set(RHINO_I6) - {"i7", "l7"}
    assert legal(pos) == moves_from("i6", *rhino) | {"i7i8"} | moves_from("a1", "a2", "b1", "b2")
    assert "RHi6xj5" in printed(pos)


def test_rhinoceros_self_unpins() -> None:
    # Pinned on the e-file, it leaves the file and comes back: e2 f3 f4 e5 blocks the check.
    pieces = {"e1": "K", "e2": "RH", "e8": "r", "p1": "k"}
    assert bat_moves(pieces) == {"e2e3", "e2e5"} | moves_from("e1", "d1", "d2", "f1", "f2")


def test_griffin_needs_three_steps_to_move_but_captures_at_any_step() -> None:
    pieces = {"e5": "GR", "c6": "p", "f6": "p", "a1": "k", "p1": "K"}
    griffin = moves_from(
        "e5",
        "f6",  # a capture on step 1 (and the north-east paths end there)
        "c6",  # a capture on step 2; d7 (step 2) is passed over, then d8 ... d12
        "d8", "d9", "d10", "d11", "d12",
        "b4", "a4", "d2", "d1",  # after d4: c4 and d3 are steps 2
        "h4", "i4", "j4", "k4", "l4", "m4", "n4", "o4", "p4", "f2", "f1",  # after f4
    )  # fmt: skip
    assert bat_moves(pieces) == griffin | moves_from("p1", "o1", "o2", "p2")


def test_bat_pawns_double_step_from_both_rows_only_before_moving() -> None:
    pieces = {"f2": "P", "g2": "P", "g3": "n", "h5": "p", "a1": "K", "p12": "k"}
    text = board("leaping-bat", pieces, rest="- - 0 1 once:-")
    game = Game.from_position_text("leaping-bat", text)
    assert legal(game.position) == {"f2f3", "f2f4", "f2g3"} | moves_from("a1", "a2", "b1", "b2")
    game.play("f2xg3")  # onto a rank-3 Pawn square, but this Pawn has moved
    assert game.position_text.endswith(" once:- moved:g3")
    game.play("Kp12-p11")
    assert {m for m in legal(game.position) if m.startswith("g")} == {"g3g4"}
    # A rank-3 Pawn that never moved double-steps, and is taken en passant.
    pieces = {"g3": "P", "h5": "p", "a1": "K", "p12": "k"}
    game = Game.from_position_text("leaping-bat", board("leaping-bat", pieces, rest="- - 0 1"))
    game.play("g3-g5")
    assert game.position_text.endswith(" b - g4 0 1 once:wb")
    assert game.play("h5xg4 e.p.").notation == "h5xg4 e.p."


PROMOTIONS = {
    "frog-manticore": "Q R B N FR M FA",
    "frog-gryphon": "Q R B N FR G FA",
    "hannibal-manticore": "Q R B N E M FA",
    "hannibal-gryphon": "Q R B N E G FA",
    "waffle-manticore": "Q R B N W M FA",
    "waffle-gryphon": "Q R B N W G FA",
    "leaping-bat": "Q R B N BA T GI C NR RH D GR M WK W F A",
    "missing-bat-zebra": "Q R B N Z T GI C RH D GR M WK W F A",
    "missing-bat-nightrider": "Q R B N NR T GI C RH D GR M WK W F A",
}


@pytest.mark.parametrize("variant", ALL)
def test_promotion_to_the_pieces_of_the_game(variant: str) -> None:
    last = 12 if variant in BAT else 9
    pieces = {f"b{last - 1}": "P", "p1" if variant in BAT else "j1": "K", "a3": "k"}
    pos = at(variant, pieces, rest="- - 0 1" + (" once:-" if variant in BAT else ""))
    promotions = {m for m in legal(pos) if m.startswith(f"b{last - 1}")}
    assert promotions == {f"b{last - 1}b{last}{x}" for x in PROMOTIONS[variant].split()}


# ------------------------------------------------------------------ Savard's King


def test_six_square_castling() -> None:
    pieces = {"a1": "R", "i1": "K", "p1": "R", "i12": "k"}
    pos = at("leaping-bat", pieces, rest="KQ - 0 1 once:wb")
    assert {m for m in printed(pos) if m.startswith("O")} == {"O-O", "O-O-O"}
    assert {"i1o1", "i1c1"} <= legal(pos)
    for text in ("O-O", "0-0", "i1o1", "Ki1-o1"):
        assert coordinates(pos, parse(pos, text).code) == "i1o1"
    game = Game(pos.variant, pos)
    game.play("O-O-O")
    # Castling leaves the King's knight move unused (bat.toml decisions).
    assert game.position_text == "8k7/16/16/16/16/16/16/16/16/16/16/2KR11R b - - 1 1 once:wb"
    # Passing over an attacked square (l1 on the Rook's l-file), or an occupied one.
    pieces = {"a1": "R", "b1": "BA", "i1": "K", "p1": "R", "i12": "k", "l12": "r"}
    pos = at("leaping-bat", pieces, rest="KQ - 0 1 once:-")
    assert {m for m in legal(pos) if m in ("i1o1", "i1c1")} == set()


def test_king_knight_move_captures_and_escapes_check_once() -> None:
    # Rooks on the d-, e- and f-files leave the King on e4, in check, only its knight
    # leaps to the c- and g-files, one of them a capture.
    pieces = {"e4": "K", "d12": "r", "e12": "r", "f11": "r", "c5": "b", "a12": "k"}
    pos = at("leaping-bat", pieces, rest="- - 0 1 once:wb")
    assert pos.is_check()
    assert legal(pos) == moves_from("e4", "c3", "c5", "g3", "g5")
    assert "Ke4xc5" in printed(pos)
    pos = at("leaping-bat", pieces, rest="- - 0 1 once:b")  # White's right is used
    assert legal(pos) == set()
    assert pos.outcome() == Outcome(Termination.CHECKMATE, 1)


def test_king_knight_move_is_gone_after_use_and_is_in_the_position_text() -> None:
    variant = "missing-bat-nightrider"
    pieces = {"i1": "K", "p1": "R", "i12": "k"}
    game = Game.from_position_text(variant, board(variant, pieces, rest="K - 0 1 once:wb"))
    leaps = moves_from("i1", "g2", "h3", "j3", "k2")
    assert legal(game.position) == leaps | {"i1o1"} | moves_from(
        "i1", "h1", "h2", "i2", "j1", "j2"
    ) | moves_from("p1", *(f"p{r}" for r in range(2, 13)), "o1", "n1", "m1", "l1", "k1", "j1")
    assert game.play("Ki1-j3").notation == "Ki1-j3"
    assert game.position_text.endswith(" b - - 1 1 once:b")  # castling is gone too
    game.play("Ki12-j12")
    king = moves_from("j3", "i2", "i3", "i4", "j2", "j4", "k2", "k3", "k4")
    rook = moves_from("p1", *(f"p{r}" for r in range(2, 13)), *(f"{f}1" for f in "abcdefghijklmno"))
    assert legal(game.position) == king | rook
    # The right is part of the position: same board, different texts, hashes and moves.
    text = board(variant, pieces, rest="K - 0 1 once:{}")
    unused, used = (parse_position(variant, text.format(o)) for o in ("wb", "b"))
    assert format_position(unused).endswith(" once:wb")
    assert format_position(used).endswith(" once:b")
    assert unused.hash != used.hash
    assert legal(unused) - legal(used) == leaps


def test_unused_king_knight_move_attacks() -> None:
    pieces = {"e4": "K", "g7": "k"}
    steps = moves_from("e4", "d3", "d4", "d5", "e3", "e5", "f3", "f4", "f5")
    leaps = moves_from("e4", "c3", "c5", "d2", "d6", "f2", "g3", "g5")  # f6 touches g7
    # Black's right unused: the Black King on g7 attacks f5, a knight's leap away.
    assert bat_moves(pieces, "wb") == (steps | leaps) - {"e4f5"}
    # White's right unused: Ke4-f5 gives check by a knight's leap.
    pos = at("leaping-bat", pieces, rest="- - 0 1 once:w")
    assert legal(pos) == steps | leaps
    assert "Ke4-f5+" in printed(pos)
    assert bat_moves(pieces, "-") == steps


def test_stalemate_scores_three_fifths_in_the_bat_games_only() -> None:
    pieces = {"a12": "k", "d10": "Q", "p1": "K"}
    game = Game.from_position_text(
        "leaping-bat", board("leaping-bat", pieces, rest="- - 0 1 once:w")
    )
    game.play("Qd10-c11")
    outcome = game.outcome()
    assert outcome == Outcome(Termination.STALEMATE_POINTS, 0)
    assert outcome.result_text == "white stalemates black"
    assert outcome.score == (0.6, 0.4)
    assert Outcome.from_text("black stalemates white") == Outcome(Termination.STALEMATE_POINTS, 1)
    # With Black's knight move unused, Kxc11 is a move: no stalemate.
    game = Game.from_position_text(
        "leaping-bat", board("leaping-bat", pieces, rest="- - 0 1 once:wb")
    )
    game.play("Qd10-c11")
    assert game.outcome() is None and legal(game.position) == {"a12c11"}
    # The same picture in a Florea game is a draw.
    pieces = {"a9": "k", "d7": "Q", "j1": "K"}
    game = Game.from_position_text("frog-gryphon", board("frog-gryphon", pieces, rest="- - 0 1"))
    game.play("Qd7-c8")
    assert game.outcome() == Outcome(Termination.STALEMATE, None)


# ------------------------------------------------------------------------------ perft


@pytest.mark.parametrize("variant", ALL)
def test_perft_from_the_start_against_the_reference(variant: str) -> None:
    # Florea's games start with the placement phase: 18 x 8 placements for White.
    expected = reference_perft(variant, (), [], 2)
    assert perft(Game.new(variant).position, 2) == expected
    if variant in FLOREA:
        assert expected == 144


@pytest.mark.parametrize("variant", FLOREA)
def test_perft_after_a_fixed_placement_against_the_reference(variant: str) -> None:
    moves = fixed_placement(variant)
    game = Game.replay(variant, (), moves)
    assert perft(game.position, 2) == reference_perft(variant, (), moves, 2)


def test_perft_through_the_whole_placement_phase() -> None:
    game = Game.new("frog-gryphon")
    assert perft(game.position, 4) == 18 * 8 * 18 * 8 == reference_perft("frog-gryphon", (), [], 4)


@pytest.mark.parametrize(
    ("record", "plies"),
    [
        ("frog-gryphon-mate.txt", 8),  # O-O(i1)/FA and more gates to come
        ("frog-gryphon-mate.txt", 12),  # the mate in one on the board
        ("missing-bat-zebra-stalemate.txt", 30),
        ("missing-bat-zebra-stalemate.txt", 100),
    ],
)
def test_perft_in_played_positions_against_the_reference(record: str, plies: int) -> None:
    rec = read_record((GAMES / record).read_text(encoding="utf-8"))
    game = Game.new(rec.variant)
    for ply in rec.plies[:plies]:
        game.play(ply.text)
    text = game.position_text
    assert perft(game.position, 2) == reference_perft(rec.variant, (), [], 2, text=text)


# ---------------------------------------------------------------------------- records


def test_florea_record_numbers_placements_zero() -> None:
    text = (GAMES / "frog-gryphon-mate.txt").read_text(encoding="utf-8")
    rec = read_record(text)
    assert [p.label for p in rec.plies[:5]] == [
        "0. FA@j1",
        "0. G@g1",
        "0... FA@b9",
        "0... G@i9",
        "1. FRg1-g4/G",
    ]
    game = replay_record(rec)
    assert game.outcome() == Outcome(Termination.CHECKMATE, 0)
    headers = {k: v for k, v in rec.headers if k in ("source", "note")}
    assert format_record(game, headers) == text
    # Undo walks back through the mate, the castling, the gates and the placements.
    texts = []
    replay = Game.new(rec.variant)
    for ply in rec.plies:
        texts.append(replay.position_text)
        replay.play(ply.text)
    for expected in reversed(texts):
        game.undo()
        assert game.position_text == expected
    assert game.position.hash == Game.new(rec.variant).position.hash


@pytest.mark.parametrize(
    ("lines", "found"),
    [
        (["1. FA@j1"], "expected a ply numbered '0.', found '1. FA@j1'"),
        (["0. FA@j1", "0... G@g1"], "expected a ply numbered '0.', found '0... G@g1'"),
        (["0. FA@j1", "0. G@g1", "0. FA@b9"], "expected a ply numbered '0...'"),
        (["0. FA@j1", "0. G@g1", "0... FA@b9", "0... G@i9", "0. e2e4"], "numbered '1.'"),
    ],
)
def test_florea_record_numbering_is_checked(lines: list[str], found: str) -> None:
    text = "# variant: Frog Chess with Gryphon and Falcon\n" + "\n".join(lines) + "\n"
    with pytest.raises(GameRecordError, match=re.escape(found)):
        replay_record(read_record(text))


def test_bat_record_ends_in_stalemate_on_points() -> None:
    text = (GAMES / "missing-bat-zebra-stalemate.txt").read_text(encoding="utf-8")
    rec = read_record(text)
    game = replay_record(rec)
    outcome = game.outcome()
    assert outcome == Outcome(Termination.STALEMATE_POINTS, 0)
    assert outcome.result_text == rec.result == "white stalemates black"
    assert outcome.score == (0.6, 0.4)
    assert game.position_text.endswith(" b KQ - 4 53 once:w")  # Black's leap is used
    headers = {k: v for k, v in rec.headers if k in ("source", "note")}
    assert format_record(game, headers) == text
    # A record that claims a draw here is refused.
    wrong = text.replace("# result: white stalemates black", "# result: draw by stalemate")
    with pytest.raises(GameRecordError, match="white stalemates black"):
        replay_record(read_record(wrong))


# --------------------------------------------------------------------------- playouts

TERMINATIONS = {
    **{v: {Termination.CHECKMATE, Termination.STALEMATE, Termination.REPETITION} for v in FLOREA},
    **{
        v: {Termination.CHECKMATE, Termination.STALEMATE_POINTS, Termination.REPETITION}
        for v in BAT
    },
}


def state(pos: Position) -> tuple[object, ...]:
    return (
        pos.board[:],
        bytes(pos.virgin),
        pos.hash,
        pos.ep,
        pos.halfmove,
        pos.fullmove,
        pos.side,
        [dict(g) for g in pos.gates],
        [r[:] for r in pos.reserve],
        pos.once[:],
        pos.repetitions(),
        format_position(pos),
    )


def playout(variant: str, choices: list[int]) -> None:
    game = Game.new(variant)
    pos = game.position
    for choice in choices:
        if game.outcome() is not None:
            break
        text = format_position(pos)
        again = parse_position(variant, text)
        assert format_position(again) == text and again.hash == pos.hash
        codes = pos.legal_codes()
        assert sorted(again.legal_codes()) == sorted(codes)
        assert codes, "no legal move but no outcome"
        code = codes[choice % len(codes)]
        for c in (code, codes[(choice // 7) % len(codes)]):
            assert parse(pos, format_code(pos, c)).code == c
            assert parse(pos, coordinates(pos, c), check_marks=False).code == c
        before = state(pos)
        pos.push_code(code)
        pos.pop_code()
        assert state(pos) == before
        game.play_move(pos.to_move(code))
    outcome = game.outcome()
    if outcome is not None:
        assert outcome.termination in TERMINATIONS[variant]
        assert Outcome.from_text(outcome.result_text) == Outcome(
            outcome.termination, outcome.winner
        )


PLAYOUT = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=40)


@pytest.mark.parametrize("variant", ALL)
@settings(max_examples=6, deadline=None)
@given(choices=PLAYOUT)
def test_random_playouts(variant: str, choices: list[int]) -> None:
    playout(variant, choices)


# ------------------------------------------------------------------ regressions


def test_undo_from_a_position_text_keeps_repetition_counts_exact() -> None:
    # Fixed: keys were trimmed by ply number, which a position text starts at its move
    # number, so undone moves stayed in the history and counted as repetitions.
    text = board("frog-gryphon", {"a1": "K", "c3": "N", "j9": "k", "h7": "n"}, rest="- - 0 40")
    game = Game.from_position_text("frog-gryphon", text + " gates:-")
    for _ in range(3):
        for move in ("Nc3-d5", "Nh7-g5", "Nd5-c3", "Ng5-h7"):
            game.play(move)
        for _ in range(4):
            game.undo()
    assert game.position.repetitions() == 1
    assert game.outcome() is None
