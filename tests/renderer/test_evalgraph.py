"""The evaluation graph /analyze posts: phone-sized, drawn, mates on the edge."""

from __future__ import annotations

import io

from PIL import Image, ImageStat

from renderer.evalgraph import (
    BLACK_SIDE,
    CLAMP,
    HEIGHT,
    MARK_COLOURS,
    WHITE_SIDE,
    WIDTH,
    draw_eval_graph,
    graph_height,
    render_eval_graph,
)
from search.analysis import MATE_CP

SCORES = [20, 35, 10, -40, -60, -55, MATE_CP, MATE_CP]


def test_size_is_a_phone_width_at_twice_the_scale() -> None:
    png = render_eval_graph(SCORES, [(6, "??")], title="Game #1, Chess: alice vs bob")
    img = Image.open(io.BytesIO(png))
    assert img.size == (WIDTH * 2, HEIGHT * 2) and WIDTH == 450


def test_the_graph_is_drawn_not_blank() -> None:
    img = draw_eval_graph(SCORES, [(6, "??")], title="title")
    colours = {c for _, c in img.getcolors(maxcolors=1_000_000) or []}
    assert WHITE_SIDE in colours and BLACK_SIDE in colours  # both sides led at some point
    assert MARK_COLOURS["??"] in colours  # the blunder's dot
    assert max(ImageStat.Stat(img).stddev) > 20


def test_mates_are_clamped_to_the_edge() -> None:
    assert graph_height(MATE_CP) == graph_height(CLAMP) == 1.0
    assert graph_height(-MATE_CP) == -1.0
    assert graph_height(0) == 0.0
    # A pawn in a level game is plainly visible; ten pawns and a mate look alike.
    assert graph_height(100) > 0.15
    assert graph_height(5000) == 1.0


def test_the_mate_is_drawn_on_the_edge_not_off_the_picture() -> None:
    mated = draw_eval_graph([0, 0, MATE_CP * 5], scale=1)
    winning = draw_eval_graph([0, 0, CLAMP], scale=1)
    assert mated.tobytes() == winning.tobytes()


def test_positions_the_review_did_not_reach_are_left_out() -> None:
    img = draw_eval_graph([None, None, 50, -30, None], [(1, "?"), (3, "?!")])
    assert img.size == (WIDTH * 2, HEIGHT * 2)
    assert MARK_COLOURS["?!"] in {c for _, c in img.getcolors(maxcolors=1_000_000) or []}
    assert MARK_COLOURS["?"] not in {c for _, c in img.getcolors(maxcolors=1_000_000) or []}
