"""Fairy-Stockfish as a partner, end to end on the stand-in: with FAIRYPOST_FAIRY_STOCKFISH
configured, `/challenge` at level 8 says who plays Fairy Post's moves (Fairy-Stockfish in
chess, Fairy Post's engine in Bigorra), the bot answers in the thread, and `/analyze` says
who reviewed."""

from __future__ import annotations

from pathlib import Path

from bot.client import FairyPost
from bot.service.opponent import EngineConfig
from localdiscord import run_bot
from rules.variant import load_variant
from search.partner import OWN_ENGINE
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import play
from tests.e2e.test_opponent import WAIT, engine_replied
from tests.fairy_stockfish import fairy_stockfish


async def test_level_8_and_the_review_name_the_engine(world: World, tmp_path: Path) -> None:
    fake = world.fake
    engine = EngineConfig(
        workers=1, pause=0.05, nodes=500, movetime=0.3, fairy_stockfish=fairy_stockfish()
    )
    bot = FairyPost(database=tmp_path / "fp.sqlite3", engine=engine)
    async with run_bot(fake, bot):
        replies = {}
        for variant in ("bigorra", "chess"):
            rec = await fake.slash(
                world.alice,
                world.lobby,
                "challenge",
                variant=variant,
                opponent=fake.bot_user,
                color="white",
                level=8,
                days_per_move=1,
            )
            replies[variant] = (await rec.reply(timeout=WAIT)).text
        assert bot.reviews is not None
        name = await bot.reviews.partner_for(load_variant("chess"))
        assert name.startswith("Fairy-Stockfish "), name
        assert f"against Fairy Post (level 8, played by {name})" in replies["chess"]
        assert f"(level 8, played by {OWN_ENGINE})" in replies["bigorra"], replies["bigorra"]
        # The chess game: Alice opens, Fairy-Stockfish answers.
        thread = await fake.wait_for_thread("Chess: alice vs Fairy Post", timeout=WAIT)
        active = await bot.storage.games.list_active(world.alice.id)
        (game,) = [g for g in active if g.variant_id == "chess"]
        await play(fake, world.alice, thread, "e2e4")
        game = await engine_replied(bot, game.id, world.alice.id)
        assert game.ply_count == 2
        review = await (await fake.slash(world.alice, thread, "analyze")).reply(WAIT)
        assert review.embed is not None, review.text
        assert review.embed["footer"]["text"].startswith(f"{name}: 3 positions"), review.embed
        record = review.attachments[0].data.decode()
        assert f"analysed by {name}" in record
