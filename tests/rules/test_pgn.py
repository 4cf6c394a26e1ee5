"""PGN for every variant Fairy-Stockfish knows: the export format other tools read, moves
as pyffish 0.0.90 writes them (data/fsf-san.tsv, from `tests.rules.fsf_san`), the tags of
the variant servers, and PGN that reads back to the same game."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from rules import Game, fsf, ini
from rules.notation import Letters, parse
from rules.pgn import format_pgn, has_pgn, pgn_tags, read_pgn
from rules.position import Position
from rules.postext import parse_position
from rules.variant import load_definition, load_variant
from tests.rules.conftest import record_moves

RECORDS = Path(__file__).resolve().parent / "games"


def test_scholars_mate() -> None:
    game = Game.replay("chess", (), ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"])
    text = format_pgn(
        game, {"White": "alice", "Black": "bob", "Date": "2026.11.24", "Site": "Fairy Post"}, "1-0"
    )
    assert text == (
        '[Event "?"]\n[Site "Fairy Post"]\n[Date "2026.11.24"]\n[Round "-"]\n'
        '[White "alice"]\n[Black "bob"]\n[Result "1-0"]\n\n'
        "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n"
    )


def test_castling_promotion_en_passant_and_disambiguation() -> None:
    moves = ["e2e4", "d7d5", "e4e5", "f7f5", "e5f6", "e7e6", "g1f3", "b8d7", "f1e2", "g8e7"]
    moves += ["e1g1", "e7g6", "f6g7", "h7h6", "g7h8q", "d7f6", "h8g8", "f6g8"]
    text = format_pgn(Game.replay("chess", (), moves), {}, "*")
    assert text.split("\n\n")[1] == (
        "1. e4 d5 2. e5 f5 3. exf6 e6 4. Nf3 Nd7 5. Be2 Ne7 6. O-O Ng6 7. fxg7 h6\n"
        "8. gxh8=Q Nf6 9. Qg8 Nxg8 *\n"
    )
    # Two Knights can reach d4: the file tells them apart.
    game = Game.replay("chess", (), ["g1f3", "e7e5", "f3d4"])
    assert "2. Nd4" in format_pgn(game, {}, "*")
    game = Game.replay("chess", (), ["g1f3", "e7e5", "b1c3", "a7a6", "c3b5", "a6a5", "f3d4"])
    assert "4. Nfd4" in format_pgn(game, {}, "*")


def _sans(text: str) -> list[str]:
    body = text.split("\n\n", 1)[1]
    return [t for t in body.split() if not re.fullmatch(r"\d+\.|1-0|0-1|1/2-1/2|\*", t)]


@pytest.mark.parametrize("record", ["chess-opera.txt", "grand-mate.txt"])
def test_recorded_games_read_back_from_their_san(record: str) -> None:
    path = RECORDS / record
    variant = path.read_text().split("variant:", 1)[1].split()[0]
    game = Game.replay(variant, (), record_moves(path))
    text = format_pgn(game, {}, "*")
    assert all(len(line) <= 80 for line in text.split("\n\n")[1].splitlines())
    letters = {"C": "marshal", "A": "cardinal"} if variant == "grand" else {}
    theirs = Letters(
        {
            p.id: next((k for k, v in letters.items() if v == p.id), p.letters)
            for p in game.variant.pieces
        }
    )
    pos = parse_position(variant, game.start_text)
    for san, played in zip(_sans(text), game.history, strict=True):
        code = parse(pos, san, letters=theirs).code
        assert code == pos.to_code(played.move), san
        pos.push_code(code)


def test_grand_chess_tags_and_letters() -> None:
    game = Game.replay("grand", (), ["Mf2-e4", "g8g7", "Cg2-h4"])
    text = format_pgn(game, {"White": "a", "Black": "b"}, "*")
    assert text.endswith("\n\n1. Ce4 g7 2. Ah4 *\n")
    assert '[Variant "Grand"]' in text and '[SetUp "1"]' in text
    assert (
        '[FEN "r8r/1nbqkcabn1/pppppppppp/10/10/10/10/PPPPPPPPPP/1NBQKCABN1/R8R w - - 0 1"]' in text
    )
    assert has_pgn(load_variant("grand")) and has_pgn(load_variant("chess"))
    assert not has_pgn(load_variant("bigorra"))
    with pytest.raises(ValueError, match="no PGN form"):
        format_pgn(Game.new("bigorra"), {})


SAN_TABLE = Path(__file__).resolve().parent / "data" / "fsf-san.tsv"
SAN_ROWS = [line.split("\t") for line in SAN_TABLE.read_text().splitlines()[1:]]


def _san_along(pos: Position, moves: str, table: Mapping[str, str] | None = None) -> list[str]:
    """Fairy Post's SAN of each of `moves` (Fairy-Stockfish's UCI), played on `pos`."""
    ours = []
    for uci in moves.split():
        code = fsf.uci_moves(pos)[uci]
        ours.append(fsf.san(pos, code, table))
        pos.push_code(code)
    return ours


@pytest.mark.parametrize(("variant_id", "moves", "san"), SAN_ROWS, ids=[r[0] for r in SAN_ROWS])
def test_san_as_fairy_stockfish_writes_it(variant_id: str, moves: str, san: str) -> None:
    game = Game.new(variant_id)
    pos = game.position.copy()
    assert _san_along(pos, moves, fsf.letters(game.variant)) == san.split()


# A section of our own: a Lance promoting into a Rook and a custom piece into a Queen by
# promotedPieceType, beside a real Rook (Fairy-Stockfish's FEN writes the promoted Lance +L).
PROMOTED_FORMS_INI = """[sanpromo:chess]
lance = l
customPiece1 = g:fFfW
promotedPieceType = l:r g:q
castling = false
startFen = 4k3/1G5L/8/8/8/8/8/R3K3 w - - 0 1
"""


@pytest.mark.parametrize(
    ("moves", "san"),
    [
        # pyffish 0.0.90's get_san_moves: the promoted type's letter, as promotion and mover,
        # and a promoted Lance is one of the Rooks when the origin is written (Raa8, Rhb8)
        ("h7h8+ e8d7 a1a8 d7e6 h8b8", "Lh8=R+ Kd7 Raa8 Ke6 Rhb8"),
        ("b7b8+ e8d7 b8b7 d7e6 a1a7", "Gb8=Q+ Kd7 Qb7+ Ke6 Ra7"),
        ("a1a6 e8d7 h7h8+ d7e7 h8h6", "Ra6 Kd7 Lh8=R Ke7 Rhh6"),
    ],
)
def test_san_of_promoted_forms_outside_shogi_as_fairy_stockfish_writes_it(
    moves: str, san: str
) -> None:
    toml = ini.convert_section(PROMOTED_FORMS_INI, "sanpromo")
    assert 'san = { promoted-lance = "r", promoted-custom-g = "q" }' in toml
    pos = Game(load_definition(toml)).position.copy()
    assert _san_along(pos, moves) == san.split()
    if "=R" in san:
        assert "+L" in fsf.fen(pos)  # the FEN's letter stays the promoted Lance's


@pytest.mark.parametrize(
    ("section", "moves", "san"),
    [
        # variantTemplate = shogi: pyffish 0.0.90 writes Shogi's Western notation instead
        (PROMOTED_FORMS_INI + "[sanshogi:sanpromo]\nvariantTemplate = shogi\n",
         "h7h8+ e8d7 a1a8 d7e6 h8b8", "L-11+ K-52 R-81 K-43 +L-71"),
        # ... which a child of Fairy-Stockfish's minishogi inherits
        ("[sanshogi:minishogi]\ncapturesToHand = true\n",
         "e1e4 d5e4 P@c4 b5c4 d1e2 R@b5 e2c4 P@a3 c4b5 a5b5",
         "Rx12 Gx12 P*32 Bx32 B-14 R*41 Bx32 P*53 Bx41= Rx41"),
        # a declined promotion (=) only where the promotion is legal: not past its limit
        ("[lim:chess]\nvariantTemplate = shogi\nlance = l\ncustomPiece1 = x:R\n"
         "promotedPieceType = l:x\npromotionLimit = x:1\ncastling = false\n"
         "startFen = 4k3/L6L/8/8/8/8/8/4K3 w - - 0 1\n",
         "h7h8 e8d7 a7a8+ d7c7 a8a1", "L-11= K-52 L-81+ K-62 +L-88"),
        ("[lim:chess]\nvariantTemplate = shogi\nlance = l\ncustomPiece1 = x:R\n"
         "promotedPieceType = l:x\npromotionLimit = x:1\ncastling = false\n"
         "startFen = 4k3/L6L/8/8/8/8/8/4K3 w - - 0 1\n",
         "a7a8+ e8d7 h7h8", "L-81+ K-52 L-11"),
    ],
)  # fmt: skip
def test_shogi_template_sections_are_written_in_shogi_notation(
    section: str, moves: str, san: str
) -> None:
    toml = ini.convert_ini(section, "mine.ini")[-1].toml
    assert toml is not None and 'notation = "shogi"' in toml
    assert _san_along(Game(load_definition(toml)).position.copy(), moves) == san.split()


@pytest.mark.parametrize(
    ("variant_id", "tag"),
    [
        ("xiangqi", "Xiangqi"),
        ("shogi", "Shogi"),
        ("crazyhouse", "Crazyhouse"),
        ("seirawan", "Seirawan"),
        ("janggi", "Janggi"),
        ("grand", "Grand"),
        ("chess", None),
        ("almost", "almost"),
    ],
)
def test_pgn_reads_back_to_the_game(variant_id: str, tag: str | None) -> None:
    row = next(r for r in SAN_ROWS if r[0] == variant_id)
    game = Game.replay(variant_id, (), row[1].split())
    text = format_pgn(game, {"White": "a", "Black": "b"}, "*")
    tags = pgn_tags(text)
    assert tags.get("Variant") == tag
    if tag is None:
        assert "FEN" not in tags
    else:
        assert tags["FEN"] == fsf.fen(Game.new(variant_id).position) and tags["SetUp"] == "1"
    back = read_pgn(game.variant, text)
    assert [p.move for p in back.history] == [p.move for p in game.history]
    assert back.position_text == game.position_text
