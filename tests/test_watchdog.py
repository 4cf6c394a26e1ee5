"""The test run's watchdog: a hung test is named with what it awaits, and the run ends."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

HUNG = """
import asyncio


async def wait_for_a_wake_up_that_never_comes(event: asyncio.Event) -> None:
    await event.wait()


async def test_hangs() -> None:
    event = asyncio.Event()
    await asyncio.create_task(wait_for_a_wake_up_that_never_comes(event), name="the-waiter")


def test_never_reached() -> None:
    pass
"""


def test_a_hung_test_is_named_with_its_tasks_and_the_run_ends(tmp_path: Path) -> None:
    (tmp_path / "test_hung.py").write_text(textwrap.dedent(HUNG))
    root = Path(__file__).resolve().parent.parent
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.watchdog",  # as tests/conftest.py loads it for the suite
            "--rootdir",
            str(root),
            "-c",
            str(root / "pyproject.toml"),
            "-o",
            "faulthandler_timeout=4",
            str(tmp_path / "test_hung.py"),
        ],
        check=False,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = run.stdout + run.stderr
    assert run.returncode != 0, report
    assert "watchdog: " in report and "::test_hangs has run" in report, report
    assert "task the-waiter" in report, report
    assert "in wait_for_a_wake_up_that_never_comes" in report, report
    assert "Timeout (0:00:04)!" in report, report  # every thread's stack, then the exit
    assert "test_never_reached" not in report and "1 passed" not in report, report
