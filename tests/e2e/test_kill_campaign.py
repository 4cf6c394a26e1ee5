"""Two bot processes, one PostgreSQL database, and one of them killed again and again.

Each round makes one thing happen through the Discord stand-in (a move, a deadline passing,
a reminder falling due, a resignation) and kills a process with SIGKILL: at an armed crash
point right after a claim (`effect.claimed:*`, `timer.claimed:*`), right after Discord
accepted a post (`effect.sent:*`), right after the event committed, or at a random moment
shortly after the event. Then:

- the survivor alone must carry out everything the event set off, the dead process's
  claims included. Leases are 600 s here, so finishing at all shows that nothing waited for
  a lease: a dead process's claims are taken over as soon as its instance lock is gone, and
  its timer rows were never claimed beyond its transaction;
- some rounds kill the survivor too, and both restart: the restarted processes take the dead
  ones' claims back at once;
- the dead process restarts (as systemd would) before the next round.

At the end, counted from the stand-in and the database: every effect done, none failed;
every post of an effect sent exactly once (Discord's nonce handed back the first message to
a retry), none lost; every move posted once, every ending once, every DM notice once.
The time from each kill to everything settled is printed (not asserted: no timing asserts).

The full campaign (24 kills) runs with the first Python of CI, as all of tests/e2e; set
FAIRYPOST_KILLS to run more (or fewer) rounds.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from localdiscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser
from localdiscord.models import InteractionRecord
from storage import Storage
from storage.crashpoints import CRASH_FILE_ENV
from storage.models import NotifyMode
from tests.e2e.test_processes import guild_on_shard
from tests.postgres import temporary_schema

REPO = Path(__file__).resolve().parents[2]
WAIT = 180.0  # every wait ends on a condition; this only bounds a broken run
LEASE = 600
KILLS = int(os.environ.get("FAIRYPOST_KILLS", "24"))
LINE = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "d2d3", "d7d6"]

ROUNDS: list[tuple[str, str]] = [
    ("move", "event.committed:move"),
    ("move", "effect.claimed:game.moved"),
    ("move", "effect.sent:game.moved"),
    ("move", "effect.sent:notice.send"),
    ("timeout", "timer.claimed:timeout"),
    ("timeout", "effect.sent:game.ended"),
    ("reminder", "timer.claimed:reminder"),
    ("reminder", "effect.sent:notice.send"),
    ("resign", "effect.claimed:ratings.apply"),
    ("resign", "effect.sent:game.replay"),
    ("move", "random"),
    ("timeout", "random"),
]
BOTH_DIE = {5, 17}
"""Rounds where the survivor is killed too, right after the first: both restart."""


@dataclass
class Game:
    id: int
    guild: FakeGuild
    channel: FakeChannel
    white: FakeUser
    black: FakeUser
    ply: int = 0
    over: bool = False


@dataclass
class Bot:
    """One shard process; restarted under the same shard after each death."""

    shard: int
    fake: FakeDiscord
    url: str
    folder: Path
    proc: asyncio.subprocess.Process | None = None
    starts: int = 0
    logs: list[Path] = field(default_factory=list)
    older: set[str] = field(default_factory=set)
    """Gateway sessions that existed when this process started (a dead process's session
    stays resumable: it is not this one)."""

    async def start(self) -> None:
        self.starts += 1
        self.older = set(self.fake.sessions)
        log = self.folder / f"shard-{self.shard}.{self.starts}.log"
        self.logs.append(log)
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            CRASH_FILE_ENV: str(self.folder / "armed"),
            "FAIRYPOST_ENV_FILE": "",
        }
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.e2e.shard_process",
            self.fake.api_base,
            self.fake.gateway_url,
            self.fake.token,
            self.url,
            f"{self.shard}/2",
            str(self.folder / "clock"),
            str(LEASE),
            cwd=REPO,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=log.open("wb"),
        )

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def serving(self) -> bool:
        """This process's own session is connected (events of its guilds reach it)."""
        return any(
            s.shard == (self.shard, 2) and s.conn is not None and sid not in self.older
            for sid, s in self.fake.sessions.items()
        )

    async def kill(self) -> None:
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


def guild_shard(guild: FakeGuild) -> int:
    return (guild.id >> 22) % 2


def arm(folder: Path, boundary: str) -> None:
    partial = folder / "armed.tmp"
    partial.write_text(boundary)
    os.replace(partial, folder / "armed")


async def prepare(url: str, fake: FakeDiscord, guilds: list[FakeGuild], count: int) -> list[Game]:
    """`count` games (alternately on each shard's guild), each in a channel of its own
    between two new players who take their notices by DM, nothing played yet. Recorded
    without the bot's effect rules: none of this is posted."""
    games = []
    clock = ManualClock(int(time.time()))
    async with await Storage.open(url, engine=STORAGE_ENGINE) as storage:
        service = GameService(storage, clock=clock)
        for i in range(count):
            guild = guilds[i % 2]
            channel = fake.add_channel(guild, f"game-{i}")
            white = fake.add_user(f"white{i}", guild=guild)
            black = fake.add_user(f"black{i}", guild=guild)
            w, b = UserRef(white.id, white.name), UserRef(black.id, black.name)
            for user in (w, b):
                await service.seen(user)
                await storage.players.set_preferences(
                    user.id, clock.now(), notify_mode=NotifyMode.DM
                )
            challenge = await service.create_challenge(
                guild_id=guild.id,
                channel_id=channel.id,
                challenger=w,
                opponent=b,
                variant="chess",
                color="white",
                days_per_move=3,
                rated=True,
            )
            view = await service.accept_challenge(challenge.challenge.id, b)
            games.append(Game(view.game.id, guild, channel, white, black))
        await storage._db.run("UPDATE notifications SET sent_at = due_at WHERE sent_at IS NULL")
    return games


async def happen(
    fake: FakeDiscord, storage: Storage, event: str, game: Game
) -> InteractionRecord | None:
    """Makes `event` happen to `game`, as players (or the clock) would; the command's
    interaction, if it was one."""
    now = int(time.time())
    if event == "move":
        player = game.white if game.ply % 2 == 0 else game.black
        rec = await fake.slash(player, game.channel, "move", move=LINE[game.ply], game=game.id)
        game.ply += 1
        return rec
    elif event == "resign":
        await fake.slash(game.black, game.channel, "resign", game=game.id)
        game.over = True
    elif event == "timeout":
        await storage._db.run("UPDATE games SET deadline_at = ? WHERE id = ?", (now - 60, game.id))
        game.over = True
    else:  # a reminder of the player to move falls due
        await storage._db.run(
            "UPDATE notifications SET due_at = ?, sent_at = NULL WHERE game_id = ? "
            "AND kind = 'reminder' AND offset_seconds = 3600",
            (now - 60, game.id),
        )
    return None


async def settled(storage: Storage, event: str, game: Game, *, surely: bool = True) -> bool:
    """The event happened and everything it set off is done. A move whose process was
    killed at a random moment may never have been made (`surely` False): then only the
    rest counts, and the game's ply is taken from the database."""
    row = await storage._db.one("SELECT status, ply_count FROM games WHERE id = ?", (game.id,))
    assert row is not None
    if event == "move" and not surely:
        game.ply = row["ply_count"]
    if event == "move" and row["ply_count"] != game.ply:
        return False
    if event in ("resign", "timeout") and row["status"] == "active":
        return False
    if event == "reminder":
        unsent = await storage._db.scalar(
            "SELECT count(*) FROM notifications WHERE game_id = ? AND sent_at IS NULL "
            "AND due_at <= ?",
            (game.id, int(time.time())),
        )
        if unsent:
            return False
    left = await storage._db.all("SELECT id, kind, status FROM effects WHERE status <> 'done'")
    assert all(r["status"] == "pending" for r in left), [(r["id"], r["kind"]) for r in left]
    return not left


async def until(check: Callable[[], Awaitable[bool]], what: str) -> float:
    began = time.monotonic()
    while not await check():
        if time.monotonic() - began > WAIT:
            raise AssertionError(f"timed out after {WAIT}s waiting for {what}")
        await asyncio.sleep(0.1)
    return time.monotonic() - began


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
async def test_kills_at_random_moments_neither_double_nor_lose_a_post(tmp_path: Path) -> None:
    fake = FakeDiscord(interaction_deadline=WAIT)
    fake.shard_count = 2
    await fake.start()
    (tmp_path / "clock").write_text("0")
    kills: Counter[str] = Counter()
    settle_times: list[tuple[str, float]] = []
    bots: list[Bot] = []
    try:
        guilds = [guild_on_shard(fake, 0, "Near Club"), guild_on_shard(fake, 1, "Far Club")]
        async with temporary_schema("fp_kills") as url, await Storage.open(url) as storage:
            games = await prepare(url, fake, guilds, 24)
            bots = [Bot(shard, fake, url, tmp_path) for shard in (0, 1)]
            try:
                await campaign(fake, storage, bots, games, tmp_path, kills, settle_times)
                await check(fake, storage, games)
            finally:
                for bot in bots:
                    await bot.stop()  # before the schema goes
    finally:
        await fake.close()
        for bot in bots:
            for log in bot.logs[-2:]:
                if log.exists():
                    print(f"--- {log.name} ---\n{log.read_text()[-3000:]}")
    print(f"kills: {dict(kills)}")
    for what, took in settle_times:
        print(f"settled after a kill at {what}: {took:.1f} s")
    assert sum(n for kind, n in kills.items() if kind != "both") == KILLS


async def campaign(
    fake: FakeDiscord,
    storage: Storage,
    bots: list[Bot],
    games: list[Game],
    folder: Path,
    kills: Counter[str],
    settle_times: list[tuple[str, float]],
) -> None:
    rng = random.Random(30)
    for bot in bots:
        await bot.start()
    await fake.wait_until(
        lambda: all(b.serving() for b in bots) and bool(fake.global_commands),
        WAIT,
        "both shard processes connected and the commands registered",
    )
    for k in range(KILLS):
        event, boundary = ROUNDS[k % len(ROUNDS)]
        fits = [
            g
            for g in games
            if not g.over
            and (event != "move" or g.ply < len(LINE))
            and (event != "resign" or g.ply > 0)  # a replay is posted once a move was made
        ]
        game = rng.choice(fits)
        if boundary != "random":
            arm(folder, boundary)
        rec = await happen(fake, storage, event, game)
        if boundary == "random":
            await asyncio.sleep(rng.uniform(0.0, 0.4))
            victim = rng.choice(bots)
            await victim.kill()
            if rec is not None and victim.shard != guild_shard(game.guild):
                await rec.reply(WAIT)  # the survivor answers: nothing left in flight
        else:
            await fake.wait_until(
                lambda: any(not b.alive for b in bots), WAIT, f"a process to die at {boundary}"
            )
            fired = folder / "armed.fired"
            assert fired.read_text() == boundary
            fired.unlink()
        dead = [b for b in bots if not b.alive]
        assert all(b.proc and b.proc.returncode == -signal.SIGKILL for b in dead)
        kills[boundary.split(":")[0] if boundary != "random" else "random"] += 1
        if k in BOTH_DIE:
            for bot in bots:
                await bot.kill()
            kills["both"] += 1
            for bot in bots:
                await bot.start()
        surely = boundary != "random"
        took = await until(
            lambda e=event, g=game, s=surely: settled(storage, e, g, surely=s),  # type: ignore[misc]
            f"round {k} ({event}, {boundary}) to settle",
        )
        settle_times.append((f"{event}@{boundary}", took))
        for bot in bots:
            if not bot.alive:
                await bot.start()
        await fake.wait_until(
            lambda: all(b.serving() for b in bots), WAIT, "both processes serving again"
        )


async def check(fake: FakeDiscord, storage: Storage, games: list[Game]) -> None:
    """Counted at the end: nothing pending or failed, nothing doubled, nothing lost."""
    effects = await storage._db.all("SELECT * FROM effects ORDER BY id")
    assert effects and all(e["status"] == "done" for e in effects)
    by_nonce: Counter[str] = Counter(
        m.nonce for m in fake.messages_by_id.values() if m.nonce is not None
    )
    doubled = [nonce for nonce, n in by_nonce.items() if n > 1]
    assert not doubled, f"posts made twice: {doubled}"
    messages = {m.id: m for m in fake.messages_by_id.values() if not m.deleted}
    for effect in effects:
        if effect["kind"] in ("game.moved", "game.ended", "game.replay"):
            assert effect["message_id"] is not None, f"effect {effect['id']} lost"
        if effect["message_id"] is not None:
            message = messages.get(effect["message_id"])
            assert message is not None, f"effect {effect['id']}'s post is gone"
            assert message.nonce is not None
            assert message.nonce.startswith(f"fp{effect['id']}-")
    move_posts = [
        m
        for m in fake.messages_by_id.values()
        if " played **" in m.text and m.interaction is None and not m.ephemeral
    ]
    assert len(move_posts) == sum(g.ply for g in games)
    assert sum(e["kind"] == "game.ended" for e in effects) == sum(g.over for g in games)
