"""Draw `docs/screenshot.png`: a game in progress as it looks in a Discord thread.

The message is built by the bot's own code (the service layer plays the moves in a
temporary database; `bot.ui.embeds.game_embed` makes the embed; the renderer draws the
board), then laid out in Discord's dark theme. Run: `.venv/bin/python docs/screenshot.py`.
"""

from __future__ import annotations

import asyncio
import io
import random
import re
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from bot.service.pictures import RendererPictures
from bot.ui.embeds import game_embed
from renderer.sprites import font
from storage import Storage

OUT = Path(__file__).resolve().parent / "screenshot.png"
MOVES = ["e3-e5", "e8-e6", "Hi2-g4", "Wg10-f7", "Hg4xe6", "d8-d7", "He6-g4", "Wf7xe5"]
BG = (49, 51, 56)
EMBED_BG = (43, 45, 49)
TEXT = (219, 222, 225)
MUTED = (148, 155, 164)
MENTION_BG = (60, 66, 112)
MENTION = (201, 205, 251)
WIDTH = 760


async def message() -> tuple[str, str, list[tuple[str, str]], bytes, int]:
    ann, bob = UserRef(1, "Ann"), UserRef(2, "Bob")
    with tempfile.TemporaryDirectory() as folder:
        storage = await Storage.open(
            Path(folder) / "shot.sqlite3", engine=STORAGE_ENGINE, rng=random.Random(1)
        )
        try:
            service = GameService(storage, clock=ManualClock(), pictures=RendererPictures())
            c = await service.create_challenge(
                guild_id=1, channel_id=1, challenger=ann, opponent=bob, variant="patchanka",
                color="white", days_per_move=3,
            )  # fmt: skip
            await service.accept_challenge(c.challenge.id, bob)
            await service.attach_thread(1, 99)
            result = None
            for i, move in enumerate(MOVES):
                result = await service.play(channel_id=99, user=(ann, bob)[i % 2], text=move)
            assert result is not None
            view = result.view
            embed = game_embed(view, headline=f"{bob.name} played **{result.notation}**")
            picture = await service.render(view.scene)
        finally:
            await storage.close()
    fields = [(f.name or "", f.value or "") for f in embed.fields]
    # Discord shows timestamps in the reader's words; so does the screenshot.
    description = re.sub(r"<t:\d+:R>", "in 3 days", embed.description or "")
    description = re.sub(r"<t:\d+:f>", "Friday 28 November 2026 18:42", description)
    colour = embed.colour.value if embed.colour else 0x548B54
    return embed.title or "", description, fields, picture.png, colour


def wrap(draw: ImageDraw.ImageDraw, text: str, width: int, size: int) -> list[str]:
    out: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            trial = f"{line} {word}".strip()
            if draw.textlength(trial, font=font("regular", size)) > width and line:
                out.append(line)
                line = word
            else:
                line = trial
        out.append(line)
    return out


def draw(
    title: str, description: str, fields: list[tuple[str, str]], png: bytes, colour: int
) -> Image.Image:
    board = Image.open(io.BytesIO(png)).convert("RGB")
    board.thumbnail((560, 560))
    canvas = Image.new("RGB", (WIDTH, 2000), BG)
    d = ImageDraw.Draw(canvas)
    x0, y = 84, 20
    d.ellipse((20, y, 60, y + 40), fill=(84, 139, 84))
    d.text((40, y + 20), "FP", font=font("bold", 16), fill=(255, 255, 255), anchor="mm")
    d.text((x0, y), "Fairy Post", font=font("bold", 17), fill=(255, 255, 255))
    name_w = d.textlength("Fairy Post", font=font("bold", 17))
    d.rounded_rectangle((x0 + name_w + 8, y + 2, x0 + name_w + 44, y + 20), 4, fill=(88, 101, 242))
    d.text((x0 + name_w + 26, y + 11), "APP", font=font("bold", 11), fill="white", anchor="mm")
    d.text((x0 + name_w + 54, y + 3), "Today at 18:42", font=font("regular", 13), fill=MUTED)
    y += 28
    mention = "@Ann"
    mw = d.textlength(mention, font=font("regular", 16))
    d.rounded_rectangle((x0, y, x0 + mw + 6, y + 22), 3, fill=MENTION_BG)
    d.text((x0 + 3, y + 2), mention, font=font("regular", 16), fill=MENTION)
    d.text((x0 + mw + 7, y + 2), ", your move.", font=font("regular", 16), fill=TEXT)
    y += 34
    top = y
    # The embed card: drawn tall first, trimmed to its content at the end.
    d.rounded_rectangle((x0, top, WIDTH - 24, 1990), 6, fill=EMBED_BG)
    inner = x0 + 16
    y += 12
    for line in wrap(d, title, WIDTH - inner - 40, 16):
        d.text((inner, y), line, font=font("bold", 16), fill=(255, 255, 255))
        y += 22
    y += 4
    for line in wrap(d, description.replace("**", ""), WIDTH - inner - 40, 15):
        d.text((inner, y), line, font=font("regular", 15), fill=TEXT)
        y += 21
    y += 8
    column = 0
    for name, value in fields:
        if name == "Last moves":
            d.text((inner, y), name, font=font("bold", 14), fill=(255, 255, 255))
            y += 20
            for line in value.split("\n"):
                d.text((inner, y), line, font=font("regular", 14), fill=TEXT)
                y += 19
            y += 10
        else:
            left = inner + column * 180
            d.text((left, y), name, font=font("bold", 14), fill=(255, 255, 255))
            d.text((left, y + 20), value, font=font("regular", 14), fill=TEXT)
            column += 1
    y += 52
    canvas.paste(board, (inner, y))
    y += board.height + 16
    d.rectangle((0, y + 1, WIDTH, 2000), fill=BG)
    d.rounded_rectangle((x0, y - 8, WIDTH - 24, y), 6, fill=EMBED_BG)
    rgb = ((colour >> 16) & 255, (colour >> 8) & 255, colour & 255)
    d.rounded_rectangle((x0, top, x0 + 4, y), 2, fill=rgb)
    return canvas.crop((0, 0, WIDTH, y + 20))


def main() -> None:
    title, description, fields, png, colour = asyncio.run(message())
    draw(title, description, fields, png, colour).save(OUT, optimize=True)
    print(f"{OUT}: {OUT.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
