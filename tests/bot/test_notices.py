"""When notices come (bot/service/notices.py): the digest's hour and quiet hours in a player's
own time zone, across midnight, and the one rule that keeps them safe (nothing is held past
its game's deadline)."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.service import notices
from bot.service.errors import BadRequestError
from bot.service.notices import Digest, Hold, Send, change, next_hour, parse_offset, plan
from storage.models import DAY, HOUR, NoticeSchedule, NoticeTiming, NotifyMode, Player


def at(text: str) -> int:
    """`2027-01-15 07:30` (UTC) -> Unix seconds."""
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC).timestamp())


DIGEST_8 = NoticeSchedule(NoticeTiming.DIGEST, hour=8, utc_offset=120)  # 06:00 UTC
QUIET = NoticeSchedule(NoticeTiming.QUIET, hour=22, until=7, utc_offset=-300)  # 03:00-12:00 UTC


def test_the_next_hour_is_on_the_players_clock() -> None:
    assert next_hour(DIGEST_8, 8, at("2027-01-15 05:59")) == at("2027-01-15 06:00")
    assert next_hour(DIGEST_8, 8, at("2027-01-15 06:00")) == at("2027-01-16 06:00")  # after
    india = NoticeSchedule(NoticeTiming.DIGEST, hour=0, utc_offset=330)
    assert next_hour(india, 0, at("2027-01-15 12:00")) == at("2027-01-15 18:30")


def test_quiet_hours_cross_midnight_and_end_on_the_hour() -> None:
    assert notices.is_quiet(QUIET, at("2027-01-15 03:00"))  # 22:00 in UTC-5
    assert notices.is_quiet(QUIET, at("2027-01-15 08:00"))  # 03:00
    assert not notices.is_quiet(QUIET, at("2027-01-15 12:00"))  # 07:00: over
    assert not notices.is_quiet(QUIET, at("2027-01-15 02:59"))
    day = NoticeSchedule(NoticeTiming.QUIET, hour=9, until=17)
    assert notices.is_quiet(day, at("2027-01-15 12:00"))
    assert not notices.is_quiet(day, at("2027-01-15 17:00"))


def test_what_becomes_of_a_notice() -> None:
    due = at("2027-01-15 10:00")
    assert plan(notices.NOW, due=due, deadline=None) == Send()
    # A digest player: the next digest, unless the deadline comes first.
    assert plan(DIGEST_8, due=due, deadline=due + 3 * DAY) == Digest(at("2027-01-16 06:00"))
    assert plan(DIGEST_8, due=due, deadline=at("2027-01-16 05:00")) == Send()
    assert plan(DIGEST_8, due=due, deadline=None) == Digest(at("2027-01-16 06:00"))
    # Quiet hours: held to their end, unless the deadline falls in them.
    night = at("2027-01-15 05:00")
    assert plan(QUIET, due=night, deadline=night + DAY) == Hold(at("2027-01-15 12:00"))
    assert plan(QUIET, due=night, deadline=night + 2 * HOUR) == Send()
    assert plan(QUIET, due=at("2027-01-15 13:00"), deadline=None) == Send()


def test_a_thread_ping_only_for_thread_mentions_at_once() -> None:
    due = at("2027-01-15 05:00")

    def player(mode: NotifyMode) -> Player:
        return Player(1, "bob", mode, True, (DAY,), None, None, 0, 0)

    thread, dm = player(NotifyMode.THREAD), player(NotifyMode.DM)
    assert notices.pings_in_thread(thread, notices.NOW, due=due, deadline=None)
    assert not notices.pings_in_thread(dm, notices.NOW, due=due, deadline=None)  # the DM only
    assert not notices.pings_in_thread(thread, QUIET, due=due, deadline=None)
    assert notices.pings_in_thread(thread, QUIET, due=due, deadline=due + HOUR)  # a warning
    assert not notices.pings_in_thread(thread, DIGEST_8, due=due, deadline=None)
    assert notices.effective(None, DIGEST_8) == DIGEST_8
    assert notices.effective(thread, None) == notices.NOW


def test_settings_parse_and_explain() -> None:
    assert [parse_offset(t) for t in ("+2", "-5", "+5:30", "UTC+1", "0", "gmt-03:30")] == [
        120,
        -300,
        330,
        60,
        0,
        -210,
    ]
    for bad in ("+15", "Paris", "+2:75", ""):
        with pytest.raises(BadRequestError):
            parse_offset(bad)
    digest = change(None, timing="digest", utc_offset="+2")
    assert digest == NoticeSchedule(NoticeTiming.DIGEST, 8, None, 120)
    assert change(digest, hour=19) == NoticeSchedule(NoticeTiming.DIGEST, 19, None, 120)
    quiet = change(digest, timing="quiet")
    assert quiet == NoticeSchedule(NoticeTiming.QUIET, 22, 7, 120)
    assert change(quiet, until=6) == NoticeSchedule(NoticeTiming.QUIET, 22, 6, 120)
    assert change(quiet, timing=notices.DEFAULT) is None
    assert change(None, timing="now") == notices.NOW
    for kwargs in ({"hour": 8}, {"timing": "digest", "until": 3}, {"timing": "quiet", "hour": 7}):
        with pytest.raises(BadRequestError):
            change(None, **kwargs)  # type: ignore[arg-type]
    assert notices.describe(quiet) == "at once, but quiet from 22:00 to 07:00 (UTC+2)"
    now = at("2027-01-15 10:00")
    assert notices.explain(digest, now) == (
        f"a daily digest at 08:00 (UTC+2); the next <t:{at('2027-01-16 06:00')}:f>"
    )
