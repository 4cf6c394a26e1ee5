"""`Storage`: the one object the bot holds, opening the database and grouping repositories."""

from __future__ import annotations

import random
from pathlib import Path
from types import TracebackType

from storage import migrate as migrations
from storage.backup import backup_database
from storage.challenges import Challenges
from storage.db import DEFAULT_BUSY_TIMEOUT_MS, Database
from storage.engine import Engine
from storage.games import Games
from storage.offers import DrawOffers, Takebacks
from storage.players import Guilds, Players
from storage.ratings import Ratings
from storage.timers import Timers
from storage.vacations import Vacations


class Storage:
    """An open Fairy Post database.

    `engine` is used to verify cached positions after a rules engine upgrade and is stamped on
    every position written; without one, games are stamped "unknown" and verified on the
    first load by a store that has one. `rng` decides random colours (tests pass a seeded one).
    """

    def __init__(self, db: Database, engine: Engine | None, rng: random.Random) -> None:
        self._db = db
        self.engine = engine
        self.players = Players(db)
        self.guilds = Guilds(db)
        self.challenges = Challenges(db, engine, rng)
        self.games = Games(db, engine)
        self.draws = DrawOffers(db)
        self.takebacks = Takebacks(db, engine)
        self.ratings = Ratings(db)
        self.timers = Timers(db)
        self.vacations = Vacations(db)

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        engine: Engine | None = None,
        rng: random.Random | None = None,
        create: bool = True,
        migrate: bool = True,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ) -> Storage:
        """Opens (and with `create`, creates) the database and brings its schema up to date.
        With `migrate=False` a database that is not exactly current is refused instead.
        A database newer than this code is always refused (`SchemaTooNewError`)."""
        db = await Database.connect(path, create=create, busy_timeout_ms=busy_timeout_ms)
        try:
            async with db.exclusive() as conn:
                if migrate:
                    await migrations.migrate(conn)
                else:
                    await migrations.ensure_current(conn)
        except BaseException:
            await db.close()
            raise
        return cls(db, engine, rng or random.SystemRandom())

    async def close(self) -> None:
        """Waits for the transaction in flight, then closes the connection."""
        await self._db.close()

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def path(self) -> Path:
        return self._db.path

    async def schema_version(self) -> int:
        async with self._db.exclusive() as conn:
            return await migrations.schema_version(conn)

    async def integrity_check(self) -> list[str]:
        """SQLite's full integrity check: `["ok"]` or the problems it found."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all("PRAGMA integrity_check")
        return [str(row[0]) for row in rows]

    async def foreign_key_check(self) -> list[tuple[str, int | None, str]]:
        """Rows whose foreign keys point nowhere: (table, rowid, referenced table)."""
        async with self._db.transaction(write=False) as tx:
            rows = await tx.all("PRAGMA foreign_key_check")
        return [(str(row[0]), row[1], str(row[2])) for row in rows]

    async def backup(self, target: str | Path) -> None:
        """A consistent copy of the database at `target`, taken while the store stays open."""
        await backup_database(self._db.path, Path(target))
