"""The move count (the FEN's halfmove field, which the 50-move rule reads) of converted
variants.ini sections follows pyffish 0.0.90: a Pawn-type piece's quiet move resets it
only when the piece cannot take the move back (issue 28).

The expected counts below are pyffish 0.0.90's: for each self-written section of
`data/ini-sections.ini`, the moves are a random game (`random.Random(f"halfmove/{name}")`
choosing among the sorted `pyffish.legal_moves`, 40 plies) and each count is the halfmove
field of `pyffish.get_fen(name, start, moves[: ply + 1])`. CI has no pyffish, so they are
written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules import Game
from rules.ini import LOCAL_FILE, IniRefusal, convert_ini, export_ini
from rules.variant import Variant, load_definition

DATA = Path(__file__).resolve().parent / "data"

GAMES = {
    # Pawns that step one square any way, as a King does (Betza KifmnD): every step can be
    # taken back, so only a capture, a double step or a promotion resets the count.
    "guardpawns": (
        "b1a3 g7f6 f1a6 f6e5 a2b3 f7g6 g1h3 e7f7 h3g1 e5f6 g1h3 d7c6 a6b5 f8a3 d2d3 f7f8 "
        "b2c3 c7d6 h3g5 h7h6 e1g1 d6e7 g2g4 b7a6 h2h3 d8c7 a1b1 g6f5 d3d2 f6g7 c3c4 f5g5 "
        "d2e3 g7f7 b1b2 a3b4 e3d2 b4c5 c2d3 h6g7",
        "1 2 3 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 0 1 2 3 4 5 6 7 8 0 1 2 3 4 5 6 7 8",
    ),
    # Pawns that step forward or sideways (mfsWcfF): the forward step resets, the
    # sideways one does not.
    "blackopens": (
        "c4d2 a2a3 e5e4 d1d2 d5d4 f1d1 c6b6 c2c3 e6f4 d2c1 a5a4 a1a2 f4d5 c1d2 f6d6 c3d4 "
        "d5c3 d1c1 c5c4 c1f1 a4b4 d2c2 a6a3 b1c3 b5c5 f1c1 f5f4 e2e3 a3a4 c1b1 c5b5 d4d5 "
        "a4a2 c2d2 d6c6 d2e1 a2a1 b1a1 c6f6 f2f3",
        "0 0 0 0 0 1 2 0 1 2 0 1 2 3 4 0 1 2 0 1 2 3 0 0 1 2 0 0 1 2 3 0 0 1 2 3 4 0 1 0",
    ),
}


def _converted() -> dict[str, Variant]:
    text = (DATA / "ini-sections.ini").read_text(encoding="utf-8")
    return {
        item.name: load_definition(item.toml or "", source=item.name)
        for item in convert_ini(text, "ini-sections.ini", LOCAL_FILE)
        if item.name in GAMES
    }


VARIANTS = _converted()


@pytest.mark.parametrize("section", sorted(GAMES))
def test_the_move_count_follows_pyffish(section: str) -> None:
    moves, counts = (part.split() for part in GAMES[section])
    game = Game(VARIANTS[section])
    seen = []
    for move in moves:
        game.play(move, check_marks=False)
        seen.append(str(game.position.halfmove))
    assert seen == counts


def test_moves_that_can_be_taken_back_are_plain_betza() -> None:
    """The King-stepping Pawn's steps are `betza` (no reset); its double step stays a
    Pawn's move, and an export gives Fairy-Stockfish the same piece back."""
    pawn = next(p for p in VARIANTS["guardpawns"].pieces if p.id == "pawn")
    assert {c.source for c in pawn.components if not c.pawnlike} == {"W", "F"}
    assert all(c.rows for c in pawn.components if c.pawnlike)  # double-step-rows
    back = load_definition(
        next(iter(convert_ini(export_ini(VARIANTS["blackopens"], "b"), "b", LOCAL_FILE))).toml or ""
    )
    pawn = next(p for p in back.pieces if p.id == "pawn")
    assert {c.source for c in pawn.components if not c.pawnlike} == {"msW"}


def test_an_export_refuses_pawn_moves_that_pyffish_would_not_reset() -> None:
    """A Pawn whose backward step is a `pawn-move` (resetting the count) cannot be written:
    Fairy-Stockfish resets the count on no step that the piece can take back."""
    text = (DATA / "ini-sections.ini").read_text(encoding="utf-8")
    toml = next(i for i in convert_ini(text, "s", LOCAL_FILE) if i.name == "guardpawns").toml
    assert toml is not None
    changed = toml.replace('betza = "W F"', 'pawn-moves = "W F"')
    assert changed != toml
    with pytest.raises(IniRefusal, match="cannot take back"):
        export_ini(load_definition(changed, source="t"))
