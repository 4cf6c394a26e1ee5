"""Animated replays: one frame per ply (plus the result), what each frame shows, and the
bounds that keep long games small."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageStat

from renderer.board import draw_board
from renderer.cli import main
from renderer.from_rules import board_view, check_square
from renderer.replay import render_replay, sampled_plies
from rules import Game
from tests.rules.conftest import GAMES

SCHOLAR = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]


def frames(data: bytes) -> list[Image.Image]:
    im = Image.open(io.BytesIO(data))
    assert im.format == "GIF" and im.info.get("loop") == 0
    out = []
    for i in range(im.n_frames):
        im.seek(i)
        out.append(im.convert("RGB"))
    return out


def board_part(frame: Image.Image, height: int) -> Image.Image:
    return frame.crop((0, 0, frame.width, height))


def test_one_frame_per_ply_with_the_move_shown_and_the_result_last() -> None:
    game = Game.replay("chess", (), SCHOLAR)
    replay = render_replay(game, result="white wins by checkmate")
    shown = frames(replay.data)
    assert replay.plies == 7 and replay.frames == len(shown) == 9  # start, 7 plies, result
    assert (replay.width, replay.height) == shown[0].size and replay.width <= 560
    # Each frame is the position after its ply, the ply's squares tinted, a check marked.
    replayer = Game.new("chess")
    for ply in range(8):
        if ply:
            played = replayer.play(SCHOLAR[ply - 1])
        pos = replayer.position
        geo = pos.variant.geometry
        last = None
        if ply:
            m = played.move
            assert m.origin is not None
            last = (
                geo.index(m.origin.file, m.origin.rank),
                geo.index(m.target.file, m.target.rank),
            )
        expected = draw_board(board_view(pos), last_move=last, check=check_square(pos))
        expected = expected.resize(
            (replay.width, round(expected.height * replay.width / expected.width))
        )
        got = board_part(shown[ply], expected.height)
        diff = ImageStat.Stat(ImageChops.difference(got, expected)).mean
        assert max(diff) < 4, (ply, diff)  # palette rounding only
    # The result frame shows the final position under a different caption.
    final, result = shown[-2], shown[-1]
    board_h = expected.height
    assert (
        ImageChops.difference(board_part(final, board_h), board_part(result, board_h)).getbbox()
        is None
    )
    assert ImageChops.difference(final, result).getbbox() is not None


def test_a_long_game_is_sampled_and_bounded() -> None:
    moves = (GAMES / "patchanka.txt").read_text()
    game = Game.replay(
        "patchanka",
        (),
        [line.split(None, 1)[1] for line in moves.splitlines() if line[:1].isdigit()],
    )
    replay = render_replay(game, result="black wins by checkmate", max_frames=60, max_width=400)
    assert replay.plies == 150 and replay.frames == 61
    assert replay.width <= 400
    small = render_replay(game, max_frames=20, max_bytes=60_000)
    assert len(small.data) <= 60_000 or small.width <= 240
    assert small.width < 560


@given(st.integers(min_value=0, max_value=2000), st.integers(min_value=8, max_value=400))
def test_sampling_keeps_both_ends_within_the_budget(plies: int, limit: int) -> None:
    shown = sampled_plies(plies, limit)
    assert shown == sorted(set(shown))
    assert shown[0] == 0 and shown[-1] == plies
    assert len(shown) == min(plies + 1, limit)
    if plies + 1 > limit:  # the last quarter of the budget is the end of the game, in full
        tail = shown[-(limit // 4) :]
        assert tail == list(range(plies - limit // 4 + 1, plies + 1))


def test_cli_replays_a_record(tmp_path: Path) -> None:
    out = tmp_path / "r.gif"
    assert main(["replay", str(GAMES / "heavy-shako.txt"), str(out)]) == 0
    assert len(frames(out.read_bytes())) == 133
    assert main(["replay", str(GAMES / "heavy-shako.txt"), str(tmp_path / "r.png")]) == 2
    assert main(["replay", str(tmp_path / "missing.txt"), str(out)]) == 2
