"""Pictures for the service (boards, diagrams, replays, crosstables, evaluation graphs): a
narrow protocol over the renderer, run in threads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.service.describe import describe_crosstable
from bot.service.models import Animation, Picture
from rules.game import Game
from rules.moves import Move
from rules.position import Position
from rules.variant import Variant
from tournament.standings import Crosstable


class Pictures(Protocol):
    """Draws positions; called from a worker thread with a private copy of the position."""

    def board(
        self,
        position: Position,
        *,
        perspective: int,
        last_move: Move | None,
        highlights: tuple[int, ...],
        captures: tuple[int, ...],
        selected: int | None,
        pieces: str = "traditional",
    ) -> Picture: ...

    def piece(self, variant: Variant, piece_id: str) -> Picture: ...

    def replay(self, game: Game, *, result: str | None, title: str) -> Animation: ...

    def crosstable(self, table: Crosstable) -> Picture: ...

    def eval_graph(
        self, scores: Sequence[int | None], marks: Sequence[tuple[int, str]], *, title: str
    ) -> Picture: ...


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


class RendererPictures:
    """`Pictures` drawn by `renderer` (imported on first use: the bot starts without it)."""

    def board(
        self,
        position: Position,
        *,
        perspective: int,
        last_move: Move | None,
        highlights: tuple[int, ...],
        captures: tuple[int, ...],
        selected: int | None,
        pieces: str = "traditional",
    ) -> Picture:
        from renderer import render_position
        from renderer.from_rules import check_square, move_marks

        squares, placed = move_marks(position, last_move)
        png = render_position(
            position,
            perspective=perspective,
            last_move=squares,
            placed=placed,
            check=check_square(position),
            highlights=highlights,
            captures=captures,
            selected=selected,
            pieces=pieces,
        )
        width, height = png_size(png)
        return Picture(png, width, height)

    def piece(self, variant: Variant, piece_id: str) -> Picture:
        from renderer import render_piece

        png = render_piece(variant, piece_id)
        width, height = png_size(png)
        return Picture(png, width, height)

    def replay(self, game: Game, *, result: str | None, title: str) -> Animation:
        from renderer.replay import render_replay

        made = render_replay(game, result=result, title=title)
        return Animation(made.data, made.frames, made.plies, made.width, made.height)

    def crosstable(self, table: Crosstable) -> Picture:
        from renderer.crosstable import render_crosstable

        png = render_crosstable(table)
        width, height = png_size(png)
        return Picture(png, width, height, "crosstable.png", describe_crosstable(table))

    def eval_graph(
        self, scores: Sequence[int | None], marks: Sequence[tuple[int, str]], *, title: str
    ) -> Picture:
        from renderer.evalgraph import render_eval_graph

        png = render_eval_graph(scores, marks, title=title)
        width, height = png_size(png)
        return Picture(png, width, height, "evaluation.png")
