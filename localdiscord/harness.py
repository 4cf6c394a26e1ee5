"""Run a discord.py client against the stand-in, in the test's own event loop.

discord.py 2.7.1 has no public setting for its addresses. The hooks used, all checked by
:func:`check_redirect_hooks` (and by ``tests/e2e/test_redirect_hooks.py``):

* ``discord.http.Route.BASE`` — class attribute every ``Route`` (REST *and* interaction
  webhooks, which reuse ``Route``) prefixes to its path when constructed;
* ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` — the URL ``Client.connect`` opens
  (``Client`` never calls ``GET /gateway/bot``; only ``AutoShardedClient`` does, and the
  stand-in answers that too). Reconnects then use READY's ``resume_gateway_url``;
* ``client._connection.guild_ready_timeout`` — lowered so READY is not delayed 2 s;
* ``client.http.connector`` — given a resolver that refuses every DNS lookup, so a request
  escaping the redirect fails at once (and is recorded) instead of reaching discord.com;
* ``client.http.http_trace`` (the public ``http_trace`` argument of ``Client``) — an aiohttp
  trace that numbers the bot's REST requests and tells the stand-in when the bot has read
  each answer, so a simulated user never clicks a button before the bot has seen the
  answer that created it (and registered its view). Without it, the order depended on the
  event loop's scheduling, which differs between Python versions.

Compression: ``DiscordWebSocket.from_client`` always asks for ``compress=zlib-stream`` (or
``zstd-stream`` when zstandard is importable) and ``Client.connect`` offers no switch. The
stand-in ignores it and sends uncompressed JSON text frames, which discord.py accepts
(``received_message`` only decompresses binary frames).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
from collections.abc import Iterator
from typing import Any, Generic, TypeVar

import aiohttp
import aiohttp.abc
import discord
import discord.gateway
import discord.http
import yarl

from .server import REQUEST_SERIAL_HEADER, LocalDiscord

PINNED_DISCORD_VERSION = "2.7.1"
REAL_API_BASE = "https://discord.com/api/v10"
REAL_GATEWAY = "wss://gateway.discord.gg/"


class RedirectHooksChanged(RuntimeError):
    """discord.py no longer exposes what the harness patches: the e2e tests cannot run."""


def check_redirect_hooks(client: discord.Client | None = None) -> None:
    """Raise RedirectHooksChanged, saying what moved, if a redirect hook is gone."""
    problems: list[str] = []
    if discord.__version__ != PINNED_DISCORD_VERSION:
        problems.append(
            f"discord.py is {discord.__version__}, the hooks were checked against "
            f"{PINNED_DISCORD_VERSION} (pinned in pyproject.toml)"
        )
    route = getattr(discord.http, "Route", None)
    if route is None or not isinstance(getattr(route, "BASE", None), str):
        problems.append(
            "discord.http.Route.BASE (str) is gone: the REST base URL cannot be redirected"
        )
    ws_cls = getattr(discord.gateway, "DiscordWebSocket", None)
    if ws_cls is None or not isinstance(getattr(ws_cls, "DEFAULT_GATEWAY", None), yarl.URL):
        problems.append(
            "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY (yarl.URL) is gone: "
            "the gateway address cannot be redirected"
        )
    if client is not None:
        state = getattr(client, "_connection", None)
        if not isinstance(getattr(state, "guild_ready_timeout", None), int | float):
            problems.append("client._connection.guild_ready_timeout is gone")
        if not hasattr(getattr(client, "http", None), "connector"):
            problems.append("client.http.connector is gone")
        if not hasattr(getattr(client, "http", None), "http_trace"):
            problems.append("client.http.http_trace is gone")
    if problems:
        raise RedirectHooksChanged(
            "the e2e harness cannot point discord.py at the stand-in:\n  - "
            + "\n  - ".join(problems)
            + "\nRead discord/http.py, gateway.py, client.py and state.py of the installed "
            "version and update localdiscord/harness.py."
        )


_active: dict[str, Any] = {"count": 0, "base": None, "saved": None}


@contextlib.contextmanager
def redirect_discord(fake: LocalDiscord) -> Iterator[None]:
    """Point every discord.py client of this process at ``fake`` (re-entrant per fake)."""
    check_redirect_hooks()
    ws_cls = discord.gateway.DiscordWebSocket
    if _active["count"] and _active["base"] != fake.api_base:
        raise RuntimeError("discord.py is already redirected to another stand-in")
    if not _active["count"]:
        _active["saved"] = (discord.http.Route.BASE, ws_cls.DEFAULT_GATEWAY)
        _active["base"] = fake.api_base
        discord.http.Route.BASE = fake.api_base
        ws_cls.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    _active["count"] += 1
    try:
        probe = discord.http.Route("GET", "/gateway/bot").url
        if probe != f"{fake.api_base}/gateway/bot":
            raise RedirectHooksChanged(f"Route.BASE was patched but a Route still builds {probe}")
        yield
    finally:
        _active["count"] -= 1
        if not _active["count"]:
            discord.http.Route.BASE, ws_cls.DEFAULT_GATEWAY = _active["saved"]
            _active["base"] = None


class _RefuseDNS(aiohttp.abc.AbstractResolver):
    """The stand-in is on 127.0.0.1: any name lookup means a request escaped the redirect."""

    def __init__(self, fake: LocalDiscord) -> None:
        self.fake = fake

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[Any]:
        self.fake.violate(
            "harness.escaped_request",
            f"discord.py tried to reach {host}:{port}; a redirect hook did not apply",
        )
        raise OSError(
            f"localdiscord: refusing to resolve {host!r}: requests must go to the stand-in"
        )

    async def close(self) -> None:
        return None


_request_serials = itertools.count(1)


class _DeliveryTrace(aiohttp.TraceConfig):
    """Numbers the bot's REST requests (a header the stand-in records when it answers) and
    reports when the bot has read each answer, or when the request failed."""

    def __init__(self, fake: LocalDiscord) -> None:
        super().__init__()
        self.fake = fake
        self.on_request_start.append(self._started)
        self.on_response_chunk_received.append(self._read)  # sent once read() has the body
        self.on_request_exception.append(self._read)

    async def _started(
        self, _: aiohttp.ClientSession, ctx: Any, params: aiohttp.TraceRequestStartParams
    ) -> None:
        if str(params.url).startswith(self.fake.api_base):
            ctx.localdiscord_serial = next(_request_serials)
            params.headers[REQUEST_SERIAL_HEADER] = str(ctx.localdiscord_serial)

    async def _read(self, _: aiohttp.ClientSession, ctx: Any, __: object) -> None:
        serial = getattr(ctx, "localdiscord_serial", None)
        if serial is not None:
            self.fake.note_request_read(serial)


class _ErrorCapture(logging.Handler):
    def __init__(self, fake: LocalDiscord) -> None:
        super().__init__(logging.ERROR)
        self.fake = fake
        self.records: list[logging.LogRecord] = []
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("localdiscord"):
            return
        self.records.append(record)
        text = self.format(record)
        self.fake.bot_errors.append(text)


ClientT = TypeVar("ClientT", bound=discord.Client)


class BotRunner(Generic[ClientT]):
    """Starts ``client`` against ``fake`` and stops it; an async context manager.

    With ``strict`` (default) leaving the context fails if the bot logged an ERROR
    (unhandled exceptions in commands and events are logged so) that the test did not
    consume with :meth:`take_errors`.
    """

    def __init__(
        self,
        fake: LocalDiscord,
        client: ClientT,
        *,
        ready_timeout: float = 10.0,
        guild_ready_timeout: float = 0.2,
        strict: bool = True,
    ) -> None:
        self.fake = fake
        self.client: ClientT = client
        self.ready_timeout = ready_timeout
        self.guild_ready_timeout = guild_ready_timeout
        self.strict = strict
        self._task: asyncio.Task[None] | None = None
        self._redirect: contextlib.AbstractContextManager[None] | None = None
        self._capture = _ErrorCapture(fake)
        self._first_conn = 0

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The task running ``client.start`` (done when the client stopped), once started."""
        return self._task

    @property
    def errors(self) -> list[logging.LogRecord]:
        return list(self._capture.records)

    def take_errors(self) -> list[logging.LogRecord]:
        """Remove and return the ERROR log records captured so far."""
        taken = list(self._capture.records)
        self._capture.records.clear()
        for record in taken:
            text = self._capture.format(record)
            if text in self.fake.bot_errors:
                self.fake.bot_errors.remove(text)
        return taken

    async def start(self) -> BotRunner[ClientT]:
        client = self.client
        check_redirect_hooks(client)
        self._redirect = redirect_discord(self.fake)
        self._redirect.__enter__()
        try:
            state = client._connection
            state.guild_ready_timeout = min(state.guild_ready_timeout, self.guild_ready_timeout)
            trace = client.http.http_trace
            if trace is None:
                client.http.http_trace = _DeliveryTrace(self.fake)
            elif isinstance(trace, _DeliveryTrace):
                trace.fake = self.fake  # the same client started again
            else:
                raise RuntimeError(
                    "the harness needs the client's http_trace for itself; start the bot "
                    "without http_trace in tests"
                )
            if client.http.connector is discord.utils.MISSING:
                client.http.connector = aiohttp.TCPConnector(
                    limit=0, resolver=_RefuseDNS(self.fake)
                )
            logging.getLogger().addHandler(self._capture)
            self._first_conn = len(self.fake.gateway_connections)
            self._task = asyncio.create_task(client.start(self.fake.token), name="localdiscord-bot")
            await self._wait_ready()
        except BaseException:
            await self.stop()
            raise
        return self

    async def _wait_ready(self) -> None:
        assert self._task is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.ready_timeout
        while True:
            if self._task.done():
                exc = self._task.exception() if not self._task.cancelled() else None
                raise AssertionError(f"the bot stopped before it was ready: {exc!r}") from exc
            if self._ready():
                return
            if loop.time() > deadline:
                ops = [f.get("op") for c in self.fake.gateway_connections for f in c.received]
                raise AssertionError(
                    f"the bot was not ready after {self.ready_timeout}s"
                    f" (gateway ops received: {ops}){self.fake._context()}"
                )
            await asyncio.sleep(0.01)

    def _ready(self) -> bool:
        if not self.client.is_ready():
            return False
        for guild in self.fake.guilds.values():
            cached = self.client.get_guild(guild.id)
            if cached is None or cached.unavailable:
                return False
        return True

    async def stop(self) -> None:
        try:
            if self._task is not None:
                if not self.client.is_closed():
                    await self.client.close()
                try:
                    await asyncio.wait_for(self._task, 5)
                except (TimeoutError, asyncio.CancelledError):
                    self._task.cancel()
                except Exception:
                    logging.getLogger("localdiscord").exception("the bot task failed")
                self._task = None
                # Let the stand-in see the close, so the session is ended before we return.
                mine = self.fake.gateway_connections[self._first_conn :]
                with contextlib.suppress(AssertionError):
                    await self.fake.wait_until(
                        lambda: all(c.close_code is not None for c in mine), 2, "the gateway close"
                    )
                # discord.py closes with 4000 (its reader races its own close(1000)), which
                # leaves the session resumable for Discord; this process will not resume it.
                for conn in mine:
                    if conn.session is not None:
                        conn.session.ended = True
        finally:
            logging.getLogger().removeHandler(self._capture)
            if self._redirect is not None:
                self._redirect.__exit__(None, None, None)
                self._redirect = None

    async def __aenter__(self) -> BotRunner[ClientT]:
        return await self.start()

    async def __aexit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        await self.stop()
        if exc_type is None and self.strict and self._capture.records:
            lines = "\n".join(self._capture.format(r) + _exc_text(r) for r in self._capture.records)
            raise AssertionError(f"the bot logged errors:\n{lines}")


def _exc_text(record: logging.LogRecord) -> str:
    if record.exc_info:
        return "\n" + logging.Formatter().formatException(record.exc_info)
    return ""


def run_bot(fake: LocalDiscord, client: ClientT, **kwargs: Any) -> BotRunner[ClientT]:
    """``async with run_bot(fake, MyBot()) as runner:`` — the bot is READY inside."""
    return BotRunner(fake, client, **kwargs)
