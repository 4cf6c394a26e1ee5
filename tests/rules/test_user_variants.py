"""Players' own variants: the ten classics written as user files (docs/examples/) agree
with Fairy-Stockfish; every mistake of the issue's list gets a message with the key, the
line and an example; the new mechanisms (drops with demotion, S-Chess gating, bare King,
stalemate loses, goal zone) behave as their games' rules say; the limits hold.

The counts come from Fairy-Stockfish 11.1 (Debian's `fairy-stockfish`, `go perft N` after
`setoption name UCI_Variant`), written by `tests/rules/fsf_reference.py` into
`data/user-variants.tsv`: the start position and seeded random positions of each file.
Where counts are published they agree too: Capablanca's 28 / 784 / 25,228 are the figures
other engines publish, and Crazyhouse's 20 / 400 / 8,902 are chess's, as they must be (no
drop is possible before the fourth ply). The tutorial files of docs/variants.md are counted
by pyffish 0.0.90 from the same definitions written for it (data/guide-variants.ini).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from rules import limits
from rules.errors import IllegalMoveError, RulesError, UnknownVariantError, VariantError
from rules.game import Game, game_after
from rules.outcome import Outcome, Termination
from rules.perft import perft
from rules.postext import format_position, parse_position
from rules.sanity import sanity_check
from rules.summary import new_pieces, rules_summary
from rules.variant import Variant, load_definition
from tests.rules.conftest import DATA
from tests.rules.fsf_reference import variant_of

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
FILES = sorted(p.stem for p in EXAMPLES.glob("*.toml"))
ROWS = list(csv.DictReader((DATA / "user-variants.tsv").open(), delimiter="\t"))
DEEP = {"-00", "-01", "-02"}
"""Rows also checked at depth 3 (the rest at depths 1 and 2)."""


def example(stem: str) -> Variant:
    """A file of docs/examples/, or a tutorial file of docs/variants.md."""
    return variant_of(stem)


def test_the_ten_classics_are_there() -> None:
    assert FILES == [
        "capablanca", "courier", "crazyhouse", "embassy", "gothic",
        "grand", "janus", "s-chess", "shako", "shatranj",
    ]  # fmt: skip
    assert {r["variant"] for r in ROWS} == {*FILES, "paladin-chess", "alamos-house", "lancer-chess"}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
def test_perft_agrees_with_fairy_stockfish(row: dict[str, str]) -> None:
    pos = Game.replay_variant(example(row["variant"]), row["moves"].split()).position
    depths = (1, 2, 3) if row["id"][-3:] in DEEP or row["variant"] == "s-chess" else (1, 2)
    for depth in depths:
        assert perft(pos, depth) == int(row[f"perft{depth}"]), f"depth {depth}"


@pytest.mark.parametrize("stem", FILES)
def test_each_classic_passes_the_sanity_run(stem: str) -> None:
    variant = example(stem)
    report = sanity_check(variant)
    assert report.start_moves > 0 and report.work <= limits.MAX_SANITY_WORK
    assert rules_summary(variant)[0] in ("Checkmate wins.",)
    assert variant.digest and variant.definition


def test_the_random_positions_reach_the_mechanisms() -> None:
    """The reference positions include promoted pieces on a Crazyhouse board, pieces in hand,
    and S-Chess castling that may gate on the King's or the Rook's square."""
    texts = {
        r["id"]: Game.replay_variant(example(r["variant"]), r["moves"].split())
        for r in ROWS
        if r["variant"] in ("crazyhouse", "s-chess")
    }
    assert any("promoted:-" not in g.position_text for k, g in texts.items() if "crazy" in k)
    assert any("hand:-" not in g.position_text for k, g in texts.items() if "crazy" in k)
    castles = [
        m.notation for g in texts.values() for m in g.legal_moves() if m.notation.startswith("O-O")
    ]
    assert any("/H@" in n for n in castles) and any(n.endswith(("/E", "/H")) for n in castles)


# ---------------------------------------------------------------------------- messages

BASE = """\
id = "mine"
name = "Mine"
files = 8
ranks = 8

[pieces]
king = "K"
rook = "R"
hawk = { letter = "H", betza = "BN" }
pawn = { letter = "", double-step = "initial", promotion = { to = ["rook", "hawk"] } }

[setup]
1 = "R H . . K . . R"
2 = "P P P P P P P P"
"""


def refusal(text: str) -> VariantError:
    with pytest.raises(VariantError) as info:
        variant = load_definition(text, source="mine.toml")
        sanity_check(variant)
    return info.value


@pytest.mark.parametrize(
    ("old", "new", "key", "line", "fragment"),
    [
        ('betza = "BN"', 'betza = "BNQx"', "pieces.hawk.betza", 9, "unexpected 'x'"),
        ('betza = "BN"', 'betza = "BNY"', "pieces.hawk.betza", 9, "unknown atom 'Y'"),
        ('2 = "P P P P P P P P"', '2 = "P P P P P P P"', "setup.2", 14, "has 7 squares"),
        ('king = "K"', 'king = { letter = "K", royal = false }', "pieces", 6, "no royal piece"),
        ('rook = "R"', 'rook = "H"', "pieces.hawk.letter", 9, "already the letter of rook"),
        ('to = ["rook", "hawk"]', 'to = ["rook", "hawke"]', "pieces.pawn.promotion.to", 10,
         "unknown piece 'hawke'"),
        ('1 = "R H . . K . . R"', '1 = "R H . . K . . R"\n6 = ". . . H . . . ."', "setup", 12,
         "White, who moves first, could capture it"),
        ('files = 8', 'files = 8\ncolour = "red"', "colour", 4, "unknown key"),
        ('[setup]', '[rules]\natomic = true\n\n[setup]', "rules.atomic", 13,
         "blast = { immune"),
        ('[setup]', '[rules]\nstalemate = "lose"\n\n[setup]', "rules.stalemate", 13, "'loss'"),
    ],
)  # fmt: skip
def test_every_mistake_names_key_line_and_an_example(
    old: str, new: str, key: str, line: int, fragment: str
) -> None:
    assert old in BASE
    error = refusal(BASE.replace(old, new))
    assert error.key == key
    assert error.line == line
    assert fragment in error.reason
    assert error.example, "a player's file gets an example of the right form"
    assert str(error).startswith(f"mine.toml, line {line}: {key}")


def test_a_syntax_error_gives_tomllib_s_line_and_column() -> None:
    error = refusal(BASE.replace('name = "Mine"', 'name = "Mine'))
    assert error.line == 2 and "column" in error.reason and error.example


def test_an_unknown_key_suggests_the_nearest() -> None:
    error = refusal(BASE.replace("files = 8", "file = 8"))
    assert "did you mean 'files'?" in error.reason


def test_a_capturable_king_at_the_start_is_refused_with_the_attacker() -> None:
    text = BASE.replace("2 = ", '6 = ". . . . R . . ."\n2 = ').replace("P P P P P", "P P P P .")
    error = refusal(text)
    assert error.key == "setup"
    assert "White's Rook on e6 attacks Black's King on e8" in error.reason


def test_a_player_file_may_not_take_a_builtin_id_or_extend_a_path() -> None:
    assert "built-in variant" in refusal(BASE.replace('"mine"', '"chess"')).reason
    error = refusal(BASE.replace('name = "Mine"', 'name = "Mine"\nextends = "../../etc/passwd"'))
    assert error.key == "extends" and "not a built-in variant" in error.reason


def test_a_chess_with_one_new_piece_is_a_few_lines() -> None:
    text = (
        'id = "hawk-chess"\nname = "Hawk Chess"\nextends = "chess"\n'
        '[pieces]\nhawk = { letter = "H", betza = "DAHG" }\n'
        '[setup]\n1 = "R H B Q K B H R"\n'
    )
    variant = load_definition(text)
    assert [p.id for p in new_pieces(variant)] == []  # DAHG is the catalogue's Hawk
    assert perft(Game(variant).position, 1) == 16 + 2 * 4
    other = load_definition(text.replace("DAHG", "WA"))
    assert [p.id for p in new_pieces(other)] == []  # the Phoenix
    fresh = load_definition(text.replace("DAHG", "WAN"))
    assert [p.id for p in new_pieces(fresh)] == ["hawk"]


# ---------------------------------------------------------------------------- limits


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (BASE + "\n# " + "x" * limits.MAX_FILE_BYTES, "at most 32,768"),
        ("a = " + "[" * 40 + "]" * 40, "nested 40 deep"),
        ("a" + ".a" * 700 + " = 1", "dots"),
        ("a = " + "9" * 5000, "cannot be read"),
        ('a = "' + "x" * 3000 + '"', "3000 characters"),
        (BASE.replace("files = 8", "files = 99999999"), "out of range"),
        (BASE.replace('betza = "BN"', 'betza = "' + "W" * 100 + '"'), "at most 80"),
        (BASE.replace('betza = "BN"', 'betza = "R99"'), "longer than any board"),
        (BASE.replace('betza = "BN"', 'betza = "(1,99)"'), "leaves every board"),
        (BASE.replace('betza = "BN"', 'betza = "pR1"'), "with a range of 1 it never lands"),
        (BASE.replace("[setup]", "x = 1.5\n[setup]"), "decimal point"),
    ],
    ids=lambda x: x[:20] if isinstance(x, str) else x,
)
def test_untrusted_input_is_bounded(text: str, fragment: str) -> None:
    with pytest.raises(VariantError, match=fragment.replace("(", r"\(")):
        load_definition(text)


def piece_lines(n: int, betza: str) -> str:
    letters = [a + b for a in "ABCDEFGHIJ" for b in "ABCDEFGHIJ"][:n]
    return "\n".join(
        f'p{i} = {{ letter = "{ltr}", betza = "{betza}" }}' for i, ltr in enumerate(letters)
    )


def big_board(pieces: str) -> str:
    head = 'id = "big"\nname = "Big"\nfiles = 16\nranks = 16\n[pieces]\nking = "K"\n'
    return f'{head}{pieces}\n[setup]\n1 = "K{" ." * 15}"\n'


def test_too_many_piece_types_and_too_heavy_tables_are_refused() -> None:
    error = refusal(big_board(piece_lines(40, "W")))
    assert error.key == "pieces" and "41 piece types" in error.reason
    heavy = big_board(piece_lines(39, "QNNAADDGGZZCC"))
    error = refusal(heavy)
    assert error.key == "pieces" and "move tables would hold" in error.reason
    assert "heaviest piece" in error.reason


def test_the_sanity_run_is_bounded_by_counted_work() -> None:
    variant = example("grand")
    with pytest.raises(VariantError, match="sanity run needed more than 1,000"):
        sanity_check(variant, budget=1000)


# ---------------------------------------------------------------------------- mechanisms


def test_shatranj_bare_king_loses_unless_it_bares_back() -> None:
    shatranj = example("shatranj")
    # White's Rook takes Black's last piece: Black is bare but has its reply.
    game = Game.from_position_text(shatranj, "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1")
    game.play("e2xe7+")
    assert game.outcome() is None  # Black may still bare White's King...
    game.play("e8xe7")
    assert game.outcome() is not None
    assert game.outcome().termination is Termination.INSUFFICIENT_MATERIAL  # both bare
    # Against two pieces no reply could bare White: Black has lost at once.
    game = Game.from_position_text(shatranj, "4k3/4r3/8/8/8/8/R3R3/4K3 w - - 0 1")
    game.play("e2xe7+")
    ended = game.outcome()
    assert ended is not None and ended.termination is Termination.BARE_KING
    assert ended.result_text == "white wins by baring the king" and ended.winner == 0


def test_shatranj_stalemate_loses_for_the_side_that_cannot_move() -> None:
    game = Game.from_position_text(example("shatranj"), "k7/p1R5/P1K5/8/8/8/8/8 w - - 0 1")
    game.play("c7-b7")  # Black: a8 has no move and is not in check
    ended = game.outcome()
    assert ended is not None and ended.termination is Termination.STALEMATE_WIN
    assert ended.result_text == "white wins by stalemate"


def test_a_goal_zone_wins_at_once() -> None:
    zone = 'goal-zone = { piece = "king", squares = ["d4", "e4", "d5", "e5"] }'
    text = f'id = "hill"\nname = "Hill"\nextends = "chess"\n[rules]\n{zone}\n'
    hill = load_definition(text)
    assert "A King that reaches d4, d5, e4 or e5 wins at once." in rules_summary(hill)
    game = Game.from_position_text(hill, "7k/7p/8/8/8/4K3/8/8 w - - 0 1")
    game.play("e3-e4")
    ended = game.outcome()
    assert ended is not None and ended.result_text == "white wins by reaching the goal"


STONES = """id = "stones"
name = "Stones"
files = 4
ranks = 4

[pieces]
stone = { letter = "S", betza = "mfW mfF" }

[setup]
1 = "S S . ."
2 = "S S . ."

[setup.black]
4 = ". . S S"
3 = ". . S S"

[rules]
repetition = 0
"""


def stones(zone: str, extra: str = "") -> Variant:
    return load_definition(f"{STONES}{extra}goal-zone = {{ {zone} }}\n", source="stones.toml")


def test_a_goal_zone_may_need_several_pieces_or_a_full_zone() -> None:
    corners = 'squares = ["c3", "c4", "d3", "d4"], black-squares = ["a1", "a2", "b1", "b2"]'
    two = stones(f'piece = "stone", count = 2, {corners}')
    assert "2 Stones that reach c3, c4, d3 or d4" in "\n".join(rules_summary(two))
    game = Game.from_position_text(two, "3s/2S1/4/S3 w - - 0 1")
    game.play("a1-a2")
    assert game.outcome() is None  # one Stone there is not enough
    game = Game.from_position_text(two, "3S/2S1/s3/4 w - - 0 1")
    assert game.outcome() is None  # only the side that has just moved is looked at
    game.play("c3-c4")
    ended = game.outcome()
    assert ended is not None and ended.winner == 0 and ended.termination is Termination.GOAL
    full = stones(f'piece = "stone", count = 4, full = true, {corners}')
    game = Game.from_position_text(full, "2ss/3s/1S2/4 w - - 0 1")
    game.play("b2-c3")  # one Stone in the zone, which is now full
    ended = game.outcome()
    assert ended is not None and ended.winner == 0
    with pytest.raises(VariantError, match="count"):
        stones(f'piece = "stone", count = 0, {corners}')
    with pytest.raises(VariantError, match="several goal pieces"):
        stones(f'piece = "stone", count = 2, safe = true, {corners}')


def test_a_goal_zone_for_any_piece_or_for_one_side_only() -> None:
    black_only = stones('piece = "any", squares = [], black-squares = ["a1", "b1"]')
    assert "A Black piece that reaches a1 or b1 wins at once." in rules_summary(black_only)
    game = Game.from_position_text(black_only, "4/4/s3/3S b - - 0 1")
    game.play("a2-a1")
    ended = game.outcome()
    assert ended is not None and ended.winner == 1
    game = Game.from_position_text(black_only, "3S/4/s3/4 b - - 0 1")
    assert game.outcome() is None  # White has no goal
    with pytest.raises(VariantError, match="must list square names"):
        stones('piece = "any", squares = [], black-squares = []')
    with pytest.raises(VariantError, match="not any piece"):
        stones('piece = "any", squares = ["d4"], reply = true')


def test_a_game_without_royal_pieces_ends_when_a_side_cannot_move() -> None:
    nim = load_definition(f'{STONES}stalemate = "loss"\n', source="stones.toml")
    game = Game.from_position_text(nim, "4/4/ss2/S3 w - - 0 1")
    ended = game.outcome()
    assert ended is not None and ended.winner == 1  # White, blocked, cannot move
    with pytest.raises(VariantError, match="no royal piece"):
        load_definition(STONES, source="stones.toml")  # nothing could win it


def test_repetition_zero_never_ends_a_game_by_repetition() -> None:
    nim = load_definition(f'{STONES}stalemate = "loss"\n', source="stones.toml")
    assert "No repetition rule; the 50-move rule." in "\n".join(rules_summary(nim))
    rooks = load_definition(
        'id = "r"\nname = "R"\nextends = "chess"\n[rules]\nrepetition = 0\n', source="r.toml"
    )
    game = Game.from_position_text(rooks, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    for _ in range(3):
        for move in ("a1-a2", "e8-d8", "a2-a1", "d8-e8"):
            game.play(move)
    assert game.outcome() is None


def test_a_winning_castling_move_wins_and_losing_the_right_loses() -> None:
    text = """id = "castle-race"
name = "Castle race"
extends = "chess"

[castling]
moves = [
    { king = "e1", king-to = "g1", rook = "h1", rook-to = "f1" },
    { king = "e1", king-to = "c1", rook = "a1", rook-to = "d1", wins = ["black"] },
]
"""
    race = load_definition(text, source="castle-race.toml")
    assert "Black wins by castling O-O-O, and loses once it can no longer castle so." in (
        rules_summary(race)
    )
    start = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1"
    game = Game.from_position_text(race, start)
    game.play("O-O-O")
    ended = game.outcome()
    assert ended is not None and ended.result_text == "black wins by castling"
    assert Outcome.from_text(ended.result_text) == ended
    game = Game.from_position_text(race, start)
    game.play("O-O")  # the King has moved: O-O-O is gone for good
    ended = game.outcome()
    assert ended is not None and ended.result_text == "white wins: black can no longer castle"
    assert Outcome.from_text(ended.result_text) == ended
    game = Game.from_position_text(race, start)
    game.play("h8-g8")
    assert game.outcome() is None
    with pytest.raises(VariantError, match="wins"):
        load_definition(text.replace('["black"]', '["red"]'), source="castle-race.toml")


def test_crazyhouse_promoted_pieces_return_as_pawns() -> None:
    zh = example("crazyhouse")
    game = Game.from_position_text(zh, "3qk3/4P3/8/8/8/8/8/4K3 w - - 0 1 hand:- promoted:-")
    game.play("e7xd8Q+")
    assert "promoted:d8" in game.position_text
    game.play("e8xd8")
    assert game.position_text.endswith("hand:Q,p promoted:-")  # the captor holds a Pawn
    again = parse_position(zh, game.position_text)
    assert format_position(again) == game.position_text


def test_crazyhouse_en_passant_captures_go_to_hand_and_dropped_pawns_double_step() -> None:
    game = game_after(str(EXAMPLES / "crazyhouse.toml"), ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"])
    assert "hand:P" in game.position_text
    game.play("c7xd6")
    game.play("P@e2")
    assert "e2-e4" in {m.notation for m in game.legal_moves()} or game.side_to_move == 1
    game.play("a6-a5")
    assert "e2-e4" in {m.notation for m in game.legal_moves()}


def test_s_chess_gating_notation_round_trips_and_never_covers_check() -> None:
    s = example("s-chess")
    game = game_after(
        str(EXAMPLES / "s-chess.toml"), ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]
    )
    castles = {m.notation for m in game.legal_moves() if m.notation.startswith("O-O")}
    assert castles == {"O-O", "O-O/H", "O-O/E", "O-O/H@h1", "O-O/E@h1"}
    game.play("O-O/E@h1")
    assert game.history[-1].coordinates == "e1g1/E@h1"
    assert "E" not in game.position_text.split("hand:")[1].split()[0].split(",")
    # A gated piece may not be what parries a check (Fairy-Stockfish and the rules agree).
    pos = parse_position(s, "4k2Q/8/8/8/8/8/8/4K3 b - - 0 1 hand:h,e")
    legal = Game(s, pos).legal_moves()
    assert not [m for m in legal if m.notation.startswith("Ke8-d8/")]
    with pytest.raises(IllegalMoveError, match="in hand"):
        Game(s).play("Nb1-c3/Q")


def test_file_arguments_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    from rules.cli import main

    assert main(["perft", str(EXAMPLES / "janus.toml"), "2"]) == 0
    assert capsys.readouterr().out.strip() == "782"
    assert main(["check", str(EXAMPLES / "courier.toml")]) == 0
    out = capsys.readouterr().out
    assert "Courier Chess (user file) (courier-user), 12x8: the file is valid." in out
    assert "Stalemate loses" in out and "perft 2: 678" in out
    assert main(["moves", "nowhere.toml"]) == 2
    assert "cannot read nowhere.toml" in capsys.readouterr().err


def test_an_option_of_a_player_file_is_checked() -> None:
    text = (
        BASE
        + '\n[options.slow]\ndescription = "No double step."\n'
        + 'set = { pieces = { pawn = { double-step = "none" } } }\n'
    )
    assert perft(Game(load_definition(text, ["slow"])).position, 1) < perft(
        Game(load_definition(text)).position, 1
    )
    with pytest.raises(UnknownVariantError, match="no option 'fast'"):
        load_definition(text, ["fast"])
    assert isinstance(
        refusal(BASE.replace("[setup]", "[rules]\nbare-king = true\n[setup]")), RulesError
    )
