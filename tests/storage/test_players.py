"""Players, preferences and guild settings."""

from __future__ import annotations

import dataclasses

import pytest

from storage import Storage
from storage.errors import InvalidValueError, PlayerNotFoundError
from storage.models import DAY, HOUR, GuildSettings, NoticeSchedule, NoticeTiming, NotifyMode
from tests.storage.conftest import T0, WHITE, raw_sql


async def test_upsert_creates_then_refreshes_the_name(store: Storage) -> None:
    assert await store.players.find(WHITE) is None
    with pytest.raises(PlayerNotFoundError):
        await store.players.get(WHITE)
    first = await store.players.upsert(WHITE, "Ann", T0)
    assert (first.display_name, first.created_at, first.updated_at) == ("Ann", T0, T0)
    assert first.notify_mode is NotifyMode.THREAD
    assert first.turn_notices and first.reminder_offsets == (DAY, HOUR)
    assert not first.on_vacation
    renamed = await store.players.upsert(WHITE, "Annie", T0 + 10)
    assert (renamed.display_name, renamed.created_at, renamed.updated_at) == (
        "Annie",
        T0,
        T0 + 10,
    )
    with pytest.raises(InvalidValueError):
        await store.players.upsert(WHITE, "x" * 101, T0)


async def test_preferences_change_only_what_is_given(store: Storage) -> None:
    player = await store.players.set_preferences(WHITE, T0, notify_mode=NotifyMode.DM)
    assert player.notify_mode is NotifyMode.DM
    assert player.reminder_offsets == (DAY, HOUR)
    player = await store.players.set_preferences(
        WHITE, T0, reminder_offsets=[HOUR, 6 * HOUR, HOUR], turn_notices=False
    )
    assert player.notify_mode is NotifyMode.DM
    assert player.reminder_offsets == (6 * HOUR, HOUR)
    assert not player.turn_notices
    player = await store.players.set_preferences(WHITE, T0, reminder_offsets=[])
    assert player.reminder_offsets == ()
    assert (await store.players.get(WHITE)) == player


@pytest.mark.parametrize("offsets", [[0], [-5], [1, 2, 3, 4, 5], [61 * DAY], [True]], ids=str)
async def test_bad_reminder_offsets_are_refused(store: Storage, offsets: list[int]) -> None:
    with pytest.raises(InvalidValueError):
        await store.players.set_preferences(WHITE, T0, reminder_offsets=offsets)


async def test_guild_settings_default_then_stored(store: Storage) -> None:
    defaults = await store.guilds.get(5)
    assert defaults == GuildSettings(5)
    assert defaults.updated_at is None
    changed = dataclasses.replace(
        defaults, challenge_channel_id=99, default_move_seconds=None, rated_allowed=False
    )
    saved = await store.guilds.set(changed, T0)
    assert saved == dataclasses.replace(changed, updated_at=T0)
    assert await store.guilds.get(5) == saved
    assert await store.guilds.get(6) == GuildSettings(6)
    with pytest.raises(InvalidValueError):
        await store.guilds.set(dataclasses.replace(defaults, challenge_ttl_seconds=1), T0)
    with pytest.raises(InvalidValueError):
        await store.guilds.set(dataclasses.replace(defaults, default_move_seconds=5), T0)


async def test_notice_schedules_of_players_and_servers(store: Storage, db_target: str) -> None:
    digest = NoticeSchedule(NoticeTiming.DIGEST, hour=8, utc_offset=120)
    player = await store.players.set_schedule(WHITE, digest, T0)
    assert player.schedule == digest and await store.players.get(WHITE) == player
    quiet = NoticeSchedule(NoticeTiming.QUIET, hour=22, until=7, utc_offset=-330)
    assert (await store.players.set_schedule(WHITE, quiet, T0)).schedule == quiet
    assert (await store.players.set_schedule(WHITE, None, T0)).schedule is None  # the server's
    server = dataclasses.replace(GuildSettings(5), notice_schedule=digest)
    assert (await store.guilds.set(server, T0)).notice_schedule == digest
    assert (await store.guilds.get(5)).notice_schedule == digest
    for bad in (
        NoticeSchedule(NoticeTiming.DIGEST),
        NoticeSchedule(NoticeTiming.DIGEST, hour=24),
        NoticeSchedule(NoticeTiming.QUIET, hour=22),
        NoticeSchedule(NoticeTiming.QUIET, hour=7, until=7),
        NoticeSchedule(NoticeTiming.NOW, hour=8),
        NoticeSchedule(NoticeTiming.NOW, utc_offset=15 * 60),
    ):
        with pytest.raises(InvalidValueError):
            await store.players.set_schedule(WHITE, bad, T0)
    # The database refuses a schedule that makes no sense, whoever writes it.
    with pytest.raises(Exception, match=r"(?i)check"):
        await raw_sql(db_target, "UPDATE players SET notice_timing = 'now', notice_hour = 3")


async def test_the_piece_set_is_a_preference(store: Storage) -> None:
    """Migration 0016: traditional pieces by default, letters by choice."""
    first = await store.players.upsert(WHITE, "Ann", T0)
    assert first.piece_set == "traditional"
    player = await store.players.set_preferences(WHITE, T0, piece_set="letters")
    assert player.piece_set == "letters" and player.notify_mode is first.notify_mode
    player = await store.players.set_preferences(WHITE, T0, turn_notices=False)
    assert player.piece_set == "letters"
    with pytest.raises(InvalidValueError):
        await store.players.set_preferences(WHITE, T0, piece_set="kanji")
