"""`Storage`: the one object the bot holds, opening the database and grouping repositories."""

from __future__ import annotations

import random
from pathlib import Path
from types import TracebackType

from storage import migrate as migrations
from storage.apply import GameWriter
from storage.backup import backup_database
from storage.challenges import Challenges
from storage.conditional import Conditionals
from storage.db import DEFAULT_BUSY_TIMEOUT_MS, Database, Target, connect
from storage.effects import Effects
from storage.engine import Engine
from storage.errors import InvalidValueError
from storage.games import Games
from storage.offers import DrawOffers, OfferPosts, Takebacks
from storage.players import Guilds, Players
from storage.ratings import Ratings
from storage.sqlite import SqliteDatabase
from storage.timers import Timers
from storage.tournaments import Tournaments
from storage.vacations import Vacations
from storage.variants import GuildVariants


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
        self.writer = GameWriter(db)
        """Runs the guarded writes of games (`storage.apply`)."""
        self.games = Games(db, engine, self.writer)
        self.draws = DrawOffers(db, self.writer)
        self.takebacks = Takebacks(db, engine, self.writer)
        self.offer_posts = OfferPosts(db)
        self.ratings = Ratings(db)
        self.timers = Timers(db)
        self.vacations = Vacations(db)
        self.tournaments = Tournaments(db, engine)
        self.effects = Effects(db)
        self.variants = GuildVariants(db)
        self.conditional = Conditionals(db, self.writer)

    @classmethod
    async def open(
        cls,
        target: str | Path | Target,
        *,
        engine: Engine | None = None,
        rng: random.Random | None = None,
        create: bool = True,
        migrate: bool = True,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
    ) -> Storage:
        """Opens (and with `create`, creates) the database and brings its schema up to date.
        `target` is a SQLite file path (or `sqlite:///path`) or a `postgresql://` URL.
        With `migrate=False` a database that is not exactly current is refused instead.
        A database newer than this code is always refused (`SchemaTooNewError`)."""
        db = await connect(target, create=create, busy_timeout_ms=busy_timeout_ms)
        try:
            if migrate:
                await migrations.migrate(db)
            else:
                await migrations.ensure_current(db)
        except BaseException:
            await db.close()
            raise
        return cls(db, engine, rng or random.SystemRandom())

    async def hold_instance(self, name: str) -> bool:
        """This process runs as `name` (the prefix of its workers' owner names): on
        PostgreSQL a lock that other processes can see is held while it lives, so what it
        claimed is taken over at once when it dies (`Effects.release_dead`). Call it again
        now and then: a lost connection is replaced. True when held."""
        return await self._db.hold_instance(name)

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
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self._db.dialect

    @property
    def target(self) -> str:
        """The database as an operator names it: the file, or the URL without password."""
        return self._db.target

    @property
    def path(self) -> Path:
        """The SQLite file (refused for PostgreSQL, which has no file of its own)."""
        if not isinstance(self._db, SqliteDatabase):
            raise InvalidValueError(f"{self._db.target} is a PostgreSQL database, not a file")
        return self._db.path

    async def schema_version(self) -> int:
        return await self._db.schema_version()

    async def integrity_check(self) -> list[str]:
        """`["ok"]` or the problems the database found in its own files."""
        return await self._db.integrity_check()

    async def foreign_key_check(self) -> list[tuple[str, int | None, str]]:
        """Rows whose foreign keys point nowhere: (table, rowid, referenced table)."""
        return await self._db.foreign_key_check()

    async def backup(self, target: str | Path) -> None:
        """A consistent copy of the database at `target`, taken while the store stays open
        (SQLite; for PostgreSQL use pg_dump, see docs/deploy.md)."""
        await backup_database(self.path, Path(target))
