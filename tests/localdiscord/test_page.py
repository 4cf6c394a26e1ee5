"""Local mode's page without a browser: its JSON and event stream, and the saved world.

A small discord.py bot answers one command with an ephemeral reply and another with a
button, so that what the page serves can be checked against what the bot did.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from localdiscord import FakeDiscord, FakeGuild, FakeUser, run_bot
from localdiscord.persist import WorldFile
from localdiscord.web import Page


class Echo(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.none())
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(description="Say something back, privately")
        async def echo(interaction: discord.Interaction, text: str) -> None:
            await interaction.response.send_message(f"**{text}**", ephemeral=True)

        @self.tree.command(description="A public post with a button")
        async def post(interaction: discord.Interaction) -> None:
            view = discord.ui.View()
            view.add_item(discord.ui.Button(label="Press", custom_id="press"))
            await interaction.response.send_message(f"hello <@{interaction.user.id}>", view=view)

        @echo.autocomplete("text")
        async def suggest(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=f"{current}!", value=current)]

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.data and interaction.data.get("custom_id") == "press":
            await interaction.response.edit_message(content="pressed", view=None)


@pytest.fixture
async def served() -> AsyncIterator[tuple[FakeDiscord, FakeGuild, aiohttp.ClientSession]]:
    fake = FakeDiscord()
    guild = fake.add_guild("Club")
    fake.add_channel(guild, "lobby")
    for name in ("alice", "bob"):
        fake.add_user(name, guild=guild)
    page = Page(fake, guild)
    await fake.start(extend=page.add_routes)
    try:
        async with run_bot(fake, Echo()), aiohttp.ClientSession(fake.base_url) as http:
            yield fake, guild, http
    finally:
        await fake.close()
    fake.assert_no_violations()


async def act(http: aiohttp.ClientSession, **body: Any) -> tuple[int, dict[str, Any]]:
    async with http.post("/page/act", json=body) as response:
        return response.status, await response.json()


async def first_event(http: aiohttp.ClientSession, **query: str) -> dict[str, Any]:
    async with http.get("/page/events", params=query) as response:
        assert response.headers["Content-Type"] == "text/event-stream"
        async for line in response.content:
            if line.startswith(b"data: "):
                data: dict[str, Any] = json.loads(line[6:])
                return data
    raise AssertionError("no event")


def person(fake: FakeDiscord, name: str) -> FakeUser:
    return next(u for u in fake.users.values() if u.name == name)


async def test_the_page_and_its_files_are_served(served: Any) -> None:
    _, _, http = served
    async with http.get("/") as response:
        assert response.status == 200 and "<title>" in await response.text()
    for name in ("app.js", "app.css"):
        async with http.get(f"/static/{name}") as response:
            assert response.status == 200
    async with http.get("/static/../server.py") as response:
        assert response.status == 404


async def test_state_commands_and_a_private_reply(served: Any) -> None:
    fake, guild, http = served
    alice, bob = person(fake, "alice"), person(fake, "bob")
    lobby = guild.channel("lobby")
    first = await first_event(http, user="alice")
    state = first["state"]
    assert [u["name"] for u in state["users"]] == ["alice", "bob"]
    assert state["channels"][0]["name"] == "lobby" and first["reset"]
    assert {c["name"] for c in state["commands"]} == {"echo", "post"}
    (text,) = next(c for c in state["commands"] if c["name"] == "echo")["options"]
    assert (text["name"], text["type"], text["required"], text["autocomplete"]) == (
        "text", "string", True, True,
    )  # fmt: skip

    status, body = await act(
        http, user=str(alice.id), channel=str(lobby.id), kind="autocomplete",
        command="echo", focused="text", value="hi",
    )  # fmt: skip
    assert status == 200 and body["choices"] == [{"name": "hi!", "value": "hi"}]
    status, body = await act(
        http, user="alice", channel=str(lobby.id), kind="slash", command="echo",
        options={"text": "secret"},
    )  # fmt: skip
    assert status == 200 and body["acknowledged"] and not body["failed"]
    mine = await first_event(http, user=str(alice.id), channel=str(lobby.id))
    assert any("<strong>secret</strong>" in m["html"] for m in mine["upserts"])
    theirs = await first_event(http, user=str(bob.id), channel=str(lobby.id))
    assert not any("secret" in m["html"] for m in theirs["upserts"])


async def test_buttons_and_refusals(served: Any) -> None:
    fake, guild, http = served
    lobby = guild.channel("lobby")
    status, body = await act(http, user="bob", channel=str(lobby.id), kind="slash", command="post")
    assert status == 200 and body["acknowledged"]
    post = fake.last_message(lobby)
    status, body = await act(
        http, user="bob", kind="click", message=str(post.id), custom_id="press"
    )
    assert status == 200 and body["acknowledged"]
    assert post.content == "pressed"
    status, body = await act(http, user="bob", channel=str(lobby.id), kind="slash", command="echo")
    assert status == 400 and "requires option 'text'" in body["error"]
    status, body = await act(http, user="nobody", channel=str(lobby.id), kind="message")
    assert status == 400 and "no member" in body["error"]
    async with http.post("/page/users", json={"name": "carol"}) as response:
        carol = await response.json()
    assert carol["name"] == "carol" and guild.member(int(carol["id"])) is not None
    async with http.post("/page/users", json={"name": "<script>"}) as response:
        assert response.status == 400


async def test_problems_are_listed(served: Any) -> None:
    fake, _, http = served
    fake.violate("embed.title_too_long", "embeds.0.title: Must be 256 or fewer in length.")
    state = (await first_event(http))["state"]
    assert state["problems"][0]["code"] == "embed.title_too_long"
    fake.take_violations()


async def test_the_world_survives_a_restart(served: Any, tmp_path: Path) -> None:
    fake, guild, http = served
    lobby = guild.channel("lobby")
    await act(http, user="alice", channel=str(lobby.id), kind="slash", command="post")
    await act(http, user="alice", channel=str(lobby.id), kind="message", content="hi all")
    world = WorldFile(tmp_path / "world.sqlite3")
    assert world.save(fake) > 0
    assert world.save(fake) == 0  # nothing changed since
    world.close()

    again = FakeDiscord()
    reloaded = WorldFile(tmp_path / "world.sqlite3")
    assert reloaded.load(again)
    reloaded.close()
    assert again.application_id == fake.application_id
    assert {u.name for u in again.users.values()} == {u.name for u in fake.users.values()}
    lobby2 = again.channels[lobby.id]
    assert [m.content for m in lobby2.messages] == [m.content for m in fake.messages(lobby)]
    assert lobby2.messages[0].interaction is not None
    assert lobby2.messages[0].interaction.name == "post"
    assert again.ids.next() > max(fake.messages_by_id)
