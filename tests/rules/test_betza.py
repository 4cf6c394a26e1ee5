"""Betza notation: what players' pieces are made of, and precise errors for typos."""

from __future__ import annotations

import pytest

from rules.betza import Kind, parse_betza, select_directions, symmetric
from rules.errors import BetzaError


def vectors(text: str) -> set[tuple[int, int]]:
    return {v for c in parse_betza(text) for v in c.vectors}


@pytest.mark.parametrize(
    ("atom", "count"),
    [("W", 4), ("F", 4), ("D", 4), ("N", 8), ("A", 4), ("H", 4), ("C", 8), ("Z", 8), ("G", 4)],
)
def test_atoms_have_their_squares(atom: str, count: int) -> None:
    (comp,) = parse_betza(atom)
    assert comp.kind is Kind.LEAP
    assert len(comp.vectors) == count


def test_shorthands_expand() -> None:
    assert [c.kind for c in parse_betza("K")] == [Kind.LEAP, Kind.LEAP]
    assert [c.kind for c in parse_betza("Q")] == [Kind.RIDE, Kind.RIDE]
    assert vectors("R") == vectors("W")
    assert vectors("B") == vectors("F")


def test_riders_by_doubling_and_range() -> None:
    (nn,) = parse_betza("NN")
    assert nn.kind is Kind.RIDE and nn.range is None
    (r4,) = parse_betza("R4")
    assert r4.kind is Kind.RIDE and r4.range == 4
    (w1,) = parse_betza("W1")
    assert w1.kind is Kind.LEAP


def test_free_leap_and_compound() -> None:
    assert len(vectors("(1,4)")) == 8
    assert len(vectors("(1,8)(4,7)")) == 16
    assert len(vectors("NADHCZG")) == 40


def test_modifiers_for_pawns_and_soldiers() -> None:
    move, capture = parse_betza("fmW fcF")
    assert move.vectors == {(0, 1)} and move.move and not move.capture
    assert capture.vectors == {(1, 1), (-1, 1)} and capture.capture and not capture.move
    (soldier,) = parse_betza("fsmW")
    assert soldier.vectors == {(0, 1), (1, 0), (-1, 0)}
    (double,) = parse_betza("ifmnD")
    assert double.kind is Kind.LAME and double.initial and double.vectors == {(0, 2)}


def test_hoppers_and_divergent_pieces() -> None:
    move, hop = parse_betza("mRcpR")
    assert move.kind is Kind.RIDE and not move.capture
    assert hop.kind is Kind.HOP and not hop.move
    tiger_move, tiger_capture = parse_betza("mBcN")
    assert tiger_move.kind is Kind.RIDE and tiger_capture.kind is Kind.LEAP


def test_flying_stag() -> None:
    f, sw, vr = parse_betza("FsWvR")
    assert sw.vectors == {(1, 0), (-1, 0)}
    assert vr.vectors == {(0, 1), (0, -1)} and vr.kind is Kind.RIDE
    assert len(f.vectors) == 4


def test_direction_pairs_on_diagonals_and_obliques() -> None:
    assert select_directions(symmetric((1, 1)), "fl") == {(-1, 1)}
    assert select_directions(symmetric((2, 1)), "ff") == {(1, 2), (-1, 2)}
    assert select_directions(symmetric((2, 1)), "fs") == {(2, 1), (-2, 1)}
    assert select_directions(symmetric((2, 1)), "v") == {(1, 2), (-1, 2), (1, -2), (-1, -2)}


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("fmWxF", 3, "unexpected 'x'"),
        ("mcW", 1, "contradict"),
        ("sF", 0, "select no move"),
        ("pN", 0, "applies to riders"),
        ("nR", 0, "applies to leaps"),
        ("fm", 0, "not followed by an atom"),
        ("qW", 0, "unknown modifier"),
        ("X", 0, "unknown atom"),
        ("R0", 1, "range of 0"),
        ("(1,4", 0, "closing"),
        ("(1,a)", 0, "expected a leap"),
        ("", 0, "no atom"),
    ],
)
def test_errors_name_the_character(text: str, position: int, fragment: str) -> None:
    with pytest.raises(BetzaError, match=fragment) as info:
        parse_betza(text)
    assert info.value.position == position
    if text:
        assert f"character {position + 1}" in str(info.value)


def test_lame_paths_follow_fairy_stockfish() -> None:
    """Along the longer side until the rest is diagonal, then diagonally: the Janggi
    Elephant (nZ) passes one orthogonal and one diagonal square."""
    from rules.betza import lame_intermediates

    assert lame_intermediates((0, 2)) == ((0, 1),)
    assert lame_intermediates((1, 2)) == ((0, 1),)
    assert lame_intermediates((-2, 1)) == ((-1, 0),)
    assert lame_intermediates((2, 3)) == ((0, 1), (1, 2))
    assert lame_intermediates((-3, -2)) == ((-1, 0), (-2, -1))
    assert lame_intermediates((3, 3)) == ((1, 1), (2, 2))
    assert lame_intermediates((3, 1)) == ((1, 0), (2, 0))


def test_grasshoppers_and_hoppers_with_a_range() -> None:
    rook_line, bishop_line = parse_betza("gQ")
    assert rook_line.kind is Kind.HOP and rook_line.grasshopper and rook_line.range is None
    assert bishop_line.vectors == vectors("B") and bishop_line.grasshopper
    (short,) = parse_betza("pB2")
    assert short.kind is Kind.HOP and short.range == 2 and not short.grasshopper
    (near,) = parse_betza("gR3")
    assert near.grasshopper and near.range == 3
    (forward,) = parse_betza("fgR")
    assert forward.vectors == {(0, 1)} and forward.grasshopper


def test_chiral_halves_of_oblique_leaps() -> None:
    """Fairy-Stockfish's `hl` and `hr`: the leaps that turn left (right) after the longer
    leg. Its own test positions: from d4, hlN goes to e2 b3 f5 c6 and hrN to c2 f3 b5 e6."""
    assert vectors("hlN") == {(1, -2), (-2, -1), (2, 1), (-1, 2)}
    assert vectors("hrN") == {(-1, -2), (2, -1), (-2, 1), (1, 2)}
    assert vectors("hlN") | vectors("hrN") == vectors("N")
    assert vectors("hrC") == {(1, 3), (-3, 1), (-1, -3), (3, -1)}
    assert vectors("hl(1,4)") == {(4, 1), (-1, 4), (-4, -1), (1, -4)}


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("hN", 0, "'hl' or 'hr'"),
        ("lhN", 1, "'hl' or 'hr'"),
        ("hlK", 0, "select no move"),
        ("gN", 0, "'g' \\(grasshopper\\) applies to riders"),
        ("pR1", 0, "never lands"),
        ("gpR", 0, "cannot be combined"),
        ("ngR", 0, "applies to leaps"),
    ],
)
def test_new_modifier_errors_name_the_character(text: str, position: int, fragment: str) -> None:
    with pytest.raises(BetzaError, match=fragment) as info:
        parse_betza(text)
    assert info.value.position == position


HOPPERS = """\
id = "hoppers"
name = "Hoppers"
files = 8
ranks = 8

[pieces]
king = "K"
rook = "R"
pawn = { letter = "", double-step = "initial", promotion = { to = ["rook"] } }
grasshopper = { letter = "G", betza = "gR" }
short-cannon = { letter = "E", betza = "pR2" }
near-cannon = { letter = "D", betza = "pR3" }
long-cannon = { letter = "T", betza = "pB4" }

[setup]
1 = "R . . . K . . R"
2 = "P P P P P P P P"
"""
# Each position and its legal moves (all of them, or a piece's) as pyffish 0.0.90 gives
# them for the same pieces written in Fairy-Stockfish's Betza (gR, pR2, pR3, pB4).
HOPPER_POSITIONS = [
    # the Grasshopper lands directly beyond the first piece on each line, however far
    ("k7/8/3p4/8/1P1G2p1/8/8/7K w - - 0 1", "d4", ["d4a4", "d4d7", "d4h4"]),
    ("k7/8/8/3p4/2PGp3/3P4/8/7K w - - 0 1", "d4", ["d4b4", "d4d2", "d4d6", "d4f4"]),
    ("7k/8/8/8/8/8/8/KGpP4 w - - 0 1", "b1", []),  # its own piece beyond the screen
    # a range counts the whole line, the screen included
    ("7k/8/8/8/8/8/1p6/T6K w - - 0 1", "a1", ["a1c3", "a1d4", "a1e5"]),
    ("7k/8/8/8/3p4/8/8/T6K w - - 0 1", "a1", ["a1e5"]),
    ("7k/8/8/8/8/8/8/KDp1p3 w - - 0 1", "b1", ["b1d1", "b1e1"]),
    ("7k/8/8/8/8/8/8/KD1p1p2 w - - 0 1", "b1", ["b1e1"]),
    # check by a Grasshopper over the piece next to the King: block, move the screen, flee
    (
        "4k3/4p3/8/r7/8/8/8/1K2G3 b - - 0 1",
        "",
        ["a5e5", "e7e5", "e7e6", "e8d7", "e8d8", "e8f7", "e8f8"],
    ),
    # the screen two squares away: no check, the Rook moves freely
    ("4k3/8/4p3/r7/8/8/8/1K2G3 b - - 0 1", "a5", [f"a5{s}" for s in (
        ["a1", "a2", "a3", "a4", "a6", "a7", "a8", "b5", "c5", "d5", "e5", "f5", "g5", "h5"])]),
    # check by short-range hoppers within their range, none from one square further
    ("4k3/4p3/4E3/r7/8/8/8/1K6 b - - 0 1", "", ["e8d7", "e8d8", "e8f7", "e8f8"]),
    ("4k3/4p3/8/r3D3/8/8/8/1K6 b - - 0 1", "", ["a5e5", "e8d7", "e8d8", "e8f7", "e8f8"]),
    ("4k3/4p3/8/8/r3D3/8/8/1K6 b - - 0 1", "e8", ["e8d7", "e8d8", "e8f7", "e8f8"]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "origin", "wanted"), HOPPER_POSITIONS)
def test_grasshoppers_and_short_hoppers_move_and_check_as_in_fairy_stockfish(
    text: str, origin: str, wanted: list[str]
) -> None:
    from rules.fsf import uci_moves
    from rules.postext import parse_position
    from rules.variant import load_definition

    pos = parse_position(load_definition(HOPPERS, source="hoppers.toml"), text)
    got = sorted(m for m in uci_moves(pos) if m.startswith(origin))
    assert got == sorted(wanted)
