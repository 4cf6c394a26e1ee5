"""Local mode in a real browser: headless Chromium drives the page as a person would.

The page, the stand-in and the real bot run in this test's process (as `make run` runs them
without a token, but on a free port and a temporary database); Playwright drives Debian's
`chromium` (never a downloaded browser). Without Chromium or Playwright the tests are skipped
with one line, unless FAIRYPOST_REQUIRE_BROWSER=1 (set by `.ci/run`) makes that a failure.
FAIRYPOST_SCREENSHOT=PATH also saves the README's screenshots of the page (PATH and
local-mode-phone.png beside it); install fonts-noto-color-emoji first, or emoji show as boxes.
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


DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 400, "height": 800}


async def open_page(
    local: Local, user: str, *, viewport: dict[str, int] = DESKTOP, channel: int | None = None
) -> Any:
    context = await local.browser.new_context(viewport=viewport)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.script_errors = errors
    where = f"#c{channel}" if channel is not None else ""
    await page.goto(f"{local.url}/?user={user}{where}")
    await _expect(page.locator("#bot-status")).to_have_text(re.compile("online"), timeout=WAIT_MS)
    return page


FOLLOWING = """() => {
  const log = document.querySelector("#messages");
  const last = log.lastElementChild;
  const pictures = last ? [...last.querySelectorAll("img")] : [];
  const loaded = pictures.every((img) => img.complete && img.naturalWidth > 0);
  return loaded && log.scrollHeight - log.scrollTop - log.clientHeight <= 2;
}"""
"""The newest post is shown whole, its pictures loaded, at the very bottom of the view."""


async def assert_following(page: Any, count: int, text: str) -> None:
    """`count` posts with `text` are shown, and the view is at the newest one."""
    await _expect(page.locator("article.msg", has_text=text)).to_have_count(count, timeout=WAIT_MS)
    await page.wait_for_function(FOLLOWING, timeout=WAIT_MS)


async def assert_no_sideways_scroll(page: Any) -> None:
    widths = await page.evaluate(
        """() => [document.documentElement, document.querySelector("#messages")]
            .map((el) => [el.scrollWidth, el.clientWidth])"""
    )
    for scroll, client in widths:
        assert scroll <= client, widths


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


async def start_game_by_api(local: Local, *, variant: str = "chess") -> Any:
    """alice (White) and bob start a game through the stand-in itself; its thread."""
    fake, lobby = local.fake, local.guild.channel("lobby")
    alice, bob = (
        next(u for u in local.fake.users.values() if u.name == n) for n in ("alice", "bob")
    )
    posted = await (
        await fake.slash(alice, lobby, "challenge", variant=variant, opponent=bob, color="white")
    ).reply(timeout=WAIT_MS / 1000)
    await (await fake.click(bob, posted, label="Accept")).response()
    return await fake.wait_for_thread(parent=lobby, timeout=WAIT_MS / 1000)


async def open_move_form(page: Any) -> None:
    box = page.locator("#composer-input")
    await box.click()
    await box.press_sequentially("/move ")
    await _expect(page.locator("#command-name")).to_have_text("/move", timeout=WAIT_MS)


async def test_the_view_follows_every_new_post_at_both_widths(local: Local) -> None:
    """Each player has the /move form open while the other moves (the message area shrinks,
    the new board's picture loads late): each page keeps showing the newest post, alice's
    at desktop width, bob's on a phone. At the end, the replay GIF fits the phone's width."""
    thread = await start_game_by_api(local)
    alice = await open_page(local, "alice", channel=thread.id)
    bob = await open_page(local, "bob", viewport=PHONE, channel=thread.id)
    for page in (alice, bob):
        await assert_following(page, 1, "the game begins")
    moves = [("e2", "e2-e4 · Pawn"), ("e7", "e7-e5 · Pawn"), ("Ng1", "Ng1-f3 · Knight")]
    moves += [("Nb8", "Nb8-c6 · Knight"), ("Bf1", "Bf1-c4 · Bishop"), ("Ng8", "Ng8-f6 · Knight")]
    for ply, (typed, choice) in enumerate(moves):
        mover, waiting = (alice, bob) if ply % 2 == 0 else (bob, alice)
        await open_move_form(waiting)  # the other player's form is open while this one moves
        if ply < 2:
            await waiting.wait_for_function(FOLLOWING, timeout=WAIT_MS)  # the form opened
        if ply == 0:
            await open_move_form(mover)  # later, the form opened while waiting is used
        await autocomplete_pick(mover, "move", typed, choice)
        await mover.locator("#opt-move").press("Enter")
        await _expect(mover.locator("#command-form")).to_be_hidden(timeout=WAIT_MS)
        name = "alice" if ply % 2 == 0 else "bob"
        for page in (alice, bob):
            await assert_following(page, ply // 2 + 1, f"{name} played")
    await alice.locator("#command-cancel").click()
    # bob reads back a little: the view no longer jumps; a button brings him to the end.
    await bob.locator("#messages").evaluate("log => { log.scrollTop = 0; }")
    await autocomplete_pick_and_send(alice, "Nf3", "Nf3-g5 · Knight")
    await _expect(bob.locator("#jump")).to_be_visible(timeout=WAIT_MS)
    assert await bob.locator("#messages").evaluate("log => log.scrollTop") < 50
    await bob.locator("#jump").click()
    await assert_following(bob, 4, "alice played")
    # bob resigns; the final post and the replay GIF come: at 400 px nothing is wider.
    await slash(bob, "resign")
    await assert_following(bob, 1, "move by move")
    gif = bob.locator("img.attachment-image").last
    await _expect(gif).to_have_attribute("alt", re.compile("Animated replay of game #1"))
    await assert_no_sideways_scroll(bob)
    assert await bob.locator("img[data-no-alt]").count() == 0  # every picture has alt text
    for page in (alice, bob):
        await page.wait_for_function(FOLLOWING, timeout=WAIT_MS)
        assert not page.script_errors
    shot = os.environ.get("FAIRYPOST_SCREENSHOT")
    if shot:  # the README's picture of a phone: the end of the game
        await bob.screenshot(path=str(Path(shot).with_name("local-mode-phone.png")))


async def autocomplete_pick_and_send(page: Any, typed: str, choice: str) -> None:
    await open_move_form(page)
    await autocomplete_pick(page, "move", typed, choice)
    await page.locator("#opt-move").press("Enter")
    await _expect(page.locator("#command-form")).to_be_hidden(timeout=WAIT_MS)


async def test_a_newcomer_on_a_phone_finds_every_command_and_the_owner_runs_the_server(
    local: Local,
) -> None:
    """At 400 px: the empty lobby says where to start; `/` lists every command; the
    suggestions never cover the form's Cancel; the channels fold behind ☰. alice owns the
    server: /config and /tournament create work for her; bob is offered /config once he is
    given the Admins role on the page."""
    page = await open_page(local, "alice", viewport=PHONE)
    welcome = page.locator("#welcome")
    await _expect(welcome).to_contain_text("Welcome to #lobby!", timeout=WAIT_MS)
    await _expect(page.locator("#sidebar")).to_be_hidden()
    await assert_no_sideways_scroll(page)

    # Every command from `/`, none cut (Discord's list scrolls).
    box = page.locator("#composer-input")
    await box.click()
    await box.press_sequentially("/")
    offered = await page.evaluate("() => S.state.commands.map((c) => c.name)")
    shown = page.locator("#command-popup .option-name")
    await _expect(shown).to_have_count(len(offered), timeout=WAIT_MS)
    names = [n.removeprefix("/") for n in await shown.all_inner_texts()]
    assert names == offered and len(names) > 25
    assert {"tournament create", "vacation", "variant define", "variants", "config"} <= set(names)
    await box.press("Escape")
    await box.fill("")

    # The welcome's /challenge opens the form; the variant's suggestions leave Cancel free.
    await welcome.get_by_role("button", name="/challenge").click()
    await _expect(page.locator("#command-name")).to_have_text("/challenge", timeout=WAIT_MS)
    field = page.locator("#opt-variant")
    await field.press_sequentially("ches")
    await _expect(page.locator("#opt-variant-choices[data-for='ches']")).to_be_visible(
        timeout=WAIT_MS
    )
    first = page.locator("#opt-variant-choices .option-name").first
    await _expect(first).to_have_text("Chess (8×8)")
    cancel = page.locator("#command-cancel")
    hit = await cancel.evaluate(
        """(el) => { const r = el.getBoundingClientRect();
            return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === el; }"""
    )
    assert hit, "the suggestions cover Cancel"
    await assert_no_sideways_scroll(page)
    await cancel.click()
    await _expect(page.locator("#command-form")).to_be_hidden()

    # The owner: server settings, then a tournament.
    await slash(page, "config")
    await _expect(page.locator("article.msg.ephemeral", has_text="challenge")).to_have_count(
        1, timeout=WAIT_MS
    )
    box = page.locator("#composer-input")
    await box.click()
    await box.press_sequentially("/tournament create ")
    await _expect(page.locator("#command-name")).to_have_text("/tournament create")
    await page.locator("#opt-name").fill("Spring Cup")
    await autocomplete_pick(page, "variant", "chess", "Chess (8×8)")
    await page.locator("#opt-format").select_option(index=1)
    await page.locator("#send").click()
    signup = page.locator("article.msg", has_text="Spring Cup")
    await _expect(signup.locator("button", has_text="Join")).to_be_visible(timeout=WAIT_MS)
    await page.wait_for_function(FOLLOWING, timeout=WAIT_MS)

    # bob is not offered /config, until he is made an admin on the page (☰, Roles).
    await page.locator("#sidebar-toggle").click()
    await _expect(page.locator("#sidebar")).to_be_visible()
    await switch_user(page, "bob")
    await _expect(page.locator("#sidebar")).to_be_hidden()
    names = await page.evaluate("() => S.state.commands.map((c) => c.name)")
    assert "config" not in names and "mod cancel" not in names and "challenge" in names
    await page.locator("#sidebar-toggle").click()
    await page.locator("#role-list label", has_text="Admins").locator("input").check()
    await page.wait_for_function("() => S.state.commands.some((c) => c.name === 'config')")
    await page.keyboard.press("Escape")
    await slash(page, "config")
    await _expect(page.locator("article.msg.ephemeral", has_text="challenge")).to_have_count(
        1, timeout=WAIT_MS
    )
    assert not page.script_errors
