"""The stand-in's HTTP and gateway behaviour seen by a raw client (no discord.py in the way)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from localdiscord import FakeDiscord
from tests.e2e.conftest import World
from tests.e2e.test_probe_bot import tiny_png


@pytest.fixture
async def http(fake: FakeDiscord) -> AsyncIterator[aiohttp.ClientSession]:
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession(base_url=fake.base_url, headers=headers) as session:
        yield session


API = "/api/v10"


async def call(
    http: aiohttp.ClientSession, method: str, path: str, **kwargs: Any
) -> tuple[int, Any]:
    async with http.request(method, API + path, **kwargs) as resp:
        if resp.status == 204:
            return resp.status, None
        assert resp.headers["Content-Type"] == "application/json"  # exactly, as Discord
        return resp.status, await resp.json()


async def test_auth_and_unknown_routes(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    async with (
        aiohttp.ClientSession(base_url=fake.base_url) as anonymous,
        anonymous.get(f"{API}/users/@me") as resp,
    ):
        assert resp.status == 401
        assert await resp.json() == {"message": "401: Unauthorized", "code": 0}
    status, body = await call(http, "GET", "/users/@me")
    assert status == 200 and body["bot"] is True and body["id"] == str(fake.bot_user.id)
    status, body = await call(http, "GET", "/guilds/1/audit-logs")
    assert status == 404 and body["code"] == 0
    assert [v.code for v in fake.take_violations()] == ["auth.invalid", "route.unsupported"]
    assert [r.status for r in fake.requests] == [401, 200, 404]


async def test_channel_message_limits_and_errors(world: World, http: aiohttp.ClientSession) -> None:
    fake, lobby = world.fake, world.lobby
    rows = [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "b", "custom_id": f"{i}"}]}
        for i in range(6)
    ]
    status, body = await call(
        http, "POST", f"/channels/{lobby.id}/messages", json={"content": "x", "components": rows}
    )
    assert status == 400 and body["code"] == 50035 and body["message"] == "Invalid Form Body"
    assert body["errors"]["components"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    status, body = await call(http, "POST", f"/channels/{lobby.id}/messages", json={})
    assert (status, body) == (400, {"message": "Cannot send an empty message", "code": 50006})
    status, body = await call(http, "POST", "/channels/42/messages", json={"content": "x"})
    assert (status, body["code"]) == (404, 10003)
    assert fake.messages(lobby) == []
    assert [v.code for v in fake.take_violations()] == ["components.too_many_rows", "message.empty"]


async def test_multipart_upload_edit_and_cdn(world: World, http: aiohttp.ClientSession) -> None:
    fake, lobby = world.fake, world.lobby
    form = aiohttp.FormData(quote_fields=False)
    payload = {"content": "board", "attachments": [{"id": 0, "filename": "board.png"}]}
    form.add_field("payload_json", json.dumps(payload))
    form.add_field(
        "files[0]", tiny_png(30, 20), filename="board.png", content_type="application/octet-stream"
    )
    status, body = await call(http, "POST", f"/channels/{lobby.id}/messages", data=form)
    assert status == 200
    [att] = body["attachments"]
    assert (att["width"], att["height"], att["content_type"]) == (30, 20, "image/png")
    async with http.get(att["url"]) as resp:
        assert await resp.read() == tiny_png(30, 20)
    msg = fake.last_message(lobby)
    mid = msg.id
    # Keep the attachment, change the text.
    edit = {"content": "board (edited)", "attachments": [{"id": att["id"]}]}
    status, body = await call(http, "PATCH", f"/channels/{lobby.id}/messages/{mid}", json=edit)
    assert status == 200 and body["edited_timestamp"] and len(body["attachments"]) == 1
    assert msg.content == "board (edited)" and msg.history[0]["content"] == "board"
    # Drop it.
    status, body = await call(
        http, "PATCH", f"/channels/{lobby.id}/messages/{mid}", json={"attachments": []}
    )
    assert body["attachments"] == [] and msg.attachments == []
    status, body = await call(http, "GET", f"/channels/{lobby.id}/messages", params={"limit": "10"})
    assert [m["id"] for m in body] == [str(mid)]


async def test_threads_from_messages(world: World, http: aiohttp.ClientSession) -> None:
    fake, lobby = world.fake, world.lobby
    _, posted = await call(
        http, "POST", f"/channels/{lobby.id}/messages", json={"content": "challenge"}
    )
    path = f"/channels/{lobby.id}/messages/{posted['id']}/threads"
    status, thread = await call(
        http, "POST", path, json={"name": "alice vs bob", "auto_archive_duration": 1440}
    )
    assert status == 201 and thread["id"] == posted["id"] and thread["type"] == 11
    assert thread["parent_id"] == str(lobby.id) and thread["member"]["user_id"] == str(
        fake.bot_user.id
    )
    status, body = await call(http, "POST", path, json={"name": "again"})
    assert (status, body["code"]) == (400, 160004)
    status, _ = await call(http, "PUT", f"/channels/{thread['id']}/thread-members/{world.bob.id}")
    assert status == 204
    assert fake.thread("alice vs bob").member_ids == [fake.bot_user.id, world.bob.id]
    status, body = await call(
        http, "PATCH", f"/channels/{thread['id']}", json={"archived": True, "locked": True}
    )
    assert body["thread_metadata"]["archived"] is True
    status, body = await call(
        http, "POST", f"/channels/{thread['id']}/messages", json={"content": "x"}
    )
    assert (status, body["code"]) == (400, 50083)
    fake.take_violations()


async def test_dm_to_a_bot_or_closed_dms_fails_with_50007(
    world: World, http: aiohttp.ClientSession
) -> None:
    fake = world.fake
    other_bot = fake.add_user("other-bot", bot=True, guild=world.guild)
    fake.refuse_dms(world.carol)
    for user in (other_bot, world.carol):
        status, dm = await call(
            http, "POST", "/users/@me/channels", json={"recipient_id": str(user.id)}
        )
        assert status == 200 and dm["type"] == 1
        status, body = await call(
            http, "POST", f"/channels/{dm['id']}/messages", json={"content": "hi"}
        )
        assert (status, body) == (
            403,
            {"message": "Cannot send messages to this user", "code": 50007},
        )
    assert [u for u, _ in fake.refused_dms] == [other_bot, world.carol]


async def test_command_registration(world: World, http: aiohttp.ClientSession) -> None:
    fake = world.fake
    app = fake.application_id
    cmd = {
        "name": "move",
        "description": "Play a move",
        "options": [
            {"type": 3, "name": "move", "description": "m", "required": True, "autocomplete": True}
        ],
    }
    status, body = await call(
        http, "PUT", f"/applications/{app}/guilds/{world.guild.id}/commands", json=[cmd]
    )
    assert status == 200 and body[0]["guild_id"] == str(world.guild.id)
    first_id = body[0]["id"]
    status, body = await call(
        http, "PUT", f"/applications/{app}/guilds/{world.guild.id}/commands", json=[cmd]
    )
    assert body[0]["id"] == first_id  # overwriting keeps ids stable
    assert [c["name"] for c in fake.commands(world.guild)] == ["move"] and fake.commands() == []
    status, body = await call(
        http, "PUT", f"/applications/{app}/commands", json=[cmd | {"name": "Bad Name"}]
    )
    assert (
        status == 400
        and body["errors"]["0"]["name"]["_errors"][0]["code"] == "APPLICATION_COMMAND_INVALID_NAME"
    )
    assert [v.code for v in fake.take_violations()] == ["command.bad_name"]


async def gateway(
    fake: FakeDiscord, session: aiohttp.ClientSession, query: str = "?v=10&encoding=json"
) -> aiohttp.ClientWebSocketResponse:
    ws = await session.ws_connect(fake.gateway_url + query)
    hello = await ws.receive_json()
    assert hello["op"] == 10 and hello["d"]["heartbeat_interval"] == fake.heartbeat_interval_ms
    return ws


async def test_gateway_handshake_errors(world: World) -> None:
    fake = world.fake
    async with aiohttp.ClientSession() as session:
        ws = await session.ws_connect(fake.gateway_url + "?v=9&encoding=json")
        await ws.receive()
        assert ws.close_code == 4012

        ws = await gateway(fake, session)
        await ws.send_json({"op": 2, "d": {"token": "wrong", "intents": 513, "properties": {}}})
        await ws.receive()
        assert ws.close_code == 4004

        fake.allowed_privileged_intents = 0
        ws = await gateway(fake, session)
        await ws.send_json(
            {"op": 2, "d": {"token": fake.token, "intents": 1 << 15, "properties": {}}}
        )
        await ws.receive()
        assert ws.close_code == 4014

        ws = await gateway(fake, session)
        await ws.send_json({"op": 6, "d": {"token": fake.token, "session_id": "nope", "seq": 3}})
        assert await ws.receive_json() == {"op": 9, "d": False, "s": None, "t": None}
        await ws.send_json({"op": 1, "d": None})
        assert (await ws.receive_json())["op"] == 11
        await ws.close()


async def test_gateway_identify_ready_and_resume(world: World) -> None:
    fake = world.fake
    async with aiohttp.ClientSession() as session:
        ws = await gateway(fake, session)
        await ws.send_json(
            {"op": 2, "d": {"token": fake.token, "intents": 1 | 512, "properties": {}}}
        )
        ready = await ws.receive_json()
        assert (ready["t"], ready["s"]) == ("READY", 1)
        assert ready["d"]["guilds"] == [{"id": str(world.guild.id), "unavailable": True}]
        assert ready["d"]["resume_gateway_url"] == fake.resume_gateway_url
        guild = await ws.receive_json()
        assert guild["t"] == "GUILD_CREATE" and guild["d"]["channels"][0]["name"] == "lobby"
        # Without GUILD_PRESENCES Discord only sends the bot itself as a member.
        assert [m["user"]["id"] for m in guild["d"]["members"]] == [str(fake.bot_user.id)]
        await ws.close(code=4000)
        await fake.send_message(world.alice, world.lobby, "missed while away")
        ws = await session.ws_connect(fake.resume_gateway_url + "?v=10&encoding=json")
        await ws.receive_json()
        await ws.send_json(
            {"op": 6, "d": {"token": fake.token, "session_id": ready["d"]["session_id"], "seq": 2}}
        )
        missed = await ws.receive_json()
        assert (missed["t"], missed["s"]) == ("MESSAGE_CREATE", 3)
        assert missed["d"]["content"] == ""  # no MESSAGE_CONTENT intent
        resumed = await ws.receive_json()
        assert resumed["t"] == "RESUMED"
        await ws.close(code=1000)
    await fake.wait_until(
        lambda: all(not s.live for s in fake.sessions.values()), 2, "the session end"
    )


async def test_a_repeated_nonce_returns_the_first_message(
    world: World, http: aiohttp.ClientSession
) -> None:
    """`enforce_nonce`: a create repeating a nonce within the window hands back the first
    message instead of a second one (what a bot retrying a post after a crash relies on)."""
    fake, lobby = world.fake, world.lobby
    path = f"/channels/{lobby.id}/messages"
    sent = {"content": "once", "nonce": "fp12", "enforce_nonce": True}
    status, first = await call(http, "POST", path, json=sent)
    assert status == 200 and first["nonce"] == "fp12"
    status, again = await call(http, "POST", path, json={**sent, "content": "twice?"})
    assert status == 200 and again["id"] == first["id"] and again["content"] == "once"
    assert [m.content for m in fake.messages(lobby)] == ["once"]
    assert [m.id for m in fake.nonce_repeats] == [int(first["id"])]
    # Without enforce_nonce, or with another nonce, messages are created as usual.
    await call(http, "POST", path, json={"content": "a", "nonce": "fp12"})
    await call(http, "POST", path, json={"content": "b", "nonce": "fp13", "enforce_nonce": True})
    assert [m.content for m in fake.messages(lobby)] == ["once", "a", "b"]
    status, body = await call(http, "POST", path, json={"content": "c", "nonce": "x" * 26})
    assert status == 400 and body["code"] == 50035
    assert [v.code for v in fake.take_violations()] == ["message.nonce_too_long"]
