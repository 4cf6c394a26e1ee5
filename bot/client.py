"""The discord.py client: wiring storage, the service, cogs, buttons and timers together."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import announce, announce_analysis, announce_tournaments, announce_variants
from bot.cogs import EXTENSIONS
from bot.cogs.boards import board_view
from bot.cogs.common import send_error
from bot.lagwatch import LagWatch, interaction_name
from bot.loops import DueLoop
from bot.service import Clock, GameService, SystemClock, consequences, tournaments, variants
from bot.service.backups import BackupPlan, BackupService
from bot.service.effects import EffectRegistry, EffectRunner, default_owner
from bot.service.engine import STORAGE_ENGINE
from bot.service.inputs import MAX_OPTION_LENGTH, OddTextError, odd_text
from bot.service.offload import SUGGEST_SECONDS, warm_process
from bot.service.opponent import EngineConfig, OpponentService
from bot.service.opponent import install as install_opponent
from bot.service.opponent import install_handler as install_engine_moves
from bot.service.pictures import Pictures, RendererPictures
from bot.service.searchpool import SearchPool
from bot.service.timers import TimerService
from bot.service.tournaments import TournamentService
from bot.ui.format import DEFAULT_MENTIONS, count
from storage import Storage
from storage.db import parse_target
from storage.effects import DEFAULT_LEASE_SECONDS as EFFECT_LEASE_SECONDS
from storage.instance import InstanceLock

log = logging.getLogger("fairypost.client")

POLL_SECONDS = 2.0
"""On PostgreSQL the loops look at the shared database at least this often (`bot.loops`)."""


def intents() -> discord.Intents:
    """Only the guilds intent: slash commands, buttons and threads need nothing else (no
    message content, no members: both privileged and unneeded)."""
    out = discord.Intents.none()
    out.guilds = True
    return out


def _string_options(options: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(name, value) of every string option of a command, subcommands included."""
    out: list[tuple[str, str]] = []
    for option in options:
        if option.get("type") == discord.AppCommandOptionType.string.value:
            value = option.get("value")
            if isinstance(value, str):
                out.append((str(option.get("name")), value))
        out += _string_options(option.get("options") or [])
    return out


def _declared_length(interaction: discord.Interaction[Any], option: str) -> int:
    """The longest text a command's option declares (`Range[str, 1, 2000]`), else the
    default bound of `bot.service.inputs`."""
    command = interaction.command
    if isinstance(command, app_commands.Command):
        parameter = command.get_parameter(option)
        # discord.py keeps a string's declared length as the parameter's max_value.
        if parameter is not None and isinstance(parameter.max_value, int):
            return parameter.max_value
    return MAX_OPTION_LENGTH


class FairyTree(app_commands.CommandTree["FairyPost"]):
    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Odd text (line breaks, control characters, overlong) in any string option of any
        command is refused here, in a sentence, before the command runs (see
        `bot.service.inputs`). Autocomplete is left alone: it only suggests."""
        if interaction.type is not discord.InteractionType.application_command:
            return True
        data: dict[str, Any] = dict(interaction.data or {})
        try:
            for name, value in _string_options(list(data.get("options") or [])):
                odd_text(name, value, _declared_length(interaction, name))
        except OddTextError as exc:
            await send_error(interaction, exc, "command options")
            return False
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        name = interaction.command.qualified_name if interaction.command else "interaction"
        await send_error(interaction, original, f"/{name}")


class FairyPost(commands.AutoShardedBot):
    """The bot. Storage opens in `setup_hook`; everything is closed cleanly in `close`.

    Sharded like every large discord.py bot: without `shard_ids`/`shard_count` one process
    runs every shard Discord recommends; with them (FAIRYPOST_SHARDS) it runs its range and
    other processes run the rest, sharing one PostgreSQL database. Nothing about a game lives
    only in this process: the database guards every change (see storage/README.md)."""

    def __init__(
        self,
        *,
        database: str | Path,
        dev_guild: int | None = None,
        clock: Clock | None = None,
        pictures: Pictures | None = None,
        lease_seconds: int | None = None,
        backups: BackupPlan | None = None,
        engine: EngineConfig | None = None,
        **options: Any,
    ) -> None:
        # Mentions ping users only, never everyone, here or a role (bot/ui/format.py).
        options.setdefault("allowed_mentions", DEFAULT_MENTIONS)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            tree_cls=FairyTree,
            help_command=None,
            **options,
        )
        self.database = database
        self.dev_guild = dev_guild
        self.clock = clock or SystemClock()
        self._pictures = pictures
        self._lease_seconds = lease_seconds
        """How long an effect claimed by this process stays its own without renewal (None:
        the default); what another process waits before taking over the claims of a process
        that hangs (a dead one's are taken over at once on PostgreSQL)."""
        self.engine_config = engine or EngineConfig()
        self._opponent: OpponentService | None = None
        self._pool: SearchPool | None = None
        self.reviews: SearchPool | None = None
        self.lag = LagWatch()
        """/analyze's own worker process (started on the first review), apart from the
        engine's: a ten-minute review neither slows the bot nor holds up its moves."""
        self._engine_loops: list[DueLoop] = []
        self.instance = ""
        self._poll: float | None = None
        self._storage: Storage | None = None
        self._service: GameService | None = None
        self._tournaments: TournamentService | None = None
        self._timers: DueLoop | None = None
        self._effects: DueLoop | None = None
        self._backups: DueLoop | None = None
        self.backup_plan = backups
        self.effect_runner: EffectRunner | None = None
        target = parse_target(database)
        # One bot per SQLite file; several processes may share a PostgreSQL database.
        self._lock = InstanceLock(target.path) if target.path is not None else None

    @property
    def storage(self) -> Storage:
        assert self._storage is not None, "used before setup_hook"
        return self._storage

    @property
    def service(self) -> GameService:
        assert self._service is not None, "used before setup_hook"
        return self._service

    @property
    def tournaments(self) -> TournamentService:
        assert self._tournaments is not None, "used before setup_hook"
        return self._tournaments

    @property
    def opponent(self) -> OpponentService:
        assert self._opponent is not None, "used before setup_hook"
        return self._opponent

    @property
    def timers(self) -> DueLoop:
        assert self._timers is not None, "used before setup_hook"
        return self._timers

    @property
    def effects(self) -> DueLoop:
        """The loop carrying out pending effects; `poke()` it after an event."""
        assert self._effects is not None, "used before setup_hook"
        return self._effects

    async def setup_hook(self) -> None:
        if self._lock is not None:
            self._lock.acquire()
        self._storage = await Storage.open(self.database, engine=STORAGE_ENGINE)
        pictures = self._pictures or RendererPictures()
        self._service = GameService(self._storage, clock=self.clock, pictures=pictures)
        self._service.suggest_seconds = SUGGEST_SECONDS
        self.reviews = SearchPool(1, partner=self.engine_config.fairy_stockfish)
        # The CPU worker process (piece values, sanity runs) starts now, not on the first
        # /piece; kept referenced until it is up.
        self._warming = asyncio.create_task(warm_process())
        # The move tables of the variants in play, off the loop: the first autocomplete of a
        # long game after a restart then answers with its moves (issue 31).
        self._warming_tables = asyncio.create_task(self._service.warm_variants())
        self.lag.start()
        registry = EffectRegistry(self._storage)
        consequences.install(registry, self._service)
        announce.install(registry, self, self._service, board_view)
        variants.install(registry)
        announce_variants.install(registry, self, self._service)
        announce_analysis.install(registry, self, self._service)
        self._tournaments = TournamentService(self._service)
        tournaments.install(registry, self._tournaments)
        announce_tournaments.install(registry, self, self._tournaments)
        # This process's name: its workers' claims are `<instance>/<worker>`, and on
        # PostgreSQL the instance lock it holds tells other processes it is alive.
        self.instance = default_owner()
        shared = self._storage.dialect == "postgresql"
        self._poll = POLL_SECONDS if shared else None
        if shared and not await self._storage.hold_instance(self.instance):
            log.warning("could not take the instance lock: claims wait for their leases")
        runner = EffectRunner(
            registry,
            self.clock,
            owner=f"{self.instance}/effects",
            lease_seconds=self._lease_seconds or EFFECT_LEASE_SECONDS,
        )
        self.effect_runner = runner
        exclusive = self._lock is not None and self._lock.held

        resumed = asyncio.Event()

        async def resume() -> None:
            await self.wait_until_ready()
            try:
                await runner.resume(exclusive=exclusive)
            finally:
                resumed.set()

        storage = self._storage

        async def effects_pass() -> int:
            if shared:
                await storage.hold_instance(self.instance)  # a lost connection is replaced
            return await runner.run_due()

        self._effects = DueLoop(
            "effects",
            effects_pass,
            runner.next_due_at,
            self.clock,
            before_first_pass=resume,
            poll=self._poll,
        )
        self._start_engine(resumed)
        timers = TimerService(self._storage, self.clock)
        effects = self._effects

        async def timer_pass() -> int:
            handled = len(await timers.run_due())
            if handled:
                effects.poke()
            return handled

        async def ready() -> None:
            await self.wait_until_ready()

        self._timers = DueLoop(
            "timers",
            timer_pass,
            timers.next_due_at,
            self.clock,
            before_first_pass=ready,
            poll=self._poll,
        )
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        if self.shard_ids is not None and 0 not in self.shard_ids:
            # Commands are the application's, not a shard's: the process with shard 0
            # registers them, the others would only repeat the same request.
            log.info("slash commands are synced by the process running shard 0")
        elif self.dev_guild is not None:
            guild = discord.Object(self.dev_guild)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("%d slash commands synced (dev guild)", len(synced))
        else:
            synced = await self.tree.sync()
            log.info("%d slash commands synced (global)", len(synced))
        self._timers.start()
        self._effects.start()
        for loop in self._engine_loops:
            loop.start()
        if self.backup_plan is not None and self._lock is not None:
            backups = BackupService(self._lock.database, self.backup_plan, self.clock)
            self._backups = DueLoop("backups", backups.run_due, backups.next_due_at, self.clock)
            self._backups.start()

    def _start_engine(self, resumed: asyncio.Event) -> None:
        """Fairy Post's own engine: its search processes, and runners of their own for the
        engine's moves (one per search process, each running one search at a time), so a
        search never holds up the posts of the effects loop. They start once the effects
        loop has resumed (released the claims of a stopped process, the engine's too)."""
        config = self.engine_config
        self._pool = SearchPool(
            config.workers, table_megabytes=config.table_megabytes, partner=config.fairy_stockfish
        )
        effects = self.effects
        self._opponent = OpponentService(self.service, self._pool, config, moved=effects.poke)
        install_opponent(EffectRegistry(self.storage), self._opponent)
        registry = EffectRegistry(self.storage)
        install_engine_moves(registry, self._opponent)
        opponent = self._opponent
        pool = self._pool
        for number in range(config.workers):
            runner = EffectRunner(
                registry,
                self.clock,
                owner=f"{self.instance}/engine-{number + 1}",
                lease_seconds=self._lease_seconds or EFFECT_LEASE_SECONDS,
                batch=1,
            )

            async def resume(first: bool = number == 0) -> None:
                await resumed.wait()
                if first:
                    try:
                        # The worker started now: the first search's budget counts from
                        # its request and must not go on starting a process.
                        await pool.warm()
                    except BrokenProcessPool:
                        # Stopped while starting (the bot's own stop signals the whole
                        # process group): nothing is lost, a search starts a new one.
                        log.warning("a search worker ended as it started; a search will start one")
                    except Exception:
                        log.exception("the search workers did not start; the first search will")
                    await opponent.resume()

            loop = DueLoop(
                f"engine-{number + 1}",
                runner.run_due,
                runner.next_due_at,
                self.clock,
                before_first_pass=resume,
                poll=self._poll,
            )
            effects.follow(loop)
            self._engine_loops.append(loop)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Every interaction is noted for the loop's watch (a stall names what began)."""
        kinds = {
            discord.InteractionType.autocomplete: "autocomplete",
            discord.InteractionType.component: "component",
            discord.InteractionType.modal_submit: "modal",
        }
        data = dict(interaction.data) if interaction.data else None
        self.lag.began(interaction_name(kinds.get(interaction.type, "command"), data))

    async def on_ready(self) -> None:
        shards = "all shards" if self.shard_ids is None else f"shards {self.shard_ids}"
        log.info(
            "connected as %s to %s (%s of %s, database %s)",
            self.user,
            count(len(self.guilds), "guild"),
            shards,
            self.shard_count,
            self.storage.target,
        )

    async def close(self) -> None:
        """Stop the loops, let in-flight writes finish, close the database, disconnect."""
        for loop in (self._timers, self._effects, self._backups, *self._engine_loops):
            if loop is not None:
                await loop.stop()
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self.reviews is not None:
            self.reviews.close()
            self.reviews = None
        self.lag.stop()
        await super().close()
        if self._storage is not None:
            await self._storage.close()
            self._storage = None
        if self._lock is not None:
            self._lock.release()
