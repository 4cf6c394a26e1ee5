"""The stand-in itself: an aiohttp server speaking Discord's HTTP API v10 and gateway.

Its owner (local mode's web page, or a test through ``testing.FakeDiscord``) builds the world
(guilds, channels, users), lets a bot connect (see ``harness``), then acts as users:
``slash``, ``autocomplete``, ``click``, ``select``, ``submit_modal``, ``send_message``.
Everything the bot sends is validated against Discord's limits, recorded and readable back.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import re
import secrets
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Self

from aiohttp import BodyPartReader, WSMsgType, web

from . import gateway as gw
from .models import (
    ALL_PERMISSIONS,
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    CB_AUTOCOMPLETE_RESULT,
    CB_CHANNEL_MESSAGE,
    CB_DEFERRED_CHANNEL_MESSAGE,
    CB_DEFERRED_UPDATE_MESSAGE,
    CB_MODAL,
    CB_UPDATE_MESSAGE,
    DEFAULT_BOT_ROLE_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    DM,
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_HAS_THREAD,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    GUILD_ANNOUNCEMENT,
    GUILD_CATEGORY,
    GUILD_TEXT,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    Callback,
    Choice,
    CommandNotPermittedError,
    FakeAttachment,
    FakeChannel,
    FakeDiscordUsageError,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionRecord,
    RecordedRequest,
    SnowflakeFactory,
    Violation,
    iso,
)
from .validation import (
    MAX_ATTACHMENT_DESCRIPTION,
    Problem,
    check_choices,
    check_commands,
    check_message,
    check_modal,
    content_type_for,
    file_problems,
    form_errors,
)

log = logging.getLogger("localdiscord")

API = "/api/v10"
ADMINISTRATOR = 1 << 3
# Set by the harness on each REST request of the bot, to pair answers with their reading.
REQUEST_SERIAL_HEADER = "X-Localdiscord-Request"
_MENTION_RE = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION_RE = re.compile(r"<@&(\d+)>")


class DiscordError(Exception):
    """Turned by the middleware into a Discord-shaped JSON error response."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors is not None:
            data["errors"] = self.errors
        return data


@dataclass
class Upload:
    index: int | None
    filename: str
    data: bytes


_current_request: contextvars.ContextVar[RecordedRequest] = contextvars.ContextVar(
    "localdiscord_request"
)


def _json(data: Any, status: int = 200) -> web.Response:
    # Exactly "application/json": discord.py's json_or_text compares the header verbatim.
    record = _current_request.get(None)
    if record is not None:
        record.response = data
    return web.Response(
        body=json.dumps(data).encode(), status=status, content_type="application/json"
    )


def _no_content() -> web.Response:
    return web.Response(status=204)


class LocalDiscord:
    """A local Discord for one bot application.

    Parameters mirror Discord's behaviour and can be tightened or relaxed per use:
    ``interaction_deadline`` (3 s: the initial response must come within it),
    ``token_lifetime`` (15 min for follow-ups), ``heartbeat_interval_ms`` (sent in HELLO),
    ``allowed_privileged_intents`` (what the developer portal would allow), ``gateway_zlib``
    (honour ``compress=zlib-stream``; off by default: plain JSON text frames),
    ``keep_requests`` (record every HTTP request in ``requests``; a long-running local mode
    turns it off so memory does not grow with every call),
    ``nonce_window`` (how long a message ``nonce`` sent with ``enforce_nonce`` is remembered:
    Discord says "the past few minutes"; a repeat within it returns the first message).
    """

    def __init__(
        self,
        *,
        bot_name: str = "Fairy Post",
        interaction_deadline: float = 3.0,
        token_lifetime: float = 900.0,
        heartbeat_interval_ms: int = 41250,
        allowed_privileged_intents: int = gw.PRIVILEGED_INTENTS,
        attachment_size_limit: int = 10 * 1024 * 1024,
        gateway_zlib: bool = False,
        keep_requests: bool = True,
        nonce_window: float = 300.0,
    ) -> None:
        self.ids = SnowflakeFactory()
        self.application_id = self.ids.next()
        self.bot_user = FakeUser(self.application_id, bot_name, bot=True)
        self.owner = FakeUser(self.ids.next(), "app-owner")
        self.token = f"fake-{secrets.token_urlsafe(24)}"
        self.interaction_deadline = interaction_deadline
        self.token_lifetime = token_lifetime
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.allowed_privileged_intents = allowed_privileged_intents
        self.attachment_size_limit = attachment_size_limit
        self.gateway_zlib = gateway_zlib
        self.keep_requests = keep_requests
        self.nonce_window = nonce_window

        self.users: dict[int, FakeUser] = {
            self.bot_user.id: self.bot_user,
            self.owner.id: self.owner,
        }
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages_by_id: dict[int, FakeMessage] = {}
        self.attachments_by_id: dict[int, FakeAttachment] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.command_registrations: list[tuple[int | None, list[dict[str, Any]]]] = []

        # records
        self.requests: list[RecordedRequest] = []
        self.violations: list[Violation] = []
        self.interactions: list[InteractionRecord] = []
        self.refused_dms: list[tuple[FakeUser, str]] = []  # (recipient, reason)
        self.gateway_connections: list[gw.GatewayConnection] = []
        self.sessions: dict[str, gw.GatewaySession] = {}
        self.bot_errors: list[str] = []  # filled by the harness from the bot's ERROR logs
        self.shard_count = 1  # what GET /gateway/bot recommends; IDENTIFY may ask for any
        # messages handed back again because a create repeated their nonce (enforce_nonce)
        self.nonce_repeats: list[FakeMessage] = []
        self._nonces: dict[tuple[int, int, str], tuple[float, FakeMessage]] = {}
        # Causality: a user acts only once the bot has read every answer the stand-in gave it
        # (see `note_request_read`). Serials of the bot's REST requests, from the harness.
        self._answered: set[int] = set()
        self._read: set[int] = set()

        self._interactions_by_id: dict[int, InteractionRecord] = {}
        self._interactions_by_token: dict[str, InteractionRecord] = {}
        self._changed: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._runner: web.AppRunner | None = None
        self.host = "127.0.0.1"
        self.port = 0
        self.version = 0  # bumped on every change: what `next_change` waits for

    # ---------------------------------------------------------------- lifecycle
    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}{API}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    @property
    def resume_gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway-resume"

    async def start(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        extend: Callable[[web.Application], None] | None = None,
    ) -> Self:
        """Listen on ``host:port`` (0: a free port). ``extend`` adds routes of its own to the
        same application (local mode's web page), outside the ``/api/v10`` prefix."""
        self._changed = asyncio.Event()
        app = web.Application(
            middlewares=[self._middleware], client_max_size=self.attachment_size_limit * 2
        )
        self._add_routes(app)
        if extend is not None:
            extend(app)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        try:
            await site.start()
        except BaseException:
            await self._runner.cleanup()
            self._runner = None
            raise
        self.host = host
        self.port = self._runner.addresses[0][1]
        return self

    async def close(self) -> None:
        for rec in self.interactions:
            if rec._deadline_handle is not None:
                rec._deadline_handle.cancel()
        for conn in self.gateway_connections:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(1001, "stand-in shutting down"), 2)
        for task in list(self._tasks):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        await self.close()

    # ---------------------------------------------------------------- world building
    def add_guild(
        self,
        name: str,
        *,
        owner: FakeUser | None = None,
        everyone_permissions: int = DEFAULT_EVERYONE_PERMISSIONS,
        bot_permissions: int = DEFAULT_BOT_ROLE_PERMISSIONS,
    ) -> FakeGuild:
        """A guild the bot is in (with an @everyone role and a managed role for the bot)."""
        owner = owner or self.owner
        self.users.setdefault(owner.id, owner)
        guild = FakeGuild(self.ids.next(), name, owner.id)
        guild.roles[guild.id] = FakeRole(guild.id, "@everyone", everyone_permissions)
        bot_role = FakeRole(self.ids.next(), self.bot_user.name, bot_permissions, 1, managed=True)
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot_user.id] = FakeMember(self.bot_user, guild, [bot_role.id])
        guild.members[owner.id] = FakeMember(owner, guild)
        self.guilds[guild.id] = guild
        self._emit_soon(lambda s: self._guild_create(guild, s), gw.GUILDS, "GUILD_CREATE", guild.id)
        return guild

    def add_channel(
        self,
        guild: FakeGuild,
        name: str,
        *,
        topic: str | None = None,
        category: FakeChannel | None = None,
        type: int = GUILD_TEXT,
    ) -> FakeChannel:
        channel = FakeChannel(
            self.ids.next(),
            type,
            name,
            guild,
            parent_id=category.id if category else None,
            topic=topic,
            position=len(guild.channels),
        )
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        self._emit_soon(lambda s: channel.to_payload(), gw.GUILDS, "CHANNEL_CREATE", guild.id)
        return channel

    def add_category(self, guild: FakeGuild, name: str) -> FakeChannel:
        return self.add_channel(guild, name, type=GUILD_CATEGORY)

    def add_user(
        self,
        name: str,
        *,
        bot: bool = False,
        guild: FakeGuild | Iterable[FakeGuild] | None = None,
        global_name: str | None = None,
        accepts_dms: bool = True,
    ) -> FakeUser:
        """A user (``bot=True`` for another bot); with ``guild`` also a member of it/them."""
        user = FakeUser(
            self.ids.next(), name, bot=bot, global_name=global_name, accepts_dms=accepts_dms
        )
        self.users[user.id] = user
        guilds = [guild] if isinstance(guild, FakeGuild) else list(guild or [])
        for g in guilds:
            self.add_member(g, user)
        return user

    def add_role(self, guild: FakeGuild, name: str, permissions: int = 0) -> FakeRole:
        role = FakeRole(self.ids.next(), name, permissions, len(guild.roles))
        guild.roles[role.id] = role
        self._emit_soon(
            lambda s: {"guild_id": str(guild.id), "role": role.to_payload()},
            gw.GUILDS,
            "GUILD_ROLE_CREATE",
            guild.id,
        )
        return role

    def set_roles(self, guild: FakeGuild, user: FakeUser, roles: Iterable[FakeRole]) -> FakeMember:
        """A member's roles replaced, as a server admin does in Discord: what each command
        is offered to and the permissions of their next interactions follow at once."""
        member = guild.member(user)
        if member is None:
            raise FakeDiscordUsageError(f"{user.name} is not a member of {guild.name}")
        member.roles = [r.id for r in roles if r.id in guild.roles and r.id != guild.id]
        self._emit_soon(
            lambda s: {**member.to_payload(), "guild_id": str(guild.id)},
            gw.GUILD_MEMBERS,
            "GUILD_MEMBER_UPDATE",
            guild.id,
        )
        self._notify()
        return member

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        roles: Iterable[FakeRole] = (),
        nick: str | None = None,
    ) -> FakeMember:
        member = FakeMember(user, guild, [r.id for r in roles], nick)
        guild.members[user.id] = member
        self._emit_soon(
            lambda s: {**member.to_payload(), "guild_id": str(guild.id)},
            gw.GUILD_MEMBERS,
            "GUILD_MEMBER_ADD",
            guild.id,
        )
        return member

    def refuse_dms(self, user: FakeUser, refuse: bool = True) -> None:
        """Make DMs from the bot to ``user`` fail with 50007, like closed DMs or a block."""
        user.accepts_dms = not refuse

    def dm_channel(self, user: FakeUser, *, create: bool = False) -> FakeChannel | None:
        for c in self.channels.values():
            if c.type == DM and c.recipient is user:
                return c
        if not create:
            return None
        channel = FakeChannel(self.ids.next(), DM, None, recipient=user)
        self.channels[channel.id] = channel
        return channel

    # ---------------------------------------------------------------- accessors
    def messages(
        self,
        channel: FakeChannel,
        *,
        include_ephemeral: bool = False,
        include_deleted: bool = False,
    ) -> list[FakeMessage]:
        """Messages of a channel, thread or DM, oldest first (as everyone sees them)."""
        return [
            m
            for m in channel.messages
            if (include_ephemeral or not m.ephemeral) and (include_deleted or not m.deleted)
        ]

    def ephemeral_messages(self, user: FakeUser | None = None) -> list[FakeMessage]:
        """Ephemeral messages (all, or those shown to ``user``), oldest first."""
        out = [m for m in self.messages_by_id.values() if m.ephemeral and not m.deleted]
        if user is not None:
            out = [m for m in out if m.interaction is not None and m.interaction.user is user]
        return out

    def threads(self, parent: FakeChannel | None = None) -> list[FakeChannel]:
        return [
            c
            for c in self.channels.values()
            if c.is_thread and (parent is None or c.parent_id == parent.id)
        ]

    def commands(self, guild: FakeGuild | None = None) -> list[dict[str, Any]]:
        """Commands registered globally, or for ``guild``."""
        if guild is None:
            return list(self.global_commands)
        return list(self.guild_commands.get(guild.id, []))

    async def wait_until(
        self, predicate: Callable[[], bool], timeout: float = 5.0, what: str = "a condition"
    ) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}{self._context()}"
                )
            assert self._changed is not None
            with contextlib.suppress(TimeoutError):
                # Woken by any change in the stand-in; polls too, for predicates on bot state.
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.05))

    def explain_failure(self, rec: InteractionRecord) -> str:
        return (
            f"{rec.describe()} was not acknowledged within {self.interaction_deadline}s"
            f" (callbacks: {[(c.type, c.error_code) for c in rec.callbacks]}){self._context()}"
        )

    def _context(self) -> str:
        parts = []
        if self.violations:
            parts.append("violations:\n    " + "\n    ".join(str(v) for v in self.violations[-5:]))
        if self.bot_errors:
            parts.append(
                "bot errors:\n    " + "\n    ".join(e[-1500:] for e in self.bot_errors[-3:])
            )
        failed = [r for r in self.requests if r.status >= 400][-5:]
        if failed:
            parts.append(
                "failed requests:\n    "
                + "\n    ".join(f"{r.method} {r.path} -> {r.status} {r.response}" for r in failed)
            )
        return ("\n  " + "\n  ".join(parts)) if parts else ""

    # ---------------------------------------------------------------- user actions
    async def slash(
        self, user: FakeUser, channel: FakeChannel, command: str, /, **options: Any
    ) -> InteractionRecord:
        """``user`` runs ``/command`` (``"group sub"`` for subcommands) in ``channel``.

        Option values: str/int/float/bool, a FakeUser, FakeChannel or FakeRole. Returns the
        interaction record at once; ``await rec.reply()`` waits for the bot's answer.
        """
        data, name, resolved_opts = self._command_data(
            user, channel, command, options, focused=None, value=None
        )
        return await self._start_interaction(
            APPLICATION_COMMAND, user, channel, data, name=name, options=resolved_opts
        )

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        /,
        *,
        focused: str,
        value: str,
        timeout: float = 5.0,
        **options: Any,
    ) -> list[Choice]:
        """``user`` types ``value`` in option ``focused`` of ``/command``: the choices shown.

        An answer Discord rejects (e.g. more than 25 choices) shows nothing: [] is returned
        and the violation is recorded.
        """
        data, name, resolved_opts = self._command_data(
            user, channel, command, options, focused=focused, value=value
        )
        rec = await self._start_interaction(
            AUTOCOMPLETE, user, channel, data, name=name, options=resolved_opts
        )
        await self.wait_until(
            lambda: rec.acknowledged or rec.failed or bool(rec.callbacks),
            timeout,
            f"autocomplete choices for /{name} {focused}={value!r}",
        )
        return list(rec.choices or [])

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str | None = None,
        *,
        label: str | None = None,
    ) -> InteractionRecord:
        """``user`` clicks the button with ``custom_id`` (or ``label``) on ``message``."""
        if custom_id is None and label is None:
            raise FakeDiscordUsageError("click needs a custom_id or a label")
        button = message.button(label, custom_id=custom_id)
        if button.get("style") == 5:
            raise FakeDiscordUsageError("a link button opens a URL; it sends no interaction")
        if button.get("disabled"):
            raise FakeDiscordUsageError(
                f"button {button.get('label')!r} is disabled and cannot be clicked"
            )
        self._check_can_see(user, message)
        data = {"custom_id": button["custom_id"], "component_type": 2}
        return await self._start_interaction(
            MESSAGE_COMPONENT,
            user,
            message.channel,
            data,
            custom_id=button["custom_id"],
            message=message,
        )

    async def select(
        self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str]
    ) -> InteractionRecord:
        """``user`` picks ``values`` in the select menu ``custom_id`` of ``message``."""
        found = [c for c in message.iter_components() if c.get("custom_id") == custom_id]
        if not found or found[0].get("type") not in (3, 5, 6, 7, 8):
            raise FakeDiscordUsageError(f"no select menu {custom_id!r} on {message!r}")
        menu = found[0]
        if menu.get("disabled"):
            raise FakeDiscordUsageError(f"select menu {custom_id!r} is disabled")
        lo, hi = menu.get("min_values", 1), menu.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise FakeDiscordUsageError(
                f"select {custom_id!r} takes {lo}..{hi} values, got {len(values)}"
            )
        if menu["type"] == 3:
            allowed = {o["value"] for o in menu.get("options", [])}
            if not set(values) <= allowed:
                raise FakeDiscordUsageError(f"values {values} not among options {sorted(allowed)}")
        self._check_can_see(user, message)
        data = {"custom_id": custom_id, "component_type": menu["type"], "values": values}
        return await self._start_interaction(
            MESSAGE_COMPONENT, user, message.channel, data, custom_id=custom_id, message=message
        )

    async def submit_modal(
        self, user: FakeUser, opened_by: InteractionRecord, values: dict[str, str]
    ) -> InteractionRecord:
        """``user`` fills and submits the modal the bot opened in answer to ``opened_by``."""
        modal = opened_by.modal
        if modal is None:
            raise FakeDiscordUsageError(f"{opened_by.describe()} did not open a modal")

        def answer(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            for c in components:
                if c.get("type") == 1:
                    out.append({"type": 1, "components": answer(c.get("components", []))})
                elif c.get("type") == 18 and isinstance(c.get("component"), dict):
                    out.append({"type": 18, "component": answer([c["component"]])[0]})
                elif c.get("type") == 4:
                    cid = c["custom_id"]
                    out.append(
                        {
                            "type": 4,
                            "custom_id": cid,
                            "value": values.get(cid, c.get("value") or ""),
                        }
                    )
            return out

        data = {"custom_id": modal["custom_id"], "components": answer(modal.get("components", []))}
        return await self._start_interaction(
            MODAL_SUBMIT,
            user,
            opened_by.channel,
            data,
            custom_id=modal["custom_id"],
            message=opened_by.message,
        )

    async def send_message(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """``user`` writes ``content`` in ``channel`` (or in their DM with the bot)."""
        if channel.guild is not None and channel.guild.member(user) is None:
            raise FakeDiscordUsageError(f"{user.name} is not a member of {channel.guild.name}")
        if channel.is_dm and channel.recipient is not user:
            raise FakeDiscordUsageError("users can only write in their own DM with the bot")
        msg = FakeMessage(self.ids.next(), channel, user, content=content)
        msg.mentions, msg.mention_roles, msg.mention_everyone = self._mentions(
            content, None, channel
        )
        self._store_message(msg)
        await self._emit_message("MESSAGE_CREATE", msg)
        return msg

    # ---------------------------------------------------------------- gateway control
    def live_sessions(self) -> list[gw.GatewaySession]:
        return [s for s in self.sessions.values() if s.live]

    def _current_session(self, guild_id: int | None = None) -> gw.GatewaySession:
        """The newest live session whose shard receives `guild_id`'s events."""
        live = [s for s in self.live_sessions() if s.serves(guild_id)]
        if not live:
            raise FakeDiscordUsageError(
                "no bot is connected to the stand-in (start one with run_bot)"
            )
        return live[-1]

    # ================================================================ internals
    def _notify(self) -> None:
        self.version += 1
        if self._changed is not None:
            ev, self._changed = self._changed, asyncio.Event()
            ev.set()

    async def next_change(self, version: int) -> int:
        """Wait until something changed after ``version`` (see ``self.version``); the new one."""
        while self.version == version:
            assert self._changed is not None, "the stand-in is not started"
            await self._changed.wait()
        return self.version

    def violate(
        self,
        code: str,
        message: str,
        request: web.Request | None = None,
        *,
        rejected: bool = True,
        interaction_id: int | None = None,
    ) -> Violation:
        v = Violation(
            code,
            message,
            request.method if request else "",
            request.path if request else "",
            rejected,
            interaction_id,
        )
        self.violations.append(v)
        log.warning("violation %s", v)
        self._notify()
        return v

    def _reject(
        self,
        request: web.Request,
        problems: list[Problem],
        *,
        prefix: str = "",
        interaction_id: int | None = None,
    ) -> None:
        """Record problems; raise 400 Invalid Form Body (or 50006) if any is a rejection."""
        for p in problems:
            self.violate(
                f"{p.code}",
                f"{prefix}{p.field}: {p.message}",
                request,
                rejected=p.rejected,
                interaction_id=interaction_id,
            )
        rejected = [p for p in problems if p.rejected]
        if not rejected:
            return
        if all(p.code == "message.empty" for p in rejected):
            raise DiscordError(400, 50006, "Cannot send an empty message")
        shifted = [
            Problem(p.code, f"{prefix}{p.field}", p.message, p.discord_code) for p in rejected
        ]
        raise DiscordError(400, 50035, "Invalid Form Body", form_errors(shifted))

    def _spawn(self, coro: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await coro
            except Exception:
                log.exception("localdiscord background task failed")

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _emit_soon(
        self,
        build: Callable[[gw.GatewaySession], dict[str, Any]],
        intent: int,
        event: str,
        guild_id: int | None = None,
    ) -> None:
        """From synchronous world building: dispatch to connected sessions in order (those
        whose shard serves `guild_id`)."""
        sessions = [
            s
            for s in self.live_sessions()
            if (s.has(intent) or event == "GUILD_CREATE") and s.serves(guild_id)
        ]
        if not sessions:
            return
        for s in sessions:
            self._spawn(s.dispatch(event, build(s)))

    async def _emit(self, event: str, data: dict[str, Any], intent: int | None) -> None:
        guild = data.get("guild_id")
        guild_id = int(guild) if guild is not None else None
        for s in self.live_sessions():
            if (intent is None or s.has(intent)) and s.serves(guild_id):
                await s.dispatch(event, data)
        self._notify()

    # ---------------------------------------------------------------- payloads
    def _guild_create(self, guild: FakeGuild, session: gw.GatewaySession) -> dict[str, Any]:
        if session.has(gw.GUILD_PRESENCES):
            members = list(guild.members.values())
        else:  # without presences Discord only sends the bot itself
            members = [guild.members[self.bot_user.id]]
        return {
            **self._guild_payload(guild),
            "joined_at": guild.joined_at,
            "large": False,
            "unavailable": False,
            "lazy": True,
            "member_count": len(guild.members),
            "voice_states": [],
            "members": [m.to_payload() for m in members],
            "channels": [c.to_payload() for c in guild.channels.values()],
            "threads": [self._thread_payload(t) for t in guild.threads.values() if not t.archived],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def _guild_payload(self, guild: FakeGuild) -> dict[str, Any]:
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "roles": [r.to_payload() for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }

    def _thread_payload(
        self, thread: FakeChannel, *, newly_created: bool = False
    ) -> dict[str, Any]:
        data = thread.to_payload()
        if self.bot_user.id in thread.member_ids:
            data["member"] = self._thread_member_payload(thread, self.bot_user.id)
        if newly_created:
            data["newly_created"] = True
        return data

    def _thread_member_payload(self, thread: FakeChannel, user_id: int) -> dict[str, Any]:
        return {
            "id": str(thread.id),
            "user_id": str(user_id),
            "join_timestamp": thread.create_timestamp,
            "flags": 0,
        }

    def _message_payload(self, msg: FakeMessage) -> dict[str, Any]:
        ch = msg.channel
        data: dict[str, Any] = {
            "id": str(msg.id),
            "channel_id": str(ch.id),
            "author": msg.author.to_payload(),
            "content": msg.content,
            "timestamp": msg.timestamp,
            "edited_timestamp": msg.edited_timestamp,
            "tts": msg.tts,
            "mention_everyone": msg.mention_everyone,
            "mentions": [u.to_payload() for u in msg.mentions],
            "mention_roles": [str(r) for r in msg.mention_roles],
            "attachments": [a.to_payload() for a in msg.attachments],
            "embeds": msg.embeds,
            "pinned": msg.pinned,
            "type": msg.type,
            "flags": msg.flags,
            "components": msg.components,
        }
        if ch.guild is not None:
            data["guild_id"] = str(ch.guild.id)
        if msg.webhook_id is not None:
            data["webhook_id"] = str(msg.webhook_id)
        if msg.application_id is not None:
            data["application_id"] = str(msg.application_id)
        if msg.interaction is not None:
            rec = msg.interaction
            owners = {"0": str(ch.guild.id)} if ch.guild else {"0": "0"}
            meta: dict[str, Any] = {
                "id": str(rec.id),
                "type": rec.type,
                "user": rec.user.to_payload(),
                "authorizing_integration_owners": owners,
            }
            if rec.name:
                meta["name"] = rec.name
                meta["command_type"] = 1
            if rec.message is not None:
                meta["interacted_message_id"] = str(rec.message.id)
            if rec.original is not None and rec.original is not msg:
                meta["original_response_message_id"] = str(rec.original.id)
            data["interaction_metadata"] = meta
            if rec.name:
                data["interaction"] = {
                    "id": str(rec.id),
                    "type": rec.type,
                    "name": rec.name,
                    "user": rec.user.to_payload(),
                }
        if msg.thread is not None:
            data["thread"] = self._thread_payload(msg.thread)
        if msg.reference_id is not None:
            ref: dict[str, Any] = {
                "type": 0,
                "message_id": str(msg.reference_id),
                "channel_id": str(ch.id),
            }
            if ch.guild is not None:
                ref["guild_id"] = str(ch.guild.id)
            data["message_reference"] = ref
        if msg.reactions:
            counts: dict[str, int] = {}
            for r in msg.reactions:
                counts[r] = counts.get(r, 0) + 1
            data["reactions"] = [
                {
                    "count": n,
                    "me": True,
                    "burst_count": 0,
                    "me_burst": False,
                    "emoji": {"id": None, "name": e},
                    "count_details": {"burst": 0, "normal": n},
                    "burst_colors": [],
                }
                for e, n in counts.items()
            ]
        if ch.is_thread:
            data["position"] = (
                len([m for m in ch.messages if not m.ephemeral and m.id <= msg.id]) - 1
            )
        return data

    def _message_event_payload(
        self, msg: FakeMessage, session: gw.GatewaySession
    ) -> dict[str, Any]:
        data = self._message_payload(msg)
        guild = msg.channel.guild
        if guild is not None:
            member = guild.member(msg.author)
            if member is not None:
                data["member"] = member.to_payload(with_user=False)
        sees_content = (
            session.has(gw.MESSAGE_CONTENT)
            or msg.author is self.bot_user
            or msg.channel.is_dm
            or self.bot_user in msg.mentions
        )
        if not sees_content:
            data.update(content="", embeds=[], attachments=[], components=[])
        return data

    async def _emit_message(self, event: str, msg: FakeMessage) -> None:
        if msg.ephemeral:
            self._notify()
            return
        intent = gw.DIRECT_MESSAGES if msg.channel.is_dm else gw.GUILD_MESSAGES
        guild_id = None if msg.channel.guild is None else msg.channel.guild.id
        for s in self.live_sessions():
            if s.has(intent) and s.serves(guild_id):
                await s.dispatch(event, self._message_event_payload(msg, s))
        self._notify()

    # ---------------------------------------------------------------- messages
    def _mentions(
        self, content: str, allowed: dict[str, Any] | None, channel: FakeChannel
    ) -> tuple[list[FakeUser], list[int], bool]:
        parse = ["users", "roles", "everyone"] if allowed is None else allowed.get("parse", [])
        allowed_users = {int(u) for u in (allowed or {}).get("users", [])}
        allowed_roles = {int(r) for r in (allowed or {}).get("roles", [])}
        users: list[FakeUser] = []
        for raw in _MENTION_RE.findall(content or ""):
            uid = int(raw)
            user = self.users.get(uid)
            if user is None or user in users:
                continue
            if "users" in parse or uid in allowed_users:
                users.append(user)
        roles = []
        if channel.guild is not None:
            for raw in _ROLE_MENTION_RE.findall(content or ""):
                rid = int(raw)
                if rid in channel.guild.roles and ("roles" in parse or rid in allowed_roles):
                    roles.append(rid)
        everyone = "everyone" in parse and (
            "@everyone" in (content or "") or "@here" in (content or "")
        )
        return users, roles, everyone

    def _check_mass_pings(self, request: web.Request, msg: FakeMessage) -> None:
        """Discord delivers a message that pings everyone, here or a role, and so does the
        stand-in; it records it too, since a bot that does it by accident (a name holding
        `@everyone`) is flooding a whole server with notifications."""
        if msg.mention_everyone:
            self.violate(
                "mention.everyone",
                f"{msg!r} pings @everyone/@here; pass allowed_mentions to ping only whom it names",
                request,
                rejected=False,
            )
        if msg.mention_roles:
            self.violate(
                "mention.roles",
                f"{msg!r} pings roles {msg.mention_roles}; pass allowed_mentions",
                request,
                rejected=False,
            )

    def _store_message(self, msg: FakeMessage) -> None:
        channel = msg.channel
        channel.messages.append(msg)
        self.messages_by_id[msg.id] = msg
        for a in msg.attachments:
            self.attachments_by_id[a.id] = a
        if channel.is_thread and not msg.ephemeral:
            channel.total_message_sent += 1
            guild = channel.guild
            for u in msg.mentions:
                if (
                    guild is not None
                    and guild.member(u) is not None
                    and u.id not in channel.member_ids
                ):
                    channel.member_ids.append(u.id)

    def _resolve_attachments(
        self,
        request: web.Request,
        payload: dict[str, Any],
        uploads: list[Upload],
        channel: FakeChannel,
        existing: list[FakeAttachment],
        *,
        ephemeral: bool,
    ) -> list[FakeAttachment]:
        by_index = {u.index: u for u in uploads}
        used: set[int | None] = set()
        result: list[FakeAttachment] = []
        entries = payload.get("attachments")
        problems: list[Problem] = []
        if entries is None:
            result = list(existing)
            new = [(u, u.filename, None) for u in uploads]
        else:
            new = []
            keep = {a.id: a for a in existing}
            for i, entry in enumerate(entries):
                try:
                    eid = int(entry["id"])
                except (KeyError, TypeError, ValueError):
                    problems.append(
                        Problem(
                            "attachments.bad_id",
                            f"attachments.{i}.id",
                            "Invalid attachment id",
                            "ATTACHMENT_ID_INVALID",
                        )
                    )
                    continue
                description = entry.get("description")
                if isinstance(description, str) and len(description) > MAX_ATTACHMENT_DESCRIPTION:
                    problems.append(
                        Problem(
                            "attachments.description_too_long",
                            f"attachments.{i}.description",
                            f"Must be {MAX_ATTACHMENT_DESCRIPTION} or fewer in length.",
                        )
                    )
                if eid in keep:
                    result.append(keep[eid])
                elif eid in by_index:
                    used.add(eid)
                    new.append(
                        (
                            by_index[eid],
                            entry.get("filename") or by_index[eid].filename,
                            entry.get("description"),
                        )
                    )
                else:
                    problems.append(
                        Problem(
                            "attachments.unknown_id",
                            f"attachments.{i}.id",
                            f"Unknown attachment id {eid}",
                            "ATTACHMENT_NOT_FOUND",
                        )
                    )
            new += [(u, u.filename, None) for u in uploads if u.index not in used]
        self._reject(request, problems)
        for upload, filename, description in new:
            issues, size = file_problems(filename, upload.data)
            for issue in issues:
                self.violate("file.invalid", f"{filename}: {issue}", request, rejected=False)
            att_id = self.ids.next()
            result.append(
                FakeAttachment(
                    att_id,
                    filename,
                    upload.data,
                    content_type_for(filename),
                    f"{self.base_url}/attachments/{channel.id}/{att_id}/{filename}",
                    description=description,
                    width=size[0] if size else None,
                    height=size[1] if size else None,
                    ephemeral=ephemeral,
                )
            )
        return result

    def _render_embeds(
        self, embeds: list[dict[str, Any]], attachments: list[FakeAttachment]
    ) -> list[dict[str, Any]]:
        by_name = {a.filename: a for a in attachments}
        out = []
        for e in embeds:
            e = {**e, "type": e.get("type", "rich")}
            for key in ("image", "thumbnail"):
                sub = e.get(key)
                if isinstance(sub, dict) and str(sub.get("url", "")).startswith("attachment://"):
                    att = by_name.get(sub["url"].removeprefix("attachment://"))
                    if att is not None:
                        e[key] = {
                            **sub,
                            "url": att.url,
                            "proxy_url": att.url,
                            "width": att.width,
                            "height": att.height,
                        }
            out.append(e)
        return out

    async def _new_message(
        self,
        request: web.Request,
        channel: FakeChannel,
        payload: dict[str, Any],
        uploads: list[Upload],
        *,
        allow_ephemeral: bool,
        interaction: InteractionRecord | None = None,
        msg_type: int = 0,
        loading: bool = False,
        prefix: str = "",
    ) -> FakeMessage:
        if not isinstance(payload, dict):
            raise DiscordError(400, 50109, "The request body contains invalid JSON.")
        flags = int(payload.get("flags") or 0)
        ephemeral = bool(flags & FLAG_EPHEMERAL) and allow_ephemeral
        attachments = self._resolve_attachments(
            request, payload, uploads, channel, [], ephemeral=ephemeral
        )
        problems = check_message(
            payload,
            filenames=[a.filename for a in attachments],
            allow_ephemeral=allow_ephemeral,
            require_body=not loading,
        )
        self._reject(
            request, problems, prefix=prefix, interaction_id=interaction.id if interaction else None
        )
        keep = (
            FLAG_EPHEMERAL | FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2
        )
        msg = FakeMessage(
            self.ids.next(),
            channel,
            self.bot_user,
            content=payload.get("content") or "",
            embeds=self._render_embeds(payload.get("embeds") or [], attachments),
            components=payload.get("components") or [],
            attachments=attachments,
            flags=(flags & keep) | (FLAG_LOADING if loading else 0),
            type=msg_type,
            tts=bool(payload.get("tts")),
            interaction=interaction,
        )
        if interaction is not None:
            msg.webhook_id = self.application_id
            msg.application_id = self.application_id
        ref = payload.get("message_reference")
        if isinstance(ref, dict) and ref.get("message_id"):
            msg.reference_id = int(ref["message_id"])
        msg.mentions, msg.mention_roles, msg.mention_everyone = self._mentions(
            msg.content, payload.get("allowed_mentions"), channel
        )
        self._check_mass_pings(request, msg)
        self._store_message(msg)
        await self._emit_message("MESSAGE_CREATE", msg)
        return msg

    async def _edit_message(
        self,
        request: web.Request,
        msg: FakeMessage,
        payload: dict[str, Any],
        uploads: list[Upload],
        *,
        fill: bool = False,
        prefix: str = "",
    ) -> FakeMessage:
        if not isinstance(payload, dict):
            raise DiscordError(400, 50109, "The request body contains invalid JSON.")
        attachments = self._resolve_attachments(
            request, payload, uploads, msg.channel, msg.attachments, ephemeral=msg.ephemeral
        )
        merged = {
            "content": payload.get("content", msg.content),
            "embeds": payload.get("embeds", msg.embeds),
            "components": payload.get("components", msg.components),
            "flags": (int(payload.get("flags") or 0) & (FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2))
            | (msg.flags & FLAG_COMPONENTS_V2),
        }
        problems = check_message(
            merged, filenames=[a.filename for a in attachments], allow_ephemeral=False
        )
        self._reject(request, problems, prefix=prefix)
        msg.history.append(msg.snapshot())
        was_loading = msg.loading
        msg.content = merged["content"] or ""
        msg.embeds = self._render_embeds(merged["embeds"] or [], attachments)
        msg.components = merged["components"] or []
        msg.attachments = attachments
        for a in attachments:
            self.attachments_by_id[a.id] = a
        keep = FLAG_EPHEMERAL | FLAG_HAS_THREAD | FLAG_SUPPRESS_NOTIFICATIONS
        msg.flags = (msg.flags & keep) | merged["flags"]
        if not (fill or was_loading):
            msg.edited_timestamp = iso(time.time())
        if "content" in payload or "allowed_mentions" in payload:
            msg.mentions, msg.mention_roles, msg.mention_everyone = self._mentions(
                msg.content, payload.get("allowed_mentions"), msg.channel
            )
            self._check_mass_pings(request, msg)
            if msg.channel.is_thread:
                guild = msg.channel.guild
                for u in msg.mentions:
                    if guild is not None and guild.member(u) and u.id not in msg.channel.member_ids:
                        msg.channel.member_ids.append(u.id)
        await self._emit_message("MESSAGE_UPDATE", msg)
        return msg

    # ---------------------------------------------------------------- interactions
    def _check_can_see(self, user: FakeUser, message: FakeMessage) -> None:
        if message.deleted:
            raise FakeDiscordUsageError(f"{message!r} was deleted")
        if message.ephemeral and (
            message.interaction is None or message.interaction.user is not user
        ):
            raise FakeDiscordUsageError(f"{user.name} cannot see the ephemeral {message!r}")
        guild = message.channel.guild
        if guild is not None and guild.member(user) is None:
            raise FakeDiscordUsageError(f"{user.name} is not a member of {guild.name}")

    def _find_command(self, channel: FakeChannel, name: str) -> dict[str, Any]:
        candidates: list[dict[str, Any]] = []
        if channel.guild is not None:
            candidates += self.guild_commands.get(channel.guild.id, [])
        candidates += self.global_commands
        for cmd in candidates:
            if cmd.get("type", 1) == 1 and cmd["name"] == name:
                if channel.is_dm:
                    contexts = cmd.get("contexts")
                    if (contexts is not None and 1 not in contexts) or cmd.get(
                        "dm_permission"
                    ) is False:
                        raise FakeDiscordUsageError(f"/{name} is not available in DMs")
                return cmd
        known = sorted({c["name"] for c in candidates})
        raise FakeDiscordUsageError(
            f"/{name} is not registered for #{channel.name}; registered: {known}"
        )

    @staticmethod
    def offered(user: FakeUser, guild: FakeGuild | None, cmd: dict[str, Any]) -> bool:
        """As Discord's client does: a command with `default_member_permissions` is offered
        only to members holding all of them (administrators always; "0": administrators
        only). Overrides set in Server Settings > Integrations are not modelled."""
        text = cmd.get("default_member_permissions")
        member = guild.member(user) if guild is not None else None
        if text is None or member is None:
            return True
        required, granted = int(text), member.permissions
        return bool(granted & ADMINISTRATOR or (required and granted & required == required))

    def _check_command_permitted(
        self, user: FakeUser, channel: FakeChannel, cmd: dict[str, Any]
    ) -> None:
        guild = channel.guild
        if self.offered(user, guild, cmd):
            return
        required = int(cmd["default_member_permissions"])
        raise CommandNotPermittedError(
            f"{user.name} is not offered /{cmd['name']} in {guild.name if guild else 'a DM'}: "
            f"it needs the permissions {required:#x} (default_member_permissions)"
        )

    def _command_data(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any],
        *,
        focused: str | None,
        value: str | None,
    ) -> tuple[dict[str, Any], str, dict[str, Any]]:
        guild = channel.guild
        if guild is not None and guild.member(user) is None:
            raise FakeDiscordUsageError(f"{user.name} is not a member of {guild.name}")
        if channel.is_dm and channel.recipient is not user:
            raise FakeDiscordUsageError(f"{user.name} cannot use the DM of {channel.recipient}")
        if channel.type == GUILD_CATEGORY:
            raise FakeDiscordUsageError("commands cannot be used in a category")
        parts = command.split()
        cmd = self._find_command(channel, parts[0])
        self._check_command_permitted(user, channel, cmd)
        resolved: dict[str, dict[str, Any]] = {}
        node = cmd
        chain: list[dict[str, Any]] = []
        for part in parts[1:]:
            subs = [
                o for o in node.get("options", []) if o.get("type") in (1, 2) and o["name"] == part
            ]
            if not subs:
                raise FakeDiscordUsageError(f"/{command}: no subcommand {part!r}")
            node = subs[0]
            chain.append(node)
        if any(o.get("type") in (1, 2) for o in node.get("options", [])):
            raise FakeDiscordUsageError(f"/{command} is a group; name a subcommand")
        leaf = self._build_options(command, node, options, guild, resolved, focused, value)
        opts: list[dict[str, Any]] = leaf
        for sub in reversed(chain):
            opts = [{"type": sub["type"], "name": sub["name"], "options": opts}]
        data: dict[str, Any] = {
            "id": str(cmd["id"]),
            "name": cmd["name"],
            "type": 1,
            "options": opts,
        }
        if cmd.get("guild_id"):
            data["guild_id"] = str(cmd["guild_id"])
        if resolved:
            data["resolved"] = resolved
        return data, " ".join(parts), dict(options)

    def _build_options(
        self,
        command: str,
        node: dict[str, Any],
        given: dict[str, Any],
        guild: FakeGuild | None,
        resolved: dict[str, dict[str, Any]],
        focused: str | None,
        focused_value: str | None,
    ) -> list[dict[str, Any]]:
        defs = {o["name"]: o for o in node.get("options", [])}
        for name in [*given, *([focused] if focused else [])]:
            if name not in defs:
                raise FakeDiscordUsageError(
                    f"/{command} has no option {name!r}; options: {list(defs)}"
                )
        if focused is not None and not defs[focused].get("autocomplete"):
            raise FakeDiscordUsageError(f"option {focused!r} of /{command} has no autocomplete")
        out: list[dict[str, Any]] = []
        for name, odef in defs.items():
            if name == focused:
                out.append(
                    {"type": odef["type"], "name": name, "value": focused_value, "focused": True}
                )
                continue
            if name not in given:
                if odef.get("required") and focused is None:
                    raise FakeDiscordUsageError(f"/{command} requires option {name!r}")
                continue
            value = self._option_value(command, odef, given[name], guild, resolved)
            out.append({"type": odef["type"], "name": name, "value": value})
        return out

    def _option_value(
        self,
        command: str,
        odef: dict[str, Any],
        value: Any,
        guild: FakeGuild | None,
        resolved: dict[str, dict[str, Any]],
    ) -> Any:
        kind, name = odef["type"], odef["name"]

        def bad(why: str) -> FakeDiscordUsageError:
            return FakeDiscordUsageError(f"/{command} {name}={value!r}: {why}")

        if kind == 3:
            if not isinstance(value, str):
                raise bad("expected a string")
            if "min_length" in odef and len(value) < odef["min_length"]:
                raise bad(f"shorter than {odef['min_length']}")
            if "max_length" in odef and len(value) > odef["max_length"]:
                raise bad(f"longer than {odef['max_length']}")
        elif kind == 4:
            if not isinstance(value, int) or isinstance(value, bool):
                raise bad("expected an integer")
        elif kind == 10:
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise bad("expected a number")
        elif kind == 5:
            if not isinstance(value, bool):
                raise bad("expected a boolean")
        elif kind in (6, 9) and isinstance(value, FakeUser | FakeMember):
            user = value.user if isinstance(value, FakeMember) else value
            resolved.setdefault("users", {})[str(user.id)] = user.to_payload()
            member = guild.member(user) if guild else None
            if member is not None:
                resolved.setdefault("members", {})[str(user.id)] = member.to_payload(
                    with_user=False, with_permissions=True
                )
            return str(user.id)
        elif kind in (8, 9) and isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.to_payload()
            return str(value.id)
        elif kind == 7 and isinstance(value, FakeChannel):
            types = odef.get("channel_types")
            if types and value.type not in types:
                raise bad(f"channel type {value.type} not in {types}")
            entry = {
                k: v
                for k, v in value.to_payload().items()
                if k in ("id", "name", "type", "parent_id", "thread_metadata")
            }
            member = guild.member(self.bot_user) if guild else None
            entry["permissions"] = str(member.permissions if member else ALL_PERMISSIONS)
            resolved.setdefault("channels", {})[str(value.id)] = entry
            return str(value.id)
        elif kind == 11 and isinstance(value, tuple) and len(value) == 2:
            filename, data = value
            att_id = self.ids.next()
            att = FakeAttachment(
                att_id,
                filename,
                data,
                content_type_for(filename),
                f"{self.base_url}/attachments/0/{att_id}/{filename}",
            )
            self.attachments_by_id[att_id] = att
            resolved.setdefault("attachments", {})[str(att_id)] = att.to_payload()
            return str(att_id)
        else:
            raise bad(f"unsupported value for option type {kind}")
        if kind in (4, 10):
            if "min_value" in odef and value < odef["min_value"]:
                raise bad(f"below {odef['min_value']}")
            if "max_value" in odef and value > odef["max_value"]:
                raise bad(f"above {odef['max_value']}")
        choices = odef.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise bad(f"not one of the choices {[c['value'] for c in choices]}")
        return value

    async def _start_interaction(
        self,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        name: str | None = None,
        options: dict[str, Any] | None = None,
        custom_id: str | None = None,
        message: FakeMessage | None = None,
    ) -> InteractionRecord:
        await self._wait_until_bot_caught_up()
        session = self._current_session(None if channel.guild is None else channel.guild.id)
        rec = InteractionRecord(
            self,
            self.ids.next(),
            f"aW50ZXJhY3Rpb24.{secrets.token_urlsafe(32)}",
            kind,
            user,
            channel,
            {},
            name=name,
            options=options or {},
            custom_id=custom_id,
            message=message,
        )
        rec.payload = self._interaction_payload(rec, data)
        self.interactions.append(rec)
        self._interactions_by_id[rec.id] = rec
        self._interactions_by_token[rec.token] = rec
        loop = asyncio.get_running_loop()
        rec.created_at = loop.time()
        rec._deadline_handle = loop.call_later(
            self.interaction_deadline, self._deadline_passed, rec
        )
        await session.dispatch("INTERACTION_CREATE", rec.payload)
        return rec

    def _deadline_passed(self, rec: InteractionRecord) -> None:
        if rec.acknowledged:
            return
        rec.failed = True
        self.violate(
            "interaction.not_acknowledged",
            f"{rec.describe()} got no response within {self.interaction_deadline}s; "
            "the user sees 'This interaction failed'",
            interaction_id=rec.id,
        )

    def _interaction_payload(self, rec: InteractionRecord, data: dict[str, Any]) -> dict[str, Any]:
        channel = rec.channel
        guild = channel.guild
        p: dict[str, Any] = {
            "id": str(rec.id),
            "application_id": str(self.application_id),
            "type": rec.type,
            "data": data,
            "token": rec.token,
            "version": 1,
            "channel_id": str(channel.id),
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": self.attachment_size_limit,
        }
        if guild is not None:
            member = guild.member(rec.user)
            assert member is not None
            bot_member = guild.members[self.bot_user.id]
            p.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=member.to_payload(with_permissions=True),
                channel=channel.to_payload(for_user=member),
                app_permissions=str(bot_member.permissions),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            p.update(
                user=rec.user.to_payload(),
                channel=channel.to_payload(),
                app_permissions=str(ALL_PERMISSIONS),
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        if rec.message is not None:
            p["message"] = self._message_payload(rec.message)
        return p

    def _interaction_for(self, request: web.Request) -> InteractionRecord:
        app_id = request.match_info["app_id"]
        token = request.match_info["token"]
        rec = self._interactions_by_token.get(token)
        if app_id != str(self.application_id) or rec is None or rec.type == AUTOCOMPLETE:
            self.violate(
                "webhook.unknown", "follow-up webhook for an unknown interaction token", request
            )
            raise DiscordError(404, 10015, "Unknown Webhook")
        if asyncio.get_running_loop().time() - rec.created_at > self.token_lifetime:
            self.violate(
                "webhook.expired",
                f"{rec.describe()}: interaction token used after 15 minutes",
                request,
            )
            raise DiscordError(401, 50027, "Invalid Webhook Token")
        if not rec.acknowledged:
            self.violate(
                "followup.before_acknowledge",
                f"{rec.describe()}: follow-up or original-response call before any response",
                request,
                interaction_id=rec.id,
            )
            raise DiscordError(404, 10015, "Unknown Webhook")
        return rec

    # ================================================================ HTTP
    def _add_routes(self, app: web.Application) -> None:
        r = app.router
        routes: list[tuple[str, str, Callable[[web.Request], Awaitable[web.StreamResponse]]]] = [
            ("GET", "/gateway", self._h_gateway_ws),
            ("GET", "/gateway-resume", self._h_gateway_ws),
            ("GET", "/attachments/{channel_id}/{attachment_id}/{filename}", self._h_attachment),
            ("GET", f"{API}/gateway", self._h_gateway),
            ("GET", f"{API}/gateway/bot", self._h_gateway_bot),
            ("GET", f"{API}/users/@me", self._h_me),
            ("POST", f"{API}/users/@me/channels", self._h_create_dm),
            ("GET", f"{API}/users/{{user_id}}", self._h_user),
            ("GET", f"{API}/oauth2/applications/@me", self._h_application),
            ("GET", f"{API}/applications/@me", self._h_application),
            ("GET", f"{API}/applications/{{app_id}}/commands", self._h_get_commands),
            ("PUT", f"{API}/applications/{{app_id}}/commands", self._h_put_commands),
            ("POST", f"{API}/applications/{{app_id}}/commands", self._h_post_command),
            ("GET", f"{API}/applications/{{app_id}}/commands/{{command_id}}", self._h_get_command),
            (
                "DELETE",
                f"{API}/applications/{{app_id}}/commands/{{command_id}}",
                self._h_delete_command,
            ),
            (
                "GET",
                f"{API}/applications/{{app_id}}/guilds/{{guild_id}}/commands",
                self._h_get_commands,
            ),
            (
                "PUT",
                f"{API}/applications/{{app_id}}/guilds/{{guild_id}}/commands",
                self._h_put_commands,
            ),
            (
                "POST",
                f"{API}/applications/{{app_id}}/guilds/{{guild_id}}/commands",
                self._h_post_command,
            ),
            (
                "GET",
                f"{API}/applications/{{app_id}}/guilds/{{guild_id}}/commands/{{command_id}}",
                self._h_get_command,
            ),
            (
                "DELETE",
                f"{API}/applications/{{app_id}}/guilds/{{guild_id}}/commands/{{command_id}}",
                self._h_delete_command,
            ),
            ("POST", f"{API}/interactions/{{interaction_id}}/{{token}}/callback", self._h_callback),
            ("POST", f"{API}/webhooks/{{app_id}}/{{token}}", self._h_followup),
            (
                "GET",
                f"{API}/webhooks/{{app_id}}/{{token}}/messages/{{message_id}}",
                self._h_webhook_message,
            ),
            (
                "PATCH",
                f"{API}/webhooks/{{app_id}}/{{token}}/messages/{{message_id}}",
                self._h_webhook_message,
            ),
            (
                "DELETE",
                f"{API}/webhooks/{{app_id}}/{{token}}/messages/{{message_id}}",
                self._h_webhook_message,
            ),
            ("GET", f"{API}/channels/{{channel_id}}", self._h_get_channel),
            ("PATCH", f"{API}/channels/{{channel_id}}", self._h_edit_channel),
            ("DELETE", f"{API}/channels/{{channel_id}}", self._h_delete_channel),
            ("GET", f"{API}/channels/{{channel_id}}/messages", self._h_list_messages),
            ("POST", f"{API}/channels/{{channel_id}}/messages", self._h_post_message),
            ("GET", f"{API}/channels/{{channel_id}}/messages/{{message_id}}", self._h_get_message),
            (
                "PATCH",
                f"{API}/channels/{{channel_id}}/messages/{{message_id}}",
                self._h_edit_message,
            ),
            (
                "DELETE",
                f"{API}/channels/{{channel_id}}/messages/{{message_id}}",
                self._h_delete_message,
            ),
            (
                "POST",
                f"{API}/channels/{{channel_id}}/messages/{{message_id}}/threads",
                self._h_thread_from_message,
            ),
            ("POST", f"{API}/channels/{{channel_id}}/threads", self._h_thread_without_message),
            ("GET", f"{API}/channels/{{channel_id}}/thread-members", self._h_thread_members),
            (
                "GET",
                f"{API}/channels/{{channel_id}}/thread-members/{{user_id}}",
                self._h_thread_member,
            ),
            (
                "PUT",
                f"{API}/channels/{{channel_id}}/thread-members/{{user_id}}",
                self._h_thread_member,
            ),
            (
                "DELETE",
                f"{API}/channels/{{channel_id}}/thread-members/{{user_id}}",
                self._h_thread_member,
            ),
            ("POST", f"{API}/channels/{{channel_id}}/typing", self._h_typing),
            (
                "PUT",
                f"{API}/channels/{{channel_id}}/messages/{{message_id}}/reactions/{{emoji}}/@me",
                self._h_reaction,
            ),
            (
                "DELETE",
                f"{API}/channels/{{channel_id}}/messages/{{message_id}}/reactions/{{emoji}}/@me",
                self._h_reaction,
            ),
            ("GET", f"{API}/guilds/{{guild_id}}", self._h_get_guild),
            ("GET", f"{API}/guilds/{{guild_id}}/channels", self._h_guild_channels),
            ("GET", f"{API}/guilds/{{guild_id}}/members/{{user_id}}", self._h_guild_member),
            ("GET", f"{API}/guilds/{{guild_id}}/threads/active", self._h_active_threads),
        ]
        for method, path, handler in routes:
            r.add_route(method, path, handler)

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if not request.path.startswith(API + "/"):
            return await handler(request)
        rec = RecordedRequest(request.method, request.path, dict(request.query), None, [])
        if self.keep_requests:
            self.requests.append(rec)
        _current_request.set(rec)
        resp: web.StreamResponse
        try:
            public = request.path.startswith((f"{API}/interactions/", f"{API}/webhooks/"))
            if not public and request.headers.get("Authorization") != f"Bot {self.token}":
                self.violate("auth.invalid", "request without the bot token", request)
                raise DiscordError(401, 0, "401: Unauthorized")
            resp = await handler(request)
        except DiscordError as exc:
            resp = _json(exc.body(), exc.status)
        except (web.HTTPNotFound, web.HTTPMethodNotAllowed):
            self.violate(
                "route.unsupported",
                f"{request.method} {request.path} is not implemented by the stand-in",
                request,
            )
            resp = _json({"message": "404: Not Found", "code": 0}, 404)
        except Exception as exc:
            log.exception("localdiscord handler crashed")
            self.violate(
                "fake.internal_error",
                f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}",
                request,
            )
            # 400, not 500: discord.py retries 5xx with sleeps.
            resp = _json({"message": f"localdiscord internal error: {exc}", "code": 0}, 400)
        rec.status = resp.status
        serial = request.headers.get(REQUEST_SERIAL_HEADER, "")
        if serial.isdigit():
            self._answered.add(int(serial))
        self._notify()
        return resp

    def note_request_read(self, serial: int) -> None:
        """The bot has read the whole answer to its request ``serial`` (called by the harness
        from an aiohttp trace of the bot's session, or when the request failed)."""
        self._read.add(serial)
        self._notify()

    def _bot_has_read_every_answer(self) -> bool:
        return self._answered <= self._read

    async def _wait_until_bot_caught_up(self, timeout: float = 5.0) -> None:
        """On Discord a person reacts to a message long after the bot got the answer that
        created it (and registered its view); in a test the next action comes at once. So a
        user's action waits until the bot has read every answer it was given: a click never
        reaches the bot before the response that created the button did."""
        if self._answered <= self._read:
            return
        await self.wait_until(
            self._bot_has_read_every_answer,
            timeout,
            f"the bot to read the answers to its requests {sorted(self._answered - self._read)}",
        )

    async def _read_body(self, request: web.Request) -> tuple[Any, list[Upload]]:
        rec = _current_request.get()
        uploads: list[Upload] = []
        payload: Any = None
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):  # nested multipart: not used by Discord
                    raise DiscordError(400, 50035, "Invalid Form Body")
                name = part.name or ""
                if name == "payload_json":
                    payload = self._parse_json(await part.text())
                else:
                    m = re.fullmatch(r"files\[(\d+)\]|file(\d*)", name)
                    data = bytes(await part.read(decode=False))
                    index = int(m.group(1) or m.group(2) or 0) if m else None
                    uploads.append(Upload(index, part.filename or name, data))
            if sum(len(u.data) for u in uploads) > self.attachment_size_limit:
                self.violate(
                    "file.too_large",
                    f"uploads total {sum(len(u.data) for u in uploads)} bytes",
                    request,
                )
                raise DiscordError(413, 40005, "Request entity too large")
        elif request.can_read_body:
            payload = self._parse_json(await request.text())
        rec.body = payload
        rec.files = [(f"files[{u.index}]", u.filename, len(u.data)) for u in uploads]
        return payload, uploads

    @staticmethod
    def _parse_json(text: str) -> Any:
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise DiscordError(400, 50109, "The request body contains invalid JSON.") from exc

    def _channel(self, request: web.Request) -> FakeChannel:
        channel = self.channels.get(int(request.match_info["channel_id"]))
        if channel is None:
            raise DiscordError(404, 10003, "Unknown Channel")
        return channel

    def _guild(self, request: web.Request) -> FakeGuild:
        guild = self.guilds.get(int(request.match_info["guild_id"]))
        if guild is None:
            raise DiscordError(404, 10004, "Unknown Guild")
        return guild

    def _channel_message(self, request: web.Request, channel: FakeChannel) -> FakeMessage:
        msg = self.messages_by_id.get(int(request.match_info["message_id"]))
        if msg is None or msg.channel is not channel or msg.deleted or msg.ephemeral:
            raise DiscordError(404, 10008, "Unknown Message")
        return msg

    def _check_app(self, request: web.Request) -> None:
        if request.match_info["app_id"] != str(self.application_id):
            raise DiscordError(403, 50001, "Missing Access")

    # ---------------------------------------------------------------- gateway (HTTP side)
    async def _h_gateway(self, request: web.Request) -> web.Response:
        return _json({"url": self.gateway_url})

    async def _h_gateway_bot(self, request: web.Request) -> web.Response:
        return _json(
            {
                "url": self.gateway_url,
                "shards": self.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    async def _h_me(self, request: web.Request) -> web.Response:
        return _json(
            {
                **self.bot_user.to_payload(),
                "verified": True,
                "mfa_enabled": False,
                "bio": "",
                "locale": "en-US",
            }
        )

    async def _h_user(self, request: web.Request) -> web.Response:
        user = self.users.get(int(request.match_info["user_id"]))
        if user is None:
            raise DiscordError(404, 10013, "Unknown User")
        return _json(user.to_payload())

    async def _h_application(self, request: web.Request) -> web.Response:
        return _json(
            {
                "id": str(self.application_id),
                "name": self.bot_user.name,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "owner": self.owner.to_payload(),
                "team": None,
                "flags": 0,
                "bot": self.bot_user.to_payload(),
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.guilds),
            }
        )

    # ---------------------------------------------------------------- commands
    def _command_store(self, request: web.Request) -> tuple[int | None, list[dict[str, Any]]]:
        self._check_app(request)
        if "guild_id" in request.match_info:
            guild = self._guild(request)
            return guild.id, self.guild_commands.setdefault(guild.id, [])
        return None, self.global_commands

    def _normalise_command(
        self, cmd: dict[str, Any], guild_id: int | None, old: list[dict[str, Any]]
    ) -> dict[str, Any]:
        kind = cmd.get("type", 1)
        previous = [c for c in old if c["name"] == cmd["name"] and c.get("type", 1) == kind]
        stored = {
            **cmd,
            "id": previous[0]["id"] if previous else str(self.ids.next()),
            "application_id": str(self.application_id),
            "version": str(self.ids.next()),
            "type": kind,
            "description": cmd.get("description", ""),
            "default_member_permissions": cmd.get("default_member_permissions"),
            "nsfw": cmd.get("nsfw", False),
        }
        if guild_id is not None:
            stored["guild_id"] = str(guild_id)
        return stored

    async def _h_get_commands(self, request: web.Request) -> web.Response:
        _, store = self._command_store(request)
        return _json(store)

    async def _h_put_commands(self, request: web.Request) -> web.Response:
        guild_id, store = self._command_store(request)
        body, _ = await self._read_body(request)
        self._reject(request, check_commands(body))
        new = [self._normalise_command(c, guild_id, store) for c in body]
        store[:] = new
        self.command_registrations.append((guild_id, new))
        return _json(new)

    async def _h_post_command(self, request: web.Request) -> web.Response:
        guild_id, store = self._command_store(request)
        body, _ = await self._read_body(request)
        others = [
            c
            for c in store
            if not (c["name"] == body.get("name") and c.get("type", 1) == body.get("type", 1))
        ]
        self._reject(request, check_commands([*others, body]))
        stored = self._normalise_command(body, guild_id, store)
        store[:] = [*others, stored]
        self.command_registrations.append((guild_id, [stored]))
        return _json(stored, 201)

    async def _h_get_command(self, request: web.Request) -> web.Response:
        _, store = self._command_store(request)
        for c in store:
            if c["id"] == request.match_info["command_id"]:
                return _json(c)
        raise DiscordError(404, 10063, "Unknown application command")

    async def _h_delete_command(self, request: web.Request) -> web.Response:
        _, store = self._command_store(request)
        before = len(store)
        store[:] = [c for c in store if c["id"] != request.match_info["command_id"]]
        if len(store) == before:
            raise DiscordError(404, 10063, "Unknown application command")
        return _no_content()

    # ---------------------------------------------------------------- interaction callbacks
    async def _h_callback(self, request: web.Request) -> web.Response:
        body, uploads = await self._read_body(request)
        rec = self._interactions_by_id.get(int(request.match_info["interaction_id"]))
        if rec is None or rec.token != request.match_info["token"]:
            self.violate("interaction.unknown", "callback for an unknown interaction", request)
            raise DiscordError(404, 10062, "Unknown interaction")
        loop = asyncio.get_running_loop()
        now = loop.time()
        if not isinstance(body, dict) or not isinstance(body.get("type"), int):
            self._reject(
                request,
                [
                    Problem(
                        "callback.type_missing",
                        "type",
                        "This field is required",
                        "BASE_TYPE_REQUIRED",
                    )
                ],
            )
        cb_type: int = body["type"]
        data: dict[str, Any] = body.get("data") or {}
        if rec.acknowledged:
            rec.callbacks.append(Callback(cb_type, data, False, 40060, now))
            self.violate(
                "interaction.already_acknowledged",
                f"{rec.describe()}: second initial response (callback {cb_type})",
                request,
                interaction_id=rec.id,
            )
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        elapsed = now - rec.created_at
        if elapsed > self.interaction_deadline:
            rec.callbacks.append(Callback(cb_type, data, False, 10062, now))
            self.violate(
                "interaction.late_response",
                f"{rec.describe()}: initial response {elapsed:.2f}s after the interaction "
                f"(limit {self.interaction_deadline}s); defer first when work may take longer",
                request,
                interaction_id=rec.id,
            )
            raise DiscordError(404, 10062, "Unknown interaction")
        allowed = {
            APPLICATION_COMMAND: {CB_CHANNEL_MESSAGE, CB_DEFERRED_CHANNEL_MESSAGE, CB_MODAL},
            MESSAGE_COMPONENT: {
                CB_CHANNEL_MESSAGE,
                CB_DEFERRED_CHANNEL_MESSAGE,
                CB_DEFERRED_UPDATE_MESSAGE,
                CB_UPDATE_MESSAGE,
                CB_MODAL,
            },
            AUTOCOMPLETE: {CB_AUTOCOMPLETE_RESULT},
            MODAL_SUBMIT: {
                CB_CHANNEL_MESSAGE,
                CB_DEFERRED_CHANNEL_MESSAGE,
                CB_DEFERRED_UPDATE_MESSAGE,
                CB_UPDATE_MESSAGE,
            },
        }[rec.type]
        if cb_type not in allowed:
            rec.callbacks.append(Callback(cb_type, data, False, 50035, now))
            self._reject(
                request,
                [
                    Problem(
                        "callback.bad_type",
                        "type",
                        f"Callback type {cb_type} is not valid for interaction type {rec.type}",
                        "INTERACTION_RESPONSE_TYPE_INVALID",
                    )
                ],
                interaction_id=rec.id,
            )
        try:
            resource_msg = await self._apply_callback(request, rec, cb_type, data, uploads)
        except DiscordError as exc:
            rec.callbacks.append(Callback(cb_type, data, False, exc.code, now))
            self._notify()
            raise
        rec.callbacks.append(Callback(cb_type, data, True, None, now))
        rec.response_type = cb_type
        rec.acknowledged_at = now
        if rec._deadline_handle is not None:
            rec._deadline_handle.cancel()
        self._notify()
        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return _no_content()
        info: dict[str, Any] = {"id": str(rec.id), "type": rec.type}
        resource: dict[str, Any] = {"type": cb_type}
        if resource_msg is not None:
            info["response_message_id"] = str(resource_msg.id)
            info["response_message_loading"] = resource_msg.loading
            info["response_message_ephemeral"] = resource_msg.ephemeral
            resource["message"] = self._message_payload(resource_msg)
        return _json({"interaction": info, "resource": resource})

    async def _apply_callback(
        self,
        request: web.Request,
        rec: InteractionRecord,
        cb_type: int,
        data: dict[str, Any],
        uploads: list[Upload],
    ) -> FakeMessage | None:
        msg_type = 20 if rec.type == APPLICATION_COMMAND else 0
        if cb_type == CB_CHANNEL_MESSAGE:
            rec.original = await self._new_message(
                request,
                rec.channel,
                data,
                uploads,
                allow_ephemeral=True,
                interaction=rec,
                msg_type=msg_type,
                prefix="data.",
            )
            return rec.original
        if cb_type == CB_DEFERRED_CHANNEL_MESSAGE:
            flags = int(data.get("flags") or 0) & FLAG_EPHEMERAL
            rec.original = await self._new_message(
                request,
                rec.channel,
                {"flags": flags},
                [],
                allow_ephemeral=True,
                interaction=rec,
                msg_type=msg_type,
                loading=True,
            )
            return rec.original
        if cb_type == CB_DEFERRED_UPDATE_MESSAGE:
            rec.original = rec.message
            return None
        if cb_type == CB_UPDATE_MESSAGE:
            if rec.message is None:
                raise DiscordError(400, 50035, "Invalid Form Body")
            rec.original = await self._edit_message(
                request, rec.message, data, uploads, prefix="data."
            )
            return rec.original
        if cb_type == CB_AUTOCOMPLETE_RESULT:
            choices = data.get("choices")
            self._reject(request, check_choices(choices), interaction_id=rec.id)
            rec.choices = [Choice(c["name"], c["value"]) for c in choices or []]
            return None
        if cb_type == CB_MODAL:
            problems = check_modal(data)
            for i, row in enumerate(data.get("components") or []):
                for j, c in enumerate(
                    row.get("components") or ([row["component"]] if "component" in row else [])
                ):
                    if c.get("type") == 4 and len(c.get("custom_id") or "") > 100:
                        problems.append(
                            Problem(
                                "modal.custom_id_too_long",
                                f"data.components.{i}.components.{j}.custom_id",
                                "Must be 100 or fewer in length.",
                            )
                        )
            self._reject(request, problems, interaction_id=rec.id)
            rec.modal = data
            return None
        raise DiscordError(400, 50035, "Invalid Form Body")

    async def _h_followup(self, request: web.Request) -> web.Response:
        rec = self._interaction_for(request)
        body, uploads = await self._read_body(request)
        if rec.original is not None and rec.original.loading and not rec.original.deleted:
            # The first follow-up after a deferred "thinking" response replaces it,
            # keeping the ephemerality chosen when deferring (once deleted, a follow-up is
            # a message of its own).
            msg = await self._edit_message(request, rec.original, body or {}, uploads, fill=True)
        else:
            msg = await self._new_message(
                request, rec.channel, body or {}, uploads, allow_ephemeral=True, interaction=rec
            )
        rec.followups.append(msg)
        self._notify()
        if request.query.get("wait", "").lower() in ("1", "true"):
            return _json(self._message_payload(msg))
        return _no_content()

    async def _h_webhook_message(self, request: web.Request) -> web.Response:
        rec = self._interaction_for(request)
        mid = request.match_info["message_id"]
        msg: FakeMessage | None
        if mid == "@original":
            msg = rec.original
        else:
            candidates = [
                m for m in [rec.original, *rec.followups] if m is not None and str(m.id) == mid
            ]
            msg = candidates[0] if candidates else None
        if msg is None or msg.deleted:
            raise DiscordError(404, 10008, "Unknown Message")
        if request.method == "GET":
            return _json(self._message_payload(msg))
        if request.method == "DELETE":
            await self._delete(msg)
            return _no_content()
        body, uploads = await self._read_body(request)
        await self._edit_message(request, msg, body or {}, uploads)
        if rec.response_type == CB_DEFERRED_UPDATE_MESSAGE and msg is rec.message:
            rec.edits_after_defer += 1
        self._notify()
        return _json(self._message_payload(msg))

    async def _delete(self, msg: FakeMessage) -> None:
        msg.deleted = True
        data: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel.id)}
        if msg.channel.guild is not None:
            data["guild_id"] = str(msg.channel.guild.id)
        if not msg.ephemeral:
            await self._emit(
                "MESSAGE_DELETE",
                data,
                gw.DIRECT_MESSAGES if msg.channel.is_dm else gw.GUILD_MESSAGES,
            )
        self._notify()

    # ---------------------------------------------------------------- channels & messages
    async def _h_get_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        if channel.is_thread:
            return _json(self._thread_payload(channel))
        return _json(channel.to_payload())

    async def _h_edit_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body, _ = await self._read_body(request)
        if not isinstance(body, dict):
            raise DiscordError(400, 50109, "The request body contains invalid JSON.")
        if "name" in body and not 1 <= len(body["name"] or "") <= 100:
            self._reject(
                request,
                [
                    Problem(
                        "channel.bad_name",
                        "name",
                        "Must be between 1 and 100 in length.",
                        "BASE_TYPE_BAD_LENGTH",
                    )
                ],
            )
        if channel.is_thread:
            for key in ("name", "archived", "locked", "auto_archive_duration", "invitable"):
                if key in body:
                    setattr(channel, key, body[key])
            if "archived" in body:
                channel.archive_timestamp = iso(time.time())
            await self._emit("THREAD_UPDATE", self._thread_payload(channel), gw.GUILDS)
            return _json(self._thread_payload(channel))
        for key in ("name", "topic", "position"):
            if key in body:
                setattr(channel, key, body[key])
        await self._emit("CHANNEL_UPDATE", channel.to_payload(), gw.GUILDS)
        return _json(channel.to_payload())

    async def _h_delete_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        payload = self._thread_payload(channel) if channel.is_thread else channel.to_payload()
        if channel.is_dm:
            return _json(payload)
        del self.channels[channel.id]
        if channel.guild is not None:
            channel.guild.channels.pop(channel.id, None)
            channel.guild.threads.pop(channel.id, None)
        if channel.is_thread:
            await self._emit(
                "THREAD_DELETE",
                {
                    "id": str(channel.id),
                    "guild_id": str(channel.guild.id) if channel.guild else None,
                    "parent_id": str(channel.parent_id),
                    "type": channel.type,
                },
                gw.GUILDS,
            )
        else:
            await self._emit("CHANNEL_DELETE", payload, gw.GUILDS)
        return _json(payload)

    async def _h_list_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        q = request.query
        limit = int(q.get("limit", 50))
        if not 1 <= limit <= 100:
            self._reject(
                request,
                [
                    Problem(
                        "messages.limit",
                        "limit",
                        "Int value should be <= 100 and >= 1.",
                        "NUMBER_TYPE_MAX",
                    )
                ],
            )
        msgs = self.messages(channel)
        if "before" in q:
            msgs = [m for m in msgs if m.id < int(q["before"])]
        if "after" in q:
            msgs = [m for m in msgs if m.id > int(q["after"])]
            msgs = msgs[:limit]
        if "around" in q:
            pivot = int(q["around"])
            older = [m for m in msgs if m.id <= pivot][-((limit + 1) // 2) :]
            newer = [m for m in msgs if m.id > pivot][: limit // 2]
            msgs = older + newer
        msgs = msgs[-limit:]
        return _json([self._message_payload(m) for m in reversed(msgs)])

    async def _h_get_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        return _json(self._message_payload(self._channel_message(request, channel)))

    async def _h_post_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body, uploads = await self._read_body(request)
        if channel.type == GUILD_CATEGORY:
            raise DiscordError(400, 50008, "Cannot send messages in a non-text channel")
        if channel.is_dm:
            assert channel.recipient is not None
            if channel.recipient.bot or not channel.recipient.accepts_dms:
                reason = (
                    "recipient is a bot"
                    if channel.recipient.bot
                    else "recipient does not accept DMs"
                )
                self.refused_dms.append((channel.recipient, reason))
                self._notify()
                raise DiscordError(403, 50007, "Cannot send messages to this user")
        if channel.is_thread and channel.archived:
            if channel.locked:
                raise DiscordError(400, 50083, "Thread is archived")
            channel.archived = False
            await self._emit("THREAD_UPDATE", self._thread_payload(channel), gw.GUILDS)
        payload = body or {}
        nonce = payload.get("nonce") if isinstance(payload, dict) else None
        key: tuple[int, int, str] | None = None
        if nonce is not None:
            if not isinstance(nonce, str | int) or len(str(nonce)) > 25:
                self._reject(
                    request,
                    [Problem("message.nonce_too_long", "nonce", "Must be 25 or fewer in length.")],
                )
            if payload.get("enforce_nonce"):
                key = (channel.id, self.bot_user.id, str(nonce))
                seen = self._nonces.get(key)
                if seen is not None and time.monotonic() - seen[0] < self.nonce_window:
                    first = seen[1]
                    if first.deleted:
                        raise DiscordError(404, 10008, "Unknown Message")
                    self.nonce_repeats.append(first)
                    self._notify()
                    data = self._message_payload(first)
                    data["nonce"] = str(nonce)
                    return _json(data)
        msg = await self._new_message(request, channel, payload, uploads, allow_ephemeral=False)
        data = self._message_payload(msg)
        if nonce is not None:
            msg.nonce = str(nonce)
            data["nonce"] = str(nonce)
            if key is not None:
                self._nonces[key] = (time.monotonic(), msg)
        return _json(data)

    async def _h_edit_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        msg = self._channel_message(request, channel)
        if msg.author is not self.bot_user:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        body, uploads = await self._read_body(request)
        await self._edit_message(request, msg, body or {}, uploads)
        return _json(self._message_payload(msg))

    async def _h_delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        await self._delete(self._channel_message(request, channel))
        return _no_content()

    async def _h_typing(self, request: web.Request) -> web.Response:
        self._channel(request)
        return _no_content()

    async def _h_reaction(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        msg = self._channel_message(request, channel)
        emoji = request.match_info["emoji"]
        event = "MESSAGE_REACTION_ADD"
        if request.method == "PUT":
            msg.reactions.append(emoji)
        else:
            event = "MESSAGE_REACTION_REMOVE"
            if emoji in msg.reactions:
                msg.reactions.remove(emoji)
        data: dict[str, Any] = {
            "user_id": str(self.bot_user.id),
            "channel_id": str(channel.id),
            "message_id": str(msg.id),
            "emoji": {"id": None, "name": emoji},
            "burst": False,
            "type": 0,
        }
        if channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
        intent = gw.DIRECT_MESSAGE_REACTIONS if channel.is_dm else gw.GUILD_MESSAGE_REACTIONS
        await self._emit(event, data, intent)
        return _no_content()

    # ---------------------------------------------------------------- threads
    def _new_thread(
        self,
        parent: FakeChannel,
        name: Any,
        kind: int,
        body: dict[str, Any],
        request: web.Request,
        thread_id: int | None = None,
    ) -> FakeChannel:
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            self._reject(
                request,
                [
                    Problem(
                        "thread.bad_name",
                        "name",
                        "Must be between 1 and 100 in length.",
                        "BASE_TYPE_BAD_LENGTH",
                    )
                ],
            )
        duration = body.get("auto_archive_duration") or 1440
        if duration not in (60, 1440, 4320, 10080):
            self._reject(
                request,
                [
                    Problem(
                        "thread.bad_archive_duration",
                        "auto_archive_duration",
                        "Value must be one of {60, 1440, 4320, 10080}.",
                        "BASE_TYPE_CHOICES",
                    )
                ],
            )
        assert parent.guild is not None
        thread = FakeChannel(
            thread_id or self.ids.next(),
            kind,
            name,
            parent.guild,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
            auto_archive_duration=duration,
            invitable=bool(body.get("invitable", True)),
            member_ids=[self.bot_user.id],
        )
        parent.guild.threads[thread.id] = thread
        self.channels[thread.id] = thread
        return thread

    async def _h_thread_from_message(self, request: web.Request) -> web.Response:
        parent = self._channel(request)
        body, _ = await self._read_body(request)
        if parent.type not in (GUILD_TEXT, GUILD_ANNOUNCEMENT):
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        msg = self._channel_message(request, parent)
        if msg.thread is not None:
            self.violate(
                "thread.already_created", f"a thread already exists for message {msg.id}", request
            )
            raise DiscordError(400, 160004, "A thread has already been created for this message")
        body = body or {}
        kind = 10 if parent.type == GUILD_ANNOUNCEMENT else PUBLIC_THREAD
        thread = self._new_thread(parent, body.get("name"), kind, body, request, thread_id=msg.id)
        thread.starter_message_id = msg.id
        msg.thread = thread
        msg.flags |= FLAG_HAS_THREAD
        await self._emit(
            "THREAD_CREATE", self._thread_payload(thread, newly_created=True), gw.GUILDS
        )
        return _json(self._thread_payload(thread), 201)

    async def _h_thread_without_message(self, request: web.Request) -> web.Response:
        parent = self._channel(request)
        body, _ = await self._read_body(request)
        if parent.type not in (GUILD_TEXT, GUILD_ANNOUNCEMENT):
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        body = body or {}
        kind = body.get("type", PRIVATE_THREAD)
        if kind not in (10, PUBLIC_THREAD, PRIVATE_THREAD):
            self._reject(
                request,
                [
                    Problem(
                        "thread.bad_type",
                        "type",
                        "Value must be one of {10, 11, 12}.",
                        "BASE_TYPE_CHOICES",
                    )
                ],
            )
        thread = self._new_thread(parent, body.get("name"), kind, body, request)
        await self._emit(
            "THREAD_CREATE", self._thread_payload(thread, newly_created=True), gw.GUILDS
        )
        if kind != PRIVATE_THREAD:
            system = FakeMessage(
                self.ids.next(), parent, self.bot_user, content=thread.name or "", type=18
            )
            self._store_message(system)
            await self._emit_message("MESSAGE_CREATE", system)
        return _json(self._thread_payload(thread), 201)

    def _thread_user(self, request: web.Request, thread: FakeChannel) -> int:
        raw = request.match_info["user_id"]
        uid = self.bot_user.id if raw == "@me" else int(raw)
        assert thread.guild is not None
        if thread.guild.member(uid) is None:
            raise DiscordError(404, 10007, "Unknown Member")
        return uid

    async def _h_thread_members(self, request: web.Request) -> web.Response:
        thread = self._channel(request)
        if not thread.is_thread:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        return _json([self._thread_member_payload(thread, uid) for uid in thread.member_ids])

    async def _h_thread_member(self, request: web.Request) -> web.Response:
        thread = self._channel(request)
        if not thread.is_thread:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        uid = self._thread_user(request, thread)
        if request.method == "GET":
            if uid not in thread.member_ids:
                raise DiscordError(404, 10007, "Unknown Member")
            return _json(self._thread_member_payload(thread, uid))
        assert thread.guild is not None
        update: dict[str, Any] = {"id": str(thread.id), "guild_id": str(thread.guild.id)}
        if request.method == "PUT":
            if uid in thread.member_ids:
                return _no_content()
            thread.member_ids.append(uid)
            update["added_members"] = [self._thread_member_payload(thread, uid)]
        else:
            if uid not in thread.member_ids:
                return _no_content()
            thread.member_ids.remove(uid)
            update["removed_member_ids"] = [str(uid)]
        update["member_count"] = len(thread.member_ids)
        await self._emit("THREAD_MEMBERS_UPDATE", update, gw.GUILD_MEMBERS)
        return _no_content()

    # ---------------------------------------------------------------- DMs, guilds
    async def _h_create_dm(self, request: web.Request) -> web.Response:
        body, _ = await self._read_body(request)
        raw = (body or {}).get("recipient_id") if isinstance(body, dict) else None
        user = self.users.get(int(str(raw))) if str(raw).isdigit() else None
        if user is None:
            raise DiscordError(404, 10013, "Unknown User")
        channel = self.dm_channel(user, create=True)
        assert channel is not None
        return _json(channel.to_payload())

    async def _h_get_guild(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        return _json({**self._guild_payload(guild), "approximate_member_count": len(guild.members)})

    async def _h_guild_channels(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        return _json([c.to_payload() for c in guild.channels.values()])

    async def _h_guild_member(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        member = guild.member(int(request.match_info["user_id"]))
        if member is None:
            raise DiscordError(404, 10007, "Unknown Member")
        return _json(member.to_payload())

    async def _h_active_threads(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        threads = [t for t in guild.threads.values() if not t.archived]
        members = [
            self._thread_member_payload(t, self.bot_user.id)
            for t in threads
            if self.bot_user.id in t.member_ids
        ]
        return _json({"threads": [t.to_payload() for t in threads], "members": members})

    async def _h_attachment(self, request: web.Request) -> web.Response:
        att = self.attachments_by_id.get(int(request.match_info["attachment_id"]))
        if att is None:
            return web.Response(status=404)
        return web.Response(
            body=att.data,
            content_type=(att.content_type or "application/octet-stream").split(";")[0],
        )

    # ---------------------------------------------------------------- gateway (websocket)
    async def _h_gateway_ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        query = dict(request.query)
        conn = gw.GatewayConnection(
            ws,
            request.path,
            query,
            compress=self.gateway_zlib and query.get("compress") == "zlib-stream",
        )
        self.gateway_connections.append(conn)
        try:
            if query.get("v") != "10":
                await conn.close(gw.CLOSE_INVALID_API_VERSION, "Invalid API version")
                return ws
            if query.get("encoding", "json") != "json":
                await conn.close(gw.CLOSE_DECODE_ERROR, "localdiscord speaks JSON only")
                return ws
            await conn.send(
                {
                    "op": gw.HELLO,
                    "d": {
                        "heartbeat_interval": self.heartbeat_interval_ms,
                        "_trace": ["localdiscord"],
                    },
                    "s": None,
                    "t": None,
                }
            )
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    try:
                        frame = json.loads(msg.data)
                    except json.JSONDecodeError:
                        await conn.close(gw.CLOSE_DECODE_ERROR, "Error while decoding payload")
                        break
                    await self._gateway_op(conn, frame)
                elif msg.type == WSMsgType.BINARY:
                    await conn.close(gw.CLOSE_DECODE_ERROR, "binary frames (etf) are not supported")
                    break
                else:
                    break
        finally:
            conn.close_code = ws.close_code
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                if not conn.closed_by_server and ws.close_code in (1000, 1001):
                    session.ended = True  # a clean close by the bot ends the session
            self._notify()
        return ws

    async def _gateway_op(self, conn: gw.GatewayConnection, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        d = frame.get("d")
        masked = dict(frame)
        if isinstance(d, dict) and "token" in d:
            masked["d"] = {**d, "token": "***"}
        conn.received.append(masked)
        if op == gw.HEARTBEAT:
            conn.heartbeats += 1
            await conn.send({"op": gw.HEARTBEAT_ACK, "d": None, "s": None, "t": None})
        elif op == gw.IDENTIFY:
            await self._identify(conn, d or {})
        elif op == gw.RESUME:
            await self._resume(conn, d or {})
        elif op == gw.REQUEST_GUILD_MEMBERS:
            await self._request_members(conn, d or {})
        elif op in (gw.PRESENCE_UPDATE, gw.VOICE_STATE_UPDATE):
            if conn.session is None:
                await conn.close(gw.CLOSE_NOT_AUTHENTICATED, "Not authenticated")
        else:
            await conn.close(gw.CLOSE_UNKNOWN_OPCODE, f"Unknown opcode {op}")
        self._notify()

    async def _identify(self, conn: gw.GatewayConnection, d: dict[str, Any]) -> None:
        if conn.session is not None:
            await conn.close(gw.CLOSE_ALREADY_AUTHENTICATED, "Already authenticated")
            return
        if d.get("token") != self.token:
            await conn.close(gw.CLOSE_AUTHENTICATION_FAILED, "Authentication failed")
            return
        intents = d.get("intents")
        if not isinstance(intents, int) or intents < 0:
            await conn.close(gw.CLOSE_INVALID_INTENTS, "Invalid intent(s)")
            return
        if intents & gw.PRIVILEGED_INTENTS & ~self.allowed_privileged_intents:
            await conn.close(gw.CLOSE_DISALLOWED_INTENTS, "Disallowed intent(s)")
            return
        shard = d.get("shard", [0, 1])
        if (
            not isinstance(shard, list)
            or len(shard) != 2
            or not all(isinstance(n, int) for n in shard)
            or not 0 <= shard[0] < shard[1]
        ):
            await conn.close(gw.CLOSE_INVALID_SHARD, "Invalid shard")
            return
        session = gw.GatewaySession(
            secrets.token_hex(16), intents, {k: v for k, v in d.items() if k != "token"}
        )
        session.shard = (shard[0], shard[1])
        session.conn = conn
        conn.session = session
        self.sessions[session.id] = session
        ready = {
            "v": 10,
            "user": {
                **self.bot_user.to_payload(),
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            },
            "user_settings": {},
            "guilds": [
                {"id": str(g.id), "unavailable": True}
                for g in self.guilds.values()
                if session.serves(g.id)
            ],
            "shard": list(session.shard),
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "geo_ordered_rtc_regions": [],
            "guild_join_requests": [],
            "_trace": ["localdiscord"],
        }
        await session.dispatch("READY", ready)
        for guild in list(self.guilds.values()):
            if session.serves(guild.id):
                await session.dispatch("GUILD_CREATE", self._guild_create(guild, session))

    async def _resume(self, conn: gw.GatewayConnection, d: dict[str, Any]) -> None:
        session = self.sessions.get(str(d.get("session_id")))
        if session is None or session.ended or d.get("token") != self.token:
            await conn.send({"op": gw.INVALID_SESSION, "d": False, "s": None, "t": None})
            return
        old = session.conn
        if old is not None and old is not conn:
            session.conn = None
            self._spawn(old.close(gw.CLOSE_UNKNOWN_ERROR, "session resumed elsewhere"))
        seq = d.get("seq")
        await session.resume(conn, seq if isinstance(seq, int) else None)

    async def _request_members(self, conn: gw.GatewayConnection, d: dict[str, Any]) -> None:
        session = conn.session
        if session is None:
            await conn.close(gw.CLOSE_NOT_AUTHENTICATED, "Not authenticated")
            return
        guild = self.guilds.get(int(d.get("guild_id", 0)))
        if guild is None:
            return
        user_ids = [int(u) for u in (d.get("user_ids") or [])]
        if not session.has(gw.GUILD_MEMBERS) and not user_ids:
            self.violate(
                "gateway.members_without_intent",
                "REQUEST_GUILD_MEMBERS without user_ids needs the GUILD_MEMBERS intent",
            )
            return
        members = list(guild.members.values())
        if user_ids:
            members = [m for m in members if m.user.id in user_ids]
        else:
            query = (d.get("query") or "").lower()
            members = [m for m in members if m.user.name.lower().startswith(query)]
            if d.get("limit"):
                members = members[: int(d["limit"])]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [m.to_payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [str(u) for u in user_ids if guild.member(u) is None],
        }
        if d.get("nonce") is not None:
            chunk["nonce"] = d["nonce"]
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)
