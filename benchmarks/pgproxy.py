"""A counting, delaying proxy in front of PostgreSQL: round trips and transactions, measured.

The bot's cost on PostgreSQL is mostly waiting for the server: every round trip is one wait.
This proxy sits between a client and the server and reads the protocol as it passes:

- a **round trip** is one `ReadyForQuery` the server sends (every request of the extended or
  the simple protocol ends with `Sync` or a `Query`, answered by exactly one `ReadyForQuery`);
- a **transaction** ends with a `ReadyForQuery` back in the idle state after statements ran:
  an explicit `BEGIN ... COMMIT` counts once, a statement outside a transaction once, and a
  request that only prepared a statement (no `Execute`) not at all.

With `delay` (seconds) each burst the client sends is held that long before it reaches the
server, as a network between the bot and the server would hold it: `delay` is the latency each
round trip adds. Bursts keep their order. The client must not ask for TLS (`sslmode=disable`
in the URL), or the proxy could not read what passes.

Used by the load benchmark (`bench_load.py`: round trips per move, latency per round trip) and
by the storage tests that count a move's round trips.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_SSL_REQUEST = 80877103


@dataclass
class Counts:
    round_trips: int = 0
    transactions: int = 0

    def copy(self) -> Counts:
        return Counts(self.round_trips, self.transactions)

    def __sub__(self, other: Counts) -> Counts:
        return Counts(self.round_trips - other.round_trips, self.transactions - other.transactions)


@dataclass
class _Link:
    """One client connection's state as the proxy reads it."""

    executed: bool = False
    status: bytes = b"I"
    client_buffer: bytearray = field(default_factory=bytearray)
    server_buffer: bytearray = field(default_factory=bytearray)
    started: bool = False
    server_raw_bytes: int = 0
    """Bytes the server sends outside messages (the one-byte answer to an SSL request)."""


class PgProxy:
    """Listens on 127.0.0.1 (a free port) and forwards to `host:port`."""

    def __init__(self, host: str, port: int, *, delay: float = 0.0) -> None:
        self.upstream = (host, port)
        self.delay = delay
        self.counts = Counts()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @classmethod
    def for_url(cls, url: str, *, delay: float = 0.0) -> PgProxy:
        parts = urlsplit(url)
        return cls(parts.hostname or "127.0.0.1", parts.port or 5432, delay=delay)

    def url(self, url: str) -> str:
        """`url` pointed at the proxy, without TLS."""
        parts = urlsplit(url)
        user = parts.username or ""
        auth = f"{user}@" if user else ""
        if parts.password:
            auth = f"{user}:{parts.password}@"
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "sslmode"]
        query.append(("sslmode", "disable"))
        return urlunsplit(
            parts._replace(netloc=f"{auth}127.0.0.1:{self.port}", query=urlencode(query))
        )

    async def start(self) -> PgProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._server is not None:
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def __aenter__(self) -> PgProxy:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def snapshot(self) -> Counts:
        return self.counts.copy()

    # --- forwarding ----------------------------------------------------------------------

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            server_r, server_w = await asyncio.open_connection(*self.upstream)
        except OSError:
            client_w.close()
            self._tasks.discard(task)
            return
        link = _Link()
        up = asyncio.create_task(self._client_to_server(link, client_r, server_w))
        down = asyncio.create_task(self._server_to_client(link, server_r, client_w))
        try:
            await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in (up, down):
                t.cancel()
            for w in (client_w, server_w):
                w.close()
            self._tasks.discard(task)

    async def _client_to_server(
        self, link: _Link, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()

        sender = asyncio.create_task(deliver())
        try:
            while data := await reader.read(65536):
                self._read_client(link, data)
                if self.delay:
                    queue.put_nowait((loop.time() + self.delay, data))
                else:
                    writer.write(data)
                    await writer.drain()
            while not queue.empty():
                await asyncio.sleep(self.delay)
        finally:
            sender.cancel()

    async def _server_to_client(
        self, link: _Link, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        while data := await reader.read(65536):
            self._read_server(link, data)
            writer.write(data)
            await writer.drain()

    # --- reading the protocol ------------------------------------------------------------

    def _read_client(self, link: _Link, data: bytes) -> None:
        buf = link.client_buffer
        buf += data
        while True:
            if not link.started:
                if len(buf) < 8:
                    return
                (length,) = struct.unpack("!i", buf[0:4])
                if len(buf) < length:
                    return
                (code,) = struct.unpack("!i", buf[4:8])
                if code == _SSL_REQUEST:
                    link.server_raw_bytes += 1
                else:
                    link.started = True
                del buf[:length]
                continue
            if len(buf) < 5:
                return
            kind = buf[0:1]
            (length,) = struct.unpack("!i", buf[1:5])
            if len(buf) < 1 + length:
                return
            if kind in (b"E", b"Q"):
                link.executed = True
            del buf[: 1 + length]

    def _read_server(self, link: _Link, data: bytes) -> None:
        buf = link.server_buffer
        buf += data
        while True:
            if link.server_raw_bytes:
                if not buf:
                    return
                link.server_raw_bytes -= 1
                del buf[:1]
                continue
            if len(buf) < 5:
                return
            kind = buf[0:1]
            (length,) = struct.unpack("!i", buf[1:5])
            if len(buf) < 1 + length:
                return
            if kind == b"Z":
                status = bytes(buf[5:6])
                self.counts.round_trips += 1
                if status == b"I" and (link.executed or link.status != b"I"):
                    self.counts.transactions += 1
                link.status = status
                link.executed = False
            del buf[: 1 + length]
