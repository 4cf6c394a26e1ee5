"""When a player hears of their turns: at once, in a daily digest, or outside quiet hours.

A player (or, for players who did not choose, the game's server) picks a `NoticeSchedule`:

- **at once** (the default): each turn notice and reminder when it falls due;
- **daily digest**: one direct message a day at the player's hour, listing every game
  awaiting their move with its link and deadline; notices in between wait for it;
- **quiet hours**: notices at once, but none from the quiet hours' start to their end; those
  wait for the end.

One rule keeps both safe: a notice whose game's deadline would pass before the digest (or
before the quiet hours end) is sent at once, a deadline warning. Everything is decided as of
the moment the notice fell due (a move's post and its turn notice agree on whether the player
hears now), and carried out through the outbox: a notice that waits becomes an effect due
later (`HELD`), a digest one effect per player and day, deduplicated by its time, so a
digest goes out once whatever restarts and however many games joined it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.service.errors import BadRequestError
from storage.models import DAY, HOUR, NoticeSchedule, NoticeTiming, NotifyMode, Player

NOW = NoticeSchedule()


@dataclass(frozen=True, slots=True)
class Send:
    """Send the notice now."""


@dataclass(frozen=True, slots=True)
class Hold:
    """Quiet hours: send it at `until`."""

    until: int


@dataclass(frozen=True, slots=True)
class Digest:
    """Leave it to the digest at `at`."""

    at: int


Plan = Send | Hold | Digest


def _local(schedule: NoticeSchedule, when: int) -> int:
    return when + schedule.utc_offset * 60


def next_hour(schedule: NoticeSchedule, hour: int, after: int) -> int:
    """The first moment strictly after `after` when the player's clock shows `hour`:00."""
    local = _local(schedule, after)
    at = local - local % DAY + hour * HOUR
    if at <= local:
        at += DAY
    return at - schedule.utc_offset * 60


def is_quiet(schedule: NoticeSchedule, when: int) -> bool:
    """Whether `when` falls in the quiet hours (from `hour`:00 to `until`:00, maybe across
    midnight; the end itself is no longer quiet)."""
    if schedule.timing is not NoticeTiming.QUIET or schedule.hour is None:
        return False
    assert schedule.until is not None
    hour = _local(schedule, when) % DAY / HOUR
    start, end = schedule.hour, schedule.until
    return start <= hour < end if start < end else hour >= start or hour < end


def plan(schedule: NoticeSchedule, *, due: int, deadline: int | None) -> Plan:
    """What becomes of a notice that fell due at `due`. It depends on nothing else (not on
    when it is decided: a notice taken up again after a crash, or late after the bot was
    down, is planned the same, and a time already past is simply due at once)."""
    if schedule.timing is NoticeTiming.DIGEST and schedule.hour is not None:
        at = next_hour(schedule, schedule.hour, due)
        if deadline is not None and deadline <= at:
            return Send()
        return Digest(at)
    if is_quiet(schedule, due):
        assert schedule.until is not None
        until = next_hour(schedule, schedule.until, due)
        if deadline is not None and deadline <= until:
            return Send()
        return Hold(until)
    return Send()


def effective(player: Player | None, server_default: NoticeSchedule | None) -> NoticeSchedule:
    """The player's own schedule, else their server's default, else at once."""
    if player is not None and player.schedule is not None:
        return player.schedule
    return server_default or NOW


def pings_in_thread(
    player: Player | None, schedule: NoticeSchedule, *, due: int, deadline: int | None
) -> bool:
    """Whether a post in the game's thread that asks the player to move should ping them:
    only for a player who hears of turns by thread mentions, at once. One who chose direct
    messages gets the DM instead (never both); a digest or quiet hours hold the ping too."""
    if player is not None and player.notify_mode is NotifyMode.DM:
        return False
    return isinstance(plan(schedule, due=due, deadline=deadline), Send)


def offset_text(minutes: int) -> str:
    """`UTC`, `UTC+2`, `UTC-5:30`."""
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def describe(schedule: NoticeSchedule) -> str:
    """How /settings and /config say a schedule."""
    zone = offset_text(schedule.utc_offset)
    if schedule.timing is NoticeTiming.DIGEST:
        return f"a daily digest at {schedule.hour:02d}:00 ({zone})"
    if schedule.timing is NoticeTiming.QUIET:
        return f"at once, but quiet from {schedule.hour:02d}:00 to {schedule.until:02d}:00 ({zone})"
    return "at once"


CHOICES = {
    "now": "at once",
    "digest": "a daily digest",
    "quiet": "quiet hours",
}
DEFAULT = "default"
"""A player's choice to follow their server's default."""
DIGEST_HOUR, QUIET_FROM, QUIET_UNTIL = 8, 22, 7
_OFFSET = re.compile(r"^(?:utc|gmt)?\s*([+-]?)\s*(\d{1,2})(?:[:.h]?(\d{2}))?$", re.IGNORECASE)


def parse_offset(text: str) -> int:
    """`+2`, `-5`, `+5:30`, `UTC+1`, `0` -> minutes east of UTC."""
    found = _OFFSET.match(text.strip())
    if found is None:
        raise BadRequestError(
            f"A time zone is hours from UTC, like `+2`, `-5` or `+5:30`; not {text.strip()!r}."
        )
    sign, hours, minutes = found.groups()
    total = int(hours) * 60 + int(minutes or 0)
    total = -total if sign == "-" else total
    if not -720 <= total <= 840 or int(minutes or 0) >= 60:
        raise BadRequestError("A time zone is between UTC-12:00 and UTC+14:00.")
    return total


def change(
    current: NoticeSchedule | None,
    *,
    timing: str | None = None,
    hour: int | None = None,
    until: int | None = None,
    utc_offset: str | None = None,
) -> NoticeSchedule | None:
    """The schedule after /settings or /config: `timing` (a key of `CHOICES`, or `DEFAULT`:
    None, follow the server) with its hours; hours or a time zone alone change the current
    schedule. Hours left out keep theirs, else 08:00 for a digest, 22:00 to 07:00 quiet."""
    for value in (hour, until):
        if value is not None and not 0 <= value <= 23:
            raise BadRequestError(f"An hour is 0 to 23 (your time), not {value}.")
    if timing == DEFAULT:
        return None
    base = current or NOW
    offset = parse_offset(utc_offset) if utc_offset is not None else base.utc_offset
    kind = NoticeTiming(timing) if timing is not None else base.timing
    if kind is NoticeTiming.NOW:
        if timing is None and (hour is not None or until is not None):
            raise BadRequestError(
                "Hours are for a daily digest or quiet hours: choose one in `schedule` too."
            )
        return NoticeSchedule(NoticeTiming.NOW, utc_offset=offset)
    same = base.timing is kind
    if kind is NoticeTiming.DIGEST:
        if until is not None:
            raise BadRequestError("A digest has one hour (`hour`); `until` is for quiet hours.")
        start = hour if hour is not None else base.hour if same else None
        return NoticeSchedule(kind, start if start is not None else DIGEST_HOUR, None, offset)
    start = hour if hour is not None else base.hour if same else None
    end = until if until is not None else base.until if same else None
    start = QUIET_FROM if start is None else start
    end = QUIET_UNTIL if end is None else end
    if start == end:
        raise BadRequestError("Quiet hours need a start (`hour`) and a different end (`until`).")
    return NoticeSchedule(kind, start, end, offset)


def explain(schedule: NoticeSchedule, now: int) -> str:
    """`describe`, and when it next applies as a Discord timestamp (each reader sees it in
    their own time zone, so a wrong offset shows at once)."""
    text = describe(schedule)
    if schedule.timing is NoticeTiming.DIGEST and schedule.hour is not None:
        return f"{text}; the next <t:{next_hour(schedule, schedule.hour, now)}:f>"
    if schedule.timing is NoticeTiming.QUIET and schedule.hour is not None:
        assert schedule.until is not None
        if is_quiet(schedule, now):
            return f"{text}; quiet now, until <t:{next_hour(schedule, schedule.until, now)}:f>"
        start = next_hour(schedule, schedule.hour, now)
        end = next_hour(schedule, schedule.until, start)
        return f"{text}; next <t:{start}:f> to <t:{end}:t>"
    return text
