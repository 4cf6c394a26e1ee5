"""The reference pictures compared by `test_reference.py`, and how to regenerate them.

    python -m tests.renderer.regenerate        # rewrite every reference image
    FAIRYPOST_REGENERATE=1 pytest tests/renderer  # the same, from the test run

Regenerate only after a deliberate change to the pictures, and look at the new images
before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from renderer import BoardView, HandPiece, PieceSprite, render_board, render_piece
from renderer.from_rules import render_game
from renderer.glyphs import glyph_for
from rules.betza import parse_betza
from rules.game import Game

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"


def _scholars_mate() -> bytes:
    game = Game.new("chess")
    for m in ("e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"):
        game.play(m)
    return render_game(game)


def _bigorra_black() -> bytes:
    game = Game.new("bigorra")
    for m in ("h5h7", "h12h10"):
        game.play(m)
    return render_game(game, perspective=1)


def _patricia_hands() -> bytes:
    game = Game.new("patricia")
    for m in ("Bd1-b3", "Bd5-b3", "Kc1-c2", "Rb3-b2", "Qc2xb2", "Kc5-c4"):
        game.play(m)
    return render_game(game, theme="contrast")


def _frog_placement() -> bytes:
    game = Game.new("frog-gryphon")
    for m in ("FA@c1", "G@h1", "FA@b9"):
        game.play(m)
    return render_game(game, theme="green")


def _hand_made_view() -> bytes:
    """A view built by hand, without the rules engine: a token with every mark style."""
    glyph = glyph_for(parse_betza("mW cF cpR D (1,4)"))
    knight = PieceSprite("", "Knight", 0, figure="knight")
    token = PieceSprite("XY", "Test piece", 1, glyph, royal=True)
    view = BoardView(
        files=6,
        ranks=5,
        pieces={7: knight, 14: token},
        hands=((HandPiece(knight, 3),), ()),
    )
    return render_board(view, last_move=(1, 7), highlights=(8, 14, 20), coordinates=True)


def _eagle() -> bytes:
    return render_piece("bigorra", "G")


REFERENCES: dict[str, Callable[[], bytes]] = {
    "chess-scholars-mate.png": _scholars_mate,
    "bigorra-black.png": _bigorra_black,
    "patricia-hands.png": _patricia_hands,
    "frog-placement.png": _frog_placement,
    "hand-made-view.png": _hand_made_view,
    "piece-eagle.png": _eagle,
}


def regenerate() -> list[Path]:
    REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
    written = []
    for name, make in REFERENCES.items():
        path = REFERENCE_DIR / name
        path.write_bytes(make())
        written.append(path)
    return written
