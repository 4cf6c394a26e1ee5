"""A tournament world for the service tests: storage on a database that can be reopened (a
restart), the game and tournament services with every effect rule installed, and an effects
runner whose posts go to a stand-in for Discord that keeps each message once (a repeated
nonce hands back the first message, as Discord does).

`World.crash_at(point)` makes the process "die" at a named crash point (the boundaries of
`storage.crashpoints`): `Killed` is raised there, nothing after it runs, and the test
restarts the world on the same database, as the SIGKILL harness does with a real process.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from bot.service import GameService, ManualClock, consequences, tournaments
from bot.service.effects import EffectRegistry, EffectRun, EffectRunner
from bot.service.engine import STORAGE_ENGINE
from bot.service.models import UserRef
from bot.service.timers import TimerService
from bot.service.tournaments import TournamentService
from storage import Storage
from storage.models import EffectStatus

GUILD, CHANNEL = 900, 901
ORGANISER = UserRef(200, "Org")
CRASH_MODULES = (
    "bot.service.effects",
    "bot.service.games",
    "bot.service.timers",
    "bot.service.tournaments",
)


def people(n: int) -> list[UserRef]:
    return [UserRef(300 + i, f"p{i}") for i in range(1, n + 1)]


class Killed(BaseException):
    """The process died here (a BaseException: nothing in the code under test catches it)."""


@dataclass
class Discord:
    """Messages as Discord would keep them: one per nonce."""

    messages: list[tuple[str, int | None, str]] = field(default_factory=list)
    by_nonce: dict[str, int] = field(default_factory=dict)
    repeats: int = 0

    async def post(self, run: EffectRun) -> None:
        effect = run.effect
        payload = {k: v for k, v in effect.payload.items() if k not in ("by",)}
        what = (effect.kind, effect.game_id, json.dumps(payload, sort_keys=True))

        async def send(nonce: str) -> tuple[int, int]:
            if nonce in self.by_nonce:
                self.repeats += 1
                return 1, self.by_nonce[nonce]
            self.messages.append(what)
            self.by_nonce[nonce] = len(self.messages)
            return 1, len(self.messages)

        await run.post(send)

    def counts(self) -> Counter[tuple[str, int | None, str]]:
        return Counter(self.messages)

    def of_kind(self, kind: str) -> list[tuple[str, int | None, str]]:
        return [m for m in self.messages if m[0] == kind]


class World:
    """Storage, services and the effects runner over one database, reopened at will."""

    def __init__(self, target: str, clock: ManualClock | None = None) -> None:
        self.target = target
        self.clock = clock or ManualClock()
        self.discord = Discord()
        self.restarts = 0
        self._armed: str | None = None
        self.killed_at: list[str] = []

    async def open(self) -> None:
        self.storage = await Storage.open(self.target, engine=STORAGE_ENGINE, rng=random.Random(1))
        self.games = GameService(self.storage, clock=self.clock)
        self.tournaments = TournamentService(self.games, rng=random.Random(2))
        self.timers = TimerService(self.storage, self.clock)
        registry = EffectRegistry(self.storage)
        consequences.install(registry, self.games)
        tournaments.install(registry, self.tournaments)
        for kind in (*consequences.GAME_POSTS, consequences.NOTICE):
            registry.register(kind, self._game_post)
        registry.register(consequences.REPLAY, self.discord.post)
        for kind in (*tournaments.POSTS, tournaments.GAME):
            registry.register(kind, self._tournament_post)
        self.runner = EffectRunner(registry, self.clock, owner=f"process-{self.restarts}")
        await self.runner.resume(exclusive=True)

    async def _game_post(self, run: EffectRun) -> None:
        """What the Discord layer does first: read what to show (may find it stale)."""
        if run.effect.kind == consequences.NOTICE:
            if await consequences.notice(self.games, run) is None:
                return
        elif await consequences.game_event(self.games, run) is None:
            return
        await self.discord.post(run)

    async def _tournament_post(self, run: EffectRun) -> None:
        tid = tournaments.tournament_of(run)
        await self.tournaments.table(tid)  # what every post of the thread shows
        await self.discord.post(run)

    async def close(self) -> None:
        await self.storage.close()

    async def restart(self) -> None:
        """A new process on the same database: claims of the dead one are released."""
        await self.storage.close()
        self.restarts += 1
        await self.open()

    # --- crashes ---------------------------------------------------------------------------

    def install_crashes(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def crashpoint(name: str) -> None:
            if self._armed is not None and name == self._armed:
                self._armed = None
                self.killed_at.append(name)
                raise Killed(name)

        for module in CRASH_MODULES:
            monkeypatch.setattr(f"{module}.crashpoint", crashpoint)

    def crash_at(self, point: str | None) -> None:
        self._armed = point

    async def do(self, action: Callable[[], Awaitable[object]]) -> None:
        """Runs an action and everything it sets off; if the process is killed on the way,
        restarts and carries out what is left."""
        try:
            await action()
            await self.runner.run_due()
        except Killed:
            await self.restart()
            await self.runner.run_due()

    async def settle(self) -> None:
        await self.do(self.runner.run_due)

    # --- reading -----------------------------------------------------------------------------

    async def running_games(self, tid: int) -> list[int]:
        return [
            b.game_id
            for b in await self.storage.tournaments.pairings(tid)
            if b.game is not None and b.game.is_active and b.game_id is not None
        ]

    async def effects_by_status(self) -> Counter[EffectStatus]:
        return Counter(e.status for e in await self.storage.effects.find(limit=10_000))

    async def outcome(self, tid: int) -> dict[str, object]:
        """Everything a player could see of the tournament, to compare two runs."""
        boards = await self.storage.tournaments.pairings(tid)
        async with self.storage._db.transaction(write=False) as tx:
            ratings = await tx.all(
                "SELECT game_id, user_id, score, rating_after FROM rating_history "
                "ORDER BY game_id, user_id"
            )
        t = await self.storage.tournaments.get(tid)
        table = await self.tournaments.table(tid)
        return {
            "status": (t.status, t.current_round, t.rounds),
            "boards": [
                (
                    b.round,
                    b.board,
                    b.white_id,
                    b.black_id,
                    b.game_id,
                    b.white_points,
                    b.black_points,
                    None if b.game is None else (b.game.status, b.game.result, b.game.rated),
                )
                for b in boards
            ],
            "ratings": [(r[0], r[1], round(r[2], 6), round(r[3], 6)) for r in ratings],
            "standings": table.text,
            "posts": self.discord.counts(),
        }
