"""Tournaments end to end on the stand-in: an organiser creates one, players join with the
sign-up buttons, the bot pairs the rounds, opens a thread per game, posts the crosstable
after every result and announces the winner; a restart in the middle changes nothing."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bot.client import FairyPost
from bot.service import ManualClock
from localdiscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, run_bot
from tests.e2e.conftest import World

MANAGE_GUILD = 1 << 5
WAIT = 60.0  # a bound for a loaded machine, not a speed requirement


def crosstables(fake: FakeDiscord, thread: FakeChannel) -> list[FakeMessage]:
    return [
        m
        for m in fake.messages(thread)
        if any(a.filename == "crosstable.png" for a in m.attachments)
    ]


def game_threads(fake: FakeDiscord, lobby: FakeChannel) -> list[FakeChannel]:
    return [t for t in fake.threads(lobby) if t.name.startswith("#")]


async def resign_in(fake: FakeDiscord, thread: FakeChannel, user: FakeUser) -> None:
    reply = await (await fake.slash(user, thread, "resign")).reply()
    assert "resigned" in reply.text


async def run_tournament(
    world: World, db: Path, fmt: str, expected_games: int, **options: object
) -> None:
    fake = world.fake
    olga = fake.add_user("olga")
    organisers = fake.add_role(world.guild, "Organisers", permissions=MANAGE_GUILD)
    fake.add_member(world.guild, olga, roles=[organisers])
    players = [world.alice, world.bob, world.carol]
    clock = ManualClock()
    bot = FairyPost(database=db, clock=clock)
    async with run_bot(fake, bot):
        # Only organisers may create.
        refused = await (
            await fake.slash(world.alice, world.lobby, "tournament create", name="Nope",
                             variant="patricia", format=fmt)
        ).reply()  # fmt: skip
        assert refused.ephemeral and "Manage Server" in refused.text
        signup = await (
            await fake.slash(olga, world.lobby, "tournament create", name="Club Cup",
                             variant="patricia", format=fmt, days_per_move=3, **options)
        ).reply()  # fmt: skip
        assert {b["label"] for b in signup.buttons} == {"Join", "Leave"}
        for p in players:
            await (await fake.click(p, signup, label="Join")).response()
        await (await fake.click(world.carol, signup, label="Leave")).response()
        await (await fake.click(world.carol, signup, label="Join")).response()
        await fake.wait_until(lambda: "alice, bob, carol" in signup.text, WAIT, "three players")
        started = await (await fake.slash(olga, world.lobby, "tournament start")).reply()
        assert "has started with 3 players" in started.text
        home = await fake.wait_for_thread("🏆 Club Cup", parent=world.lobby, timeout=WAIT)
        await fake.wait_until(
            lambda: len(crosstables(fake, home)) >= 1, WAIT, "the first crosstable"
        )
        await fake.wait_until(lambda: not signup.buttons, WAIT, "sign-up closed")

    # A restart: the same database, a new process; the old sign-up post stays closed, and
    # nothing already posted is posted again.
    posted_before = len(fake.messages(home))
    bot = FairyPost(database=db, clock=clock)
    async with run_bot(fake, bot):
        finished = 0
        resigned: set[int] = set()  # the end post of a game may come after the table's

        def playable() -> list[FakeChannel]:
            return [
                t
                for t in game_threads(fake, world.lobby)
                if t.id not in resigned and not _over(fake, t)
            ]

        while finished < expected_games:
            await fake.wait_until(lambda: bool(playable()), WAIT, "a game to play")
            thread = playable()[0]
            intro = await fake.wait_for_message(thread, include_existing=True, timeout=WAIT)
            loser_id = intro.mention_ids[1]
            loser = next(p for p in players if p.id == loser_id)
            tables = len(crosstables(fake, home))
            await resign_in(fake, thread, loser)
            resigned.add(thread.id)
            finished += 1
            await fake.wait_until(
                lambda n=tables: len(crosstables(fake, home)) > n, WAIT, "the table after a result"
            )
        await fake.wait_until(
            lambda: any("is over" in m.content for m in fake.messages(home)), WAIT, "the end"
        )
        assert len(fake.messages(home)) > posted_before
        final = next(m for m in fake.messages(home) if "is over" in m.content)
        assert final.attachments[0].is_png and final.attachments[0].width >= 450
        # Every post once: no marker twice.
        markers = Counter(
            e["footer"]["text"] for m in fake.messages(home) for e in m.embeds if e.get("footer")
        )
        assert markers and set(markers.values()) == {1}
        # The standings command at any time, the pairings and the games.
        standings = await (await fake.slash(world.alice, home, "tournament standings")).reply()
        assert standings.attachments[0].filename == "crosstable.png"
        games = await (await fake.slash(world.alice, home, "tournament games")).reply()
        assert games.text.count("R") >= expected_games
    assert len(game_threads(fake, world.lobby)) == expected_games


def _over(fake: FakeDiscord, thread: FakeChannel) -> bool:
    return any("resigned" in m.text for m in fake.messages(thread))


async def test_a_round_robin_from_sign_up_to_the_final_crosstable(
    world: World, tmp_path: Path
) -> None:
    await run_tournament(world, tmp_path / "rr.sqlite3", "round-robin", expected_games=3)


async def test_a_swiss_from_sign_up_to_the_final_crosstable(world: World, tmp_path: Path) -> None:
    # Three players, two rounds: a bye in each round, never to the same player.
    await run_tournament(world, tmp_path / "swiss.sqlite3", "swiss", expected_games=2, rounds=2)
