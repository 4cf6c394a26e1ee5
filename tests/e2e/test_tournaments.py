"""Tournaments end to end on the stand-in: a server admin names the organisers' role with
/config, an organiser with that role (and no permission of their own) creates a tournament,
players join with the sign-up buttons, the bot pairs the rounds, opens a thread per game
from the game's post in the channel (its first post names the tournament and the round),
posts the crosstable after every result and announces the winner; a player's withdrawal
resigns their game in its thread; a restart in the middle changes nothing."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bot.client import FairyPost
from bot.service import ManualClock
from localdiscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, run_bot
from tests.e2e.conftest import World
from tests.e2e.test_variants import HAWK_V1, define

MANAGE_GUILD = 1 << 5
WAIT = 60.0  # a bound for a loaded machine, not a speed requirement


def crosstables(fake: FakeDiscord, thread: FakeChannel) -> list[FakeMessage]:
    return [
        m
        for m in fake.messages(thread)
        if any(a.filename == "crosstable.png" for a in m.attachments)
    ]


def game_threads(fake: FakeDiscord, lobby: FakeChannel) -> list[FakeChannel]:
    return [t for t in fake.threads(lobby) if t.name.startswith("Club Cup · R")]


def intro(fake: FakeDiscord, thread: FakeChannel) -> FakeMessage | None:
    """The game's first post in its thread: the board, both players, the round."""
    return next((m for m in fake.messages(thread) if "the game begins" in m.content), None)


async def run_tournament(
    world: World, db: Path, fmt: str, expected_games: int, **options: object
) -> None:
    fake = world.fake
    admins = fake.add_role(world.guild, "admins", permissions=MANAGE_GUILD)
    dana = fake.add_user("dana")
    fake.add_member(world.guild, dana, roles=[admins])
    organisers = fake.add_role(world.guild, "Organisers")  # no permission of its own
    olga = fake.add_user("olga")
    fake.add_member(world.guild, olga, roles=[organisers])
    players = [world.alice, world.bob, world.carol]
    clock = ManualClock()
    bot = FairyPost(database=db, clock=clock)
    async with run_bot(fake, bot):
        # Only Manage Server, or the organisers' role once /config names it.
        create = {"name": "Club Cup", "variant": "patricia", "format": fmt}
        refused = await (await fake.slash(olga, world.lobby, "tournament create", **create)).reply()
        assert refused.ephemeral and "Manage Server or the organisers' role" in refused.text
        saved = await (await fake.slash(dana, world.lobby, "config", organisers=organisers)).reply()
        assert f"<@&{organisers.id}>" in saved.text
        signup = await (
            await fake.slash(olga, world.lobby, "tournament create", days_per_move=3,
                             **create, **options)
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
        assert home.id == signup.id, "the tournament's thread opens from its sign-up post"
        await fake.wait_until(
            lambda: len(crosstables(fake, home)) >= 1, WAIT, "the first crosstable"
        )
        await fake.wait_until(lambda: not signup.buttons, WAIT, "sign-up closed")
        await fake.wait_until(lambda: "Round 1" in fake.messages(home)[-1].text, WAIT, "pairings")

    # A restart: the same database, a new process; the old sign-up post stays closed, and
    # nothing already posted is posted again.
    posted_before = len(fake.messages(home))
    bot = FairyPost(database=db, clock=clock)
    resigned: set[int] = set()
    async with run_bot(fake, bot):

        def playable() -> list[FakeChannel]:
            return [
                t
                for t in game_threads(fake, world.lobby)
                if t.id not in resigned and intro(fake, t) is not None
            ]

        while len(resigned) < expected_games:
            await fake.wait_until(lambda: bool(playable()), WAIT, "a game to play")
            thread = playable()[0]
            first = intro(fake, thread)
            assert first is not None and "of **Club Cup**" in first.content
            assert first.attachments and first.attachments[0].is_png
            # The game's thread opened from its post in the channel.
            post = fake.messages_by_id[thread.id]
            assert "Club Cup" in post.content and post.mention_ids == first.mention_ids
            white, black = (next(p for p in players if p.id == i) for i in first.mention_ids[:2])
            tables = len(crosstables(fake, home))
            last = len(resigned) == expected_games - 1
            if last:
                # The last game: Black withdraws, which resigns it, in its thread too.
                await withdraw(fake, world, black, thread)
            else:
                reply = await (await fake.slash(black, thread, "resign")).reply()
                assert "resigned" in reply.text
            resigned.add(thread.id)
            await fake.wait_until(
                lambda n=tables: len(crosstables(fake, home)) > n, WAIT, "the table after a result"
            )
            assert white.id != black.id
        await fake.wait_until(
            lambda: any("is over" in m.content for m in fake.messages(home)), WAIT, "the end"
        )
        assert len(fake.messages(home)) > posted_before
        final = next(m for m in fake.messages(home) if "is over" in m.content)
        assert final.attachments[0].is_png and final.attachments[0].width >= 450
        assert (final.attachments[0].description or "").startswith("Crosstable of Club Cup")
        # Every post once: the thread's posts are all different, and each game thread has
        # one first post and one end post.
        texts = Counter(m.content for m in fake.messages(home))
        assert set(texts.values()) == {1}, texts
        for thread in game_threads(fake, world.lobby):
            contents = [m.content for m in fake.messages(thread)]
            assert sum("the game begins" in c for c in contents) == 1
        # The standings command at any time, the pairings and the games.
        standings = await (await fake.slash(world.alice, home, "tournament standings")).reply()
        assert standings.attachments[0].filename == "crosstable.png"
        games = await (await fake.slash(world.alice, home, "tournament games")).reply()
        assert games.text.count("R") >= expected_games
        pairings = await (await fake.slash(world.alice, home, "tournament pairings")).reply()
        assert "pairings" in pairings.text
    assert len(game_threads(fake, world.lobby)) == expected_games


async def withdraw(fake: FakeDiscord, world: World, player: FakeUser, thread: FakeChannel) -> None:
    """`/tournament withdraw` from the game's own thread (it names the tournament)."""
    reply = await (await fake.slash(player, thread, "tournament withdraw")).reply()
    assert "withdrew from the tournament" in reply.text and "Games resigned: #" in reply.text
    ended = await fake.wait_for_message(
        thread, lambda m: f"{player.name} resigned." in m.text, timeout=WAIT,
        include_existing=True,
    )  # fmt: skip
    assert "withdrew from the tournament" in ended.content


async def test_a_round_robin_from_sign_up_to_the_final_crosstable(
    world: World, tmp_path: Path
) -> None:
    await run_tournament(world, tmp_path / "rr.sqlite3", "round-robin", expected_games=3)


async def test_a_swiss_from_sign_up_to_the_final_crosstable(world: World, tmp_path: Path) -> None:
    # Three players, two rounds: a bye in each round, never to the same player.
    await run_tournament(world, tmp_path / "swiss.sqlite3", "swiss", expected_games=2, rounds=2)


async def test_a_tournament_in_the_servers_own_variant(world: World, tmp_path: Path) -> None:
    """/tournament create offers this server's variants in its autocomplete and plays one:
    its games' threads show the server's variant."""
    fake = world.fake
    admins = fake.add_role(world.guild, "admins", permissions=MANAGE_GUILD)
    fake.add_member(world.guild, world.carol, roles=[admins])
    bot = FairyPost(database=tmp_path / "own.sqlite3", clock=ManualClock())
    async with run_bot(fake, bot):
        defined = await define(fake, world, world.alice, HAWK_V1)
        assert "is now one of this server's variants" in defined.text
        choices = await fake.autocomplete(
            world.carol, world.lobby, "tournament create", focused="variant", value="hawk",
            name="Hawk Cup", format="round-robin",
        )  # fmt: skip
        assert (choices[0].name, choices[0].value) == (
            "Hawk Chess · this server's (v1)",
            "hawk-chess",
        )
        signup = await (
            await fake.slash(world.carol, world.lobby, "tournament create", name="Hawk Cup",
                             variant="hawk-chess", format="round-robin")
        ).reply()  # fmt: skip
        assert "A round robin of **Hawk Chess**" in signup.text
        for p in (world.alice, world.bob):
            await (await fake.click(p, signup, label="Join")).response()
        await fake.wait_until(lambda: "alice, bob" in signup.text, WAIT, "two players")
        await (await fake.slash(world.carol, world.lobby, "tournament start")).reply()

        def threads() -> list[FakeChannel]:
            return [t for t in fake.threads(world.lobby) if t.name.startswith("Hawk Cup · R1: ")]

        await fake.wait_until(lambda: bool(threads()), WAIT, "the game's thread")
        (thread,) = threads()
        first = await fake.wait_for_message(
            thread, lambda m: "the game begins" in m.content, timeout=WAIT, include_existing=True
        )
        assert "Hawk Chess" in first.text and "Round 1 of **Hawk Cup**" in first.content


async def test_sign_up_buttons_survive_a_restart_and_the_start_time_closes_sign_up(
    world: World, tmp_path: Path
) -> None:
    """The sign-up post's buttons work in a process started after the post was made; only
    an organiser creates or starts (a player with neither Manage Server nor the role is
    refused, also once the role is set); the start time closes sign-up by itself."""
    fake = world.fake
    organisers = fake.add_role(world.guild, "Organisers")
    olga = fake.add_user("olga")
    fake.add_member(world.guild, olga, roles=[organisers])
    admins = fake.add_role(world.guild, "admins", permissions=MANAGE_GUILD)
    dana = fake.add_user("dana")
    fake.add_member(world.guild, dana, roles=[admins])
    db, clock = tmp_path / "signup.sqlite3", ManualClock()
    create = {"name": "Timed Cup", "variant": "chess", "format": "round-robin"}
    async with run_bot(fake, FairyPost(database=db, clock=clock)):
        await (await fake.slash(dana, world.lobby, "config", organisers=organisers)).reply(WAIT)
        signup = await (
            await fake.slash(olga, world.lobby, "tournament create", starts_in_hours=2, **create)
        ).reply(WAIT)
        await (await fake.click(world.alice, signup, label="Join")).response(WAIT)
        await fake.wait_until(lambda: "alice" in signup.text, WAIT, "alice signed up")
    async with run_bot(fake, FairyPost(database=db, clock=clock)) as runner:
        bot = runner.client
        # The buttons of the post made by the first process.
        for p in (world.bob, world.carol):
            await (await fake.click(p, signup, label="Join")).response(WAIT)
        await fake.wait_until(lambda: "alice, bob, carol" in signup.text, WAIT, "three players")
        await (await fake.click(world.carol, signup, label="Leave")).response(WAIT)
        await fake.wait_until(lambda: "carol" not in signup.text, WAIT, "carol left")
        await (await fake.click(world.carol, signup, label="Join")).response(WAIT)
        await fake.wait_until(lambda: "alice, bob, carol" in signup.text, WAIT, "carol is back")
        # A player without the role or the permission can neither create nor start.
        for command, options in (("tournament create", create), ("tournament start", {})):
            refused = await (await fake.slash(world.bob, world.lobby, command, **options)).reply(
                WAIT
            )
            assert refused.ephemeral and "Manage Server or the organisers' role" in refused.text
        # At the start time (stored, not kept in memory) sign-up closes by itself, the
        # buttons go and round 1 is paired.
        clock.advance(2 * 3600)
        bot.effects.poke()
        home = await fake.wait_for_thread("🏆 Timed Cup", parent=world.lobby, timeout=WAIT)
        await fake.wait_until(lambda: not signup.buttons, WAIT, "sign-up closed")
        await fake.wait_until(
            lambda: any("Round 1" in m.text for m in fake.messages(home)), WAIT, "round 1"
        )
        assert len(game_threads_of(fake, world.lobby, "Timed Cup")) == 3
        standings = await (await fake.slash(world.bob, home, "tournament standings")).reply(WAIT)
        assert standings.attachments[0].filename == "crosstable.png"


def game_threads_of(fake: FakeDiscord, lobby: FakeChannel, name: str) -> list[FakeChannel]:
    return [t for t in fake.threads(lobby) if t.name.startswith(f"{name} · R")]
