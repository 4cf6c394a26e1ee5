"""What only tests use: ``FakeDiscord``, the stand-in plus assertions and waits.

Local mode serves :class:`~localdiscord.server.LocalDiscord` itself; tests use this subclass,
which adds the conveniences of a test (wait for a thread or a message, take the expected
violations, fail at exit on unexpected ones, cut the gateway to test a RESUME) without
making them part of what the product serves.
"""

from __future__ import annotations

from collections.abc import Callable

from . import gateway as gw
from .models import (
    FakeAttachment,
    FakeChannel,
    FakeDiscordUsageError,
    FakeMessage,
    FakeUser,
    Violation,
)
from .server import LocalDiscord


class FakeDiscord(LocalDiscord):
    """The stand-in for tests: ``async with FakeDiscord() as fake`` fails at exit if the bot
    did something Discord would refuse and the test did not take it with
    :meth:`take_violations`."""

    async def __aexit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        await self.close()
        if exc_type is None:
            self.assert_no_violations()

    def last_message(self, channel: FakeChannel) -> FakeMessage:
        msgs = self.messages(channel)
        if not msgs:
            raise AssertionError(f"no message in #{channel.name}")
        return msgs[-1]

    def thread(self, name: str) -> FakeChannel:
        found = [t for t in self.threads() if t.name == name]
        if len(found) != 1:
            raise AssertionError(
                f"{len(found)} threads named {name!r}; threads: {[t.name for t in self.threads()]}"
            )
        return found[0]

    async def wait_for_thread(
        self, name: str | None = None, *, parent: FakeChannel | None = None, timeout: float = 5.0
    ) -> FakeChannel:
        """The thread (named ``name``, under ``parent``) once the bot has created it."""

        def matches() -> list[FakeChannel]:
            return [t for t in self.threads(parent) if name is None or t.name == name]

        await self.wait_until(lambda: len(matches()) == 1, timeout, f"a thread named {name!r}")
        return matches()[0]

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Messages the bot delivered to ``user`` in DMs."""
        channel = self.dm_channel(user)
        return self.messages(channel) if channel else []

    def files(self, channel: FakeChannel | None = None) -> list[FakeAttachment]:
        """Every attachment currently shown (optionally in one channel), oldest first."""
        msgs = (
            self.messages(channel, include_ephemeral=True)
            if channel
            else [m for m in self.messages_by_id.values() if not m.deleted]
        )
        return [a for m in msgs for a in m.attachments]

    def take_violations(self, *codes: str) -> list[Violation]:
        """Remove and return the violations with these codes (all when none given)."""
        taken = [v for v in self.violations if not codes or v.code in codes]
        self.violations = [v for v in self.violations if v not in taken]
        return taken

    def assert_no_violations(self) -> None:
        if self.violations:
            lines = "\n  ".join(str(v) for v in self.violations)
            raise AssertionError(f"the bot did things Discord would not accept:\n  {lines}")

    async def wait_for_message(
        self,
        channel: FakeChannel,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        timeout: float = 5.0,
        include_existing: bool = False,
    ) -> FakeMessage:
        """The first message (new since the call unless ``include_existing``) matching."""
        start = 0 if include_existing else len(channel.messages)
        found: list[FakeMessage] = []

        def check() -> bool:
            for m in channel.messages[start:]:
                if (
                    not m.ephemeral
                    and not m.deleted
                    and not m.loading
                    and (predicate is None or predicate(m))
                ):
                    found.append(m)
                    return True
            return False

        await self.wait_until(check, timeout, f"a message in #{channel.name}")
        return found[0]

    async def force_disconnect(self, mode: str = "reconnect") -> gw.GatewaySession:
        """Cut the bot's gateway connection: ``"reconnect"`` sends op 7 RECONNECT,
        ``"close"`` closes the socket with code 4000. Either way the bot should RESUME."""
        session = self._current_session()
        conn = session.conn
        if conn is None:
            raise FakeDiscordUsageError("the bot is already disconnected")
        if mode == "reconnect":
            await conn.send({"op": gw.RECONNECT, "d": None, "s": None, "t": None})
        elif mode == "close":
            self._spawn(conn.close(gw.CLOSE_UNKNOWN_ERROR, "localdiscord: forced disconnect"))
        else:
            raise FakeDiscordUsageError(f"unknown disconnect mode {mode!r}")
        return session

    async def wait_resumed(
        self, session: gw.GatewaySession, resumes: int, timeout: float = 5.0
    ) -> None:
        await self.wait_until(
            lambda: session.resumes >= resumes and session.conn is not None and session.conn.open,
            timeout,
            "the bot to RESUME its gateway session",
        )

    async def force_reconnect(
        self, mode: str = "reconnect", timeout: float = 5.0
    ) -> gw.GatewaySession:
        """``force_disconnect`` then wait until the bot has RESUMEd the same session."""
        session = self._current_session()
        before = session.resumes
        await self.force_disconnect(mode)
        await self.wait_resumed(session, before + 1, timeout)
        return session
