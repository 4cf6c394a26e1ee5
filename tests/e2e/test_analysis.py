"""/analyze end to end: a finished game reviewed, with its annotated record and graph; a
running game between two people refused."""

from __future__ import annotations

from pathlib import Path

from rules.record import read_record, replay_record
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import POST_TIMEOUT, fairypost, play, posted, start_game

# Black's 3... Ng8-f6?? allows the mate at once.
MOVES = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]


async def test_analyze_posts_the_annotated_record_and_the_graph(
    world: World, tmp_path: Path
) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", world.alice, world.bob)
        for i, move in enumerate(MOVES[:3]):
            await play(fake, (world.alice, world.bob)[i % 2], thread, move)
        # While two people play, nobody gets the engine's opinion: not a player, not a
        # spectator.
        for who in (world.alice, world.carol):
            refused = await (await fake.slash(who, thread, "analyze")).reply(POST_TIMEOUT)
            assert refused.ephemeral and "still being played" in refused.content
            assert not refused.attachments
        for i, move in enumerate(MOVES[3:], start=3):
            await play(fake, (world.alice, world.bob)[i % 2], thread, move)
        await posted(fake, thread, 0, lambda m: "checkmate" in m.text.lower())
        # Anyone may review a finished game, from anywhere, by its number.
        review = await (await fake.slash(world.carol, world.lobby, "analyze", game=1)).reply(
            POST_TIMEOUT * 5
        )
        assert not review.ephemeral
        names = [a.filename for a in review.attachments]
        assert names == ["fairypost-1-chess-analysis.txt", "evaluation.png"]
        record = review.attachments[0].data.decode()
        assert "3... Ng8-f6??" in record and "4. Qh5xf7++" in record
        assert len(replay_record(read_record(record)).history) == len(MOVES)
        graph = review.attachments[1]
        assert graph.is_png and graph.width is not None and 800 <= graph.width <= 1000
        words = graph.description or ""
        assert words.startswith(
            "Evaluation graph of Game #1, Chess: alice vs bob: White's winning chances after "
            "each move: 5"  # about 50% at the start
        )
        assert "100% after 4. Qh5xf7++" in words and "3... Ng8-f6??" in words
        embed = review.embed
        assert embed is not None and "Analysis of Game #1" in embed["title"]
        assert embed["image"]["url"].endswith("/evaluation.png")  # resolved, as Discord does
        turned = next(f for f in embed["fields"] if f["name"] == "Where the game turned")
        assert "3... Ng8-f6??" in turned["value"]
