"""Games and their moves: creation, loading, guarded moves and guarded endings.

Every write that depends on the state of a game is compare-and-set on the game's status and
ply count inside one BEGIN IMMEDIATE transaction: of two concurrent moves for the same ply
exactly one lands and the other gets `GameMovedOnError`; a game can never end twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from storage import _rows, _shared, plans
from storage.apply import GameWriter
from storage.conditional import ConditionalPlan
from storage.db import Database, Tx
from storage.engine import UNKNOWN_ENGINE_VERSION, Engine, replay_game
from storage.errors import (
    GameReplayError,
    InvalidValueError,
)
from storage.models import (
    AppendedMove,
    ArchivedMove,
    Color,
    EventKind,
    Game,
    GameStatus,
    Move,
    NewGame,
    NewMove,
    Outcome,
    Result,
    StorageEvent,
    Termination,
)

log = logging.getLogger(__name__)

RECENT_LIMIT = 20
_VERIFY_ATTEMPTS = 3


async def insert_game(tx: Tx, new: NewGame, now: int, engine_version: str) -> int:
    """Creates the game row and starts the first mover's turn (White's, or Black's in a
    variant that Black opens); shared with challenge acceptance."""
    _rows.check_text("the variant id", new.variant_id, max_len=64)
    _rows.check_text("the start position", new.start_position, max_len=_rows.MAX_POSITION)
    _rows.check_clock(new.clock)
    if new.white_id == new.black_id:
        raise InvalidValueError("a game needs two different players")
    if new.engine_id is not None and new.engine_id not in (new.white_id, new.black_id):
        raise InvalidValueError("the engine must be one of the game's players")
    await _shared.ensure_players(tx, (new.white_id, new.black_id), now)
    game_id = await tx.insert(
        "INSERT INTO games (challenge_id, tournament_id, guild_id, channel_id, thread_id, "
        "message_id, variant_id, options, white_id, black_id, rated, turn, ply_count, "
        "position_text, engine_version, move_seconds, bank_cap_seconds, created_at, updated_at, "
        "definition_digest, engine_id, engine_level) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            new.challenge_id,
            new.tournament_id,
            new.guild_id,
            new.channel_id,
            new.thread_id,
            new.message_id,
            new.variant_id,
            _rows.options_json(new.options),
            new.white_id,
            new.black_id,
            int(new.rated),
            new.first.value,
            new.start_position,
            engine_version,
            new.clock.move_seconds,
            new.clock.bank_cap_seconds,
            now,
            now,
            new.definition_digest,
            new.engine_id,
            new.engine_level,
        ),
    )
    deadline, paused, notice = await _shared.start_turn(
        tx,
        game=await _shared.fetch_game(tx, game_id),
        ply=0,
        user_id=new.white_id if new.first is Color.WHITE else new.black_id,
        bank=0,
        now=now,
    )
    await tx.run(
        "UPDATE games SET deadline_at = ?, paused_remaining = ? WHERE id = ?",
        (deadline, paused, game_id),
    )
    game = await _shared.fetch_game(tx, game_id)
    tx.emit(StorageEvent(EventKind.GAME_STARTED, now, game=game))
    if notice is not None:
        tx.emit(dataclasses.replace(notice, game=game))
    return game_id


class Games:
    """Games, moves and endings. Obtain it as `Storage.games`."""

    def __init__(self, db: Database, engine: Engine | None, writer: GameWriter) -> None:
        self._db = db
        self._engine = engine
        self._writer = writer

    @property
    def _engine_version(self) -> str:
        return self._engine.version if self._engine is not None else UNKNOWN_ENGINE_VERSION

    # --- creation and lookups ----------------------------------------------------------

    async def create(self, new: NewGame, now: int) -> Game:
        """A game not born from a challenge (imports, tests, rematches)."""
        async with self._db.transaction() as tx:
            game_id = await insert_game(tx, new, now, self._engine_version)
            return await _shared.fetch_game(tx, game_id)

    async def get(self, game_id: int) -> Game:
        """The game, with its cached position verified first if a different rules engine
        version wrote it. Raises `GameNotFoundError`."""
        game = await _shared.fetch_game(self._db, game_id)
        return await self._verified(game)

    async def find_by_thread(self, thread_id: int) -> Game | None:
        """The game played in a Discord thread, verified like `get`; None if it is not one."""
        row = await self._db.one(f"{_shared.GAME_SELECT} WHERE thread_id = ?", (thread_id,))
        return None if row is None else await self._verified(_rows.game(row))

    async def find_by_challenge(self, challenge_id: int) -> Game | None:
        row = await self._db.one(f"{_shared.GAME_SELECT} WHERE challenge_id = ?", (challenge_id,))
        return None if row is None else await self._verified(_rows.game(row))

    async def list_active(self, user_id: int) -> list[Game]:
        """The player's games in progress, the ones waiting for them first, then by deadline.
        Positions are the cached ones (not verified): this is a listing."""
        rows = await self._db.all(
            f"{_shared.GAME_SELECT} WHERE status = 'active' AND white_id = ? "
            f"UNION ALL {_shared.GAME_SELECT} WHERE status = 'active' AND black_id = ?",
            (user_id, user_id),
        )
        games = [_rows.game(row) for row in rows]
        games.sort(
            key=lambda g: (
                g.to_move_id != user_id,
                g.deadline_at is None,
                g.deadline_at or 0,
                g.id,
            )
        )
        return games

    async def list_recent(
        self, user_id: int, limit: int = RECENT_LIMIT, *, finished_only: bool = False
    ) -> list[Game]:
        """The player's most recently active games, newest first (cached positions)."""
        _rows.check_positive("the limit", limit)
        status = "AND status <> 'active'" if finished_only else ""
        order = "ORDER BY updated_at DESC, id DESC"
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                f"SELECT * FROM ("
                f"  SELECT * FROM (SELECT * FROM games WHERE white_id = ? {status} {order} "
                f"  LIMIT ?) AS as_white UNION ALL "
                f"  SELECT * FROM (SELECT * FROM games WHERE black_id = ? {status} {order} "
                f"  LIMIT ?) AS as_black) AS recent {order} LIMIT ?",
                (user_id, limit, user_id, limit, limit),
            )
        return [_rows.game(row) for row in rows]

    async def list_without_thread(self) -> list[Game]:
        """Active games whose thread was never recorded (the bot stopped between accepting
        and creating the thread): the bot creates them on start-up."""
        rows = await self._db.all(
            f"{_shared.GAME_SELECT} WHERE status = 'active' AND thread_id IS NULL ORDER BY id"
        )
        return [_rows.game(row) for row in rows]

    async def list_engine_to_move(self) -> list[Game]:
        """Games against the engine where it is the engine's turn (picked up at start-up)."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                f"{_shared.GAME_SELECT} WHERE status = 'active' AND engine_id IS NOT NULL "
                "AND engine_id = CASE turn WHEN 'white' THEN white_id ELSE black_id END "
                "ORDER BY id"
            )
        return [_rows.game(row) for row in rows]

    async def list_engine_games(self) -> list[Game]:
        """Games in progress against the engine, the newest first (the engine's workers
        build their variants' tables at start-up)."""
        rows = await self._db.all(
            f"{_shared.GAME_SELECT} WHERE status = 'active' AND engine_id IS NOT NULL "
            "ORDER BY id DESC"
        )
        return [_rows.game(row) for row in rows]

    async def get_with_moves(self, game_id: int, *, verify: bool = True) -> tuple[Game, list[Move]]:
        """The game and its moves from one consistent read (for records and renders).
        With `verify`, the cached position is first checked like `get` does."""
        if verify:
            await self.get(game_id)
        async with self._db.transaction(write=False) as tx:
            game = await _shared.fetch_game(tx, game_id)
            rows = await tx.all("SELECT * FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
        return game, [_rows.move(row) for row in rows]

    async def list_all_ids(self) -> list[int]:
        rows = await self._db.all("SELECT id FROM games ORDER BY id")
        return [int(row[0]) for row in rows]

    async def active_variants(self) -> list[tuple[str, tuple[str, ...], str | None]]:
        """The distinct (variant id, options, definition digest) of the games in progress,
        the most played first: what a bot that has just started warms before their players
        come back."""
        rows = await self._db.all(
            "SELECT variant_id, options, definition_digest FROM games WHERE status = 'active' "
            "GROUP BY variant_id, options, definition_digest "
            "ORDER BY COUNT(*) DESC, variant_id, options, definition_digest"
        )
        return [
            (str(row[0]), _rows.parse_options(row[1]), None if row[2] is None else str(row[2]))
            for row in rows
        ]

    async def list_active_ids(self) -> list[int]:
        rows = await self._db.all("SELECT id FROM games WHERE status = 'active' ORDER BY id")
        return [int(row[0]) for row in rows]

    async def set_thread(self, game_id: int, thread_id: int | None) -> Game:
        """Records the game's thread; a thread holds at most one game. One statement (the
        game becomes findable by its thread as soon as it can be)."""
        rows = await self._db.returning(
            "UPDATE games SET thread_id = ? WHERE id = ? AND (CAST(? AS BIGINT) IS NULL "
            "OR NOT EXISTS (SELECT 1 FROM games AS other WHERE other.thread_id = ? "
            "AND other.id <> ?)) RETURNING *",
            (thread_id, game_id, thread_id, thread_id, game_id),
        )
        if rows:
            return _rows.game(rows[0])
        await _shared.fetch_game(self._db, game_id)  # GameNotFoundError
        owner = await self._db.scalar(
            "SELECT id FROM games WHERE thread_id = ? AND id <> ?", (thread_id, game_id)
        )
        raise InvalidValueError(f"thread {thread_id} already belongs to game {owner}")

    async def set_message(self, game_id: int, message_id: int | None) -> Game:
        async with self._db.transaction() as tx:
            await _shared.fetch_game(tx, game_id)
            await tx.run("UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id))
            return await _shared.fetch_game(tx, game_id)

    # --- moves -------------------------------------------------------------------------

    async def moves(self, game_id: int) -> list[Move]:
        """The moves of the game in order (ply 1 first)."""
        rows = await self._db.all("SELECT * FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
        if not rows:
            await _shared.fetch_game(self._db, game_id)  # no moves yet, or no such game?
        return [_rows.move(row) for row in rows]

    async def archived_moves(self, game_id: int) -> list[ArchivedMove]:
        """Moves removed by takebacks, oldest takeback first."""
        rows = await self._db.all(
            "SELECT * FROM archived_moves WHERE game_id = ? ORDER BY id", (game_id,)
        )
        return [_rows.archived_move(row) for row in rows]

    async def append_move(
        self,
        game_id: int,
        user_id: int,
        expected_ply: int,
        move: NewMove,
        now: int,
        *,
        conditional: ConditionalPlan | None = None,
        answer: NewMove | None = None,
    ) -> AppendedMove:
        """Records a validated move as ply `expected_ply + 1` and updates the game row in the
        same write. Raises `GameMovedOnError` if the game is no longer at `expected_ply`,
        `GameEndedError` if it is over, `NotYourTurnError`, and `GameLostOnTimeError` when
        the clock ran out first (the loss is committed).

        `conditional` is what the move does to the waiting player's conditional moves (see
        `storage.conditional`; without it they are dropped), and `answer` that player's
        conditional answer, recorded as the next ply in the same write: nothing can come
        between the two moves, and the opponent's turn starts after the answer. The next
        player's turn notice is an effect of the same write (`NOTICE_DUE`)."""
        plans.check_move(move)
        if answer is not None:
            plans.check_move(answer)
            if conditional is None or conditional.owner_id is None:
                raise InvalidValueError("a conditional answer needs the plan it comes from")
        version = self._engine_version
        plan = await self._writer.write(
            game_id,
            lambda snapshot: plans.move_plan(
                snapshot,
                user_id,
                expected_ply,
                move,
                now,
                version,
                conditional=conditional,
                answer=answer,
            ),
            now=now,
            everything=False,
        )
        return AppendedMove(plan.after, plan.extra["move"], plan.extra.get("answer"))

    # --- endings -----------------------------------------------------------------------

    async def resign(
        self, game_id: int, user_id: int, now: int, *, expected_ply: int | None = None
    ) -> Game:
        """`user_id` resigns; with `expected_ply`, only if the game is still there."""
        plan = await self._writer.write(
            game_id,
            lambda s: plans.resign_plan(s, user_id, now, expected_ply),
            now=now,
            everything=False,
        )
        return plan.after

    async def abort(self, game_id: int, user_id: int, now: int) -> Game:
        """Ends the game without result, allowed until both sides have made a move."""
        plan = await self._writer.write(
            game_id, lambda s: plans.abort_plan(s, user_id, now), now=now
        )
        return plan.after

    async def end(self, game_id: int, expected_ply: int, outcome: Outcome, now: int) -> Game:
        """Ends the game as decided elsewhere (the rules engine after the fact, an
        adjudication). Guarded like a move."""
        plans.check_outcome(outcome)
        plan = await self._writer.write(
            game_id,
            lambda s: plans.end_plan(s, expected_ply, outcome, now),
            now=now,
            everything=False,
        )
        return plan.after

    async def claim_timeout(
        self,
        game_id: int,
        expected_ply: int,
        now: int,
        *,
        result: Result | None = None,
        detail: str = "",
    ) -> Game:
        """Ends the game on time if its deadline has passed at `expected_ply`. By default the
        player to move loses; pass `result` when the rules say otherwise (a draw when the
        opponent could never win)."""
        plan = await self._writer.write(
            game_id,
            lambda s: plans.timeout_plan(s, expected_ply, now, result=result, detail=detail),
            now=now,
            settle=False,
            everything=False,
        )
        return plan.after

    async def settle(self, game_id: int, now: int) -> Game:
        """Writes what the clock decided by `now` (a vacation that ran out, a loss on time)
        and returns the game. Every guarded action does this first; call it before judging
        an action outside storage (a move's legality) on a game whose deadline has passed."""
        async with self._db.transaction() as tx:
            return await _shared.settle_deadline(tx, await _shared.fetch_game(tx, game_id), now)

    async def cancel(self, game_id: int, now: int, *, by: int, reason: str = "") -> Game:
        """A moderator ends a stuck or abandoned game without a result (no rating change);
        `by` and `reason` are kept on the game."""
        async with self._db.transaction() as tx:
            game = await self._settled_active(tx, game_id, now)
            await _shared.ensure_players(tx, [by], now)
            await tx.run("UPDATE games SET decided_by = ? WHERE id = ?", (by, game_id))
            await _shared.finish_game(tx, game, None, now, actor_id=by, abort_detail=reason)
            return await _shared.fetch_game(tx, game_id)

    async def adjudicate(
        self, game_id: int, result: Result, now: int, *, by: int, reason: str = ""
    ) -> Game:
        """A moderator decides the result of a game that cannot go on (rated games are
        then rated like any other end); `by` and `reason` are kept on the game."""
        async with self._db.transaction() as tx:
            game = await self._settled_active(tx, game_id, now)
            await _shared.ensure_players(tx, [by], now)
            await tx.run("UPDATE games SET decided_by = ? WHERE id = ?", (by, game_id))
            await _shared.finish_game(
                tx, game, Outcome(result, Termination.ADJUDICATION, reason), now, actor_id=by
            )
            return await _shared.fetch_game(tx, game_id)

    @staticmethod
    async def _settled_active(tx: Tx, game_id: int, now: int) -> Game:
        """The game after its passed deadline is settled (deadlines win over a moderator's
        decision too): `GameLostOnTimeError` (the loss on time committed) if that ended it,
        `GameEndedError` if it was over already."""
        return await _shared.fetch_active_game(tx, game_id, None, now=now)

    @staticmethod
    def _check_outcome(outcome: Outcome) -> None:
        plans.check_outcome(outcome)

    # --- verification after an engine change -------------------------------------------

    async def _verified(self, game: Game) -> Game:
        """Replays the move list when another engine version wrote the cached position and
        rebuilds the cache if it disagrees. A finished game that no longer replays is
        returned as stored (and logged); an active one raises `GameReplayError`."""
        engine = self._engine
        for _ in range(_VERIFY_ATTEMPTS):
            if engine is None or game.engine_version == engine.version:
                return game
            async with self._db.transaction(write=False) as tx:
                game = await _shared.fetch_game(tx, game.id)
                rows = await tx.all(
                    "SELECT coordinate FROM moves WHERE game_id = ? ORDER BY ply", (game.id,)
                )
                definition = await _shared.definition_of(tx, game.definition_digest)
            if game.engine_version == engine.version:
                return game
            coordinates = [str(row[0]) for row in rows]
            try:
                text = await asyncio.to_thread(replay_game, engine, game, coordinates, definition)
            except ValueError as exc:
                if game.status is GameStatus.ACTIVE:
                    raise GameReplayError(game.id, engine.version, str(exc)) from exc
                log.warning(
                    "finished game %d does not replay with engine %s: %s",
                    game.id,
                    engine.version,
                    exc,
                )
                return game
            async with self._db.transaction() as tx:
                changed = await tx.run(
                    "UPDATE games SET position_text = ?, engine_version = ? "
                    "WHERE id = ? AND ply_count = ? AND engine_version = ? "
                    "AND position_text = ?",
                    (
                        text,
                        engine.version,
                        game.id,
                        game.ply_count,
                        game.engine_version,
                        game.position_text,
                    ),
                )
                if changed:
                    if text != game.position_text:
                        log.warning(
                            "game %d: cached position from engine %s disagreed with a replay "
                            "by engine %s and was rebuilt",
                            game.id,
                            game.engine_version,
                            engine.version,
                        )
                    return dataclasses.replace(
                        game, position_text=text, engine_version=engine.version
                    )
                game = await _shared.fetch_game(tx, game.id)
        return game
