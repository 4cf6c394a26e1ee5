"""`python -m bot` (or `fairypost`): start Fairy Post (local mode when no token is
configured), or explain in one message why it cannot start. `python -m bot invite` prints
the link that adds the bot to a server."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bot.config import ConfigError, Settings, load_settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot", description="Fairy Post, a Discord bot for chess variants."
    )
    sub = parser.add_subparsers(dest="command")
    sub.add_parser(
        "run",
        help="start the bot on Discord; unlike a bare `python -m bot`, never local mode "
        "(a service without a token stops with a message instead)",
    )
    invite = sub.add_parser(
        "invite", help="print the link that adds the bot to a server, with its permissions"
    )
    invite.add_argument(
        "--client-id", type=int, help="the application id (default: from the token)"
    )
    invite.add_argument("--guild", type=int, help="preselect this server in the invite page")
    return parser


def _invite(settings: Settings, client_id: int | None, guild: int | None) -> int:
    from bot.invite import application_id_from_token, invite_url, permissions

    app_id = client_id or application_id_from_token(settings.require_token())
    print(invite_url(app_id, guild))
    print(
        f"(scopes bot and applications.commands; permissions {permissions().value}: "
        "View Channels, Send Messages, Embed Links, Attach Files, Read Message History, "
        "Create Public Threads, Send Messages in Threads)",
        file=sys.stderr,
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = load_settings()
        if args.command == "invite":
            return _invite(settings, args.client_id, args.guild)
        if args.command == "run":
            settings.require_token()
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
