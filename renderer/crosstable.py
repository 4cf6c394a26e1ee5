"""A tournament's crosstable as a picture, sized for a phone.

Discord shows a picture about 450 px wide on a phone, so the table is laid out in 450
"logical" pixels and drawn at `scale` times that (2 by default: sharp when enlarged). The
text is 10 logical pixels (digits and capitals 7.5 px tall on a phone), 9 px at the least
when a wide table must shrink (6.5 px digits); cells are padded tightly and names longer than
seven text heights are cut with an ellipsis, so that 16 players of a round robin, or 16 of a
Swiss of 7 rounds (with names of up to about 8 letters), fit at 10 px. (Board pictures hold
their letters to 9 px: a crosstable's 20 columns cannot.) Results are coloured (win, draw,
loss, running, bye) so the eye finds them without reading; withdrawn players are greyed and
struck through.
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from renderer.board import encode_png
from renderer.sprites import font
from tournament.standings import Crosstable, Tone

WIDTH = 450
"""The logical width the table is laid out for (a phone's picture width)."""
MIN_TEXT = 9
TEXT = 10
PAD = 6
ROW = 17
RGB = tuple[int, int, int]

BACKGROUND: RGB = (48, 46, 44)
TITLE: RGB = (240, 236, 228)
SUBTITLE: RGB = (190, 184, 174)
HEADER: RGB = (70, 67, 63)
HEADER_TEXT: RGB = (222, 216, 206)
ROW_EVEN: RGB = (250, 248, 244)
ROW_ODD: RGB = (238, 234, 226)
TEXT_DARK: RGB = (34, 32, 30)
TEXT_GREY: RGB = (130, 126, 120)
GRID: RGB = (200, 194, 184)
TONES: dict[Tone, RGB | None] = {
    Tone.WIN: (168, 214, 150),
    Tone.DRAW: (214, 212, 200),
    Tone.LOSS: (236, 170, 160),
    Tone.PENDING: (246, 226, 150),
    Tone.BYE: (176, 204, 232),
    Tone.SELF: (96, 92, 88),
    Tone.EMPTY: None,
}


def _measure(text: str, face: ImageFont.FreeTypeFont) -> float:
    return float(face.getlength(text)) if text else 0.0


def _layout(table: Crosstable, size: int) -> tuple[list[int], int]:
    """Column widths (logical px) at font `size`: place, name, cells..., points,
    tie-breaks...; and the total width."""
    regular, bold = font("regular", size * 4), font("bold", size * 4)

    def w(text: str, face: ImageFont.FreeTypeFont = regular) -> int:
        return int(_measure(text, face) / 4 + 0.999)

    place = max([w(r.place) for r in table.rows] + [w("#")]) + 3
    names = [w(r.name, bold) for r in table.rows]
    name = min(max([*names, w("Player", bold)]) + 6, 7 * size)
    cell_texts = [c.text for r in table.rows for c in r.cells] + list(table.columns)
    cell = max([w(t) for t in cell_texts] + [w("0")]) + 3
    points = max([w(r.points, bold) for r in table.rows] + [w("Pts")]) + 4
    tiebreaks = [
        max([w(r.tiebreaks[i]) for r in table.rows] + [w(header)]) + 4
        for i, header in enumerate(table.tiebreaks)
    ]
    widths = [place, name] + [cell] * len(table.columns) + [points] + tiebreaks
    return widths, sum(widths) + 2 * PAD


def draw_crosstable(table: Crosstable, *, scale: int = 2) -> Image.Image:
    """The crosstable as an RGB image `scale` × its logical size."""
    size = TEXT
    widths, total = _layout(table, size)
    while total > WIDTH and size > MIN_TEXT:
        size -= 1
        widths, total = _layout(table, size)
    # Use the room a narrow table leaves: wider cells read better.
    spare = WIDTH - total
    if spare > 0 and table.columns:
        extra = min(spare // len(table.columns), 3 * size)
        cells = range(2, 2 + len(table.columns))
        widths = [wd + extra if i in cells else wd for i, wd in enumerate(widths)]
        widths[1] += WIDTH - sum(widths) - 2 * PAD  # the rest to the names
        total = sum(widths) + 2 * PAD
    width = max(total, WIDTH)
    row_h = max(ROW, size + 7)
    title_h = size + 10 + (size + 4 if table.subtitle else 0)
    height = PAD + title_h + row_h * (len(table.rows) + 1) + PAD

    s = scale
    img = Image.new("RGB", (width * s, height * s), BACKGROUND)
    draw = ImageDraw.Draw(img)
    regular = font("regular", size * s)
    bold = font("bold", size * s)
    title_font = font("bold", (size + 3) * s)

    y = PAD
    draw.text(
        (PAD * s, y * s),
        _fit(table.title, title_font, (width - 2 * PAD) * s),
        font=title_font,
        fill=TITLE,
    )
    y += size + 8
    if table.subtitle:
        draw.text(
            (PAD * s, y * s),
            _fit(table.subtitle, regular, (width - 2 * PAD) * s),
            font=regular,
            fill=SUBTITLE,
        )
        y += size + 4
    y = PAD + title_h

    headers = ["#", "Player", *table.columns, "Pts", *table.tiebreaks]
    x = PAD
    draw.rectangle((PAD * s, y * s, (PAD + sum(widths)) * s - 1, (y + row_h) * s - 1), fill=HEADER)
    for i, (text, wd) in enumerate(zip(headers, widths, strict=True)):
        anchor_left = i == 1
        _cell_text(
            draw,
            text,
            x,
            y,
            wd,
            row_h,
            s,
            bold if i == 1 else regular,
            HEADER_TEXT,
            left=anchor_left,
        )
        x += wd
    y += row_h

    for index, row in enumerate(table.rows):
        fill = ROW_EVEN if index % 2 == 0 else ROW_ODD
        draw.rectangle(
            (PAD * s, y * s, (PAD + sum(widths)) * s - 1, (y + row_h) * s - 1), fill=fill
        )
        colour = TEXT_GREY if row.withdrawn else TEXT_DARK
        x = PAD
        name = row.name
        values: list[tuple[str, ImageFont.FreeTypeFont, bool]] = [
            (row.place, regular, False),
            (name, bold, True),
        ]
        for i, (text, face, left) in enumerate(values):
            wd = widths[i]
            shown = _fit(text, face, (wd - 6) * s) if left else text
            _cell_text(draw, shown, x, y, wd, row_h, s, face, colour, left=left)
            if left and row.withdrawn:  # struck through: withdrawn
                length = min(_measure(shown, face), (wd - 6) * s)
                mid = (y + row_h / 2) * s
                draw.line(((x + 4) * s, mid, (x + 4) * s + length, mid), fill=colour, width=s)
            x += wd
        for cell in row.cells:
            wd = widths[2]
            tone = TONES[cell.tone]
            if tone is not None:
                draw.rectangle(
                    ((x + 1) * s, (y + 1) * s, (x + wd - 1) * s - 1, (y + row_h - 1) * s - 1),
                    fill=tone,
                )
            _cell_text(draw, cell.text, x, y, wd, row_h, s, regular, TEXT_DARK)
            x += wd
        rest = widths[2 + len(row.cells) :]
        _cell_text(draw, row.points, x, y, rest[0], row_h, s, bold, colour)
        x += rest[0]
        for text, wd in zip(row.tiebreaks, rest[1:], strict=True):
            _cell_text(draw, text, x, y, wd, row_h, s, regular, colour)
            x += wd
        y += row_h
    # Column rules between the groups: names | cells | points.
    top = PAD + title_h
    for edge in (widths[0] + widths[1], sum(widths[: 2 + len(table.columns)])):
        draw.line(((PAD + edge) * s, top * s, (PAD + edge) * s, y * s), fill=GRID, width=max(1, s))
    return img


def _cell_text(
    draw: ImageDraw.ImageDraw,
    text: str,
    x: int,
    y: int,
    width: int,
    height: int,
    s: int,
    face: ImageFont.FreeTypeFont,
    fill: RGB,
    *,
    left: bool = False,
) -> None:
    if not text:
        return
    if left:
        draw.text(((x + 4) * s, (y + height / 2) * s), text, font=face, fill=fill, anchor="lm")
    else:
        draw.text(
            ((x + width / 2) * s, (y + height / 2) * s), text, font=face, fill=fill, anchor="mm"
        )


def _fit(text: str, face: ImageFont.FreeTypeFont, width: float) -> str:
    """`text`, cut with an ellipsis to fit `width` pixels."""
    if _measure(text, face) <= width:
        return text
    while text and _measure(text + "…", face) > width:
        text = text[:-1]
    return text + "…"


def render_crosstable(table: Crosstable, *, scale: int = 2) -> bytes:
    """The crosstable as PNG bytes."""
    return encode_png(draw_crosstable(table, scale=scale))
