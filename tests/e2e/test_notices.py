"""Notices players control, end to end with a simulated clock: a daily digest by DM that comes
once a day across restarts of the bot, quiet hours, a server's default, and a player who
chose DM notices is never also pinged in the thread."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.client import FairyPost
from bot.loops import DueLoop
from bot.service import ManualClock
from localdiscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from storage.models import DAY, HOUR
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import POST_TIMEOUT, fairypost, play, posted

START = 1_800_000_000  # the ManualClock's start: 2027-01-15 08:00 UTC
MANAGE_GUILD = 1 << 5


async def settle(fake: FakeDiscord, bot: FairyPost) -> None:
    """Whatever is due at the clock's time now is handled: the loops sleep on the real clock,
    so each is poked and a whole pass awaited, twice (a pass already running when the clock
    was set may have read the time before)."""
    for _ in range(2):
        for loop in (bot.timers, bot.effects):
            done = loop.passes
            loop.poke()
            await fake.wait_until(past(loop, done), POST_TIMEOUT, f"a {loop.name} pass")


def past(loop: DueLoop, done: int) -> Callable[[], bool]:
    return lambda: loop.passes > done


async def new_game(world: World, white: FakeUser, black: FakeUser) -> FakeChannel:
    """`white` challenges `black` to chess (3 days a move), `black` accepts: its thread."""
    fake = world.fake
    rec = await fake.slash(
        white, world.lobby, "challenge", variant="chess", opponent=black, color="white",
        days_per_move=3,
    )  # fmt: skip
    await (await fake.click(black, await rec.reply(), label="Accept")).response()
    name = f"Chess: {white.name} vs {black.name}"
    thread = await fake.wait_for_thread(name, timeout=POST_TIMEOUT)
    await posted(fake, thread, 0, lambda m: "the game begins" in m.content)
    return thread


def digests(fake: FakeDiscord, user: FakeUser) -> list[FakeMessage]:
    return [m for m in fake.dms(user) if "Your move in" in m.content]


async def test_a_daily_digest_comes_once_a_day_across_restarts(
    world: World, tmp_path: Path
) -> None:
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    db, clock = tmp_path / "fp.sqlite3", ManualClock()
    async with fairypost(fake, db, clock):
        chosen = await (
            await fake.slash(bob, world.lobby, "settings", schedule="digest", hour=9)
        ).reply()
        assert "a daily digest at 09:00 (UTC); the next <t:" in chosen.content
        first = await new_game(world, alice, bob)
        second = await new_game(world, carol, bob)
        for thread, white in ((first, alice), (second, carol)):
            moved = await play(fake, white, thread, "e2e4")
            assert moved.content == f"<@{bob.id}>, your move."  # named, but not pinged:
            assert bob.id not in moved.mention_ids  # his digest tells him
    assert fake.dms(bob) == []

    async with fairypost(fake, db, clock) as runner:  # a new process
        clock.set(START + HOUR)  # 09:00
        await settle(fake, runner.client)
        await fake.wait_until(lambda: len(digests(fake, bob)) == 1, POST_TIMEOUT, "a digest")
        (digest,) = digests(fake, bob)
        assert digest.content.startswith("📬 Your move in 2 games:")
        assert f"<#{first.id}>" in digest.content and f"<#{second.id}>" in digest.content
        assert digest.mention_ids == []

    for hours in (2, 3):  # restarts later the same day: no second digest
        async with fairypost(fake, db, clock) as runner:
            clock.set(START + hours * HOUR)
            await settle(fake, runner.client)
    assert len(digests(fake, bob)) == 1

    async with fairypost(fake, db, clock) as runner:  # the next day
        await play(fake, bob, first, "e7e5")
        await play(fake, alice, first, "g1f3")
        clock.set(START + DAY + HOUR - 1)
        await settle(fake, runner.client)
        assert len(digests(fake, bob)) == 1
    async with fairypost(fake, db, clock) as runner:
        clock.set(START + DAY + HOUR)
        await settle(fake, runner.client)
        await fake.wait_until(lambda: len(digests(fake, bob)) == 2, POST_TIMEOUT, "day 2")
        clock.set(START + DAY + 2 * HOUR)
        await settle(fake, runner.client)
    assert len(digests(fake, bob)) == 2
    assert [m for m in fake.dms(bob) if m not in digests(fake, bob)] == []  # nothing else


async def test_dm_notices_ping_once_and_quiet_hours_wait(world: World, tmp_path: Path) -> None:
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    clock = ManualClock()
    async with fairypost(fake, tmp_path / "fp.sqlite3", clock) as runner:
        # carol hears of her turns by DM: the move's post names her without a ping.
        await (await fake.slash(carol, world.lobby, "settings", notify="dm")).reply()
        game = await new_game(world, alice, carol)
        moved = await play(fake, alice, game, "e2e4")
        assert carol.id not in moved.mention_ids
        await fake.wait_until(lambda: len(fake.dms(carol)) == 1, POST_TIMEOUT, "carol's DM")
        assert fake.dms(carol)[0].content.startswith("Your turn in")

        # bob keeps thread mentions, quiet from 22:00 to 07:00 (UTC+1).
        quiet = await (
            await fake.slash(
                bob, world.lobby, "settings", schedule="quiet", hour=22, until=7, utc_offset="+1"
            )
        ).reply()
        assert "quiet from 22:00 to 07:00 (UTC+1)" in quiet.content
        thread = await new_game(world, alice, bob)
        clock.set(START + 14 * HOUR)  # 23:00 in UTC+1
        since = len(thread.messages)
        moved = await play(fake, alice, thread, "d2d4")
        assert bob.id not in moved.mention_ids
        clock.set(START + 22 * HOUR - 1)  # 06:59:59 for bob
        await settle(fake, runner.client)
        assert not [m for m in thread.messages[since:] if bob.id in m.mention_ids]
        clock.set(START + 22 * HOUR)
        await settle(fake, runner.client)
        notice = await posted(fake, thread, since, lambda m: bob.id in m.mention_ids)
        assert "Your turn in" in notice.content
        assert len(fake.dms(carol)) == 1 and fake.dms(bob) == []


async def test_a_server_sets_the_default(world: World, tmp_path: Path) -> None:
    fake = world.fake
    admins = fake.add_role(world.guild, "admins", MANAGE_GUILD)
    dana = fake.add_user("dana")
    fake.add_member(world.guild, dana, roles=[admins])
    async with fairypost(fake, tmp_path / "fp.sqlite3", ManualClock()):
        shown = await (
            await fake.slash(
                dana, world.lobby, "config", notices="digest", notice_hour=19, utc_offset="-5"
            )
        ).reply()
        field = next(f for f in shown.embed["fields"] if f["name"].startswith("Turn notices"))
        assert field["value"].startswith("a daily digest at 19:00 (UTC-5)")
        mine = await (await fake.slash(world.bob, world.lobby, "settings")).reply()
        assert "When: this server's default, a daily digest at 19:00 (UTC-5)" in mine.content
        refused = await (
            await fake.slash(world.bob, world.lobby, "settings", utc_offset="Paris")
        ).reply()
        assert "like `+2`, `-5` or `+5:30`" in refused.content


async def test_a_player_chooses_letter_tokens_for_the_games_of_asia(
    world: World, tmp_path: Path
) -> None:
    """/settings pieces: Bob's pictures show letters, Alice's the Shogi kanji (issue 27)."""
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3", ManualClock()):
        mine = await (
            await fake.slash(world.bob, world.lobby, "settings", pieces="letters")
        ).reply()
        assert "Pieces: **letter tokens everywhere**" in mine.content
        pictures = []
        for who in (world.bob, world.alice):
            post = await (
                await fake.slash(who, world.lobby, "challenge", variant="shogi", color="white")
            ).reply()
            (png,) = post.attachments
            pictures.append(png)
        assert pictures[0].data != pictures[1].data
        assert (pictures[0].width, pictures[0].height) == (pictures[1].width, pictures[1].height)
