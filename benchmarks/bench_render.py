"""Renderer: time to draw a position as PNG, and the PNG's size, for every variant.

Each entry draws the start position after two plies (so a last move is tinted), from
the rules position to PNG bytes: `board_view`, drawing, palette reduction and PNG
encoding. Sprites are cached after the first picture, as they are in the bot, so the
median is the steady cost of one more picture. Goal: under 40 ms for a 16x16 board.
"""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.common import Row, median_seconds, ms
from renderer import render_game
from renderer.board import encode_png
from renderer.diagram import draw_piece
from renderer.sprites import sprite_image
from rules.game import Game
from rules.variant import load_variant, variant_ids

SECTION = "renderer"
GOAL_16 = "< 40 ms"


def _game(variant_id: str) -> Game:
    game = Game.new(variant_id)
    for _ in range(2):
        legal = game.legal_moves()
        if not legal:
            break
        game.play_move(legal[len(legal) // 2].move)
    return game


def _renderer(game: Game) -> Callable[[], bytes]:
    return lambda: render_game(game)


def run(quick: bool = False) -> list[Row]:
    """Median render time and PNG size per variant; `quick` repeats less."""
    repeats = 3 if quick else 9
    rows: list[Row] = []
    for vid in variant_ids():
        geo = load_variant(vid).geometry
        game = _game(vid)
        png = render_game(game)
        seconds = median_seconds(_renderer(game), repeats=repeats, warmup=1)
        big = geo.files == 16 and geo.ranks == 16
        rows.append(
            Row(
                SECTION,
                f"board {vid} ({geo.files}x{geo.ranks})",
                f"{ms(seconds)}, {len(png) / 1024:.0f} KB",
                goal=GOAL_16 if big else "",
            )
        )
    bigorra = load_variant("bigorra")
    eagle = bigorra.piece("gryphon")
    diagram = median_seconds(lambda: encode_png(draw_piece(bigorra, eagle)), repeats=repeats)
    rows.append(Row(SECTION, "piece diagram (Bigorra Eagle)", ms(diagram)))
    game = _game("bigorra")

    def cold() -> bytes:
        sprite_image.cache_clear()
        return render_game(game)

    rows.append(
        Row(SECTION, "board bigorra, sprite cache empty", ms(median_seconds(cold, repeats=3)))
    )
    return rows


if __name__ == "__main__":  # pragma: no cover
    for row in run(quick=True):
        print(f"{row.entry}: {row.value} {row.goal}")
