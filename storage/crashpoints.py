"""Named crash points: where the crash-injection tests kill the process with SIGKILL.

Product code marks each boundary between an event's commit and its effects with
`crashpoint("name")`. The call is inert (one comparison) unless the environment names that
point before the process starts:

- `FAIRYPOST_CRASH_AT=effect.sent:game.post` kills the process (SIGKILL, no clean-up, no
  flush) the first time execution reaches that point;
- `FAIRYPOST_CRASH_ONCE=/path/marker` (optional) makes it fire at most once across
  processes: the point fires only if it can create the marker file, and writes its name
  there. A restarted process with the same environment then runs through.

`tests/reliability/` lists every point and drives a real bot through each of them.
"""

from __future__ import annotations

import os
import signal

CRASH_AT_ENV = "FAIRYPOST_CRASH_AT"
CRASH_ONCE_ENV = "FAIRYPOST_CRASH_ONCE"

_armed = os.environ.get(CRASH_AT_ENV) or None
_marker = os.environ.get(CRASH_ONCE_ENV) or None


def crashpoint(name: str) -> None:
    """Kill this process here if the environment asked for it (see the module docstring)."""
    if _armed is None or name != _armed:
        return
    if _marker is not None:
        try:
            fd = os.open(_marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return
        os.write(fd, name.encode())
        os.fsync(fd)
        os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
