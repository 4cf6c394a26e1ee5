"""Fixtures for the end-to-end tests: a started stand-in and a small world in it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from localdiscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A running stand-in; the test fails at teardown if violations were left unexamined."""
    server = FakeDiscord()
    await server.start()
    try:
        yield server
    finally:
        await server.close()
    server.assert_no_violations()


@dataclass
class World:
    fake: FakeDiscord
    guild: FakeGuild
    lobby: FakeChannel
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser


@pytest.fixture
def world(fake: FakeDiscord) -> World:
    """One guild with #lobby and three members: alice, bob and carol."""
    guild = fake.add_guild("Fairy Club")
    lobby = fake.add_channel(guild, "lobby", topic="challenges")
    alice = fake.add_user("alice", guild=guild)
    bob = fake.add_user("bob", guild=guild)
    carol = fake.add_user("carol", guild=guild)
    return World(fake, guild, lobby, alice, bob, carol)
