"""The services behind /config, /mod and /forget-me: refusals name what is allowed."""

from __future__ import annotations

import pytest

from bot.service import GameService, ManualClock
from bot.service.effects import EffectRunner
from bot.service.errors import BadRequestError, ServiceError
from bot.service.moderation import MAX_REASON, Moderation, Verdict
from bot.service.privacy import Privacy
from bot.service.server_config import ConfigChange, RatedPolicy, ServerConfig, Unset
from storage.models import DAY, GameStatus, Result
from tests.bot.conftest import ANN, BOB, EVE, GUILD, start_game


async def test_config_changes_only_what_is_given(service: GameService) -> None:
    config = ServerConfig(service.storage, service.clock)
    assert (await config.change(GUILD, ConfigChange())).updated_at is None  # nothing stored
    saved = await config.change(GUILD, ConfigChange(rated=RatedPolicy.CASUAL, days_per_move=0))
    assert RatedPolicy.of(saved) is RatedPolicy.CASUAL and saved.default_move_seconds is None
    saved = await config.change(GUILD, ConfigChange(challenge_channel_id=77, days_per_move=14))
    assert saved.challenge_channel_id == 77 and saved.default_move_seconds == 14 * DAY
    assert RatedPolicy.of(saved) is RatedPolicy.CASUAL
    saved = await config.change(GUILD, ConfigChange(unset=Unset.CHALLENGE_CHANNEL))
    assert saved.challenge_channel_id is None
    with pytest.raises(BadRequestError, match="Days per move must be one of 1, 2, 3"):
        await config.change(GUILD, ConfigChange(days_per_move=4))
    with pytest.raises(BadRequestError, match="not both"):
        await config.change(GUILD, ConfigChange(organiser_role_id=5, unset=Unset.ORGANISERS))


async def test_challenges_follow_the_rated_default(service: GameService) -> None:
    config = ServerConfig(service.storage, service.clock)
    await config.change(GUILD, ConfigChange(rated=RatedPolicy.CASUAL))
    game_id = await start_game(service, "chess")
    assert not (await service.storage.games.get(game_id)).rated
    rated = await start_game(service, "chess", rated=True, thread=5001)
    assert (await service.storage.games.get(rated)).rated


async def test_moderators_act_only_on_their_servers_games(
    service: GameService, clock: ManualClock, effects: EffectRunner
) -> None:
    moderation = Moderation(service)
    game_id = await start_game(service, "chess")
    with pytest.raises(ServiceError, match=f"There is no game #{game_id} here"):
        await moderation.cancel(guild_id=GUILD + 1, game_id=game_id, moderator=EVE)
    with pytest.raises(BadRequestError, match="Say why"):
        await moderation.adjudicate(
            guild_id=GUILD, game_id=game_id, moderator=EVE, verdict=Verdict.DRAW, reason=" "
        )
    with pytest.raises(BadRequestError, match="`reason` contains a line break"):
        await moderation.cancel(guild_id=GUILD, game_id=game_id, moderator=EVE, reason="a\nb")
    with pytest.raises(BadRequestError, match=str(MAX_REASON)):
        await moderation.cancel(
            guild_id=GUILD, game_id=game_id, moderator=EVE, reason="x" * (MAX_REASON + 1)
        )
    ended = await moderation.adjudicate(
        guild_id=GUILD, game_id=game_id, moderator=EVE, verdict=Verdict.DRAW, reason="agreed"
    )
    game = ended.view.game
    assert game.status is GameStatus.FINISHED and game.result is Result.DRAW
    assert game.decided_by == EVE.id and ended.view.status == "Draw by adjudication: agreed"
    # a rated game is rated on the decided result: recorded as an effect with the decision
    kinds = [e.kind for e in await service.storage.effects.find(game_id=game.id)]
    assert "ratings.apply" in kinds


async def test_forgetting_someone_who_plays_is_refused_with_the_games(
    service: GameService, effects: EffectRunner
) -> None:
    privacy = Privacy(service.storage, service.clock)
    game_id = await start_game(service, "chess")
    with pytest.raises(BadRequestError) as refused:
        await privacy.forget(BOB)
    assert f"You still play game #{game_id}: finish or resign it (/resign)" in str(refused.value)
    await service.resign(channel_id=5000, user=BOB)
    # the resignation's post and ratings are still to be carried out: not yet
    with pytest.raises(BadRequestError, match="still being posted"):
        await privacy.forget(BOB)
    assert await effects.run_due() >= 2  # the ratings and the post
    done = await privacy.forget(BOB)
    assert done is not None and done.games == 1
    assert await service.name_of(done.anonymous_id) == done.label
    assert await privacy.forget(BOB) is None  # nothing left to forget
    assert await privacy.knows(ANN)
