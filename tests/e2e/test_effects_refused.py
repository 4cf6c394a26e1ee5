"""A post Discord keeps refusing is retried with back-off, then recorded as failed and logged
as an error: never silently dropped. An operator can put it back in line."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.service import ManualClock
from bot.service.models import UserRef
from storage.models import Effect, EffectStatus
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import fairypost

WAIT = 60.0


async def test_a_refused_post_is_retried_then_recorded_as_failed(
    world: World, tmp_path: Path
) -> None:
    fake = world.fake
    clock = ManualClock()
    async with fairypost(fake, tmp_path / "fp.sqlite3", clock) as runner:
        bot = runner.client
        service = bot.service
        alice, bob = UserRef(world.alice.id, "alice"), UserRef(world.bob.id, "bob")
        # A challenge whose channel is gone by the time it is accepted: Discord answers
        # 404 Unknown Channel to every attempt to open the game's thread there.
        challenge = await service.create_challenge(
            guild_id=world.guild.id,
            channel_id=424242,
            challenger=alice,
            opponent=bob,
            variant="chess",
        )
        game = await service.accept_challenge(challenge.challenge.id, bob)

        async def started() -> Effect:
            (effect,) = await service.storage.effects.find(
                game_id=game.game.id, kind="game.started"
            )
            return effect

        async def attempt_done(n: int) -> Effect:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + WAIT
            while True:
                effect = await started()
                if effect.attempts >= n and effect.claimed_by is None:
                    return effect
                assert loop.time() < deadline, f"attempt {n} never finished: {effect}"
                await asyncio.sleep(0.05)

        bot.effects.poke()
        delays = []
        for n in range(1, 8):
            effect = await attempt_done(n)
            assert effect.status is EffectStatus.PENDING and "Unknown Channel" in effect.last_error
            delays.append(effect.next_attempt_at - clock.now())
            clock.set(effect.next_attempt_at)
            bot.effects.poke()
        effect = await attempt_done(8)
        assert effect.status is EffectStatus.FAILED and effect.attempts == 8
        assert delays == [30, 90, 270, 810, 2430, 7290, 21600]  # back-off, capped at 6 h
        errors = runner.take_errors()
        assert len(errors) == 1 and "FAILED" in errors[0].getMessage()
        requeued = await service.storage.effects.requeue(effect.id, clock.now())
        assert requeued.status is EffectStatus.PENDING and requeued.attempts == 0
