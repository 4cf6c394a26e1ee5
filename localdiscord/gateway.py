"""Gateway sessions and connections (v10, JSON encoding).

A *connection* is one websocket; a *session* is what IDENTIFY creates and RESUME re-attaches
to. Every dispatch gets the session's next sequence number and is kept in a buffer so that a
RESUME replays whatever the bot missed while it was away, as Discord does.
"""

from __future__ import annotations

import asyncio
import json
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

# Opcodes
DISPATCH = 0
HEARTBEAT = 1
IDENTIFY = 2
PRESENCE_UPDATE = 3
VOICE_STATE_UPDATE = 4
RESUME = 6
RECONNECT = 7
REQUEST_GUILD_MEMBERS = 8
INVALID_SESSION = 9
HELLO = 10
HEARTBEAT_ACK = 11

# Intents
GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1
GUILD_PRESENCES = 1 << 8
GUILD_MESSAGES = 1 << 9
GUILD_MESSAGE_REACTIONS = 1 << 10
DIRECT_MESSAGES = 1 << 12
DIRECT_MESSAGE_REACTIONS = 1 << 13
MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT

# Close codes
CLOSE_UNKNOWN_ERROR = 4000
CLOSE_UNKNOWN_OPCODE = 4001
CLOSE_DECODE_ERROR = 4002
CLOSE_NOT_AUTHENTICATED = 4003
CLOSE_AUTHENTICATION_FAILED = 4004
CLOSE_ALREADY_AUTHENTICATED = 4005
CLOSE_INVALID_SHARD = 4010
CLOSE_INVALID_API_VERSION = 4012
CLOSE_INVALID_INTENTS = 4013
CLOSE_DISALLOWED_INTENTS = 4014


@dataclass(eq=False)
class GatewayConnection:
    """One websocket from the bot; ``received`` keeps every frame it sent (tokens masked)."""

    ws: web.WebSocketResponse
    path: str
    query: dict[str, str]
    compress: bool = False
    opened_at: float = field(default_factory=time.monotonic)
    received: list[dict[str, Any]] = field(default_factory=list)
    sent_ops: list[int] = field(default_factory=list)
    heartbeats: int = 0
    close_code: int | None = None
    closed_by_server: bool = False
    session: GatewaySession | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _zlib: Any = None

    @property
    def open(self) -> bool:
        return not self.ws.closed

    async def send(self, frame: dict[str, Any]) -> bool:
        text = json.dumps(frame, separators=(",", ":"))
        async with self._lock:
            if self.ws.closed:
                return False
            try:
                if self.compress:
                    if self._zlib is None:
                        self._zlib = zlib.compressobj()
                    data = self._zlib.compress(text.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(data)
                else:
                    await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return False
        self.sent_ops.append(int(frame.get("op", -1)))
        return True

    async def close(self, code: int, reason: str) -> None:
        self.closed_by_server = True
        if not self.ws.closed:
            await self.ws.close(code=code, message=reason.encode())


@dataclass(eq=False)
class GatewaySession:
    id: str
    intents: int
    identify: dict[str, Any]
    seq: int = 0
    conn: GatewayConnection | None = None
    buffer: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=5000))
    ended: bool = False
    resumes: int = 0
    replayed: list[int] = field(default_factory=list)  # sequence numbers replayed on RESUME
    events: list[str] = field(default_factory=list)  # every event name dispatched, in order
    shard: tuple[int, int] = (0, 1)  # (shard id, shard count) from IDENTIFY
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def live(self) -> bool:
        return not self.ended

    def serves(self, guild_id: int | None) -> bool:
        """Discord's routing: a guild's events go to shard (guild_id >> 22) % count; DMs go
        to shard 0."""
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % count == shard_id

    def has(self, intent: int) -> bool:
        return bool(self.intents & intent)

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        async with self._lock:
            self.seq += 1
            frame = {"op": DISPATCH, "t": event, "s": self.seq, "d": data}
            self.buffer.append(frame)
            self.events.append(event)
            conn = self.conn
            sent = conn is not None and await conn.send(frame)
            if conn is not None and not sent and self.conn is conn:
                # The socket went away; the frame stays buffered for a RESUME.
                self.conn = None

    async def resume(self, conn: GatewayConnection, last_seq: int | None) -> None:
        async with self._lock:
            self.conn = conn
            conn.session = self
            self.resumes += 1
            for frame in list(self.buffer):
                if last_seq is None or frame["s"] > last_seq:
                    self.replayed.append(frame["s"])
                    await conn.send(frame)
            self.seq += 1
            self.events.append("RESUMED")
            await conn.send(
                {"op": DISPATCH, "t": "RESUMED", "s": self.seq, "d": {"_trace": ["localdiscord"]}}
            )
