"""Server controls in storage: per-guild settings of /config, moderators' decisions on a game,
and forgetting a player everywhere while games and ratings keep working."""

from __future__ import annotations

import dataclasses

import pytest

from storage import Storage
from storage.effects import player_queue
from storage.errors import GameEndedError, PlayerHasActiveGamesError, PlayerNotFoundError
from storage.models import (
    Clock,
    GameStatus,
    GuildSettings,
    NewChallenge,
    NewEffect,
    RatingUpdate,
    Result,
    Termination,
)
from tests.storage.conftest import BLACK, CHANNEL, GUILD, T0, THIRD, WHITE, new_game, play

MODERATOR = 4242


async def test_guild_settings_keep_rated_default_and_organiser_role(store: Storage) -> None:
    changed = dataclasses.replace(GuildSettings(GUILD), rated_default=False, organiser_role_id=555)
    saved = await store.guilds.set(changed, T0)
    assert (saved.rated_default, saved.organiser_role_id) == (False, 555)
    assert await store.guilds.get(GUILD) == saved
    cleared = await store.guilds.set(dataclasses.replace(saved, organiser_role_id=None), T0 + 1)
    assert cleared.organiser_role_id is None and cleared.rated_default is False


async def test_a_moderator_cancels_a_stuck_game(store: Storage) -> None:
    game = await play(store, await new_game(store), ["e2e4", "e7e5", "g1f3"], T0)
    cancelled = await store.games.cancel(game.id, T0 + 10, by=MODERATOR, reason="both gone")
    assert cancelled.status is GameStatus.ABORTED
    assert cancelled.result is None and cancelled.termination is Termination.ABORTED
    assert (cancelled.decided_by, cancelled.end_detail) == (MODERATOR, "both gone")
    assert cancelled.deadline_at is None
    with pytest.raises(GameEndedError):
        await store.games.cancel(game.id, T0 + 11, by=MODERATOR)


async def test_a_moderator_adjudicates_a_result(store: Storage) -> None:
    game = await play(store, await new_game(store), ["e2e4", "e7e5"], T0)
    decided = await store.games.adjudicate(
        game.id, Result.BLACK_WINS, T0 + 10, by=MODERATOR, reason="White left the server"
    )
    assert decided.status is GameStatus.FINISHED
    assert decided.result is Result.BLACK_WINS
    assert decided.termination is Termination.ADJUDICATION
    assert decided.decided_by == MODERATOR and decided.end_detail == "White left the server"
    with pytest.raises(GameEndedError):
        await store.games.adjudicate(game.id, Result.DRAW, T0 + 11, by=MODERATOR)


async def _rated_finished_game(store: Storage) -> int:
    game = await play(store, await new_game(store), ["e2e4", "e7e5"], T0)
    ended = await store.games.resign(game.id, BLACK, T0 + 5)
    await store.ratings.apply_game(
        ended.id,
        [
            RatingUpdate(WHITE, 1662.3, 290.3, 0.06, 0),
            RatingUpdate(BLACK, 1337.7, 290.3, 0.06, 0),
        ],
        T0 + 5,
    )
    return ended.id


async def test_forgetting_a_player_replaces_them_everywhere(store: Storage) -> None:
    await store.players.upsert(WHITE, "Alice Liddell", T0)
    await store.players.upsert(BLACK, "Bob", T0)
    game_id = await _rated_finished_game(store)
    open_challenge = await store.challenges.create(
        NewChallenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger_id=WHITE,
            opponent_id=THIRD,
            variant_id="chess",
            clock=Clock(86_400, 0),
        ),
        T0 + 6,
    )
    digests = [  # Alice's daily digests, one sent and one to come, name her in their keys
        NewEffect("notice.digest", {"user_id": WHITE, "at": at}, queue=queue, dedupe_key=key)
        for at in (T0, T0 + 86_400)
        for queue in [player_queue(WHITE, "digest")]
        for key in [f"{queue}:{at}"]
    ]
    sent, _ = await store.effects.add(digests, T0 + 6)
    await store.effects.claim_one(sent.id, "test", T0 + 6, lease_seconds=60)
    assert await store.effects.complete(sent.id, "test", T0 + 6)
    done = await store.players.forget(WHITE, T0 + 7)
    assert done.anonymous_id < 0 and done.label == f"Anonymous {-done.anonymous_id}"
    assert done.games == 1 and done.challenges_cancelled == 1
    with pytest.raises(PlayerNotFoundError):
        await store.players.get(WHITE)
    # the game is still there, now between the anonymous player and Bob
    game = await store.games.get(game_id)
    assert (game.white_id, game.black_id) == (done.anonymous_id, BLACK)
    assert game.result is Result.WHITE_WINS
    assert (await store.players.get(done.anonymous_id)).display_name == done.label
    # Bob's rating and its history are untouched and still name the opponent
    [bob] = await store.ratings.for_player(BLACK)
    assert bob.rating == pytest.approx(1337.7)
    [change] = await store.ratings.history(BLACK)
    assert change.opponent_id == done.anonymous_id
    assert [e.user_id for e in await store.ratings.leaderboard("chess")] == [BLACK]
    assert (await store.challenges.get(open_challenge.id)).status.value == "cancelled"
    # nothing anywhere still holds the Discord id or the name
    async with store._db.transaction(write=False) as tx:
        if tx.dialect == "postgresql":
            tables = await tx.all(
                "SELECT table_name AS name FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            )
        else:
            tables = await tx.all(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        assert len(tables) >= 10
        for table in tables:
            for row in await tx.all(f'SELECT * FROM "{table["name"]}"'):
                values = list(row)
                assert WHITE not in values, (table["name"], values)
                if table["name"] == "effects":
                    assert not any(str(WHITE) in str(v) for v in values), values
                assert not any("Alice" in str(v) for v in values), (table["name"], values)
    # a second forgotten player gets the next label
    again = await store.players.forget(BLACK, T0 + 8)
    assert again.anonymous_id == done.anonymous_id - 1


async def test_forgetting_waits_for_games_in_progress(store: Storage) -> None:
    game = await new_game(store)
    with pytest.raises(PlayerHasActiveGamesError) as refused:
        await store.players.forget(BLACK, T0)
    assert refused.value.game_ids == [game.id] and refused.value.tournaments == []
    await store.games.cancel(game.id, T0 + 1, by=MODERATOR)
    assert (await store.players.forget(BLACK, T0 + 2)).games == 1


async def test_forgetting_waits_for_open_tournaments(store: Storage) -> None:
    from storage.tournaments import NewTournament

    cup = await store.tournaments.create(
        NewTournament(
            guild_id=GUILD,
            channel_id=CHANNEL,
            name="Winter Cup",
            variant_id="chess",
            format="round-robin",
            created_by=THIRD,
        ),
        T0,
    )
    await store.tournaments.join(cup.id, WHITE, T0 + 1)
    with pytest.raises(PlayerHasActiveGamesError) as refused:
        await store.players.forget(WHITE, T0 + 2)
    assert refused.value.tournaments == ["Winter Cup"] and refused.value.game_ids == []
    await store.tournaments.leave(cup.id, WHITE)
    assert (await store.players.forget(WHITE, T0 + 3)).games == 0
    done = await store.players.forget(THIRD, T0 + 4)  # the organiser: the cup stays theirs
    assert (await store.tournaments.get(cup.id)).created_by == done.anonymous_id
