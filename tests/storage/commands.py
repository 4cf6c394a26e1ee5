"""`python -m storage` as an operator types it: a child process that sees none of this
machine's Fairy Post or Discord settings, only what the test gives it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def storage_command(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "FAIRYPOST"))}
    return subprocess.run(
        [sys.executable, "-m", "storage", *args],
        cwd=cwd,
        env={**base, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=600,  # a ceiling for a loaded machine, not a speed check
        check=False,
    )
