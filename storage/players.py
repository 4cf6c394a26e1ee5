"""Players with their preferences, and per-guild settings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from storage import _rows, _shared
from storage.db import Database, Reader, Tx
from storage.errors import InvalidValueError, PlayerHasActiveGamesError, PlayerNotFoundError
from storage.models import (
    PIECE_SETS,
    Clock,
    Forgotten,
    GuildSettings,
    NoticeSchedule,
    NotificationKind,
    NotifyMode,
    Player,
)

ANONYMOUS = "Anonymous"


class Players:
    """Obtain it as `Storage.players`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def upsert(self, user_id: int, display_name: str, now: int) -> Player:
        """Creates the player or refreshes the name the bot last saw (for leaderboards)."""
        name = _rows.check_text(
            "the display name", display_name, max_len=_rows.MAX_NAME, allow_empty=True
        )
        async with self._db.transaction() as tx:
            await tx.run(
                "INSERT INTO players (user_id, display_name, created_at, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "display_name = excluded.display_name, "
                "updated_at = greatest(players.updated_at, excluded.updated_at)",
                (user_id, name, now, now),
            )
            return await self._fetch(tx, user_id)

    async def get(self, user_id: int) -> Player:
        """Raises `PlayerNotFoundError` for someone the bot has never seen."""
        return await self._fetch(self._db, user_id)

    async def find(self, user_id: int) -> Player | None:
        row = await self._db.one("SELECT * FROM players WHERE user_id = ?", (user_id,))
        return None if row is None else _rows.player(row)

    async def find_many(self, user_ids: Sequence[int]) -> dict[int, Player]:
        """The players among `user_ids` the bot has seen, in one statement (a game's two
        players' names: one round trip, not two)."""
        if not user_ids:
            return {}
        marks = ", ".join("?" * len(user_ids))
        rows = await self._db.all(
            f"SELECT * FROM players WHERE user_id IN ({marks})", tuple(user_ids)
        )
        return {int(row["user_id"]): _rows.player(row) for row in rows}

    async def set_preferences(
        self,
        user_id: int,
        now: int,
        *,
        notify_mode: NotifyMode | None = None,
        turn_notices: bool | None = None,
        reminder_offsets: Iterable[int] | None = None,
        piece_set: str | None = None,
    ) -> Player:
        """Changes the given preferences (others stay). Turns already running follow the
        new reminder choices at once; reminders already sent are not repeated."""
        offsets = None if reminder_offsets is None else _rows.check_offsets(reminder_offsets)
        if notify_mode is not None and not isinstance(notify_mode, NotifyMode):
            raise InvalidValueError(f"unknown notification mode {notify_mode!r}")
        if piece_set is not None and piece_set not in PIECE_SETS:
            raise InvalidValueError(f"unknown piece set {piece_set!r}")
        async with self._db.transaction() as tx:
            await _shared.ensure_players(tx, [user_id], now)
            await tx.run(
                "UPDATE players SET notify_mode = coalesce(?, notify_mode), "
                "turn_notices = coalesce(?, turn_notices), "
                "reminder_offsets = coalesce(?, reminder_offsets), "
                "piece_set = coalesce(?, piece_set), "
                "updated_at = greatest(updated_at, ?) WHERE user_id = ?",
                (
                    None if notify_mode is None else notify_mode.value,
                    None if turn_notices is None else int(turn_notices),
                    None if offsets is None else _rows.format_offsets(offsets),
                    piece_set,
                    now,
                    user_id,
                ),
            )
            player = await self._fetch(tx, user_id)
            if turn_notices is False:
                await tx.run(
                    "DELETE FROM notifications WHERE user_id = ? AND kind = ? AND sent_at IS NULL",
                    (user_id, NotificationKind.TURN.value),
                )
            if offsets is not None:
                await self._reschedule_reminders(tx, player, now)
            return player

    async def set_schedule(self, user_id: int, schedule: NoticeSchedule | None, now: int) -> Player:
        """When the player hears of their turns from now on (None: the default of each game's
        server). Notices already due follow the new schedule when they are sent."""
        values = _rows.schedule_values(schedule)
        async with self._db.transaction() as tx:
            await _shared.ensure_players(tx, [user_id], now)
            await tx.run(
                "UPDATE players SET notice_timing = ?, notice_hour = ?, notice_until = ?, "
                "notice_utc_offset = ?, updated_at = greatest(updated_at, ?) WHERE user_id = ?",
                (*values, now, user_id),
            )
            return await self._fetch(tx, user_id)

    @staticmethod
    async def _reschedule_reminders(tx: Tx, player: Player, now: int) -> None:
        games = await tx.all(
            "SELECT id, ply_count, deadline_at FROM games WHERE status = 'active' "
            "AND deadline_at IS NOT NULL AND ((turn = 'white' AND white_id = ?) "
            f"OR (turn = 'black' AND black_id = ?)) ORDER BY id{tx.for_update}",
            (player.user_id, player.user_id),
        )
        for game in games:
            await _shared.drop_pending_reminders(tx, game["id"])
            await _shared.schedule_reminders(
                tx,
                game_id=game["id"],
                ply=game["ply_count"],
                user_id=player.user_id,
                deadline_at=game["deadline_at"],
                offsets=player.reminder_offsets,
                now=now,
            )

    async def forget(self, user_id: int, now: int) -> Forgotten:
        """Replaces the player by an anonymous one in every stored row: games, ratings and
        their history, challenges, offers keep working under a new negative id (never a
        Discord id) and the name "Anonymous N"; preferences and vacations go. Open
        challenges are cancelled. Refused while a game of theirs is still going, or a
        tournament they entered (and did not leave) is open or running."""
        async with self._db.transaction() as tx:
            old = await tx.one("SELECT * FROM players WHERE user_id = ?", (user_id,))
            if old is None:
                raise PlayerNotFoundError(user_id)
            active = await tx.all(
                "SELECT id FROM games WHERE status = 'active' AND (white_id = ? OR black_id = ?) "
                "ORDER BY id",
                (user_id, user_id),
            )
            entered = await tx.all(
                "SELECT t.name FROM tournament_players p "
                "JOIN tournaments t ON t.id = p.tournament_id "
                "WHERE p.user_id = ? AND p.withdrawn_after IS NULL "
                "AND t.status IN ('signup', 'running') ORDER BY t.id",
                (user_id,),
            )
            pending = await tx.scalar(
                "SELECT count(*) FROM effects e JOIN games g ON g.id = e.game_id "
                "WHERE e.status = 'pending' AND (g.white_id = ? OR g.black_id = ?)",
                (user_id, user_id),
            )
            if active or entered or int(pending):
                raise PlayerHasActiveGamesError(
                    user_id,
                    [row["id"] for row in active],
                    [row["name"] for row in entered],
                    int(pending),
                )
            # Carried-out effects keep their payloads only as a record; they may name the
            # player (who moved, whom a notice was for): blank them.
            await tx.run(
                "UPDATE effects SET payload = '{}' WHERE status <> 'pending' AND game_id IN "
                "(SELECT id FROM games WHERE white_id = ? OR black_id = ?)",
                (user_id, user_id),
            )
            # A player's own effects (their digests) name them in their queue and key.
            await tx.run("DELETE FROM effects WHERE queue LIKE ?", (f"player:{user_id}:%",))
            cancelled = await tx.run(
                "UPDATE challenges SET status = 'cancelled', resolved_at = ? "
                "WHERE status = 'open' AND (challenger_id = ? OR opponent_id = ?)",
                (now, user_id, user_id),
            )
            lowest = await tx.scalar("SELECT min(user_id) FROM players")
            new_id = min(0, int(lowest)) - 1
            label = f"{ANONYMOUS} {-new_id}"
            await tx.run(
                "INSERT INTO players (user_id, display_name, created_at, updated_at) "
                "VALUES (?, ?, ?, ?)",
                (new_id, label, old["created_at"], max(now, old["created_at"])),
            )
            await tx.run("DELETE FROM notifications WHERE user_id = ?", (user_id,))
            await tx.run("DELETE FROM vacation_usage WHERE user_id = ?", (user_id,))
            rows = 0
            for table, column in await _player_references(tx):
                rows += await tx.run(
                    f'UPDATE "{table}" SET "{column}" = ? WHERE "{column}" = ?', (new_id, user_id)
                )
            await tx.run("DELETE FROM players WHERE user_id = ?", (user_id,))
            games = await tx.scalar(
                "SELECT count(*) FROM games WHERE white_id = ? OR black_id = ?", (new_id, new_id)
            )
        return Forgotten(
            anonymous_id=new_id,
            label=label,
            games=int(games),
            rows_changed=rows,
            challenges_cancelled=cancelled,
        )

    @staticmethod
    async def _fetch(tx: Reader, user_id: int) -> Player:
        row = await tx.one("SELECT * FROM players WHERE user_id = ?", (user_id,))
        if row is None:
            raise PlayerNotFoundError(user_id)
        return _rows.player(row)


class Guilds:
    """Obtain it as `Storage.guilds`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, guild_id: int) -> GuildSettings:
        """The guild's settings, or the defaults if it never changed any."""
        row = await self._db.one("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return GuildSettings(guild_id) if row is None else _rows.guild_settings(row)

    async def set(self, settings: GuildSettings, now: int) -> GuildSettings:
        """Stores every field of `settings` (start from `get` and `dataclasses.replace`)."""
        if not 60 <= settings.challenge_ttl_seconds <= 30 * 86_400:
            raise InvalidValueError("a challenge must stay open between a minute and 30 days")
        if settings.default_move_seconds is not None:
            _rows.check_clock(Clock(settings.default_move_seconds, 0))
        schedule = _rows.schedule_values(settings.notice_schedule)
        async with self._db.transaction() as tx:
            await tx.run(
                "INSERT INTO guild_settings (guild_id, challenge_channel_id, "
                "challenge_ttl_seconds, default_move_seconds, rated_allowed, rated_default, "
                "organiser_role_id, notice_timing, notice_hour, notice_until, "
                "notice_utc_offset, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
                "challenge_channel_id = excluded.challenge_channel_id, "
                "challenge_ttl_seconds = excluded.challenge_ttl_seconds, "
                "default_move_seconds = excluded.default_move_seconds, "
                "rated_allowed = excluded.rated_allowed, "
                "rated_default = excluded.rated_default, "
                "organiser_role_id = excluded.organiser_role_id, "
                "notice_timing = excluded.notice_timing, "
                "notice_hour = excluded.notice_hour, "
                "notice_until = excluded.notice_until, "
                "notice_utc_offset = excluded.notice_utc_offset, "
                "updated_at = excluded.updated_at",
                (
                    settings.guild_id,
                    settings.challenge_channel_id,
                    settings.challenge_ttl_seconds,
                    settings.default_move_seconds,
                    int(settings.rated_allowed),
                    int(settings.rated_default),
                    settings.organiser_role_id,
                    *schedule,
                    now,
                ),
            )
            row = await tx.one(
                "SELECT * FROM guild_settings WHERE guild_id = ?", (settings.guild_id,)
            )
        return settings if row is None else _rows.guild_settings(row)


async def _player_references(tx: Tx) -> list[tuple[str, str]]:
    """Every (table, column) with a foreign key to players, read from the schema itself, so
    a table added by a later migration is covered without a change here."""
    if tx.dialect == "postgresql":
        rows = await tx.all(
            "SELECT src.relname AS tbl, a.attname AS col "
            "FROM pg_constraint c "
            "JOIN pg_class src ON src.oid = c.conrelid "
            "JOIN pg_class dst ON dst.oid = c.confrelid "
            "JOIN pg_namespace n ON n.oid = src.relnamespace "
            "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey) "
            "WHERE c.contype = 'f' AND dst.relname = 'players' "
            "AND n.nspname = current_schema() ORDER BY 1, 2"
        )
        return [(row["tbl"], row["col"]) for row in rows]
    tables = await tx.all(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND name <> 'players' ORDER BY name"
    )
    found: list[tuple[str, str]] = []
    for table in tables:
        for key in await tx.all(f'PRAGMA foreign_key_list("{table["name"]}")'):
            if key["table"] == "players":
                found.append((table["name"], key["from"]))
    return found
