"""Per-server settings that members with Manage Server change with /config: where challenges
go, whether games are rated by default, the default clock, the tournament organisers' role
and when players who did not choose hear of their turns (`notices`). Stored in
`guild_settings` (storage); the challenge service, tournaments and notices read them there."""

from __future__ import annotations

import dataclasses
from enum import StrEnum

from bot.service.clock import Clock
from bot.service.errors import BadRequestError
from bot.service.games import ALLOWED_DAYS
from storage import Storage
from storage.models import DAY, GuildSettings, NoticeSchedule


class RatedPolicy(StrEnum):
    """The two rating settings of a server as one choice."""

    RATED = "rated"  # a challenge that does not say is rated
    CASUAL = "casual"  # a challenge that does not say is casual; rated ones are allowed
    OFF = "off"  # no rated games at all

    @staticmethod
    def of(settings: GuildSettings) -> RatedPolicy:
        if not settings.rated_allowed:
            return RatedPolicy.OFF
        return RatedPolicy.RATED if settings.rated_default else RatedPolicy.CASUAL


class Unset(StrEnum):
    """A setting to reset to its default (no challenge channel, no organisers' role)."""

    CHALLENGE_CHANNEL = "challenge_channel"
    ORGANISERS = "organisers"


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigChange:
    """What /config was asked to change; None leaves a setting as it is."""

    challenge_channel_id: int | None = None
    rated: RatedPolicy | None = None
    days_per_move: int | None = None  # 0: untimed
    organiser_role_id: int | None = None
    unset: Unset | None = None
    notice_schedule: NoticeSchedule | None = None
    """The players' default schedule (`notices.change`); None leaves it."""

    @property
    def empty(self) -> bool:
        return self == ConfigChange()


class ServerConfig:
    def __init__(self, storage: Storage, clock: Clock) -> None:
        self.storage = storage
        self.clock = clock

    async def get(self, guild_id: int) -> GuildSettings:
        return await self.storage.guilds.get(guild_id)

    async def change(self, guild_id: int, change: ConfigChange) -> GuildSettings:
        """Apply `change` and return every setting as stored; refusals say what is allowed."""
        settings = await self.storage.guilds.get(guild_id)
        if change.empty:
            return settings
        if change.unset is Unset.CHALLENGE_CHANNEL and change.challenge_channel_id is not None:
            raise BadRequestError("Set a challenge channel or clear it, not both at once.")
        if change.unset is Unset.ORGANISERS and change.organiser_role_id is not None:
            raise BadRequestError("Set an organisers' role or clear it, not both at once.")
        updated = settings
        if change.challenge_channel_id is not None:
            updated = dataclasses.replace(updated, challenge_channel_id=change.challenge_channel_id)
        if change.unset is Unset.CHALLENGE_CHANNEL:
            updated = dataclasses.replace(updated, challenge_channel_id=None)
        if change.rated is not None:
            updated = dataclasses.replace(
                updated,
                rated_allowed=change.rated is not RatedPolicy.OFF,
                rated_default=change.rated is RatedPolicy.RATED,
            )
        if change.days_per_move is not None:
            days = change.days_per_move
            if days != 0 and days not in ALLOWED_DAYS:
                allowed = ", ".join(str(d) for d in ALLOWED_DAYS)
                raise BadRequestError(
                    f"Days per move must be one of {allowed}, or 0 for no clock; not {days}."
                )
            updated = dataclasses.replace(updated, default_move_seconds=days * DAY or None)
        if change.organiser_role_id is not None:
            updated = dataclasses.replace(updated, organiser_role_id=change.organiser_role_id)
        if change.unset is Unset.ORGANISERS:
            updated = dataclasses.replace(updated, organiser_role_id=None)
        if change.notice_schedule is not None:
            updated = dataclasses.replace(updated, notice_schedule=change.notice_schedule)
        return await self.storage.guilds.set(updated, self.clock.now())
