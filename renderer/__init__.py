"""Board pictures with Pillow: plain position data in, PNG bytes out.

    >>> from rules import Game
    >>> from renderer import render_game
    >>> game = Game.new("chess")
    >>> _ = game.play("e2-e4")
    >>> png = render_game(game)          # the last move tinted, a check marked

`render_board(BoardView, ...)` draws any board from plain values (`renderer.view`);
`renderer.from_rules` reads a `rules.Position` into that view; `render_piece` draws one
piece's moves on a small board; `render_legend` every piece of a variant with its name.
The renderer knows nothing of Discord or storage.
"""

from renderer.board import render_board
from renderer.diagram import render_piece
from renderer.from_rules import (
    LegendEntry,
    board_view,
    destinations,
    find_piece,
    piece_legend,
    piece_sprite,
    render_game,
    render_position,
)
from renderer.legend import render_legend
from renderer.theme import Theme, ThemeError, load_theme, theme_names
from renderer.view import BoardView, Dot, Glyph, HandPiece, Mode, PieceSprite, Ray, Trail

__all__ = [
    "BoardView",
    "Dot",
    "Glyph",
    "HandPiece",
    "LegendEntry",
    "Mode",
    "PieceSprite",
    "Ray",
    "Theme",
    "ThemeError",
    "Trail",
    "board_view",
    "destinations",
    "find_piece",
    "load_theme",
    "piece_legend",
    "piece_sprite",
    "render_board",
    "render_game",
    "render_legend",
    "render_piece",
    "render_position",
    "theme_names",
]
