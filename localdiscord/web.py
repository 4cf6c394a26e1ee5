"""Local mode's web page: one Discord guild in a browser, on top of :class:`LocalDiscord`.

Served by the stand-in's own aiohttp application (``LocalDiscord.start(extend=page.add_routes)``):

* ``GET /`` and ``/static/*`` — the page: plain HTML, CSS and JavaScript, no build step;
* ``GET /page/events?user=…&channel=…`` — server-sent events: the sidebar, the commands and
  the problems as JSON, the messages of the open channel as HTML (``render``), first whole
  and then as changes, whenever anything in the stand-in changes;
* ``POST /page/act`` — the person acts as the chosen user: a slash command, autocomplete, a
  button, a select menu, a modal, or a plain message. These go through exactly the paths the
  tests use (``LocalDiscord.slash`` …), so the bot sees real interactions;
* ``POST /page/users`` — a new member of the guild;
* ``POST /page/roles`` — a member's roles (the guild's owner has every permission; the
  others get what their roles give), so server settings and moderation can be tried.

Everything binds to 127.0.0.1 and has no authentication: it is a single person's tool.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from aiohttp import web

from .models import (
    FakeAttachment,
    FakeChannel,
    FakeDiscordUsageError,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionRecord,
)
from .render import Viewer, message_html
from .server import LocalDiscord

log = logging.getLogger("localdiscord.web")

STATIC_FILES = {
    "index.html": "text/html",
    "app.js": "text/javascript",
    "app.css": "text/css",
    "favicon.svg": "image/svg+xml",
}
USER_NAME = re.compile(r"^[\w.-]{1,32}$")
KEEPALIVE_SECONDS = 15.0
OPTION_TYPES = {
    1: "subcommand",
    2: "group",
    3: "string",
    4: "integer",
    5: "boolean",
    6: "user",
    7: "channel",
    8: "role",
    9: "mentionable",
    10: "number",
    11: "attachment",
}


class PageError(Exception):
    """A request the page should not have sent; answered with 400 and the message."""


@dataclass
class Problem:
    """A violation or a bot error, as the page lists it in red."""

    kind: str  # "violation" or "bot-error"
    code: str
    message: str
    where: str
    rejected: bool
    channel: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "code": self.code,
            "message": self.message,
            "where": self.where,
            "rejected": self.rejected,
            "channel": self.channel,
        }


class Page:
    """The page for one guild of ``fake``; ``on_change`` runs after every action it takes
    (local mode saves the world there)."""

    def __init__(
        self,
        fake: LocalDiscord,
        guild: FakeGuild,
        *,
        title: str = "Local Discord",
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.fake = fake
        self.guild = guild
        self.title = title
        self.on_change = on_change
        self._html_cache: dict[tuple[int, int, int, int, bool, int], str] = {}

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/", self._h_index)
        app.router.add_get("/static/{name}", self._h_static)
        app.router.add_get("/page/events", self._h_events)
        app.router.add_post("/page/act", self._h_act)
        app.router.add_post("/page/users", self._h_new_user)
        app.router.add_post("/page/roles", self._h_roles)

    # ------------------------------------------------------------------ what a viewer sees
    def people(self) -> list[FakeUser]:
        """The members a person can act as: everyone but bots and the application's owner."""
        return [
            m.user
            for m in self.guild.members.values()
            if not m.user.bot and m.user is not self.fake.owner
        ]

    def user(self, raw: Any) -> FakeUser:
        """A person by id, or by name (``/?user=bob`` in the address bar)."""
        text = str(raw or "").strip()
        for user in self.people():
            if str(user.id) == text or user.name.lower() == text.lower():
                return user
        raise PageError(f"no member {text!r}")

    def channels_for(self, viewer: FakeUser) -> list[FakeChannel]:
        """The sidebar: the guild's text channels, each followed by its threads, then the
        viewer's direct messages with the bot."""
        out: list[FakeChannel] = []
        tops = sorted(
            (c for c in self.guild.channels.values() if c.type in (0, 5)),
            key=lambda c: (c.position, c.id),
        )
        for channel in tops:
            out.append(channel)
            out.extend(
                sorted(
                    (t for t in self.guild.threads.values() if t.parent_id == channel.id),
                    key=lambda t: t.id,
                )
            )
        dm = self.fake.dm_channel(viewer)
        if dm is not None:
            out.append(dm)
        return out

    def channel(self, raw: Any, viewer: FakeUser) -> FakeChannel:
        for channel in self.channels_for(viewer):
            if str(channel.id) == str(raw):
                return channel
        raise PageError(f"no channel {raw!r} for {viewer.name}")

    def visible(self, channel: FakeChannel, viewer: FakeUser) -> list[FakeMessage]:
        """Messages of ``channel`` as ``viewer`` sees them: ephemeral ones only their own."""
        return [
            m
            for m in channel.messages
            if not m.deleted
            and (not m.ephemeral or (m.interaction is not None and m.interaction.user is viewer))
        ]

    def bot_online(self) -> bool:
        return any(s.conn is not None and s.conn.open for s in self.fake.live_sessions())

    def problems(self) -> list[Problem]:
        out: list[Problem] = []
        for v in self.fake.violations:
            channel: str | None = None
            if v.interaction_id is not None:
                rec = self.fake._interactions_by_id.get(v.interaction_id)
                if rec is not None:
                    channel = str(rec.channel.id)
            where = f"{v.method} {v.path}" if v.path else ""
            out.append(Problem("violation", v.code, v.message, where, v.rejected, channel))
        for text in self.fake.bot_errors:
            head, _, rest = text.partition(": ")
            out.append(Problem("bot-error", head, rest or text, "", False, None))
        return out

    def commands(self, viewer: FakeUser | None = None) -> list[dict[str, Any]]:
        """Slash commands as the composer offers them: groups flattened (``"variant define"``);
        with a ``viewer``, only those Discord offers them (``default_member_permissions``)."""
        every = [*self.fake.guild_commands.get(self.guild.id, []), *self.fake.global_commands]
        registered = [
            cmd for cmd in every if viewer is None or self.fake.offered(viewer, self.guild, cmd)
        ]
        out: list[dict[str, Any]] = []
        seen: set[str] = set()

        def walk(prefix: str, node: dict[str, Any]) -> None:
            subs = [o for o in node.get("options") or [] if o.get("type") in (1, 2)]
            if subs:
                for sub in subs:
                    walk(f"{prefix} {sub['name']}", sub)
                return
            if prefix in seen:
                return
            seen.add(prefix)
            out.append(
                {
                    "name": prefix,
                    "description": node.get("description", ""),
                    "options": [_option_json(o) for o in node.get("options") or []],
                }
            )

        for cmd in registered:
            if cmd.get("type", 1) == 1:
                walk(cmd["name"], cmd)
        return sorted(out, key=lambda c: c["name"])

    def state(self, viewer: FakeUser) -> dict[str, Any]:
        return {
            "title": self.title,
            "guild": {"id": str(self.guild.id), "name": self.guild.name},
            "bot": {
                "id": str(self.fake.bot_user.id),
                "name": self.fake.bot_user.name,
                "online": self.bot_online(),
            },
            "me": str(viewer.id),
            "users": [self._person(u) for u in self.people()],
            "roles": [{"id": str(r.id), "name": r.name} for r in self.roles()],
            "channels": [
                {
                    "id": str(c.id),
                    "name": "Direct messages" if c.is_dm else c.name,
                    "kind": "dm" if c.is_dm else "thread" if c.is_thread else "text",
                    "parent": str(c.parent_id) if c.is_thread and c.parent_id else None,
                    "last": str(self._last_id(c, viewer) or ""),
                    "archived": c.archived,
                    "topic": c.topic or "",
                }
                for c in self.channels_for(viewer)
            ],
            "commands": self.commands(viewer),
            "problems": [p.to_json() for p in self.problems()],
        }

    def roles(self) -> list[FakeRole]:
        """The roles a person may give members on the page: all but @everyone and the bot's."""
        return sorted(
            (r for r in self.guild.roles.values() if r.id != self.guild.id and not r.managed),
            key=lambda r: (-r.position, r.id),
        )

    def _person(self, user: FakeUser) -> dict[str, Any]:
        member = self.guild.member(user)
        return {
            "id": str(user.id),
            "name": user.name,
            "owner": self.guild.owner_id == user.id,
            "roles": [str(r) for r in member.roles] if member is not None else [],
        }

    def _last_id(self, channel: FakeChannel, viewer: FakeUser) -> int | None:
        shown = self.visible(channel, viewer)
        return shown[-1].id if shown else None

    def viewer(self, user: FakeUser) -> Viewer:
        fake = self.fake

        def user_name(uid: int) -> str | None:
            u = fake.users.get(uid)
            if u is None:
                return None
            member = self.guild.member(u)
            return (member.nick if member and member.nick else None) or u.global_name or u.name

        def role_name(rid: int) -> str | None:
            role = self.guild.roles.get(rid)
            return role.name.lstrip("@") if role else None

        def channel_name(cid: int) -> str | None:
            c = fake.channels.get(cid)
            return c.name if c is not None and not c.is_dm else None

        def attachment(url: str) -> FakeAttachment | None:
            m = re.search(r"/attachments/\d+/(\d+)/", url)
            return fake.attachments_by_id.get(int(m.group(1))) if m else None

        return Viewer(user, user_name, role_name, channel_name, attachment)

    def message_html(self, msg: FakeMessage, viewer: Viewer) -> str:
        thread_count = len(msg.thread.messages) if msg.thread is not None else -1
        key = (msg.id, viewer.id, len(msg.history), msg.flags, msg.deleted, thread_count)
        cached = self._html_cache.get(key)
        if cached is None:
            if len(self._html_cache) > 20_000:
                self._html_cache.clear()
            cached = message_html(msg, viewer, bot_id=self.fake.bot_user.id)
            self._html_cache[key] = cached
        return cached

    # ------------------------------------------------------------------ HTTP handlers
    async def _h_index(self, request: web.Request) -> web.StreamResponse:
        return self._static_file("index.html")

    async def _h_static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in STATIC_FILES:
            raise web.HTTPNotFound()
        return self._static_file(name)

    @staticmethod
    def _static_file(name: str) -> web.Response:
        data = resources.files("localdiscord").joinpath("static", name).read_bytes()
        return web.Response(
            body=data,
            content_type=STATIC_FILES[name],
            charset="utf-8" if STATIC_FILES[name].startswith("text/") else None,
            headers={"Cache-Control": "no-cache"},
        )

    async def _h_events(self, request: web.Request) -> web.StreamResponse:
        """The live view of one user in one channel, as server-sent events."""
        people = self.people()
        if not people:
            raise web.HTTPServiceUnavailable(text="the guild has no members yet")
        try:
            viewer = self.user(request.query.get("user"))
        except PageError:
            viewer = people[0]
        channel: FakeChannel | None
        try:
            channel = self.channel(request.query.get("channel"), viewer)
        except PageError:
            channel = next(iter(self.channels_for(viewer)), None)
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        sent_state: dict[str, Any] | None = None
        sent: dict[int, str] = {}
        first = True
        look = self.viewer(viewer)
        try:
            while True:
                version = self.fake.version
                update: dict[str, Any] = {}
                state = self.state(viewer)
                if state != sent_state:
                    update["state"] = state
                    sent_state = state
                if channel is not None:
                    shown = self.visible(channel, viewer)
                    now = {m.id: self.message_html(m, look) for m in shown}
                    upserts = [
                        {"id": str(mid), "html": text}
                        for mid, text in now.items()
                        if sent.get(mid) != text
                    ]
                    removes = [str(mid) for mid in sent if mid not in now]
                    if first:
                        update["channel"] = str(channel.id)
                        update["reset"] = True
                    if upserts or first:
                        update["upserts"] = upserts
                    if removes:
                        update["removes"] = removes
                    sent = now
                first = False
                if update:
                    await response.write(_event(update))
                try:
                    await asyncio.wait_for(self.fake.next_change(version), KEEPALIVE_SECONDS)
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return response

    async def _h_new_user(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        name = str(body.get("name", "")).strip()
        if not USER_NAME.match(name):
            return _error("A name is 1 to 32 letters, digits, dots, dashes or underscores.")
        for user in self.people():
            if user.name.lower() == name.lower():
                return web.json_response({"id": str(user.id), "name": user.name})
        if name.lower() == self.fake.bot_user.name.lower():
            return _error("That is the bot's name.")
        user = self.fake.add_user(name, guild=self.guild)
        self._changed()
        return web.json_response({"id": str(user.id), "name": user.name})

    async def _h_roles(self, request: web.Request) -> web.Response:
        """``{"user": …, "roles": [role ids]}``: the member's roles from now on."""
        body = await _json_body(request)
        try:
            user = self.user(body.get("user"))
            wanted = {str(r) for r in body.get("roles") or []}
        except (PageError, TypeError) as exc:
            return _error(str(exc))
        roles = [r for r in self.roles() if str(r.id) in wanted]
        if len(roles) != len(wanted):
            return _error("no such role")
        self.fake.set_roles(self.guild, user, roles)
        self._changed()
        return web.json_response(self._person(user))

    async def _h_act(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        try:
            user = self.user(body.get("user"))
            kind = body.get("kind")
            if kind == "slash":
                channel = self.channel(body.get("channel"), user)
                command = str(body.get("command", ""))
                options = self._options(channel, command, body.get("options") or {}, strict=True)
                rec = await self.fake.slash(user, channel, command, **options)
                return await self._outcome(rec)
            if kind == "autocomplete":
                channel = self.channel(body.get("channel"), user)
                command = str(body.get("command", ""))
                focused = str(body.get("focused", ""))
                given = {k: v for k, v in (body.get("options") or {}).items() if k != focused}
                options = self._options(channel, command, given, strict=False)
                try:
                    choices = await self.fake.autocomplete(
                        user,
                        channel,
                        command,
                        focused=focused,
                        value=str(body.get("value", "")),
                        timeout=self.fake.interaction_deadline + 2,
                        **options,
                    )
                except AssertionError:
                    return web.json_response({"choices": [], "error": "The bot did not answer."})
                return web.json_response(
                    {"choices": [{"name": c.name, "value": c.value} for c in choices]}
                )
            if kind in ("click", "select"):
                message = self._message(body.get("message"), user)
                custom_id = str(body.get("custom_id", ""))
                if kind == "click":
                    rec = await self.fake.click(user, message, custom_id)
                else:
                    values = [str(v) for v in body.get("values") or []]
                    rec = await self.fake.select(user, message, custom_id, values)
                return await self._outcome(rec)
            if kind == "modal":
                opened = self.fake._interactions_by_id.get(int(str(body.get("interaction"))))
                if opened is None or opened.user is not user:
                    raise PageError("that modal is not open for this user")
                fields = {str(k): str(v) for k, v in (body.get("values") or {}).items()}
                return await self._outcome(await self.fake.submit_modal(user, opened, fields))
            if kind == "message":
                channel = self.channel(body.get("channel"), user)
                text = str(body.get("content", ""))
                if not text.strip():
                    raise PageError("an empty message")
                if len(text) > 2000:
                    raise PageError("a message is at most 2000 characters")
                await self.fake.send_message(user, channel, text)
                self._changed()
                return web.json_response({"ok": True})
            raise PageError(f"unknown action {kind!r}")
        except (PageError, FakeDiscordUsageError) as exc:
            return _error(str(exc))
        except (ValueError, TypeError, KeyError) as exc:
            return _error(f"malformed request: {exc}")

    async def _outcome(self, rec: InteractionRecord) -> web.Response:
        """Wait until the bot acknowledged the interaction (or Discord gave up on it)."""
        with contextlib.suppress(AssertionError):
            await self.fake.wait_until(
                lambda: rec.acknowledged or rec.failed,
                self.fake.interaction_deadline + 2,
                f"the bot to acknowledge {rec.describe()}",
            )
        self._changed()
        data: dict[str, Any] = {
            "interaction": str(rec.id),
            "acknowledged": rec.acknowledged,
            "failed": rec.failed or not rec.acknowledged,
        }
        if rec.modal is not None:
            data["modal"] = rec.modal
        return web.json_response(data)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def _message(self, raw: Any, user: FakeUser) -> FakeMessage:
        try:
            msg = self.fake.messages_by_id.get(int(str(raw)))
        except ValueError:
            msg = None
        if msg is None or msg not in self.visible(msg.channel, user):
            raise PageError("that message is not there any more")
        self.channel(msg.channel.id, user)
        return msg

    def _options(
        self, channel: FakeChannel, command: str, raw: dict[str, Any], *, strict: bool
    ) -> dict[str, Any]:
        """Option values from the page (text) as the stand-in takes them (typed objects)."""
        parts = command.split()
        if not parts:
            raise PageError("no command")
        node = self.fake._find_command(channel, parts[0])
        for part in parts[1:]:
            subs = [o for o in node.get("options") or [] if o.get("name") == part]
            if not subs:
                raise PageError(f"/{command}: no subcommand {part!r}")
            node = subs[0]
        defs = {o["name"]: o for o in node.get("options") or []}
        out: dict[str, Any] = {}
        for name, value in raw.items():
            if value is None or value == "":
                continue
            odef = defs.get(name)
            if odef is None:
                raise PageError(f"/{command} has no option {name!r}")
            try:
                out[name] = self._convert(odef, value)
            except PageError:
                if strict:
                    raise
        return out

    def _convert(self, odef: dict[str, Any], value: Any) -> Any:
        kind, name = odef["type"], odef["name"]
        text = value if not isinstance(value, dict) else ""
        if kind == 3:
            return str(text)
        if kind == 4:
            if not re.fullmatch(r"-?\d+", str(text).strip()):
                raise PageError(f"{name}: a whole number, please (not {text!r})")
            return int(str(text).strip())
        if kind == 10:
            try:
                return float(str(text))
            except ValueError:
                raise PageError(f"{name}: a number, please (not {text!r})") from None
        if kind == 5:
            if str(text).lower() not in ("true", "false"):
                raise PageError(f"{name}: True or False")
            return str(text).lower() == "true"
        if kind in (6, 9):
            user = self.fake.users.get(int(text)) if str(text).isdigit() else None
            if user is not None:
                return user
            role = self.guild.roles.get(int(text)) if str(text).isdigit() else None
            if kind == 9 and role is not None:
                return role
            raise PageError(f"{name}: no such member")
        if kind == 7:
            channel = self.fake.channels.get(int(text)) if str(text).isdigit() else None
            if channel is None:
                raise PageError(f"{name}: no such channel")
            return channel
        if kind == 8:
            role = self.guild.roles.get(int(text)) if str(text).isdigit() else None
            if role is None:
                raise PageError(f"{name}: no such role")
            return role
        if kind == 11:
            if not isinstance(value, dict):
                raise PageError(f"{name}: choose a file")
            try:
                data = base64.b64decode(str(value.get("data", "")), validate=True)
            except (binascii.Error, ValueError):
                raise PageError(f"{name}: the file could not be read") from None
            return (str(value.get("filename") or "file"), data)
        raise PageError(f"{name}: options of type {kind} are not supported")


def _option_json(o: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": o["name"],
        "description": o.get("description", ""),
        "type": OPTION_TYPES.get(o.get("type", 3), "string"),
        "required": bool(o.get("required")),
        "autocomplete": bool(o.get("autocomplete")),
    }
    if o.get("choices"):
        data["choices"] = [{"name": c["name"], "value": c["value"]} for c in o["choices"]]
    for key in ("min_value", "max_value", "min_length", "max_length"):
        if key in o:
            data[key] = o[key]
    return data


def _event(data: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _error(message: str) -> web.Response:
    return web.json_response({"error": message}, status=400)


async def _json_body(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise web.HTTPBadRequest(text="a JSON body, please") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="a JSON object, please")
    return body
