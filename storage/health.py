"""Is a SQLite database file sound? The bot's start-up check and the operator commands.

`file_health(path)` runs SQLite's `PRAGMA quick_check` (`full=True`: the full
`integrity_check`) on its own connection, before anything else opens the file, and turns
whatever SQLite says, including "file is not a database", into a `Health` value: a damaged
file is reported, never raised as a raw `sqlite3.DatabaseError`. quick_check verifies every
page, the b-tree structure, record formats and NOT NULL/CHECK constraints, but not that
indexes match their tables; the full check does, and on the 10,000-game benchmark database
it costs little more (both read every page; figures in the README's operator section,
measured by `make bench`), so the bot's start-up check, the backups and `storage check` all
run the full one.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from storage.errors import DatabaseUnavailableError

MAX_PROBLEMS = 20


@dataclass(frozen=True, slots=True)
class Health:
    path: Path
    problems: tuple[str, ...]
    """Empty when SQLite found nothing wrong."""
    full: bool
    """The full integrity_check ran (else quick_check)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def summary(self) -> str:
        if self.ok:
            return "ok"
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        return f"{self.problems[0]}{more}"


def file_health(path: str | Path, *, full: bool = False, busy_timeout_ms: int = 5_000) -> Health:
    """Checks the database file at `path` (blocking). Raises `DatabaseUnavailableError` only
    when the file cannot be examined at all (missing, locked, unreadable); damage is
    reported in the result."""
    path = Path(path)
    if not path.is_file():
        raise DatabaseUnavailableError(f"there is no database at {path}")
    pragma = "integrity_check" if full else "quick_check"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True)
    except sqlite3.Error as exc:
        raise DatabaseUnavailableError(f"cannot open the database {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        rows = conn.execute(f"PRAGMA {pragma}({MAX_PROBLEMS})").fetchall()
    except sqlite3.OperationalError as exc:
        if _unavailable(exc):
            raise DatabaseUnavailableError(f"cannot read the database {path}: {exc}") from exc
        return Health(path, (str(exc),), full)
    except sqlite3.DatabaseError as exc:  # "file is not a database", "malformed"
        return Health(path, (str(exc),), full)
    finally:
        conn.close()
    verdict = tuple(str(row[0]) for row in rows)
    return Health(path, () if verdict == ("ok",) else verdict, full)


def _unavailable(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return any(word in text for word in ("locked", "unable to open", "readonly", "busy"))
