"""Settings from the environment and an optional `.env` file (the environment wins)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DB = "data/fairypost.sqlite3"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

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
class Settings:
    token: str
    db_path: Path
    dev_guild: int | None
    log_level: str


def read_dotenv(path: Path) -> dict[str, str]:
    """Parse KEY=VALUE lines; blank lines and `#` comments are skipped, quotes stripped."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.strip().removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key] = value
    return values


def load_settings(
    environ: Mapping[str, str] | None = None, dotenv: Path | None = Path(".env")
) -> Settings:
    """Merge `.env` and the environment into validated settings."""
    merged: dict[str, str] = {}
    if dotenv is not None:
        merged.update(read_dotenv(dotenv))
    merged.update({k: v for k, v in (os.environ if environ is None else environ).items() if v})
    token = merged.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise ConfigError(MISSING_TOKEN_MESSAGE)
    guild_text = merged.get("FAIRYPOST_DEV_GUILD", "").strip()
    dev_guild: int | None = None
    if guild_text:
        if not guild_text.isdigit():
            raise ConfigError(
                f"FAIRYPOST_DEV_GUILD must be a numeric guild id, not {guild_text!r}."
            )
        dev_guild = int(guild_text)
    level = merged.get("FAIRYPOST_LOG_LEVEL", "INFO").strip().upper() or "INFO"
    if level not in LOG_LEVELS:
        raise ConfigError(
            f"FAIRYPOST_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {level!r}."
        )
    db_path = Path(merged.get("FAIRYPOST_DB", DEFAULT_DB).strip() or DEFAULT_DB)
    return Settings(token=token, db_path=db_path, dev_guild=dev_guild, log_level=level)
