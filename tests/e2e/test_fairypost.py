"""Fairy Post end to end: the real bot, real storage and real pictures, driven through the
local Discord stand-in the way players use it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from bot.client import FairyPost
from bot.service import ManualClock
from localdiscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, run_bot
from localdiscord.harness import BotRunner
from tests.e2e.conftest import World
from tests.rules.conftest import GAMES, record_moves

DAY = 86_400
POST_TIMEOUT = 60.0  # generous: the machine may be busy; a post that never comes fails anyway


@asynccontextmanager
async def fairypost(
    fake: FakeDiscord, db: Path, clock: ManualClock | None = None
) -> AsyncIterator[BotRunner[FairyPost]]:
    bot = FairyPost(database=db, clock=clock or ManualClock())
    async with run_bot(fake, bot) as runner:
        yield runner


async def start_game(
    world: World, variant: str, white: FakeUser, black: FakeUser, **options: object
) -> tuple[FakeChannel, FakeMessage]:
    """`white` challenges `black` (taking White), `black` accepts: the game's thread."""
    fake = world.fake
    rec = await fake.slash(
        white, world.lobby, "challenge", variant=variant, opponent=black, color="white", **options
    )
    challenge = await rec.reply()
    accepted = await fake.click(black, challenge, label="Accept")
    await accepted.response()
    thread = await fake.wait_for_thread(parent=world.lobby, timeout=POST_TIMEOUT)
    start = await posted(fake, thread, 0, lambda m: "the game begins" in m.content)
    return thread, start


def assert_board_png(message: FakeMessage, files: int, ranks: int) -> None:
    (png,) = message.attachments
    assert png.is_png
    assert 300 <= png.width <= 1100 and 300 <= png.height <= 1300
    # The picture keeps the board's shape, whatever the margins around it.
    assert abs(png.width / png.height - files / ranks) < 0.45


async def posted(
    fake: FakeDiscord, channel: FakeChannel, since: int, predicate: Callable[[FakeMessage], bool]
) -> FakeMessage:
    """The first public message in `channel` after its first `since` messages that matches
    (the bot's posts come from its effects loop, a moment after the command's reply)."""
    found: list[FakeMessage] = []

    def check() -> bool:
        found[:] = [
            m
            for m in channel.messages[since:]
            if not m.ephemeral and not m.deleted and not m.loading and predicate(m)
        ]
        return bool(found)

    await fake.wait_until(check, POST_TIMEOUT, f"a post in #{channel.name}")
    return found[0]


async def play(fake: FakeDiscord, user: FakeUser, thread: FakeChannel, move: str) -> FakeMessage:
    """The move's post in the thread; or the refusal, which only the player sees."""
    since = len(thread.messages)
    reply = await (await fake.slash(user, thread, "move", move=move)).reply()
    if not (reply.ephemeral and reply.content.startswith("You played")):
        return reply
    return await posted(fake, thread, since, lambda m: " played **" in m.text)


async def test_a_spectator_follows_a_game_from_any_channel(world: World, tmp_path: Path) -> None:
    """Every game post links to the game's thread and says how to see the game from any
    channel (`/board game:N`); that works for anyone, in the lobby, and links back."""
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", world.alice, world.bob)
        link = f"https://discord.com/channels/{world.guild.id}/{thread.id}"
        moved = await play(fake, world.alice, thread, "e4")
        assert moved.embed is not None and moved.embed["url"] == link
        assert moved.embed["footer"]["text"] == "Follow this game from any channel: /board game:1"
        shown = await (await fake.slash(world.carol, world.lobby, "board", game=1)).reply()
        assert shown.channel is world.lobby and not shown.ephemeral
        assert shown.embed is not None and shown.embed["url"] == link
        assert "e2-e4" in shown.text


async def test_a_challenge_accepted_by_button_opens_a_thread(world: World, tmp_path: Path) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        rec = await fake.slash(
            world.alice, world.lobby, "challenge", variant="patchanka", opponent=world.bob
        )
        challenge = await rec.reply()
        assert not challenge.ephemeral
        assert "Patchanka" in challenge.text and world.bob.id in challenge.mention_ids
        assert_board_png(challenge, 10, 10)
        assert {b["label"] for b in challenge.buttons} == {"Accept", "Decline"}
        await (await fake.click(world.bob, challenge, label="Accept")).response()
        thread = await fake.wait_for_thread(parent=world.lobby)
        assert thread.name.startswith("Patchanka: ")
        start = await fake.wait_for_message(thread, include_existing=True)
        assert set(start.mention_ids) >= {world.alice.id, world.bob.id}
        assert "the game begins" in start.content
        assert_board_png(start, 10, 10)
        await fake.wait_until(lambda: challenge.edited)
        assert not challenge.buttons and "Accepted by bob" in challenge.content


async def test_the_recorded_patchanka_game_ends_in_checkmate(world: World, tmp_path: Path) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "patchanka", world.alice, world.bob)
        players = [world.alice, world.bob]
        last = None
        for i, move in enumerate(record_moves(GAMES / "patchanka.txt")):
            last = await play(fake, players[i % 2], thread, move)
            assert not last.ephemeral, last.text
            assert move in last.text
        assert last is not None
        assert "Black wins by checkmate" in last.text
        assert set(last.mention_ids) >= {world.alice.id, world.bob.id}
        assert_board_png(last, 10, 10)
        # Every picture posted in the game is a real PNG of a 10x10 board.
        pictures = [f for f in fake.files(thread) if f.filename != "replay.gif"]
        assert len(pictures) >= 150
        for picture in pictures:
            assert picture.is_png and 700 <= picture.width <= 1100
        # The end of the game is followed by its animated replay.
        replay_post = await fake.wait_for_message(
            thread,
            lambda m: any(a.filename == "replay.gif" for a in m.attachments),
            include_existing=True,
            timeout=60,
        )
        gif = replay_post.attachment("replay.gif").data
        assert gif[:6] == b"GIF89a" and "150 plies" in replay_post.content
        history = await (await fake.slash(world.alice, thread, "history")).reply(60)
        assert [a.filename for a in history.attachments] == [
            "fairypost-1-patchanka.txt",
            "replay.gif",
        ]
        record = history.attachments[0].data.decode()
        assert "# result: black wins by checkmate" in record and "75... Md1-e1++" in record


async def test_autocomplete_offers_the_legal_moves_by_prefix(world: World, tmp_path: Path) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "patchanka", world.alice, world.bob)
        everything = await fake.autocomplete(world.alice, thread, "move", focused="move", value="")
        assert len(everything) == 25
        phoenix = await fake.autocomplete(world.alice, thread, "move", focused="move", value="Hi2")
        assert sorted((c.name, c.value) for c in phoenix) == [
            ("Hi2-g4 · Phoenix", "Hi2-g4"),
            ("Hi2-i1 · Phoenix", "Hi2-i1"),
        ]
        assert await fake.autocomplete(world.bob, thread, "move", focused="move", value="") == []
        variants = await fake.autocomplete(
            world.alice, world.lobby, "challenge", focused="variant", value="timur"
        )
        assert len(variants) == 8


async def test_refusals_are_ephemeral_and_say_why(world: World, tmp_path: Path) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", world.alice, world.bob)
        illegal = await play(fake, world.alice, thread, "e2e5")
        assert illegal.ephemeral and "cannot move from e2 to e5" in illegal.content
        out_of_turn = await play(fake, world.bob, thread, "e7e5")
        assert out_of_turn.ephemeral and "not your turn" in out_of_turn.content
        spectator = await play(fake, world.carol, thread, "e2e4")
        assert spectator.ephemeral and "not playing" in spectator.content
        elsewhere = await play(fake, world.alice, world.lobby, "e2e4")
        assert elsewhere.ephemeral and "no game in this channel" in elsewhere.content
        self_challenge = await (
            await fake.slash(
                world.alice, world.lobby, "challenge", variant="chess", opponent=world.alice
            )
        ).reply()
        assert self_challenge.ephemeral and "cannot challenge yourself" in self_challenge.content
        unknown = await (
            await fake.slash(world.alice, world.lobby, "challenge", variant="checkers")
        ).reply()
        assert unknown.ephemeral and "unknown variant" in unknown.content
        good = await play(fake, world.alice, thread, "e2e4")
        assert not good.ephemeral and "e2-e4" in good.text


async def test_a_draw_offer_accepted_by_button(world: World, tmp_path: Path) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "grand", world.alice, world.bob)
        offer = await (await fake.slash(world.alice, thread, "draw")).reply()
        assert world.bob.id in offer.mention_ids
        refused = await fake.click(world.alice, offer, label="Accept draw")
        assert "own draw offer" in (await refused.reply()).content
        accepted = await fake.click(world.bob, offer, label="Accept draw")
        await accepted.response()
        result = await posted(fake, thread, 0, lambda m: "Draw by agreement" in m.text)
        assert "Draw agreed" in result.text
        assert_board_png(result, 10, 10)


async def test_a_restarted_bot_continues_the_game_and_old_buttons_work(
    world: World, tmp_path: Path
) -> None:
    fake = world.fake
    db = tmp_path / "fp.sqlite3"
    async with fairypost(fake, db):
        thread, _ = await start_game(world, "heavy-shako", world.alice, world.bob)
        await play(fake, world.alice, thread, "f3-f5")
        offer = await (await fake.slash(world.alice, thread, "takeback")).reply()
        assert world.bob.id in offer.mention_ids
        pending = await (
            await fake.slash(
                world.carol,
                world.lobby,
                "challenge",
                variant="chess",
                opponent=world.alice,
                color="white",
            )
        ).reply()
    async with fairypost(fake, db):  # a new process with the same database
        moved = await play(fake, world.bob, thread, "f8-f6")
        assert "f8-f6" in moved.text and not moved.ephemeral
        # The old takeback request lapsed when Bob moved: its post loses its buttons and
        # says so.
        await fake.wait_until(lambda: not offer.buttons, 30, "the lapsed request's post")
        assert (
            offer.content
            == "alice's takeback request lapsed: the game moved on before it was answered."
        )
        # The challenge posted before the restart can still be accepted.
        await (await fake.click(world.alice, pending, label="Accept")).response()
        second = await fake.wait_for_thread("Chess: carol vs alice", parent=world.lobby)
        start = await fake.wait_for_message(second, include_existing=True)
        assert_board_png(start, 8, 8)


async def test_a_game_left_alone_is_reminded_then_lost_on_time(
    world: World, tmp_path: Path
) -> None:
    fake = world.fake
    clock = ManualClock()
    async with fairypost(fake, tmp_path / "fp.sqlite3", clock) as runner:
        thread, _ = await start_game(world, "chess", world.alice, world.bob, days_per_move=2)
        await play(fake, world.alice, thread, "e2e4")
        bot = runner.client
        clock.advance(DAY)  # 24 h before Bob's deadline
        bot.timers.poke()
        reminder = await posted(fake, thread, 0, lambda m: "Reminder" in m.content)
        assert world.bob.id in reminder.mention_ids
        clock.advance(DAY - 3600)
        bot.timers.poke()
        await posted(fake, thread, 0, lambda m: "Reminder" in m.content and m is not reminder)
        clock.advance(3600)
        bot.timers.poke()
        timeout = await posted(fake, thread, 0, lambda m: "on time" in m.text)
        assert "White wins on time" in timeout.text
        assert {world.alice.id, world.bob.id} <= set(timeout.mention_ids)
        assert_board_png(timeout, 8, 8)


async def test_a_refused_dm_falls_back_to_the_thread(world: World, tmp_path: Path) -> None:
    fake = world.fake
    clock = ManualClock()
    async with fairypost(fake, tmp_path / "fp.sqlite3", clock) as runner:
        thread, _ = await start_game(world, "chess", world.alice, world.bob, days_per_move=3)
        await (await fake.slash(world.bob, world.lobby, "settings", notify="dm")).reply()
        fake.refuse_dms(world.bob)
        await play(fake, world.alice, thread, "d2d4")
        notice = await posted(fake, thread, 0, lambda m: "Your turn" in m.content)
        assert world.bob.id in notice.mention_ids
        fake.refuse_dms(world.bob, refuse=False)
        await play(fake, world.bob, thread, "d7d5")
        await (await fake.slash(world.alice, world.lobby, "settings", notify="dm")).reply()
        clock.advance(2 * DAY)
        runner.client.timers.poke()
        await fake.wait_until(
            lambda: any("Reminder" in m.content for m in fake.dms(world.alice)), POST_TIMEOUT
        )


async def test_ratings_leaderboard_vacation_and_finished_games(
    world: World, tmp_path: Path
) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", world.alice, world.bob)
        await play(fake, world.alice, thread, "e2e4")
        await play(fake, world.bob, thread, "e7e5")
        since = len(thread.messages)
        resigned = await (await fake.slash(world.bob, thread, "resign")).reply()
        assert resigned.ephemeral and "White wins by resignation" in resigned.text
        post = await posted(fake, thread, since, lambda m: "resign" in m.text)
        assert "White wins by resignation" in post.text and "→" in post.text
        assert "bob resigned" in post.text
        rating = await (await fake.slash(world.alice, world.lobby, "rating")).reply()
        assert rating.ephemeral and "Chess" in rating.text and "(provisional)" in rating.text
        assert "±" not in rating.text  # a provisional rating shows no alarming range
        board = await (
            await fake.slash(world.carol, world.lobby, "leaderboard", variant="chess")
        ).reply()
        lines = [line for line in board.text.splitlines() if line[:2] in ("1.", "2.")]
        assert "alice" in lines[0] and "bob" in lines[1]
        finished = await (await fake.slash(world.bob, world.lobby, "games", finished=True)).reply()
        assert "white wins by resignation" in finished.text
        away = await (await fake.slash(world.bob, world.lobby, "vacation", action="on")).reply()
        assert "You are on vacation" in away.content and "14.0 days" in away.content
        back = await (await fake.slash(world.bob, world.lobby, "vacation", action="off")).reply()
        assert "not on vacation" in back.content


async def test_settings_reply_counts_hours_in_plain_words(world: World, tmp_path: Path) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        one = await (await fake.slash(world.bob, world.lobby, "settings", reminders="1")).reply()
        assert "Reminders: **1** hour before the deadline" in one.content, one.content
        two = await (
            await fake.slash(world.bob, world.lobby, "settings", reminders="24, 1")
        ).reply()
        assert "Reminders: **24, 1** hours before the deadline" in two.content, two.content
