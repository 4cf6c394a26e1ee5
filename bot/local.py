"""Local mode: `make run` without a token shows the real bot in a browser.

Fairy Post itself runs unchanged, connected to `localdiscord`'s stand-in of Discord on
127.0.0.1, which also serves a web page that looks and behaves like a Discord channel (see
localdiscord/README.md). The guild, its #lobby and the members alice, bob and carol are
made on the first start; the world is kept in `data/local-discord.sqlite3` and the bot's own
data in `data/local.sqlite3`, so local play never mixes with a real deployment and a
restarted local mode goes on where it stopped. Delete both files to start afresh.

alice owns the guild, so everything a server's admin does can be tried (/config, /mod,
/tournament create); the page gives any member the roles Admins (Manage Server) or
Moderators (Manage Threads).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
from pathlib import Path

from bot.app import engine_config
from bot.client import FairyPost
from bot.config import Settings
from bot.logs import setup_logging
from localdiscord import BotRunner, LocalDiscord
from localdiscord.models import FakeGuild
from localdiscord.persist import WorldFile, WorldFileError
from localdiscord.web import Page

log = logging.getLogger("fairypost.local")

LOCAL_DB = Path("data/local.sqlite3")
LOCAL_WORLD = Path("data/local-discord.sqlite3")
GUILD_NAME = "Fairy Post (local)"
LOBBY = "lobby"
PEOPLE = ("alice", "bob", "carol")
OWNER = "alice"
MANAGE_GUILD = 1 << 5
MANAGE_THREADS = 1 << 34
ROLES = {"Admins": MANAGE_GUILD, "Moderators": MANAGE_THREADS}
"""Roles the page can give members: server settings and tournaments; moderation."""
LOBBY_TOPIC = (
    "Start here: `/challenge` someone (choose Fairy Post as the opponent to play the bot at "
    "once), or `/help` for every command. Play every side: switch who you are at “You are”."
)
READY_TIMEOUT = 120.0  # a first start on a slow machine builds the database and the commands


def build_world(fake: LocalDiscord) -> FakeGuild:
    """The first start's guild: #lobby for challenges, three players, alice its owner."""
    owner = fake.add_user(OWNER)
    guild = fake.add_guild(GUILD_NAME, owner=owner)
    fake.add_channel(guild, LOBBY, topic=LOBBY_TOPIC)
    for name in PEOPLE:
        if name != OWNER:
            fake.add_user(name, guild=guild)
    for role, permissions in ROLES.items():
        fake.add_role(guild, role, permissions)
    return guild


def bring_up_to_date(fake: LocalDiscord, guild: FakeGuild) -> None:
    """A world saved by an earlier version: its owner was nobody on the page (so nobody could
    try /config or /tournament create); the first member now owns it, the roles exist, and
    the lobby's topic says where to start."""
    if guild.owner_id == fake.owner.id:
        people = [m.user for m in guild.members.values() if not m.user.bot]
        first = next((u for u in people if u is not fake.owner), None)
        if first is not None:
            guild.owner_id = first.id
    names = {r.name for r in guild.roles.values()}
    for role, permissions in ROLES.items():
        if role not in names:
            fake.add_role(guild, role, permissions)
    for channel in guild.channels.values():
        if channel.name == LOBBY:
            channel.topic = LOBBY_TOPIC


def banner(port: int) -> str:
    return (
        f"Fairy Post local mode: open http://127.0.0.1:{port} to play "
        f"(no DISCORD_TOKEN, so the real bot runs on a local stand-in of Discord; "
        f"data in {LOCAL_DB}; Ctrl-C stops it)"
    )


async def serve_local(settings: Settings, *, db_path: Path = LOCAL_DB) -> int:
    """Run the stand-in, its page and the bot until SIGINT or SIGTERM."""
    world = WorldFile(db_path.parent / LOCAL_WORLD.name)
    fake = LocalDiscord(keep_requests=False)
    try:
        loaded = world.load(fake)
    except WorldFileError as exc:
        log.error("%s", exc)
        return 2
    if loaded and fake.guilds:
        guild = next(iter(fake.guilds.values()))
        bring_up_to_date(fake, guild)
    else:
        guild = build_world(fake)
    page = Page(fake, guild, title="Fairy Post local mode")
    try:
        await fake.start(port=settings.local_port, extend=page.add_routes)
    except OSError as exc:
        world.close()
        if exc.errno == errno.EADDRINUSE:
            log.error(
                "port %d is in use (another local mode?): set FAIRYPOST_LOCAL_PORT to a free"
                " port, e.g. FAIRYPOST_LOCAL_PORT=8766 make run",
                settings.local_port,
            )
        else:
            log.error("cannot listen on 127.0.0.1:%d: %s", settings.local_port, exc)
        return 1
    world.attach_urls(fake)
    saver = asyncio.create_task(world.keep_saved(fake), name="local-world-saver")
    runner = BotRunner(
        fake,
        FairyPost(database=db_path, engine=engine_config(settings)),
        ready_timeout=READY_TIMEOUT,
        strict=False,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await runner.start()
        print(banner(fake.port), flush=True)
        stopping = asyncio.create_task(stop.wait())
        assert runner.task is not None
        await asyncio.wait({stopping, runner.task}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not stop.is_set():
            log.error("the bot stopped on its own; local mode stops too")
            return 1
        return 0
    finally:
        await runner.stop()
        saver.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await saver
        world.close()
        await fake.close()


TERMINAL_FORMAT = "%(asctime)s %(levelname)s %(message)s"
"""Local mode's log lines: `00:55:02 INFO game 1: game.moved posted (ply 3)` (the service
writes JSON lines for its journal)."""


class SameProcessHeartbeat(logging.Filter):
    """Drops discord.py's "Can't keep up, shard ID 0 websocket is 41.3s behind": untrue in
    local mode. discord.py's keep-alive thread notes when a heartbeat was sent only after
    the event loop has sent it, and the stand-in, in the same loop, acknowledges at once, so
    the acknowledgement often arrives first and is measured against the previous heartbeat,
    a whole interval (41 s) earlier. A loop really stalled is still reported, by discord.py's
    "heartbeat blocked" warning."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Can't keep up")


def run_local(settings: Settings) -> int:
    """`python -m bot` without a token: local mode, until Ctrl-C."""
    setup_logging(settings.log_level)
    for handler in logging.getLogger().handlers:  # a person's terminal, not a journal
        handler.setFormatter(logging.Formatter(TERMINAL_FORMAT, "%H:%M:%S"))
    logging.getLogger("discord").setLevel(logging.WARNING)
    logging.getLogger("discord.gateway").addFilter(SameProcessHeartbeat())
    try:
        return asyncio.run(serve_local(settings))
    except KeyboardInterrupt:
        return 0
