"""Tournaments: sign-up, players, rounds of pairings with their games, withdrawals, the end.

Every transition is one transaction guarded by compare-and-set on the tournament's status
and current round, so a round is never paired twice, whatever restarts or races happen. The
games of a round are created in the transaction that pairs it, and every transition emits
its event (`EventKind.TOURNAMENT_STARTED`, `ROUND_PAIRED`, `PLAYER_WITHDREW`, ...), so
whatever it sets off (posts, timers, the next round) is recorded in that same transaction
as effects (`storage.effects`) by the rules the bot registers.
"""

from __future__ import annotations

from collections.abc import Sequence

from storage import _rows, _shared
from storage.db import Database, Tx
from storage.engine import UNKNOWN_ENGINE_VERSION, Engine
from storage.errors import (
    ConflictError,
    InvalidValueError,
    RefusedError,
    TournamentNotFoundError,
)
from storage.games import insert_game
from storage.models import (
    TOURNAMENT_FORMATS,
    Board,
    EventKind,
    NewBoard,
    NewTournament,
    Outcome,
    Result,
    StorageEvent,
    Termination,
    Tournament,
    TournamentPlayer,
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
        if new.format not in TOURNAMENT_FORMATS:
            raise InvalidValueError(f"unknown tournament format {new.format!r}")
        async with self._db.transaction() as tx:
            await _shared.ensure_players(tx, [new.created_by], now)
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
            created = await self._fetch(tx, tournament_id)
            tx.emit(StorageEvent(EventKind.TOURNAMENT_CREATED, now, tournament=created))
            return created

    async def get(self, tournament_id: int) -> Tournament:
        async with self._db.transaction(write=False) as tx:
            return await self._fetch(tx, tournament_id)

    async def in_guild(self, guild_id: int) -> list[Tournament]:
        """The guild's tournaments, newest first."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM tournaments WHERE guild_id = ? ORDER BY id DESC", (guild_id,)
            )
        return [_rows.tournament(r) for r in rows]

    async def by_thread(self, thread_id: int) -> Tournament | None:
        """The tournament whose thread this is."""
        async with self._db.transaction(write=False) as tx:
            row = await tx.one("SELECT * FROM tournaments WHERE thread_id = ?", (thread_id,))
        return None if row is None else _rows.tournament(row)

    async def board_of(self, game_id: int) -> Board | None:
        """The board a tournament game is played on (its round), None for other games."""
        async with self._db.transaction(write=False) as tx:
            row = await tx.one("SELECT * FROM tournament_pairings WHERE game_id = ?", (game_id,))
        return None if row is None else _rows.board(row)

    async def set_message(self, tournament_id: int, message_id: int) -> None:
        async with self._db.transaction() as tx:
            await tx.run(
                "UPDATE tournaments SET message_id = ? WHERE id = ?", (message_id, tournament_id)
            )

    async def set_thread(self, tournament_id: int, thread_id: int) -> Tournament:
        """Remembers the tournament's thread (the first one remembered stays)."""
        async with self._db.transaction() as tx:
            await tx.run(
                "UPDATE tournaments SET thread_id = coalesce(thread_id, ?) WHERE id = ?",
                (thread_id, tournament_id),
            )
            return await self._fetch(tx, tournament_id)

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
            await _shared.ensure_players(tx, [user_id], now)
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
        """Ends a tournament still in sign-up without playing it."""
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE tournaments SET status = 'cancelled', ended_at = ?, end_reason = ? "
                "WHERE id = ? AND status = 'signup'",
                (now, reason[:200], tournament_id),
            )
            if changed != 1:
                raise RefusedError("only a tournament still in sign-up can be cancelled")
            cancelled = await self._fetch(tx, tournament_id)
            tx.emit(StorageEvent(EventKind.TOURNAMENT_CANCELLED, now, tournament=cancelled))
            return cancelled

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
            started = await self._fetch(tx, tournament_id)
            tx.emit(StorageEvent(EventKind.TOURNAMENT_STARTED, now, tournament=started))
            await self._store_boards(tx, started, boards, now)
            return started

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
            paired = await self._fetch(tx, tournament_id)
            await self._store_boards(tx, paired, boards, now)
            return paired

    async def _store_boards(
        self, tx: Tx, t: Tournament, boards: Sequence[NewBoard], now: int
    ) -> None:
        """The boards and their games (each game's `GAME_STARTED`), then `ROUND_PAIRED` for
        each round stored."""
        rounds: set[int] = set()
        for b in boards:
            game_id = None
            if b.game is not None:
                if b.game.tournament_id != t.id:
                    raise InvalidValueError("a tournament's game must carry its tournament")
                game_id = await insert_game(tx, b.game, now, self._engine_version)
            players = [b.white_id] if b.black_id is None else [b.white_id, b.black_id]
            await _shared.ensure_players(tx, players, now)
            await tx.run(
                "INSERT INTO tournament_pairings (tournament_id, round, board, white_id, "
                "black_id, game_id, white_points, black_points) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    t.id,
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
            tx.emit(StorageEvent(EventKind.ROUND_PAIRED, now, tournament=t, round=r))

    async def pairings(self, tournament_id: int) -> list[Board]:
        """Every board of every round so far, with its game as stored."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM tournament_pairings WHERE tournament_id = ? ORDER BY round, board",
                (tournament_id,),
            )
            games = {
                game.id: game
                for game in map(
                    _rows.game,
                    await tx.all("SELECT * FROM games WHERE tournament_id = ?", (tournament_id,)),
                )
            }
        return [_rows.board(r, games.get(r["game_id"])) for r in rows]

    async def withdraw(
        self, tournament_id: int, user_id: int, now: int
    ) -> tuple[Tournament, list[int]]:
        """The player leaves a running tournament, in one transaction: marked withdrawn after
        the current round, their boards still unscored without a game scored as losses (a
        round robin's later rounds), their games in progress resigned (`white wins: black
        withdrew from the tournament`; a deadline that had passed is a loss on time instead:
        deadlines win). Returns the tournament and the games resigned; emits
        `PLAYER_WITHDREW`, after the `GAME_ENDED` of each game (`part_of` it)."""
        async with self._db.transaction() as tx:
            t = await self._fetch(tx, tournament_id, lock=True)
            if t.status != "running":
                raise RefusedError("the tournament is not running")
            changed = await tx.run(
                "UPDATE tournament_players SET withdrawn_after = ? WHERE tournament_id = ? "
                "AND user_id = ? AND withdrawn_after IS NULL",
                (t.current_round, tournament_id, user_id),
            )
            if changed != 1:
                raise ConflictError("you are not playing in this tournament (or withdrew)")
            await tx.run(
                "UPDATE tournament_pairings SET "
                "white_points = CASE WHEN white_id = ? THEN '0' ELSE '1' END, "
                "black_points = CASE WHEN black_id = ? THEN '0' ELSE '1' END "
                "WHERE tournament_id = ? AND game_id IS NULL AND black_id IS NOT NULL "
                "AND white_points IS NULL AND (white_id = ? OR black_id = ?)",
                (user_id, user_id, tournament_id, user_id, user_id),
            )
            running = await tx.all(
                "SELECT id FROM games WHERE tournament_id = ? AND status = 'active' "
                "AND (white_id = ? OR black_id = ?) ORDER BY id",
                (tournament_id, user_id, user_id),
            )
            resigned: list[int] = []
            for row in running:
                game = await _shared.settle_deadline(
                    tx, await _shared.fetch_game(tx, row["id"]), now
                )
                if not game.is_active:
                    continue  # lost on time before the withdrawal: that result stands
                colour = game.color_of(user_id)
                assert colour is not None  # selected by player above
                detail = f"{colour.other.value} wins: {colour.value} withdrew from the tournament"
                outcome = Outcome(Result.win_for(colour.other), Termination.RESIGNATION, detail)
                await _shared.finish_game(
                    tx,
                    game,
                    outcome,
                    now,
                    actor_id=user_id,
                    part_of=EventKind.PLAYER_WITHDREW,
                )
                resigned.append(game.id)
            withdrawn = await self._fetch(tx, tournament_id)
            tx.emit(
                StorageEvent(
                    EventKind.PLAYER_WITHDREW,
                    now,
                    tournament=withdrawn,
                    actor_id=user_id,
                    games=tuple(resigned),
                )
            )
            return withdrawn, resigned

    async def end_round(self, tournament_id: int, round_no: int, now: int) -> list[int]:
        """At the round's deadline, ends the round's games still going as draws that change
        no rating (the games are marked unrated first), in one transaction; emits
        `ROUND_DEADLINE_PASSED` when it drew any (after their `GAME_ENDED`s, `part_of` it).
        Does nothing unless the tournament is running round `round_no` and its deadline has
        come. Returns the games drawn."""
        detail = f"draw: the deadline of round {round_no} passed"
        async with self._db.transaction() as tx:
            t = await self._fetch(tx, tournament_id, lock=True)
            if (
                t.status != "running"
                or t.current_round != round_no
                or t.round_deadline_at is None
                or t.round_deadline_at > now
            ):
                return []
            running = await tx.all(
                "SELECT p.game_id FROM tournament_pairings p JOIN games g ON g.id = p.game_id "
                "WHERE p.tournament_id = ? AND p.round = ? AND g.status = 'active' "
                "ORDER BY p.game_id",
                (tournament_id, round_no),
            )
            drawn: list[int] = []
            for row in running:
                game = await _shared.settle_deadline(
                    tx, await _shared.fetch_game(tx, row["game_id"]), now
                )
                if not game.is_active:
                    continue  # its own deadline came first: lost on time
                await tx.run("UPDATE games SET rated = 0 WHERE id = ?", (game.id,))
                outcome = Outcome(Result.DRAW, Termination.ADJUDICATION, detail)
                await _shared.finish_game(
                    tx,
                    await _shared.fetch_game(tx, game.id),
                    outcome,
                    now,
                    part_of=EventKind.ROUND_DEADLINE_PASSED,
                )
                drawn.append(game.id)
            if drawn:
                tx.emit(
                    StorageEvent(
                        EventKind.ROUND_DEADLINE_PASSED,
                        now,
                        tournament=t,
                        round=round_no,
                        games=tuple(drawn),
                    )
                )
            return drawn

    async def finish(self, tournament_id: int, now: int, reason: str = "") -> bool:
        """Ends a running tournament (once); emits `TOURNAMENT_FINISHED`."""
        async with self._db.transaction() as tx:
            changed = await tx.run(
                "UPDATE tournaments SET status = 'finished', ended_at = ?, end_reason = ?, "
                "round_deadline_at = NULL WHERE id = ? AND status = 'running'",
                (now, reason[:200], tournament_id),
            )
            if changed == 1:
                finished = await self._fetch(tx, tournament_id)
                tx.emit(StorageEvent(EventKind.TOURNAMENT_FINISHED, now, tournament=finished))
            return changed == 1

    # --- helpers -------------------------------------------------------------------------

    @staticmethod
    async def _fetch(tx: Tx, tournament_id: int, *, lock: bool = False) -> Tournament:
        lock_sql = tx.for_update if lock else ""
        row = await tx.one(f"SELECT * FROM tournaments WHERE id = ?{lock_sql}", (tournament_id,))
        if row is None:
            raise TournamentNotFoundError(tournament_id)
        return _rows.tournament(row)

    @staticmethod
    async def _players(tx: Tx, tournament_id: int) -> list[TournamentPlayer]:
        rows = await tx.all(
            "SELECT user_id, number, joined_at, withdrawn_after FROM tournament_players "
            "WHERE tournament_id = ? ORDER BY joined_at, user_id",
            (tournament_id,),
        )
        return [_rows.tournament_player(r) for r in rows]
