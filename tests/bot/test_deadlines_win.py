"""Deadlines win: every action on a game whose deadline has passed (the bot was down, or the
timer has not come round yet) first settles the deadline, and only then is considered.

One game per action. Ann (White) played 1. e4 with a day per move; Bob's deadline passes
unnoticed; then someone acts. Whatever the action (a move, the Move button, /abort, /resign,
/draw, an answer to a draw offer or a takeback request, a conditional line, a moderator's
cancel or adjudication), the game ends as Bob's loss on time, at the deadline, and the
action is refused with that sentence, before any other refusal the action would have had
(an illegal move, answering one's own offer, a takeback with nothing to take back). The
ending is posted once and rated once, exactly as the timer alone would have done it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from bot.replies import refusal
from bot.service import GameService, ManualClock
from bot.service.conditional import ConditionalService
from bot.service.consequences import ENDED, GameEvent
from bot.service.effects import EffectRunner
from bot.service.errors import GameFinishedError
from bot.service.models import UserRef
from bot.service.moderation import Moderation, Verdict
from bot.service.picker import MovePicker
from bot.service.timers import TimerService
from storage.errors import ChallengeExpiredError, DeadlinePassedError
from storage.models import DAY, ChallengeStatus, GameStatus, Result, Termination
from tests.bot.conftest import ANN, BOB, CHANNEL, EVE, GUILD, Announced, start_game

THREAD = 5000
LOST_ON_TIME = "The deadline had passed: the game is over, white wins on time."

Action = Callable[[GameService, int], Awaitable[object]]


async def _answer_draw(
    service: GameService, game_id: int, *, accept: bool, user: UserRef = BOB
) -> object:
    offer = await service.storage.draws.pending(game_id)
    assert offer is not None
    return await service.answer_draw(offer.id, user, accept=accept)


async def _answer_takeback(
    service: GameService, game_id: int, *, accept: bool, user: UserRef = BOB
) -> object:
    request = await service.storage.takebacks.pending(game_id)
    assert request is not None
    return await service.answer_takeback(request.id, user, accept=accept)


async def _conditional(service: GameService, game_id: int) -> object:
    return await ConditionalService(service).add(
        channel_id=THREAD, user=ANN, text="e5 Nf3", game_id=game_id
    )


async def _move_button(service: GameService, game_id: int) -> object:
    return await MovePicker(service).pieces(game_id=game_id, user_id=BOB.id)


async def _moderator(service: GameService, game_id: int, *, verdict: Verdict | None) -> object:
    moderation = Moderation(service)
    if verdict is None:
        return await moderation.cancel(
            guild_id=GUILD, game_id=game_id, moderator=EVE, reason="looks abandoned"
        )
    return await moderation.adjudicate(
        guild_id=GUILD, game_id=game_id, moderator=EVE, verdict=verdict, reason="Bob left"
    )


ACTIONS: dict[str, Action] = {
    "move": lambda s, g: s.play(channel_id=THREAD, user=BOB, text="e5"),
    "illegal-move": lambda s, g: s.play(channel_id=THREAD, user=BOB, text="e4"),
    "move-button-menu": _move_button,
    "move-button-choice": lambda s, g: s.play(channel_id=THREAD, user=BOB, text="e5", at_ply=1),
    "abort-by-the-late-player": lambda s, g: s.abort(channel_id=THREAD, user=BOB),
    "abort-by-the-winner": lambda s, g: s.abort(channel_id=THREAD, user=ANN),
    "resign-by-the-winner": lambda s, g: s.resign(channel_id=THREAD, user=ANN),
    "resign-by-the-late-player": lambda s, g: s.resign(channel_id=THREAD, user=BOB),
    "draw-offer": lambda s, g: s.offer_draw(channel_id=THREAD, user=BOB),
    "draw-accept": lambda s, g: _answer_draw(s, g, accept=True),
    "draw-accept-by-offering": lambda s, g: s.offer_draw(channel_id=THREAD, user=BOB),
    "draw-decline": lambda s, g: _answer_draw(s, g, accept=False),
    "draw-offer-again": lambda s, g: s.offer_draw(channel_id=THREAD, user=ANN),
    "draw-accept-own": lambda s, g: _answer_draw(s, g, accept=True, user=ANN),
    "takeback-request": lambda s, g: s.request_takeback(channel_id=THREAD, user=ANN),
    "takeback-request-before-moving": lambda s, g: s.request_takeback(channel_id=THREAD, user=BOB),
    "takeback-accept-own": lambda s, g: _answer_takeback(s, g, accept=True, user=ANN),
    "takeback-accept": lambda s, g: _answer_takeback(s, g, accept=True),
    "takeback-decline": lambda s, g: _answer_takeback(s, g, accept=False),
    "conditional-add": _conditional,
    "mod-cancel": lambda s, g: _moderator(s, g, verdict=None),
    "mod-adjudicate": lambda s, g: _moderator(s, g, verdict=Verdict.BLACK),
}

# What was pending before the deadline passed, so that the action answers it.
BEFORE = {
    "draw-accept": "draw",
    "draw-accept-by-offering": "draw",
    "draw-decline": "draw",
    "draw-offer-again": "draw",
    "draw-accept-own": "draw",
    "takeback-accept-own": "takeback",
    "takeback-accept": "takeback",
    "takeback-decline": "takeback",
}


@pytest.mark.parametrize("action", ACTIONS)
async def test_an_action_after_the_deadline_settles_the_loss_on_time_first(
    service: GameService,
    clock: ManualClock,
    effects: EffectRunner,
    announced: Announced,
    action: str,
) -> None:
    game_id = await start_game(service, "chess", days_per_move=1, rated=True)
    await service.play(channel_id=THREAD, user=ANN, text="e4")
    deadline = (await service.storage.games.get(game_id)).deadline_at
    assert deadline is not None
    if BEFORE.get(action) == "draw":
        await service.offer_draw(channel_id=THREAD, user=ANN)
    elif BEFORE.get(action) == "takeback":
        await service.request_takeback(channel_id=THREAD, user=ANN)
    await effects.run_due()
    announced.clear()
    clock.advance(DAY + 3600)  # Bob's deadline passed an hour ago; no timer ran since

    with pytest.raises(DeadlinePassedError) as late:
        await ACTIONS[action](service, game_id)
    assert refusal(late.value) == LOST_ON_TIME

    game = await service.storage.games.get(game_id)
    assert (game.status, game.result, game.termination, game.ply_count) == (
        GameStatus.FINISHED,
        Result.WHITE_WINS,
        Termination.TIMEOUT,
        1,
    )
    assert game.ended_at == deadline  # lost when the deadline passed, not when noticed
    assert game.decided_by is None
    assert await service.storage.conditional.waiting(game_id) is None
    # Nothing the action asked for survived: offers lapsed with the ending.
    assert await service.storage.draws.pending(game_id) is None
    assert await service.storage.takebacks.pending(game_id) is None

    # The timer finds nothing left to do; the ending is posted and rated once.
    assert await TimerService(service.storage, clock).run_due() == []
    await effects.run_due()
    ended = [a for a in announced if isinstance(a, GameEvent) and a.kind == ENDED]
    assert len(ended) == 1
    assert ended[0].view.status == "White wins on time"
    assert len(ended[0].rating_changes) == 2
    ratings = {c.user_id for c in await service.storage.ratings.game_changes(game_id)}
    assert ratings == {ANN.id, BOB.id}

    # Later actions find a finished game; the result never changes again.
    with pytest.raises(GameFinishedError):
        await service.play(channel_id=THREAD, user=BOB, text="e5")
    with pytest.raises(GameFinishedError):
        await service.abort(channel_id=THREAD, user=BOB)
    again = await service.storage.games.get(game_id)
    assert (again.result, again.termination, again.ply_count) == (
        Result.WHITE_WINS,
        Termination.TIMEOUT,
        1,
    )


async def test_a_move_a_second_before_the_deadline_is_in_time(
    service: GameService, clock: ManualClock
) -> None:
    """The other side of the rule: up to the deadline, the move counts."""
    game_id = await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e4")
    clock.advance(DAY - 1)
    await service.play(channel_id=THREAD, user=BOB, text="e5")
    game = await service.storage.games.get(game_id)
    assert game.is_active and game.ply_count == 2


async def test_a_challenge_accepted_after_it_expired_starts_no_game(
    service: GameService, clock: ManualClock
) -> None:
    view = await service.create_challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger=ANN, opponent=BOB, variant="chess"
    )
    expires_at = view.challenge.expires_at
    clock.advance(expires_at - clock.now())
    with pytest.raises(ChallengeExpiredError) as late:
        await service.accept_challenge(view.challenge.id, BOB)
    assert "expired" in (refusal(late.value) or "")
    assert (await service.storage.challenges.get(view.challenge.id)).status is (
        ChallengeStatus.EXPIRED
    )
    assert await service.storage.games.list_active(BOB.id) == []


async def test_a_vacation_that_ran_out_unwritten_restarts_the_clock_and_it_can_run_out(
    service: GameService, clock: ManualClock
) -> None:
    """Bob went on vacation with 12 hours left; the vacation ended (nobody wrote it) and the
    12 hours after it passed too: his move, legal or not, finds the game lost on time at the
    end of his restarted clock. An hour after the vacation, it would have been in time."""
    game_id = await start_game(service, "chess", days_per_move=1)
    await service.play(channel_id=THREAD, user=ANN, text="e4")
    clock.advance(DAY // 2)
    await service.storage.vacations.start(BOB.id, clock.now())
    status = await service.storage.vacations.status(BOB.id, clock.now())
    assert status.ends_at is not None
    clock.advance(status.ends_at - clock.now() + DAY // 2 + 60)
    with pytest.raises(DeadlinePassedError) as late:
        await service.play(channel_id=THREAD, user=BOB, text="e4")  # illegal, and too late
    assert refusal(late.value) == LOST_ON_TIME
    game = await service.storage.games.get(game_id)
    assert (game.termination, game.ply_count) == (Termination.TIMEOUT, 1)
    assert game.ended_at == status.ends_at + DAY // 2  # the restarted clock's end
