"""Draw offers and takeback requests: one pending of each per game, answered at most once.

A draw offer lapses when its offerer moves; a takeback request lapses when anyone moves.
Accepting either is guarded like a move, and a takeback never destroys history: the removed
moves are copied to `archived_moves` in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

from storage import _rows, _shared, plans
from storage.apply import GameWriter
from storage.db import Database, Reader, Tx
from storage.engine import UNKNOWN_ENGINE_VERSION, Engine
from storage.errors import (
    DrawOfferNotFoundError,
    InvalidValueError,
    NotAParticipantError,
    RefusedError,
    RequestAlreadyPendingError,
    RequestNotPendingError,
    TakebackNotFoundError,
)
from storage.models import (
    DrawOffer,
    Game,
    RequestStatus,
    TakebackRequest,
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


async def _pending_game(reader: Reader, what: str, request_id: int) -> int:
    """The game of a pending draw offer or takeback request (refused if answered)."""
    table = "draw_offers" if what == "draw offer" else "takeback_requests"
    row = await reader.one(f"SELECT game_id, status FROM {table} WHERE id = ?", (request_id,))
    if row is None:
        raise (
            DrawOfferNotFoundError(request_id)
            if table == "draw_offers"
            else TakebackNotFoundError(request_id)
        )
    if row["status"] != PENDING:
        raise RequestNotPendingError(what, request_id, str(row["status"]))
    return int(row["game_id"])


class DrawOffers:
    """Obtain it as `Storage.draws`."""

    def __init__(self, db: Database, writer: GameWriter) -> None:
        self._db = db
        self._writer = writer

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
        return await self._fetch(self._db, offer_id)

    async def pending(self, game_id: int) -> DrawOffer | None:
        return await self._pending(self._db, game_id)

    async def accept(self, offer_id: int, user_id: int, now: int) -> Game:
        """The opponent of the offerer agrees: the game ends drawn by agreement."""
        plan = await self._writer.write(
            lambda reader: _pending_game(reader, "draw offer", offer_id),
            lambda s: plans.draw_accept_plan(s, offer_id, user_id, now),
            now=now,
        )
        return plan.after

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
    async def _fetch(tx: Reader, offer_id: int) -> DrawOffer:
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
    async def _pending(tx: Reader, game_id: int) -> DrawOffer | None:
        row = await tx.one(
            "SELECT * FROM draw_offers WHERE game_id = ? AND status = ?", (game_id, PENDING)
        )
        return None if row is None else _rows.draw_offer(row)


class Takebacks:
    """Obtain it as `Storage.takebacks`."""

    def __init__(self, db: Database, engine: Engine | None, writer: GameWriter) -> None:
        self._db = db
        self._engine = engine
        self._writer = writer

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
        return await self._fetch(self._db, request_id)

    async def pending(self, game_id: int) -> TakebackRequest | None:
        return await self._pending(self._db, game_id)

    async def accept(self, request_id: int, user_id: int, position_text: str, now: int) -> Game:
        """The opponent agrees: the last plies move to `archived_moves`, the game goes back
        to `position_text` (the caller's replay of the remaining moves) and the clock of the
        side to move restarts. Banks are left as they are."""
        _rows.check_text("the position text", position_text, max_len=_rows.MAX_POSITION)
        version = self._engine.version if self._engine else UNKNOWN_ENGINE_VERSION
        plan = await self._writer.write(
            lambda reader: _pending_game(reader, "takeback request", request_id),
            lambda s: plans.takeback_accept_plan(
                s, request_id, user_id, position_text, now, version
            ),
            now=now,
        )
        return plan.after

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
    async def _fetch(tx: Reader, request_id: int) -> TakebackRequest:
        row = await tx.one("SELECT * FROM takeback_requests WHERE id = ?", (request_id,))
        if row is None:
            raise TakebackNotFoundError(request_id)
        return _rows.takeback(row)

    @staticmethod
    async def _pending(tx: Reader, game_id: int) -> TakebackRequest | None:
        row = await tx.one(
            "SELECT * FROM takeback_requests WHERE game_id = ? AND status = ?",
            (game_id, PENDING),
        )
        return None if row is None else _rows.takeback(row)
