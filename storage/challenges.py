"""Challenges: open or addressed, accepted by exactly one player, or declined, cancelled or
expired. Acceptance creates the game in the same transaction, so there is never an accepted
challenge without its game."""

from __future__ import annotations

import random
from collections.abc import Sequence

from storage import _rows, _shared
from storage.db import Database, Reader, Tx
from storage.engine import UNKNOWN_ENGINE_VERSION, Engine
from storage.errors import (
    ChallengeExpiredError,
    ChallengeNotFoundError,
    ChallengeNotOpenError,
    InvalidValueError,
    NotAddressedToYouError,
    OwnChallengeError,
    RefusedError,
)
from storage.games import insert_game
from storage.models import (
    Challenge,
    ChallengeStatus,
    Color,
    ColorChoice,
    EventKind,
    Game,
    NewChallenge,
    NewGame,
    StorageEvent,
)

_SELECT = "SELECT c.*, g.id AS game_id FROM challenges c LEFT JOIN games g ON g.challenge_id = c.id"
MAX_TTL_SECONDS = 30 * 86_400


class Challenges:
    """Obtain it as `Storage.challenges`."""

    def __init__(self, db: Database, engine: Engine | None, rng: random.Random) -> None:
        self._db = db
        self._engine = engine
        self._rng = rng

    async def create(self, new: NewChallenge, now: int) -> Challenge:
        _rows.check_text("the variant id", new.variant_id, max_len=64)
        _rows.check_clock(new.clock)
        if new.opponent_id == new.challenger_id:
            raise InvalidValueError("you cannot challenge yourself")
        if not 60 <= new.ttl_seconds <= MAX_TTL_SECONDS:
            raise InvalidValueError("a challenge must stay open between a minute and 30 days")
        options = _rows.options_json(new.options)
        async with self._db.transaction() as tx:
            players = [new.challenger_id] + ([new.opponent_id] if new.opponent_id else [])
            await _shared.ensure_players(tx, players, now)
            challenge_id = await tx.insert(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                "variant_id, options, color, move_seconds, bank_cap_seconds, rated, "
                "created_at, expires_at, definition_digest) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    new.guild_id,
                    new.channel_id,
                    new.challenger_id,
                    new.opponent_id,
                    new.variant_id,
                    options,
                    new.color.value,
                    new.clock.move_seconds,
                    new.clock.bank_cap_seconds,
                    int(new.rated),
                    now,
                    now + new.ttl_seconds,
                    new.definition_digest,
                ),
            )
            return await self._fetch(tx, challenge_id)

    async def get(self, challenge_id: int) -> Challenge:
        return await self._fetch(self._db, challenge_id)

    async def set_message(self, challenge_id: int, message_id: int | None) -> Challenge:
        """Records the message carrying the challenge's buttons."""
        async with self._db.transaction() as tx:
            await self._fetch(tx, challenge_id)
            await tx.run(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )
            return await self._fetch(tx, challenge_id)

    async def accept(
        self,
        challenge_id: int,
        user_id: int,
        now: int,
        *,
        start_position: str,
        options: Sequence[str] | None = None,
        first: Color = Color.WHITE,
    ) -> tuple[Challenge, Game]:
        """`user_id` accepts; of any number of concurrent acceptors exactly one wins, the
        others get `ChallengeNotOpenError`. The game is created in the same transaction
        with `start_position` (the rules engine's start for the variant and options), in
        the challenge's channel, with no thread yet (`Games.set_thread`). `options`: the
        game's, when acceptance added one (a random setup's drawn array), else the
        challenge's. `first`: the side to move in `start_position`, whose turn starts."""
        accepted: tuple[Challenge, Game] | None = None
        async with self._db.transaction() as tx:
            challenge = await self._fetch(tx, challenge_id)
            if challenge.status is ChallengeStatus.OPEN and now >= challenge.expires_at:
                # Committed before raising: the expiry is a fact, whoever noticed it.
                await self._expire(tx, challenge, now)
            else:
                self._check_acceptor(challenge, user_id)
                await _shared.ensure_players(tx, [user_id], now)
                await self._resolve(tx, challenge, ChallengeStatus.ACCEPTED, user_id, now)
                challenger_white = challenge.color is ColorChoice.WHITE or (
                    challenge.color is ColorChoice.RANDOM and self._rng.random() < 0.5
                )
                white, black = (
                    (challenge.challenger_id, user_id)
                    if challenger_white
                    else (user_id, challenge.challenger_id)
                )
                new = NewGame(
                    guild_id=challenge.guild_id,
                    channel_id=challenge.channel_id,
                    white_id=white,
                    black_id=black,
                    variant_id=challenge.variant_id,
                    start_position=start_position,
                    options=challenge.options if options is None else tuple(options),
                    rated=challenge.rated,
                    clock=challenge.clock,
                    message_id=challenge.message_id,
                    challenge_id=challenge.id,
                    definition_digest=challenge.definition_digest,
                    first=first,
                )
                version = self._engine.version if self._engine else UNKNOWN_ENGINE_VERSION
                game_id = await insert_game(tx, new, now, version)
                accepted = (
                    await self._fetch(tx, challenge_id),
                    await _shared.fetch_game(tx, game_id),
                )
        if accepted is None:
            raise ChallengeExpiredError(challenge_id)
        return accepted

    async def decline(self, challenge_id: int, user_id: int, now: int) -> Challenge:
        """The addressed opponent declines; the challenger declining cancels."""
        async with self._db.transaction() as tx:
            challenge = await self._fetch_open(tx, challenge_id, now)
            if user_id == challenge.challenger_id:
                status = ChallengeStatus.CANCELLED
            elif challenge.opponent_id == user_id:
                status = ChallengeStatus.DECLINED
            else:
                raise NotAddressedToYouError(user_id)
            await self._resolve(tx, challenge, status, user_id, now)
            return await self._fetch(tx, challenge_id)

    async def cancel(self, challenge_id: int, user_id: int, now: int) -> Challenge:
        """Only the challenger may withdraw a challenge."""
        async with self._db.transaction() as tx:
            challenge = await self._fetch_open(tx, challenge_id, now)
            if user_id != challenge.challenger_id:
                raise RefusedError("only the challenger can cancel a challenge")
            await self._resolve(tx, challenge, ChallengeStatus.CANCELLED, user_id, now)
            return await self._fetch(tx, challenge_id)

    async def list_open(
        self, *, guild_id: int | None = None, user_id: int | None = None
    ) -> list[Challenge]:
        """Open challenges, oldest first; `user_id` keeps those they made or received."""
        clauses = ["c.status = 'open'"]
        params: list[object] = []
        if guild_id is not None:
            clauses.append("c.guild_id = ?")
            params.append(guild_id)
        if user_id is not None:
            clauses.append("(c.challenger_id = ? OR c.opponent_id = ?)")
            params += [user_id, user_id]
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(f"{_SELECT} WHERE {' AND '.join(clauses)} ORDER BY c.id", params)
        return [_rows.challenge(row) for row in rows]

    async def expire_due(self, now: int, *, limit: int = 100) -> list[Challenge]:
        """Marks up to `limit` open challenges whose time is up as expired and returns them,
        so the bot can update their messages. Each is returned by exactly one call: the rows
        are taken `FOR UPDATE SKIP LOCKED` (another process's are left to it)."""
        _rows.check_positive("the limit", limit)
        async with self._db.transaction() as tx:
            rows = await tx.all(
                "SELECT id FROM challenges WHERE status = 'open' AND expires_at <= ? "
                f"ORDER BY id LIMIT ?{tx.skip_locked}",
                (now, limit),
            )
            out = []
            for row in rows:
                out.append(await self._expire(tx, await self._fetch(tx, int(row[0])), now))
            return out

    async def _expire(self, tx: Tx, challenge: Challenge, now: int) -> Challenge:
        await self._resolve(tx, challenge, ChallengeStatus.EXPIRED, None, now)
        expired = await self._fetch(tx, challenge.id)
        tx.emit(StorageEvent(EventKind.CHALLENGE_EXPIRED, now, challenge=expired))
        return expired

    @staticmethod
    def _check_acceptor(challenge: Challenge, user_id: int) -> None:
        if challenge.status is not ChallengeStatus.OPEN:
            raise ChallengeNotOpenError(challenge.id, challenge.status.value)
        if user_id == challenge.challenger_id:
            raise OwnChallengeError()
        if challenge.opponent_id is not None and challenge.opponent_id != user_id:
            raise NotAddressedToYouError(user_id)

    @staticmethod
    async def _resolve(
        tx: Tx, challenge: Challenge, status: ChallengeStatus, by: int | None, now: int
    ) -> None:
        changed = await tx.run(
            "UPDATE challenges SET status = ?, resolved_at = ?, resolved_by = ? "
            "WHERE id = ? AND status = 'open'",
            (status.value, now, by, challenge.id),
        )
        if changed != 1:  # pragma: no cover - checked under the same write lock
            raise ChallengeNotOpenError(challenge.id, "answered")

    @staticmethod
    async def _fetch(tx: Reader, challenge_id: int) -> Challenge:
        row = await tx.one(f"{_SELECT} WHERE c.id = ?", (challenge_id,))
        if row is None:
            raise ChallengeNotFoundError(challenge_id)
        return _rows.challenge(row)

    async def _fetch_open(self, tx: Tx, challenge_id: int, now: int) -> Challenge:
        """The challenge, refused unless open; one past its expiry is expired first (the
        expiry commits, then `ChallengeExpiredError` is raised)."""
        challenge = await self._fetch(tx, challenge_id)
        if challenge.status is ChallengeStatus.OPEN and now >= challenge.expires_at:
            await self._expire(tx, challenge, now)
            error = ChallengeExpiredError(challenge_id)
            error.keeps_transaction = True
            raise error
        if challenge.status is not ChallengeStatus.OPEN:
            raise ChallengeNotOpenError(challenge_id, challenge.status.value)
        return challenge
