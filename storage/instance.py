"""The instance lock: one running bot per database file, and nothing restored under it.

The bot holds an exclusive `flock` on `<database>.lock` while it runs (the kernel drops it
when the process dies, however it dies). It tells the bot at start-up that no other
process is carrying out effects (so claims left by a dead one can be released at once), and
tells `python -m storage restore` that the bot is running. Without `fcntl` (not POSIX) the
lock is a no-op.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType

from storage.errors import DatabaseInUseError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


class InstanceLock:
    def __init__(self, db_path: str | Path, *, what: str = "Fairy Post") -> None:
        self.database = Path(db_path)
        self.path = lock_path(self.database)
        self.what = what
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Takes the lock or raises `DatabaseInUseError` naming the process holding it."""
        if self._fd is not None or fcntl is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 200).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise DatabaseInUseError(
                f"{self.database} is in use by {holder}; stop it first"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{self.what} (pid {os.getpid()})\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> InstanceLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
