"""Challenges: open and addressed, exactly one acceptor, decline, cancel, expiry."""

from __future__ import annotations

import asyncio
import random

import pytest

from storage import Storage
from storage.errors import (
    ChallengeExpiredError,
    ChallengeNotFoundError,
    ChallengeNotOpenError,
    InvalidValueError,
    NotAddressedToYouError,
    OwnChallengeError,
    RefusedError,
)
from storage.models import (
    DAY,
    ChallengeStatus,
    Clock,
    ColorChoice,
    GameStatus,
    NewChallenge,
)
from tests.storage.conftest import BLACK, CHANNEL, GUILD, T0, THIRD, WHITE
from tests.storage.fakes import FAKE_ENGINE, start_text

TWO_DAYS_WITH_BANK = Clock(2 * DAY, DAY)


def challenge(
    opponent: int | None = BLACK,
    *,
    color: ColorChoice = ColorChoice.WHITE,
    clock: Clock = TWO_DAYS_WITH_BANK,
    ttl: int = DAY,
    options: tuple[str, ...] = ("960",),
) -> NewChallenge:
    return NewChallenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        challenger_id=WHITE,
        opponent_id=opponent,
        variant_id="grand",
        options=options,
        color=color,
        clock=clock,
        rated=True,
        ttl_seconds=ttl,
    )


async def test_an_addressed_challenge_is_accepted_into_a_game(store: Storage) -> None:
    made = await store.challenges.create(challenge(), T0)
    assert made.status is ChallengeStatus.OPEN
    assert (made.expires_at, made.options, made.game_id) == (T0 + DAY, ("960",), None)
    made = await store.challenges.set_message(made.id, 4242)
    assert made.message_id == 4242

    accepted, game = await store.challenges.accept(made.id, BLACK, T0 + 60, start_position="S")
    assert accepted.status is ChallengeStatus.ACCEPTED
    assert (accepted.resolved_by, accepted.resolved_at, accepted.game_id) == (
        BLACK,
        T0 + 60,
        game.id,
    )
    assert (game.white_id, game.black_id) == (WHITE, BLACK)
    assert (game.variant_id, game.options, game.rated) == ("grand", ("960",), True)
    assert game.clock == Clock(2 * DAY, DAY)
    assert (game.guild_id, game.channel_id, game.message_id) == (GUILD, CHANNEL, 4242)
    assert (game.thread_id, game.challenge_id, game.position_text) == (None, made.id, "S")
    assert game.deadline_at == T0 + 60 + 2 * DAY
    assert await store.games.find_by_challenge(made.id) == game
    assert await store.games.list_without_thread() == [game]


async def test_colour_choice_is_honoured(store: Storage) -> None:
    black = await store.challenges.create(challenge(color=ColorChoice.BLACK), T0)
    _, game = await store.challenges.accept(black.id, BLACK, T0, start_position="S")
    assert (game.white_id, game.black_id) == (BLACK, WHITE)


async def test_random_colour_uses_the_injected_generator(db_target: str) -> None:
    seen = set()
    async with await Storage.open(db_target, rng=random.Random(1)) as storage:
        for i in range(12):
            made = await storage.challenges.create(challenge(color=ColorChoice.RANDOM), T0 + i)
            _, game = await storage.challenges.accept(made.id, BLACK, T0 + i, start_position="S")
            seen.add(game.white_id)
    assert seen == {WHITE, BLACK}


async def test_exactly_one_of_fifty_acceptors_wins_an_open_challenge(store: Storage) -> None:
    made = await store.challenges.create(challenge(None), T0)

    async def accept(user_id: int) -> int | None:
        try:
            _, game = await store.challenges.accept(made.id, user_id, T0 + 1, start_position="S")
        except ChallengeNotOpenError:
            return None
        return game.black_id

    winners = [w for w in await asyncio.gather(*(accept(5000 + i) for i in range(50))) if w]
    assert len(winners) == 1
    final = await store.challenges.get(made.id)
    assert final.resolved_by == winners[0]
    assert len(await store.games.list_active(WHITE)) == 1


async def test_who_may_accept(store: Storage) -> None:
    made = await store.challenges.create(challenge(BLACK), T0)
    with pytest.raises(OwnChallengeError):
        await store.challenges.accept(made.id, WHITE, T0, start_position="S")
    with pytest.raises(NotAddressedToYouError):
        await store.challenges.accept(made.id, THIRD, T0, start_position="S")
    with pytest.raises(ChallengeNotFoundError):
        await store.challenges.accept(999, BLACK, T0, start_position="S")
    await store.challenges.accept(made.id, BLACK, T0, start_position="S")
    with pytest.raises(ChallengeNotOpenError, match="accepted"):
        await store.challenges.accept(made.id, BLACK, T0, start_position="S")


async def test_invalid_challenges_are_refused(store: Storage) -> None:
    with pytest.raises(InvalidValueError, match="yourself"):
        await store.challenges.create(challenge(WHITE), T0)
    with pytest.raises(InvalidValueError):
        await store.challenges.create(challenge(clock=Clock(None, DAY)), T0)
    with pytest.raises(InvalidValueError):
        await store.challenges.create(challenge(clock=Clock(10, 0)), T0)
    with pytest.raises(InvalidValueError):
        await store.challenges.create(challenge(ttl=0), T0)
    with pytest.raises(InvalidValueError):
        await store.challenges.create(challenge(options=("",)), T0)
    assert await store.challenges.list_open() == []


async def test_decline_and_cancel(store: Storage) -> None:
    made = await store.challenges.create(challenge(BLACK), T0)
    with pytest.raises(NotAddressedToYouError):
        await store.challenges.decline(made.id, THIRD, T0)
    declined = await store.challenges.decline(made.id, BLACK, T0 + 5)
    assert (declined.status, declined.resolved_by) == (ChallengeStatus.DECLINED, BLACK)
    with pytest.raises(ChallengeNotOpenError, match="declined"):
        await store.challenges.accept(made.id, BLACK, T0, start_position="S")

    second = await store.challenges.create(challenge(None), T0)
    with pytest.raises(RefusedError):
        await store.challenges.cancel(second.id, BLACK, T0)
    with pytest.raises(NotAddressedToYouError):
        await store.challenges.decline(second.id, BLACK, T0)
    cancelled = await store.challenges.cancel(second.id, WHITE, T0 + 9)
    assert cancelled.status is ChallengeStatus.CANCELLED

    third = await store.challenges.create(challenge(BLACK), T0)
    assert (await store.challenges.decline(third.id, WHITE, T0)).status is ChallengeStatus.CANCELLED


async def test_a_late_accept_expires_the_challenge(store: Storage) -> None:
    made = await store.challenges.create(challenge(BLACK, ttl=3600), T0)
    with pytest.raises(ChallengeExpiredError):
        await store.challenges.accept(made.id, BLACK, T0 + 3600, start_position="S")
    assert (await store.challenges.get(made.id)).status is ChallengeStatus.EXPIRED
    assert await store.games.list_active(BLACK) == []


async def test_expire_due_returns_each_expired_challenge_once(store: Storage) -> None:
    short = await store.challenges.create(challenge(BLACK, ttl=600), T0)
    long = await store.challenges.create(challenge(None, ttl=7200), T0)
    assert [c.id for c in await store.challenges.list_open()] == [short.id, long.id]
    assert await store.challenges.expire_due(T0 + 599) == []
    expired = await store.challenges.expire_due(T0 + 600)
    assert [(c.id, c.status) for c in expired] == [(short.id, ChallengeStatus.EXPIRED)]
    assert await store.challenges.expire_due(T0 + 601) == []
    assert [c.id for c in await store.challenges.list_open(user_id=WHITE)] == [long.id]
    assert await store.challenges.list_open(user_id=BLACK) == []
    assert await store.challenges.list_open(guild_id=GUILD + 1) == []


async def test_a_challenge_creates_its_game_with_the_engine_start(db_target: str) -> None:
    async with await Storage.open(db_target, engine=FAKE_ENGINE) as storage:
        made = await storage.challenges.create(challenge(None), T0)
        _, game = await storage.challenges.accept(
            made.id, THIRD, T0, start_position=start_text("grand", ("960",))
        )
        assert game.status is GameStatus.ACTIVE
        assert game.engine_version == FAKE_ENGINE.version
        assert (await storage.players.get(THIRD)).display_name == ""
