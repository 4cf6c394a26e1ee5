"""The Shogi games (issue 27): Western notation as Fairy-Stockfish writes it, the endings as
pyffish 0.0.90 scores them, and the mechanisms as a player's file uses them. Legal moves,
perft and FEN against Fairy-Stockfish are in `test_fsf_oracle.py` (data/fsf-oracle.tsv)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rules import Game
from rules.errors import AmbiguousMoveError, IllegalMoveError, VariantError
from rules.fsf import uci_moves
from rules.notation import coordinates, format_code, format_short, parse
from rules.perft import perft
from rules.postext import format_position, parse_position
from rules.record import format_record, read_record, replay_record
from rules.summary import rules_summary
from rules.variant import load_definition, load_variant, resolve_variant_id

SAN = Path(__file__).resolve().parent / "data" / "shogi-san.tsv"
GAMES = ("shogi", "minishogi", "kyotoshogi", "micro", "dobutsu", "euroshogi", "judkins", "gorogoro")


def _san_rows() -> list[list[str]]:
    return [line.split("\t") for line in SAN.read_text(encoding="utf-8").splitlines()[1:]]


@pytest.mark.parametrize("row", _san_rows(), ids=lambda r: r[0])
def test_western_notation_is_fairy_stockfishs(row: list[str]) -> None:
    """Every legal move's short form is pyffish's NOTATION_SHOGI_HODGES (written by
    fsf_shogi_san.py), and reads back as that move; Dobutsu's Hen is our `H` (its `+C`)."""
    variant, moves, sans = row
    game = Game.new(variant)
    for move in moves.split():
        game.play(move)
    pos = game.position
    by_uci = uci_moves(pos)
    expected = dict(item.split("=", 1) for item in sans.split())
    assert set(by_uci) == set(expected)
    for uci, code in by_uci.items():
        hodges = expected[uci].replace("+C", "H") if variant == "dobutsu" else expected[uci]
        assert format_short(pos, code) == hodges, uci
        assert parse(pos, hodges).code == code


def test_every_game_is_registered() -> None:
    assert {row[0] for row in _san_rows()} == set(GAMES)


def _played(variant: str, *moves: str, start: str | None = None) -> Game:
    game = Game.from_position_text(variant, start) if start else Game.new(variant)
    for move in moves:
        game.play(move)
    return game


def test_shogi_moves_as_players_write_them() -> None:
    game = Game.new("shogi")
    pos = game.position
    c34 = parse(pos, "c3c4").code
    for text in ("P-7f", "P7g-7f", "P-76", "7g7f", "P7g7f", "Pc3-c4", "c3c4"):
        assert parse(pos, text).code == c34, text
    assert format_code(pos, c34) == "P7g-7f"
    assert format_short(pos, c34) == "P-7f"
    assert coordinates(pos, c34) == "c3c4"
    with pytest.raises(AmbiguousMoveError, match="G6i-5h or G4i-5h"):
        parse(pos, "G-5h")
    assert format_short(pos, parse(pos, "G6i-5h").code) == "G6i-5h"
    game.play("P-7f")
    game.play("P-3d")
    pos = game.position
    promote = parse(pos, "Bx2b+").code
    assert coordinates(pos, promote) == "b2h8+"
    assert format_code(pos, promote) == "B8hx2b+"
    assert parse(pos, "b2h8+").code == promote  # Fairy-Stockfish's UCI
    assert parse(pos, "8h2b+").code == promote  # USI
    declined = parse(pos, "Bx2b=").code
    assert declined != promote and parse(pos, "Bx2b").code == declined
    assert format_short(pos, declined) == "Bx2b="
    played = game.play("Bx2b+")
    assert played.notation == "B8hx2b+" and played.coordinates == "b2h8+"
    game.play("Sx2b")
    assert game.play("B*4e").coordinates == "B@f5"  # the Bishop taken returns unpromoted
    assert game.position_text.endswith("hand:b")  # White's Horse went back as a Bishop


def test_refusals_say_why() -> None:
    start = "lnsgkgsn1/9/9/9/9/9/4P4/9/LNSGKGSNL w - - 0 1 hand:P"
    pos = parse_position("shogi", start)
    with pytest.raises(IllegalMoveError, match="already have a Pawn on that file"):
        parse(pos, "P*5e")
    with pytest.raises(IllegalMoveError, match="could never move"):
        parse(pos, "P*1a")
    with pytest.raises(IllegalMoveError, match="7i-7h cannot promote or turn back here"):
        parse(pos, "c1c2+")
    with pytest.raises(IllegalMoveError, match="the way from 2h to 2c is blocked on 2g"):
        parse(Game.new("shogi").position, "R2h-2c")  # messages name squares the Shogi way
    pos = _played("shogi", "c3c4", "g7g6", "b2h8+", "g9h8").position
    with pytest.raises(IllegalMoveError):
        parse(pos, "c4c5+")  # a Pawn outside the zone


def test_a_pawn_must_promote_where_it_could_never_move_again() -> None:
    pos = parse_position("shogi", "4k4/P8/9/9/9/9/9/9/4K4 w - - 0 1 hand:-")
    moves = {format_short(pos, c) for c in pos.legal_codes()}
    assert "P-9a+" in moves and "P-9a" not in moves and "P-9a=" not in moves
    assert parse(pos, "P-9a").move == parse(pos, "a8a9+").move  # the only way there


def test_kyoto_pieces_turn_over_after_every_move() -> None:
    game = Game.new("kyotoshogi")
    pos = game.position
    assert format_short(pos, parse(pos, "e1e2+").code) == "P-1d+"
    assert parse(pos, "P-1d").code == parse(pos, "e1e2+").code  # no other way to move it
    assert format_short(pos, parse(pos, "a1a2-").code) == "+L-5d-"
    game.play("e1e2+")
    turned = game.position.piece_at(9)  # e2
    assert turned is not None and (turned.name, turned.letters) == ("Rook", "+P")


def test_micro_pieces_turn_over_when_they_capture() -> None:
    game = Game.new("micro")
    assert "b1b2" in uci_moves(game.position)  # a quiet move keeps the side it shows


# (variant, position text or None for the start, moves, result) as pyffish 0.0.90 reports
# them (game_result, is_optional_game_end, is_immediate_game_end), checked move by move.
CHECKS = "a1a9 " + "e9e8 a9a8 e8e9 a8a9 " * 3
GOLDS = "b1b2 d5d4 b2b1 d4d5 " * 3
SHUFFLE = "d1d2 f9f8 d2d1 f8f9 " * 3
LIONS = "1g1/1L1/2l/3 w - - 0 1 hand:-"
ENDINGS = [
    ("shogi", "7lk/9/7G1/9/9/9/9/9/K8 w - - 0 1 hand:P", "P@i8",
     "black wins: white gave mate with a forbidden drop"),
    ("shogi", "4k4/9/9/9/9/9/9/9/R7K w - - 0 1 hand:-", CHECKS,
     "black wins: white gave perpetual check"),
    ("minishogi", None, GOLDS, "black wins by repetition"),
    ("shogi", None, SHUFFLE, "draw by repetition"),
    ("shogi", "k8/2G6/1S7/9/9/9/9/9/8K b - - 0 1 hand:-", "", "white wins by stalemate"),
    ("dobutsu", None, "b2b3 b4b3 C@b2 a4a3 b1c2 b3a2 c2b3 a2a1", "black wins by reaching the goal"),
    ("dobutsu", LIONS, "b3a4 b4a4", "black wins by capturing the royal piece"),
    ("dobutsu", LIONS, "b3a4 b4c4", "white wins by reaching the goal"),
    ("dobutsu", LIONS, "b3b4", "white wins by reaching the goal"),
    ("dobutsu", LIONS, "b3a4 c2c1", "black wins by reaching the goal"),
]  # fmt: skip


@pytest.mark.parametrize(("variant", "start", "moves", "result"), ENDINGS)
def test_endings_are_fairy_stockfishs(
    variant: str, start: str | None, moves: str, result: str
) -> None:
    game = _played(variant, start=start)
    played = moves.split()
    for move in played[:-1] if played else ():
        game.play(move)
        assert game.outcome() is None, move
    if played:
        game.play(played[-1])
    ended = game.outcome()
    assert ended is not None and ended.result_text == result
    assert game.legal_moves() == []


def test_a_lion_on_the_far_rank_under_attack_has_not_won_yet() -> None:
    game = _played("dobutsu", "b3a4", start="1g1/1L1/2l/3 w - - 0 1 hand:-")
    assert game.outcome() is None and game.legal_moves()


def test_start_counts_and_names() -> None:
    assert [perft(Game.new("dobutsu").position, d) for d in (1, 2, 3)] == [4, 17, 123]
    assert resolve_variant_id("mini") == ("minishogi", ())  # Fairy-Stockfish's other id
    for variant in GAMES:
        pos = Game.new(variant).position
        assert format_position(parse_position(variant, format_position(pos))) == (
            format_position(pos)
        )


# ---------------------------------------------------------------------- players' files

BASE = """
id = "mine"
name = "Mine"
extends = "minishogi"
"""


def test_the_keys_work_in_a_players_file() -> None:
    text = BASE + '[regions]\nhome = "*1 *2"\n[rules]\ndrop-region = "home"\n'
    variant = load_definition(text)
    pos = parse_position(variant, "rbsgk/4p/5/P4/KGSBR w - - 0 1 hand:G")
    drops = {coordinates(pos, c) for c in pos.legal_codes() if "@" in coordinates(pos, c)}
    assert drops == {"G@b2", "G@c2", "G@d2", "G@e2"}
    assert "Pieces are dropped only in the home (*1 *2 for White)." in rules_summary(variant)


def test_a_drop_mate_may_be_illegal_instead() -> None:
    start = "3rk/5/3G1/5/K4 w - - 0 1 hand:P"
    loses = parse_position("minishogi", start)
    assert "P@e4" in uci_moves(loses)
    text = BASE + '[pieces]\nshogi-pawn = { drop-mate = "illegal" }\n'
    banned = parse_position(load_definition(text), start)
    assert "P@e4" not in uci_moves(banned) and "P@e2" in uci_moves(banned)
    with pytest.raises(IllegalMoveError, match="may not be dropped to give checkmate"):
        parse(banned, "P*1b")


def test_the_repeating_side_may_lose() -> None:
    text = BASE + '[rules]\nrepetition-result = "repeater-loses"\nperpetual-check = "draw"\n'
    game = Game(load_definition(text))
    for move in GOLDS.split():
        game.play(move)
    ended = game.outcome()
    assert ended is not None and ended.result_text == "white wins by repetition"


@pytest.mark.parametrize(
    ("extra", "key", "message"),
    [
        (
            '[pieces]\ngold = { letter = "G", promotion = { to = ["tokin"], mandatory = true } }',
            "mandatory",
            "applies to a promotion zone",
        ),
        (
            '[pieces]\nsilver = { letter = "S", promotion = { to = ["gold"], zone = "nowhere" } }',
            "zone",
            "unknown region",
        ),
        ('[pieces]\ntokin = { letter = "+P", demotes-to = "king" }', "demotes-to", "non-royal"),
        ("[rules]\ndrop-promoted = true\ncaptures-to-hand = false", "drop-promoted", "needs"),
        ('[rules]\nrepetition-result = "sometimes"', "repetition-result", "must be one of"),
        ('[rules]\nperpetual-check = "sometimes"', "perpetual-check", "must be 'loss'"),
    ],
)
def test_mistakes_name_the_key(extra: str, key: str, message: str) -> None:
    with pytest.raises(VariantError, match=message) as err:
        load_definition(BASE + extra)
    assert key in err.value.key


def test_shogi_notation_needs_at_most_nine_files() -> None:
    text = 'id = "mine"\nname = "Mine"\nnotation = "shogi"\nextends = "grand"\n'
    with pytest.raises(VariantError, match="at most 9 files"):
        load_definition(text)


def test_plus_letters_stay_apart_from_the_pawn_sign() -> None:
    text = 'id = "mine"\nname = "Mine"\nextends = "bigorra"\n[pieces]\ntokin = "+T"\n'
    with pytest.raises(VariantError, match="cannot be told from the Pawn"):
        load_definition(text)


def test_small_boards_are_playable() -> None:
    variant = load_variant("dobutsu")
    assert (variant.geometry.files, variant.geometry.ranks) == (3, 4)
    game = Game.new("dobutsu")
    assert game.play("C-2b").notation == "C2cx2b"
    assert game.position_text == "gle/1C1/3/ELG b - - 0 1 hand:C"


@pytest.mark.parametrize("variant", GAMES)
def test_records_round_trip(variant: str) -> None:
    """A game record written in Western notation (with its +P legend) replays to the same
    position: promotions, drops and turned-over pieces included."""
    game = Game.new(variant)
    rng = random.Random(variant)
    while game.outcome() is None and game.ply < 60:
        game.play_move(rng.choice(game.legal_moves()).move)
    again = replay_record(read_record(format_record(game)))
    assert again.position_text == game.position_text
