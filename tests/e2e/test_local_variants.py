"""Local mode plays every kind of variant: through the page's own API (what the browser
sends), one person challenges themselves as two users, accepts, and plays moves picked from
the bot's autocomplete, in games with drops, a placement phase and a 16x16 board."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.client import FairyPost
from bot.local import build_world
from localdiscord import FakeChannel, FakeDiscord, FakeMessage, run_bot
from localdiscord.web import Page

WAIT = 30.0


@pytest.fixture
async def page(tmp_path: Path) -> AsyncIterator[tuple[FakeDiscord, aiohttp.ClientSession]]:
    fake = FakeDiscord()
    guild = build_world(fake)
    await fake.start(extend=Page(fake, guild).add_routes)
    try:
        async with (
            run_bot(fake, FairyPost(database=tmp_path / "local.sqlite3")),
            aiohttp.ClientSession(fake.base_url) as http,
        ):
            yield fake, http
    finally:
        await fake.close()
    fake.assert_no_violations()


async def act(http: aiohttp.ClientSession, **body: Any) -> dict[str, Any]:
    async with http.post("/page/act", json=body) as response:
        data: dict[str, Any] = await response.json()
        assert response.status == 200, data
        return data


async def posted(fake: FakeDiscord, thread: FakeChannel, since: int, text: str) -> FakeMessage:
    """The first finished message of ``thread`` after index ``since`` that contains ``text``."""

    def found() -> FakeMessage | None:
        for m in thread.messages[since:]:
            if not m.loading and not m.ephemeral and text in m.text:
                return m
        return None

    await fake.wait_until(lambda: found() is not None, WAIT, f"a post saying {text!r}")
    message = found()
    assert message is not None
    return message


@pytest.mark.parametrize("variant", ["patricia", "frog-gryphon", "bigorra", "timurid-herat"])
async def test_a_game_of_any_variant_from_the_page(page: Any, variant: str) -> None:
    fake, http = page
    people = {u.name: u for u in fake.users.values()}
    alice, bob = people["alice"], people["bob"]
    lobby = next(c for c in fake.channels.values() if c.name == "lobby")
    choices = await act(
        http, kind="autocomplete", user="alice", channel=str(lobby.id), command="challenge",
        focused="variant", value=variant.split("-", maxsplit=1)[0],
    )  # fmt: skip
    assert choices["choices"], choices
    done = await act(
        http, kind="slash", user="alice", channel=str(lobby.id), command="challenge",
        options={"variant": variant, "opponent": str(bob.id), "color": "white"},
    )  # fmt: skip
    assert done["acknowledged"]
    await fake.wait_until(
        lambda: any(m.buttons for m in fake.messages(lobby)), WAIT, "the challenge"
    )
    challenge = next(m for m in fake.messages(lobby) if m.buttons)
    accept = challenge.button("Accept")["custom_id"]
    await act(http, kind="click", user="bob", message=str(challenge.id), custom_id=accept)
    thread: FakeChannel = await fake.wait_for_thread(parent=lobby, timeout=WAIT)
    await fake.wait_for_message(thread, include_existing=True, timeout=WAIT)
    for ply in range(4):
        # Whoever has moves to play is to move (placement phases are not strictly alternate).
        for player in (alice, bob):
            suggested = await act(
                http, kind="autocomplete", user=str(player.id), channel=str(thread.id),
                command="move", focused="move", value="",
            )  # fmt: skip
            if suggested["choices"]:
                break
        assert suggested["choices"], f"no move offered to anyone at ply {ply} of {variant}"
        move = suggested["choices"][0]["value"]
        before = len(thread.messages)
        played = await act(
            http, kind="slash", user=str(player.id), channel=str(thread.id), command="move",
            options={"move": move},
        )  # fmt: skip
        assert played["acknowledged"] and not played["failed"]
        post = await posted(fake, thread, before, f"{player.name} played")
        (picture,) = post.attachments
        assert picture.is_png and picture.description
        assert "board" in picture.description
