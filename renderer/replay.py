"""Animated replays of whole games, in the manner of lichess's gif service: one frame per
ply with the last move tinted and a check marked, a caption with the move, the result on
the last frame.

Frames are drawn with the public board drawing (`renderer.board.draw_board` over
`renderer.from_rules.board_view`), so a replay always looks like the board posts.

GIF, not animated WebP: Discord animates GIFs inline in every client, while animated WebP
attachments animate only in its desktop client (mobile shows a still), and phones are
where correspondence games are followed. (WebP would be smaller; `benchmarks/` measures both.)

Bounded for long games, whatever the variant:
- **size**: frames are scaled so the board is at most `MAX_WIDTH` pixels wide (the width
  Discord gives an image on a desktop; phones show less);
- **frames**: at most `MAX_FRAMES`; a longer game keeps its first and last
  `MAX_FRAMES // 4` plies in full and samples the middle evenly (the caption says which
  ply a frame shows, so nothing is misleading);
- **colours**: one 256-colour palette for the whole replay, taken from the first and the
  last frame (every piece type that ever stands on the board is in one of them or looks
  like one that is); frames are palette-mapped without dithering, so unchanged squares
  are identical bytes and Pillow stores only the rectangle that changed;
- **bytes**: if the file still exceeds `MAX_BYTES`, it is redrawn smaller.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageDraw

from renderer.board import draw_board
from renderer.from_rules import board_view, check_square, move_marks
from renderer.sprites import font
from rules.game import Game
from rules.moves import Move
from rules.position import Position
from rules.postext import parse_position
from rules.record import ply_label

MAX_WIDTH = 560
MAX_FRAMES = 240
MAX_BYTES = 6 * 1024 * 1024
FRAME_MS = 900
FIRST_MS = 1500
LAST_MS = 5000
CLEAR = 255  # the palette index of pixels that stay as in the previous frame
CAPTION = (38, 36, 33)
CAPTION_TEXT = (236, 233, 228)


@dataclass(frozen=True, slots=True)
class Replay:
    data: bytes
    frames: int  # frames in the file
    plies: int  # plies in the game
    width: int
    height: int
    filename: str = "replay.gif"


def sampled_plies(plies: int, limit: int = MAX_FRAMES) -> list[int]:
    """The positions to show (0 = the start, n = after ply n): all of them if they fit in
    `limit` frames, else the first and last quarters in full and the middle sampled."""
    every = list(range(plies + 1))
    if len(every) <= limit:
        return every
    edge = limit // 4
    head, tail = every[: edge + 1], every[-edge:]
    middle = every[edge + 1 : -edge]
    room = limit - len(head) - len(tail)
    step = len(middle) / room
    sampled = [middle[int(i * step)] for i in range(room)]
    return head + sampled + tail


def _caption(img: Image.Image, text: str, bold: bool) -> Image.Image:
    """The frame with a strip under the board: the ply, or the result."""
    h = max(22, img.width // 18)
    out = Image.new("RGB", (img.width, img.height + h), CAPTION)
    out.paste(img, (0, 0))
    draw = ImageDraw.Draw(out)
    face = font("bold" if bold else "regular", round(h * 0.55))
    while face.getlength(text) > img.width - 12 and face.size > 8:
        face = font("bold" if bold else "regular", face.size - 1)
    width = face.getlength(text)
    draw.text(
        ((img.width - width) / 2, img.height + h / 2),
        text,
        font=face,
        fill=CAPTION_TEXT,
        anchor="lm",
    )
    return out


def _frame(
    position: Position, move: Move | None, perspective: int, width: int | None
) -> Image.Image:
    squares, placed = move_marks(position, move)
    img = draw_board(
        board_view(position),
        perspective=perspective,
        last_move=squares,
        placed=placed,
        check=check_square(position),
    )
    if width is not None and img.width > width:
        img = img.resize((width, round(img.height * width / img.width)), Image.Resampling.LANCZOS)
    return img


def render_replay(
    game: Game,
    *,
    result: str | None = None,
    title: str | None = None,
    perspective: int = 0,
    max_width: int = MAX_WIDTH,
    max_frames: int = MAX_FRAMES,
    max_bytes: int = MAX_BYTES,
) -> Replay:
    """An animated GIF of `game` from its start position to its last ply. `result`, the
    result words of the record (`black wins by checkmate`), goes on the last frame."""
    width = max_width
    while True:
        replay = _render(game, result, title, perspective, width, max_frames)
        if len(replay.data) <= max_bytes or width <= 240:
            return replay
        width = round(width * 0.8)


def _render(
    game: Game,
    result: str | None,
    title: str | None,
    perspective: int,
    width: int,
    max_frames: int,
) -> Replay:
    history = game.history
    variant = game.variant
    shown = sampled_plies(len(history), max_frames)
    wanted = set(shown)
    replayer = Game(variant, _start_of(game))
    frames: list[Image.Image] = []
    captions: list[tuple[str, bool]] = []
    for ply in range(len(history) + 1):
        if ply:
            replayer.play_move(history[ply - 1].move)
        if ply not in wanted:
            continue
        move = history[ply - 1].move if ply else None
        frames.append(_frame(replayer.position, move, perspective, width))
        if ply == 0:
            captions.append((title or variant.name, False))
        else:
            captions.append((f"{ply_label(variant, ply - 1)} {history[ply - 1].notation}", False))
    if result:
        frames.append(frames[-1])
        captions.append((_capital(result), True))
    images = [_caption(f, text, bold) for f, (text, bold) in zip(frames, captions, strict=True)]
    palette = _palette(images)
    mapped = [images[0].quantize(palette=palette, dither=Image.Dither.NONE)]
    for before, now in itertools.pairwise(images):
        frame = now.quantize(palette=palette, dither=Image.Dither.NONE)
        # Pixels that did not change become transparent: long runs that LZW packs tight.
        same = ImageChops.difference(before, now).convert("L").point(lambda v: 255 if v == 0 else 0)
        frame.paste(CLEAR, mask=same)
        mapped.append(frame)
    durations = [FRAME_MS] * len(mapped)
    durations[0] = FIRST_MS
    durations[-1] = LAST_MS
    out = io.BytesIO()
    mapped[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=mapped[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
        transparency=CLEAR,
    )
    first = images[0]
    return Replay(out.getvalue(), len(mapped), len(history), first.width, first.height)


def _start_of(game: Game) -> Position:
    """The game's start position (a game may start from a position text, not only from
    the variant's setup)."""
    return parse_position(game.variant, game.start_text)


def _palette(images: Sequence[Image.Image]) -> Image.Image:
    """One 256-colour palette for every frame: from the first and last frames side by
    side, so the caption, the board and the pieces of both ends are all in it."""
    first, last = images[0], images[-1]
    both = Image.new("RGB", (first.width + last.width, max(first.height, last.height)))
    both.paste(first, (0, 0))
    both.paste(last, (first.width, 0))
    # 255 colours: the last index is kept for "unchanged" (transparent) pixels.
    return both.quantize(colors=CLEAR, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


__all__ = ["MAX_BYTES", "MAX_FRAMES", "MAX_WIDTH", "Replay", "render_replay", "sampled_plies"]
