"""Vacation: a yearly allowance during which a player's clocks stop in all their games.

Starting a vacation stops the clock of every game where it is the player's turn (the time
left is kept in `paused_remaining`); a turn that begins during the vacation starts stopped.
Ending it, by hand or when the allowance runs out, restarts those clocks from the end time.
Usage is counted in seconds per UTC calendar year.
"""

from __future__ import annotations

from storage import _shared
from storage.clock import split_by_year, vacation_end, year_of
from storage.db import Database, Tx
from storage.errors import VacationError
from storage.models import VACATION_ALLOWANCE_SECONDS, VacationStatus

_MY_TURN = _shared.PLAYER_TO_MOVE


class Vacations:
    """Obtain it as `Storage.vacations`."""

    def __init__(self, db: Database, allowance_seconds: int = VACATION_ALLOWANCE_SECONDS) -> None:
        self._db = db
        self.allowance_seconds = allowance_seconds

    async def status(self, user_id: int, now: int) -> VacationStatus:
        async with self._db.transaction(write=False) as tx:
            return await self._status(tx, user_id, now)

    async def start(self, user_id: int, now: int) -> VacationStatus:
        """Stops the player's clocks. Refused when already on vacation or out of days."""
        async with self._db.transaction() as tx:
            await _shared.ensure_players(tx, [user_id], now)
            started = await tx.scalar(
                f"SELECT vacation_started_at FROM players WHERE user_id = ?{tx.for_update}",
                (user_id,),
            )
            if started is not None:
                raise VacationError("you are already on vacation")
            used = await self._usage(tx, user_id)
            ends_at = vacation_end(now, used, self.allowance_seconds)
            if ends_at <= now:
                raise VacationError(
                    f"you have used all your vacation for {year_of(now)}; "
                    "it renews on the 1st of January"
                )
            await tx.run(
                "UPDATE players SET vacation_started_at = ?, vacation_ends_at = ?, "
                "updated_at = greatest(updated_at, ?) WHERE user_id = ?",
                (now, ends_at, now, user_id),
            )
            # Deadlines win: a game whose deadline has already passed is lost on time first;
            # a vacation never stops a clock that has run out.
            overdue = await tx.all(
                f"SELECT id FROM games WHERE {_MY_TURN} "
                f"AND deadline_at IS NOT NULL AND deadline_at <= :now ORDER BY id{tx.for_update}",
                {"user": user_id, "now": now},
            )
            for row in overdue:
                await _shared.settle_deadline(tx, await _shared.fetch_game(tx, row["id"]), now)
            games = await tx.all(
                f"SELECT id, deadline_at FROM games WHERE {_MY_TURN} "
                f"AND deadline_at IS NOT NULL AND deadline_at > :now ORDER BY id{tx.for_update}",
                {"user": user_id, "now": now},
            )
            for game in games:
                await tx.run(
                    "UPDATE games SET paused_remaining = deadline_at - ?, deadline_at = NULL "
                    "WHERE id = ?",
                    (now, game["id"]),
                )
                await _shared.drop_pending_reminders(tx, game["id"])
            return await self._status(tx, user_id, now)

    async def end(self, user_id: int, now: int) -> VacationStatus:
        """Ends the vacation now (or when it ran out, if that was earlier)."""
        async with self._db.transaction() as tx:
            row = await tx.one(
                "SELECT vacation_started_at, vacation_ends_at FROM players "
                f"WHERE user_id = ?{tx.for_update}",
                (user_id,),
            )
            if row is None or row["vacation_started_at"] is None:
                raise VacationError("you are not on vacation")
            await _shared.end_vacation(tx, user_id, min(now, row["vacation_ends_at"]), now)
            return await self._status(tx, user_id, now)

    async def end_due(self, now: int, *, limit: int = 100) -> list[VacationStatus]:
        """Ends up to `limit` vacations whose allowance ran out by `now`, each at its own end
        time, and returns the players' new status. The rows are taken `FOR UPDATE SKIP
        LOCKED`: a player another process is handling is left to it."""
        async with self._db.transaction() as tx:
            rows = await tx.all(
                "SELECT user_id, vacation_ends_at FROM players "
                "WHERE vacation_ends_at IS NOT NULL AND vacation_ends_at <= ? "
                f"ORDER BY user_id LIMIT ?{tx.skip_locked}",
                (now, limit),
            )
            out = []
            for row in rows:
                await _shared.end_vacation(tx, row["user_id"], row["vacation_ends_at"], now)
                out.append(await self._status(tx, row["user_id"], now))
            return out

    @staticmethod
    async def _usage(tx: Tx, user_id: int) -> dict[int, int]:
        rows = await tx.all(
            "SELECT year, used_seconds FROM vacation_usage WHERE user_id = ?", (user_id,)
        )
        return {int(row[0]): int(row[1]) for row in rows}

    async def _status(self, tx: Tx, user_id: int, now: int) -> VacationStatus:
        row = await tx.one(
            "SELECT vacation_started_at, vacation_ends_at FROM players WHERE user_id = ?",
            (user_id,),
        )
        year = year_of(now)
        if row is None:
            return VacationStatus(user_id, year, self.allowance_seconds, 0, None, None)
        used = (await self._usage(tx, user_id)).get(year, 0)
        started, ends_at = row["vacation_started_at"], row["vacation_ends_at"]
        if started is not None:
            used += split_by_year(started, max(started, min(now, ends_at))).get(year, 0)
        return VacationStatus(user_id, year, self.allowance_seconds, used, started, ends_at)
