"""Sittuyin (issue 27): the placement phase (a dropped reserve, must-drop, drop regions) and
the in-place promotion (in-place, limit, anywhere-if-last, peaceful), each case against what
pyffish 0.0.90 lists for the same position (Debian's fairy-stockfish 11.1 lists the same)."""

from __future__ import annotations

import pytest

from rules import Game
from rules.errors import VariantError
from rules.fsf import fen, uci_moves
from rules.notation import format_short
from rules.perft import perft
from rules.variant import load_definition


def promotions(text: str) -> list[str]:
    """The promotions (in Fairy-Stockfish's UCI form) of the position."""
    game = Game.from_position_text("sittuyin", text)
    return sorted(m for m in uci_moves(game.position) if len(m) == 5)


def test_the_game_opens_with_drops_only() -> None:
    game = Game.new("sittuyin")
    moves = uci_moves(game.position)
    assert len(moves) == 88  # K, F, S, N on 20 squares of the camp, R on the first rank's 8
    assert all("@" in m for m in moves)
    assert sorted(m for m in moves if m.startswith("R@")) == [f"R@{f}1" for f in "abcdefgh"]
    # Fairy-Stockfish lists the same pocket in its own order: [KFRRSSNNkfrrssnn].
    assert fen(game.position) == "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KFSSRRNNkfssrrnn] w - - 0 1"
    game.play("K*e2")
    assert all(m.startswith(("K@", "F@", "R@", "S@", "N@")) for m in uci_moves(game.position))
    assert "k@d7" not in uci_moves(game.position)  # Black drops its own pieces, in its camp
    assert "K@d7" in uci_moves(game.position)
    game.undo()
    assert game.position.kings == [-1, -1]


def test_after_the_placement_the_pieces_move() -> None:
    drops = "N@g2 N@h8 S@b2 K@b7 S@h1 N@g8 F@d1 R@b8 N@e2 F@a8 K@c1 S@c6 R@f1 R@c8 R@e1 S@a7"
    game = Game.new("sittuyin")
    for move in drops.split():
        game.play(move)
    # pyffish's FEN; drops restart the move count as Pawn steps do.
    assert fen(game.position) == "frr3nn/sk6/2s1pppp/pppp4/4PPPP/PPPP4/1S2N1N1/2KFRR1S[] w - - 0 9"
    assert not any("@" in m for m in uci_moves(game.position))


@pytest.mark.parametrize(
    ("plies", "counts"),
    [(5, [61, 3538]), (14, [4, 52, 1209]), (15, [13, 286, 6024])],
)
def test_perft_through_the_end_of_the_placement(plies: int, counts: list[int]) -> None:
    """pyffish 0.0.90's counts (fairy-stockfish 11.1's too for 15 plies at depth 3) in the
    middle of the placement and across its end, where the pieces start to move."""
    drops = "N@g2 N@h8 S@b2 K@b7 S@h1 N@g8 F@d1 R@b8 N@e2 F@a8 K@c1 S@c6 R@f1 R@c8 R@e1"
    game = Game.new("sittuyin")
    for move in drops.split()[:plies]:
        game.play(move)
    assert [perft(game.position, d) for d in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # On a promotion square, with another Pawn: in place or a General's step.
        ("4k3/8/8/3P4/2P5/8/8/4K3 w - - 0 1", ["d5c6f", "d5d5f", "d5e4f", "d5e6f"]),
        # The last Pawn promotes anywhere; never while a General stands on the board.
        ("4k3/8/8/8/2P5/8/8/4K3 w - - 0 1", ["c4b3f", "c4b5f", "c4c4f", "c4d3f", "c4d5f"]),
        ("4k3/8/8/8/2P5/8/8/4K2F w - - 0 1", []),
        # Peaceful: no check (the King on e4, d3), no enemy piece attacked (the Horse on e6).
        ("8/8/8/3P4/2P1k3/8/8/4K3 w - - 0 1", ["d5c6f", "d5e6f"]),
        ("8/8/8/3P4/2P5/3k4/8/4K3 w - - 0 1", ["d5c6f", "d5d5f", "d5e6f"]),
        ("8/8/4n3/3P4/2P5/8/8/4K2k w - - 0 1", ["d5c6f", "d5e4f"]),
        # Off the promotion squares, with two Pawns: none. Black's squares are the mirror.
        ("k7/8/8/8/8/1P6/P7/4K3 w - - 0 1", []),
        (
            "4k3/8/8/8/3p4/2p5/8/4K3 b - - 0 1",
            ["c3b2f", "c3b4f", "c3c3f", "d4c5f", "d4d4f", "d4e3f", "d4e5f"],
        ),
    ],
)
def test_in_place_promotions_are_fairy_stockfishs(text: str, expected: list[str]) -> None:
    assert promotions(text) == expected


def test_an_in_place_promotion_is_written_and_read_back() -> None:
    game = Game.from_position_text("sittuyin", "4k3/1P6/8/3P4/2P5/8/8/4K3 w - - 0 1")
    pos = game.position
    forms = {lm.coordinates: lm.notation for lm in game.legal_moves() if lm.move.promotion}
    assert forms["d5d5F"] == "d5=F" and forms["d5c6F"] == "d5-c6F"
    code = uci_moves(pos)["d5d5f"]
    assert format_short(pos, code) == "d5F" and format_short(pos, code, pgn=True) == "d5=F"
    assert format_short(pos, uci_moves(pos)["d5c6f"]) == "dc6F"  # b7 may step to c6 too
    played = game.play("d5=F")
    assert played.coordinates == "d5d5F"
    assert fen(game.position) == "4k3/1P6/8/3F4/2P5/8/8/4K3[] b - - 0 1"
    game.undo()
    assert fen(game.position) == "4k3/1P6/8/3P4/2P5/8/8/4K3[] w - - 0 1"


BASE = """
id = "drops-test"
name = "Drops Test"
description = "A test."
extends = "chess"
castling = false

[setup]
1 = ""
"""


@pytest.mark.parametrize(
    ("extra", "key", "message"),
    [
        (
            '[pieces]\npawn = { letter = "", promotion = { to = ["queen"], peaceful = true } }\n',
            "pawn.promotion.peaceful",
            "in-place = true",
        ),
        (
            '[pieces]\npawn = { letter = "", promotion = { to = ["queen"], in-place = true, '
            "optional-rows = [7] } }\n",
            "pawn.promotion.optional-rows",
            "a move of its own",
        ),
        (
            '[pieces]\npawn = { letter = "", promotion = { to = ["queen"], limit = 0 } }\n',
            "pawn.promotion.limit",
            "a number from 1",
        ),
    ],
)
def test_refusals_name_the_key(extra: str, key: str, message: str) -> None:
    reserve = (
        '[reserve]\npieces = ["king", "queen", "rook", "rook", "bishop", "bishop", "knight", '
        '"knight"]\nstyle = "dropped"\n'
    )
    with pytest.raises(VariantError) as info:
        load_definition(BASE + reserve + extra)
    assert key in str(info.value) and message in str(info.value)


def test_a_king_waits_only_in_a_dropped_reserve_and_must_drop_needs_drops() -> None:
    text = BASE.replace('1 = ""', '1 = "R N B Q K B N R"') + '[reserve]\npieces = ["king"]\n'
    with pytest.raises(VariantError, match="only in a reserve that is dropped"):
        load_definition(text)
    text = BASE.replace('1 = ""', '1 = "R N B Q K B N R"') + "[rules]\nmust-drop = true\n"
    with pytest.raises(VariantError, match=r"rules\.must-drop: needs pieces to drop"):
        load_definition(text)
