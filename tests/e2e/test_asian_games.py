"""Xiangqi and Shogi on the stand-in, typed as their players write them (issue 27): a Xiangqi
game in WXF notation (C2=5, H8+7) and a Shogi game in Western notation (P-7f, Bx2b+, P*5e
style drops), with one move of each by the Move button (Xiangqi's H8+7, Shogi's B*5e drop),
each played to its end by resignation; the posts answer in the same notation (Shogi's long
form, with the origin: P7g-7f)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import World
from tests.e2e.test_fairypost import POST_TIMEOUT, fairypost, play, posted, start_game
from tests.e2e.test_move_button import (
    board_post,
    choose,
    latest_board,
    open_menu,
    options,
    press,
)


async def test_xiangqi_in_wxf_and_shogi_in_western_notation(world: World, tmp_path: Path) -> None:
    fake = world.fake
    alice, bob = world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, start = await start_game(world, "xiangqi", alice, bob)
        assert "Xiangqi" in start.text
        players = (alice, bob)
        # The central Cannon, Horses out, and the Cannon takes the centre Soldier with check.
        assert not (await play(fake, alice, thread, "C2=5")).ephemeral
        # Black answers by the Move button: the Horse on h10, to g8, shown in WXF.
        menu = await open_menu(fake, bob, await latest_board(fake, thread))
        await choose(fake, bob, menu, "h10")
        assert options(menu)["g8"] == "H8+7"
        await choose(fake, bob, menu, "g8")
        await board_post(fake, thread, "bob played **H8+7**")
        for ply, move in enumerate(("H2+3", "R9=8", "R1=2", "C8+4", "C5+4")):
            post = await play(fake, players[ply % 2], thread, move)
            assert not post.ephemeral, post.text
            assert f"**{move}" in post.text, post.text  # posted in WXF, as typed
        since = len(thread.messages)
        resigned = await (await fake.slash(bob, thread, "resign")).reply()
        assert "White wins by resignation" in resigned.text
        await posted(fake, thread, since, lambda m: "resign" in m.text)

        rec = await fake.slash(
            alice, world.lobby, "challenge", variant="shogi", opponent=bob, color="white"
        )
        await (await fake.click(bob, await rec.reply(), label="Accept")).response()
        await fake.wait_until(
            lambda: len(fake.threads(world.lobby)) == 2, POST_TIMEOUT, "the Shogi game"
        )
        thread = fake.threads(world.lobby)[1]
        start = await posted(fake, thread, 0, lambda m: "the game begins" in m.content)
        assert "Shogi" in start.text
        # The Bishops are exchanged (with a promotion) and one dropped back in the centre.
        for ply, (move, shown) in enumerate(
            (
                ("P-7f", "P7g-7f"),
                ("P-3d", "P3c-3d"),
                ("Bx2b+", "B8hx2b+"),
                ("Sx2b", "S3ax2b"),
            )
        ):
            post = await play(fake, players[ply % 2], thread, move)
            assert not post.ephemeral, post.text
            assert shown in post.text, post.text
        # Sente drops the Bishop back by the Move button: from the hand to 5e.
        menu = await open_menu(fake, alice, await latest_board(fake, thread))
        assert options(menu)["@B"] == "Bishop in hand"
        await choose(fake, alice, menu, "@B")
        while "e5" not in options(menu):
            await press(fake, alice, menu, "Next ▶")
        assert options(menu)["e5"] == "B*5e"
        await choose(fake, alice, menu, "e5")
        await board_post(fake, thread, "alice played **B*5e**")
        refused = await play(fake, bob, thread, "P*5e")  # Gote holds a Bishop, no Pawn
        assert refused.ephemeral
        since = len(thread.messages)
        resigned = await (await fake.slash(bob, thread, "resign")).reply()
        assert "White wins by resignation" in resigned.text
        await posted(fake, thread, since, lambda m: "resign" in m.text)
