"""Conditional moves end to end: a player leaves a branching tree of answers, the opponent's
moves trigger them over several plies with the posts and notices a player expects, the tree
survives a restart, and nobody else ever reads it."""

from __future__ import annotations

from pathlib import Path

from localdiscord import FakeDiscord, FakeMessage, FakeUser
from localdiscord.models import FakeChannel
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import fairypost, play, start_game

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
