"""Fixtures for the service tests: real storage on a temporary file, a manual clock."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import GameService, ManualClock
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from storage import Storage

ANN = UserRef(101, "Ann")
BOB = UserRef(102, "Bob")
EVE = UserRef(103, "Eve")
ROBOT = UserRef(104, "Robot", bot=True)
GUILD, CHANNEL = 900, 901


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    store = await Storage.open(
        tmp_path / "fairypost.sqlite3", engine=STORAGE_ENGINE, rng=random.Random(7)
    )
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def service(storage: Storage, clock: ManualClock) -> GameService:
    return GameService(storage, clock=clock)


async def start_game(
    service: GameService,
    variant: str,
    *,
    white: UserRef = ANN,
    black: UserRef = BOB,
    thread: int = 5000,
    **kw: object,
) -> int:
    """A game between `white` and `black` (the challenger takes White) in thread `thread`."""
    view = await service.create_challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger=white,
        opponent=black,
        variant=variant,
        color="white",
        **kw,  # type: ignore[arg-type]
    )
    game = await service.accept_challenge(view.challenge.id, black)
    await service.attach_thread(game.game.id, thread)
    return game.game.id
