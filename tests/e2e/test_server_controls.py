"""Server controls end to end on the stand-in: /config, /help, a moderator cancelling and
adjudicating a stuck game, /privacy and /forget-me."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.client import FairyPost
from localdiscord import CommandNotPermittedError, FakeMessage
from localdiscord.harness import BotRunner
from storage.models import EffectStatus
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import fairypost, play, start_game

MANAGE_GUILD = 1 << 5
MANAGE_THREADS = 1 << 34


def game_number(message: FakeMessage) -> int:
    found = re.search(r"game #(\d+)", message.text)
    assert found, message.text
    return int(found.group(1))


async def test_config_shows_and_changes_the_server_settings(world: World, tmp_path: Path) -> None:
    fake = world.fake
    admins = fake.add_role(world.guild, "admins", MANAGE_GUILD)
    organisers = fake.add_role(world.guild, "organisers")
    dana = fake.add_user("dana")
    fake.add_member(world.guild, dana, roles=[admins])
    games = fake.add_channel(world.guild, "games")
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        # Discord offers /config only to members with Manage Server.
        with pytest.raises(CommandNotPermittedError, match="0x20"):
            await fake.slash(world.alice, world.lobby, "config")
        shown = await (await fake.slash(dana, world.lobby, "config")).reply()
        assert shown.ephemeral
        for line in ("any channel", "rated unless", "3 days per move", "no role"):
            assert line in shown.text
        changed = await (
            await fake.slash(
                dana,
                world.lobby,
                "config",
                challenge_channel=games,
                rated="casual",
                days_per_move=7,
                organisers=organisers,
            )
        ).reply()
        assert "Saved." in changed.text
        assert f"<#{games.id}>" in changed.text and f"<@&{organisers.id}>" in changed.text
        assert "casual unless" in changed.text and "7 days per move" in changed.text
        # The challenge service follows them.
        refused = await (
            await fake.slash(world.alice, world.lobby, "challenge", variant="chess")
        ).reply()
        assert refused.ephemeral and f"<#{games.id}>" in refused.text
        posted = await (
            await fake.slash(world.alice, games, "challenge", variant="chess", opponent=world.bob)
        ).reply()
        assert "no (casual)" in posted.text and "7 days per move" in posted.text
        rated = await (
            await fake.slash(world.bob, games, "challenge", variant="chess", rated=True)
        ).reply()
        assert "Rated\nyes" in rated.text
        cleared = await (
            await fake.slash(dana, world.lobby, "config", clear="organisers", rated="off")
        ).reply()
        assert "no role" in cleared.text and "casual only" in cleared.text
        off = await (
            await fake.slash(world.bob, games, "challenge", variant="chess", rated=True)
        ).reply()
        assert off.ephemeral and "switched off" in off.text


async def test_help_lists_every_command_on_one_page(world: World, tmp_path: Path) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        page = await (await fake.slash(world.alice, world.lobby, "help")).reply()
        assert page.ephemeral
        registered = fake.global_commands
        assert len(registered) >= 20
        for command in registered:
            subs = [o for o in command.get("options", []) if o.get("type") == 1]
            names = [f"{command['name']} {s['name']}" for s in subs] or [command["name"]]
            for name in names:
                assert f"`/{name}`" in page.text
        longest = max(len(line) for line in page.text.splitlines())
        assert longest <= 110  # one line per command, short enough for a phone
        # First, what a newcomer wants: a game with someone, one against the bot, the rules.
        start = page.embed["fields"][0]
        assert start["name"] == "Start here"
        bot_id = fake.bot_user.id
        for what in ("`/challenge variant:chess`", f"opponent:` <@{bot_id}>", "`/rules`"):
            assert what in start["value"]


async def test_a_moderator_cancels_a_stuck_game(world: World, tmp_path: Path) -> None:
    fake = world.fake
    mods = fake.add_role(world.guild, "moderators", MANAGE_THREADS)
    mo = fake.add_user("mo")
    fake.add_member(world.guild, mo, roles=[mods])
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, start = await start_game(world, "chess", world.alice, world.bob)
        number = game_number(start)
        await play(fake, world.alice, thread, "e2e4")
        with pytest.raises(CommandNotPermittedError):
            await fake.slash(world.alice, world.lobby, "mod cancel", game=number)
        notice = await (
            await fake.slash(mo, world.lobby, "mod cancel", game=number, reason="both away")
        ).reply()
        assert notice.ephemeral  # the moderator's confirmation; the players read the thread
        assert f"Game #{number} cancelled: **Cancelled by a moderator: both away**" in notice.text
        in_thread = await fake.wait_for_message(
            thread, lambda m: "a moderator, cancelled" in m.text
        )
        assert "mo, a moderator, cancelled the game." in in_thread.text
        assert "Cancelled by a moderator: both away" in in_thread.text
        assert set(in_thread.mention_ids) & {world.alice.id, world.bob.id}
        refused = await (await fake.slash(world.bob, thread, "move", move="e7e5")).reply()
        assert refused.ephemeral and "over (cancelled by a moderator: both away)" in refused.text
        record = await (await fake.slash(world.alice, thread, "history")).reply()
        assert "cancelled by a moderator: both away" in record.attachments[0].data.decode()
        again = await (await fake.slash(mo, world.lobby, "mod cancel", game=number)).reply()
        assert again.ephemeral and "already over" in again.text
        ratings = await (await fake.slash(world.alice, world.lobby, "rating")).reply()
        assert "No rated game yet." in ratings.text  # a cancelled game changes no rating


async def test_a_moderator_adjudicates_a_rated_game(world: World, tmp_path: Path) -> None:
    fake = world.fake
    mods = fake.add_role(world.guild, "moderators", MANAGE_THREADS)
    mo = fake.add_user("mo")
    fake.add_member(world.guild, mo, roles=[mods])
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, start = await start_game(world, "chess", world.alice, world.bob, rated=True)
        number = game_number(start)
        notice = await (
            await fake.slash(
                mo,
                thread,
                "mod adjudicate",
                game=number,
                result="white",
                reason="Black left the server",
            )
        ).reply()
        assert "White wins by adjudication: Black left the server" in notice.text
        post = await fake.wait_for_message(
            thread, lambda m: "a moderator, adjudicated" in m.text, include_existing=True
        )
        assert "mo, a moderator, adjudicated the game." in post.text
        assert "alice: 1500 →" in post.text  # the rating change of a decided result
        others = [m for m in thread.messages if "a moderator, adjudicated" in m.text]
        assert len(others) == 1  # posted once


async def effects_carried_out(runner: BotRunner[FairyPost], timeout: float = 10.0) -> None:
    """Until the bot has carried out every recorded effect (posts, ratings)."""

    async def none_pending() -> None:
        while (await runner.client.storage.effects.counts()).get(EffectStatus.PENDING):
            await asyncio.sleep(0.02)  # polling a condition, bounded by the timeout

    await asyncio.wait_for(none_pending(), timeout)


async def test_privacy_and_forget_me(world: World, tmp_path: Path) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3") as runner:
        shown = await (await fake.slash(world.carol, world.lobby, "privacy")).reply()
        assert shown.ephemeral and "Discord id and display name" in shown.text
        assert "never reads messages" in shown.text and "/forget-me" in shown.text
        thread, start = await start_game(world, "chess", world.alice, world.bob, rated=True)
        number = game_number(start)
        # not while the game is going
        ask = await (await fake.slash(world.bob, world.lobby, "forget-me")).reply()
        assert ask.ephemeral and "cannot be undone" in ask.text
        refused = await (await fake.click(world.bob, ask, label="Forget me")).reply()
        assert f"#{number}" in refused.text and "finish or resign" in refused.text
        await (await fake.slash(world.bob, thread, "resign")).reply()
        # once the resignation is posted and rated (its recorded effects are carried out)
        await effects_carried_out(runner)
        ask = await (await fake.slash(world.bob, world.lobby, "forget-me")).reply()
        done = await (await fake.click(world.bob, ask, label="Forget me")).reply()
        assert "you are now **Anonymous 1** in 1 stored game;" in done.text
        assert not done.buttons
        # the game and alice's rating stay; bob's name is gone from them
        listing = await (await fake.slash(world.alice, world.lobby, "games", finished=True)).reply()
        assert "Anonymous 1" in listing.text and "bob" not in listing.text
        record = await (await fake.slash(world.alice, thread, "history")).reply()
        text = record.attachments[0].data.decode()
        assert "Anonymous 1" in text and "bob" not in text
        rating = await (
            await fake.slash(world.alice, world.lobby, "rating", variant="chess")
        ).reply()
        assert "alice" in rating.text and "No rated game yet." not in rating.text
        # someone the bot never saw
        ask = await (await fake.slash(world.carol, world.lobby, "forget-me")).reply()
        nothing = await (await fake.click(world.carol, ask, label="Forget me")).reply()
        assert "kept nothing about you" in nothing.text
        cancel = await (await fake.slash(world.alice, world.lobby, "forget-me")).reply()
        kept = await (await fake.click(world.alice, cancel, label="Cancel")).reply()
        assert "Nothing was changed" in kept.text
