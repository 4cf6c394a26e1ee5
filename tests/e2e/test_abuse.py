"""The abuse suite on the stand-in of Discord: the real bot, as a hostile member meets it.

- a tournament named `@everyone Cup`, played by members whose display names hold mentions,
  markdown and a right-to-left override: from its sign-up to its winner, no message pings
  anyone but the players it names (the stand-in also records any message that pings
  everyone, here or a role as a violation, which fails every test);
- a game number used from another server, or in direct messages by someone who does not
  play it, shows nothing, with the same words as a number that names no game;
- a variant file with every text at its longest and mentions in its names: its
  announcement, /rules, /variant show, /variants, /variant list, /piece, a challenge and a
  game all fit Discord's limits (the stand-in refuses what Discord refuses); the same file
  again is no new version.
"""

from __future__ import annotations

import re
from pathlib import Path

from localdiscord import FakeChannel, FakeMessage
from localdiscord.validation import MAX_EMBED_TOTAL, embed_length
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import fairypost, posted, start_game
from tests.hostile import maximal_variant

MANAGE_GUILD = 1 << 5
WAIT = 60.0  # a bound for a loaded machine, not a speed requirement


def every_message(world: World) -> list[FakeMessage]:
    fake = world.fake
    channels: list[FakeChannel] = list(fake.channels.values())
    return [m for c in channels for m in c.messages if not m.deleted]


async def test_a_tournament_named_everyone_pings_no_one(world: World, tmp_path: Path) -> None:
    fake = world.fake
    admins = fake.add_role(world.guild, "admins", permissions=MANAGE_GUILD)
    dana = fake.add_user("dana", global_name="@here **Dana**")
    fake.add_member(world.guild, dana, roles=[admins])
    spectator = world.carol
    mallory = fake.add_user(
        "mallory",
        guild=world.guild,
        global_name=f"\u202e@everyone **M** <@{spectator.id}> <@&{admins.id}>",
    )
    players = [world.alice, world.bob, mallory]
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        signup = await (
            await fake.slash(
                dana, world.lobby, "tournament create", name="@everyone Cup", variant="chess",
                format="round-robin",
            )
        ).reply()  # fmt: skip
        for p in players:
            await (await fake.click(p, signup, label="Join")).response()
        started = await (await fake.slash(dana, world.lobby, "tournament start")).reply()
        assert "@everyone Cup" in started.text.replace("\u200b", "")
        games = await _game_threads(world, 3)
        for thread in games:
            first = next(m for m in thread.messages if "the game begins" in m.content)
            black = next(p for p in players if p.id == first.mention_ids[1])
            await (await fake.slash(black, thread, "resign")).reply()
        home = await fake.wait_for_thread("🏆 @everyone Cup", parent=world.lobby, timeout=WAIT)
        await fake.wait_until(
            lambda: any("is over" in m.content for m in home.messages), WAIT, "the winner"
        )
    pinged = {p.id for p in players}
    messages = every_message(world)
    assert len(messages) >= 17  # sign-up, start, game posts, boards, pairings, tables, results
    for m in messages:
        assert not m.mention_everyone, m.content
        assert m.mention_roles == [], m.content
        assert set(m.mention_ids) <= pinged, (m.content, m.mention_ids)
        assert spectator.id not in m.mention_ids and dana.id not in m.mention_ids
    # The name is shown as typed (with an invisible space after its @) wherever it appears.
    assert any("@\u200beveryone Cup" in m.text for m in messages)
    # The right-to-left override of a display name never reaches a message.
    assert not any("\u202e" in m.text for m in messages)


async def _game_threads(world: World, n: int) -> list[FakeChannel]:
    fake = world.fake

    def ready() -> list[FakeChannel]:
        return [
            t
            for t in fake.threads(world.lobby)
            if not t.name.startswith("🏆")
            and any("the game begins" in m.content for m in t.messages)
        ]

    await fake.wait_until(lambda: len(ready()) == n, WAIT, f"{n} game threads")
    return ready()


async def test_a_game_number_from_another_server_shows_nothing(
    world: World, tmp_path: Path
) -> None:
    fake = world.fake
    other = fake.add_guild("Other Club")
    elsewhere = fake.add_channel(other, "lobby")
    fake.add_member(other, world.carol)
    fake.add_member(other, world.alice)
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        _thread, start = await start_game(world, "chess", world.alice, world.bob)
        found = re.search(r"game #(\d+)", start.text)
        assert found is not None
        number = int(found.group(1))
        attempts = [
            (world.carol, elsewhere, "board", {"game": number}),
            (world.carol, elsewhere, "history", {"game": number}),
            (world.carol, elsewhere, "analyze", {"game": number}),
            (world.carol, elsewhere, "moves", {"square": "e2", "game": number}),
            (world.alice, elsewhere, "board", {"game": number}),  # a player, elsewhere
            (world.alice, elsewhere, "move", {"move": "e4", "game": number}),
            (world.carol, fake.dm_channel(world.carol, create=True), "history", {"game": number}),
            (world.carol, elsewhere, "board", {"game": number + 50}),  # no such game at all
        ]
        for user, channel, command, options in attempts:
            reply = await (await fake.slash(user, channel, command, **options)).reply(WAIT)
            assert reply.ephemeral, (command, reply.text)
            assert "There is no game #" in reply.text and " here" in reply.text, reply.text
            assert not reply.attachments and not reply.embeds
        listing = await (await fake.slash(world.carol, elsewhere, "games", user=world.alice)).reply(
            WAIT
        )
        assert "No game in progress" in listing.text
        # Its players see it in direct messages; everyone sees it in its own server.
        mine = await (
            await fake.slash(
                world.alice, fake.dm_channel(world.alice, create=True), "board", game=number
            )
        ).reply(WAIT)
        assert mine.attachments and f"game #{number}" in mine.text
        here = await (await fake.slash(world.carol, world.lobby, "board", game=number)).reply(WAIT)
        assert here.attachments and f"game #{number}" in here.text
        assert not any(m.channel is elsewhere and m.attachments for m in every_message(world))


async def test_the_longest_variant_fits_every_message(world: World, tmp_path: Path) -> None:
    fake = world.fake
    data = maximal_variant().encode()
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        since = len(world.lobby.messages)
        rec = await fake.slash(world.alice, world.lobby, "variant define", file=("m.toml", data))
        answer = await rec.reply(WAIT)
        assert answer.ephemeral and "version 1 is defined" in answer.text, answer.text
        announcement = await posted(
            fake,
            world.lobby,
            since,
            lambda m: any(a.filename == "board.png" for a in m.attachments),
        )
        # The board, and a diagram for each piece new to Fairy Post (all in one message).
        assert len(announcement.embeds) == len(announcement.attachments) >= 2
        assert sum(embed_length(e) for e in announcement.embeds) <= MAX_EMBED_TOTAL
        again = await (
            await fake.slash(world.alice, world.lobby, "variant define", file=("m.toml", data))
        ).reply(WAIT)
        assert again.ephemeral and "already version 1 of `maximal`" in again.text
        for command, options in (
            ("rules", {"variant": "maximal"}),
            ("variant show", {"variant": "maximal"}),
            ("variants", {}),
            ("variant list", {}),
            ("piece", {"variant": "maximal", "piece": "AA"}),
        ):
            reply = await (await fake.slash(world.bob, world.lobby, command, **options)).reply(WAIT)
            assert reply.embeds, (command, reply.text)
            assert "went wrong" not in reply.text
        thread, start = await start_game(world, "maximal", world.alice, world.bob)
        assert start.attachments
        history = await (await fake.slash(world.alice, thread, "history")).reply(WAIT)
        assert history.attachments
    for m in every_message(world):
        assert not m.mention_everyone and m.mention_roles == []
