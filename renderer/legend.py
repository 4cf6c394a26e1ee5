"""A variant's piece legend as a picture: every piece's sprite with its letters and name,
for the /rules command (the text form is `renderer.from_rules.piece_legend`)."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from renderer.board import encode_png
from renderer.from_rules import LegendEntry, piece_legend, piece_sprite
from renderer.sprites import font, sprite_image
from renderer.theme import load_theme
from rules.variant import Variant, load_variant

SPRITE = 64
CELL_W = 300
ROW_H = 74
PAD = 16


def legend_text(entry: LegendEntry) -> tuple[str, str]:
    """The two lines beside a piece: its letters, then its name. A piece written without
    letters (the Pawn) is named by its name, not by a placeholder."""
    name = entry.name + (" (royal)" if entry.royal else "")
    return (entry.letters, name) if entry.letters else (name, "no letter in moves")


def draw_legend(variant: Variant, *, theme: str = "default") -> Image.Image:
    th = load_theme(theme)
    entries = piece_legend(variant)
    cols = 1 if len(entries) <= 6 else 2 if len(entries) <= 14 else 3
    rows = -(-len(entries) // cols)
    title_h = 44
    width = 2 * PAD + cols * CELL_W
    height = PAD + title_h + rows * ROW_H + PAD // 2
    img = Image.new("RGB", (width, height), th.frame[:3])
    draw = ImageDraw.Draw(img)
    draw.text(
        (PAD, PAD + title_h / 2 - 4),
        f"{variant.name}: {len(entries)} piece types",
        font=font("bold", 22),
        fill=th.strip_text[:3],
        anchor="lm",
    )
    f_letters = font("bold", 20)
    f_name = font("regular", 17)
    for i, entry in enumerate(entries):
        col, row = divmod(i, rows)
        x = PAD + col * CELL_W
        y = PAD + title_h + row * ROW_H
        box = (x, y + (ROW_H - SPRITE) // 2, x + SPRITE, y + (ROW_H + SPRITE) // 2)
        draw.rounded_rectangle(box, radius=8, fill=th.light[:3])
        sprite = sprite_image(piece_sprite(variant, entry.piece_id, 0), SPRITE, theme)
        img.paste(sprite, (box[0], box[1]), sprite)
        tx = x + SPRITE + 12
        title, line = legend_text(entry)
        draw.text((tx, y + ROW_H / 2 - 11), title, font=f_letters, fill=th.crown[:3], anchor="lm")
        draw.text((tx, y + ROW_H / 2 + 13), line, font=f_name, fill=th.strip_text[:3], anchor="lm")
    return img


@lru_cache(maxsize=64)
def _render(variant: Variant, theme: str) -> bytes:
    return encode_png(draw_legend(variant, theme=theme))


def render_legend(variant: Variant | str, *, theme: str = "default") -> bytes:
    """PNG of every piece of `variant` (object or id) with its letters and name."""
    v = load_variant(variant) if isinstance(variant, str) else variant
    return _render(v, theme)
