"""The one configuration loader, for the bot and every command line (`python -m storage`, ...).

Settings come from an environment file, then the process environment, which wins. The file is
`$FAIRYPOST_ENV_FILE` when that is set (the systemd unit points it at /etc/fairypost), else
`.env` in the current folder when there is one. It is read by python-dotenv with the usual
rules: `#` comments on their own line or after a value (`KEY=value # note`), single or double
quotes around a value (`KEY="a value # not a comment"`), an optional `export `, and `${VAR}`
expansion. Only the standard library and python-dotenv are imported here, so any package's
command line can use it without pulling in discord.py.

To add a setting: a field on `Settings` and one line in `load_settings` using the small
readers below, so every setting is refused with a message that names it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dotenv import dotenv_values

DEFAULT_DB = "data/fairypost.sqlite3"
DEFAULT_ENV_FILE = ".env"
ENV_FILE_VARIABLE = "FAIRYPOST_ENV_FILE"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
DEFAULT_LOCAL_PORT = 8765
DEFAULT_STARTUP_RETRY = 300  # seconds of waiting for an unreachable Discord before exit 1
DEFAULT_BACKUP_HOURS = 24
DEFAULT_BACKUP_KEEP = 7
DEFAULT_ENGINE_WORKERS = 1  # search processes: one leaves a core to the bot on two cores
DEFAULT_ENGINE_PAUSE_MS = 2000

MISSING_TOKEN_MESSAGE = """\
Fairy Post needs a Discord bot token to start, and none was found.

The token is the secret password of your bot account. Get it from the Discord
Developer Portal (https://discord.com/developers/applications): open your
application, go to "Bot" and press "Reset Token".

Put it in a file named .env next to the Makefile (see .env.example):

    DISCORD_TOKEN=your-token-here

or export DISCORD_TOKEN in the environment, then run `make run` again."""


class ConfigError(Exception):
    """A setting is missing or malformed; the message is meant for the operator."""


@dataclass(frozen=True, slots=True)
class Shards:
    """FAIRYPOST_SHARDS: the gateway shards this process runs, out of `count`."""

    ids: tuple[int, ...]
    count: int

    @property
    def all(self) -> bool:
        """True when this one process runs every shard."""
        return self.ids == tuple(range(self.count))

    def __str__(self) -> str:
        first, last = self.ids[0], self.ids[-1]
        return f"{first}/{self.count}" if first == last else f"{first}-{last}/{self.count}"


def parse_shards(text: str) -> Shards:
    """`0-3/8` (shards 0 to 3 of 8) or `5/8` (shard 5 of 8)."""
    problem = f"FAIRYPOST_SHARDS must look like 0-3/8 (shards 0 to 3 of 8) or 5/8, not {text!r}."
    span, sep, count_text = text.replace(" ", "").partition("/")
    first_text, _, last_text = span.partition("-")
    last_text = last_text or first_text
    numbers = (first_text, last_text, count_text)
    if not sep or not all(t.isascii() and t.isdigit() for t in numbers):
        raise ConfigError(problem)
    first, last, count = int(first_text), int(last_text), int(count_text)
    if not 0 <= first <= last < count or count > 100_000:
        raise ConfigError(f"{problem[:-1]}: shard numbers run from 0 to the count minus one.")
    return Shards(tuple(range(first, last + 1)), count)


@dataclass(frozen=True, slots=True)
class Settings:
    """Validated settings. `token` is None when none is configured: the commands that need
    one (the bot, `invite`) say so themselves, the storage commands do not need it."""

    token: str | None
    database: str
    """FAIRYPOST_DB: a SQLite file (or sqlite:///path), or a postgresql:// URL."""
    dev_guild: int | None
    log_level: str
    shards: Shards | None
    """FAIRYPOST_SHARDS; None runs every shard Discord recommends in this one process."""
    startup_retry: int  # seconds spent retrying an unreachable Discord at start-up; 0: none
    env_file: Path | None  # the file that was read, for messages; None when there was none
    local_port: int = DEFAULT_LOCAL_PORT  # local mode's page (no token: bot/local.py)
    backup_dir: Path | None = None
    """FAIRYPOST_BACKUP_DIR; None: `backups/` beside a SQLite database."""
    backup_hours: int = DEFAULT_BACKUP_HOURS
    """FAIRYPOST_BACKUP_HOURS: hours between automatic backups; 0 turns them off."""
    backup_keep: int = DEFAULT_BACKUP_KEEP
    """FAIRYPOST_BACKUP_KEEP: how many automatic backups to keep (the newest)."""
    engine_workers: int = DEFAULT_ENGINE_WORKERS
    """FAIRYPOST_ENGINE_WORKERS: processes searching for the engine's moves at once."""
    engine_pause_ms: int = DEFAULT_ENGINE_PAUSE_MS
    """FAIRYPOST_ENGINE_PAUSE_MS: the least time before the engine answers a move."""
    fairy_stockfish: str | None = None
    """FAIRYPOST_FAIRY_STOCKFISH: a Fairy-Stockfish executable that plays the strongest level
    and reviews games in the variants it can play; None: Fairy Post's engine everywhere."""

    def require_token(self) -> str:
        if self.token is None:
            raise ConfigError(MISSING_TOKEN_MESSAGE)
        return self.token


def env_file_path(environ: Mapping[str, str]) -> tuple[Path, bool]:
    """The environment file to read, and whether the operator named it explicitly."""
    named = environ.get(ENV_FILE_VARIABLE, "").strip()
    if named:
        return Path(named), True
    return Path(DEFAULT_ENV_FILE), False


def read_dotenv(path: Path) -> dict[str, str]:
    """The file's KEY=VALUE pairs by python-dotenv's rules (a key without `=` is left out)."""
    try:
        values = dotenv_values(path, encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}).") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}.") from exc
    return {key: value for key, value in values.items() if value is not None}


def read_environment(
    environ: Mapping[str, str] | None = None, dotenv: Path | None = None
) -> tuple[dict[str, str], Path | None]:
    """The merged raw settings (file first, then non-empty environment values on top) and
    the file that was read. `dotenv` overrides the file lookup (tests)."""
    env = os.environ if environ is None else environ
    path, named = (dotenv, True) if dotenv is not None else env_file_path(env)
    merged: dict[str, str] = {}
    read: Path | None = None
    if path.is_file():
        merged.update(read_dotenv(path))
        read = path
    elif named and dotenv is None:
        raise ConfigError(f"{ENV_FILE_VARIABLE} names {path}, which is not a readable file.")
    merged.update({key: value for key, value in env.items() if value.strip()})
    return merged, read


def _text(values: Mapping[str, str], key: str) -> str | None:
    return values.get(key, "").strip() or None


def _int(values: Mapping[str, str], key: str, what: str) -> int | None:
    text = _text(values, key)
    if text is None:
        return None
    if not (text.isascii() and text.isdigit()):
        raise ConfigError(f"{key} must be {what}, not {text!r}.")
    return int(text)


def _port(values: Mapping[str, str], key: str, default: int) -> int:
    port = _int(values, key, "a port number from 1 to 65535")
    if port is None:
        return default
    if not 1 <= port <= 65535:
        raise ConfigError(f"{key} must be a port number from 1 to 65535, not {port}.")
    return port


def _seconds(values: Mapping[str, str], key: str, default: int) -> int:
    found = _int(values, key, "a number of seconds (0 or more)")
    return default if found is None else found


def _bounded(values: Mapping[str, str], key: str, default: int, low: int, high: int) -> int:
    what = f"a whole number from {low} to {high}"
    number = _int(values, key, what)
    if number is None:
        return default
    if not low <= number <= high:
        raise ConfigError(f"{key} must be {what}, not {number}.")
    return number


def _executable(values: Mapping[str, str], key: str) -> str | None:
    """A program's path (or a name on PATH), refused when it cannot be run."""
    text = _text(values, key)
    if text is None:
        return None
    found = shutil.which(text)
    if found is None:
        raise ConfigError(
            f"{key} names {text}, which is not an executable file here (Debian's package "
            "fairy-stockfish installs /usr/games/fairy-stockfish); remove it to play with "
            "Fairy Post's own engine only."
        )
    return found


def _choice(values: Mapping[str, str], key: str, choices: tuple[str, ...], default: str) -> str:
    text = (_text(values, key) or default).upper()
    if text not in choices:
        raise ConfigError(f"{key} must be one of {', '.join(choices)}, not {text!r}.")
    return text


def load_settings(environ: Mapping[str, str] | None = None, dotenv: Path | None = None) -> Settings:
    """Read, merge and validate every setting; a bad one raises `ConfigError` naming it."""
    values, read = read_environment(environ, dotenv)
    database = _text(values, "FAIRYPOST_DB") or DEFAULT_DB
    shards_text = _text(values, "FAIRYPOST_SHARDS")
    shards = None if shards_text is None else parse_shards(shards_text)
    if shards is not None and not shards.all and not database.startswith(POSTGRES_SCHEMES):
        raise ConfigError(
            f"FAIRYPOST_SHARDS={shards} runs only part of the shards, so other processes must "
            "share this database, and a SQLite file cannot be shared between processes. Set "
            "FAIRYPOST_DB to a PostgreSQL database (postgresql://user@host/fairypost), or "
            "remove FAIRYPOST_SHARDS to run every shard in this one process."
        )
    return Settings(
        token=_text(values, "DISCORD_TOKEN"),
        database=database,
        dev_guild=_int(values, "FAIRYPOST_DEV_GUILD", "a numeric guild id"),
        log_level=_choice(values, "FAIRYPOST_LOG_LEVEL", LOG_LEVELS, "INFO"),
        shards=shards,
        startup_retry=_seconds(values, "FAIRYPOST_STARTUP_RETRY", DEFAULT_STARTUP_RETRY),
        env_file=read,
        local_port=_port(values, "FAIRYPOST_LOCAL_PORT", DEFAULT_LOCAL_PORT),
        backup_dir=Path(text) if (text := _text(values, "FAIRYPOST_BACKUP_DIR")) else None,
        backup_hours=_bounded(values, "FAIRYPOST_BACKUP_HOURS", DEFAULT_BACKUP_HOURS, 0, 24 * 365),
        backup_keep=_bounded(values, "FAIRYPOST_BACKUP_KEEP", DEFAULT_BACKUP_KEEP, 1, 1000),
        engine_workers=_bounded(values, "FAIRYPOST_ENGINE_WORKERS", DEFAULT_ENGINE_WORKERS, 1, 64),
        engine_pause_ms=_bounded(
            values, "FAIRYPOST_ENGINE_PAUSE_MS", DEFAULT_ENGINE_PAUSE_MS, 0, 60_000
        ),
        fairy_stockfish=_executable(values, "FAIRYPOST_FAIRY_STOCKFISH"),
    )
