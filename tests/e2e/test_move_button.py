"""The Move button and the forgiving move input, end to end on the stand-in: a phone
player moves without typing (pages of pieces on Bigorra, a promotion, a promotion choice
in chess), others are refused, old menus are refused, menus survive a restart; short
algebraic and other forms typed in /move."""

from __future__ import annotations

from pathlib import Path

from bot.client import FairyPost
from bot.service.models import UserRef
from localdiscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from localdiscord.harness import BotRunner
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import fairypost, play, start_game

WAIT = 30.0  # generous: every wait ends on an event, the machine may be busy

# Bigorra: White's m-file Pawn walks to m15 while Black shuffles pieces (found by a search);
# White then has two promoting captures, m15xl16Q and m15xn16Q, and more than 25 pieces
# that can move.
BIGORRA = [
    "m5m7",
    "l13l10",
    "m7m9",
    "c13f10",
    "m9m11",
    "l10i7",
    "m11n12",
    "f10c13",
    "n12o13",
    "j13m10",
    "o13n14",
    "m10p7",
    "n14m15",
    "a13d10",
]
# Chess: White's a-Pawn reaches a7 with a8 empty and a Rook on b8 to take.
CHESS = ["a2a4", "b7b5", "a4b5", "a7a6", "b5a6", "b8c6", "a6a7", "a8b8"]


async def fast_forward(
    runner: BotRunner[FairyPost],
    thread: FakeChannel,
    moves: list[str],
    white: FakeUser,
    black: FakeUser,
) -> None:
    """Play moves through the service (as /move would), to reach a position quickly."""
    service = runner.client.service
    for i, text in enumerate(moves):
        user = white if i % 2 == 0 else black
        await service.play(channel_id=thread.id, user=UserRef(user.id, user.name), text=text)


async def open_menu(fake: FakeDiscord, user: FakeUser, board: FakeMessage) -> FakeMessage:
    rec = await fake.click(user, board, label="Move")
    menu = await rec.reply(WAIT)
    assert menu.ephemeral
    return menu


def select_id(message: FakeMessage) -> str:
    (sid,) = [c["custom_id"] for c in message.iter_components() if c.get("type") == 3]
    return sid


def options(message: FakeMessage) -> dict[str, str]:
    (menu,) = [c for c in message.iter_components() if c.get("type") == 3]
    return {o["value"]: o["label"] for o in menu["options"]}


async def choose(fake: FakeDiscord, user: FakeUser, menu: FakeMessage, value: str) -> None:
    """Pick `value` in the menu's select and wait until the menu shows the next step."""
    edits = len(menu.history)
    rec = await fake.select(user, menu, select_id(menu), [value])
    await rec.response(WAIT)
    await fake.wait_until(lambda: len(menu.history) > edits, WAIT, "the menu's next step")


async def press(fake: FakeDiscord, user: FakeUser, menu: FakeMessage, label: str) -> None:
    edits = len(menu.history)
    await (await fake.click(user, menu, label=label)).response(WAIT)
    await fake.wait_until(lambda: len(menu.history) > edits, WAIT, f"the menu after {label}")


async def board_post(fake: FakeDiscord, thread: FakeChannel, text: str) -> FakeMessage:
    """The board posted in the thread after a move (the move's effect, a moment later)."""
    found: list[FakeMessage] = []

    def posted() -> bool:
        found[:] = [m for m in fake.messages(thread) if text in m.text]
        return bool(found)

    await fake.wait_until(posted, WAIT, f"the post {text!r}")
    return found[0]


async def latest_board(fake: FakeDiscord, thread: FakeChannel) -> FakeMessage:
    boards = [m for m in fake.messages(thread) if m.attachments and m.buttons]
    return boards[-1]


async def test_move_button_on_bigorra_pages_and_promotion(world: World, tmp_path: Path) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3") as runner:
        thread, start = await start_game(world, "bigorra", alice, bob)
        assert [b["label"] for b in start.buttons] == ["Move"]
        await fast_forward(runner, thread, BIGORRA, alice, bob)

        # Not your turn, not your game: a short private refusal.
        refusal = await (await fake.click(bob, start, label="Move")).reply(WAIT)
        assert refusal.ephemeral and "not your turn" in refusal.content
        refusal = await (await fake.click(world.carol, start, label="Move")).reply(WAIT)
        assert refusal.ephemeral and "not playing" in refusal.content

        # Alice's menu: pieces by type, more than one page.
        menu = await open_menu(fake, alice, start)
        assert "page 1 of 2" in menu.content
        first_page = options(menu)
        assert len(first_page) == 25
        await press(fake, alice, menu, "Next ▶")
        assert "page 2 of 2" in menu.content
        second_page = options(menu)
        assert not set(first_page) & set(second_page)
        assert {**first_page, **second_page}["m15"] == "Pawn m15"
        # Grouped by type: a type's pieces come together, in the variant's order.
        kinds = [label.rsplit(" ", 1)[0] for label in [*first_page.values(), *second_page.values()]]
        runs = [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]
        assert len(runs) == len(set(runs)) and runs[-1] == "Pawn"
        await press(fake, alice, menu, "◀ Previous")
        assert options(menu) == first_page

        # The Pawn on m15: its two promoting captures; taking on l16 plays at once.
        await choose(fake, alice, menu, "m15")
        assert "Where does the Pawn on m15 go?" in menu.content
        targets = options(menu)
        assert targets == {"l16": "m15xl16Q", "n16": "m15xn16Q"}
        await choose(fake, alice, menu, "l16")
        assert "You played **m15xl16Q**" in menu.content and not list(menu.iter_components())
        post = await board_post(fake, thread, "alice played **m15xl16Q**")
        assert not post.ephemeral
        assert bob.id in post.mention_ids and [b["label"] for b in post.buttons] == ["Move"]
        assert post.attachments[0].is_png


async def test_move_button_promotion_choice_and_stale_menus(world: World, tmp_path: Path) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    db = tmp_path / "fp.sqlite3"
    async with fairypost(fake, db) as runner:
        thread, start = await start_game(world, "chess", alice, bob)
        await fast_forward(runner, thread, CHESS, alice, bob)
        menu = await open_menu(fake, alice, start)
        assert "page" not in menu.content  # chess fits one page
        await choose(fake, alice, menu, "a7")
        assert options(menu) == {"a8": "a8 (4 choices)", "b8": "b8 (4 choices)"}
    # The menu survives a restart.
    async with fairypost(fake, db):
        await choose(fake, alice, menu, "b8")
        assert "choose" in menu.content
        assert set(options(menu)) == {"a7xb8Q", "a7xb8R", "a7xb8B", "a7xb8N"}
        stale = await open_menu(fake, alice, start)  # another menu, for later
        await choose(fake, alice, menu, "a7xb8N")
        assert "You played **a7xb8N**" in menu.content
        await board_post(fake, thread, "alice played **a7xb8N**")
        # A menu opened before the move is refused in a sentence, and changes nothing.
        rec = await fake.select(alice, stale, select_id(stale), ["a7"])
        await rec.response(WAIT)
        (note,) = await rec.wait_followups(1, WAIT)
        assert note.ephemeral and "has changed since this menu was opened" in note.content


async def test_forgiving_input_in_move(world: World, tmp_path: Path) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", alice, bob)
        for who, typed, printed in [
            (alice, "e4", "e2-e4"),
            (bob, "E7 E5", "e7-e5"),
            (alice, "Nf3", "Ng1-f3"),
            (bob, "Nc6!?", "Nb8-c6"),
            (alice, "Bc4+", "Bf1-c4"),  # a wrong check mark is ignored
            (bob, "d6", "d7-d6"),
            (alice, "0-0", "O-O"),
        ]:
            post = await play(fake, who, thread, typed)
            assert f"played **{printed}**" in post.text, (typed, post.text)
        # Several moves fit: the reply lists them to choose from.
        await play(fake, bob, thread, "Bg4")
        await play(fake, alice, thread, "d3")
        refusal = await play(fake, bob, thread, "Ne7")
        assert refusal.ephemeral
        assert (
            refusal.content == "`Ne7` fits several moves: which one do you mean, `Nce7` or `Nge7`?"
        )
        refusal = await play(fake, bob, thread, "Qa5")
        assert (
            refusal.ephemeral
            and "No Queen of yours can go to a5; the moves there are Nc6-a5, a7-a5."
            in refusal.content
        )


async def test_history_offers_pgn_and_replay_after_a_resignation(
    world: World, tmp_path: Path
) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", alice, bob)
        for who, typed in [(alice, "e4"), (bob, "e5"), (alice, "Nf3"), (bob, "Nc6")]:
            await play(fake, who, thread, typed)
        ended = await (await fake.slash(bob, thread, "resign")).reply(WAIT)
        assert "White wins by resignation" in ended.text and not ended.buttons
        replay_post = await fake.wait_for_message(
            thread,
            lambda m: any(a.filename == "replay.gif" for a in m.attachments),
            include_existing=True,
            timeout=WAIT,
        )
        assert "4 plies" in replay_post.content
        # Pictures have alt text, the replay too: the game, its length and its result.
        assert replay_post.attachment("replay.gif").description == (
            "Animated replay of game #1, Chess: alice vs bob, move by move (4 plies); "
            "the result: white wins by resignation."
        )
        history = await (await fake.slash(alice, thread, "history")).reply(WAIT)
        names = [a.filename for a in history.attachments]
        assert names == ["fairypost-1-chess.txt", "fairypost-1-chess.pgn", "replay.gif"]
        assert history.attachment("replay.gif").description.startswith("Animated replay of")
        pgn = history.attachment("fairypost-1-chess.pgn").data.decode()
        assert '[Result "1-0"]' in pgn and '[White "alice"]' in pgn
        assert pgn.endswith("1. e4 e5 2. Nf3 Nc6 1-0\n")
        assert "PGN" in history.content and history.ephemeral


async def test_board_fen_and_history_pgn_outside_chess(world: World, tmp_path: Path) -> None:
    """Issue 28: Xiangqi's position as Fairy-Stockfish's FEN, its game as the servers' PGN."""
    fake, alice, bob = world.fake, world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "xiangqi", alice, bob)
        for who, typed in [(alice, "h3e3"), (bob, "h10g8")]:
            await play(fake, who, thread, typed)
        shown = await (await fake.slash(alice, thread, "board", fen=True)).reply(WAIT)
        assert "`xiangqi`" in shown.content
        assert "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2" in (
            shown.content
        )
        history = await (await fake.slash(alice, thread, "history")).reply(WAIT)
        pgn = history.attachment("fairypost-1-xiangqi.pgn").data.decode()
        assert '[Variant "Xiangqi"]' in pgn and '[FEN "rnbakabnr/9/1c5c1/' in pgn
        assert "1. Che3 Hg8 *" in pgn
