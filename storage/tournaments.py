"""Tournaments: sign-up, players, rounds of pairings with their games, and pending posts.

Every transition is one transaction guarded by compare-and-set on the tournament's status
and current round, so a round is never paired twice, whatever restarts or races happen;
the games of a round are created in the transaction that pairs it, and the posts a
transition owes are recorded in it too (`tournament_posts`), to be carried out by the bot
and marked done.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from storage import _rows, _shared
from storage.db import Database, Row, Tx
from storage.engine import UNKNOWN_ENGINE_VERSION, Engine
from storage.errors import (
    ConflictError,
    GameEndedError,
    InvalidValueError,
    RefusedError,
    TournamentNotFoundError,
)
from storage.games import insert_game
from storage.models import Clock, NewGame, Outcome, Result, Termination

FORMATS = ("round-robin", "swiss")
POST_KINDS = ("started", "round", "game", "result", "final", "cancelled")


@dataclass(frozen=True, slots=True)
class NewTournament:
    guild_id: int
    channel_id: int
    name: str
    variant_id: str
    format: str
    created_by: int
    options: tuple[str, ...] = ()
    cycles: int = 1
    rounds: int = 0
    all_at_once: bool = True
    clock: Clock = Clock()  # noqa: RUF009 - frozen, like NewGame's
    rated: bool = True
    max_players: int = 16
    starts_at: int | None = None
    round_seconds: int | None = None
    bye_points: str = "1"
    initial_colour: str = "white"
    definition_digest: str | None = None
    """A guild's variant: the definition every game of the tournament pins."""


@dataclass(frozen=True, slots=True)
class Tournament:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    thread_id: int | None
    name: str
    variant_id: str
    options: tuple[str, ...]
    format: str
    cycles: int
    rounds: int
    all_at_once: bool
    clock: Clock
    rated: bool
    max_players: int
    starts_at: int | None
    round_seconds: int | None
    bye_points: str
    initial_colour: str
    status: str
    current_round: int
    round_deadline_at: int | None
    end_reason: str
    created_by: int
    created_at: int
    started_at: int | None
    ended_at: int | None
    definition_digest: str | None = None
    """A guild's variant: the definition every game of the tournament pins."""

    @property
    def swiss(self) -> bool:
        return self.format == "swiss"


@dataclass(frozen=True, slots=True)
class TournamentPlayer:
    user_id: int
    number: int | None
    joined_at: int
    withdrawn_after: int | None


@dataclass(frozen=True, slots=True)
class PairingRow:
    """A board with what storage knows of its game (status, result and how it ended)."""

    round: int
    board: int
    white_id: int
    black_id: int | None
    game_id: int | None
    white_points: str | None
    black_points: str | None
    game_status: str | None
    game_result: str | None
    game_termination: str | None = None
    game_detail: str = ""


@dataclass(frozen=True, slots=True)
class NewBoard:
    """A board of a round to store: a game to create (`game`), a bye or a forfeit (points)."""

    round: int
    board: int
    white_id: int
    black_id: int | None
    game: NewGame | None = None
    white_points: str | None = None
    black_points: str | None = None


@dataclass(frozen=True, slots=True)
class Post:
    id: int
    tournament_id: int
    kind: str
    subject: int
    attempts: int
    message_id: int | None


def _tournament(row: Row) -> Tournament:
    return Tournament(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        message_id=row["message_id"],
        thread_id=row["thread_id"],
        name=row["name"],
        variant_id=row["variant_id"],
        options=tuple(json.loads(row["options"])),
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


_PAIRING_SELECT = (
    "SELECT p.round, p.board, p.white_id, p.black_id, p.game_id, p.white_points, "
    "p.black_points, g.status AS game_status, g.result AS game_result, "
    "g.termination AS game_termination, g.end_detail AS game_detail "
    "FROM tournament_pairings p LEFT JOIN games g ON g.id = p.game_id "
)


class Tournaments:
    """Obtain it as `Storage.tournaments`."""

    def __init__(self, db: Database, engine: Engine | None) -> None:
        self._db = db
        self._engine = engine

    @property
    def _engine_version(self) -> str:
        return self._engine.version if self._engine is not None else UNKNOWN_ENGINE_VERSION

    # --- creation and lookups ----------------------------------------------------------

    async def create(self, new: NewTournament, now: int) -> Tournament:
        _rows.check_text("the tournament's name", new.name, max_len=80)
        _rows.check_text("the variant id", new.variant_id, max_len=64)
        _rows.check_clock(new.clock)
        if new.format not in FORMATS:
            raise InvalidValueError(f"unknown tournament format {new.format!r}")
        async with self._db.transaction() as tx:
            await tx.run(
                "INSERT INTO players (user_id, created_at, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO NOTHING",
                (new.created_by, now, now),
            )
            tournament_id = await tx.insert(
                "INSERT INTO tournaments (guild_id, channel_id, name, variant_id, options, "
                "format, cycles, rounds, all_at_once, move_seconds, bank_cap_seconds, rated, "
                "max_players, starts_at, round_seconds, bye_points, initial_colour, "
                "created_by, created_at, definition_digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    new.guild_id,
                    new.channel_id,
                    new.name,
                    new.variant_id,
                    _rows.options_json(new.options),
                    new.format,
                    new.cycles,
                    new.rounds,
                    int(new.all_at_once),
                    new.clock.move_seconds,
                    new.clock.bank_cap_seconds,
                    int(new.rated),
                    new.max_players,
                    new.starts_at,
                    new.round_seconds,
                    new.bye_points,
                    new.initial_colour,
                    new.created_by,
                    now,
                    new.definition_digest,
                ),
            )
            return await self._fetch(tx, tournament_id)

    async def get(self, tournament_id: int) -> Tournament:
        async with self._db.transaction(write=False) as tx:
            return await self._fetch(tx, tournament_id)

    async def in_guild(self, guild_id: int, statuses: Sequence[str] = ()) -> list[Tournament]:
        """The guild's tournaments, newest first (only those in `statuses` if given)."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM tournaments WHERE guild_id = ? ORDER BY id DESC", (guild_id,)
            )
        found = [_tournament(r) for r in rows]
        return [t for t in found if not statuses or t.status in statuses]

    async def by_channel(self, channel_id: int) -> Tournament | None:
        """The tournament whose thread (or sign-up channel, most recent) this is."""
        async with self._db.transaction(write=False) as tx:
            row = await tx.one("SELECT * FROM tournaments WHERE thread_id = ?", (channel_id,))
        return None if row is None else _tournament(row)

    async def of_game(self, game_id: int) -> tuple[int, int] | None:
        """(tournament id, round) of a tournament game, None for other games."""
        async with self._db.transaction(write=False) as tx:
            row = await tx.one(
                "SELECT tournament_id, round FROM tournament_pairings WHERE game_id = ?",
                (game_id,),
            )
        return None if row is None else (row[0], row[1])

    async def organiser_role(self, guild_id: int) -> int | None:
        async with self._db.transaction(write=False) as tx:
            value = await tx.scalar(
                "SELECT organiser_role_id FROM guild_settings WHERE guild_id = ?", (guild_id,)
            )
        return None if value is None else int(value)

    async def set_message(self, tournament_id: int, message_id: int) -> None:
        async with self._db.transaction() as tx:
            await tx.run(
                "UPDATE tournaments SET message_id = ? WHERE id = ?", (message_id, tournament_id)
            )

    async def set_thread(self, tournament_id: int, thread_id: int) -> None:
        async with self._db.transaction() as tx:
            await tx.run(
                "UPDATE tournaments SET thread_id = coalesce(thread_id, ?) WHERE id = ?",
                (thread_id, tournament_id),
            )

    # --- sign-up -------------------------------------------------------------------------

    async def join(self, tournament_id: int, user_id: int, now: int) -> list[TournamentPlayer]:
        async with self._db.transaction() as tx:
            t = await self._fetch(tx, tournament_id, lock=True)
            if t.status != "signup":
                raise RefusedError("sign-up for this tournament is closed")
            players = await self._players(tx, tournament_id)
            if any(p.user_id == user_id for p in players):
                raise ConflictError("you have already joined this tournament")
            if len(players) >= t.max_players:
                raise RefusedError(f"this tournament is full ({t.max_players} players)")
            await tx.run(
                "INSERT INTO players (user_id, created_at, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO NOTHING",
                (user_id, now, now),
            )
            await tx.run(
                "INSERT INTO tournament_players (tournament_id, user_id, joined_at) "
                "VALUES (?, ?, ?)",
                (tournament_id, user_id, now),
            )
            return await self._players(tx, tournament_id)

    async def leave(self, tournament_id: int, user_id: int) -> list[TournamentPlayer]:
        async with self._db.transaction() as tx:
            t = await self._fetch(tx, tournament_id, lock=True)
            if t.status != "signup":
                raise RefusedError("the tournament has started: use /tournament withdraw")
            removed = await tx.run(
                "DELETE FROM tournament_players WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, user_id),
            )
            if removed != 1:
                raise ConflictError("you are not signed up for this tournament")
            return await self._players(tx, tournament_id)

    async def players(self, tournament_id: int) -> list[TournamentPlayer]:
        async with self._db.transaction(write=False) as tx:
            return await self._players(tx, tournament_id)

    async def cancel(self, tournament_id: int, now: int, reason: str) -> Tournament:
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE tournaments SET status = 'cancelled', ended_at = ?, end_reason = ? "
                "WHERE id = ? AND status = 'signup'",
                (now, reason[:200], tournament_id),
            )
            if changed != 1:
                raise RefusedError("only a tournament still in sign-up can be cancelled")
            await self._post(tx, tournament_id, "cancelled", 0, now)
            return await self._fetch(tx, tournament_id)

    # --- rounds --------------------------------------------------------------------------

    async def start(
        self,
        tournament_id: int,
        numbers: dict[int, int],
        rounds: int,
        boards: Sequence[NewBoard],
        now: int,
        round_deadline_at: int | None,
    ) -> Tournament:
        """Closes sign-up: fixes the pairing numbers and the number of rounds, and stores the
        first round (or every round, for a round robin played all at once) with its games.
        Refused (`ConflictError`) if the tournament has left sign-up already."""
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE tournaments SET status = 'running', started_at = ?, rounds = ?, "
                "current_round = 1, round_deadline_at = ? WHERE id = ? AND status = 'signup'",
                (now, rounds, round_deadline_at, tournament_id),
            )
            if changed != 1:
                raise ConflictError("the tournament has already started")
            for user_id, number in sorted(numbers.items(), key=lambda kv: kv[1]):
                await tx.run(
                    "UPDATE tournament_players SET number = ? "
                    "WHERE tournament_id = ? AND user_id = ?",
                    (number, tournament_id, user_id),
                )
            await self._post(tx, tournament_id, "started", 0, now)
            await self._store_boards(tx, tournament_id, boards, now)
            return await self._fetch(tx, tournament_id)

    async def next_round(
        self,
        tournament_id: int,
        expected_round: int,
        boards: Sequence[NewBoard],
        now: int,
        round_deadline_at: int | None,
    ) -> Tournament:
        """Stores round `expected_round + 1`. Refused (`ConflictError`) unless the
        tournament is running at `expected_round`: nothing is ever paired twice."""
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE tournaments SET current_round = current_round + 1, "
                "round_deadline_at = ? WHERE id = ? AND status = 'running' "
                "AND current_round = ?",
                (round_deadline_at, tournament_id, expected_round),
            )
            if changed != 1:
                raise ConflictError(f"round {expected_round + 1} has already been paired")
            await self._store_boards(tx, tournament_id, boards, now)
            return await self._fetch(tx, tournament_id)

    async def _store_boards(
        self, tx: Tx, tournament_id: int, boards: Sequence[NewBoard], now: int
    ) -> None:
        rounds: set[int] = set()
        for b in boards:
            game_id = None
            if b.game is not None:
                game_id = await insert_game(tx, b.game, now, self._engine_version)
                await self._post(tx, tournament_id, "game", game_id, now)
            await tx.run(
                "INSERT INTO players (user_id, created_at, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO NOTHING",
                (b.white_id, now, now),
            )
            await tx.run(
                "INSERT INTO tournament_pairings (tournament_id, round, board, white_id, "
                "black_id, game_id, white_points, black_points) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    tournament_id,
                    b.round,
                    b.board,
                    b.white_id,
                    b.black_id,
                    game_id,
                    b.white_points,
                    b.black_points,
                ),
            )
            rounds.add(b.round)
        for r in sorted(rounds):
            await self._post(tx, tournament_id, "round", r, now)

    async def pairings(self, tournament_id: int) -> list[PairingRow]:
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                f"{_PAIRING_SELECT} WHERE p.tournament_id = ? ORDER BY p.round, p.board",
                (tournament_id,),
            )
        return [
            PairingRow(
                r["round"],
                r["board"],
                r["white_id"],
                r["black_id"],
                r["game_id"],
                r["white_points"],
                r["black_points"],
                r["game_status"],
                r["game_result"],
                r["game_termination"],
                r["game_detail"] or "",
            )
            for r in rows
        ]

    async def withdraw(
        self, tournament_id: int, user_id: int, after_round: int, forfeits: Sequence[int], now: int
    ) -> Tournament:
        """Marks a player withdrawn after `after_round` and scores the boards of rounds in
        `forfeits` that have no game yet as losses for them (round robin, round by round)."""
        async with self._db.transaction() as tx:
            t = await self._fetch(tx, tournament_id, lock=True)
            if t.status != "running":
                raise RefusedError("the tournament is not running")
            changed = await tx.run(
                "UPDATE tournament_players SET withdrawn_after = ? WHERE tournament_id = ? "
                "AND user_id = ? AND withdrawn_after IS NULL",
                (after_round, tournament_id, user_id),
            )
            if changed != 1:
                raise ConflictError("you are not playing in this tournament (or withdrew)")
            for r in forfeits:
                await tx.run(
                    "UPDATE tournament_pairings SET "
                    "white_points = CASE WHEN white_id = ? THEN '0' ELSE '1' END, "
                    "black_points = CASE WHEN black_id = ? THEN '0' ELSE '1' END "
                    "WHERE tournament_id = ? AND round = ? AND game_id IS NULL "
                    "AND black_id IS NOT NULL AND (white_id = ? OR black_id = ?)",
                    (user_id, user_id, tournament_id, r, user_id, user_id),
                )
            return await self._fetch(tx, tournament_id)

    async def adjudicate_draw(self, game_id: int, now: int, detail: str) -> bool:
        """Ends a tournament game still going at its round's deadline as a draw (once)."""
        async with self._db.transaction() as tx:
            try:
                game = await _shared.fetch_active_game(tx, game_id, None)
            except GameEndedError:
                return False
            outcome = Outcome(Result.DRAW, Termination.ADJUDICATION, detail)
            await _shared.finish_game(tx, game, outcome, now)
            return True

    async def finish(self, tournament_id: int, now: int, reason: str = "") -> bool:
        """Ends a running tournament (once) and records the final post."""
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE tournaments SET status = 'finished', ended_at = ?, end_reason = ?, "
                "round_deadline_at = NULL WHERE id = ? AND status = 'running'",
                (now, reason[:200], tournament_id),
            )
            if changed == 1:
                await self._post(tx, tournament_id, "final", 0, now)
            return changed == 1

    # --- timers and posts ----------------------------------------------------------------

    async def due(self, now: int) -> list[Tournament]:
        """Tournaments whose start time or round deadline has come."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM tournaments WHERE (status = 'signup' AND starts_at <= ?) "
                "OR (status = 'running' AND round_deadline_at <= ?) ORDER BY id",
                (now, now),
            )
        return [_tournament(r) for r in rows]

    async def running(self) -> list[Tournament]:
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all("SELECT * FROM tournaments WHERE status = 'running' ORDER BY id")
        return [_tournament(r) for r in rows]

    async def next_due_at(self) -> int | None:
        async with self._db.transaction(write=False) as tx:
            value = await tx.scalar(
                "SELECT min(t) FROM ("
                "SELECT min(starts_at) AS t FROM tournaments WHERE status = 'signup' "
                "UNION ALL SELECT min(round_deadline_at) FROM tournaments "
                "WHERE status = 'running') AS due"
            )
        return None if value is None else int(value)

    async def note_result(self, tournament_id: int, game_id: int, now: int) -> bool:
        """Records that the table owes a post for this game's result; True the first time."""
        async with self._db.transaction() as tx:
            return await self._post(tx, tournament_id, "result", game_id, now)

    async def pending_posts(self, limit: int = 50) -> list[Post]:
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT id, tournament_id, kind, subject, attempts, message_id "
                "FROM tournament_posts WHERE done_at IS NULL ORDER BY id LIMIT ?",
                (limit,),
            )
        return [Post(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]

    async def posted(self, post_id: int, now: int, message_id: int | None) -> None:
        async with self._db.transaction() as tx:
            await tx.run(
                "UPDATE tournament_posts SET done_at = ?, message_id = ? "
                "WHERE id = ? AND done_at IS NULL",
                (now, message_id, post_id),
            )

    async def post_failed(self, post_id: int, now: int, give_up: bool) -> None:
        """One more failed attempt; after the last one the post is closed as failed."""
        async with self._db.transaction() as tx:
            await tx.run(
                "UPDATE tournament_posts SET attempts = attempts + 1, "
                "done_at = CASE WHEN ? = 1 THEN ? ELSE done_at END WHERE id = ?",
                (int(give_up), now, post_id),
            )

    # --- helpers -------------------------------------------------------------------------

    @staticmethod
    async def _post(tx: Tx, tournament_id: int, kind: str, subject: int, now: int) -> bool:
        added = await tx.run(
            "INSERT INTO tournament_posts (tournament_id, kind, subject, created_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (tournament_id, kind, subject) DO NOTHING",
            (tournament_id, kind, subject, now),
        )
        return added == 1

    @staticmethod
    async def _fetch(tx: Tx, tournament_id: int, *, lock: bool = False) -> Tournament:
        lock_sql = tx.for_update if lock else ""
        row = await tx.one(f"SELECT * FROM tournaments WHERE id = ?{lock_sql}", (tournament_id,))
        if row is None:
            raise TournamentNotFoundError(tournament_id)
        return _tournament(row)

    @staticmethod
    async def _players(tx: Tx, tournament_id: int) -> list[TournamentPlayer]:
        rows = await tx.all(
            "SELECT user_id, number, joined_at, withdrawn_after FROM tournament_players "
            "WHERE tournament_id = ? ORDER BY joined_at, user_id",
            (tournament_id,),
        )
        return [TournamentPlayer(r[0], r[1], r[2], r[3]) for r in rows]
