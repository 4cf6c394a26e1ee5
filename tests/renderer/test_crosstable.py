"""The crosstable picture: sized for a phone, readable, coloured by result."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from renderer.crosstable import MIN_TEXT, PAD, WIDTH, draw_crosstable, render_crosstable
from tournament.berger import schedule_pairings
from tournament.model import Entrant, Pairing, Result
from tournament.standings import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Crosstable,
    compute_standings,
    crosstable,
)
from tournament.swiss import pair_swiss_round

NAMES = [f"player{i:02d}" for i in range(1, 17)]
RESULTS = [Result.of(1, 0), Result.of(0, 1), Result.of("1/2", "1/2")]


def round_robin(n: int, finished: float = 0.8, cycles: int = 1) -> Crosstable:
    rng = random.Random(n)
    field = [
        Entrant(i, i, NAMES[i - 1], withdrawn_after=2 if i == 3 else None) for i in range(1, n + 1)
    ]
    pairings = [
        p.with_result(rng.choice(RESULTS)) if rng.random() < finished else p
        for p in schedule_pairings({i: i for i in range(1, n + 1)}, cycles)
    ]
    table = compute_standings(field, pairings, ROUND_ROBIN_TIEBREAKS)
    return crosstable(
        table, pairings, title="Club round robin", subtitle="Chess", swiss=False, rounds=n - 1
    )


def swiss(n: int, rounds: int) -> Crosstable:
    rng = random.Random(n)
    field = [Entrant(i, i, NAMES[i - 1]) for i in range(1, n + 1)]
    history: list[Pairing] = []
    for r in range(1, rounds + 1):
        for p in pair_swiss_round(field, history, r):
            history.append(
                p.with_result(Result.of(1, 0) if p.black is None else rng.choice(RESULTS))
            )
    table = compute_standings(field, history, SWISS_TIEBREAKS)
    return crosstable(
        table, history, title="Club Swiss", subtitle="Grand Chess", swiss=True, rounds=rounds
    )


@pytest.mark.parametrize("n", [2, 6, 10, 16])
def test_round_robins_fit_a_phone(n: int) -> None:
    img = draw_crosstable(round_robin(n), scale=1)
    # Laid out for 450 px; the widest (16 players) may exceed it by a few percent, so a
    # phone shrinks its 9 px text by at most that much.
    assert img.width <= WIDTH * 1.03
    assert img.height < 40 + 20 * (n + 3)


@pytest.mark.parametrize(("n", "rounds"), [(5, 3), (9, 4), (16, 7)])
def test_swiss_tables_fit_a_phone(n: int, rounds: int) -> None:
    assert draw_crosstable(swiss(n, rounds), scale=1).width <= WIDTH * 1.03


def test_png_at_twice_the_size() -> None:
    png = render_crosstable(round_robin(6))
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.width == 2 * WIDTH


def test_text_is_never_smaller_than_nine_pixels() -> None:
    # The glyph height of a digit at the size chosen for the widest table.
    from renderer.crosstable import _layout
    from renderer.sprites import font

    table = round_robin(16)
    size = 10
    while _layout(table, size)[1] > WIDTH and size > MIN_TEXT:
        size -= 1
    assert size >= MIN_TEXT
    box = font("regular", size).getbbox("8")
    assert box[3] - box[1] >= 6  # the digit itself, without ascender room


def digit_heights(table: Crosstable) -> list[float]:
    """The ink height of each row's place number in the PNG a player gets, in pixels of the
    picture shown 450 px wide: dark runs in the place column between the header and the
    bottom margin (the title, the header and the margins are dark backgrounds)."""
    img = Image.open(io.BytesIO(render_crosstable(table))).convert("RGB")
    per = img.width / WIDTH
    pixels = img.load()
    assert pixels is not None
    left, right = int(PAD * per) + 1, int((PAD + 14) * per)
    dark = [
        any(sum(pixels[x, y]) < 300 for x in range(left, right))  # type: ignore[arg-type]
        for y in range(img.height)
    ]
    runs: list[float] = []
    start = None
    for y, is_dark in enumerate([*dark, False]):
        if is_dark and start is None:
            start = y
        elif not is_dark and start is not None:
            runs.append((y - start) / per)
            start = None
    return runs[1:-1]


@pytest.mark.parametrize("long_names", [False, True])
def test_sixteen_players_read_on_a_phone(long_names: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Measured on the PNG: the digits of a 16-player round robin and of a 16-player Swiss of
    7 rounds are 7.5 px tall at 450 px (10 px text); with names too long for their column
    (cut with an ellipsis) the Swiss shrinks to 9 px text, 6.5 px digits, never less."""
    if long_names:
        monkeypatch.setattr(
            "tests.renderer.test_crosstable.NAMES",
            [f"a_rather_long_discord_name_{i:02d}" for i in range(1, 17)],
        )
    for table in (round_robin(16), swiss(16, 7)):
        heights = digit_heights(table)
        assert len(heights) == (16 if table.swiss else 15)  # the withdrawn row is grey
        assert min(heights) >= (6.5 if long_names else 7.5), heights


def test_results_are_coloured() -> None:
    table = round_robin(4, finished=1.0)
    img = draw_crosstable(table, scale=1).convert("RGB")
    colours = {
        img.getpixel((x, y)) for x in range(0, img.width, 3) for y in range(0, img.height, 3)
    }
    from renderer.crosstable import TONES
    from tournament.standings import Tone

    wanted = {TONES[t] for t in (Tone.WIN, Tone.LOSS, Tone.SELF)}
    assert wanted <= colours
