"""Local mode in a real browser: headless Chromium drives the page as a person would.

The page, the stand-in and the real bot run in this test's process (as `make run` runs them
without a token, but on a free port and a temporary database); Playwright drives Debian's
`chromium` (never a downloaded browser). Without Chromium or Playwright the tests are skipped
with one line, unless FAIRYPOST_REQUIRE_BROWSER=1 (set by `.ci/run`) makes that a failure.
FAIRYPOST_SCREENSHOT=PATH also saves the README's screenshot of the page to PATH.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.client import FairyPost
from bot.local import build_world
from localdiscord import FakeDiscord, FakeGuild, run_bot
from localdiscord.web import Page

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 30_000  # generous: the machine may be shared and slow; waits end on conditions


def _chromium() -> str | None:
    named = os.environ.get("FAIRYPOST_CHROMIUM")
    if named:
        return named
    for path in CHROMIUM_CANDIDATES:
        if Path(path).exists():
            return path
    return shutil.which("chromium")


def _skip_or_fail(reason: str) -> None:
    if os.environ.get("FAIRYPOST_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (FAIRYPOST_REQUIRE_BROWSER=1 requires the browser tests)")
    pytest.skip(reason)


@dataclass
class Local:
    fake: FakeDiscord
    guild: FakeGuild
    url: str
    browser: Any


@pytest.fixture
async def local(tmp_path: Path) -> AsyncIterator[Local]:
    """Local mode as `make run` builds it, and a headless Chromium."""
    chromium = _chromium()
    if chromium is None:
        _skip_or_fail("no Chromium installed (apt-get install chromium): browser tests skipped")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _skip_or_fail("Playwright is not installed (pip install -e '.[dev]'): skipped")
    fake = FakeDiscord()
    guild = build_world(fake)
    page = Page(fake, guild, title="Fairy Post local mode")
    await fake.start(extend=page.add_routes)
    try:
        async with (
            run_bot(fake, FairyPost(database=tmp_path / "local.sqlite3")),
            async_playwright() as playwright,
        ):
            browser = await playwright.chromium.launch(
                executable_path=chromium, args=CHROMIUM_ARGS, headless=True
            )
            try:
                yield Local(fake, guild, fake.base_url, browser)
            finally:
                await browser.close()
    finally:
        await fake.close()
    fake.assert_no_violations()


async def open_page(local: Local, user: str) -> Any:
    context = await local.browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    await page.goto(f"{local.url}/?user={user}")
    await _expect(page.locator("#bot-status")).to_have_text(re.compile("online"), timeout=WAIT_MS)
    return page


def _expect(locator: Any) -> Any:
    from playwright.async_api import expect

    return expect(locator)


async def slash(page: Any, command: str, **options: str) -> None:
    """Type ``/command `` in the message box (which opens it), fill the options, send."""
    box = page.locator("#composer-input")
    await box.click()
    await box.press_sequentially(f"/{command} ")
    await _expect(page.locator("#command-name")).to_have_text(f"/{command}", timeout=WAIT_MS)
    for name, value in options.items():
        field = page.locator(f"#opt-{name}")
        if await field.evaluate("el => el.tagName") == "SELECT":
            await field.select_option(label=value)
        else:
            await field.fill(value)
    await page.locator("#send").click()
    await _expect(page.locator("#command-form")).to_be_hidden(timeout=WAIT_MS)


async def autocomplete_pick(page: Any, option: str, typed: str, choice: str) -> None:
    """Type ``typed`` in an autocomplete option and pick ``choice`` with the keyboard."""
    field = page.locator(f"#opt-{option}")
    await field.click()
    await field.press_sequentially(typed)
    settled = page.locator(f"#opt-{option}-choices[data-for='{typed}']")
    await _expect(settled).to_be_visible(timeout=WAIT_MS)  # the answer to all of `typed`
    exact = re.compile(f"^{re.escape(choice)}$")
    wanted = settled.locator(".option-name", has_text=exact)
    await _expect(wanted).to_be_visible(timeout=WAIT_MS)
    shown = await page.locator(f"#opt-{option}-choices .option-name").all_inner_texts()
    assert choice in shown, f"{choice!r} is not among the suggestions {shown}"
    for _ in range(shown.index(choice)):
        await field.press("ArrowDown")
    current = page.locator(f"#opt-{option}-choices [aria-selected=true] .option-name")
    await _expect(current).to_have_text(choice)
    await field.press("Enter")
    await _expect(field).to_have_value(choice, timeout=WAIT_MS)


async def send_move(page: Any, typed: str, choice: str) -> None:
    box = page.locator("#composer-input")
    await box.click()
    await box.press_sequentially("/move ")
    await _expect(page.locator("#command-name")).to_have_text("/move", timeout=WAIT_MS)
    await autocomplete_pick(page, "move", typed, choice)
    await page.locator("#opt-move").press("Enter")
    await _expect(page.locator("#command-form")).to_be_hidden(timeout=WAIT_MS)


async def switch_user(page: Any, name: str) -> None:
    await page.locator("#user-select").select_option(label=name)
    await _expect(page.locator("#user-select option:checked")).to_have_text(name)


async def test_two_players_play_chess_in_the_browser(local: Local) -> None:
    page = await open_page(local, "alice")
    await _expect(page.locator("#channel-title")).to_have_text("#lobby", timeout=WAIT_MS)

    # alice challenges bob, with the bot's own autocomplete for the variant.
    box = page.locator("#composer-input")
    await box.click()
    await box.press_sequentially("/chal")
    await box.press("Enter")
    await autocomplete_pick(page, "variant", "chess", "Chess (8×8)")
    await page.locator("#opt-opponent").select_option(label="bob")
    await page.locator("#opt-color").select_option(label="white")
    await page.locator("#send").click()
    challenge = page.locator("article.msg", has_text="challenge #")
    await _expect(challenge.locator("button", has_text="Accept")).to_be_visible(timeout=WAIT_MS)
    picture = challenge.locator("img.embed-image")
    await _expect(picture).to_have_attribute("alt", re.compile("Chess board"), timeout=WAIT_MS)

    # bob accepts with the button; the game's thread opens.
    # bob accepts with the keyboard alone: focus the button, press Enter.
    await switch_user(page, "bob")
    await challenge.locator("button", has_text="Accept").focus()
    await page.keyboard.press("Enter")
    await _expect(challenge).to_contain_text("Accepted by bob", timeout=WAIT_MS)
    await challenge.locator("a.channel-link").first.click()
    await _expect(page.locator("#channel-title")).to_have_text(
        re.compile("Chess: alice vs bob"), timeout=WAIT_MS
    )
    start = page.locator("article.msg", has_text="the game begins")
    await _expect(start.locator("img.embed-image")).to_be_visible(timeout=WAIT_MS)

    # bob tries to move first: the refusal is his alone.
    await slash(page, "move", move="e7-e5")
    refusal = page.locator("article.msg.ephemeral")
    await _expect(refusal).to_contain_text("Only you can see this", timeout=WAIT_MS)

    # alice plays e2-e4 from the autocomplete list; the picture updates.
    await switch_user(page, "alice")
    await _expect(page.locator("article.msg.ephemeral")).to_have_count(0, timeout=WAIT_MS)
    await send_move(page, "e2", "e2-e4 · Pawn")
    posted = page.locator("article.msg", has_text="alice played")
    await _expect(posted.locator("img.embed-image")).to_have_attribute(
        "alt", re.compile("Last move: e2 to e4"), timeout=WAIT_MS
    )

    # bob answers; then alice tries an illegal move and is told why, privately.
    await switch_user(page, "bob")
    await send_move(page, "e7", "e7-e5 · Pawn")
    await _expect(page.locator("article.msg", has_text="bob played")).to_have_count(
        1, timeout=WAIT_MS
    )
    await switch_user(page, "alice")
    await slash(page, "move", move="e4e6")
    refusal = page.locator("article.msg.ephemeral", has_text="e4e6")
    await _expect(refusal).to_contain_text("Only you can see this", timeout=WAIT_MS)
    await switch_user(page, "bob")
    await _expect(page.locator("article.msg", has_text="e4e6")).to_have_count(0, timeout=WAIT_MS)
    # His own, earlier: the refusal of his first try, and "You played e7-e5".
    await _expect(page.locator("article.msg.ephemeral")).to_have_count(2)

    # alice plays Ng1-f3 with the Move button: two select menus, only she sees them.
    await switch_user(page, "alice")
    board = page.locator("article.msg", has_text="bob played")
    await board.locator("button", has_text="Move").click()
    menu = page.locator("article.msg.ephemeral", has=page.locator("select"))
    await _expect(menu.locator("option[value='g1']")).to_be_attached(timeout=WAIT_MS)
    await menu.locator("select").select_option(value="g1")
    await _expect(menu.locator("option[value='f3']")).to_be_attached(timeout=WAIT_MS)
    await menu.locator("select").select_option(value="f3")
    await _expect(page.locator("article.msg", has_text="alice played")).to_have_count(
        2, timeout=WAIT_MS
    )
    await _expect(page.locator("article.msg", has_text="alice played").last).to_contain_text(
        "Ng1-f3"
    )
    shot = os.environ.get("FAIRYPOST_SCREENSHOT")
    if shot:
        await switch_user(page, "bob")
        field = page.locator("#composer-input")
        await field.click()
        await field.press_sequentially("/move ")
        await page.locator("#opt-move").press_sequentially("Nb8")
        await _expect(page.locator("#opt-move-choices[data-for='Nb8']")).to_be_visible(
            timeout=WAIT_MS
        )
        await page.locator("#messages").evaluate("log => { log.scrollTop = log.scrollHeight; }")
        await page.screenshot(path=shot)
