"""Games that Black opens: `[setup] first = "black"` (docs/variants.md, Setup), Fairy-Stockfish's
startFen with `b` to move. The counts, FENs and SAN are pyffish 0.0.90's for the same game,
written as the section `[swappedblack:chess]` with `castling = false` and
`startFen = rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1` (Black's King and Queen
swapped, so that a move of the wrong side shows in the counts)."""

from __future__ import annotations

import pytest

from rules import Game, fsf, ini
from rules.errors import GameRecordError, VariantError
from rules.perft import perft
from rules.pgn import format_pgn, read_pgn
from rules.position import Position
from rules.record import format_record, ply_label, read_record, replay_record
from rules.summary import rules_summary
from rules.variant import load_definition

SWAPPED_BLACK = """
id = "swapped-black"
name = "Swapped, Black first"
description = "Chess with Black's King and Queen swapped, and Black making the first move."
extends = "chess"
castling = false

[setup]
first = "black"

[setup.black]
8 = "R N B K Q B N R"
7 = "P P P P P P P P"

[fairy-stockfish]
variant = "swappedblack"
"""
MOVES = ["e7e5", "d2d4", "d8e7", "c1g5"]


def test_black_is_to_move_at_the_start_and_the_counts_are_fairy_stockfishs() -> None:
    v = load_definition(SWAPPED_BLACK)
    assert v.first == 1
    pos = Position.start(v)
    assert pos.side == 1 and pos.fullmove == 1
    assert fsf.fen(pos) == "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1"
    assert [perft(pos, d) for d in (1, 2, 3)] == [20, 400, 8902]
    game = Game(v)
    game.play("e7e5")
    assert fsf.fen(game.position) == "rnbkqbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w - - 0 2"
    for move in MOVES[1:]:
        game.play(move)
    after = game.position
    assert fsf.fen(after) == "rnb1qbnr/ppppkppp/8/4p1B1/3P4/8/PPP1PPPP/RN1QKBNR b - - 2 3"
    assert [perft(after, d) for d in (1, 2)] == [4, 132]
    # The position text (storage's) reads back to the same position and move number.
    again = Game.from_position_text(v, game.position_text)
    assert again.position.side == 1 and fsf.fen(again.position) == fsf.fen(after)


def test_records_and_pgn_number_the_first_move_one_dots() -> None:
    v = load_definition(SWAPPED_BLACK)
    assert [ply_label(v, i) for i in range(4)] == ["1...", "2.", "2...", "3."]
    game = Game(v)
    for move in MOVES:
        game.play(move)
    record = format_record(game)
    assert "\n1... e7-e5\n2. d2-d4\n2... Kd8-e7\n3. Bc1-g5+\n" in record
    assert replay_record(read_record(record, SWAPPED_BLACK)).position_text == game.position_text
    # A record that starts with White's move is refused at its first ply.
    with pytest.raises(GameRecordError, match=r"expected a ply numbered '1\.\.\.'"):
        replay_record(read_record(record.replace("1... e7-e5", "1. e7-e5"), SWAPPED_BLACK))
    pgn = format_pgn(game, {"White": "Ann", "Black": "Bob"})
    assert '[FEN "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1"]' in pgn
    assert "1... e5 2. d4 Ke7 3. Bg5+ *" in pgn
    back = read_pgn(v, pgn)
    assert [p.move for p in back.history] == [p.move for p in game.history]


def test_the_key_is_checked_and_shown_in_the_rules() -> None:
    with pytest.raises(VariantError, match=r"setup\.first"):
        load_definition(SWAPPED_BLACK.replace('first = "black"', 'first = "red"'))
    assert "Black makes the first move." in rules_summary(load_definition(SWAPPED_BLACK))
    white_first = load_definition(SWAPPED_BLACK.replace('first = "black"', 'first = "white"'))
    assert "Black makes the first move." not in rules_summary(white_first)
    assert Position.start(white_first).side == 0


def test_a_reserve_placed_before_move_one_is_refused() -> None:
    placed = SWAPPED_BLACK.replace(
        '[fairy-stockfish]\nvariant = "swappedblack"',
        '[reserve]\npieces = ["knight"]\nstyle = "placed"',
    )
    with pytest.raises(VariantError, match="White places first"):
        load_definition(placed)


def test_variants_ini_reads_and_writes_black_to_move() -> None:
    section = (
        "[swappedblack:chess]\ncastling = false\n"
        "startFen = rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1\n"
    )
    text = ini.convert_section(section, "swappedblack")
    assert 'first = "black"' in text
    converted = load_definition(text)
    assert converted.first == 1
    assert [perft(Position.start(converted), d) for d in (1, 2)] == [20, 400]
    exported = ini.export_ini(converted)
    assert "startFen = rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1" in exported
    assert load_definition(ini.convert_section(exported, "swappedblack")).first == 1
    # Fairy-Stockfish reads any side other than `b` as White's.
    white = ini.convert_section(section.replace(" b - -", " x - -"), "swappedblack")
    assert "first" not in white


BLACK_OPENS = """\
[blackopens]
maxFile = f
maxRank = 6
customPiece1 = p:mfsWcfF
pawnTypes = p
knight = n
rook = r
king = k
doubleStep = false
promotionRegionWhite = a6 b6 e6 f6
promotionRegionBlack = a1 b1 e1 f1
promotionPieceTypes = nr
startFen = r1k1nr/pppppp/2n3/6/PPPPPP/RN1K1R b - - 0 1
"""
"""The section `blackopens` of data/ini-sections.ini: Black opens, and Pawns promote on
arriving at four squares of the far rank (Argess's two mechanisms); pyffish counts 16, 161,
2635 from the start (data/ini-perft.tsv)."""


def test_promotion_regions_of_squares_are_a_zone_that_exports_back() -> None:
    text = ini.convert_section(BLACK_OPENS, "blackopens")
    assert 'pawn-promotion = { white = "a6 b6 e6 f6", black = "a1 b1 e1 f1" }' in text
    v = load_definition(text)
    assert [perft(Position.start(v), d) for d in (1, 2, 3)] == [16, 161, 2635]
    exported = ini.export_ini(v)
    for line in (
        "promotionRegionWhite = a6 b6 e6 f6",
        "promotionRegionBlack = a1 b1 e1 f1",
        "mandatoryPawnPromotion = true",
        "startFen = r1k1nr/pppppp/2n3/6/PPPPPP/RN1K1R b - - 0 1",
    ):
        assert line in exported
    again = load_definition(ini.convert_section(exported, "blackopens"))
    assert [perft(Position.start(again), d) for d in (1, 2, 3)] == [16, 161, 2635]


def test_a_zone_a_pawn_could_leave_unpromoted_is_refused_both_ways() -> None:
    # Optional promotion: a Pawn may stay in a6 unpromoted and step out sideways to c6.
    optional = BLACK_OPENS + "mandatoryPawnPromotion = false\n"
    (item,) = ini.convert_ini(optional, "mine.ini")
    assert item.error is not None and "stand in them unpromoted" in str(item.error)
    # A Pawn that starts in its zone (b2 for White here) could leave it unpromoted too.
    v = load_definition(ini.convert_section(BLACK_OPENS, "blackopens"))
    starts_inside = v.definition.replace('white = "a6 b6 e6 f6"', 'white = "a6 b6 e6 f6 b2"')
    with pytest.raises(ini.IniRefusal, match="starts unpromoted in its promotion zone"):
        ini.export_ini(load_definition(starts_inside))
