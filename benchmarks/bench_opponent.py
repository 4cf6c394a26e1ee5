"""The bot stays responsive while its engine thinks: another player's `/move` autocomplete.

The real bot on the local Discord stand-in: Bob (White) and Carol play chess; Bob types in
`/move` and his legal moves come back (one autocomplete interaction, the stand-in's gateway
and HTTP included). Measured idle, then while Alice's game against Fairy Post at level 8
keeps the engine searching (a minute a move, in the search process pool), then, as the
peer that shows what the pool avoids, while the same search runs in the bot's own process
(a thread: it holds the interpreter's lock). Ratios are against idle, measured in the same
run; there is no timing assert anywhere in the tests.

Run alone: `python -m benchmarks --only opponent`.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import tempfile
import time
from pathlib import Path

from benchmarks.common import Row, ms, percentiles
from bot.client import FairyPost
from bot.service.models import UserRef
from bot.service.opponent import EngineConfig
from localdiscord import FakeChannel, FakeDiscord, FakeUser, run_bot
from rules.game import game_after
from search import best_move

SECTION = "opponent"
WAIT = 120.0


async def autocomplete_times(
    fake: FakeDiscord, user: FakeUser, thread: FakeChannel, count: int
) -> list[float]:
    samples = []
    for i in range(count):
        start = time.perf_counter()
        choices = await fake.autocomplete(
            user, thread, "move", focused="move", value="", timeout=WAIT
        )
        samples.append(time.perf_counter() - start)
        assert choices, "no moves offered"
        await asyncio.sleep(0.02 * (i % 3))  # a person types, pauses, types
    return samples


async def measure(folder: Path, count: int) -> dict[str, list[float] | int]:
    fake = FakeDiscord()
    await fake.start()
    try:
        guild = fake.add_guild("Bench Club")
        lobby = fake.add_channel(guild, "lobby")
        alice, bob, carol = (fake.add_user(n, guild=guild) for n in ("alice", "bob", "carol"))
        bot = FairyPost(database=folder / "fp.sqlite3", engine=EngineConfig(workers=1, pause=0))
        async with run_bot(fake, bot):
            rec = await fake.slash(
                bob, lobby, "challenge", variant="chess", opponent=carol, color="white"
            )
            challenge = await rec.reply(timeout=WAIT)
            await (await fake.click(carol, challenge, label="Accept")).response()
            human = await fake.wait_for_thread(parent=lobby, timeout=WAIT)
            await bot.opponent.pool.warm()  # its start is not what is measured here
            await autocomplete_times(fake, bob, human, 3)  # warm: the game cached
            idle = await autocomplete_times(fake, bob, human, count)

            # Alice's game against the bot at level 8: the bot opens and thinks for a minute.
            rec = await fake.slash(
                alice,
                lobby,
                "challenge",
                variant="bigorra",
                opponent=fake.bot_user,
                color="black",
                level=8,
            )
            await rec.reply(timeout=WAIT)
            pool = bot.opponent.pool
            await fake.wait_until(lambda: pool.running > 0, WAIT, "the engine's search")
            thread = next(t for t in fake.threads(lobby) if t.id != human.id)
            await fake.wait_for_message(thread, include_existing=True, timeout=WAIT)
            await asyncio.sleep(1.0)  # the game's first post drawn and sent: only the search
            during = await autocomplete_times(fake, bob, human, count)
            still = pool.running
            (game,) = await bot.storage.games.list_active(alice.id)
            await bot.service.resign(
                channel_id=0, user=UserRef(int(alice.id), alice.name), game_id=game.id
            )

            # The peer: the same kind of search in the bot's own process, in a thread.
            position = game_after("bigorra", [])
            searching = asyncio.create_task(
                asyncio.to_thread(best_move, position, 8, movetime=math.inf, nodes=400_000)
            )
            await asyncio.sleep(0.2)
            in_process = await autocomplete_times(fake, bob, human, count)
            searching.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await searching
        return {"idle": idle, "during": during, "in_process": in_process, "still": still}
    finally:
        await fake.close()


def run(quick: bool = False) -> list[Row]:
    count = 12 if quick else 60
    with tempfile.TemporaryDirectory(prefix="fairypost-bench-") as folder:
        found = asyncio.run(measure(Path(folder), count))
    idle, during, in_process = (found[k] for k in ("idle", "during", "in_process"))
    assert isinstance(idle, list) and isinstance(during, list) and isinstance(in_process, list)
    rows = []
    for q in (50, 95):
        (base,) = percentiles(idle, q)
        (pooled,) = percentiles(during, q)
        (threaded,) = percentiles(in_process, q)
        rows.append(
            Row(
                SECTION,
                f"/move autocomplete p{q} while the engine searches (process pool) vs idle "
                f"({len(during)} calls)",
                ms(pooled),
                "idle",
                ms(base),
                f"{pooled / base:.2f}× idle",
                "≤ 2× idle",
            )
        )
        rows.append(
            Row(
                SECTION,
                f"/move autocomplete p{q} while a search runs in the bot's own process "
                "(a thread: what the pool avoids)",
                ms(threaded),
                "idle",
                ms(base),
                f"{threaded / base:.2f}× idle",
            )
        )
    if not found["still"]:
        rows.append(Row(SECTION, "note: the search ended before the last call was measured", ""))
    return rows
