"""Conditional moves end to end: a player leaves a branching tree of answers, the opponent's
moves trigger them over several plies with the posts and notices a player expects, the tree
survives a restart, and nobody else ever reads it."""

from __future__ import annotations

from pathlib import Path

from bot.service import ManualClock
from localdiscord import FakeDiscord, FakeMessage, FakeUser
from localdiscord.models import FakeChannel
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import DAY, fairypost, play, posted, start_game
from tests.e2e.test_move_button import choose, open_menu

SECRET = ("Bb5", "Ba4", "b5", "a4", "Nxe5", "xe5", "f3e5")


async def conditional(
    fake: FakeDiscord, user: FakeUser, channel: FakeChannel, sub: str, **options: object
) -> FakeMessage:
    return await (await fake.slash(user, channel, f"conditional {sub}", **options)).reply(
        timeout=30
    )


def public_texts(fake: FakeDiscord, channel: FakeChannel) -> list[str]:
    return [m.text for m in channel.messages if not m.ephemeral]


async def test_conditional_commands_are_private_and_check_each_step(
    world: World, tmp_path: Path
) -> None:
    fake = world.fake
    alice, bob, carol = world.alice, world.bob, world.carol
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", alice, bob)
        await play(fake, alice, thread, "e4")
        # Autocomplete helps with the step being typed (here the opponent's first move).
        choices = await fake.autocomplete(
            alice, thread, "conditional add", focused="line", value="N"
        )
        assert {c.value for c in choices} == {"Nb8-a6", "Nb8-c6", "Ng8-f6", "Ng8-h6"}
        choices = await fake.autocomplete(
            alice, thread, "conditional add", focused="line", value="e5 Ng1-f"
        )
        assert [c.value for c in choices] == ["e5 Ng1-f3"]
        added = await conditional(fake, alice, thread, "add", line="e5 Nf3 Nc6 Bb5 a6 Ba4")
        assert added.ephemeral
        assert "Added: e7-e5 Ng1-f3 Nb8-c6 Bf1-b5 a7-a6 Bb5-a4" in added.text
        assert "If 1... e7-e5 → **2. Ng1-f3**" in added.text
        refused = await conditional(fake, alice, thread, "add", line="e5 Nf3 Nc6 Bb6")
        assert refused.ephemeral
        assert refused.content.startswith("Step 4 of the line (your answer): `Bb6`: ")
        mine = await conditional(fake, bob, thread, "add", line="e4 e5")
        assert mine.ephemeral and "It is your turn" in mine.content
        spectator = await conditional(fake, carol, thread, "list")
        assert spectator.ephemeral and "not playing" in spectator.content
        listed = await conditional(fake, alice, thread, "list")
        assert listed.ephemeral and "3 answers waiting for bob's moves" in listed.text
        everywhere = await conditional(fake, alice, world.lobby, "list")
        assert everywhere.ephemeral and "game #1" in everywhere.text
        cleared = await conditional(fake, alice, thread, "clear")
        assert cleared.ephemeral and "Dropped your 3 conditional moves in game #1" in cleared.text
        # Nothing of it was ever posted for others to read.
        for text in public_texts(fake, thread) + public_texts(fake, world.lobby):
            assert not any(s in text for s in SECRET), text
        for message in fake.ephemeral_messages():
            if any(s in message.text for s in SECRET):
                assert message.interaction is not None
                assert message.interaction.user.id == alice.id


# ---------------------------------------------------------------------------- the whole story

WAIT = 60.0  # generous: every wait ends on an event, the machine may be busy

# Alice's answers that are never played in the story: nobody but her may ever read them.
NEVER_PLAYED = ("Nf3xe5", "f3e5", "d2-d4", "d2d4", "O-O", "e1g1")
# Her answers that are played in the end: nobody else reads them before.
PLAYED_LATER = ("Ng1-f3", "g1f3", "Bf1-b5", "f1b5", "Bb5-a4", "b5a4")


async def reply(
    fake: FakeDiscord, who: FakeUser, channel: FakeChannel, command: str, /, **options: object
) -> FakeMessage:
    return await (await fake.slash(who, channel, command, **options)).reply(timeout=WAIT)


def seen_by_others(fake: FakeDiscord, owner: FakeUser) -> list[str]:
    """Everything anyone but `owner` can read: public posts in every channel (with their
    files), the other users' private replies and their direct messages."""
    out = []
    for message in fake.messages_by_id.values():
        if message.deleted:
            continue
        if message.ephemeral:
            if message.interaction is not None and message.interaction.user.id == owner.id:
                continue
        elif message.channel.recipient is not None and message.channel.recipient.id == owner.id:
            continue  # the owner's own direct messages
        out.append(message.text)
        out.extend(
            a.data.decode("utf-8", "replace")
            for a in message.attachments
            if a.filename.endswith((".txt", ".pgn"))
        )
    return out


def turn_dms(fake: FakeDiscord, user: FakeUser) -> list[FakeMessage]:
    return [m for m in fake.dms(user) if m.content.startswith("Your turn")]


async def both_posts(
    world: World, thread: FakeChannel, since: int, mover: str, answer: str
) -> tuple[FakeMessage, FakeMessage]:
    """The post of Bob's move, which asks nobody to move, then the post of Alice's answer,
    marked as a conditional move, which asks Bob to move (his DM tells him)."""
    fake = world.fake
    second = await posted(fake, thread, since, lambda m: f"alice played **{answer}**" in m.text)
    first = await posted(fake, thread, since, lambda m: f"bob played **{mover}**" in m.text)
    assert thread.messages.index(first) < thread.messages.index(second)
    assert first.content == "" and not first.mention_ids
    assert f"alice played **{answer}** *(conditional move)*" in second.text
    # Bob hears of his turns by DM: the post names him without a ping (one notice, not two).
    assert second.content == f"<@{world.bob.id}>, your move." and not second.mention_ids
    assert first.attachments[0].is_png and second.attachments[0].is_png
    return first, second


async def test_a_branching_tree_answers_over_several_plies_and_survives_a_restart(
    world: World, tmp_path: Path
) -> None:
    """The issue's story on the stand-in: Alice leaves a branching tree, the bot restarts,
    Bob's moves (typed, then by the Move button) set off her answers three plies deep with
    the posts and notices a player expects, and his move off the tree hands her the move."""
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    db, clock = tmp_path / "fp.sqlite3", ManualClock()
    async with fairypost(fake, db, clock):
        for user in (alice, bob):
            await reply(fake, user, world.lobby, "settings", notify="dm")
        thread, _ = await start_game(world, "chess", alice, bob, days_per_move=3)
        # White's turn begins with the game: its notice is recorded with it.
        await fake.wait_until(lambda: len(turn_dms(fake, alice)) == 1, WAIT, "Alice's turn")
        await play(fake, alice, thread, "e4")
        await fake.wait_until(lambda: len(turn_dms(fake, bob)) == 1, WAIT, "Bob's turn notice")
        # A tree: two answers to 2... Nc6 or 2... Nf6 after 1... e5 2. Nf3, two after
        # 3. Bb5 (3... a6 or 3... Nf6), and another first move (1... c5).
        for line in (
            "e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O",
            "e5 Nf3 Nc6 Bb5 Nf6 O-O",
            "e5 Nf3 Nf6 Nxe5",
            "c5 Nf3 d6 d4",
        ):
            added = await reply(fake, alice, thread, "conditional add", line=line)
            assert added.ephemeral and "Added:" in added.text, added.text
        listed = await reply(fake, alice, thread, "conditional list")
        assert listed.ephemeral
        assert listed.text.splitlines()[1:9] == [
            "8 answers waiting for bob's moves:",
            "If 1... e7-e5 → **2. Ng1-f3**",
            "\u2003↳ if 2... Nb8-c6 → **3. Bf1-b5**",
            "\u2003\u2003↳ if 3... a7-a6 → **4. Bb5-a4**",
            "\u2003\u2003\u2003↳ if 4... Ng8-f6 → **5. O-O**",
            "\u2003\u2003↳ if 3... Ng8-f6 → **4. O-O**",
            "\u2003↳ if 2... Ng8-f6 → **3. Nf3xe5**",
            "If 1... c7-c5 → **2. Ng1-f3**",
        ]

    async with fairypost(fake, db, clock) as runner:  # a new bot on the same database
        listed = await reply(fake, alice, thread, "conditional list")
        assert "8 answers waiting for bob's moves" in listed.text
        # Nobody else can read any of it: Bob's and Carol's boards, records, game lists,
        # Bob's /moves and /conditional list, Carol's look at Alice's games.
        await reply(fake, bob, thread, "board", private=True)
        await reply(fake, carol, thread, "board")
        await reply(fake, bob, thread, "history")
        await reply(fake, carol, thread, "history")
        await reply(fake, bob, thread, "moves", square="g8")
        await reply(fake, bob, world.lobby, "games")
        await reply(fake, carol, world.lobby, "games", user=alice)
        theirs = await reply(fake, bob, thread, "conditional list")
        assert "You have no conditional moves" in theirs.text
        spectator = await reply(fake, carol, thread, "conditional list")
        assert "not playing" in spectator.text
        for text in seen_by_others(fake, alice):
            assert not any(s in text for s in NEVER_PLAYED + PLAYED_LATER), text

        # 1... e5, typed: Alice's 2. Nf3 at once. Bob's post asks nobody to move; Alice's
        # says it was a conditional move and hands the move back to Bob.
        since = len(thread.messages)
        ack = await reply(fake, bob, thread, "move", move="e5")
        assert ack.ephemeral and ack.content == (
            "You played **e7-e5**; alice had left an answer to it, played at once: "
            "**Ng1-f3** *(conditional move)*."
        )
        _, answered = await both_posts(world, thread, since, "e7-e5", "Ng1-f3")
        await fake.wait_until(lambda: len(turn_dms(fake, bob)) == 2, WAIT, "Bob's turn again")

        # 2... Nc6 by the Move button: Alice's 3. Bb5.
        since = len(thread.messages)
        menu = await open_menu(fake, bob, answered)
        await choose(fake, bob, menu, "b8")
        await choose(fake, bob, menu, "c6")
        assert menu.content == (
            "You played **Nb8-c6**; alice had left an answer to it, played at once: "
            "**Bf1-b5** *(conditional move)*."
        )
        await both_posts(world, thread, since, "Nb8-c6", "Bf1-b5")
        await fake.wait_until(lambda: len(turn_dms(fake, bob)) == 3, WAIT, "Bob's turn again")

        # Two days on, Bob is reminded of his deadline; Alice never hears a thing.
        clock.advance(2 * DAY + 60)
        runner.client.timers.poke()
        await fake.wait_until(
            lambda: any("Reminder" in m.content for m in fake.dms(bob)), WAIT, "Bob's reminder"
        )

        # 3... a6: the third answer, 4. Ba4, and 3... Nf6's branch is dropped.
        since = len(thread.messages)
        await reply(fake, bob, thread, "move", move="a6")
        await both_posts(world, thread, since, "a7-a6", "Bb5-a4")
        await fake.wait_until(lambda: len(turn_dms(fake, bob)) == 4, WAIT, "Bob's turn again")
        listed = await reply(fake, alice, thread, "conditional list")
        assert "1 answer waiting for bob's moves" in listed.text
        assert "If 4... Ng8-f6 → **5. O-O**" in listed.text
        assert len(turn_dms(fake, alice)) == 1  # the game's start only: no answer was a turn
        assert not [m for m in fake.dms(alice) if "Reminder" in m.content]

        # 4... b5 is not in the tree: nothing is played for Alice, her last line is dropped,
        # and now it is her move, as after any move.
        since = len(thread.messages)
        ack = await reply(fake, bob, thread, "move", move="b5")
        assert ack.content == "You played **b7-b5**."
        post = await posted(fake, thread, since, lambda m: "bob played **b7-b5**" in m.text)
        assert post.content == f"<@{alice.id}>, your move." and not post.mention_ids  # a DM
        await fake.wait_until(lambda: len(turn_dms(fake, alice)) == 2, WAIT, "Alice's turn")
        listed = await reply(fake, alice, thread, "conditional list")
        assert "no conditional moves" in listed.text

        # What was played is the game's; what was not never reached anyone else.
        record = await reply(fake, carol, thread, "history")
        text = record.attachments[0].data.decode()
        assert "Bb5-a4" in text and "b7-b5" in text
        seen = seen_by_others(fake, alice)
        assert any("Bb5-a4" in text for text in seen)  # the check reads what others read
        for text in seen:
            assert not any(s in text for s in NEVER_PLAYED), text


async def test_an_answer_that_cannot_be_played_is_dropped_with_a_private_notice(
    world: World, tmp_path: Path
) -> None:
    """It cannot happen through /conditional add: the tree is forged in storage. Bob's
    move is played, Alice's answer is not, and she alone is told why, by DM."""
    from bot.service.conditional import position_key
    from rules.game import Game as RulesGame
    from storage.conditional import Branch

    fake, alice, bob = world.fake, world.alice, world.bob
    async with fairypost(fake, tmp_path / "fp.sqlite3") as runner:
        thread, _ = await start_game(world, "chess", alice, bob)
        await play(fake, alice, thread, "e4")
        service = runner.client.service
        game = await service.find(thread.id, None)
        trial = RulesGame.new("chess")
        trial.play("e4")
        forged = Branch(position_key(trial.position), "e7e5", "e7-e5", "e1e3", "Ke1-e3", "x")
        await service.storage.conditional.add(game.id, alice.id, 1, [forged], 0)
        since = len(thread.messages)
        ack = await reply(fake, bob, thread, "move", move="e5")
        assert ack.content == "You played **e7-e5**."
        post = await posted(fake, thread, since, lambda m: "bob played **e7-e5**" in m.text)
        assert post.mention_ids == [alice.id]
        await fake.wait_until(lambda: bool(fake.dms(alice)), WAIT, "Alice's notice")
        (notice,) = fake.dms(alice)
        assert notice.content.startswith(
            f"Your conditional moves in <#{thread.id}> were dropped: your answer Ke1-e3 to "
            "e7-e5 is not legal in the game"
        )
        assert notice.content.endswith("It is your move.")
        for text in seen_by_others(fake, alice):
            assert "Ke1-e3" not in text and "e1e3" not in text
