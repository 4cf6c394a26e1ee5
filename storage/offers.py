"""Draw offers and takeback requests: one pending of each per game, answered at most once.

A draw offer lapses when its offerer moves; a takeback request lapses when anyone moves.
Accepting either is guarded like a move, and a takeback never destroys history: the removed
moves are copied to `archived_moves` in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

from storage import _rows, _shared
from storage.db import Database, Tx
from storage.engine import UNKNOWN_ENGINE_VERSION, Engine
from storage.errors import (
    DrawOfferNotFoundError,
    GameMovedOnError,
    InvalidValueError,
    NotAParticipantError,
    RefusedError,
    RequestAlreadyPendingError,
    RequestNotPendingError,
    TakebackNotFoundError,
)
from storage.models import (
    Color,
    DrawOffer,
    EventKind,
    Game,
    Outcome,
    RequestStatus,
    Result,
    StorageEvent,
    TakebackRequest,
    Termination,
)

PENDING = RequestStatus.PENDING.value
REQUEST_TABLES = {"draw": "draw_offers", "takeback": "takeback_requests"}


@dataclass(frozen=True, slots=True)
class OfferPost:
    """The post of a draw offer or takeback request, with the request's state now."""

    kind: str  # "draw" or "takeback"
    request_id: int
    game_id: int
    channel_id: int
    message_id: int
    status: RequestStatus
    by_id: int  # who offered or asked


class OfferPosts:
    """Where offers and requests were posted, and which posts still show buttons of a
    settled request. Obtain it as `Storage.offer_posts`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def record(
        self, kind: str, request_id: int, game_id: int, channel_id: int, message_id: int
    ) -> None:
        if kind not in REQUEST_TABLES:
            raise InvalidValueError(f"the request kind must be draw or takeback, not {kind!r}")
        async with self._db.transaction() as tx:
            await tx.run(
                "INSERT INTO offer_posts (kind, request_id, game_id, channel_id, message_id) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, request_id) DO NOTHING",
                (kind, request_id, game_id, channel_id, message_id),
            )

    async def unsettled(self, game_id: int | None = None) -> list[OfferPost]:
        """Posts whose request is no longer pending but which still show its buttons
        (of one game, or of every game)."""
        out: list[OfferPost] = []
        async with self._db.transaction(write=False) as tx:
            for kind, table in REQUEST_TABLES.items():
                by = "offered_by" if kind == "draw" else "requested_by"
                where = "p.settled_at IS NULL AND r.status <> ?"
                params: tuple[object, ...] = (kind, PENDING)
                if game_id is not None:
                    where += " AND p.game_id = ?"
                    params = (*params, game_id)
                rows = await tx.all(
                    f"SELECT p.request_id, p.game_id, p.channel_id, p.message_id, r.status, "
                    f"r.{by} AS by_id FROM offer_posts p JOIN {table} r ON r.id = p.request_id "
                    f"WHERE p.kind = ? AND {where} ORDER BY p.request_id",
                    params,
                )
                out.extend(
                    OfferPost(
                        kind,
                        row["request_id"],
                        row["game_id"],
                        row["channel_id"],
                        row["message_id"],
                        RequestStatus(row["status"]),
                        row["by_id"],
                    )
                    for row in rows
                )
        return out

    async def settle(self, kind: str, request_id: int, now: int) -> None:
        """The post now shows the settled request (idempotent)."""
        async with self._db.transaction() as tx:
            await tx.run(
                "UPDATE offer_posts SET settled_at = ? "
                "WHERE kind = ? AND request_id = ? AND settled_at IS NULL",
                (now, kind, request_id),
            )


class DrawOffers:
    """Obtain it as `Storage.draws`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def offer(self, game_id: int, user_id: int, now: int) -> DrawOffer:
        """Raises `RequestAlreadyPendingError` if an offer (from either side) is waiting."""
        async with self._db.transaction() as tx:
            game = await _shared.fetch_active_game(tx, game_id, None, now=now)
            if game.color_of(user_id) is None:
                raise NotAParticipantError(user_id)
            pending = await self._pending(tx, game_id)
            if pending is not None:
                raise RequestAlreadyPendingError("draw offer", pending.id, pending.offered_by)
            offer_id = await tx.insert(
                "INSERT INTO draw_offers (game_id, offered_by, ply, created_at) "
                "VALUES (?, ?, ?, ?)",
                (game_id, user_id, game.ply_count, now),
            )
            return await self._fetch(tx, offer_id)

    async def get(self, offer_id: int) -> DrawOffer:
        async with self._db.transaction(write=False) as tx:
            return await self._fetch(tx, offer_id)

    async def pending(self, game_id: int) -> DrawOffer | None:
        async with self._db.transaction(write=False) as tx:
            return await self._pending(tx, game_id)

    async def accept(self, offer_id: int, user_id: int, now: int) -> Game:
        """The opponent of the offerer agrees: the game ends drawn by agreement."""
        async with self._db.transaction() as tx:
            offer = await self._fetch_pending(tx, offer_id)
            game = await _shared.fetch_active_game(tx, offer.game_id, None, now=now)
            if game.color_of(user_id) is None:
                raise NotAParticipantError(user_id)
            if user_id == offer.offered_by:
                raise RefusedError("you cannot accept your own draw offer")
            await self._resolve(tx, offer_id, RequestStatus.ACCEPTED, now)
            await _shared.finish_game(
                tx, game, Outcome(Result.DRAW, Termination.AGREEMENT), now, actor_id=user_id
            )
            return await _shared.fetch_game(tx, game.id)

    async def decline(self, offer_id: int, user_id: int, now: int) -> DrawOffer:
        """The opponent declines, or the offerer withdraws."""
        async with self._db.transaction() as tx:
            offer = await self._fetch_pending(tx, offer_id)
            game = await _shared.fetch_active_game(tx, offer.game_id, None, now=now)
            if game.color_of(user_id) is None:
                raise NotAParticipantError(user_id)
            status = (
                RequestStatus.WITHDRAWN if user_id == offer.offered_by else RequestStatus.DECLINED
            )
            await self._resolve(tx, offer_id, status, now)
            return await self._fetch(tx, offer_id)

    async def list_for_game(self, game_id: int) -> list[DrawOffer]:
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM draw_offers WHERE game_id = ? ORDER BY id", (game_id,)
            )
        return [_rows.draw_offer(row) for row in rows]

    @staticmethod
    async def _resolve(tx: Tx, offer_id: int, status: RequestStatus, now: int) -> None:
        changed = await tx.run(
            "UPDATE draw_offers SET status = ?, resolved_at = ? WHERE id = ? AND status = ?",
            (status.value, now, offer_id, PENDING),
        )
        if changed != 1:  # pragma: no cover - checked under the same write lock
            raise RequestNotPendingError("draw offer", offer_id, "answered")

    @staticmethod
    async def _fetch(tx: Tx, offer_id: int) -> DrawOffer:
        row = await tx.one("SELECT * FROM draw_offers WHERE id = ?", (offer_id,))
        if row is None:
            raise DrawOfferNotFoundError(offer_id)
        return _rows.draw_offer(row)

    async def _fetch_pending(self, tx: Tx, offer_id: int) -> DrawOffer:
        offer = await self._fetch(tx, offer_id)
        if offer.status is not RequestStatus.PENDING:
            raise RequestNotPendingError("draw offer", offer_id, offer.status.value)
        return offer

    @staticmethod
    async def _pending(tx: Tx, game_id: int) -> DrawOffer | None:
        row = await tx.one(
            "SELECT * FROM draw_offers WHERE game_id = ? AND status = ?", (game_id, PENDING)
        )
        return None if row is None else _rows.draw_offer(row)


class Takebacks:
    """Obtain it as `Storage.takebacks`."""

    def __init__(self, db: Database, engine: Engine | None) -> None:
        self._db = db
        self._engine = engine

    async def request(self, game_id: int, user_id: int, plies: int, now: int) -> TakebackRequest:
        """Asks the opponent to take back the last `plies` (1 or 2) moves."""
        if plies not in (1, 2):
            raise InvalidValueError("a takeback removes one or two plies")
        async with self._db.transaction() as tx:
            game = await _shared.fetch_active_game(tx, game_id, None, now=now)
            if game.color_of(user_id) is None:
                raise NotAParticipantError(user_id)
            if game.ply_count < plies:
                raise RefusedError("there are not that many moves to take back")
            pending = await self._pending(tx, game_id)
            if pending is not None:
                raise RequestAlreadyPendingError(
                    "takeback request", pending.id, pending.requested_by
                )
            request_id = await tx.insert(
                "INSERT INTO takeback_requests (game_id, requested_by, ply, plies, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (game_id, user_id, game.ply_count, plies, now),
            )
            return await self._fetch(tx, request_id)

    async def get(self, request_id: int) -> TakebackRequest:
        async with self._db.transaction(write=False) as tx:
            return await self._fetch(tx, request_id)

    async def pending(self, game_id: int) -> TakebackRequest | None:
        async with self._db.transaction(write=False) as tx:
            return await self._pending(tx, game_id)

    async def accept(self, request_id: int, user_id: int, position_text: str, now: int) -> Game:
        """The opponent agrees: the last plies move to `archived_moves`, the game goes back
        to `position_text` (the caller's replay of the remaining moves) and the clock of the
        side to move restarts. Banks are left as they are."""
        _rows.check_text("the position text", position_text, max_len=_rows.MAX_POSITION)
        async with self._db.transaction() as tx:
            request = await self._fetch(tx, request_id)
            if request.status is not RequestStatus.PENDING:
                raise RequestNotPendingError("takeback request", request_id, request.status.value)
            game = await _shared.fetch_active_game(tx, request.game_id, request.ply, now=now)
            if game.color_of(user_id) is None:
                raise NotAParticipantError(user_id)
            if user_id == request.requested_by:
                raise RefusedError("you cannot accept your own takeback request")
            changed = await tx.run(
                "UPDATE takeback_requests SET status = 'accepted', resolved_at = ? "
                "WHERE id = ? AND status = ?",
                (now, request_id, PENDING),
            )
            if changed != 1:  # pragma: no cover - checked under the same write lock
                raise RequestNotPendingError("takeback request", request_id, "answered")
            keep = game.ply_count - request.plies
            first_removed = await tx.one(
                "SELECT color FROM moves WHERE game_id = ? AND ply = ?", (game.id, keep + 1)
            )
            if first_removed is None:  # pragma: no cover - plies are contiguous
                raise GameMovedOnError(game.id, request.ply, game.ply_count)
            turn = Color(first_removed["color"])
            await tx.run(
                "INSERT INTO archived_moves (game_id, ply, color, notation, coordinate, "
                "position_hash, made_at, conditional, takeback_id, archived_at) "
                "SELECT game_id, ply, color, notation, coordinate, position_hash, made_at, "
                "conditional, ?, ? FROM moves WHERE game_id = ? AND ply > ? ORDER BY ply",
                (request_id, now, game.id, keep),
            )
            await tx.run("DELETE FROM moves WHERE game_id = ? AND ply > ?", (game.id, keep))
            await _shared.drop_conditional_moves(tx, game.id)
            version = self._engine.version if self._engine else UNKNOWN_ENGINE_VERSION
            changed = await tx.run(
                "UPDATE games SET ply_count = ?, position_text = ?, engine_version = ?, "
                "turn = ?, updated_at = greatest(updated_at, ?), revision = revision + 1 "
                "WHERE id = ? AND status = 'active' AND ply_count = ?",
                (keep, position_text, version, turn.value, now, game.id, game.ply_count),
            )
            if changed != 1:  # pragma: no cover - checked under the same write lock
                raise GameMovedOnError(game.id, request.ply, game.ply_count)
            await tx.run(
                "UPDATE draw_offers SET status = 'lapsed', resolved_at = ? "
                "WHERE game_id = ? AND status = ?",
                (now, game.id, PENDING),
            )
            deadline, paused = await _shared.start_turn(
                tx,
                game_id=game.id,
                ply=keep,
                user_id=game.player_id(turn),
                clock=game.clock,
                bank=game.bank(turn),
                now=now,
            )
            await tx.run(
                "UPDATE games SET deadline_at = ?, paused_remaining = ? WHERE id = ?",
                (deadline, paused, game.id),
            )
            updated = await _shared.fetch_game(tx, game.id)
            tx.emit(StorageEvent(EventKind.TAKEBACK, now, game=updated, ply=keep, actor_id=user_id))
            return updated

    async def decline(self, request_id: int, user_id: int, now: int) -> TakebackRequest:
        """The opponent declines, or the requester withdraws."""
        async with self._db.transaction() as tx:
            request = await self._fetch(tx, request_id)
            if request.status is not RequestStatus.PENDING:
                raise RequestNotPendingError("takeback request", request_id, request.status.value)
            game = await _shared.fetch_active_game(tx, request.game_id, None, now=now)
            if game.color_of(user_id) is None:
                raise NotAParticipantError(user_id)
            status = (
                RequestStatus.WITHDRAWN
                if user_id == request.requested_by
                else RequestStatus.DECLINED
            )
            await tx.run(
                "UPDATE takeback_requests SET status = ?, resolved_at = ? "
                "WHERE id = ? AND status = ?",
                (status.value, now, request_id, PENDING),
            )
            return await self._fetch(tx, request_id)

    async def list_for_game(self, game_id: int) -> list[TakebackRequest]:
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM takeback_requests WHERE game_id = ? ORDER BY id", (game_id,)
            )
        return [_rows.takeback(row) for row in rows]

    @staticmethod
    async def _fetch(tx: Tx, request_id: int) -> TakebackRequest:
        row = await tx.one("SELECT * FROM takeback_requests WHERE id = ?", (request_id,))
        if row is None:
            raise TakebackNotFoundError(request_id)
        return _rows.takeback(row)

    @staticmethod
    async def _pending(tx: Tx, game_id: int) -> TakebackRequest | None:
        row = await tx.one(
            "SELECT * FROM takeback_requests WHERE game_id = ? AND status = ?",
            (game_id, PENDING),
        )
        return None if row is None else _rows.takeback(row)
