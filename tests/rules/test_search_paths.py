"""The rules engine's fast paths for the search: the null move, and the shortcut that lists
the answers to a check by trying only the moves that can parry it."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.moves import MoveKind
from rules.position import Position
from rules.postext import format_position, parse_position
from rules.variant import load_variant, variant_ids

PLAYOUT = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=80)


def _all_legal_by_trying(pos: Position) -> list[int]:
    """Every pseudo-legal move made and tested: the slow definition of legality in check
    (with Xiangqi's facing Generals, Janggi's bikjang, where a pass is always legal, and
    Makpong's King, which may only take the one piece that checks it)."""
    out = []
    v = pos.variant
    bikjang = v.bikjang and pos.kings_facing()
    facing = v.flying_general or bikjang
    king_here = pos.kings[pos.side]
    makpong = king_here >= 0 and pos.t.capture_checker_only[pos.board[king_here]]
    checkers = {
        c & 0xFF
        for c in pos.planning_copy(pos.side ^ 1).pseudo_codes()
        if (c >> 8) & 0xFF == king_here
    }
    for c in pos.pseudo_codes():
        kind = pos.to_move(c).kind
        if kind is MoveKind.CASTLING:
            continue
        if kind is MoveKind.PASS:
            if bikjang:
                out.append(c)
            continue
        side = pos.side
        pos.push_code(c, keep_key=False)
        king = pos.kings[side]
        ok = king >= 0 and not pos.attacked(king, side ^ 1)
        ok = ok and not (facing and pos.kings_facing())
        pos.pop_code()
        if ok and makpong and c & 0xFF == pos.kings[pos.side]:
            ok = checkers == {(c >> 8) & 0xFF}  # Makpong: only the one checker is taken
        if ok:
            out.append(c)
    if v.reserve_in_hand and any(pos.hands[pos.side]):
        # S-Chess: each move from a first-row square may also bring in a piece from the hand,
        # legal exactly when the move is (the entering piece never covers a check).
        pos._gating_codes(out)
    return out


def _checking_move(pos: Position, codes: list[int]) -> int:
    """A move that gives check if there is one (so that random games reach checks)."""
    for c in codes:
        pos.push_code(c, keep_key=False)
        check = pos.is_check()
        pos.pop_code()
        if check:
            return c
    return codes[0]


@pytest.mark.parametrize(
    "variant",
    [
        v
        for v in variant_ids()
        if load_variant(v).goal != "royal-capture"
        and load_variant(v).check_count != 1
        and not load_variant(v).no_checks
        and not load_variant(v).must_capture
        and load_variant(v).blast is None
        and any(p.royal for p in load_variant(v).pieces)
    ],
)
def test_answers_to_check_are_exactly_the_moves_that_parry_it(variant: str) -> None:
    """Random games, stopping at every check: the shortcut lists the same moves as trying
        every pseudo-legal move (hoppers, bent riders and double checks included). Games won by
        capturing the royal piece (Patricia, Dobutsu) have no check rule to shortcut, games won
    by the first check (Kar Ouk) no answer to a check; games without checks (Racing Kings,
    no royal piece: Antichess, Extinction) have none, and where captures are compulsory or
    explode (Losers, Atomic) trying every move by the plain check rule is not the answer."""
    rng = random.Random(variant)
    checks = 0
    for _game in range(12):
        pos = Position.start(variant)
        for _ply in range(120):
            codes = pos.legal_codes()
            if not codes:
                break
            if pos.is_check() and not pos.placing:
                checks += 1
                expected = _all_legal_by_trying(pos)
                if not expected:
                    expected = codes  # succession: the swaps come only when nothing else does
                assert sorted(codes) == sorted(expected), format_position(pos)
            moves = [c for c in codes if pos.to_move(c).kind is not MoveKind.PASS] or codes
            pos.push_code(_checking_move(pos, moves) if rng.random() < 0.3 else rng.choice(moves))
    assert checks >= 20, f"only {checks} checks reached"


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(variant_ids()), choices=PLAYOUT)
def test_null_move_passes_the_turn_and_comes_back(variant: str, choices: list[int]) -> None:
    pos = Position.start(variant)
    for choice in choices:
        codes = pos.legal_codes()
        if not codes or pos.outcome(codes) is not None:
            break
        pos.push_code(codes[choice % len(codes)])
        if pos.placing or pos.is_check():
            continue  # the search never passes in check (the passed position is illegal)
        text, hash_, side = format_position(pos), pos.hash, pos.side
        pos.push_null()
        assert pos.side == side ^ 1
        assert pos.ep == -1
        # The hash is that of the same board with the other side to move.
        passed = format_position(pos)
        assert pos.hash == parse_position(pos.variant, passed).hash
        assert pos.pop_code() == 0
        assert (format_position(pos), pos.hash, pos.side) == (text, hash_, side)
