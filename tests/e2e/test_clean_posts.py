"""Posts stay true after the fact: declined and withdrawn challenges, draw offers and
takeback requests that lapse (also across a restart), planning ahead with /moves, and
the autocomplete of /move narrowing as a player types."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from bot.service.models import UserRef
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import fairypost, play, start_game

WAIT = 30.0


def recorded_posts(db: Path) -> int:
    """Offer posts the bot has stored (read from its database file, for `wait_until`)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT count(*) FROM offer_posts").fetchone()[0])


async def test_declined_and_withdrawn_challenges_say_so(world: World, tmp_path: Path) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        for who, word in [(bob, "declined"), (alice, "withdrew")]:
            challenge = await (
                await fake.slash(alice, world.lobby, "challenge", variant="bigorra", opponent=bob)
            ).reply(WAIT)
            assert "you are challenged" in challenge.content and challenge.attachments
            await (await fake.click(who, challenge, label="Decline")).response(WAIT)
            await fake.wait_until(lambda c=challenge: c.edited, WAIT, "the edited challenge")
            assert challenge.content == f"{who.name} {word} this challenge."
            assert not challenge.buttons and not challenge.attachments
            embed = challenge.embed
            assert embed is not None and "image" not in embed  # no broken picture
            status = {f["name"]: f["value"] for f in embed["fields"]}["Status"]
            assert status == ("declined" if who is bob else "cancelled")


async def test_lapsed_offers_lose_their_buttons(world: World, tmp_path: Path) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    db = tmp_path / "fp.sqlite3"
    async with fairypost(fake, db):
        thread, _ = await start_game(world, "chess", alice, bob)
        await play(fake, alice, thread, "e4")
        offer = await (await fake.slash(bob, thread, "draw")).reply(WAIT)
        assert [b["label"] for b in offer.buttons] == ["Accept draw", "Decline"]
        assert "offers a draw. (It stands until bob moves again.)" in offer.content
        await play(fake, bob, thread, "e5")  # bob moves: his own offer lapses
        await fake.wait_until(lambda: not offer.buttons, WAIT, "the lapsed offer's post")
        assert offer.content == "bob's draw offer lapsed: bob moved before it was accepted."
        # A takeback request whose post a crash left behind is corrected at the next start.
        request = await (await fake.slash(bob, thread, "takeback")).reply(WAIT)
        assert request.buttons
        await fake.wait_until(lambda: recorded_posts(db) == 2, WAIT, "the request's post stored")
    async with fairypost(fake, db) as runner:
        # A move made past the cogs, as if the process died before editing the post.
        await runner.client.service.play(
            channel_id=thread.id, user=UserRef(alice.id, "alice"), text="Nf3"
        )
        assert request.buttons
    async with fairypost(fake, db):
        await fake.wait_until(lambda: not request.buttons, WAIT, "the request's post at start")
        assert "bob's takeback request lapsed" in request.content


async def test_moves_plans_ahead_on_the_opponents_turn(world: World, tmp_path: Path) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", alice, bob)
        shown = await (await fake.slash(bob, thread, "moves", square="g8")).reply(WAIT)
        assert shown.ephemeral and shown.attachments[0].is_png
        assert "From g8 (Black's piece, on Black's next turn): Ng8-f6, Ng8-h6" in shown.text
        mine = await (await fake.slash(alice, thread, "moves", square="b1")).reply(WAIT)
        assert "From b1: Nb1-a3, Nb1-c3" in mine.text and "next turn" not in mine.text
        # On her own turn, alice looks at bob's Knight: his moves, said to be his.
        theirs = await (await fake.slash(alice, thread, "moves", square="b8")).reply(WAIT)
        assert "From b8 (Black's piece, on Black's next turn): Nb8-a6, Nb8-c6" in theirs.text
        assert "your turn" not in theirs.text


async def test_autocomplete_narrows_as_a_player_types(world: World, tmp_path: Path) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", alice, bob)
        for who, move in [(alice, "e4"), (bob, "d5"), (alice, "Nc3"), (bob, "Nf6")]:
            await play(fake, who, thread, move)

        async def values(typed: str) -> list[str]:
            found = await fake.autocomplete(alice, thread, "move", focused="move", value=typed)
            return [c.value for c in found]

        assert await values("x") == ["Nc3xd5", "e4xd5"]
        assert await values("xd") == ["Nc3xd5", "e4xd5"]
        assert await values("d5") == ["Nc3xd5", "e4xd5"]
        assert await values("Nd5") == ["Nc3xd5"]
        knights = await values("N")
        # By piece, then origin (files, then ranks), then destination.
        assert knights == [
            "Nc3-a4",
            "Nc3-b1",
            "Nc3-b5",
            "Nc3xd5",
            "Nc3-e2",
            "Ng1-e2",
            "Ng1-f3",
            "Ng1-h3",
        ]
        everything = await values("")
        assert len(everything) == 25
        assert everything[:3] == ["Ke1-e2", "Qd1-e2", "Qd1-f3"]
