"""Bigorra and the eight Timurid games (spec: cazaux.md §2 and §4).

The engine is checked against the independent reference generator `tests/rules/reference.py`
(perft and move sets), and every mechanism of these games is shown on a position built for it
with its complete list of legal moves, worked out by hand from the spec: bent riders, the
Metamachy King leap, rapid pieces with en passant, the Troll's promotion, the Timurid
Prince's optional promotion and the King's succession. Hypothesis plays random games in all
nine variants; the two sample game records replay to their checkmates.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import Game, IllegalMoveError, Position, Termination
from rules.notation import coordinates, parse
from rules.perft import perft
from rules.postext import format_position, parse_position
from rules.record import format_record, read_record, replay_record
from rules.variant import load_variant
from tests.rules.reference import RefPosition, reference_moves, reference_perft

GAMES = Path(__file__).resolve().parent / "games"

TIMURID = (
    "timurid-herat",
    "timurid-babur",
    "timurid-mirza",
    "timurid-samarkand",
    "wild-timurid-herat",
    "wild-timurid-babur",
    "wild-timurid-mirza",
    "wild-timurid-samarkand",
)
NINE = ("bigorra", *TIMURID)

# White's moves in each start position, counted by hand. Bigorra: 16 Pawns x 2 (single and
# double step) + 20 Troll leaps to rank 7 (2+2+3+3+3+3+2+2 from a4 ... p4); nothing else can
# move. Timurid Herat: 12 Pawns x 2, Knights 3+3 (a4 c4 d1, j4 l4 i1), Camels 2+2, Cannons
# 3+3 along rank 1, Princes 2+2, King 2 (f1 g1), Crowned Rook 2 (f1 g1), Bishops 2+2 = 52;
# the other games differ only by the central piece on g2: Squirrel 6, Snake 1 (g1), Wizard 4,
# Queen 2, Lion 8, Rhinoceros 1 (g1), Emir 7 instead of the Crowned Rook's 2 (a Gryphon on
# d2/i2 has no move, like the Ship). Black's count is the same.
PERFT1 = {
    "bigorra": 52,
    "timurid-herat": 52,
    "timurid-babur": 56,
    "timurid-mirza": 51,
    "timurid-samarkand": 54,
    "wild-timurid-herat": 52,
    "wild-timurid-babur": 58,
    "wild-timurid-mirza": 51,
    "wild-timurid-samarkand": 57,
}


# ------------------------------------------------------------------------------- helpers


def position_text(
    variant_id: str,
    pieces: dict[str, str],
    side: str = "w",
    *,
    halfmove: int = 0,
    extra: str = "",
) -> str:
    """A position text with only `pieces` (square -> token: `K`, `sh`, `+`, `-`)."""
    v = load_variant(variant_id)
    rows = []
    for rank in range(v.geometry.ranks, 0, -1):
        row, empty = "", 0
        for f in "abcdefghijklmnop"[: v.geometry.files]:
            token = pieces.get(f"{f}{rank}")
            if token is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + (f"({token})" if len(token) == 2 else token)
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    fields = ["/".join(rows), side, "-", "-", str(halfmove), "1"]
    return " ".join([*fields, extra] if extra else fields)


def engine_moves(game: Game) -> set[str]:
    pos = game.position
    return {coordinates(pos, c) for c in pos.legal_codes()}


def checked(
    variant_id: str,
    pieces: dict[str, str],
    side: str = "w",
    *,
    halfmove: int = 0,
    extra: str = "",
) -> Game:
    """The game at that position, once the engine's moves equal the reference's."""
    text = position_text(variant_id, pieces, side, halfmove=halfmove, extra=extra)
    game = Game.from_position_text(variant_id, text)
    assert engine_moves(game) == reference_moves(variant_id, text=text)
    return game


def moves_from(game: Game, origin: str) -> set[str]:
    """Coordinate forms of the legal moves starting on `origin`."""
    out = set()
    for m in engine_moves(game):
        found = re.match(r"[a-p]\d+", m)
        if found and found.group(0) == origin:
            out.add(m)
    return out


def squares(origin: str, text: str) -> set[str]:
    """`squares("d4", "c5 c6Q")` -> {"d4c5", "d4c6Q"}."""
    return {origin + t for t in text.split()}


def notation(game: Game, coords: str) -> str:
    return next(m.notation for m in game.legal_moves() if m.coordinates == coords)


def piece_on(game: Game, square: str) -> str | None:
    pos = game.position
    index = pos.t.geo.parse(square)
    assert index is not None
    found = pos.piece_at(index)
    return None if found is None else f"{'wb'[found.color]}:{found.piece_id}"


# ------------------------------------------------------------------ perft and move sets


@pytest.mark.parametrize("variant_id", NINE)
def test_start_perft_against_hand_count_and_reference(variant_id: str) -> None:
    pos = Position.start(variant_id)
    n = PERFT1[variant_id]
    assert perft(pos, 1) == n
    assert engine_moves(Game.new(variant_id)) == reference_moves(variant_id)
    # Within two plies the armies cannot touch (White reaches rank 7 of 16 or 5 of 12, Black
    # rank 10 or 8), so every White move leaves Black the same moves.
    assert perft(pos, 2) == n * n == reference_perft(variant_id, (), [], 2)


@pytest.mark.parametrize("variant_id", NINE)
def test_random_positions_match_the_reference(variant_id: str) -> None:
    plies, every = (36, 9) if variant_id == "bigorra" else (48, 8)
    for seed in range(2):
        rng = random.Random(seed)
        game = Game.new(variant_id)
        ref = RefPosition.start(variant_id)
        for ply in range(plies):
            moves = engine_moves(game)
            if ply % every == every - 1:
                assert moves == {m.text for m in ref.legal_moves()}, game.position_text
                again = RefPosition.from_text(variant_id, game.position_text)
                assert moves == {m.text for m in again.legal_moves()}, game.position_text
            if not moves or game.outcome() is not None:
                break
            mv = rng.choice(sorted(moves))
            game.play(mv)
            ref = ref.play_text(mv)


# Sparse positions where the special rules come up at once; seeded random play from each,
# with the move sets compared at every ply.
SPECIAL = {
    "succession": (
        "timurid-herat",
        {
            "a1": "K", "a2": "+", "b2": "+", "e3": "P", "h4": "P", "c5": "P", "l12": "k",
            "k11": "p", "j11": "p", "h8": "r", "d9": "q", "f10": "c", "c10": "-", "d7": "-",
        },
        "b",
    ),
    "metamachy": (
        "bigorra",
        {
            "h2": "K", "h15": "k", "g2": "L", "i2": "Q", "j4": "n", "e7": "v", "h10": "o",
            "c3": "+", "m13": "-", "g14": "sn", "k12": "u", "d3": "G", "f5": "t", "k4": "T",
            "h14": "p", "i15": "q",
        },
        "w",
    ),
    "en passant": (
        "bigorra",
        {
            "h2": "K", "h15": "k", "e8": "+", "f8": "S", "g7": "P", "d10": "s", "f11": "p",
            "g12": "-", "h12": "t", "c11": "-", "b9": "+", "e12": "S", "j12": "-", "k10": "+",
        },
        "w",
    ),
    "promotions": (
        "timurid-babur",
        {
            "a1": "K", "l12": "k", "e11": "P", "f11": "P", "g10": "SQ", "c11": "SH", "d2": "p",
            "h2": "sh", "j3": "sq", "i10": "-", "k3": "+", "b11": "+",
        },
        "w",
    ),
    "trolls": (
        "bigorra",
        {
            "a1": "K", "p16": "k", "c15": "T", "f13": "T", "e14": "t", "d2": "t", "g3": "t",
            "b15": "n", "d16": "r", "h14": "SH", "k13": "SN", "m4": "sh", "n3": "sn", "l14": "P",
            "e3": "p", "j15": "+", "c2": "-",
        },
        "w",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_positions_match_the_reference_in_random_play(name: str) -> None:
    variant_id, pieces, side = SPECIAL[name]
    text = position_text(variant_id, pieces, side)
    for seed in range(3):
        rng = random.Random(seed)
        game = Game.from_position_text(variant_id, text)
        ref = RefPosition.from_text(variant_id, text)
        for _ in range(10):
            moves = engine_moves(game)
            assert moves == {m.text for m in ref.legal_moves()}, game.position_text
            if not moves or game.outcome() is not None:
                break
            mv = rng.choice(sorted(moves))
            game.play(mv)
            ref = ref.play_text(mv)


# --------------------------------------------------------------------------- bent riders


def test_gryphon_steps_diagonally_then_slides_outward() -> None:
    game = checked(
        "wild-timurid-herat",
        {"a1": "K", "l12": "k", "d4": "G", "c3": "N", "e8": "r", "h5": "B"},
    )
    # c3 (own Knight) closes that diagonal entirely; after c5 the slides go up and left,
    # after e5 up (to the capture on e8) and right (to the Bishop on h5), after e3 down and
    # right. The Gryphon may stop after its first step.
    assert moves_from(game, "d4") == squares(
        "d4",
        "c5 c6 c7 c8 c9 c10 c11 c12 b5 a5 e5 e6 e7 e8 f5 g5 e3 e2 e1 f3 g3 h3 i3 j3 k3 l3",
    )
    assert notation(game, "d4e8") == "Gd4xe8"


def test_rhinoceros_steps_orthogonally_then_slides_diagonally_outward() -> None:
    game = checked(
        "wild-timurid-mirza",
        {"a1": "K", "l12": "k", "f5": "U", "f6": "+", "e5": "n", "i7": "b", "h2": "N"},
    )
    # Up: own Pawn, nothing. Left: the Knight on e5 is taken, the path ends there. Right: g5,
    # then h6, i7 (capture) and h4 ... k1. Down: f4, then e3, d2, c1 and g3 (h2 is own).
    assert moves_from(game, "f5") == squares("f5", "e5 g5 h6 i7 h4 i3 j2 k1 f4 e3 d2 c1 g3")


def test_ship_steps_diagonally_then_slides_vertically_only() -> None:
    game = checked(
        "timurid-herat",
        {"a1": "K", "l12": "k", "e5": "SH", "d8": "+", "f9": "n", "d4": "N", "f4": "b"},
    )
    # d6 then up to the own Pawn on d8; f6 then up to the capture on f9; d4 is own; f4 is
    # taken with no slide after it. Never sideways.
    assert moves_from(game, "e5") == squares("e5", "d6 d7 f6 f7 f8 f9 f4")


def test_snake_steps_vertically_then_slides_diagonally_onward() -> None:
    game = checked("timurid-mirza", {"a6": "K", "l7": "k", "e5": "SN", "g8": "N", "c2": "b"})
    assert moves_from(game, "e5") == squares("e5", "e6 d7 c8 b9 a10 f7 e4 d3 c2 f3 g2 h1")


def test_bigorra_bent_riders_and_the_book_examples() -> None:
    game = checked(
        "bigorra",
        {"h2": "K", "h15": "k", "k1": "U", "k3": "SN", "f3": "SN", "j2": "G", "e3": "SH",
         "d9": "n"},
    )  # fmt: skip
    moves = engine_moves(game)
    # pieces.md: Uk1xd9 (k2, then j3 ... d9), SNk3-o8 (k4, then l5 ... o8), SNf3-f4 and
    # Gj2-i3 (first step only); the Ship promotes to an Eagle on the last rank.
    assert {"k1d9", "k3o8", "f3f4", "j2i3", "e3f16G"} <= moves
    assert "e3f16" not in moves and "k3k5" not in moves and "j2j4" not in moves
    assert notation(game, "k1d9") == "Uk1xd9"


# ------------------------------------------------------------------- the Metamachy leap

LEAP = {"h2": "K", "h15": "k", "j4": "n"}


def test_king_leaps_two_squares_over_safe_squares() -> None:
    game = checked("bigorra", LEAP)
    # The Knight on j4 attacks h3 and i2. Leaps: f1 f2 f3 f4 (over g1/g2/g3, safe); g4 and i4
    # over h3 (attacked) but also g3 / i3 (safe): one safe square suffices for a knight-type
    # leap; j3 and j1 likewise over i3 / i1; h4 (only over h3) and j2 (only over i2) are
    # refused; j4 holds an enemy piece and the leap never captures. Steps: g1 g2 g3 h1 i1 i3.
    assert moves_from(game, "h2") == squares("h2", "f1 f2 f3 f4 g4 i4 j3 j1 g1 g2 g3 h1 i1 i3")
    assert notation(game, "h2f3") == "Kh2-f3"
    for move, reason in (
        ("h2h4", "may not leap over attacked squares"),
        ("h2j2", "may not leap over attacked squares"),
        ("h2j4", "never captures"),
    ):
        with pytest.raises(IllegalMoveError, match=reason):
            game.play(move)


def test_leap_over_pieces_and_not_over_attacked_squares() -> None:
    # Own pieces on every square passed over: the leap jumps them.
    game = checked(
        "bigorra",
        {"h2": "K", "h15": "k", "g2": "L", "g3": "W", "h3": "P", "i3": "E", "i2": "Q"},
    )
    assert moves_from(game, "h2") == squares("h2", "f1 f2 f3 f4 g4 h4 i4 j4 j3 j2 j1 g1 h1 i1")
    # A Rook on g16 attacks the whole g-file: every leap to the left passes over it only.
    game = checked("bigorra", {"h2": "K", "h15": "k", "g16": "r"})
    assert moves_from(game, "h2") == squares("h2", "h4 i4 j4 j3 j2 j1 h1 h3 i1 i2 i3")


def test_no_leap_after_the_king_has_moved_or_out_of_check() -> None:
    game = checked("bigorra", LEAP, extra="moved:h2")
    assert moves_from(game, "h2") == squares("h2", "g1 g2 g3 h1 i1 i3")
    with pytest.raises(IllegalMoveError, match="only allowed as its first move"):
        game.play("h2f3")
    game = checked("bigorra", {**LEAP, "a2": "r"})  # check along rank 2
    assert moves_from(game, "h2") == squares("h2", "g1 g3 h1 i1 i3")
    with pytest.raises(IllegalMoveError, match="cannot leap out of check"):
        game.play("h2f3")
    # The leap spends the right: next time the King only steps.
    game = checked("bigorra", LEAP)
    game.play("Kh2-f3")
    game.play("h15h14")
    assert moves_from(game, "f3") == squares("f3", "e2 e3 e4 f2 f4 g2 g3 g4")
    assert "moved:" not in game.position_text  # the King is no longer on its start square
    game.play("Kf3-g3")
    game.play("h14h15")
    game.play("Kg3-h2")
    assert game.position_text.endswith("moved:h2,h15")  # both Kings went and came back
    assert "h2f3" not in engine_moves(game)


# ------------------------------------------------------------ rapid pieces, en passant


@pytest.mark.parametrize(("victim", "letter"), [("+", ""), ("S", "S"), ("P", "P")])
def test_bigorra_rapid_pieces_and_who_takes_en_passant(victim: str, letter: str) -> None:
    # A Pawn, Soldier or Prince on e8 double-steps (from any square); a Black Soldier or
    # Pawn on d10 takes it en passant, a Black Prince or Troll on f10 never does.
    for capturer, token in (("S", "s"), ("", "-")):
        game = checked("bigorra", {"a1": "K", "p16": "k", "e8": victim, "d10": token, "f10": "p"})
        assert {"e8e9", "e8e10"} <= moves_from(game, "e8")
        assert game.play("e8e10").notation == f"{letter}e8-e10"
        assert engine_moves(game) == reference_moves("bigorra", text=game.position_text)
        assert notation(game, "d10e9") == f"{capturer}d10xe9 e.p."
        assert notation(game, "f10e9") == "Pf10-e9"  # an ordinary Prince step
        game.play("d10e9")
        assert piece_on(game, "e10") is None
        game.undo()
        game.play("f10e9")
        assert piece_on(game, "e10") is not None
    game = checked("bigorra", {"a1": "K", "p16": "k", "e8": victim, "f10": "t"})
    game.play("e8e10")
    assert not moves_from(game, "f10") & {"f10e9"}
    # The right lasts one ply.
    game = checked("bigorra", {"a1": "K", "p16": "k", "e8": victim, "d10": "s"})
    for mv in ("e8e10", "p16p15", "a1a2"):
        game.play(mv)
    assert "d10e9" not in engine_moves(game)


def test_double_step_onto_the_last_rank_promotes_without_en_passant() -> None:
    game = checked("bigorra", {"a1": "K", "p9": "k", "e14": "+", "d16": "s"})
    assert moves_from(game, "e14") == {"e14e15", "e14e16Q"}
    game.play("e14e16Q")
    assert game.position_text.split()[3] == "-"
    assert "d16e15" not in engine_moves(game)


def test_timurid_only_pawns_take_en_passant_princes_can_be_taken() -> None:
    game = checked("timurid-mirza", {"a1": "K", "l12": "k", "e5": "P", "d7": "-", "f7": "p"})
    assert "e5e7" in moves_from(game, "e5")  # a Prince double-steps from any square
    game.play("Pe5-e7")
    assert engine_moves(game) == reference_moves("timurid-mirza", text=game.position_text)
    assert notation(game, "d7e6") == "d7xe6 e.p."
    assert notation(game, "f7e6") == "Pf7-e6"
    game = checked("timurid-mirza", {"a1": "K", "l12": "k", "e5": "+", "d7": "-", "f7": "p"})
    game.play("e5-e7")
    assert notation(game, "d7e6") == "d7xe6 e.p."


# ------------------------------------------------------------------------- promotions


def test_troll_promotes_only_by_its_pawn_step_or_capture() -> None:
    game = checked("bigorra", {"a1": "K", "p9": "k", "c15": "T", "f13": "T", "d16": "r"})
    # c15: the pawn step and the pawn capture promote (compulsory, to a Direwolf); the
    # leaps c12, f15, f12 do not reach the last rank.
    assert moves_from(game, "c15") == squares("c15", "c16DW d16DW c12 f15 f12")
    # f13: its three-square leaps to f16, c16 and i16 end on the last rank and stay Trolls.
    assert moves_from(game, "f13") == squares("f13", "f14 f16 c16 i16 f10 c13 i13 c10 i10")
    assert notation(game, "c15d16DW") == "Tc15xd16DW"
    game.play("f13f16")
    assert game.position_text.startswith("3r1T10/")
    assert game.position.halfmove == 1  # a leap is no pawn move
    game.play("p9p8")
    assert moves_from(game, "f16") == squares("f16", "f13 c16 i16 c13 i13")
    game.play("c15c16DW")
    assert game.position.halfmove == 0
    assert game.position_text.startswith("2(DW)r1T10/")


def test_timurid_prince_promotion_is_optional_and_offered_again() -> None:
    game = checked("timurid-herat", {"a1": "K", "l2": "k", "e11": "P"})
    assert moves_from(game, "e11") == squares(
        "e11", "d10 e10 f10 d11 f11 d12 d12Q e12 e12Q f12 f12Q"
    )
    assert game.play("e11e12").notation == "Pe11-e12"  # declined: still a Prince
    game.play("l2l1")
    assert moves_from(game, "e12") == squares("e12", "d11 e11 f11 d12 d12Q f12 f12Q")
    assert engine_moves(game) == reference_moves("timurid-herat", text=game.position_text)
    assert game.play("e12d12q").notation == "Pe12-d12Q"  # a lowercase letter is read too
    assert game.position_text.startswith("3Q8/")
    # In Bigorra the Prince's promotion (to an Amazon) is compulsory.
    game = checked("bigorra", {"a1": "K", "p9": "k", "e15": "P"})
    assert moves_from(game, "e15") == squares("e15", "d16AZ e16AZ f16AZ d15 f15 d14 e14 f14")


@pytest.mark.parametrize(
    ("variant_id", "token", "result"),
    [
        ("timurid-herat", "A", "Q"),
        ("timurid-babur", "SQ", "L"),
        ("timurid-mirza", "SN", "U"),
        ("timurid-samarkand", "W", "EM"),
        ("timurid-herat", "SH", "G"),
    ],
)
def test_timurid_compulsory_promotions(variant_id: str, token: str, result: str) -> None:
    game = checked(variant_id, {"a1": "K", "l5": "k", "e11": token})
    to_last = {m for m in moves_from(game, "e11") if re.fullmatch(r"e11[a-l]12[A-Z]*", m)}
    assert to_last
    assert all(m.endswith(result) for m in to_last)


# -------------------------------------------------------------------------- succession

SUCCESSION = {"a1": "K", "a2": "+", "b2": "+", "e6": "P", "k9": "P", "h1": "r", "j7": "n",
              "l12": "k"}  # fmt: skip


def test_checked_king_without_a_move_swaps_with_a_safe_prince() -> None:
    # The Rook on h1 checks along rank 1; the King has no square and nothing can block.
    # The Prince on k9 is attacked by the Knight on j7, so only the swap with e6 is legal.
    game = checked("timurid-herat", SUCCESSION, halfmove=7)
    assert engine_moves(game) == {"a1e6"}
    assert notation(game, "a1e6") == "Ka1<>Pe6"
    for text in ("a1e6", "Ka1-e6", "Ka1<>Pe6"):
        played = game.play(text)
        assert played.notation == "Ka1<>Pe6"
        # The King is on e6, the Prince on a1 (where the Rook attacks it); no reset.
        assert (piece_on(game, "e6"), piece_on(game, "a1")) == ("w:king", "w:prince")
        assert game.position.halfmove == 8
        game.undo()


def test_no_swap_while_the_king_has_an_ordinary_move() -> None:
    pieces = {k: v for k, v in SUCCESSION.items() if k != "b2"}
    game = checked("timurid-herat", pieces)
    assert engine_moves(game) == {"a1b2"}


@pytest.mark.parametrize(
    ("pieces", "text", "reason"),
    [
        # Regression: these used to be refused with "e6 is occupied by your own Prince".
        (
            {k: v for k, v in SUCCESSION.items() if k != "b2"},
            "Ka1<>Pe6",
            "only when it is in check",
        ),
        ({k: v for k, v in SUCCESSION.items() if k != "h1"}, "a1e6", "only when it is in check"),
        (SUCCESSION, "Ka1<>Pk9", "your King would be in check on k9"),
    ],
)
def test_refused_swaps_say_why(pieces: dict[str, str], text: str, reason: str) -> None:
    game = checked("timurid-herat", pieces)
    with pytest.raises(IllegalMoveError, match=reason):
        game.play(text)


def test_mate_mark_only_when_no_swap_is_left() -> None:
    pieces = {**{k: v for k, v in SUCCESSION.items() if k != "h1"}, "h8": "r"}
    game = checked("timurid-herat", pieces, "b")
    assert game.play("h8h1").notation == "Rh8-h1+"
    assert game.outcome() is None
    del pieces["e6"]  # only the attacked Prince is left: no legal swap, checkmate
    game = checked("timurid-herat", pieces, "b")
    assert game.play("h8h1").notation == "Rh8-h1++"
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.CHECKMATE
    assert not reference_moves("timurid-herat", text=game.position_text)


# ----------------------------------------------------------------------------- notation


TWO_LETTERS = {
    "h2": "K", "h15": "k", "e5": "AZ", "d4": "CH", "c3": "SQ", "f3": "SH", "g5": "SN",
    "j6": "MM", "l3": "HK", "n7": "DW", "c15": "T", "d16": "r", "k10": "n", "m9": "b",
}  # fmt: skip


def test_two_letter_pieces_round_trip_through_notation() -> None:
    game = checked("bigorra", TWO_LETTERS)
    pos = game.position
    seen = set()
    for lm in game.legal_moves():
        code = parse(pos, lm.notation).code
        assert parse(pos, lm.coordinates).code == code
        assert coordinates(pos, code) == lm.coordinates
        letters = re.match(r"[A-Z]*", lm.notation)
        assert letters is not None
        seen.add(letters.group(0))
    assert {"AZ", "CH", "SQ", "SH", "SN", "MM", "HK", "DW", "T", "K"} <= seen
    assert notation(game, "c15d16DW") == "Tc15xd16DW"
    assert notation(game, "n7k10") == "DWn7xk10"
    with pytest.raises(IllegalMoveError, match=r"Squirrel \(SQ\), not Cheetah \(CH\)"):
        game.play("CHc3-e4")


# ------------------------------------------------------------------ hypothesis playouts


def _outcome_is_valid(game: Game) -> None:
    outcome = game.outcome()
    assert outcome is not None
    legal = game.position.legal_codes()
    if outcome.termination is Termination.CHECKMATE:
        assert not legal and game.is_check() and outcome.winner == 1 - game.side_to_move
    elif outcome.termination is Termination.STALEMATE:
        assert not legal and not game.is_check() and outcome.winner is None
    else:
        assert outcome.termination in (Termination.REPETITION, Termination.MOVE_RULE)


@pytest.mark.parametrize("variant_id", NINE)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_playouts(variant_id: str, data: st.DataObject) -> None:
    game = Game.new(variant_id)
    for _ in range(data.draw(st.integers(4, 14), label="plies")):
        if game.outcome() is not None:
            _outcome_is_valid(game)
            break
        text = game.position_text
        assert format_position(parse_position(variant_id, text)) == text
        legal = game.legal_moves()
        assert legal
        choice = data.draw(st.sampled_from(legal), label="move")
        assert parse(game.position, choice.notation).move == choice.move
        assert parse(game.position, choice.coordinates).move == choice.move
        before = (text, game.position.hash)
        played = game.play(choice.notation)
        assert played.notation == choice.notation
        if data.draw(st.booleans(), label="undo"):
            game.undo()
            assert (game.position_text, game.position.hash) == before
            game.play(choice.coordinates)


# ---------------------------------------------------------------------- game records


@pytest.mark.parametrize(
    ("name", "plies", "result"),
    [
        ("bigorra.txt", 40, "black wins by checkmate"),
        ("timurid-babur.txt", 156, "black wins by checkmate"),
    ],
)
def test_sample_games_replay_to_checkmate(name: str, plies: int, result: str) -> None:
    record = read_record((GAMES / name).read_text())
    game = replay_record(record)
    assert game.ply == plies
    outcome = game.outcome()
    assert outcome is not None and outcome.result_text == result
    assert [p.notation for p in game.history] == [p.text for p in record.plies]
    again = replay_record(read_record(format_record(game)))  # written back, read again
    assert [p.notation for p in again.history] == [p.text for p in record.plies]
    # The reference generator agrees that the game ends in checkmate ...
    final = RefPosition.from_text(record.variant, game.position_text)
    assert final.in_check() and not final.legal_moves()
    # ... and on the moves before every special ply (leaps, swaps, en passant).
    replay = Game.new(record.variant)
    for played in game.history:
        special = "<>" in played.notation or "e.p." in played.notation
        if played.notation.startswith("K") and played.move.origin is not None:
            dx = abs(played.move.target.file - played.move.origin.file)
            dy = abs(played.move.target.rank - played.move.origin.rank)
            special = special or max(dx, dy) == 2
        if special:
            assert engine_moves(replay) == reference_moves(
                record.variant, text=replay.position_text
            )
        replay.play(played.coordinates)
    assert replay.position_text == game.position_text


def test_the_timurid_sample_game_has_a_succession_swap() -> None:
    text = (GAMES / "timurid-babur.txt").read_text()
    assert "78. Kg6<>Pf6" in text
    record = read_record(text)
    game = Game.new(record.variant)
    for ply in record.plies:
        if "<>" in ply.text:
            assert game.is_check()
            assert all("<>" in m.notation for m in game.legal_moves())
        game.play(ply.text)
