"""Structured logging: one line per event, `key=value` pairs a machine can grep."""

from __future__ import annotations

import logging
import time

_STANDARD = set(vars(logging.makeLogRecord({})))


class KeyValueFormatter(logging.Formatter):
    """`2026-11-23T10:00:00Z level=INFO logger=fairypost.play msg="..." game=12`."""

    def format(self, record: logging.LogRecord) -> str:
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.created))
        message = record.getMessage().replace('"', "'")
        parts = [when, f"level={record.levelname}", f"logger={record.name}", f'msg="{message}"']
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                parts.append(f"{key}={value}")
        line = " ".join(parts)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class _NoVoiceNotice(logging.Filter):
    """discord.py warns that voice libraries are missing; Fairy Post never uses voice."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "voice will NOT be supported" not in record.getMessage()


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(KeyValueFormatter())
    handler.addFilter(_NoVoiceNotice())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("discord").setLevel(max(logging.INFO, logging.getLevelName(level)))
