"""`python -m bot`: start Fairy Post (local mode when no token is configured), or explain in
one message why it cannot start."""

from __future__ import annotations

import sys

from bot.config import ConfigError, load_settings


def main() -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    if settings.token is None:
        from bot.local import run_local

        return run_local(settings)
    from bot.app import run

    return run(settings)


if __name__ == "__main__":
    sys.exit(main())
