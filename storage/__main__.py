"""Operator commands: `python -m storage backup PATH`, `restore BACKUP|--latest`, `check`,
`migrate`, `effects` and `copy SOURCE TARGET`.

The database is `--db PATH_OR_URL`, else FAIRYPOST_DB from the environment or the environment
file (read by the bot's one configuration loader, `bot.config`), else `data/fairypost.sqlite3`:
a SQLite file (or `sqlite:///path`) or a `postgresql://` URL.
Exit codes: 0 fine, 1 the check found problems, 2 the command could not run (a damaged
database included: reported in a sentence, never as a traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO, cast

from storage.backup import (
    backup_database,
    backup_folder,
    backup_hint,
    list_backups,
    restore_file,
)
from storage.check import check_database
from storage.copy import copy_database
from storage.db import parse_target
from storage.engine import Engine, Replayer
from storage.errors import (
    DatabaseDamagedError,
    EngineUnavailableError,
    InvalidValueError,
    StorageError,
)
from storage.health import file_health
from storage.models import EffectStatus
from storage.store import Storage

EngineLoader = Callable[[], Engine]


def load_rules_engine() -> Engine:
    """The real replayer, imported only when a command needs it."""
    try:
        rules = importlib.import_module("rules")
    except Exception as exc:
        raise EngineUnavailableError(
            f"the rules engine could not be imported ({type(exc).__name__}: {exc}); "
            "`check` needs it to replay games"
        ) from exc
    replay = getattr(rules, "replay_to_text", None)
    version = getattr(rules, "ENGINE_VERSION", None)
    if not callable(replay) or not isinstance(version, str):
        raise EngineUnavailableError(
            "the rules engine does not provide rules.replay_to_text and rules.ENGINE_VERSION "
            "yet, so games cannot be replayed; `check` needs both"
        )
    return Engine(version=version, replay=cast(Replayer, replay))


def default_db(environ: Mapping[str, str] | None = None, dotenv: Path | None = None) -> str:
    """The database the bot itself would open, by the same loader and rules."""
    from bot.config import load_settings  # standard library and python-dotenv only

    return load_settings(environ, dotenv).database


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db",
        type=str,
        default=argparse.SUPPRESS,  # so a subcommand's absent --db keeps the global one
        help="the database: a SQLite file or a postgresql:// URL (default: FAIRYPOST_DB "
        "from the environment or .env, else data/fairypost.sqlite3)",
    )
    parser = argparse.ArgumentParser(
        prog="python -m storage",
        description="Fairy Post database maintenance.",
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", required=True)
    backup = sub.add_parser(
        "backup", parents=[common], help="copy the database safely, even while the bot runs"
    )
    backup.add_argument("path", type=Path, help="where to write the copy")
    check = sub.add_parser(
        "check", parents=[common], help="integrity check, then replay every active game"
    )
    check.add_argument("--all", action="store_true", help="replay finished games too")
    sub.add_parser("migrate", parents=[common], help="bring the schema up to date")
    restore = sub.add_parser(
        "restore",
        parents=[common],
        help="put a backup in place of the database (the bot must be stopped); the file it "
        "replaces is kept aside",
    )
    which = restore.add_mutually_exclusive_group(required=True)
    which.add_argument("backup", nargs="?", type=Path, help="the backup file to restore")
    which.add_argument(
        "--latest", action="store_true", help="the newest automatic backup that is sound"
    )
    restore.add_argument(
        "--backups",
        type=Path,
        default=None,
        help="the automatic backups' folder (default: FAIRYPOST_BACKUP_DIR, else backups/ "
        "beside the database)",
    )
    effects = sub.add_parser(
        "effects",
        parents=[common],
        help="the consequences of events waiting or failed (posts, ratings); --retry ID "
        "puts a failed one back in line",
    )
    effects.add_argument("--retry", type=int, metavar="ID", help="retry this failed effect")
    copy = sub.add_parser(
        "copy",
        help="copy a whole database into an empty one (SQLite to PostgreSQL or back), "
        "verified by counts and by replaying every active game; stop the bots first",
    )
    copy.add_argument("source", help="the database to copy (file or postgresql:// URL)")
    copy.add_argument("target", help="an empty database to copy into (file or URL)")
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    engine_loader: EngineLoader = load_rules_engine,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    stdout = out or sys.stdout
    stderr = err or sys.stderr
    args = _parser().parse_args(argv)
    from bot.config import ConfigError

    try:
        db: str = getattr(args, "db", None) or default_db()
    except ConfigError as exc:
        print(f"error: {exc}", file=stderr)
        return 2
    try:
        if args.command == "restore":
            return _restore(db, args.backup, bool(args.latest), args.backups, stdout)
        if args.command == "effects":
            return asyncio.run(_effects(db, args.retry, stdout))
        if args.command == "backup":
            if parse_target(db).dialect != "sqlite":
                raise InvalidValueError(
                    "a PostgreSQL database is backed up with pg_dump (see docs/deploy.md)"
                )
            asyncio.run(backup_database(Path(db), args.path))
            print(f"backed up {db} to {args.path}", file=stdout)
            return 0
        if args.command == "migrate":
            return asyncio.run(_migrate(db, stdout))
        if args.command == "copy":
            return asyncio.run(_copy(args.source, args.target, engine_loader, stdout))
        return asyncio.run(_check(db, engine_loader, bool(args.all), stdout))
    except DatabaseDamagedError as exc:
        print(f"error: {exc}", file=stderr)
        print(restore_hint(db), file=stderr)
        return 2
    except StorageError as exc:
        print(f"error: {exc}", file=stderr)
        return 2
    except sqlite3.DatabaseError as exc:  # damage SQLite noticed midway
        print(f"error: the database {db} cannot be read: {exc}", file=stderr)
        print(restore_hint(db), file=stderr)
        return 2


def restore_hint(db: str) -> str:
    return backup_hint(db, backup_folder(db, _configured_backups()))


def _configured_backups() -> Path | None:
    from bot.config import ConfigError, load_settings

    try:
        return load_settings().backup_dir
    except ConfigError:
        return None


def _restore(db: str, backup: Path | None, latest: bool, backups: Path | None, out: TextIO) -> int:
    target = parse_target(db)
    if target.path is None:
        raise InvalidValueError("a PostgreSQL database is restored with pg_restore")
    if latest:
        folder = backup_folder(db, backups or _configured_backups())
        if folder is None:  # only a PostgreSQL database has none, refused above
            raise InvalidValueError("there is no backup folder for this database")
        candidates = list_backups(folder)
        if not candidates:
            raise InvalidValueError(f"there is no automatic backup in {folder}")
        for candidate in reversed(candidates):
            if file_health(candidate, full=True).ok:
                backup = candidate
                break
            print(f"skipping {candidate}: it fails its integrity check", file=out)
        else:
            raise DatabaseDamagedError(f"every backup in {folder} fails its integrity check")
    if backup is None:
        raise InvalidValueError("name the backup to restore, or --latest for the newest")
    restored = restore_file(backup, target.path, int(time.time()))
    for moved in restored.kept_aside:
        print(f"kept the replaced file as {moved}", file=out)
    print(f"restored {restored.database} from {restored.backup}; start the bot again", file=out)
    return 0


async def _effects(db: str, retry: int | None, out: TextIO) -> int:
    async with await Storage.open(db, create=False) as storage:
        if retry is not None:
            effect = await storage.effects.requeue(retry, int(time.time()))
            print(f"effect {effect.id} ({effect.kind}) is pending again", file=out)
            return 0
        counts = await storage.effects.counts()
        print(", ".join(f"{n} {status.value}" for status, n in counts.items()), file=out)
        for status in (EffectStatus.FAILED, EffectStatus.PENDING):
            for e in await storage.effects.find(status=status, limit=50):
                game = f"game {e.game_id}" if e.game_id is not None else "no game"
                error = f": {e.last_error}" if e.last_error else ""
                print(
                    f"{status.value} #{e.id} {e.kind} ({game}, {e.attempts} attempts){error}",
                    file=out,
                )
    return 0


async def _migrate(db: str, out: TextIO) -> int:
    async with await Storage.open(db, create=False) as storage:
        print(f"{storage.target} is at schema version {await storage.schema_version()}", file=out)
    return 0


async def _copy(source: str, target: str, engine_loader: EngineLoader, out: TextIO) -> int:
    engine = engine_loader()
    report = await copy_database(
        source, target, engine=engine, say=lambda line: print(line, file=out, flush=True)
    )
    for line in report.lines():
        print(line, file=out)
    return 0 if report.ok else 1


async def _check(db: str, engine_loader: EngineLoader, all_games: bool, out: TextIO) -> int:
    engine = engine_loader()
    path = parse_target(db).path
    if path is not None:
        health = await asyncio.to_thread(file_health, path, full=True)
        if not health.ok:
            print(f"integrity check: {'; '.join(health.problems)}", file=out)
            raise DatabaseDamagedError(f"{path} is damaged: {health.summary}")
    async with await Storage.open(db, create=False, migrate=False, engine=engine) as storage:
        report = await check_database(storage, engine, all_games=all_games)
    for line in report.lines():
        print(line, file=out)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
