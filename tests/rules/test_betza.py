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
