"""Row-to-dataclass conversion and input validation, shared by the repositories."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence

from storage.db import Row
from storage.errors import InvalidValueError
from storage.models import (
    DAY,
    ArchivedMove,
    Board,
    Challenge,
    ChallengeStatus,
    Clock,
    Color,
    ColorChoice,
    DrawOffer,
    Effect,
    EffectStatus,
    Game,
    GameStatus,
    GuildSettings,
    Move,
    NoticeSchedule,
    NoticeTiming,
    NotifyMode,
    Player,
    Rating,
    RatingChange,
    RequestStatus,
    Result,
    TakebackRequest,
    Termination,
    Tournament,
    TournamentPlayer,
)

MIN_MOVE_SECONDS = 60
MAX_MOVE_SECONDS = 60 * DAY
MAX_REMINDERS = 4
MAX_NAME = 100
MAX_DETAIL = 200
MAX_POSITION = 100_000
MAX_ENGINE_NAME = 60
"""A move's engine name (migration 0019's CHECK)."""


# --- validation -------------------------------------------------------------------------


def check_text(name: str, value: str, *, max_len: int, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise InvalidValueError(f"{name} must be text, not {type(value).__name__}")
    if not value and not allow_empty:
        raise InvalidValueError(f"{name} must not be empty")
    if len(value) > max_len:
        raise InvalidValueError(f"{name} is longer than {max_len} characters")
    return value


def check_token(name: str, value: str, *, max_len: int) -> str:
    """Text without whitespace: coordinates and ids."""
    check_text(name, value, max_len=max_len)
    if any(ch.isspace() for ch in value):
        raise InvalidValueError(f"{name} must not contain spaces: {value!r}")
    return value


def check_positive(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InvalidValueError(f"{name} must be a positive integer, not {value!r}")
    return value


def check_clock(value: Clock) -> Clock:
    if value.move_seconds is None:
        if value.bank_cap_seconds:
            raise InvalidValueError("an untimed game cannot have a time bank")
        return value
    if not MIN_MOVE_SECONDS <= value.move_seconds <= MAX_MOVE_SECONDS:
        raise InvalidValueError(
            f"time per move must be between {MIN_MOVE_SECONDS} seconds and "
            f"{MAX_MOVE_SECONDS // DAY} days"
        )
    if not 0 <= value.bank_cap_seconds <= MAX_MOVE_SECONDS:
        raise InvalidValueError(
            f"the bank cap must be between 0 and {MAX_MOVE_SECONDS // DAY} days"
        )
    return value


def options_json(options: Sequence[str]) -> str:
    if isinstance(options, str):
        raise InvalidValueError("options must be a sequence of strings, not one string")
    for option in options:
        check_text("an option", option, max_len=200)
    return json.dumps(list(options), ensure_ascii=False, separators=(",", ":"))


def hash_text(value: str | int) -> str:
    """Hashes are stored as lowercase hex text, so 64-bit unsigned values fit."""
    if isinstance(value, bool):
        raise InvalidValueError("a position hash must be an int or hex text")
    if isinstance(value, int):
        if value < 0:
            raise InvalidValueError("a position hash must not be negative")
        return format(value, "x")
    lowered = value.lower()
    if not lowered or len(lowered) > 128 or any(ch not in "0123456789abcdef" for ch in lowered):
        raise InvalidValueError(f"a position hash must be hex text, not {value!r}")
    return lowered


def check_offsets(offsets: Iterable[int]) -> tuple[int, ...]:
    """Distinct positive offsets up to the longest clock, largest first."""
    values = sorted({check_positive("a reminder offset", o) for o in offsets}, reverse=True)
    if len(values) > MAX_REMINDERS:
        raise InvalidValueError(f"at most {MAX_REMINDERS} reminders per turn")
    if values and values[0] > MAX_MOVE_SECONDS:
        raise InvalidValueError(
            f"a reminder cannot come more than {MAX_MOVE_SECONDS // DAY} days early"
        )
    return tuple(values)


def check_rating_value(name: str, value: float, low: float, high: float) -> float:
    if not isinstance(value, int | float) or not math.isfinite(value) or not low < value < high:
        raise InvalidValueError(f"{name} {value!r} is out of range")
    return float(value)


def format_offsets(offsets: Sequence[int]) -> str:
    return ",".join(str(o) for o in offsets)


def check_schedule(schedule: NoticeSchedule) -> NoticeSchedule:
    """A digest needs its hour, quiet hours a start and a different end; hours 0 to 23, an
    offset from UTC within the world's time zones (-12:00 to +14:00)."""
    if not isinstance(schedule.timing, NoticeTiming):
        raise InvalidValueError(f"unknown notice timing {schedule.timing!r}")
    for hour in (schedule.hour, schedule.until):
        if hour is not None and not 0 <= hour <= 23:
            raise InvalidValueError(f"an hour is 0 to 23, not {hour}")
    if not -720 <= schedule.utc_offset <= 840:
        raise InvalidValueError("an offset from UTC is between -12:00 and +14:00")
    timing = schedule.timing
    if timing is NoticeTiming.NOW and (schedule.hour is not None or schedule.until is not None):
        raise InvalidValueError("notices at once have no hours")
    if timing is NoticeTiming.DIGEST and (schedule.hour is None or schedule.until is not None):
        raise InvalidValueError("a daily digest has one hour")
    if timing is NoticeTiming.QUIET and (
        schedule.hour is None or schedule.until is None or schedule.hour == schedule.until
    ):
        raise InvalidValueError("quiet hours have a start and a different end")
    return schedule


def schedule_values(
    schedule: NoticeSchedule | None,
) -> tuple[str | None, int | None, int | None, int]:
    """The four `notice_*` columns of a schedule (None: follow the default)."""
    if schedule is None:
        return None, None, None, 0
    check_schedule(schedule)
    return schedule.timing.value, schedule.hour, schedule.until, schedule.utc_offset


def parse_schedule(row: Row) -> NoticeSchedule | None:
    if row["notice_timing"] is None:
        return None
    return NoticeSchedule(
        NoticeTiming(row["notice_timing"]),
        row["notice_hour"],
        row["notice_until"],
        row["notice_utc_offset"],
    )


def parse_offsets(value: str) -> tuple[int, ...]:
    return tuple(int(part) for part in value.split(",")) if value else ()


def parse_options(value: str) -> tuple[str, ...]:
    return tuple(str(item) for item in json.loads(value))


# --- rows -------------------------------------------------------------------------------


def player(row: Row) -> Player:
    return Player(
        user_id=row["user_id"],
        display_name=row["display_name"],
        notify_mode=NotifyMode(row["notify_mode"]),
        turn_notices=bool(row["turn_notices"]),
        reminder_offsets=parse_offsets(row["reminder_offsets"]),
        vacation_started_at=row["vacation_started_at"],
        vacation_ends_at=row["vacation_ends_at"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        schedule=parse_schedule(row),
        piece_set=row["piece_set"],
    )


def guild_settings(row: Row) -> GuildSettings:
    return GuildSettings(
        guild_id=row["guild_id"],
        challenge_channel_id=row["challenge_channel_id"],
        challenge_ttl_seconds=row["challenge_ttl_seconds"],
        default_move_seconds=row["default_move_seconds"],
        rated_allowed=bool(row["rated_allowed"]),
        rated_default=bool(row["rated_default"]),
        organiser_role_id=row["organiser_role_id"],
        notice_schedule=parse_schedule(row),
        updated_at=row["updated_at"],
    )


def challenge(row: Row) -> Challenge:
    return Challenge(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        message_id=row["message_id"],
        challenger_id=row["challenger_id"],
        opponent_id=row["opponent_id"],
        variant_id=row["variant_id"],
        options=parse_options(row["options"]),
        color=ColorChoice(row["color"]),
        clock=Clock(row["move_seconds"], row["bank_cap_seconds"]),
        rated=bool(row["rated"]),
        status=ChallengeStatus(row["status"]),
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        resolved_at=row["resolved_at"],
        resolved_by=row["resolved_by"],
        game_id=row["game_id"],
        definition_digest=row["definition_digest"],
    )


def game(row: Row) -> Game:
    return Game(
        id=row["id"],
        challenge_id=row["challenge_id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        thread_id=row["thread_id"],
        message_id=row["message_id"],
        variant_id=row["variant_id"],
        options=parse_options(row["options"]),
        white_id=row["white_id"],
        black_id=row["black_id"],
        rated=bool(row["rated"]),
        status=GameStatus(row["status"]),
        result=None if row["result"] is None else Result(row["result"]),
        termination=None if row["termination"] is None else Termination(row["termination"]),
        end_detail=row["end_detail"],
        turn=Color(row["turn"]),
        ply_count=row["ply_count"],
        position_text=row["position_text"],
        engine_version=row["engine_version"],
        clock=Clock(row["move_seconds"], row["bank_cap_seconds"]),
        deadline_at=row["deadline_at"],
        paused_remaining=row["paused_remaining"],
        white_bank=row["white_bank"],
        black_bank=row["black_bank"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        ended_at=row["ended_at"],
        revision=row["revision"],
        decided_by=row["decided_by"],
        definition_digest=row["definition_digest"],
        tournament_id=row["tournament_id"],
        engine_id=row["engine_id"],
        engine_level=row["engine_level"],
    )


def tournament(row: Row) -> Tournament:
    return Tournament(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        message_id=row["message_id"],
        thread_id=row["thread_id"],
        name=row["name"],
        variant_id=row["variant_id"],
        options=parse_options(row["options"]),
        format=row["format"],
        cycles=row["cycles"],
        rounds=row["rounds"],
        all_at_once=bool(row["all_at_once"]),
        clock=Clock(row["move_seconds"], row["bank_cap_seconds"]),
        rated=bool(row["rated"]),
        max_players=row["max_players"],
        starts_at=row["starts_at"],
        round_seconds=row["round_seconds"],
        bye_points=row["bye_points"],
        initial_colour=row["initial_colour"],
        status=row["status"],
        current_round=row["current_round"],
        round_deadline_at=row["round_deadline_at"],
        end_reason=row["end_reason"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        definition_digest=row["definition_digest"],
    )


def board(row: Row, game: Game | None = None) -> Board:
    return Board(
        round=row["round"],
        board=row["board"],
        white_id=row["white_id"],
        black_id=row["black_id"],
        game_id=row["game_id"],
        white_points=row["white_points"],
        black_points=row["black_points"],
        game=game,
    )


def tournament_player(row: Row) -> TournamentPlayer:
    return TournamentPlayer(row["user_id"], row["number"], row["joined_at"], row["withdrawn_after"])


def move(row: Row) -> Move:
    return Move(
        game_id=row["game_id"],
        ply=row["ply"],
        color=Color(row["color"]),
        notation=row["notation"],
        coordinate=row["coordinate"],
        position_hash=row["position_hash"],
        made_at=row["made_at"],
        conditional=bool(row["conditional"]),
        engine=row["engine"],
    )


def archived_move(row: Row) -> ArchivedMove:
    return ArchivedMove(
        id=row["id"],
        game_id=row["game_id"],
        ply=row["ply"],
        color=Color(row["color"]),
        notation=row["notation"],
        coordinate=row["coordinate"],
        position_hash=row["position_hash"],
        made_at=row["made_at"],
        takeback_id=row["takeback_id"],
        archived_at=row["archived_at"],
        conditional=bool(row["conditional"]),
        engine=row["engine"],
    )


def draw_offer(row: Row) -> DrawOffer:
    return DrawOffer(
        id=row["id"],
        game_id=row["game_id"],
        offered_by=row["offered_by"],
        ply=row["ply"],
        status=RequestStatus(row["status"]),
        created_at=row["created_at"],
        resolved_at=row["resolved_at"],
    )


def takeback(row: Row) -> TakebackRequest:
    return TakebackRequest(
        id=row["id"],
        game_id=row["game_id"],
        requested_by=row["requested_by"],
        ply=row["ply"],
        plies=row["plies"],
        status=RequestStatus(row["status"]),
        created_at=row["created_at"],
        resolved_at=row["resolved_at"],
    )


def rating(row: Row) -> Rating:
    return Rating(
        user_id=row["user_id"],
        variant_id=row["variant_id"],
        rating=row["rating"],
        deviation=row["deviation"],
        volatility=row["volatility"],
        games=row["games"],
        wins=row["wins"],
        draws=row["draws"],
        losses=row["losses"],
        last_played_at=row["last_played_at"],
    )


def rating_change(row: Row) -> RatingChange:
    return RatingChange(
        game_id=row["game_id"],
        user_id=row["user_id"],
        opponent_id=row["opponent_id"],
        variant_id=row["variant_id"],
        score=row["score"],
        rating_before=row["rating_before"],
        deviation_before=row["deviation_before"],
        volatility_before=row["volatility_before"],
        rating_after=row["rating_after"],
        deviation_after=row["deviation_after"],
        volatility_after=row["volatility_after"],
        created_at=row["created_at"],
    )


def effect(row: Row) -> Effect:
    return Effect(
        id=row["id"],
        kind=row["kind"],
        payload=json.loads(row["payload"]),
        game_id=row["game_id"],
        queue=row["queue"],
        dedupe_key=row["dedupe_key"],
        status=EffectStatus(row["status"]),
        attempts=row["attempts"],
        next_attempt_at=row["next_attempt_at"],
        claimed_by=row["claimed_by"],
        lease_until=row["lease_until"],
        channel_id=row["channel_id"],
        message_id=row["message_id"],
        last_error=row["last_error"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        done_at=row["done_at"],
    )
