"""Boards of one rank or one file (Fairy-Stockfish's 1D Chess is 8x1): the geometry, what
a variant file on such a board must say, and moves, SAN and FEN as pyffish 0.0.90 writes
them. The counts of the self-written `ribbon` (12x1) and `column` (1x10) sections of
`data/ini-sections.ini` are compared with pyffish's in `test_ini.py`."""

from __future__ import annotations

import random
from functools import cache

import pytest

from rules import fsf, ini
from rules.errors import VariantError
from rules.game import Game
from rules.geometry import Geometry
from rules.notation import format_move, parse_move
from rules.perft import perft
from rules.variant import Variant, load_definition
from tests.rules.test_ini import SECTIONS


def strip(files: int, ranks: int, white: dict[int, str], black: dict[int, str] | None) -> str:
    """A variant file with Kings, Rooks and Dabbabas (`D`, the Knight of 1D Chess)."""
    text = (
        f'id = "strip"\nname = "Strip"\nfiles = {files}\nranks = {ranks}\n\n[pieces]\n'
        'king = "K"\nrook = "R"\nknight = { letter = "N", betza = "D" }\n\n[setup]\n'
    )
    text += "".join(f'{rank} = "{row}"\n' for rank, row in white.items())
    if black is not None:
        text += "\n[setup.black]\n" + "".join(f'{r} = "{row}"\n' for r, row in black.items())
    return text


def test_the_squares_of_one_rank_and_of_one_file() -> None:
    rank = Geometry(8, 1)
    assert [rank.name(sq) for sq in range(rank.size)] == [
        "a1",
        "b1",
        "c1",
        "d1",
        "e1",
        "f1",
        "g1",
        "h1",
    ]
    assert rank.parse("h1") == 7 and rank.parse("a2") is None and rank.parse("i1") is None
    assert rank.offset(3, 2, 0) == 5 and rank.offset(3, 0, 1) is None
    assert rank.offset(3, 1, 1) is None and rank.offset(7, 1, 0) is None
    assert rank.mirror(3) == 3  # Black's first rank is White's
    column = Geometry(1, 10)
    assert column.size == 10 and column.name(0) == "a1" and column.name(9) == "a10"
    assert column.offset(0, 0, 2) == 2 and column.offset(0, 1, 0) is None
    assert column.mirror(0) == 9


@pytest.mark.parametrize(
    ("files", "ranks", "said"), [(0, 8, "files"), (8, 0, "ranks"), (17, 1, "files")]
)
def test_sizes_beyond_1_to_16_are_refused_by_name(files: int, ranks: int, said: str) -> None:
    with pytest.raises(ValueError, match="between 1 and 16"):
        Geometry(files, ranks)
    text = strip(max(files, 1), max(ranks, 1), {1: "K"}, None)
    text = text.replace(f"files = {max(files, 1)}", f"files = {files}")
    text = text.replace(f"ranks = {max(ranks, 1)}", f"ranks = {ranks}")
    with pytest.raises(VariantError, match="between 1 and 16") as info:
        load_definition(text, source="strip")
    assert info.value.key == said


def test_black_on_the_same_rank_must_be_given_as_its_own_army() -> None:
    """Black's mirror of rank 1 is rank 1 itself: without `[setup.black]` the armies clash."""
    with pytest.raises(VariantError, match="reaches the ranks of Black's mirror"):
        load_definition(strip(8, 1, {1: "K N R . . . . ."}, None), source="strip")
    variant = load_definition(
        strip(8, 1, {1: "K N R . . . . ."}, {1: ". . . . . R N K"}), source="strip"
    )
    # From pyffish 0.0.90 (1D Chess's array): 4, 8, 18, 49, 118 and 250 sequences.
    assert [perft(Game(variant).position, d) for d in range(1, 7)] == [4, 8, 18, 49, 118, 250]


@cache
def converted(name: str) -> Variant:
    toml = ini.convert_section(SECTIONS, name, "ini-sections.ini", ini.LOCAL_FILE)
    return load_definition(toml, source=name)


def test_castling_along_the_only_rank() -> None:
    """White castles queen-side on rank 1, which Black's King shares and never castles on;
    SAN and FEN as pyffish 0.0.90 writes them."""
    variant = converted("ribbon")
    assert (variant.geometry.files, variant.geometry.ranks) == (12, 1)
    assert variant.castling_sides == (0,)
    game = Game(variant)
    assert fsf.fen(game.position) == "R3KAN1nakr w Q - 0 1"
    codes = fsf.uci_moves(game.position)
    sans = {uci: fsf.san(game.position, code) for uci, code in codes.items()}
    assert sans == {
        "a1b1": "Rb1",
        "a1c1": "Rc1",
        "a1d1": "Rd1",
        "g1i1": "Nxi1+",
        "e1d1": "Kd1",
        "e1c1": "O-O-O",
    }
    assert format_move(game.position, parse_move(game.position, "O-O-O")) == "O-O-O"
    game.play("O-O-O")
    assert fsf.fen(game.position) == "2KR1AN1nakr b - - 1 1"


@pytest.mark.parametrize(
    ("files", "ranks", "white", "black", "sans"),
    [
        # Two Dabbabas reach e1: the file tells them apart (pyffish 0.0.90: Nce1, Nge1).
        (10, 1, {1: "K . N . . . N . . ."}, {1: ". . . . . . . . R K"},
         {"c1e1": "Nce1", "g1e1": "Nge1", "g1i1": "Nxi1", "a1b1": "Kb1"}),
        # On one file only the rank can (pyffish 0.0.90: N3a5, N7a5).
        (1, 10, {1: "K", 3: "N", 7: "N"}, {9: "R", 10: "K"},
         {"a3a5": "N3a5", "a7a5": "N7a5", "a7a9": "Nxa9", "a1a2": "Ka2"}),
    ],
)  # fmt: skip
def test_san_tells_two_pieces_apart_along_a_line(
    files: int, ranks: int, white: dict[int, str], black: dict[int, str], sans: dict[str, str]
) -> None:
    pos = Game(load_definition(strip(files, ranks, white, black), source="strip")).position
    codes = fsf.uci_moves(pos)
    assert {uci: fsf.san(pos, code) for uci, code in codes.items()} == sans
    for code in codes.values():  # Fairy Post's own notation reads back what it writes
        move = pos.to_move(code)
        assert parse_move(pos, format_move(pos, move)) == move


@pytest.mark.parametrize("name", ["ribbon", "column"])
def test_random_games_read_back_every_move_and_position(name: str) -> None:
    """Every move of seeded random games reads back from Fairy Post's notation and from
    Fairy-Stockfish's UCI, and every FEN's board has as many squares as the board."""
    variant = converted(name)
    size = variant.geometry.files
    for seed in range(6):
        rng = random.Random(seed)
        game = Game(variant)
        for _ in range(40):
            if game.outcome():
                break
            pos = game.position
            codes = fsf.uci_moves(pos)
            for uci, code in codes.items():
                move = pos.to_move(code)
                assert parse_move(pos, format_move(pos, move)) == move
                assert fsf.parse_uci(pos, uci) == code
            board = fsf.fen(pos).split()[0]
            assert board.count("/") == variant.geometry.ranks - 1
            for row in board.split("/"):
                width = sum(int(n) for n in "".join(c if c.isdigit() else " " for c in row).split())
                assert width + sum(c.isalpha() for c in row) == size
            game.play(rng.choice(sorted(codes)))


@pytest.mark.parametrize("name", ["ribbon", "column"])
def test_export_writes_the_board_and_converts_back_to_the_same_game(name: str) -> None:
    """`export-ini` of a one-rank or one-file game: the board and the start position as
    Fairy-Stockfish reads them (castling rights for White alone where only White castles:
    pyffish 0.0.90 counts the ribbon's export as the section, checked by hand), and the
    section converts back to a game with the same counts."""
    variant = converted(name)
    text = ini.export_ini(variant, name=f"{name}-out")
    geo = variant.geometry
    assert f"maxRank = {geo.ranks}\n" in text
    assert f"maxFile = {'abcdefghijkl'[geo.files - 1]}\n" in text
    start = fsf.fen(Game(variant).position)
    assert f"startFen = {start}\n" in text
    back = load_definition(ini.convert_section(text, f"{name}-out"), source=name)
    assert back.castling_sides == variant.castling_sides
    counts = [perft(Game(variant).position, d) for d in (1, 2, 3)]
    assert [perft(Game(back).position, d) for d in (1, 2, 3)] == counts
