"""Writing the plans of `storage.plans`: in a transaction, or on PostgreSQL in one call.

`GameWriter.write(game_id, decide, now=...)` is how the repositories run a guarded write of a
game. `decide(snapshot)` is one of the pure functions of `storage.plans`; it refuses (a
`StorageError`) or returns the `Plan`.

- **SQLite** (and PostgreSQL when the write cannot go in one call): one write transaction
  reads the snapshot (the game's row locked on PostgreSQL), settles a deadline that ran out
  first if need be (deadlines win: that part commits, then the write is refused), decides,
  and applies the plan statement by statement; its events become effects at COMMIT.
- **PostgreSQL**: the snapshot is read in one statement (`fp_game_state`), or taken from the
  one this process got back from its last write of the game; the plan and the effects its
  events set off are sent to `fp_apply`, which locks the game, checks the snapshot's digest
  and writes everything: one round trip, no transaction block. If the game changed since the
  snapshot, `fp_apply` writes nothing and returns the current state, and the write is decided
  again on it. A refusal decided on a remembered snapshot is checked on a fresh one first.
  A deadline that ran out (or a write that needs something else) goes the transaction way.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from storage import _rows, _shared
from storage.db import Database, Tx
from storage.effects import EFFECT_COLUMNS, effect_row, record_effect_rows
from storage.errors import (
    GameLostOnTimeError,
    GameMovedOnError,
    GameNotFoundError,
    InvalidValueError,
    StorageError,
)
from storage.models import RequestStatus
from storage.plans import (
    MUTABLE_GAME_COLUMNS,
    Plan,
    PlayerState,
    SettleFirst,
    Snapshot,
    StoredBranch,
    game_columns,
    needs_settling,
    player_state,
    snapshot_from,
    stored_branch,
)

log = logging.getLogger(__name__)

Decide = Callable[[Snapshot], Plan]
Locate = Callable[[Tx | Database], Awaitable[int]]
"""Finds the game a write is about (from an offer, a request), reading with the `one` of
the transaction or of the database it is given."""

CACHED_STATES = 2048
"""Snapshots remembered per process (the state each write of this process left)."""
_ATTEMPTS = 3


# --- snapshots -------------------------------------------------------------------------------


async def read_snapshot(tx: Tx, game_id: int, *, everything: bool = True) -> Snapshot:
    """The snapshot, read in the caller's transaction (the game's row locked in a write
    transaction on PostgreSQL). Without `everything`, the pending offers and the history
    are left out (a move decides nothing on them)."""
    game = await _shared.fetch_game(tx, game_id)
    players = [
        player_state(row)
        for row in await tx.all(
            "SELECT user_id, turn_notices, reminder_offsets, vacation_started_at, "
            "vacation_ends_at FROM players WHERE user_id IN (?, ?) ORDER BY user_id",
            (game.white_id, game.black_id),
        )
    ]
    branches = [
        stored_branch(row)
        for row in await tx.all(
            "SELECT * FROM conditional_moves WHERE game_id = ? ORDER BY seq, node, reply",
            (game_id,),
        )
    ]
    if not everything:
        return snapshot_from(game, players, branches, None, None, 0, ())
    draw = await tx.one(
        "SELECT * FROM draw_offers WHERE game_id = ? AND status = 'pending'", (game_id,)
    )
    takeback = await tx.one(
        "SELECT * FROM takeback_requests WHERE game_id = ? AND status = 'pending'", (game_id,)
    )
    white = await tx.scalar(
        "SELECT 1 FROM moves WHERE game_id = ? AND color = 'white' LIMIT 1", (game_id,)
    )
    black = await tx.scalar(
        "SELECT 1 FROM moves WHERE game_id = ? AND color = 'black' LIMIT 1", (game_id,)
    )
    last = await tx.all(
        "SELECT color FROM moves WHERE game_id = ? AND ply > ? ORDER BY ply",
        (game_id, game.ply_count - 2),
    )
    return snapshot_from(
        game,
        players,
        branches,
        None if draw is None else _rows.draw_offer(draw),
        None if takeback is None else _rows.takeback(takeback),
        (white is not None) + (black is not None),
        [str(row[0]) for row in last],
    )


def parse_state(text: str, digest: str) -> Snapshot:
    """A snapshot from `fp_game_state`'s JSON."""
    data = json.loads(text)
    draw, takeback = data.get("draw"), data.get("takeback")
    return snapshot_from(
        _rows.game(data["game"]),
        (player_state(p) for p in data["players"]),
        [stored_branch(b) for b in data["branches"]],
        None if draw is None else _rows.draw_offer(draw),
        None if takeback is None else _rows.takeback(takeback),
        int(data["sides"]),
        [str(c) for c in data["last"]],
        digest,
    )


# --- plans as data ---------------------------------------------------------------------------


def plan_json(plan: Plan, effect_rows: list[tuple[object, ...]]) -> str:
    """The plan as `fp_apply` reads it."""
    before = plan.before
    return json.dumps(
        {
            "guard": {
                "status": before.status.value,
                "ply_count": before.ply_count,
                "revision": before.revision,
            },
            "game": game_columns(plan.after),
            "at": plan.at,
            "moves": [
                {
                    "game_id": m.game_id,
                    "ply": m.ply,
                    "color": m.color.value,
                    "notation": m.notation,
                    "coordinate": m.coordinate,
                    "position_hash": m.position_hash,
                    "made_at": m.made_at,
                    "conditional": int(m.conditional),
                    "engine": m.engine,
                }
                for m in plan.moves
            ],
            "archive": None
            if plan.archive is None
            else {
                "takeback_id": plan.archive.takeback_id,
                "keep": plan.archive.keep,
                "at": plan.archive.at,
            },
            "resolve": [
                {"table": r.table, "id": r.id, "status": r.status.value, "at": r.at}
                for r in plan.resolve
            ],
            "lapse_takebacks": plan.lapse_takebacks,
            "lapse_draws": plan.lapse_draws,
            "lapse_draws_by": list(plan.lapse_draws_by),
            "notifications": None
            if plan.notifications is None
            else [
                {
                    "game_id": n.game_id,
                    "ply": n.ply,
                    "kind": n.kind,
                    "offset_seconds": n.offset_seconds,
                    "user_id": n.user_id,
                    "due_at": n.due_at,
                    "sent_at": n.sent_at,
                }
                for n in plan.notifications
            ],
            "drop_branches": plan.drop_branches,
            "delete_branches": [list(key) for key in plan.delete_branches],
            "effects": [dict(zip(EFFECT_COLUMNS, row, strict=True)) for row in effect_rows],
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )


async def apply_plan(tx: Tx, plan: Plan) -> None:
    """Writes `plan` in the caller's write transaction (which read its snapshot); its
    events become effects at COMMIT, after the effects it records directly."""
    direct = [effect_row(effect, plan.at) for effect in plan.effects]
    if tx.dialect == "postgresql":
        game = plan.before.id
        await tx.one(
            "SELECT stale FROM fp_apply(?, NULL, CAST(? AS jsonb))",
            (game, plan_json(plan, direct)),
        )
    else:
        await _apply_statements(tx, plan)
        await record_effect_rows(tx, direct)
    for event in plan.events:
        tx.emit(event)


async def apply_plans(tx: Tx, plans: Sequence[Plan]) -> None:
    """Several plans (of different games, each read in this transaction): on PostgreSQL in
    one statement."""
    if tx.dialect != "postgresql" or len(plans) < 2:
        for plan in plans:
            await apply_plan(tx, plan)
        return
    await tx.one(
        "SELECT count(*) FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[])) AS p (game, plan), "
        "LATERAL fp_apply(p.game, NULL, CAST(p.plan AS jsonb)) AS done",
        (
            [plan.before.id for plan in plans],
            [
                plan_json(plan, [effect_row(effect, plan.at) for effect in plan.effects])
                for plan in plans
            ],
        ),
    )
    for plan in plans:
        for event in plan.events:
            tx.emit(event)


async def _apply_statements(tx: Tx, plan: Plan) -> None:
    """SQLite's `fp_apply`: the same writes, in the same order."""
    game_id = plan.before.id
    now = plan.at
    for r in plan.resolve:
        if r.table not in ("draw_offers", "takeback_requests"):  # pragma: no cover
            raise InvalidValueError(f"unknown request table {r.table}")
        changed = await tx.run(
            f"UPDATE {r.table} SET status = ?, resolved_at = ? WHERE id = ? AND status = ?",
            (r.status.value, r.at, r.id, RequestStatus.PENDING.value),
        )
        if changed != 1:  # pragma: no cover - decided under the same write lock
            raise InvalidValueError(f"{r.table} {r.id} is no longer pending")
    if plan.archive is not None:
        a = plan.archive
        await tx.run(
            "INSERT INTO archived_moves (game_id, ply, color, notation, coordinate, "
            "position_hash, made_at, conditional, engine, takeback_id, archived_at) "
            "SELECT game_id, ply, color, notation, coordinate, position_hash, made_at, "
            "conditional, engine, ?, ? FROM moves WHERE game_id = ? AND ply > ? ORDER BY ply",
            (a.takeback_id, a.at, game_id, a.keep),
        )
        await tx.run("DELETE FROM moves WHERE game_id = ? AND ply > ?", (game_id, a.keep))
    if plan.drop_branches:
        await _shared.drop_conditional_moves(tx, game_id)
    elif plan.delete_branches:
        await tx.many(
            "DELETE FROM conditional_moves WHERE game_id = ? AND node = ? AND reply = ?",
            [(game_id, node, reply) for node, reply in plan.delete_branches],
        )
    if plan.moves:
        await tx.many(
            "INSERT INTO moves (game_id, ply, color, notation, coordinate, position_hash, "
            "made_at, conditional, engine) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    m.game_id,
                    m.ply,
                    m.color.value,
                    m.notation,
                    m.coordinate,
                    m.position_hash,
                    m.made_at,
                    int(m.conditional),
                    m.engine,
                )
                for m in plan.moves
            ],
        )
    values = game_columns(plan.after)
    before = plan.before
    changed = await tx.run(
        f"UPDATE games SET {', '.join(f'{c} = ?' for c in MUTABLE_GAME_COLUMNS)} "
        "WHERE id = ? AND status = ? AND ply_count = ? AND revision = ?",
        (
            *(values[c] for c in MUTABLE_GAME_COLUMNS),
            game_id,
            before.status.value,
            before.ply_count,
            before.revision,
        ),
    )
    if changed != 1:  # pragma: no cover - decided under the same write lock
        raise GameMovedOnError(game_id, before.ply_count)
    lapsed, pending = RequestStatus.LAPSED.value, RequestStatus.PENDING.value
    if plan.lapse_takebacks:
        await tx.run(
            "UPDATE takeback_requests SET status = ?, resolved_at = ? "
            "WHERE game_id = ? AND status = ?",
            (lapsed, now, game_id, pending),
        )
    if plan.lapse_draws:
        await tx.run(
            "UPDATE draw_offers SET status = ?, resolved_at = ? WHERE game_id = ? AND status = ?",
            (lapsed, now, game_id, pending),
        )
    else:
        for user_id in plan.lapse_draws_by:
            await tx.run(
                "UPDATE draw_offers SET status = ?, resolved_at = ? "
                "WHERE game_id = ? AND status = ? AND offered_by = ?",
                (lapsed, now, game_id, pending, user_id),
            )
    if plan.notifications is not None:
        await tx.run("DELETE FROM notifications WHERE game_id = ?", (game_id,))
        await tx.many(
            "INSERT INTO notifications (game_id, ply, kind, offset_seconds, user_id, due_at, "
            "sent_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (n.game_id, n.ply, n.kind, n.offset_seconds, n.user_id, n.due_at, n.sent_at)
                for n in plan.notifications
            ],
        )


# --- the writer ------------------------------------------------------------------------------


class GameWriter:
    """Runs guarded writes of games (shared by the repositories of one `Storage`)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._states: OrderedDict[int, tuple[str, str]] = OrderedDict()
        self.calls = 0
        """Writes made in one call (PostgreSQL), for tests and benchmarks."""
        self.transactions = 0
        """Writes made in a transaction."""

    async def write(
        self,
        game: int | Locate,
        decide: Decide,
        *,
        now: int,
        settle: bool = True,
        everything: bool = True,
    ) -> Plan:
        """Decides and writes the game (its id, or how to find it); returns the plan
        written. With `settle`, a deadline that ran out is written first (and the write
        refused with `GameLostOnTimeError`)."""
        if self._db.dialect == "postgresql":
            game_id = game if isinstance(game, int) else await game(self._db)
            plan = await self._in_one_call(game_id, decide)
            if plan is not None:
                self.calls += 1
                return plan
        async with self._db.transaction() as tx:
            game_id = game if isinstance(game, int) else await game(tx)
            plan = await self.write_in(
                tx, game_id, decide, now=now, settle=settle, everything=everything
            )
        self._states.pop(game_id, None)
        self.transactions += 1
        return plan

    @staticmethod
    async def write_in(
        tx: Tx,
        game_id: int,
        decide: Decide,
        *,
        now: int,
        settle: bool = True,
        everything: bool = True,
    ) -> Plan:
        """The transaction way, in the caller's write transaction (`everything`: see
        `read_snapshot`; PostgreSQL's one call always reads it all)."""
        snapshot = await read_snapshot(tx, game_id, everything=everything)
        game = snapshot.game
        if settle and needs_settling(game, snapshot.player(game.to_move_id), now):
            settled = await _shared.settle_deadline(tx, game, now)
            if not settled.is_active:
                raise GameLostOnTimeError(settled)
            snapshot = await read_snapshot(tx, game_id, everything=everything)
        plan = decide(snapshot)
        await apply_plan(tx, plan)
        return plan

    def remembered(self, game_id: int) -> Snapshot | None:
        """The state this process's last write of the game left (PostgreSQL), if it still
        remembers it: what it decides on, read without a round trip. Another process may
        have written the game since; a write decided on it is checked by its digest."""
        state = self._states.get(game_id)
        return None if state is None else parse_state(*state)

    def forget(self, game_id: int) -> None:
        """Something else wrote the game (a transaction of another repository)."""
        self._states.pop(game_id, None)

    async def _in_one_call(self, game_id: int, decide: Decide) -> Plan | None:
        remembered = self._states.get(game_id)
        fresh = remembered is None
        state = remembered or await self._read_state(game_id)
        rows_of = self._db.effect_rows_of
        for _ in range(_ATTEMPTS):
            snapshot = parse_state(*state)
            try:
                plan = decide(snapshot)
            except SettleFirst:
                return None
            except StorageError:
                if fresh:
                    raise
                state, fresh = await self._read_state(game_id), True
                continue
            rows = [effect_row(effect, plan.at) for effect in plan.effects]
            if rows_of is not None:
                rows += rows_of(plan.events)
            stale, text, digest = await self._call(game_id, state[1], plan_json(plan, rows))
            if text is None:
                self._states.pop(game_id, None)
                raise GameNotFoundError(game_id)
            self._remember(game_id, (text, digest))
            if not stale:
                return plan
            state, fresh = (text, digest), True
        return None

    def _remember(self, game_id: int, state: tuple[str, str]) -> None:
        states = self._states
        states[game_id] = state
        states.move_to_end(game_id)
        while len(states) > CACHED_STATES:
            states.popitem(last=False)

    async def _read_state(self, game_id: int) -> tuple[str, str]:
        row = await self._db.one(
            "SELECT s, md5(s) FROM (SELECT CAST(fp_game_state(?) AS TEXT) AS s) AS state",
            (game_id,),
        )
        if row is None or row[0] is None:
            raise GameNotFoundError(game_id)
        return str(row[0]), str(row[1])

    async def _call(self, game_id: int, digest: str, plan: str) -> tuple[bool, str | None, str]:
        rows: list[Any] = await self._db.returning(
            "SELECT stale, state, digest FROM fp_apply(?, ?, CAST(? AS jsonb))",
            (game_id, digest, plan),
        )
        row = rows[0]
        return bool(row[0]), row[1], str(row[2] or "")


__all__ = ["GameWriter", "PlayerState", "Snapshot", "StoredBranch", "apply_plan", "read_snapshot"]
