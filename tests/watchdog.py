"""A watchdog for the test run: a test that hangs is named and shown, and the run ends.

CI gives the whole run 90 minutes and shows a job's log only when the job ends, so a test
stuck on a lost wake-up or a child process would take them all and print nothing. pytest's
own `faulthandler_timeout` (pyproject) dumps every thread's stack and exits the process after
LIMIT seconds of one test; but an asyncio test's thread is only the loop waiting in select,
so shortly before that this names the test and prints its asyncio tasks' stacks (where each
coroutine is waiting), from the main thread through a signal, as the loop allows.

A pytest plugin: tests/conftest.py loads it for every test package.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from collections.abc import Generator
from types import FrameType

import pytest

AHEAD = 15.0  # seconds before pytest's faulthandler exit that the tasks are shown (at most)


class Watchdog:
    """Arms a timer per test; on expiry asks the main thread to describe what it awaits."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.out = os.dup(sys.stderr.fileno())  # past pytest's capture, as its faulthandler
        self.nodeid = ""
        self.started = 0.0
        self.timer: threading.Timer | None = None
        signal.signal(signal.SIGUSR1, self._describe)

    def arm(self, nodeid: str) -> None:
        self.nodeid, self.started = nodeid, time.monotonic()
        self.timer = threading.Timer(self.limit - min(AHEAD, self.limit / 2), self._poke)
        self.timer.daemon = True
        self.timer.start()

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def close(self) -> None:
        self.disarm()
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        os.close(self.out)

    def _poke(self) -> None:
        os.kill(os.getpid(), signal.SIGUSR1)  # wakes the loop's select; the handler runs

    def _describe(self, signum: int, frame: FrameType | None) -> None:
        lines = [
            "",
            f"watchdog: {self.nodeid} has run {time.monotonic() - self.started:.0f} s"
            f" (the limit is {self.limit:.0f} s; every thread's stack follows at the limit)",
        ]
        try:
            tasks = asyncio.all_tasks()  # the running loop's, if this thread runs one
        except RuntimeError:
            tasks = set()
            lines.append("watchdog: no asyncio loop is running in the main thread")
        for task in sorted(tasks, key=lambda t: t.get_name()):
            lines.append(f"watchdog: task {task.get_name()} {task.get_coro()!r}")
            for stack_frame in task.get_stack():
                code = stack_frame.f_code
                lines.append(f"    {code.co_filename}:{stack_frame.f_lineno} in {code.co_name}")
        os.write(self.out, ("\n".join(lines) + "\n").encode())


def pytest_configure(config: pytest.Config) -> None:
    limit = float(config.getini("faulthandler_timeout") or 0.0)
    if limit > 0:
        config.stash[_watchdog] = Watchdog(limit)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _watchdog in config.stash:
        config.stash[_watchdog].close()
        del config.stash[_watchdog]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    watchdog = item.config.stash.get(_watchdog, None)
    if watchdog is not None:
        watchdog.arm(item.nodeid)
    try:
        return (yield)
    finally:
        if watchdog is not None:
            watchdog.disarm()


_watchdog = pytest.StashKey[Watchdog]()
