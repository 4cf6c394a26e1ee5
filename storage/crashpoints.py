"""Named crash points: where the crash-injection tests kill the process with SIGKILL.

Product code marks each boundary between an event's commit and its effects with
`crashpoint("name")`. The call is inert (one comparison) unless the process was started with
one of these, and then it kills itself with SIGKILL on the spot: no clean-up, no flush,
exactly as a power cut or the OOM killer would stop it.

- `FAIRYPOST_CRASH_FILE=/path/armed`, armed at run time: at every crash point, if that file
  exists and names this point, it is consumed (renamed `/path/armed.fired`) and the process
  dies. The test arms a point by writing its name to the file while the bot runs, so one bot
  process serves a whole scenario and dies exactly where asked.
- `FAIRYPOST_CRASH_AT=name`, armed from the start: the process dies the first time it reaches
  that point; with `FAIRYPOST_CRASH_ONCE=/path/marker` only if it can create the marker (which
  then holds the point's name), so at most one process of several dies there.

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
CRASH_AT_ENV = "FAIRYPOST_CRASH_AT"
CRASH_ONCE_ENV = "FAIRYPOST_CRASH_ONCE"

_armed_file = os.environ.get(CRASH_FILE_ENV) or None
_armed_at = os.environ.get(CRASH_AT_ENV) or None
_once_marker = os.environ.get(CRASH_ONCE_ENV) or None
_active = _armed_file is not None or _armed_at is not None


def crashpoint(name: str) -> None:
    """Kill this process here if the test armed this point (see the module docstring)."""
    if not _active:
        return
    if name == _armed_at:
        _die_once(name)
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


def _die_once(name: str) -> None:
    if _once_marker is not None:
        try:
            fd = os.open(_once_marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return
        os.write(fd, name.encode())
        os.fsync(fd)
        os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
