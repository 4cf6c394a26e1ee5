"""A server's own variant end to end on the stand-in: defined from an attached file, played
to checkmate, edited in the middle of the game without changing it, listed, shown, exported
and deleted, with the refusals a player meets on the way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from localdiscord import FakeDiscord, FakeMessage, FakeUser
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import fairypost, play, posted, start_game

# Chess with a Hawk for the Queen: a Bishop that may also leap like a Xiangqi Horse.
HAWK_V1 = b"""\
id = "hawk-chess"
name = "Hawk Chess"
description = "Chess with a Hawk (Bishop + lame Knight) instead of the Queen."
extends = "chess"

[pieces]
queen = false
hawk = { letter = "H", betza = "BnN" }
pawn.promotion.to = ["hawk", "rook", "bishop", "knight"]

[setup]
1 = "R N B H K B N R"
"""
# Version 2: the Hawk loses its Bishop's slide (only the lame Knight's leap is left).
HAWK_V2 = HAWK_V1.replace(b'betza = "BnN"', b'betza = "nN"')


async def define(
    fake: FakeDiscord,
    world: World,
    user: FakeUser,
    data: bytes,
    answers: list[FakeMessage] | None = None,
) -> FakeMessage:
    """The private answer to /variant define (also appended to `answers`); on success, the
    channel's announcement, which the effects loop posts."""
    since = len(world.lobby.messages)
    rec = await fake.slash(user, world.lobby, "variant define", file=("hawk-chess.toml", data))
    answer = await rec.reply(timeout=30)
    if answers is not None:
        answers.append(answer)
    if "is defined" not in answer.text:
        return answer
    assert answer.ephemeral
    return await posted(
        fake, world.lobby, since, lambda m: any(a.filename == "board.png" for a in m.attachments)
    )


async def test_define_play_to_mate_and_edit_mid_game(world: World, tmp_path: Path) -> None:
    fake = world.fake
    alice, bob = world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        # A file with a mistake: the author is told where and how to fix it, privately.
        bad = await define(
            fake, world, alice, HAWK_V1.replace(b"R N B H K B N R", b"R N B H K B N")
        )
        assert bad.ephemeral
        assert "hawk-chess.toml, line 12: setup.1: has 7 squares" in bad.text
        assert "Example:" in bad.text

        # The real definition: the start position, a diagram of the new piece, the summary.
        answers: list[FakeMessage] = []
        defined = await define(fake, world, alice, HAWK_V1, answers)
        assert not defined.ephemeral
        text = defined.text
        assert "`hawk-chess` is now one of this server's variants" in text
        assert "New to Fairy Post" in text and "Hawk (H)" in text
        assert "perft 2: 400" in answers[0].text  # the sanity run, for the author
        files = defined.attachments
        assert [a.filename for a in files] == ["board.png", "piece-0.png"]
        assert all(a.is_png for a in files)

        # The variant is offered beside the built-in ones, marked as the server's.
        choices = await fake.autocomplete(
            bob, world.lobby, "challenge", focused="variant", value="hawk"
        )
        assert (choices[0].name, choices[0].value) == (
            "Hawk Chess · this server's (v1)",
            "hawk-chess",
        )
        rules = await (await fake.slash(bob, world.lobby, "rules", variant="hawk-chess")).reply()
        assert "Hawk Chess · this server's v1" in rules.text

        thread, start = await start_game(world, "hawk-chess", alice, bob)
        assert "Hawk Chess" in start.text
        await play(fake, alice, thread, "f2-f3")
        await play(fake, bob, thread, "e7-e5")

        # Mid-game the author edits the variant: the Hawk may no longer slide.
        edited = await define(fake, world, alice, HAWK_V2)
        assert "Version 2 of `hawk-chess` replaces version 1" in edited.text
        # Bob may not replace Alice's variant (he does not manage the server).
        refused = await define(fake, world, bob, HAWK_V1)
        assert refused.ephemeral and "Only the author" in refused.text

        # The running game is unchanged: its Hawk still slides, and mates like a Queen.
        await play(fake, alice, thread, "g2-g4")
        mate = await play(fake, bob, thread, "Hd8-h4")
        assert not mate.ephemeral, mate.text
        assert "Black wins by checkmate" in mate.text
        history = await (await fake.slash(alice, thread, "history")).reply()
        record = history.attachments[0].data.decode()
        assert "# result: black wins by checkmate" in record and "2... Hd8-h4++" in record

        # A new game gets version 2, whose Hawk cannot slide to h4.
        rec = await fake.slash(
            alice, world.lobby, "challenge", variant="hawk-chess", opponent=bob, color="white"
        )
        await (await fake.click(bob, await rec.reply(), label="Accept")).response()
        await fake.wait_until(lambda: len(fake.threads(world.lobby)) == 2, 10, "a second game")
        thread2 = fake.threads(world.lobby)[1]
        await fake.wait_for_message(thread2, include_existing=True)
        for user, move in ((alice, "f2-f3"), (bob, "e7-e5"), (alice, "g2-g4")):
            assert not (await play(fake, user, thread2, move)).ephemeral
        refusal = await play(fake, bob, thread2, "Hd8-h4")
        assert refusal.ephemeral and "cannot move from d8 to h4" in refusal.text

        listing = await (await fake.slash(alice, world.lobby, "variant list")).reply()
        assert "Hawk Chess" in listing.text and "v2 by alice" in listing.text
        assert "2 games" in listing.text
        exported = await (
            await fake.slash(alice, world.lobby, "variant export", variant="hawk-chess")
        ).reply()
        assert exported.attachments[0].filename == "hawk-chess-v2.toml"
        assert exported.attachments[0].data == HAWK_V2

        # Deleted, the variant leaves the lists; its games keep working.
        deleted = await (
            await fake.slash(alice, world.lobby, "variant delete", variant="hawk-chess")
        ).reply()
        assert "is no longer one of this server's variants" in deleted.text
        gone = await (
            await fake.slash(bob, world.lobby, "challenge", variant="hawk-chess", opponent=alice)
        ).reply()
        assert gone.ephemeral and "unknown variant 'hawk-chess'" in gone.text
        board = await (await fake.slash(bob, thread2, "board")).reply()
        assert "Hawk Chess" in board.text and board.attachments[0].is_png
        await play(fake, bob, thread2, "Hd8-f7")  # a lame Knight's leap of version 2


def _variant_options(node: dict[str, Any], path: str = "") -> list[tuple[str, str]]:
    """(command, option) of every autocompleted variant option of a registered command."""
    out: list[tuple[str, str]] = []
    for option in node.get("options") or []:
        if option.get("type") in (1, 2):
            out += _variant_options(option, f"{path} {option['name']}".strip())
        elif option.get("name") == "variant" and option.get("autocomplete"):
            out.append((path, "variant"))
    return out


async def test_an_exact_name_comes_first_in_every_variant_autocomplete(
    world: World, tmp_path: Path
) -> None:
    """Typing `chess` offers Chess first, not this server's Hawk Chess; typing `hawk chess`
    offers Hawk Chess before Big Hawk Chess, which was defined earlier: in every command
    with a variant option (/challenge, /rules, /piece, /rating, /leaderboard, /tournament
    create, /variant show …), since Enter takes the first suggestion."""
    fake = world.fake
    big = HAWK_V1.replace(b'"hawk-chess"', b'"big-hawk-chess"').replace(
        b'"Hawk Chess"', b'"Big Hawk Chess"'
    )
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        assert "is now one of" in (await define(fake, world, world.alice, big)).text
        assert "is now one of" in (await define(fake, world, world.alice, HAWK_V1)).text
        registered = fake.commands() + fake.commands(world.guild)
        found = [
            (f"{cmd['name']} {sub}".strip(), option)
            for cmd in registered
            for sub, option in _variant_options(cmd)
        ]
        assert {"challenge", "rules", "leaderboard", "tournament create", "variant show"} <= {
            name for name, _ in found
        }
        for command, option in found:
            mine = await fake.autocomplete(
                world.bob, world.lobby, command, focused=option, value="hawk chess"
            )
            assert [c.value for c in mine[:2]] == ["hawk-chess", "big-hawk-chess"], command
            builtin = await fake.autocomplete(
                world.bob, world.lobby, command, focused=option, value="chess"
            )
            if command.startswith("variant "):  # a server's own variants only
                assert [c.value for c in builtin[:2]] == ["big-hawk-chess", "hawk-chess"]
            else:
                assert builtin[0].value == "chess", (command, builtin[:3])
                assert builtin[0].name == "Chess (8×8)"
