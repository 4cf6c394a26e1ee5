"""Players' own variants: definitions stored once by digest, a guild's variants by id with
every version kept, and the games each has had.

A definition's text is validated by the rules engine before it gets here; storage keeps it
as text, under the SHA-256 the caller computed, and never interprets it. Defining and deleting
are compare-and-set on the version the caller saw, so two authors (or two processes) cannot
overwrite each other unknowingly.
"""

from __future__ import annotations

import secrets

from storage import _rows, _shared
from storage.db import Database, Row, Tx
from storage.errors import InvalidValueError, VariantChangedError
from storage.models import EventKind, GuildVariant, StorageEvent, VariantShare, VariantVersion

MAX_DEFINITION = 32 * 1024
SHARE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
"""A share code's letters: no 0/o, 1/l/i to misread when a code is typed from a screen."""
SHARE_CODE_LENGTH = 10
"""31**10 (about 8 * 10**14) codes: a random guess finds nothing."""


def new_share_code() -> str:
    return "".join(secrets.choice(SHARE_ALPHABET) for _ in range(SHARE_CODE_LENGTH))


def _share(row: Row) -> VariantShare:
    return VariantShare(
        code=row["code"],
        guild_id=row["guild_id"],
        variant_id=row["variant_id"],
        version=row["version"],
        digest=row["digest"],
        name=row["name"],
        author_id=row["author_id"],
        shared_by=row["shared_by"],
        created_at=row["created_at"],
        imports=row["imports"],
    )


def _variant(row: Row) -> GuildVariant:
    return GuildVariant(
        guild_id=row["guild_id"],
        variant_id=row["variant_id"],
        version=row["version"],
        digest=row["digest"],
        name=row["name"],
        author_id=row["author_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        deleted_at=row["deleted_at"],
        origin_code=row["origin_code"],
    )


class GuildVariants:
    """Obtain it as `Storage.variants`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def define(
        self,
        guild_id: int,
        variant_id: str,
        *,
        name: str,
        content: str,
        digest: str,
        author_id: int,
        expected_version: int,
        now: int,
        channel_id: int | None = None,
        origin_code: str | None = None,
    ) -> GuildVariant:
        """Stores `content` as the next version of the guild's variant (version 1 for a new
        id), with its `VARIANT_DEFINED` event (its effects: the announcement in `channel_id`).
        `expected_version` is the version the caller saw (0 when the id was unknown);
        another definition or deletion in between raises `VariantChangedError`. The same
        text as the current version is no new version: the current one is returned as it
        is, and nothing else happens. `origin_code`: the share this definition is imported
        from (its import count goes up in the same transaction); a new version defined here
        keeps the variant's origin, unless it was deleted (a new variant under the old id)."""
        _rows.check_text("the variant id", variant_id, max_len=32)
        _rows.check_text("the variant name", name, max_len=60)
        _rows.check_text("the definition", content, max_len=MAX_DEFINITION)
        if len(digest) != 64:
            raise InvalidValueError("a definition digest is 64 hexadecimal digits")
        async with self._db.transaction() as tx:
            await _shared.ensure_players(tx, [author_id], now)
            await tx.run(
                "INSERT INTO variant_definitions (digest, content, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT (digest) DO NOTHING",
                (digest, content, now),
            )
            current = await self._fetch(tx, guild_id, variant_id, lock=True)
            seen = current.version if current else 0
            if current is not None and not current.deleted and current.digest == digest:
                return current
            if seen != expected_version:
                raise VariantChangedError(variant_id, expected_version, seen)
            version = seen + 1
            if current is None:
                inserted = await tx.run(
                    "INSERT INTO guild_variants (guild_id, variant_id, version, digest, name, "
                    "author_id, created_at, updated_at, origin_code) "
                    "VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (guild_id, variant_id) DO NOTHING",
                    (guild_id, variant_id, digest, name, author_id, now, now, origin_code),
                )
                if inserted != 1:  # another process defined the same new id first
                    raise VariantChangedError(variant_id, expected_version, 1)
            else:
                owner = author_id if current.deleted else current.author_id
                origin = origin_code or (None if current.deleted else current.origin_code)
                await tx.run(
                    "UPDATE guild_variants SET version = ?, digest = ?, name = ?, author_id = ?, "
                    "updated_at = greatest(updated_at, ?), deleted_at = NULL, origin_code = ? "
                    "WHERE guild_id = ? AND variant_id = ? AND version = ?",
                    (version, digest, name, owner, now, origin, guild_id, variant_id, seen),
                )
            if origin_code is not None:
                await tx.run(
                    "UPDATE variant_shares SET imports = imports + 1 WHERE code = ?",
                    (origin_code,),
                )
            await tx.run(
                "INSERT INTO guild_variant_versions (guild_id, variant_id, version, digest, "
                "author_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (guild_id, variant_id, version, digest, author_id, now),
            )
            found = await self._fetch(tx, guild_id, variant_id)
            assert found is not None
            tx.emit(
                StorageEvent(
                    EventKind.VARIANT_DEFINED,
                    now,
                    variant=found,
                    actor_id=author_id,
                    channel_id=channel_id,
                )
            )
            return found

    async def delete(
        self, guild_id: int, variant_id: str, *, expected_version: int, now: int
    ) -> GuildVariant:
        """Takes the variant off the guild's list; its definitions stay (games pin them)."""
        async with self._db.transaction() as tx:
            current = await self._fetch(tx, guild_id, variant_id, lock=True)
            seen = current.version if current and not current.deleted else 0
            if current is None or seen != expected_version:
                raise VariantChangedError(variant_id, expected_version, seen)
            await tx.run(
                "UPDATE guild_variants SET deleted_at = ?, updated_at = greatest(updated_at, ?) "
                "WHERE guild_id = ? AND variant_id = ? AND version = ?",
                (now, now, guild_id, variant_id, seen),
            )
            found = await self._fetch(tx, guild_id, variant_id)
            assert found is not None
            return found

    async def get(self, guild_id: int, variant_id: str) -> GuildVariant | None:
        """The variant, deleted or not (`GuildVariant.deleted`); None if never defined."""
        async with self._db.transaction(write=False) as tx:
            return await self._fetch(tx, guild_id, variant_id)

    async def in_guild(self, guild_id: int) -> list[GuildVariant]:
        """The guild's variants that are not deleted, by id."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM guild_variants WHERE guild_id = ? AND deleted_at IS NULL "
                "ORDER BY variant_id",
                (guild_id,),
            )
        return [_variant(row) for row in rows]

    async def definition(self, digest: str | None) -> str | None:
        """The text of a definition by its digest (None for None or an unknown digest)."""
        async with self._db.transaction(write=False) as tx:
            return await _shared.definition_of(tx, digest)

    async def versions(self, guild_id: int, variant_id: str) -> list[VariantVersion]:
        """Every version of the variant, oldest first."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM guild_variant_versions WHERE guild_id = ? AND variant_id = ? "
                "ORDER BY version",
                (guild_id, variant_id),
            )
        return [
            VariantVersion(
                row["guild_id"],
                row["variant_id"],
                row["version"],
                row["digest"],
                row["author_id"],
                row["created_at"],
            )
            for row in rows
        ]

    async def share(
        self, guild_id: int, variant_id: str, *, shared_by: int, now: int
    ) -> VariantShare:
        """The share of the variant's current version: made now under a new random code, or
        the one made before for that version. `VariantChangedError` if the variant does not
        exist (or is deleted)."""
        async with self._db.transaction() as tx:
            await _shared.ensure_players(tx, [shared_by], now)
            current = await self._fetch(tx, guild_id, variant_id, lock=True)
            if current is None or current.deleted:
                raise VariantChangedError(variant_id, 1, 0)
            found = await tx.one(
                "SELECT * FROM variant_shares WHERE guild_id = ? AND variant_id = ? "
                "AND version = ?",
                (guild_id, variant_id, current.version),
            )
            if found is not None:
                return _share(found)
            author = await tx.scalar(
                "SELECT author_id FROM guild_variant_versions WHERE guild_id = ? "
                "AND variant_id = ? AND version = ?",
                (guild_id, variant_id, current.version),
            )
            while True:  # a clash of random codes is astronomically rare: draw again
                code = new_share_code()
                inserted = await tx.run(
                    "INSERT INTO variant_shares (code, guild_id, variant_id, version, digest, "
                    "name, author_id, shared_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (code) DO NOTHING",
                    (
                        code,
                        guild_id,
                        variant_id,
                        current.version,
                        current.digest,
                        current.name,
                        int(author),
                        shared_by,
                        now,
                    ),
                )
                if inserted == 1:
                    break
            row = await tx.one("SELECT * FROM variant_shares WHERE code = ?", (code,))
            assert row is not None
            return _share(row)

    async def shared(self, code: str) -> VariantShare | None:
        """The share under `code` (exactly as stored: lower case, no separators)."""
        async with self._db.transaction(write=False) as tx:
            row = await tx.one("SELECT * FROM variant_shares WHERE code = ?", (code,))
        return None if row is None else _share(row)

    async def most_imported(self, limit: int = 10) -> list[VariantShare]:
        """Shares imported at least once, the most imported first (the gallery)."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT * FROM variant_shares WHERE imports > 0 "
                "ORDER BY imports DESC, created_at, code LIMIT ?",
                (limit,),
            )
        return [_share(row) for row in rows]

    async def games_played(self, guild_id: int) -> dict[str, int]:
        """Games of the guild's own variants (finished or not), by variant key."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all(
                "SELECT variant_id, count(*) AS n FROM games WHERE guild_id = ? "
                "AND definition_digest IS NOT NULL GROUP BY variant_id",
                (guild_id,),
            )
        return {str(row["variant_id"]): int(row["n"]) for row in rows}

    async def _fetch(
        self, tx: Tx, guild_id: int, variant_id: str, *, lock: bool = False
    ) -> GuildVariant | None:
        row = await tx.one(
            "SELECT * FROM guild_variants WHERE guild_id = ? AND variant_id = ?"
            + (tx.for_update if lock else ""),
            (guild_id, variant_id),
        )
        return None if row is None else _variant(row)
