"""Structured logging: one JSON object per line on stderr (journald keeps it as it is).

python-json-logger turns each record into JSON, so a message with spaces, quotes or newlines
(a traceback is the "exc_info" field) stays one line a machine can parse:
`{"time": "2026-11-24T16:41:34.123456+00:00", "level": "INFO", "logger": "fairypost.client",
"message": "connected as Fairy Post#1234 to 3 guilds", "guilds": 3}`. Values passed with
`extra={...}` become fields of their own.
"""

from __future__ import annotations

import logging

from pythonjsonlogger.json import JsonFormatter


def json_formatter() -> logging.Formatter:
    return JsonFormatter(
        "{levelname}{name}{message}",
        style="{",
        rename_fields={"levelname": "level", "name": "logger"},
        timestamp="time",  # ISO 8601 in UTC, with microseconds
        json_ensure_ascii=False,
    )


class _NoVoiceNotice(logging.Filter):
    """discord.py warns that voice libraries are missing; Fairy Post never uses voice."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "voice will NOT be supported" not in record.getMessage()


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(json_formatter())
    handler.addFilter(_NoVoiceNotice())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("discord").setLevel(max(logging.INFO, logging.getLevelName(level)))
