"""Named crash points: where the crash-injection tests kill the process with SIGKILL.

Product code marks each boundary between an event's commit and its effects with
`crashpoint("name")`. The call is inert (one comparison) unless the process was started with
`FAIRYPOST_CRASH_FILE=/path/armed`. Then, at every crash point, if that file exists and names
this point, the file is consumed (renamed to `/path/armed.fired`) and the process kills
itself with SIGKILL on the spot: no clean-up, no flush, exactly as a power cut or the OOM
killer would stop it. The test arms a point by writing its name to the file while the bot
runs, so one bot process serves a whole scenario and dies exactly where asked.

Points: `event.committed:<move|resign|abort|draw|takeback|timeout|notice>` (the event's
transaction committed, nothing of its effects done), and for every effect kind
`effect.claimed:<kind>`, `effect.sent:<kind>` (a post accepted by Discord, its id not yet
remembered), `effect.done:<kind>` (the handler's work done, the effect not marked) and
`effect.completed:<kind>`. `tests/e2e/test_crash_effects.py` drives a real bot through them.
"""

from __future__ import annotations

import contextlib
import os
import signal

CRASH_FILE_ENV = "FAIRYPOST_CRASH_FILE"

_armed_file = os.environ.get(CRASH_FILE_ENV) or None


def crashpoint(name: str) -> None:
    """Kill this process here if the test armed this point (see the module docstring)."""
    if _armed_file is None:
        return
    try:
        with open(_armed_file, encoding="utf-8") as f:
            armed = f.read().strip()
    except FileNotFoundError:
        return
    if armed != name:
        return
    fired = f"{_armed_file}.fired"
    try:
        os.replace(_armed_file, fired)  # consumed: a restarted process runs through
    except FileNotFoundError:
        return
    with contextlib.suppress(OSError):
        fd = os.open(os.path.dirname(fired) or ".", os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
