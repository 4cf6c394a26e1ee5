"""The evaluation's terms beyond material: Pawn structure, royal safety, mobility, hands."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from rules.position import Position
from rules.postext import format_position, parse_position
from search.evaluate import NTERMS, PASSED_GAIN, EvalTables, eval_tables, evaluate
from search.weights import BASELINE, WEIGHTS, Weights

TOKEN = re.compile(r"\d+|\+?[A-Za-z]|\[[^\]]*\]")


def _flip_row(row: str) -> str:
    """A board row read right to left, colours swapped (digits are runs of empty squares)."""
    cells: list[str] = []
    for token in TOKEN.findall(row):
        cells += ["1"] * int(token) if token.isdigit() else [token.swapcase()]
    out, run = "", 0
    for cell in reversed(cells):
        if cell == "1":
            run += 1
            continue
        out += (str(run) if run else "") + cell
        run = 0
    return out + (str(run) if run else "")


def colour_flip(text: str, mirror: bool = False) -> str:
    """The position turned half round (or, `mirror`, mirrored across the middle rank, as
    chess's armies face each other) with the colours swapped (castling and en passant
    dropped: the evaluation does not read them)."""
    fields = text.split()
    rows = reversed(fields[0].split("/"))
    if mirror:
        board = "/".join(row.swapcase() for row in rows)
    else:
        board = "/".join(_flip_row(row) for row in rows)
    side = "b" if fields[1] == "w" else "w"
    rest = [f.swapcase() if f.startswith("hand:") else f for f in fields[6:]]
    rest = ["hand:" + f[5:] if f.lower().startswith("hand:") else f for f in rest]
    return " ".join([board, side, "-", "-", *fields[4:6], *rest])


def _random_middle_game(variant: str, seed: int, plies: int = 24) -> Position:
    rng = random.Random(seed)
    pos = Position.start(variant)
    for _ in range(plies):
        moves = pos.legal_codes()
        if not moves or pos.outcome(moves) is not None:
            break
        pos.push_code(rng.choice(moves), keep_key=False)
    return parse_position(variant, format_position(pos))


@pytest.mark.parametrize(
    "variant",
    ["chess", "shako", "grand", "crazyhouse", "shogi", "xiangqi", "makruk", "antichess"],
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_position_and_its_colour_flip_score_alike(variant: str, seed: int) -> None:
    pos = _random_middle_game(variant, seed)
    if any(f.startswith("promoted:") and f != "promoted:-" for f in format_position(pos).split()):
        pytest.skip("a promoted piece's square list is not flipped here")
    et = eval_tables(pos.t)
    flipped = parse_position(variant, colour_flip(format_position(pos), et.mirror))
    assert [round(x, 6) for x in et.terms(pos)] == [-round(x, 6) for x in et.terms(flipped)]
    assert evaluate(pos) == evaluate(flipped)


def test_doubled_and_isolated_pawns_are_counted() -> None:
    # White: a, c, c (doubled, both isolated with a); Black: f, g, h, connected.
    pos = parse_position("chess", "4k3/5ppp/8/8/8/2P5/P1P5/4K3 w - - 0 1")
    doubled, isolated, _passed, *_ = eval_tables(pos.t).terms(pos)
    assert doubled == 1
    assert isolated == 3


def test_a_passed_pawn_counts_more_as_it_advances() -> None:
    near = parse_position("chess", "4k3/8/1P6/8/8/8/6p1/4K3 w - - 0 1")
    far = parse_position("chess", "4k3/8/8/8/8/1P6/6p1/4K3 w - - 0 1")
    et = eval_tables(near.t)
    t = near.t
    gain = et.value[t.code("queen", 0)] - et.value[t.code("pawn", 0)]
    # Black's g-pawn is one step from promotion: each side has a passed pawn, counted by
    # its progress squared (b6: 5 rows of 6) times what promoting gains.
    assert et.terms(near)[2] == pytest.approx(((5 / 6) ** 2 - 1.0) * gain / PASSED_GAIN)
    assert et.terms(near)[2] > et.terms(far)[2]


def test_a_blocked_pawn_is_not_passed() -> None:
    pos = parse_position("chess", "4k3/8/2p5/8/1P6/8/8/4K3 w - - 0 1")
    assert eval_tables(pos.t).terms(pos)[2] == 0


def test_the_royal_shield_counts_own_pawns_before_the_king() -> None:
    sheltered = parse_position("chess", "6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1")
    bare = parse_position("chess", "6k1/8/8/8/8/5PPP/8/6K1 w - - 0 1")
    far = parse_position("chess", "6k1/8/8/8/5PPP/8/8/6K1 w - - 0 1")
    et = eval_tables(sheltered.t)
    assert [et.terms(p)[3] for p in (sheltered, bare, far)] == [3, 3, 0]


def test_mobility_rewards_an_open_rook() -> None:
    open_rook = parse_position("chess", "4k3/8/8/8/3R4/8/8/4K3 w - - 0 1")
    shut_rook = parse_position("chess", "4k3/8/8/8/8/8/PP6/RN2K3 w - - 0 1")
    et = eval_tables(open_rook.t)
    rook_class = et.terms(open_rook)[5:]
    assert sum(rook_class) > 0
    assert sum(et.terms(shut_rook)[5:]) < 0


def test_the_weights_multiply_the_counts() -> None:
    """With only the doubled-Pawn weight set, a doubled Pawn costs exactly that."""
    pos = parse_position("chess", "4k3/8/8/8/8/2P5/2P5/4K3 w - - 0 1")
    single = parse_position("chess", "4k3/8/8/8/8/3P4/2P5/4K3 w - - 0 1")
    zero = Weights(
        doubled_mg=0.0,
        doubled_eg=-50.0,
        isolated_mg=0.0,
        isolated_eg=0.0,
        passed_mg=0.0,
        passed_eg=0.0,
        shield_mg=0.0,
        danger_mg=0.0,
        mobility_mg=(0.0,) * 4,
        mobility_eg=(0.0,) * 4,
        hand=1.0,
        tempo=0.0,
    )
    et = EvalTables(pos.t, zero)
    assert et.terms(pos)[0] == 1 and et.terms(single)[0] == 0
    # Both pawns are passed and isolated in either position; the squares differ a little.
    base = et.evaluate(single) - et.evaluate(pos)
    plain = EvalTables(pos.t, replace(zero, doubled_eg=0.0))
    assert base - (plain.evaluate(single) - plain.evaluate(pos)) == 50


def test_pieces_in_hand_are_counted_at_the_tuned_share() -> None:
    bare = parse_position("crazyhouse", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 hand:- promoted:-")
    knight = parse_position("crazyhouse", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 hand:N promoted:-")
    et = eval_tables(bare.t)
    value = et.value[bare.t.code("knight", 0)]
    gain = evaluate(knight) - evaluate(bare)
    assert abs(gain - WEIGHTS.hand * value) <= 1


def test_the_baseline_keeps_the_old_evaluation_terms() -> None:
    """BASELINE (the tuner's start and the matches' reference) has no new term."""
    assert not any(BASELINE.mobility_mg) and not BASELINE.doubled_eg and not BASELINE.shield_mg
    assert len(eval_tables(Position.start("chess").t).terms(Position.start("chess"))) == NTERMS


def test_soldiers_that_never_promote_are_never_passed() -> None:
    """Xiangqi's Soldiers are pawn-class (their structure counts) but a passed Soldier gains
    nothing by going on: only pieces that promote are scored as passed."""
    pos = parse_position("xiangqi", "4k4/9/9/4P4/9/9/9/9/9/4K4 w - - 0 1")
    assert eval_tables(pos.t).terms(pos)[2] == 0


def test_games_without_royal_pieces_have_no_royal_safety() -> None:
    pos = _random_middle_game("antichess", 4, plies=10)
    shield, danger = eval_tables(pos.t).terms(pos)[3:5]
    assert shield == 0 and danger == 0
