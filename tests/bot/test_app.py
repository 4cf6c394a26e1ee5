"""Start-up: an unreachable Discord is retried with back-off, within a bound, and every
outcome is one log line and an exit code (no sleeps: the waits are recorded, not waited)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from types import TracebackType
from typing import Any, cast

import discord
import discord.http
import pytest

from bot.app import Backoff, serve
from bot.client import FairyPost
from bot.config import load_settings
from bot.logs import json_formatter


def settings(tmp_path: Path, retry: int = 300) -> Any:
    return load_settings(
        {
            "DISCORD_TOKEN": "MTIz.token",
            "FAIRYPOST_DB": str(tmp_path / "fp.sqlite3"),
            "FAIRYPOST_STARTUP_RETRY": str(retry),
        },
        tmp_path / "none",
    )


class Recorder:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.waits.append(delay)


class StubBot:
    """Fails to reach Discord `failures` times (one bot per attempt, as in `serve`)."""

    attempts = 0

    def __init__(self, failures: int, exc: BaseException | None = None) -> None:
        self.failures = failures
        self.exc = exc or ConnectionRefusedError(111, "Connect call failed")
        self.user: object | None = None
        self.closed = False

    async def start(self, token: str) -> None:
        type(self).attempts += 1
        if type(self).attempts <= self.failures:
            raise self.exc

    async def close(self) -> None:
        self.closed = True

    async def __aenter__(self) -> StubBot:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


def test_backoff_doubles_up_to_a_minute_within_the_bound() -> None:
    assert list(Backoff(give_up_after=300).delays()) == [2, 4, 8, 16, 32, 60, 60, 60]
    assert list(Backoff(give_up_after=0).delays()) == []
    assert sum(Backoff(give_up_after=1000).delays()) <= 1000


async def test_retries_until_discord_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    StubBot.attempts = 0
    sleep = Recorder()
    made: list[StubBot] = []

    def make() -> FairyPost:
        made.append(StubBot(failures=3))
        return cast(FairyPost, made[-1])

    with caplog.at_level(logging.INFO, "fairypost"):
        code = await serve(settings(tmp_path), make_bot=make, sleep=sleep)
    assert code == 0
    assert sleep.waits == [2, 4, 8]
    assert len(made) == 4 and all(bot.closed for bot in made)
    retries = [r for r in caplog.records if "retrying in" in r.getMessage()]
    assert [r.__dict__["attempt"] for r in retries] == [1, 2, 3]


async def test_gives_up_after_the_bound(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    StubBot.attempts = 0
    sleep = Recorder()
    with caplog.at_level(logging.INFO, "fairypost"):
        code = await serve(
            settings(tmp_path, retry=30),
            make_bot=lambda: cast(FairyPost, StubBot(failures=99)),
            sleep=sleep,
        )
    assert code == 1
    assert sleep.waits == [2, 4, 8, 16]
    assert "giving up" in caplog.records[-1].getMessage()
    assert caplog.records[-1].levelno == logging.ERROR


async def test_no_retry_when_the_bound_is_zero(tmp_path: Path) -> None:
    StubBot.attempts = 0
    sleep = Recorder()
    code = await serve(
        settings(tmp_path, retry=0),
        make_bot=lambda: cast(FairyPost, StubBot(failures=1)),
        sleep=sleep,
    )
    assert (code, sleep.waits) == (1, [])


async def test_a_refused_token_is_not_retried(tmp_path: Path) -> None:
    StubBot.attempts = 0
    sleep = Recorder()
    refused = discord.LoginFailure("Improper token has been passed.")
    code = await serve(
        settings(tmp_path),
        make_bot=lambda: cast(FairyPost, StubBot(failures=1, exc=refused)),
        sleep=sleep,
    )
    assert (code, sleep.waits) == (2, [])


async def test_the_real_client_retries_a_closed_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """discord.py's own errors for a refused connection are the ones retried."""
    monkeypatch.setattr(discord.http.Route, "BASE", "http://127.0.0.1:9/api/v10")  # discard port
    sleep = Recorder()
    with caplog.at_level(logging.INFO, "fairypost"):
        code = await serve(settings(tmp_path, retry=7), sleep=sleep)
    assert code == 1
    assert sleep.waits == [2, 4]
    assert "Traceback" not in caplog.text
    assert not (tmp_path / "fp.sqlite3").exists()  # nothing was opened before logging in


def test_log_lines_are_json_one_per_line() -> None:
    record = logging.LogRecord(
        "fairypost.play", logging.WARNING, __file__, 1, 'game %d: "%s"', (12, "a b\nc"), None
    )
    record.game = 12
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    line = json_formatter().format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert data["level"] == "WARNING" and data["logger"] == "fairypost.play"
    assert data["message"] == 'game 12: "a b\nc"'
    assert data["game"] == 12
    assert "ValueError: boom" in data["exc_info"]
    assert data["time"].endswith("+00:00")
