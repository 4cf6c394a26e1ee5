"""Fixtures for the service tests: real storage on both backends (a temporary SQLite file, a
PostgreSQL schema of the test's own), a manual clock."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import GameService, ManualClock, consequences
from bot.service.effects import EffectRegistry, EffectRun, EffectRunner
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from bot.service.variants import ANNOUNCE
from bot.service.variants import install as install_variants
from storage import Storage
from tests.postgres import temporary_schema

ANN = UserRef(101, "Ann")
BOB = UserRef(102, "Bob")
EVE = UserRef(103, "Eve")
ROBOT = UserRef(104, "Robot", bot=True)
GUILD, CHANNEL = 900, 901

TINY_CHESS = """\
id = "tiny"
name = "Tiny Chess"
description = "A Rook and a King on 5x5."
files = 5
ranks = 5

[pieces]
king = "K"
rook = "R"
pawn = { letter = "", promotion = { to = ["rook"] } }

[setup]
1 = "R . . . K"
2 = "P P P P P"
"""
"""A server's own variant small enough for any test: 5x5, a Rook, a King and Pawns."""
TINY_CHESS_V2 = TINY_CHESS.replace('rook = "R"', 'rook = { letter = "R", betza = "W" }')
"""Its second version: the Rook moves like a Wazir."""


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture(params=["sqlite", "postgresql"])
async def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database on each backend: the service tests are the widest use of storage's
    SQL, so they run on both."""
    if request.param == "sqlite":
        yield str(tmp_path / "fairypost.sqlite3")
        return
    async with temporary_schema() as url:
        yield url


@pytest.fixture
async def storage(db_target: str) -> AsyncIterator[Storage]:
    store = await Storage.open(db_target, engine=STORAGE_ENGINE, rng=random.Random(7))
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def service(storage: Storage, clock: ManualClock) -> GameService:
    return GameService(storage, clock=clock)


class Announced(list[consequences.GameEvent | consequences.Notice | consequences.DigestNotice]):
    """What the Discord layer would have posted, in order."""


@pytest.fixture
def announced() -> Announced:
    return Announced()


@pytest.fixture
def effects(service: GameService, announced: Announced) -> EffectRunner:
    """The effect rules of game events installed on the service's storage, and a runner
    with the real ratings handler and, instead of Discord posts, handlers that record what
    would be posted (`announced`)."""
    registry = EffectRegistry(service.storage)
    consequences.install(registry, service)

    async def game_post(run: EffectRun) -> None:
        event = await consequences.game_event(service, run)
        if event is not None:
            announced.append(event)

    async def notice(run: EffectRun) -> None:
        note = await consequences.notice(service, run)
        if note is not None:
            announced.append(note)

    async def digest(run: EffectRun) -> None:
        note = await consequences.digest(service, run)
        if note is not None:
            announced.append(note)

    async def replay(run: EffectRun) -> None:
        """The animated replay: nothing to record here (tests/renderer draws replays)."""

    for kind in consequences.GAME_POSTS:
        registry.register(kind, game_post)
    registry.register(consequences.NOTICE, notice)
    registry.register(consequences.DIGEST, digest)
    registry.register(consequences.REPLAY, replay)
    return EffectRunner(registry, service.clock, owner="test")


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


def announcing_runner(
    storage: Storage, clock: ManualClock
) -> tuple[EffectRunner, list[dict[str, object]]]:
    """An effect runner for variant definitions and imports whose announcements are kept in
    the returned list (their payloads), as the channel would see them."""
    registry = EffectRegistry(storage)
    install_variants(registry)
    announced: list[dict[str, object]] = []

    async def announce(run: EffectRun) -> None:
        announced.append(dict(run.effect.payload))

    registry.register(ANNOUNCE, announce)
    return EffectRunner(registry, clock, owner="test"), announced
