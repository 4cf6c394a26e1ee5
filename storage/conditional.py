"""Conditional moves: the answers a waiting player leaves for the opponent's next moves.

A tree is stored as branches between positions: from `node` (a position where the opponent is
to move, named by the rules engine's position hash), the opponent's expected move `reply` and
the owner's `answer` lead to `child`. Lines sharing a beginning share branches; lines reaching
one position by different orders meet at its node. Only the player waiting for the opponent
has a tree, and only that player's calls read it (`owner_id` is part of every query).

Every change of the game keeps the tree in step in its own transaction:

- a move calls `after_move` with the `ConditionalPlan` the service made from the tree it read
  (compare-and-set: a tree changed meanwhile refuses the move), which keeps the branches still
  ahead and drops the rest (all of them when the move matched none);
- every ending (`_shared.finish_game`) and an accepted takeback drop the whole tree
  (`_shared.drop_conditional_moves`).

Storage knows nothing of the rules: which branch a move matches, and whether the answer is
still legal, the service decides (`bot/service/conditional.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from storage import _rows, _shared
from storage.db import Database, Reader, Row, Tx
from storage.effects import record_effects
from storage.errors import ConflictError, InvalidValueError, NotAParticipantError, RefusedError
from storage.models import NewEffect

if TYPE_CHECKING:
    from storage.apply import GameWriter

MAX_BRANCHES = 400
"""Branches one player may keep in one game (a line of 100 plies is 50 branches)."""


@dataclass(frozen=True, slots=True)
class Branch:
    """If the opponent plays `reply` in the position `node`, the owner answers `answer`,
    which leads to the position `child`. Moves are in coordinates (what replays use), with
    the notation they were shown in when entered."""

    node: str
    reply: str
    reply_notation: str
    answer: str
    answer_notation: str
    child: str

    @property
    def key(self) -> tuple[str, str]:
        return self.node, self.reply


@dataclass(frozen=True, slots=True)
class ConditionalTree:
    """A player's conditional moves in one game, in the order they were entered."""

    game_id: int
    owner_id: int
    branches: tuple[Branch, ...]

    @property
    def empty(self) -> bool:
        return not self.branches


@dataclass(frozen=True, slots=True)
class ConditionalPlan:
    """What a move does to the waiting player's tree, decided by the service from the tree
    it read (`seen`): the branches to `keep` (those still ahead after the answer; none when
    the move matched nothing or the game ends)."""

    owner_id: int | None
    seen: frozenset[Branch] = frozenset()
    keep: frozenset[Branch] = frozenset()
    effects: tuple[NewEffect, ...] = ()
    """Consequences to record with the move (the owner's notice when a tree is dropped for
    a reason they should hear)."""


class ConditionalTreeChangedError(ConflictError):
    """The tree changed between the service's read and the move's transaction (another
    process added or cleared lines): nothing was written; the move may be sent again. The
    message names no move: the opponent must not learn that a tree exists."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__("the game changed while your move was being checked; send it again")


class ConditionalConflictError(RefusedError):
    """A new branch gives another answer to a move the tree already answers there."""

    def __init__(self, existing: Branch) -> None:
        self.existing = existing
        super().__init__(
            f"you already answer {existing.reply_notation} with {existing.answer_notation} there"
        )


class TooManyBranchesError(RefusedError):
    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"a game holds at most {limit} conditional moves of yours")


def _branch(row: Row) -> Branch:
    return Branch(
        node=row["node"],
        reply=row["reply"],
        reply_notation=row["reply_notation"],
        answer=row["answer"],
        answer_notation=row["answer_notation"],
        child=row["child"],
    )


def _check(branch: Branch) -> Branch:
    for name, value, limit in (
        ("a position key", branch.node, 64),
        ("a position key", branch.child, 64),
        ("the expected move", branch.reply, 32),
        ("the answer", branch.answer, 32),
    ):
        _rows.check_token(name, value, max_len=limit)
    _rows.check_text("the expected move's notation", branch.reply_notation, max_len=64)
    _rows.check_text("the answer's notation", branch.answer_notation, max_len=64)
    return branch


async def _rows_of(tx: Reader, game_id: int) -> list[Row]:
    return await tx.all(
        "SELECT * FROM conditional_moves WHERE game_id = ? ORDER BY seq, node, reply", (game_id,)
    )


async def after_move(tx: Tx, game_id: int, plan: ConditionalPlan | None, now: int) -> None:
    """Keeps the tree in step with a move, in the move's transaction. With a plan, the tree
    must still be the one the service read (else `ConditionalTreeChangedError`); without one
    (a caller that does not play conditional answers) the move matched nothing."""
    rows = await _rows_of(tx, game_id)
    if plan is None:
        if rows:
            await _shared.drop_conditional_moves(tx, game_id)
        return
    current = frozenset(_branch(row) for row in rows)
    owners = {int(row["owner_id"]) for row in rows}
    if current != plan.seen or (rows and owners != {plan.owner_id}):
        raise ConditionalTreeChangedError(game_id)
    await record_effects(tx, plan.effects, now)
    if not plan.keep:
        if rows:
            await _shared.drop_conditional_moves(tx, game_id)
        return
    if not plan.keep <= current:
        raise InvalidValueError("a conditional plan keeps branches the tree does not have")
    gone = [b for b in current if b not in plan.keep]
    await tx.many(
        "DELETE FROM conditional_moves WHERE game_id = ? AND node = ? AND reply = ?",
        [(game_id, b.node, b.reply) for b in gone],
    )


class Conditionals:
    """Conditional moves. Obtain it as `Storage.conditional`."""

    def __init__(self, db: Database, writer: GameWriter | None = None) -> None:
        self._db = db
        self._writer = writer

    async def tree(self, game_id: int, owner_id: int) -> ConditionalTree:
        """`owner_id`'s conditional moves in the game (empty if none): only theirs."""
        rows = await self._db.all(
            "SELECT * FROM conditional_moves WHERE game_id = ? AND owner_id = ? "
            "ORDER BY seq, node, reply",
            (game_id, owner_id),
        )
        return ConditionalTree(game_id, owner_id, tuple(_branch(row) for row in rows))

    async def waiting(self, game_id: int) -> ConditionalTree | None:
        """The tree of whoever has one in the game (the player waiting for the opponent):
        for the move path only, which plays the answers and never shows them. On
        PostgreSQL the state this process's last write of the game left answers without a
        round trip: the move's write checks that the tree is still the one read
        (`ConditionalTreeChangedError` if another process changed it meanwhile)."""
        remembered = None if self._writer is None else self._writer.remembered(game_id)
        if remembered is not None:
            if not remembered.branches:
                return None
            return ConditionalTree(
                game_id,
                remembered.branches[0].owner_id,
                tuple(
                    Branch(b.node, b.reply, b.reply_notation, b.answer, b.answer_notation, b.child)
                    for b in remembered.branches
                ),
            )
        rows = await _rows_of(self._db, game_id)
        if not rows:
            return None
        owner = int(rows[0]["owner_id"])
        return ConditionalTree(game_id, owner, tuple(_branch(row) for row in rows))

    async def add(
        self,
        game_id: int,
        owner_id: int,
        expected_ply: int,
        branches: Sequence[Branch],
        now: int,
    ) -> ConditionalTree:
        """Adds branches to `owner_id`'s tree while the opponent is to move at
        `expected_ply` (else `GameMovedOnError`). A branch already there is kept as it is;
        one answering the same move differently is refused (`ConditionalConflictError`).
        A deadline that has passed is settled first (`GameLostOnTimeError`): deadlines win."""
        new = [_check(b) for b in branches]
        async with self._db.transaction() as tx:
            game = await _shared.fetch_active_game(tx, game_id, expected_ply, now=now)
            color = game.color_of(owner_id)
            if color is None:
                raise NotAParticipantError(owner_id)
            if color is game.turn:
                raise RefusedError("conditional moves are entered while your opponent is to move")
            rows = await _rows_of(tx, game_id)
            if any(int(row["owner_id"]) != owner_id for row in rows):
                # Left over from the other player's turn (never expected: every move prunes).
                await _shared.drop_conditional_moves(tx, game_id)
                rows = []
            existing = {(b.node, b.reply): b for b in map(_branch, rows)}
            seq = max((int(row["seq"]) for row in rows), default=0)
            fresh: list[tuple[object, ...]] = []
            for branch in new:
                there = existing.get(branch.key)
                if there is not None:
                    if there.answer != branch.answer:
                        raise ConditionalConflictError(there)
                    continue
                existing[branch.key] = branch
                seq += 1
                fresh.append(
                    (
                        game_id,
                        owner_id,
                        branch.node,
                        branch.reply,
                        branch.reply_notation,
                        branch.answer,
                        branch.answer_notation,
                        branch.child,
                        seq,
                        now,
                    )
                )
            if len(existing) > MAX_BRANCHES:
                raise TooManyBranchesError(MAX_BRANCHES)
            await tx.many(
                "INSERT INTO conditional_moves (game_id, owner_id, node, reply, reply_notation, "
                "answer, answer_notation, child, seq, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                fresh,
            )
            rows = await _rows_of(tx, game_id)
        self._forget(game_id)
        return ConditionalTree(game_id, owner_id, tuple(_branch(row) for row in rows))

    async def clear(self, game_id: int, owner_id: int) -> int:
        """Drops `owner_id`'s conditional moves in the game; returns how many there were."""
        async with self._db.transaction() as tx:
            dropped = await tx.run(
                "DELETE FROM conditional_moves WHERE game_id = ? AND owner_id = ?",
                (game_id, owner_id),
            )
        self._forget(game_id)
        return dropped

    def _forget(self, game_id: int) -> None:
        """The tree changed outside a guarded write: the remembered state is out of date."""
        if self._writer is not None:
            self._writer.forget(game_id)

    async def games_of(self, owner_id: int) -> list[int]:
        """The games in which `owner_id` has conditional moves (for their own listings)."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT DISTINCT game_id FROM conditional_moves WHERE owner_id = ? "
                "ORDER BY game_id",
                (owner_id,),
            )
        return [int(row[0]) for row in rows]
