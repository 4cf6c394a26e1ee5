"""Two bot processes, one shard each, on one PostgreSQL database, against the stand-in.

Players in a guild of each shard play, the first `/move` sent the moment the game's thread
appears (it finds its game: the thread is recorded before Discord shows it). Both games'
deadlines then fall due together, and the first process to take a deadline is killed
(SIGKILL at the crash point `timer.claimed:timeout`, inside its timer transaction, armed in
both, firing once). What it held is free as soon as its connection is gone: the other process
ends both games on time without waiting for any lease (leases are 600 s here), and each
"deadline passed" post appears exactly once. tests/e2e/test_kill_campaign.py kills more.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from localdiscord import FakeChannel, FakeDiscord, FakeGuild, FakeMessage, FakeUser
from storage import Storage
from storage.models import DAY, GameStatus, Termination
from tests.postgres import require_server, temporary_schema

REPO = Path(__file__).resolve().parents[2]
WAIT = 120.0  # generous: two bot processes and PostgreSQL share a busy machine
LEASE = 600  # finishing at all shows nothing waited for a lease


def guild_on_shard(fake: FakeDiscord, shard: int, name: str) -> FakeGuild:
    """A guild whose events Discord routes to `shard` of 2 ((id >> 22) % 2)."""
    while True:
        guild = fake.add_guild(name)
        if (guild.id >> 22) % 2 == shard:
            return guild
        del fake.guilds[guild.id]


@asynccontextmanager
async def bot_process(
    fake: FakeDiscord, url: str, shard: int, clock: Path, crash: Path
) -> AsyncIterator[asyncio.subprocess.Process]:
    """The real bot in a child process for `shard` of 2; its log is printed at the end (pytest
    shows it when the test fails)."""
    log = clock.with_name(f"shard-{shard}.log")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "FAIRYPOST_CRASH_AT": "timer.claimed:timeout",
        "FAIRYPOST_CRASH_ONCE": str(crash),
    }
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.e2e.shard_process",
        fake.api_base,
        fake.gateway_url,
        fake.token,
        url,
        f"{shard}/2",
        str(clock),
        str(LEASE),
        cwd=REPO,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=log.open("wb"),
    )
    try:
        yield child
    finally:
        if child.returncode is None:
            child.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(child.wait(), 30)
            except TimeoutError:
                child.kill()
                await child.wait()
        print(f"--- shard {shard} (exit {child.returncode}) ---\n{log.read_text()[-6000:]}")


async def public_posts(fake: FakeDiscord, channel: FakeChannel, text: str) -> list[FakeMessage]:
    return [
        m
        for m in channel.messages
        if not m.ephemeral and not m.deleted and not m.loading and text in m.text
    ]


async def start_game(
    fake: FakeDiscord, lobby: FakeChannel, white: FakeUser, black: FakeUser
) -> FakeChannel:
    rec = await fake.slash(
        white, lobby, "challenge", variant="chess", opponent=black, color="white", days_per_move=1
    )
    challenge = await rec.reply(WAIT)
    await (await fake.click(black, challenge, label="Accept")).response(WAIT)
    return await fake.wait_for_thread(parent=lobby, timeout=WAIT)


async def move(fake: FakeDiscord, user: FakeUser, thread: FakeChannel, text: str) -> None:
    reply = await (await fake.slash(user, thread, "move", move=text)).reply(WAIT)
    assert reply.content.startswith("You played"), reply.content


async def settled(storage: Storage) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while True:
        async with storage._db.transaction(write=False) as tx:
            left = await tx.all("SELECT id, kind, status FROM effects WHERE status <> 'done'")
        if not left:
            return
        assert all(row[2] == "pending" for row in left), [tuple(r) for r in left]
        assert loop.time() < deadline, f"effects still pending: {[tuple(r) for r in left]}"
        await asyncio.sleep(0.2)  # polling the database for a condition, like wait_until


async def test_two_processes_share_the_games_and_take_over_a_dead_ones_deadlines(
    tmp_path: Path,
) -> None:
    await require_server()
    fake = FakeDiscord(interaction_deadline=WAIT)
    fake.shard_count = 2
    await fake.start()
    try:
        near = guild_on_shard(fake, 0, "Near Club")
        far = guild_on_shard(fake, 1, "Far Club")
        lobbies = [fake.add_channel(g, "lobby") for g in (near, far)]
        alice, bob = fake.add_user("alice", guild=near), fake.add_user("bob", guild=near)
        carol, dave = fake.add_user("carol", guild=far), fake.add_user("dave", guild=far)
        clock = tmp_path / "clock"
        clock.write_text("0")
        crash = tmp_path / "crashed"
        async with (
            temporary_schema("fp_e2e") as url,
            bot_process(fake, url, 0, clock, crash) as first,
            bot_process(fake, url, 1, clock, crash) as second,
        ):
            await fake.wait_until(
                lambda: (
                    {s.shard for s in fake.live_sessions()} == {(0, 2), (1, 2)}
                    and bool(fake.global_commands)
                ),
                WAIT,
                "both shard processes connected and the commands registered",
            )
            near_thread = await start_game(fake, lobbies[0], alice, bob)
            far_thread = await start_game(fake, lobbies[1], carol, dave)
            await move(fake, alice, near_thread, "e2e4")
            await move(fake, bob, near_thread, "e7e5")
            await move(fake, carol, far_thread, "d2d4")
            for thread in (near_thread, far_thread):
                await fake.wait_until(
                    lambda t=thread: (
                        len([m for m in t.messages if " played **" in m.text and not m.ephemeral])
                        >= 1
                    ),
                    WAIT,
                    f"the move posts in {thread.name}",
                )

            clock.write_text(str(DAY + 10))  # both deadlines pass
            await fake.wait_until(
                lambda: first.returncode is not None or second.returncode is not None,
                WAIT,
                "the process that claimed a deadline first to be killed",
            )
            dead, alive = (first, second) if first.returncode is not None else (second, first)
            assert dead.returncode == -signal.SIGKILL
            assert crash.read_text() == "timer.claimed:timeout"
            for thread in (near_thread, far_thread):
                await fake.wait_until(
                    lambda t=thread: any(
                        "The deadline passed." in m.text
                        for m in t.messages
                        if not m.ephemeral and not m.loading
                    ),
                    WAIT,
                    f"the surviving process to end the game in {thread.name} on time",
                )
            assert alive.returncode is None
            for thread in (near_thread, far_thread):
                assert len(await public_posts(fake, thread, "The deadline passed.")) == 1
            async with await Storage.open(url) as storage:
                for thread, plies in ((near_thread, 2), (far_thread, 1)):
                    game = await storage.games.find_by_thread(thread.id)
                    assert game is not None
                    assert (game.status, game.termination) == (
                        GameStatus.FINISHED,
                        Termination.TIMEOUT,
                    )
                    assert len(await storage.games.moves(game.id)) == plies == game.ply_count
                # The survivor carries out what the endings set off (ratings, replays):
                # nothing is left pending or failed.
                await settled(storage)
    finally:
        await fake.close()
