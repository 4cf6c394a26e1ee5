"""Player files that mean what they say (issue 34): the four defects found by writing known
games from the guide, each with the file that showed it, and a hypothesis test that writes
small variant files of its own and reads back every move the engine lists."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.errors import RulesError, VariantError
from rules.game import Game
from rules.notation import coordinates, format_code, format_short, parse
from rules.outcome import Termination
from rules.position import Position
from rules.sanity import sanity_check
from rules.summary import rules_summary
from rules.tables import MC
from rules.variant import load_definition
from tests.rules.fsf_reference import variant_of

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"

DROPS_5X5 = """
id = "rooks-in-hand"
name = "Rooks in Hand"
files = 5
ranks = 5

[pieces]
king = "K"
rook = "R"

[setup]
1 = "K . . . R"

[rules]
captures-to-hand = true
insufficient-material = true
"""


def test_pieces_in_hand_are_material() -> None:
    """A King each and a Rook in each hand is no draw: the Rooks can be dropped."""
    variant = load_definition(DROPS_5X5)
    game = Game.from_position_text(variant, "1k3/5/5/5/K4 w - - 0 2 hand:R,r")
    assert game.outcome() is None
    assert any(m.notation.startswith("R*") for m in game.legal_moves())


def test_drop_games_inherit_no_material_draw_from_chess() -> None:
    """Crazyhouse written on chess inherits `insufficient-material = true`; a Bishop taken
    may come back on the other colour, so drop games never end for lack of material (nor
    do they in Fairy-Stockfish)."""
    house = load_definition(
        'id = "house"\nname = "House"\nextends = "chess"\n[rules]\ncaptures-to-hand = true\n'
    )
    assert house.insufficient_material
    for text in ("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 hand:N"):
        assert Game.from_position_text(house, text).outcome() is None
    assert not any("Too little material" in line for line in rules_summary(house))
    assert any("Too little material" in line for line in rules_summary(variant_of("janus")))


def test_a_reserve_piece_in_hand_is_material() -> None:
    """S-Chess without drops: a Hawk waiting in hand can still enter the game."""
    game = Game.from_position_text(variant_of("s-chess"), "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1 hand:H")
    assert game.outcome() is None


FOOTMAN = """
id = "footmen"
name = "Footmen"
files = 5
ranks = 5

[pieces]
king = "K"
footman = { letter = "P", betza = "fW" }

[setup]
1 = ". . K . ."
2 = "P P P P P"

[rules]
captures-to-hand = true
"""


def test_a_piece_lettered_p_drops() -> None:
    variant = load_definition(FOOTMAN)
    game = Game.from_position_text(variant, "2k2/5/5/5/2K2 w - - 0 1 hand:P")
    drops = [m for m in game.legal_moves() if m.notation.startswith("P*")]
    assert len(drops) == 23
    game.play("P*c3")
    assert game.position.piece_at(variant.geometry.parse("c3")).piece_id == "footman"
    sanity_check(variant)


def test_a_pawn_beside_a_piece_lettered_p_drops_as_plus() -> None:
    """With both, `P*c3` is the P piece and the Pawn is `+` (as in setups)."""
    text = FOOTMAN.replace("[setup]", 'pawn = { letter = "" }\n[setup]').replace(
        '2 = "P P P P P"', '2 = "P + P + P"'
    )
    variant = load_definition(text)
    game = Game.from_position_text(variant, "2k2/5/5/5/2K2 w - - 0 1 hand:P,+")
    pos = game.position
    for code in pos.legal_codes():
        assert parse(pos, format_code(pos, code)).code == code
        assert parse(pos, coordinates(pos, code)).code == code
    game.play("+*b3")
    assert game.position.piece_at(variant.geometry.parse("b3")).piece_id == "pawn"
    game.play("c5-d5")
    game.play("P@d3")
    assert game.position.piece_at(variant.geometry.parse("d3")).piece_id == "footman"


OVERLAP = """
id = "overlap"
name = "Overlap"
files = 5
ranks = 5

[pieces]
king = "K"
rook = "R"
footman = { letter = "", betza = "fW", pawn-moves = "fW", promotion = { to = ["rook"] } }

[setup]
1 = "K . . . R"
2 = "P P P P P"
"""


def test_pawn_moves_overlapping_betza_are_one_move() -> None:
    """`betza = "fW"` and `pawn-moves = "fW"` both give the step: it is listed once, and
    as a pawn move (it resets the move count)."""
    variant = load_definition(OVERLAP)
    game = Game.from_position_text(variant, "k4/5/P4/5/K4 w - - 7 20")
    pos = game.position
    codes = [c for c in pos.legal_codes() if c & 0xFF == variant.geometry.parse("a3")]
    assert len(codes) == 1 and codes[0] & MC.PAWN
    game.play("a3xa4" if pos.board[variant.geometry.parse("a4")] else "a3-a4")
    assert game.position.halfmove == 0
    sanity_check(variant)


def test_medusa_style_overlaps_still_listed_once() -> None:
    game = Game.new("chess")
    notations = [m.notation for m in game.legal_moves()]
    assert len(notations) == len(set(notations)) == 20


def test_the_summary_describes_each_castling_direction() -> None:
    janus = variant_of("janus")
    (line,) = [x for x in rules_summary(janus) if x.startswith("Castling")]
    assert "O-O, the King from e1 to i1 (4 squares)" in line
    assert "O-O-O, the King from e1 to b1 (3 squares)" in line
    swapped = load_definition(
        """
id = "janus-swapped"
name = "Janus swapped"
extends = "chess"
files = 10
[pieces]
janus = { letter = "J", betza = "BN" }
[setup]
1 = "R J N B K Q B N J R"
2 = "P P P P P P P P P P"
[castling]
moves = [
    { king = "e1", king-to = "b1", rook = "a1", rook-to = "c1" },
    { king = "e1", king-to = "i1", rook = "j1", rook-to = "h1" },
]
"""
    )
    (line,) = [x for x in rules_summary(swapped) if x.startswith("Castling")]
    assert "O-O, the King from e1 to i1 (4 squares)" in line
    assert "O-O-O, the King from e1 to b1 (3 squares)" in line


def test_a_bared_king_against_two_pieces_loses_at_once() -> None:
    """As Fairy-Stockfish's Shatranj: the bared side has its reply only while one capture
    could bare the other King back."""
    shatranj = variant_of("shatranj")
    game = Game.from_position_text(shatranj, "4k3/4r3/8/8/8/8/R3R3/4K3 w - - 0 1")
    game.play("e2xe7+")
    ended = game.outcome()
    assert ended is not None and ended.termination is Termination.BARE_KING
    assert ended.winner == 0
    game = Game.from_position_text(shatranj, "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1")
    game.play("e2xe7+")
    assert game.outcome() is None  # Black may still bare White's King


def test_optional_rows_alone_names_the_default() -> None:
    text = OVERLAP.replace(
        'promotion = { to = ["rook"] }', 'promotion = { to = ["rook"], optional-rows = [5] }'
    )
    with pytest.raises(
        VariantError, match=r"compulsory-rows defaults to the last row, \[5\]"
    ) as exc:
        load_definition(text)
    assert exc.value.key.endswith("promotion.optional-rows")
    load_definition(
        text.replace("optional-rows = [5]", "optional-rows = [5], compulsory-rows = []")
    )


# ------------------------------------------------------------------ generated definitions

ATOMS = ["W", "F", "D", "N", "A", "R", "B", "K", "Q", "fW", "fF", "sW", "vR", "mWcF", "nN",
         "mRcpR", "R2", "fmWfcF", "WA", "ifmnD"]  # fmt: skip
LETTERS = ["P", "A", "B", "C", "E", "G", "H", "M", "N", "Q", "R", "S", "X", "AB", "PA"]


@st.composite
def small_variants(draw: st.DrawFn) -> str:
    """A small player's file: a King, two to four pieces with random letters (`P` among
    them) and movements, sometimes a Pawn with overlapping pawn moves and a promotion,
    sometimes drops."""
    files = draw(st.integers(5, 7))
    ranks = draw(st.integers(5, 7))
    letters = draw(st.lists(st.sampled_from(LETTERS), min_size=2, max_size=4, unique=True))
    lines = [
        'id = "generated"',
        'name = "Generated"',
        f"files = {files}",
        f"ranks = {ranks}",
        "[pieces]",
        'king = "K"',
    ]
    ids = []
    for i, lt in enumerate(letters):
        betza = "".join(draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=2)))
        lines.append(f'p{i} = {{ letter = "{lt}", betza = "{betza}" }}')
        ids.append(lt)
    pawn = draw(st.booleans())
    if pawn:
        pawn_moves = draw(st.sampled_from(["fmW fcF", "fW", "fmW", "fWfF"]))
        betza = draw(st.sampled_from(["fW", "fmW", "W", "fF"]))
        optional = f", optional-rows = [{ranks}], compulsory-rows = []"
        rows = draw(st.sampled_from(["", optional]))
        promo = f'promotion = {{ to = ["p0"]{rows} }}'
        lines.append(
            f'pawn = {{ letter = "", betza = "{betza}", pawn-moves = "{pawn_moves}", {promo} }}'
        )
    symbol = "+" if "P" in letters else "P"
    row1 = ["."] * files
    row1[files // 2] = "K"
    slots = [f for f in range(files) if f != files // 2]
    random.Random(draw(st.integers(0, 1000))).shuffle(slots)
    for f, lt in zip(slots, ids, strict=False):
        row1[f] = lt
    row2 = [draw(st.sampled_from([symbol if pawn else ".", ".", ids[0]])) for _ in range(files)]
    lines += ["[setup]", f'1 = "{" ".join(row1)}"', f'2 = "{" ".join(row2)}"', "[rules]"]
    if draw(st.booleans()):
        lines.append("captures-to-hand = true")
    return "\n".join(lines) + "\n"


def read_back_every_move(pos: Position) -> None:
    for code in pos.legal_codes():
        for text in (format_code(pos, code), coordinates(pos, code), format_short(pos, code)):
            assert parse(pos, text).code == code, text


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(small_variants(), st.lists(st.integers(0, 10_000), min_size=1, max_size=40))
def test_every_listed_move_reads_back_as_itself(text: str, choices: list[int]) -> None:
    try:
        variant = load_definition(text)
    except RulesError:
        return  # a refused file (a King in check at the start, ...) is not this test's concern
    pos = Position.start(variant)
    if pos.kings[1] >= 0 and pos.attacked(pos.kings[1], 0):
        return
    for choice in choices:
        if pos.outcome() is not None:
            break
        read_back_every_move(pos)
        codes = pos.legal_codes()
        pos.push_code(codes[choice % len(codes)])


def test_the_command_line_reads_fairy_stockfish_gating(capsys: pytest.CaptureFixture[str]) -> None:
    """`--moves` takes Fairy-Stockfish's UCI form, gating (`g1f3h`) included: pyffish lists
    59 moves there too."""
    from rules.cli import main

    s_chess = str(EXAMPLES / "s-chess.toml")
    assert main(["perft", s_chess, "1", "--moves", "e2e4", "e7e5", "g1f3h"]) == 0
    assert capsys.readouterr().out.strip() == "59"


def test_setup_keys_that_are_not_ranks_name_setup_black() -> None:
    text = 'id = "x"\nname = "X"\nextends = "chess"\n[setup.white]\n1 = "R N B Q K B N R"\n'
    with pytest.raises(VariantError, match=r"\[setup.black\]"):
        load_definition(text)


def test_black_pieces_in_lowercase_are_refused_with_the_capital() -> None:
    """A player who writes Black's army as in a FEN (`r`) learns the letters are capitals,
    and the example shows `[setup.black]`, not `[setup]`."""
    text = DROPS_5X5.replace("[rules]", '[setup.black]\n5 = "r . . . k"\n[rules]')
    with pytest.raises(VariantError, match="written in capitals too: R") as exc:
        load_definition(text)
    assert exc.value.key == "setup.black.5"
    assert exc.value.example is not None and exc.value.example.startswith("[setup.black]")


def test_a_rules_refusal_shows_its_own_key_in_the_example() -> None:
    text = DROPS_5X5.replace("insufficient-material = true", 'insufficient-material = "yes"')
    with pytest.raises(VariantError) as exc:
        load_definition(text)
    assert exc.value.key == "rules.insufficient-material"
    assert exc.value.example is not None
    assert exc.value.example.startswith("insufficient-material = ")
