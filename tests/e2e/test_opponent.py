"""Playing Fairy Post itself, end to end on the stand-in: `/challenge opponent:@Fairy Post`
starts the game at once, the bot answers every move in its thread, and a human (whose moves
a stronger search picks, budgeted by nodes) plays it to the end, in Bigorra, Patricia and a
server's own variant; `/takeback` is granted on the spot."""

from __future__ import annotations

import asyncio
import math
import statistics
from pathlib import Path

import pytest

from bot.client import FairyPost
from bot.service.opponent import EngineConfig
from localdiscord import FakeChannel, FakeDiscord, FakeUser, run_bot
from search import best_move
from storage.models import Game, Termination
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import play, posted
from tests.e2e.test_variants import HAWK_V1, define

BOT_NODES = 500  # the bot plays level 1 within this many nodes a move: a beginner
HUMAN_NODES = 20_000  # the human's moves: a full-strength search of this many nodes
MAX_PLIES = 240
WAIT = 120.0  # generous: the machine is shared; a reply that never comes fails anyway


async def engine_replied(bot: FairyPost, game_id: int, human: int) -> Game:
    """The game once it is the human's turn again, or over."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + WAIT
    while True:
        game = await bot.storage.games.get(game_id)
        if not game.is_active or game.to_move_id == human:
            return game
        if loop.time() > give_up:
            raise AssertionError(f"the bot did not answer at ply {game.ply_count}")
        await asyncio.sleep(0.05)


async def challenge_the_bot(
    fake: FakeDiscord, world: World, bot: FairyPost, variant: str
) -> tuple[FakeChannel, int]:
    rec = await fake.slash(
        world.alice,
        world.lobby,
        "challenge",
        variant=variant,
        opponent=fake.bot_user,
        color="white",
        level=1,
        days_per_move=1,
    )
    reply = await rec.reply(timeout=WAIT)
    assert "against Fairy Post (level 1)" in reply.text, reply.text
    thread = await fake.wait_for_thread(parent=world.lobby, timeout=WAIT)
    start = await posted(fake, thread, 0, lambda m: "the game begins" in m.content)
    assert fake.bot_user.id in start.mention_ids and world.alice.id in start.mention_ids
    (game,) = await bot.storage.games.list_active(world.alice.id)
    assert not game.rated and game.engine_level == 1
    return thread, game.id


async def play_to_the_end(
    fake: FakeDiscord, bot: FairyPost, thread: FakeChannel, game_id: int, human: FakeUser
) -> Game:
    """The human plays the search's choice until the game ends; the bot answers each."""
    for _ in range(MAX_PLIES):
        game = await engine_replied(bot, game_id, human.id)
        if not game.is_active:
            return game
        rules_game = await bot.service.rules(game)
        choice = best_move(rules_game, 6, movetime=math.inf, nodes=HUMAN_NODES)
        assert choice is not None
        post = await play(fake, human, thread, choice.coordinates)
        assert not post.ephemeral, post.text
    raise AssertionError(f"no result after {MAX_PLIES} plies")


def bot_for(tmp_path: Path) -> FairyPost:
    return FairyPost(
        database=tmp_path / "fp.sqlite3",
        engine=EngineConfig(workers=1, pause=0.05, nodes=BOT_NODES),
    )


async def won(fake: FakeDiscord, thread: FakeChannel, game: Game, how: str) -> None:
    assert game.result is not None and game.result.value == "1-0", game
    assert game.termination is Termination.RULES and how in game.end_detail, game.end_detail
    await posted(fake, thread, 0, lambda m: "White wins" in m.text)
    # The bot spoke in the thread: its moves, in its own name.
    assert any(" played **" in m.text and "is thinking" not in m.text for m in thread.messages)


@pytest.mark.parametrize(("variant", "how"), [("bigorra", "checkmate"), ("patricia", "royal")])
async def test_a_game_against_the_bot_to_the_end(
    world: World, tmp_path: Path, variant: str, how: str
) -> None:
    fake = world.fake
    bot = bot_for(tmp_path)
    async with run_bot(fake, bot):
        thread, game_id = await challenge_the_bot(fake, world, bot, variant)
        if variant == "patricia":
            # A takeback is granted at once: the human's move and the bot's reply go back.
            game = await bot.storage.games.get(game_id)
            rules_game = await bot.service.rules(game)
            first = best_move(rules_game, 6, movetime=math.inf, nodes=HUMAN_NODES)
            assert first is not None
            await play(fake, world.alice, thread, first.coordinates)
            await engine_replied(bot, game_id, world.alice.id)
            rec = await fake.slash(world.alice, thread, "takeback")
            granted = await rec.reply(timeout=WAIT)
            assert "Fairy Post allows the takeback" in granted.text, granted.text
            game = await bot.storage.games.get(game_id)
            assert game.ply_count == 0 and game.to_move_id == world.alice.id
        game = await play_to_the_end(fake, bot, thread, game_id, world.alice)
        await won(fake, thread, game, how)
        replies = bot.opponent.replies
        assert replies, "the bot never moved"
        print(
            f"\n{variant}: {game.ply_count} plies; bot replies median "
            f"{statistics.median(replies):.2f}s, max {max(replies):.2f}s"
        )


async def test_a_game_against_the_bot_in_the_servers_own_variant(
    world: World, tmp_path: Path
) -> None:
    fake = world.fake
    bot = bot_for(tmp_path)
    async with run_bot(fake, bot):
        defined = await define(fake, world, world.alice, HAWK_V1)
        assert not defined.ephemeral, defined.text
        thread, game_id = await challenge_the_bot(fake, world, bot, "hawk-chess")
        game = await bot.storage.games.get(game_id)
        assert game.definition_digest is not None
        game = await play_to_the_end(fake, bot, thread, game_id, world.alice)
        await won(fake, thread, game, "checkmate")
        replies = bot.opponent.replies
        print(
            f"\nhawk-chess: {game.ply_count} plies; bot replies median "
            f"{statistics.median(replies):.2f}s, max {max(replies):.2f}s"
        )
