"""Fairy Post as an opponent: games against its own engine (`search/`), without Discord.

A game against the engine is an ordinary game whose `engine_id` is the bot's own user and
`engine_level` its level; everything else (moves, clocks, posts, endings) is the same code
as between people. What this module adds:

- `challenge`: the game starts at once (the engine needs no asking), always unrated (see the
  README: an engine's rating would mean nothing in the players' pool);
- the effect rule `on_turn`: whenever an event leaves the engine to move (the start with the
  engine as White, a move, a takeback), an `engine.move` effect is recorded in the event's
  own transaction, one per game revision (its dedupe key), in a queue of its own per game so
  a search never holds up the game's posts; `resume` records any that are missing at
  start-up (the key makes that idempotent);
- the handler `play_engine_move`: searches in the process pool (`searchpool.py`) within the
  level's budget and the game's clock, waits out the rest of a short human pause, and plays
  the move through `GameService.play`, guarded by the ply and the revision it was asked
  for, so a repeated effect or a stale search can never play twice or into another
  position. While it waits it watches the game: an ending or a takeback stops the search;
- Fairy-Stockfish as a partner: with FAIRYPOST_FAIRY_STOCKFISH set, the strongest level's
  moves are asked of it in every variant its variants.ini can say (`search.partner`), of
  Fairy Post's own engine everywhere else; `engine_for` says which one plays a game;
- `offer_draw` and `request_takeback`: the engine answers at once (a draw only when the
  position is really drawn, `search.play.accepts_draw`; a takeback always, the game being
  unrated).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from bot.service import limits
from bot.service.effects import EffectRegistry, EffectRun, GiveUp
from bot.service.errors import BadRequestError, ServiceError
from bot.service.games import GameService, parse_color
from bot.service.models import EndResult, GameView, OfferView, UserRef
from bot.service.searchpool import SearchJob, SearchPool
from rules.game import Game as RulesGame
from rules.variant import Variant
from search.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL, level
from storage.errors import GameNotFoundError, StorageError
from storage.models import Color, ColorChoice, EventKind, Game, NewEffect, NewGame, StorageEvent

log = logging.getLogger("fairypost.opponent")

ENGINE_MOVE = "engine.move"
DEFAULT_PAUSE = 2.0
"""Seconds: the engine never answers sooner than this after it was asked (a human pause)."""
CLOCK_SHARE = 0.1
"""At most this share of the time left on its clock goes to one move."""
MIN_MOVETIME = 0.2
PREPARED_AT_START = 8
"""Variants whose tables the engine's workers build at start-up, at most (a worker keeps the
evaluation tables of 16)."""
REPLIES_KEPT = 1000
"""Reply times remembered for logs and benchmarks."""


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """FAIRYPOST_ENGINE_WORKERS (search processes) and FAIRYPOST_ENGINE_PAUSE_MS."""

    workers: int = 1
    pause: float = DEFAULT_PAUSE
    table_megabytes: int = 16
    nodes: int | None = None
    """Caps every level's node budget (tests and benchmarks; None: the level's own)."""
    movetime: float | None = None
    """Caps every level's time in seconds, the partner's too (tests; None: the level's)."""
    fairy_stockfish: str | None = None
    """FAIRYPOST_FAIRY_STOCKFISH: the partner's executable for the strongest level and the
    reviews (None: Fairy Post's own engine everywhere)."""


def partner_plays(number: int) -> bool:
    """Whether the partner, where there is one, plays level `number`: the strongest only
    (the others are Fairy Post's engine, weakened on purpose)."""
    return number == MAX_LEVEL


def on_turn(event: StorageEvent) -> list[NewEffect]:
    """The engine is to move after this event: its move is owed, once per revision."""
    game = event.game
    if game is None or not game.engine_to_move:
        return []
    return [
        NewEffect(
            ENGINE_MOVE,
            {"ply": game.ply_count, "revision": game.revision},
            game.id,
            queue=f"engine:{game.id}",
            dedupe_key=f"{ENGINE_MOVE}:{game.id}:{game.revision}",
        )
    ]


def engine_effect(game: Game) -> list[NewEffect]:
    return on_turn(StorageEvent(EventKind.MOVE_PLAYED, 0, game=game))


class OpponentService:
    """Games against the engine: starting them, its moves, its answers to offers."""

    def __init__(
        self,
        games: GameService,
        pool: SearchPool,
        config: EngineConfig | None = None,
        *,
        moved: Callable[[], None] | None = None,
    ) -> None:
        self.games = games
        self.storage = games.storage
        self.pool = pool
        self.config = config or EngineConfig()
        self.moved = moved
        """Called after the engine played (the bot pokes its effects loop)."""
        self.replies: deque[float] = deque(maxlen=REPLIES_KEPT)
        """Seconds from being asked to the move, for logs and benchmarks (the latest only:
        the bot runs for months)."""

    # ------------------------------------------------------------------ starting a game

    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger: UserRef,
        engine: UserRef,
        variant: str,
        level_number: int | None = None,
        color: str = "random",
        days_per_move: int | None = None,
        rated: bool | None = None,
        options: str = "",
        bank: bool = False,
    ) -> GameView:
        """A game against the engine (the bot's user `engine`), started at once."""
        number = DEFAULT_LEVEL if level_number is None else level_number
        if not MIN_LEVEL <= number <= MAX_LEVEL:
            raise BadRequestError(f"The level runs from {MIN_LEVEL} to {MAX_LEVEL}.")
        if rated:
            raise BadRequestError(
                "Games against Fairy Post are unrated: leave out rated, or set it to False."
            )
        resolved = await self.games.variants.resolve(guild_id, variant, options)
        v = resolved.variant
        choice = parse_color(color)
        if choice is ColorChoice.RANDOM:
            choice = random.choice((ColorChoice.WHITE, ColorChoice.BLACK))
        settings = await self.games.challenge_settings(guild_id, channel_id)
        clock = self.games.clock_for(days_per_move, settings.default_move_seconds, bank)
        playing = [g for g in await self.storage.games.list_active(challenger.id) if g.engine_id]
        if len(playing) >= limits.GAMES_AGAINST_THE_BOT_PER_PLAYER:
            raise limits.LimitError(
                f"You play {len(playing)} games against Fairy Post already, the most one "
                "player may have at once: finish or resign one first."
            )
        await self.games.seen(challenger)
        await self.games.seen(engine)
        white, black = (
            (challenger.id, engine.id)
            if choice is ColorChoice.WHITE
            else (engine.id, challenger.id)
        )
        v, _ = await self.games.variants.with_drawn_setup(
            v, resolved.key, tuple(sorted(v.options)), resolved.digest
        )
        start = RulesGame(v)
        game = await self.storage.games.create(
            NewGame(
                guild_id=guild_id,
                channel_id=channel_id,
                white_id=white,
                black_id=black,
                variant_id=resolved.key,
                start_position=start.position_text,
                options=tuple(sorted(v.options)),
                rated=False,
                clock=clock,
                definition_digest=resolved.digest,
                engine_id=engine.id,
                engine_level=number,
                first=Color.BLACK if start.side_to_move else Color.WHITE,
            ),
            self.games.clock.now(),
        )
        log.info("game %d: %s vs the engine (level %d, %s)", game.id, challenger.id, number, v.id)
        self.pool.prepare(v)  # its tables built while the player thinks
        return await self.games.view(game.id)

    async def engine_for(self, game: Game) -> str | None:
        """Who plays Fairy Post's moves in this game where that is a choice (the strongest
        level, with a partner configured), as players read it: the partner's name
        (`Fairy-Stockfish 11.1`) or `Fairy Post's engine` for a variant beyond it. None where
        there is no choice (Fairy Post's engine, as always)."""
        number = game.engine_level or DEFAULT_LEVEL
        if not partner_plays(number) or self.pool.partner is None:
            return None
        return await self.pool.partner_for(await self.games.variants.for_game(game))

    # ------------------------------------------------------------------ the engine's moves

    async def resume(self) -> int:
        """At start-up: every game where the engine is to move has its move owed (an effect
        already recorded is not recorded again). Returns how many games wait for it."""
        waiting = await self.storage.games.list_engine_to_move()
        # The tables of the variants it plays (those it is to move in first) are built
        # before the engine's loop starts, which is when this returns: each search's budget
        # counts from its request, and a 16x16 board's tables take seconds to build.
        prepared: set[Variant] = set()
        for game in [*waiting, *await self.storage.games.list_engine_games()]:
            if len(prepared) >= PREPARED_AT_START:
                break
            try:
                variant = await self.games.variants.for_game(game)
                if variant not in prepared:
                    prepared.add(variant)
                    await asyncio.wrap_future(self.pool.prepare(variant))
            except Exception:
                log.exception("game %d: its variant's tables were not built ahead", game.id)
        effects = [e for g in waiting for e in engine_effect(g)]
        if effects:
            await self.storage.effects.add(effects, self.games.clock.now())
            log.info("engine: to move in %d games", len(waiting))
        return len(waiting)

    def budget(self, game: Game, now: int) -> float:
        """Seconds for this move: the level's time, within a share of the clock."""
        seconds = level(game.engine_level or DEFAULT_LEVEL).movetime
        if self.config.movetime is not None:
            seconds = min(seconds, self.config.movetime)
        if game.deadline_at is not None:
            seconds = min(seconds, max(MIN_MOVETIME, (game.deadline_at - now) * CLOCK_SHARE))
        return seconds

    async def play_engine_move(self, run: EffectRun) -> None:
        """The handler of `engine.move` (idempotent: see the module's docstring)."""
        effect = run.effect
        ply, revision = effect.payload.get("ply"), effect.payload.get("revision")
        if effect.game_id is None or not isinstance(ply, int) or not isinstance(revision, int):
            raise GiveUp("an engine move without its game, ply and revision")
        asked = time.monotonic()
        asked_at = time.time()  # the search's deadline counts from here, across processes
        try:
            game = await self.storage.games.get(effect.game_id)
        except GameNotFoundError as exc:
            raise GiveUp(str(exc)) from exc
        if not self._wanted(game, ply, revision):
            log.info("game %d: the engine's move at ply %d is no longer wanted", game.id, ply)
            return
        moves = [m.coordinate for m in await self.storage.games.moves(game.id)]
        if len(moves) != ply:
            return  # a move came between the two reads: its own effect follows
        number = game.engine_level or DEFAULT_LEVEL
        movetime = self.budget(game, run.now)
        job = SearchJob(
            variant=await self.games.variants.for_game(game),
            moves=tuple(moves),
            level=number,
            movetime=movetime,
            nodes=self.config.nodes,
            seed=game.id * 1000 + ply,
            deadline=asked_at + movetime,
            partner=partner_plays(number),
            game=str(game.id),
        )
        game_id = game.id

        async def cancelled() -> bool:
            return not self._wanted(await self.storage.games.get(game_id), ply, revision)

        answer = await self.pool.search(job, cancelled=cancelled)
        if answer is None:
            log.info("game %d: the engine's search at ply %d was called off", game_id, ply)
            return
        if answer.fallback:
            log.warning(
                "game %d: Fairy-Stockfish did not play ply %d (%s); %s did",
                game_id,
                ply,
                answer.fallback,
                answer.engine,
            )
        rest = self.config.pause - (time.monotonic() - asked)
        if rest > 0:
            await asyncio.sleep(rest)
        engine = UserRef(game.engine_id or 0, await self.games.name_of(game.engine_id or 0), True)
        try:
            await self.games.play(
                channel_id=0,
                user=engine,
                text=answer.coordinates,
                game_id=game_id,
                at_ply=ply,
                at_revision=revision,
                engine=answer.engine,
            )
        except (ServiceError, StorageError) as exc:
            # The game moved on (ended, taken back, lost on time) while the engine thought.
            log.info("game %d: the engine's move %s not played: %s", game_id, answer.notation, exc)
            return
        took = time.monotonic() - asked
        self.replies.append(took)
        log.info(
            "game %d: %s played %s (%s, depth %d, %d nodes, %.1fs search, %.1fs reply)",
            game_id,
            answer.engine,
            answer.notation,
            answer.score_text,
            answer.depth,
            answer.nodes,
            answer.elapsed,
            took,
        )
        if self.moved is not None:
            self.moved()

    @staticmethod
    def _wanted(game: Game, ply: int, revision: int) -> bool:
        return game.engine_to_move and game.ply_count == ply and game.revision == revision

    # ------------------------------------------------------------------ offers

    async def _engine_game(
        self, channel_id: int, game_id: int | None, guild_id: int | None, user_id: int
    ) -> Game | None:
        try:
            game = await self.games.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)
        except ServiceError:
            return None  # the game service gives the refusal
        return game if game.engine_id is not None else None

    async def _engine_user(self, game: Game) -> UserRef:
        assert game.engine_id is not None
        return UserRef(game.engine_id, await self.games.name_of(game.engine_id), True)

    async def offer_draw(
        self,
        *,
        channel_id: int,
        user: UserRef,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> OfferView | EndResult:
        """/draw: against the engine, answered at once (accepted only when the position is
        really drawn: `search.play.accepts_draw`); between people, an offer."""
        game = await self._engine_game(channel_id, game_id, guild_id, user.id)
        if game is None:
            return await self.games.offer_draw(
                channel_id=channel_id, user=user, game_id=game_id, guild_id=guild_id
            )
        game, _ = await self.games.own_active_game(channel_id, user.id, game.id, guild_id=guild_id)
        variant = await self.games.variants.for_game(game)
        moves = [m.coordinate for m in await self.storage.games.moves(game.id)]
        engine_color = 0 if game.engine_id == game.white_id else 1
        accept = await self.pool.accepts_draw(variant, moves, engine_color)
        offered = await self.games.offer_draw(
            channel_id=channel_id, user=user, game_id=game.id, guild_id=guild_id
        )
        if not isinstance(offered, OfferView) or offered.offer is None:
            return offered
        engine = await self._engine_user(game)
        return await self.games.answer_draw(offered.offer.id, engine, accept=accept)

    async def request_takeback(
        self,
        *,
        channel_id: int,
        user: UserRef,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> OfferView | GameView:
        """/takeback: against the engine, granted at once (your last move and its reply, so
        it is your turn again; your move alone while it is thinking)."""
        game = await self._engine_game(channel_id, game_id, guild_id, user.id)
        if game is None:
            return await self.games.request_takeback(
                channel_id=channel_id, user=user, game_id=game_id, guild_id=guild_id
            )
        if game.rated:
            raise BadRequestError("Takebacks are only allowed in unrated games against Fairy Post.")
        request = await self.games.request_takeback(
            channel_id=channel_id, user=user, game_id=game.id, guild_id=guild_id
        )
        assert request.takeback is not None
        engine = await self._engine_user(game)
        return await self.games.answer_takeback(request.takeback.id, engine, accept=True)


def install(registry: EffectRegistry, opponent: OpponentService) -> None:
    """The rule recording the engine's moves, on every event that may leave it to move.
    The handler goes in the engine's own registry (`install_handler`), run by the engine's
    runners, so a search never holds up the other effects."""
    for kind in (EventKind.GAME_STARTED, EventKind.MOVE_PLAYED, EventKind.TAKEBACK):
        registry.on(kind, on_turn)


def install_handler(registry: EffectRegistry, opponent: OpponentService) -> None:
    registry.register(ENGINE_MOVE, opponent.play_engine_move)
