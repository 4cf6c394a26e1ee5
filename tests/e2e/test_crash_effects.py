"""Crash injection: the real bot in a child process, killed with SIGKILL at every boundary
between an event's commit and each of its effects, restarted, and compared with a run where
no crash happened.

One scenario per kind of ending (checkmate, stalemate scored on points, resignation, draw
agreement, loss on time, abort) and a plain move with a turn notice by DM. Each scenario has
one game played to its end without a crash (the reference) and one game per boundary: the
test arms the boundary (storage/crashpoints.py), makes the event happen through the Discord
stand-in (a slash command, or the deadline passing), waits for the child to die by SIGKILL,
starts a new child on the same database, waits until everything due is done, and moves on.
At the end each game must equal the reference: the same result, the same rating rows once,
every post in its channel and every DM exactly once (as the stand-in recorded them), no
effect pending or failed, no notice lost or doubled.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from localdiscord import FakeChannel, FakeDiscord, FakeGuild, FakeMessage, FakeUser
from storage import Storage
from storage.crashpoints import CRASH_FILE_ENV
from storage.models import NotifyMode
from tests.rules.conftest import record_moves

REPO = Path(__file__).resolve().parents[2]
WAIT = 180.0  # seconds: generous, the machine may be busy; every wait ends on a condition
RATED_ENDING = [
    "effect.claimed:ratings.apply",
    "effect.done:ratings.apply",
    "effect.sent:game.ended",
    "effect.done:game.ended",
    "effect.completed:game.ended",
    "effect.sent:game.replay",
    "effect.done:game.replay",
]


@dataclass(frozen=True)
class Scenario:
    name: str
    variant: str
    setup: list[str]
    """Moves played before the event (White first)."""
    event: str
    """`move:<text>`, `resign`, `draw`, `abort`, `timeout` or `reminder` (the hour-before
    reminder of the player to move falls due); by the player to move (or Black, for
    resign/draw/abort)."""
    boundaries: list[str]
    dm_notices: bool = False


BAT = record_moves(REPO / "tests" / "rules" / "games" / "missing-bat-zebra-stalemate.txt")

SCENARIOS = [
    Scenario(
        "checkmate",
        "chess",
        ["f2f3", "e7e5", "g2g4"],
        "move:d8h4",
        ["event.committed:move", *RATED_ENDING],
    ),
    Scenario(
        "stalemate-on-points",
        "missing-bat-zebra",
        BAT[:-1],
        f"move:{BAT[-1]}",
        ["event.committed:move", *RATED_ENDING],
    ),
    Scenario(
        "resignation",
        "chess",
        ["e2e4", "e7e5"],
        "resign",
        ["event.committed:resign", *RATED_ENDING],
    ),
    Scenario(
        "draw-agreement",
        "chess",
        ["d2d4", "d7d5"],
        "draw",
        ["event.committed:draw", *RATED_ENDING],
    ),
    Scenario(
        "timeout",
        "chess",
        ["e2e4"],
        "timeout",
        ["timer.claimed:timeout", "event.committed:timeout", *RATED_ENDING],
    ),
    Scenario(
        "abort",
        "chess",
        ["e2e4"],
        "abort",
        [
            "event.committed:abort",
            "effect.claimed:game.ended",
            "effect.sent:game.ended",
            "effect.done:game.ended",
        ],
    ),
    Scenario(
        "move-and-turn-notice",
        "chess",
        ["e2e4", "e7e5"],
        "move:g1f3",
        [
            # The turn notice is an effect of the move: no timer between them.
            "event.committed:move",
            "effect.sent:game.moved",
            "effect.done:game.moved",
            "effect.claimed:notice.send",
            "effect.sent:notice.send",
            "effect.done:notice.send",
        ],
        dm_notices=True,
    ),
    Scenario(
        "reminder",
        "chess",
        ["e2e4", "e7e5"],
        "reminder",
        [
            "timer.claimed:reminder",
            "event.committed:notice",
            "effect.claimed:notice.send",
            "effect.sent:notice.send",
            "effect.done:notice.send",
        ],
    ),
]


@dataclass
class GameSetup:
    game_id: int
    channel: FakeChannel
    white: FakeUser
    black: FakeUser
    boundary: str | None = None


@dataclass
class Child:
    """The bot process; `killed` counts the SIGKILLs it took at armed points."""

    db: Path
    fake: FakeDiscord
    crash_file: Path
    log: Path
    proc: asyncio.subprocess.Process | None = None
    killed: int = 0
    starts: int = 0
    logs: list[str] = field(default_factory=list)

    async def start(self) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            CRASH_FILE_ENV: str(self.crash_file),
            "FAIRYPOST_ENV_FILE": "",
        }
        self.starts += 1
        log = self.log.with_name(f"{self.log.name}.{self.starts}")
        self.logs.append(str(log))
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.e2e.crash_bot",
            str(self.db),
            self.fake.api_base,
            self.fake.gateway_url,
            self.fake.token,
            cwd=REPO,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=log.open("wb"),
        )
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), WAIT)
        assert line == b"ready\n", f"the bot did not start: {line!r}; see {log}"

    async def died_at(self, boundary: str) -> None:
        """The child killed itself at the armed point."""
        assert self.proc is not None
        code = await asyncio.wait_for(self.proc.wait(), WAIT)
        assert code == -signal.SIGKILL, f"exit {code} instead of SIGKILL at {boundary}"
        fired = self.crash_file.with_name(self.crash_file.name + ".fired")
        assert fired.read_text() == boundary
        fired.unlink()
        self.killed += 1
        self.proc = None

    async def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), WAIT)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        self.proc = None


def arm(crash_file: Path, boundary: str) -> None:
    partial = crash_file.with_name(crash_file.name + ".tmp")
    partial.write_text(boundary)
    os.replace(partial, crash_file)


# --- setting the games up (no bot running: storage and the service, no effect rules) -------


async def prepare(
    db: Path, fake: FakeDiscord, guild: FakeGuild, scenario: Scenario, count: int
) -> list[GameSetup]:
    """`count` games of the scenario, each in its own channel between two new players,
    played up to the event. Recorded without effect rules: none of this is posted."""
    out: list[GameSetup] = []
    clock = ManualClock(int(time.time()))
    async with await Storage.open(db, engine=STORAGE_ENGINE, rng=random.Random(1)) as storage:
        service = GameService(storage, clock=clock)
        for i in range(count):
            channel = fake.add_channel(guild, f"game-{i}")
            white = fake.add_user(f"white{i}", guild=guild)
            black = fake.add_user(f"black{i}", guild=guild)
            w, b = UserRef(white.id, white.name), UserRef(black.id, black.name)
            challenge = await service.create_challenge(
                guild_id=guild.id,
                channel_id=channel.id,
                challenger=w,
                opponent=b,
                variant=scenario.variant,
                color="white",
                days_per_move=1,
            )
            game = await service.accept_challenge(challenge.challenge.id, b)
            for ply, text in enumerate(scenario.setup):
                await service.play(
                    channel_id=channel.id, user=(w, b)[ply % 2], text=text, game_id=game.game.id
                )
            if scenario.event == "draw":
                await storage.draws.offer(game.game.id, white.id, clock.now())
            if scenario.dm_notices:
                await storage.players.set_preferences(
                    black.id, clock.now(), notify_mode=NotifyMode.DM
                )
            out.append(GameSetup(game.game.id, channel, white, black))
    # The turn notices of the set-up moves were never due for a post: mark them handled.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE notifications SET sent_at = due_at WHERE sent_at IS NULL")
    conn.close()
    return out


async def happen(fake: FakeDiscord, db: Path, scenario: Scenario, game: GameSetup) -> None:
    """Makes the scenario's event happen to `game`, as players (or the clock) would."""
    gid = game.game_id
    event = scenario.event
    if event.startswith("move:"):
        ply = len(scenario.setup)
        player = game.white if ply % 2 == 0 else game.black
        await fake.slash(player, game.channel, "move", move=event[5:], game=gid)
    elif event == "resign":
        await fake.slash(game.black, game.channel, "resign", game=gid)
    elif event == "draw":
        await fake.slash(game.black, game.channel, "draw", game=gid)
    elif event == "abort":
        await fake.slash(game.black, game.channel, "abort", game=gid)
    elif event == "reminder":  # its time comes: the timer notices once poked
        with sqlite3.connect(db) as conn:
            conn.execute(
                "UPDATE notifications SET due_at = ?, sent_at = NULL WHERE game_id = ? "
                "AND kind = 'reminder' AND offset_seconds = 3600",
                (int(time.time()) - 60, gid),
            )
        conn.close()
        await fake.slash(game.white, game.channel, "settings")
    else:  # the deadline passes: the timer notices once poked (a /settings pokes it)
        with sqlite3.connect(db) as conn:
            conn.execute(
                "UPDATE games SET deadline_at = ? WHERE id = ?", (int(time.time()) - 60, gid)
            )
        conn.close()
        await fake.slash(game.white, game.channel, "settings")


# --- waiting and reading the end state ------------------------------------------------------


def _read(db: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db, timeout=30)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def settled(db: Path, scenario: Scenario, game: GameSetup) -> bool:
    """The event happened and everything it set off is done."""
    (status, ply), *_ = _read(
        db, "SELECT status, ply_count FROM games WHERE id = ?", (game.game_id,)
    )
    if scenario.event.startswith("move:") and scenario.name.startswith("move"):
        if ply != len(scenario.setup) + 1:
            return False
        unsent = _read(
            db,
            "SELECT count(*) FROM notifications WHERE game_id = ? AND kind = 'turn' "
            "AND sent_at IS NULL",
            (game.game_id,),
        )[0][0]
        if unsent:
            return False
    elif scenario.event == "reminder":
        unsent = _read(
            db,
            "SELECT count(*) FROM notifications WHERE game_id = ? AND kind = 'reminder' "
            "AND offset_seconds = 3600 AND sent_at IS NULL",
            (game.game_id,),
        )[0][0]
        if unsent:
            return False
    elif status == "active":
        return False
    pending = _read(db, "SELECT count(*) FROM effects WHERE status = 'pending'")[0][0]
    return pending == 0


async def until(check: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {WAIT}s waiting for {what}")
        await asyncio.sleep(0.1)


def normalize(text: str, game: GameSetup) -> str:
    text = text.replace(str(game.white.id), "WHITE").replace(str(game.black.id), "BLACK")
    text = text.replace(game.white.name, "white").replace(game.black.name, "black")
    text = text.replace(str(game.channel.id), "CHANNEL").replace(game.channel.name, "channel")
    text = re.sub(r"<t:\d+(:\w)?>", "<t>", text)
    text = re.sub(r"(?i)game #\d+", "game #N", text)
    text = re.sub(r"game:\d+", "game:N", text)  # "Follow this game ...: /board game:12"
    return text


def posts(fake: FakeDiscord, game: GameSetup) -> Counter[str]:
    """Every post of the game (its channel, its players' DMs), normalized: the messages the
    bot sent by itself, which are the effects' (replies to commands are not effects)."""
    found: list[FakeMessage] = list(fake.messages(game.channel))
    for user in (game.white, game.black):
        found += fake.dms(user)
    out: Counter[str] = Counter()
    for m in found:
        if m.ephemeral or m.author is not fake.bot_user or m.interaction is not None:
            continue  # a command's own reply dies with the process that should have sent it
        files = ",".join(a.filename for a in m.attachments)
        out[normalize(f"{m.text} [{files}]", game)] += 1
    return out


def state(db: Path, fake: FakeDiscord, game: GameSetup) -> dict[str, object]:
    gid = game.game_id
    names = {game.white.id: "white", game.black.id: "black"}
    return {
        "game": _read(
            db,
            "SELECT status, result, termination, end_detail, ply_count FROM games WHERE id = ?",
            (gid,),
        ),
        "moves": [
            r[0]
            for r in _read(db, "SELECT notation FROM moves WHERE game_id = ? ORDER BY ply", (gid,))
        ],
        "rating_history": sorted(
            (names[u], round(s, 6), round(before, 6), round(after, 6), round(dev, 6))
            for u, s, before, after, dev in _read(
                db,
                "SELECT user_id, score, rating_before, rating_after, deviation_after "
                "FROM rating_history WHERE game_id = ?",
                (gid,),
            )
        ),
        "ratings": sorted(
            (names[u], games, wins, draws, losses, round(r, 6))
            for u, games, wins, draws, losses, r in _read(
                db,
                "SELECT user_id, games, wins, draws, losses, rating FROM ratings "
                "WHERE user_id IN (?, ?)",
                (game.white.id, game.black.id),
            )
        ),
        "effects": Counter(
            (kind, status)
            for kind, status in _read(
                db, "SELECT kind, status FROM effects WHERE game_id = ?", (gid,)
            )
        ),
        "notifications": sorted(
            (ply, kind, offset, sent is not None)
            for ply, kind, offset, sent in _read(
                db,
                "SELECT ply, kind, offset_seconds, sent_at FROM notifications WHERE game_id = ?",
                (gid,),
            )
        ),
        "posts": posts(fake, game),
    }


# --- the test -------------------------------------------------------------------------------


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
async def test_every_boundary_survives_a_sigkill(
    scenario: Scenario, fake: FakeDiscord, tmp_path: Path
) -> None:
    guild = fake.add_guild("Crash Club")
    db = tmp_path / "fairypost.sqlite3"
    games = await prepare(db, fake, guild, scenario, 1 + len(scenario.boundaries))
    for game, boundary in zip(games[1:], scenario.boundaries, strict=True):
        game.boundary = boundary
    crash_file = tmp_path / "armed"
    child = Child(db, fake, crash_file, tmp_path / "bot.log")
    await child.start()
    try:
        reference = games[0]
        await happen(fake, db, scenario, reference)
        await until(lambda: settled(db, scenario, reference), "the reference game")
        for game in games[1:]:
            assert game.boundary is not None
            arm(crash_file, game.boundary)
            await happen(fake, db, scenario, game)
            await child.died_at(game.boundary)
            await child.start()
            await until(lambda g=game: settled(db, scenario, g), f"recovery at {game.boundary}")
    finally:
        await child.stop()
    fake.take_violations("interaction.not_acknowledged")
    fake.assert_no_violations()
    assert child.killed == len(scenario.boundaries)
    # A post accepted just before the kill was sent again with the same nonce, and Discord
    # (the stand-in) handed back the first message instead of posting twice.
    resent = sum(b.startswith("effect.sent:") for b in scenario.boundaries)
    assert len(fake.nonce_repeats) == resent

    expected = state(db, fake, reference)
    assert expected["posts"], "the reference game posted nothing"
    assert all(n == 1 for n in expected["posts"].values())  # type: ignore[union-attr]
    assert all(status == "done" for _, status in expected["effects"])  # type: ignore[union-attr]
    for game in games[1:]:
        got = state(db, fake, game)
        for key, value in expected.items():
            assert got[key] == value, f"{scenario.name}, crash at {game.boundary}: {key} differs"
    assert _read(db, "PRAGMA integrity_check") == [("ok",)]
