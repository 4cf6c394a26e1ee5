"""Challenges and games: everything a player does, without Discord.

Every action loads the game row from storage, checks who may act, computes with the rules
engine and writes through storage's guarded calls (a move is appended only at the ply the
player saw). A per-game lock serialises actions inside this process; storage's guards
serialise processes. Pictures are rendered in a worker thread.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bot.service import limits
from bot.service.clock import Clock
from bot.service.conditional import position_key, reply_to
from bot.service.describe import MAX_DESCRIPTION, describe_replay, describe_scene
from bot.service.engine import (
    GameCache,
    replay,
    scan_order,
    storage_outcome,
    suggest,
    variant_info,
)
from bot.service.errors import (
    BadRequestError,
    GameFinishedError,
    NoGameHereError,
    NoSuchGameError,
    NotPlayingError,
    NotYourTurnError,
    PositionChangedError,
)
from bot.service.inputs import player_name
from bot.service.models import (
    Animation,
    ChallengeView,
    EndResult,
    GameSummary,
    GameView,
    MoveResult,
    OfferView,
    Picture,
    PieceMoves,
    RecordFile,
    Scene,
    Suggestion,
    UserRef,
    engine_credit,
)
from bot.service.offload import off_loop, within
from bot.service.pictures import Pictures
from bot.service.ratings import RatingService
from bot.service.variants import VariantService
from rules import ENGINE_VERSION, fsf
from rules.errors import RulesError
from rules.game import Game as RulesGame
from rules.game import LegalMove
from rules.moves import Move, MoveKind
from rules.notation import parse_square, square_label
from rules.outcome import Outcome as RulesOutcome
from rules.outcome import Termination as RulesTermination
from rules.pgn import format_pgn, has_pgn
from rules.position import Position
from rules.record import format_record, ply_label
from rules.summary import describe_movement
from rules.tables import DEFINITION_TABLES, warm_tables
from rules.variant import Variant
from storage import Storage
from storage.conditional import ConditionalTreeChangedError
from storage.crashpoints import crashpoint
from storage.errors import (
    ChallengeNotFoundError,
    GameLostOnTimeError,
    GameMovedOnError,
    GameNotFoundError,
    RequestAlreadyPendingError,
)
from storage.models import (
    DAY,
    Challenge,
    Color,
    ColorChoice,
    Game,
    GuildSettings,
    NewChallenge,
    NewMove,
    Termination,
)
from storage.models import (
    Clock as StorageClock,
)

ALLOWED_DAYS = (1, 2, 3, 5, 7, 10, 14)
RECENT_MOVES = 6
RECENT_LISTED = 20
LONG_GAME_PLIES = 100
"""From this length a game's first autocomplete answers within `suggest_seconds`."""

"""Finished games /games lists."""


log = logging.getLogger("fairypost.games")


class GameService:
    """The one object the cogs talk to for challenges and games."""

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Clock,
        pictures: Pictures | None = None,
        ratings: RatingService | None = None,
        cache_size: int = 512,
    ) -> None:
        self.storage = storage
        self.clock = clock
        self.pictures = pictures
        self.ratings = ratings or RatingService(storage, clock)
        self.variants = VariantService(storage, clock)
        self.cache = GameCache(cache_size)
        # Weak: a game's lock lives while someone holds or awaits it, so the map stays as small
        # as the games being changed right now instead of growing by one per game forever.
        self.suggest_seconds: float | None = None
        """How long autocomplete waits for the moves of a game not in memory (the bot sets
        `offload.SUGGEST_SECONDS`); None: as long as they take (tests, tools)."""
        self._listing: dict[tuple[int, int], asyncio.Task[list[LegalMove]]] = {}
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    # ------------------------------------------------------------------ people

    async def seen(self, user: UserRef) -> None:
        """Remember a player's display name (shown in embeds and records)."""
        await self.storage.players.upsert(user.id, user.name, self.clock.now())

    async def name_of(self, user_id: int) -> str:
        player = await self.storage.players.find(user_id)
        return player_name(user_id, player.display_name if player is not None else "")

    async def names_of(self, game: Game) -> tuple[str, str]:
        """White's and Black's names, read together (one round trip)."""
        found = await self.storage.players.find_many([game.white_id, game.black_id])
        white, black = found.get(game.white_id), found.get(game.black_id)
        return (
            player_name(game.white_id, white.display_name if white is not None else ""),
            player_name(game.black_id, black.display_name if black is not None else ""),
        )

    # ------------------------------------------------------------------ challenges

    async def create_challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger: UserRef,
        variant: str,
        opponent: UserRef | None = None,
        color: str = "random",
        days_per_move: int | None = None,
        rated: bool | None = None,
        options: str = "",
        bank: bool = False,
    ) -> ChallengeView:
        """A challenge addressed to `opponent`, or open to the channel without one;
        `rated=None` takes the server's default (/config)."""
        if opponent is not None and opponent.id == challenger.id:
            raise BadRequestError(
                "You cannot challenge yourself. Leave out the opponent to post an open challenge."
            )
        if opponent is not None and opponent.bot:
            raise BadRequestError(
                f"{opponent.name} is a bot and cannot play. Challenge a person, or anyone."
            )
        resolved = await self.variants.resolve(guild_id, variant, options)
        v = resolved.variant
        color_choice = parse_color(color)
        settings = await self.challenge_settings(guild_id, channel_id)
        if rated is None:
            rated = settings.rated_allowed and settings.rated_default
        if rated and not settings.rated_allowed:
            raise BadRequestError("Rated games are switched off on this server; use rated: False.")
        clock = self.clock_for(days_per_move, settings.default_move_seconds, bank)
        now = self.clock.now()
        await self._room_for_a_challenge(guild_id, channel_id, challenger.id, now)
        await self.seen(challenger)
        if opponent is not None:
            await self.seen(opponent)
        challenge = await self.storage.challenges.create(
            NewChallenge(
                guild_id=guild_id,
                channel_id=channel_id,
                challenger_id=challenger.id,
                opponent_id=opponent.id if opponent else None,
                variant_id=resolved.key,
                options=tuple(sorted(v.options)),
                color=color_choice,
                clock=clock,
                rated=rated,
                ttl_seconds=settings.challenge_ttl_seconds,
                definition_digest=resolved.digest,
            ),
            now,
        )
        scene = Scene(RulesGame(v).position, 0)
        return ChallengeView(
            challenge, resolved.info, challenger.name, opponent.name if opponent else None, scene
        )

    async def _room_for_a_challenge(
        self, guild_id: int, channel_id: int, challenger_id: int, now: int
    ) -> None:
        """Limits against flooding (`bot.service.limits`): open challenges of one player on
        this server, and open challenges in one channel."""
        still_open = [
            c
            for c in await self.storage.challenges.list_open(guild_id=guild_id)
            if c.expires_at > now
        ]
        mine = sum(c.challenger_id == challenger_id for c in still_open)
        if mine >= limits.OPEN_CHALLENGES_PER_PLAYER:
            raise limits.LimitError(
                f"You have {mine} open challenges on this server, the most one player may "
                "have at once. Wait for an answer, or withdraw one with Decline on its post."
            )
        here = sum(c.channel_id == channel_id for c in still_open)
        if here >= limits.OPEN_CHALLENGES_PER_CHANNEL:
            raise limits.LimitError(
                f"This channel has {here} open challenges, the most it holds at once: accept "
                "one of them, or challenge again when some have expired."
            )

    async def challenge_settings(self, guild_id: int, channel_id: int) -> GuildSettings:
        """The server's settings for a new game, refused outside its challenge channel."""
        settings = await self.storage.guilds.get(guild_id)
        if (
            settings.challenge_channel_id is not None
            and settings.challenge_channel_id != channel_id
        ):
            raise BadRequestError(
                f"Challenges go in <#{settings.challenge_channel_id}> on this server."
            )
        return settings

    @staticmethod
    def clock_for(days: int | None, default_seconds: int | None, bank: bool) -> StorageClock:
        """The clock of `days` per move (0: none; None: the server's default)."""
        if days is None:
            seconds = default_seconds
        elif days == 0:
            seconds = None
        elif days in ALLOWED_DAYS:
            seconds = days * DAY
        else:
            allowed = ", ".join(str(d) for d in ALLOWED_DAYS)
            raise BadRequestError(f"Days per move must be one of {allowed}, or 0 for no clock.")
        if seconds is None:
            return StorageClock.untimed()
        return StorageClock(seconds, 2 * seconds if bank else 0)

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        await self.storage.challenges.set_message(challenge_id, message_id)

    async def challenge_view(self, challenge_id: int) -> ChallengeView:
        c = await self.storage.challenges.get(challenge_id)
        v = await self.variants.for_challenge(c)
        opponent = await self.name_of(c.opponent_id) if c.opponent_id else None
        return ChallengeView(
            c, variant_info(v), await self.name_of(c.challenger_id), opponent, None
        )

    async def _challenge_here(self, challenge_id: int, guild_id: int | None) -> Challenge:
        """The challenge, if it is this server's (a button answers where its post is)."""
        c = await self.storage.challenges.get(challenge_id)
        if guild_id is not None and c.guild_id != guild_id:
            raise ChallengeNotFoundError(challenge_id)
        return c

    async def accept_challenge(
        self, challenge_id: int, user: UserRef, *, guild_id: int | None = None
    ) -> GameView:
        """`user` takes the challenge: the game starts (its thread is the cog's business)."""
        if user.bot:
            raise BadRequestError("Bots cannot play.")
        c = await self._challenge_here(challenge_id, guild_id)
        await self.seen(user)
        v = await self.variants.for_challenge(c)
        v, options = await self.variants.with_drawn_setup(
            v, c.variant_id, c.options, c.definition_digest
        )
        start = RulesGame(v)
        _, game = await self.storage.challenges.accept(
            challenge_id,
            user.id,
            self.clock.now(),
            start_position=start.position_text,
            options=options,
            first=Color.BLACK if start.side_to_move else Color.WHITE,
        )
        self.cache.put(game.id, start, game.revision)
        return await self._view(game, start)

    async def decline_challenge(
        self, challenge_id: int, user: UserRef, *, guild_id: int | None = None
    ) -> ChallengeView:
        """The addressee declines, or the challenger withdraws (anyone else is refused)."""
        c = await self._challenge_here(challenge_id, guild_id)
        now = self.clock.now()
        if user.id == c.challenger_id:
            c = await self.storage.challenges.cancel(challenge_id, user.id, now)
        else:
            c = await self.storage.challenges.decline(challenge_id, user.id, now)
        view = await self.challenge_view(c.id)
        return view

    async def attach_thread(self, game_id: int, thread_id: int | None) -> Game:
        return await self.storage.games.set_thread(game_id, thread_id)

    async def games_without_thread(self) -> list[Game]:
        return await self.storage.games.list_without_thread()

    # ------------------------------------------------------------------ finding games

    async def find(
        self,
        channel_id: int,
        game_id: int | None = None,
        *,
        guild_id: int | None = None,
        user_id: int | None = None,
    ) -> Game:
        """The game named by number, or the one played in this channel (its thread). A game
        belongs to its server: by number it is found only there (`guild_id`), and in direct
        messages (`guild_id` None) only by its two players (`user_id`); elsewhere it does
        not exist, with the same words as a number that names no game."""
        if game_id is not None:
            try:
                numbered = await self.storage.games.get(game_id)
            except GameNotFoundError:
                raise NoSuchGameError(game_id) from None
            if not shown_to(numbered, guild_id, user_id):
                raise NoSuchGameError(game_id)
            return numbered
        game = await self.storage.games.find_by_thread(channel_id)
        if game is None:
            raise NoGameHereError()
        return game

    async def _rules(self, game: Game) -> RulesGame:
        """The rules game at `game`'s revision: cached, or replayed from the stored moves when
        the cache is behind (this process, or another one, moved or took moves back)."""
        cached = self.cache.get(game.id, game.ply_count, game.revision)
        if cached is not None:
            return cached
        current, moves = await self.storage.games.get_with_moves(game.id, verify=False)
        if current.revision != game.revision:
            # Someone (another process) acted between our two reads.
            raise GameMovedOnError(game.id, game.ply_count, current.ply_count)
        variant = await self.variants.for_game(current)
        rebuilt = await off_loop(replay, variant, [m.coordinate for m in moves])
        self.cache.put(game.id, rebuilt, game.revision)
        return rebuilt

    async def _settled(self, game: Game) -> Game:
        """Deadlines win: before an action is judged (a move's legality is checked here,
        outside storage), a deadline that has passed is written as the loss on time, and the
        action is refused with `GameLostOnTimeError`. Storage does the same inside every
        guarded write; this only gives the player that answer rather than another refusal."""
        now = self.clock.now()
        passed = game.deadline_at is not None and now >= game.deadline_at
        # A clock stopped by a vacation may have restarted (the vacation ran out, unwritten)
        # and run out since: storage knows, so ask it.
        paused = game.paused_remaining is not None
        if game.is_active and (passed or paused):
            game = await self.storage.games.settle(game.id, now)
            if not game.is_active:
                raise GameLostOnTimeError(game)
        return game

    # For the other services of a game (conditional moves): the same rules cache and checks
    # as the game's own actions (and the same `lock`).

    async def rules(self, game: Game) -> RulesGame:
        """The rules state of `game` at its stored ply (cached)."""
        return await self._rules(game)

    async def settled(self, game: Game) -> Game:
        """`game` after a deadline that has passed is settled (see `_settled`): the other
        services of a game (conditional moves) judge their actions on this, like moves."""
        return await self._settled(game)

    async def own_active_game(
        self, channel_id: int, user_id: int, game_id: int | None, *, guild_id: int | None = None
    ) -> tuple[Game, Color]:
        """The game a player acts on: theirs, and still going; their colour."""
        return await self._own_active_game(channel_id, user_id, game_id, guild_id=guild_id)

    async def _participant(self, game: Game, user_id: int) -> Color:
        color = game.color_of(user_id)
        if color is None:
            raise NotPlayingError(game.id)
        return color

    async def _own_active_game(
        self, channel_id: int, user_id: int, game_id: int | None, *, guild_id: int | None = None
    ) -> tuple[Game, Color]:
        """The game a player acts on (resign, abort, offers): theirs, and still going; a
        deadline that has passed is settled before anything else is judged."""
        game = await self.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)
        color = await self._participant(game, user_id)
        if not game.is_active:
            raise GameFinishedError(game.id, self._ending(game))
        return await self._settled(game), color

    async def _check_turn(self, game: Game, user_id: int) -> None:
        if not game.is_active:
            raise GameFinishedError(game.id, self._ending(game))
        color = await self._participant(game, user_id)
        if color is not game.turn:
            raise NotYourTurnError(game.id, await self.name_of(game.player_id(game.turn)))

    @staticmethod
    def _ending(game: Game) -> str:
        """How the game ended, in the result words of game records (spec §4.8)."""
        if game.end_detail:
            return game.end_detail
        if game.result is None:
            return "aborted"
        winner = {"1-0": 0, "0-1": 1}.get(game.result.value)
        termination = {
            Termination.RESIGNATION: RulesTermination.RESIGNATION,
            Termination.TIMEOUT: RulesTermination.TIME,
            Termination.AGREEMENT: RulesTermination.AGREEMENT,
        }.get(game.termination or Termination.ADJUDICATION)
        if termination is None:
            return (
                {0: "white wins", 1: "black wins"}.get(winner or -1, "draw")
                if winner is not None
                else "draw"
            )
        return RulesOutcome(termination, winner).result_text

    # ------------------------------------------------------------------ moves

    async def play(
        self,
        *,
        channel_id: int,
        user: UserRef,
        text: str,
        game_id: int | None = None,
        at_ply: int | None = None,
        at_revision: int | None = None,
        guild_id: int | None = None,
        engine: str | None = None,
    ) -> MoveResult:
        """Validate and play the move `text` for `user`; refusals say why. `at_ply`: the
        ply the player chose the move at (the Move button's menus), refused if it passed;
        `at_revision` likewise the move list's revision (the engine's move: a takeback and
        a new move bring the same ply back, but not the same position). `engine`: who chose
        an engine's move (`Fairy-Stockfish 11.1`), stored with the move in its write."""
        game = await self.find(channel_id, game_id, guild_id=guild_id, user_id=user.id)
        if at_ply is not None and game.ply_count != at_ply:
            raise PositionChangedError(game.id)
        await self._check_turn(game, user.id)
        try:
            return await self._play(game, user, text, at_ply, at_revision, engine)
        except ConditionalTreeChangedError:
            # The waiting player's conditional moves changed since this process read them
            # (another process wrote them): read them again and decide once more.
            self.storage.writer.forget(game.id)
            return await self._play(game, user, text, at_ply, at_revision, engine, reread=True)

    async def _play(
        self,
        game: Game,
        user: UserRef,
        text: str,
        at_ply: int | None,
        at_revision: int | None,
        engine: str | None,
        *,
        reread: bool = False,
    ) -> MoveResult:
        lock = self.lock(game.id)
        # The game just read is current unless another task of this process acted on it
        # meanwhile (it holds the lock, or left the rules cache at another revision): read
        # it again only then. Another process's write is caught by the guarded write.
        reread = (
            reread
            or lock.locked()
            or self.cache.get(game.id, game.ply_count, game.revision) is None
        )
        async with lock:
            if reread:
                game = await self.storage.games.get(game.id)
            game = await self._settled(game)
            if (at_ply is not None and game.ply_count != at_ply) or (
                at_revision is not None and game.revision != at_revision
            ):
                raise PositionChangedError(game.id)
            await self._check_turn(game, user.id)
            rules_game = await self._rules(game)
            waiting = await self.storage.conditional.waiting(game.id)
            before = position_key(rules_game.position)
            played = rules_game.play(text)
            outcome = rules_game.outcome()
            new = NewMove(
                notation=played.notation,
                coordinate=played.coordinates,
                position_hash=played.position_hash,
                position_text=rules_game.position_text,
                turn_after=Color.WHITE if rules_game.side_to_move == 0 else Color.BLACK,
                outcome=storage_outcome(outcome) if outcome else None,
                engine=engine,
            )
            # The waiting player's conditional answer, if the move matches one of their lines:
            # played on `rules_game` and stored in the move's own transaction.
            reply = reply_to(waiting, game, before, rules_game)
            try:
                appended = await self.storage.games.append_move(
                    game.id,
                    user.id,
                    game.ply_count,
                    new,
                    self.clock.now(),
                    conditional=reply.plan,
                    answer=reply.answer,
                )
            except BaseException:
                self.cache.drop(game.id)
                raise
            self.cache.put(game.id, rules_game, appended.game.revision)
            crashpoint("event.committed:move")
            view = await self._view(appended.game, rules_game)
        return MoveResult(view, played.notation, reply.answer_notation or None)

    async def turn_moves(
        self, game_id: int, user_id: int
    ) -> tuple[Game, RulesGame, list[LegalMove]]:
        """The game, its rules state and the legal moves of `user`, who must be to move
        (the Move button's menus list them). A deadline that has passed is settled first:
        the button of a game lost on time says so instead of offering moves."""
        # The game of a Move button, under a board in its thread: only its player to move
        # gets further (a spectator is told they do not play).
        try:
            game = await self.storage.games.get(game_id)
        except GameNotFoundError:
            raise NoSuchGameError(game_id) from None
        await self._check_turn(game, user_id)
        game = await self._settled(game)
        rules_game = await self._rules(game)
        return game, rules_game, await self.listed_moves(game)

    async def suggest_moves(
        self,
        *,
        channel_id: int,
        user_id: int,
        typed: str,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> list[Suggestion]:
        """Autocomplete: the caller's legal moves matching what they typed (at most 25)."""
        try:
            game = await self.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)
        except (BadRequestError, NoGameHereError):
            return []
        if not game.is_active or game.color_of(user_id) is not game.turn:
            return []
        listing = self.listed_moves(game)
        if self.suggest_seconds is None or not self.long_and_cold(game):
            listed: list[LegalMove] | None = await listing
        else:
            listed = await within(listing, self.suggest_seconds)
        if listed is None:
            # A long game touched for the first time: its moves are still being listed
            # (off the loop); autocomplete cannot wait, the next keystroke will have them.
            label = f"Listing the moves of game #{game.id}… keep typing"
            return [Suggestion(label, "".join(typed.split())[:100] or "…")]
        return suggest(listed, typed)

    async def warm_variants(self) -> int:
        """Builds, off the loop, the move tables of every variant with a game in progress
        (a 16x16 variant's take a second or more in a fresh process), so that the first
        player after a restart finds them ready rather than a 'keep typing' answer. The
        most played first; no more players' definitions than the tables kept for them.
        Returns how many were warmed; a variant that fails is logged and skipped."""
        warmed = definitions = 0
        for variant_id, options, digest in await self.storage.games.active_variants():
            if digest is not None:
                definitions += 1
                if definitions > DEFINITION_TABLES:
                    continue  # warming more would only push out the first ones
            try:
                variant = await self.variants.pinned(variant_id, options, digest)
                await off_loop(warm_tables, variant)
            except Exception:
                log.exception("warming %s %s failed", variant_id, options)
                continue
            warmed += 1
        return warmed

    def long_and_cold(self, game: Game) -> bool:
        """A long game not in memory: the only kind whose moves may take autocomplete
        longer than it can wait (a short one's list comes within Discord's limit)."""
        cold = self.cache.get(game.id, game.ply_count, game.revision) is None
        return cold and game.ply_count >= LONG_GAME_PLIES

    async def listed_moves(self, game: Game) -> list[LegalMove]:
        """The legal moves of `game` with their notation in scan order, for autocomplete,
        computed off the loop once per revision. A game not in the cache is read from its
        stored position text rather than replayed (a 400-ply 16x16 game replays in about a
        second); a position alone may offer a move that a repetition rule forbids, which
        /move then refuses with its reason."""
        found = self.cache.listed(game.id, game.revision)
        if found is not None:
            return found
        key = (game.id, game.revision)
        task = self._listing.get(key)
        if task is None:
            task = asyncio.ensure_future(self._list_moves(game))
            self._listing[key] = task
            task.add_done_callback(lambda _: self._listing.pop(key, None))
        return await asyncio.shield(task)

    async def _list_moves(self, game: Game) -> list[LegalMove]:
        cached = self.cache.get(game.id, game.ply_count, game.revision)
        variant = await self.variants.for_game(game)
        work: Callable[[], list[LegalMove]]
        if cached is not None:
            # A copy, taken here on the loop: the cached game may move on meanwhile.
            work = RulesGame(cached.variant, cached.position).legal_moves
        elif game.engine_version == ENGINE_VERSION and game.position_text:
            text = game.position_text

            def work() -> list[LegalMove]:  # no replay: the stored position is enough
                return RulesGame.from_position_text(variant, text).legal_moves()

        else:
            moves = [m.coordinate for m in await self.storage.games.moves(game.id)]

            def work() -> list[LegalMove]:
                return replay(variant, moves).legal_moves()

        names = [p.name for p in variant.pieces]
        listed = await off_loop(lambda: scan_order(work(), names))
        self.cache.keep_listed(game.id, game.revision, listed)
        return listed

    async def board(
        self,
        *,
        channel_id: int,
        user_id: int,
        own_side: bool = False,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> GameView:
        game = await self.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)
        perspective = None
        color = game.color_of(user_id)
        if own_side and color is not None:
            perspective = 0 if color is Color.WHITE else 1
        cached = self.cache.get(game.id, game.ply_count, game.revision)
        if cached is None:
            stored = await self._stored_shown(game)
            if stored is not None:
                return await self._view(game, stored, perspective=perspective)
        rules_game = cached if cached is not None else await self._rules(game)
        return await self._view(game, rules_game, perspective=perspective)

    async def _stored_shown(self, game: Game) -> Shown | None:
        """What /board shows of a game not in memory, read from its stored position text
        and its last moves rather than replayed (a 400-ply 16x16 game replays in a second);
        None when that cannot be done (no stored text of this engine, a last move whose
        squares cannot be read from its coordinates alone): the caller replays."""
        if game.engine_version != ENGINE_VERSION or not game.position_text:
            return None
        moves = await self.storage.games.moves(game.id)
        if len(moves) != game.ply_count:
            return None  # moved on between the two reads: the replay path sorts it out
        variant = await self.variants.for_game(game)
        last = _stored_move(variant, moves[-1].coordinate) if moves else None
        if moves and last is None:
            return None
        text = game.position_text
        start = max(0, len(moves) - RECENT_MOVES)
        recent = tuple(
            f"{ply_label(variant, i)} {moves[i].notation}" for i in range(start, len(moves))
        )

        def work() -> Shown:
            position = RulesGame.from_position_text(variant, text).position
            return Shown(
                variant=variant,
                position=position,
                ply=len(moves),
                last=last,
                last_notation=moves[-1].notation if moves else None,
                recent=recent,
                in_check=position.is_check(),
            )

        return await off_loop(work)

    async def moves_from(
        self,
        *,
        channel_id: int,
        user_id: int,
        square: str,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> PieceMoves:
        """The picture with the legal destinations of the piece on `square` marked. For a
        piece whose side is not to move, the moves it would have if it were (planning)."""
        game = await self.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)
        # A game not in memory is read from its stored position, as /board does: no replay.
        rules_game: RulesGame | Shown | None = self.cache.get(
            game.id, game.ply_count, game.revision
        )
        if rules_game is None:
            rules_game = await self._stored_shown(game)
        if rules_game is None:
            rules_game = await self._rules(game)
        geo = rules_game.variant.geometry
        sq = parse_square(rules_game.variant, square)
        if sq is None:
            raise BadRequestError(f"{square.strip()!r} is not a square: {geo.square_hint()}.")
        pos = rules_game.position
        piece = pos.piece_at(sq)
        if piece is None:
            raise BadRequestError(f"There is no piece on {square_label(rules_game.variant, sq)}.")
        planning = game.is_active and piece.color != pos.side
        if planning:
            ahead = RulesGame(rules_game.variant, pos.planning_copy(piece.color))
            legal = await off_loop(ahead.legal_moves)
        else:
            legal = await self.listed_moves(game)
        moves = sorted(
            (
                m
                for m in legal
                if m.move.origin is not None
                and geo.index(m.move.origin.file, m.move.origin.rank) == sq
            ),
            key=lambda m: (m.move.target.file, m.move.target.rank),
        )
        targets = sorted({geo.index(m.move.target.file, m.move.target.rank) for m in moves})
        captures = [t for t in targets if pos.board[t]]
        quiet = [t for t in targets if not pos.board[t]]
        color = game.color_of(user_id)
        perspective = (0 if color is Color.WHITE else 1) if color is not None else None
        view = await self._view(
            game,
            rules_game,
            perspective=perspective,
            highlights=quiet,
            captures=captures,
            selected=sq,
        )
        side = "White" if piece.color == 0 else "Black"
        name = square_label(rules_game.variant, sq)
        return PieceMoves(view, name, tuple(m.notation for m in moves), planning, side)

    # ------------------------------------------------------------------ endings and offers

    async def resign(
        self,
        *,
        channel_id: int,
        user: UserRef,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> EndResult:
        game, _ = await self._own_active_game(channel_id, user.id, game_id, guild_id=guild_id)
        async with self.lock(game.id):
            ended = await self.storage.games.resign(game.id, user.id, self.clock.now())
        crashpoint("event.committed:resign")
        return await self._ended(ended)

    async def abort(
        self,
        *,
        channel_id: int,
        user: UserRef,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> EndResult:
        game, _ = await self._own_active_game(channel_id, user.id, game_id, guild_id=guild_id)
        if game.tournament_id is not None:
            raise BadRequestError(
                "A tournament game cannot be aborted: resign it, or withdraw from the "
                "tournament (/tournament withdraw)."
            )
        async with self.lock(game.id):
            ended = await self.storage.games.abort(game.id, user.id, self.clock.now())
        crashpoint("event.committed:abort")
        return await self._ended(ended)

    async def offer_draw(
        self,
        *,
        channel_id: int,
        user: UserRef,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> OfferView | EndResult:
        """Offer a draw; if the opponent's offer is already waiting, this accepts it."""
        game, _ = await self._own_active_game(channel_id, user.id, game_id, guild_id=guild_id)
        pending = await self.storage.draws.pending(game.id)
        if pending is not None and pending.offered_by != user.id:
            return await self.answer_draw(pending.id, user, accept=True)
        if pending is not None:
            raise BadRequestError("Your draw offer is already waiting for an answer.")
        try:
            offer = await self.storage.draws.offer(game.id, user.id, self.clock.now())
        except RequestAlreadyPendingError:
            raise BadRequestError("A draw offer is already waiting for an answer.") from None
        return OfferView(game, offer=offer, by_name=user.name, to_id=game.opponent_of(user.id))

    async def answer_draw(
        self, offer_id: int, user: UserRef, *, accept: bool
    ) -> OfferView | EndResult:
        offer = await self.storage.draws.get(offer_id)
        game = await self.storage.games.get(offer.game_id)
        await self._participant(game, user.id)
        game = await self._settled(game)
        if accept:
            if user.id == offer.offered_by:
                raise BadRequestError("You cannot accept your own draw offer.")
            async with self.lock(game.id):
                ended = await self.storage.draws.accept(offer_id, user.id, self.clock.now())
            crashpoint("event.committed:draw")
            return await self._ended(ended)
        declined = await self.storage.draws.decline(offer_id, user.id, self.clock.now())
        return OfferView(game, offer=declined, by_name=user.name, to_id=offer.offered_by)

    async def request_takeback(
        self,
        *,
        channel_id: int,
        user: UserRef,
        game_id: int | None = None,
        guild_id: int | None = None,
    ) -> OfferView:
        """Ask to take back your last move (and the opponent's reply, if they made one)."""
        game, color = await self._own_active_game(channel_id, user.id, game_id, guild_id=guild_id)
        moves = await self.storage.games.moves(game.id)
        mine = [m for m in moves if m.color is color]
        if not mine:
            raise BadRequestError("You have not made a move yet, so there is nothing to take back.")
        plies = len(moves) - mine[-1].ply + 1
        if plies > 2:
            raise BadRequestError("Only your last move (and the reply to it) can be taken back.")
        try:
            request = await self.storage.takebacks.request(
                game.id, user.id, plies, self.clock.now()
            )
        except RequestAlreadyPendingError:
            raise BadRequestError("A takeback request is already waiting for an answer.") from None
        return OfferView(game, takeback=request, by_name=user.name, to_id=game.opponent_of(user.id))

    async def answer_takeback(
        self, request_id: int, user: UserRef, *, accept: bool
    ) -> GameView | OfferView:
        request = await self.storage.takebacks.get(request_id)
        game = await self.storage.games.get(request.game_id)
        await self._participant(game, user.id)
        game = await self._settled(game)
        if not accept:
            declined = await self.storage.takebacks.decline(request_id, user.id, self.clock.now())
            return OfferView(game, takeback=declined, by_name=user.name, to_id=request.requested_by)
        if user.id == request.requested_by:
            raise BadRequestError("Your opponent must answer your takeback request.")
        async with self.lock(game.id):
            moves = await self.storage.games.moves(game.id)
            keep = [m.coordinate for m in moves[: max(0, len(moves) - request.plies)]]
            variant = await self.variants.for_game(game)
            rebuilt = await off_loop(replay, variant, keep)
            self.cache.drop(game.id)
            updated = await self.storage.takebacks.accept(
                request_id, user.id, rebuilt.position_text, self.clock.now()
            )
            crashpoint("event.committed:takeback")
            self.cache.put(game.id, rebuilt, updated.revision)
        return await self._view(updated, rebuilt)

    def lock(self, game_id: int) -> asyncio.Lock:
        """The lock every change of one game takes (moves, endings, moderators' decisions).
        Hold on to it while it matters (`async with`): unreferenced, it is forgotten."""
        found = self._locks.get(game_id)
        if found is None:
            found = self._locks[game_id] = asyncio.Lock()
        return found

    async def ended(self, game: Game) -> EndResult:
        """What follows a game's end (ratings), and its final view."""
        return await self._ended(game)

    async def _ended(self, game: Game) -> EndResult:
        """The ended game's view. Its consequences (ratings, the post in the thread) were
        recorded with the ending and are carried out by the effects runner."""
        rules_game = await self._rules(game)
        return EndResult(await self._view(game, rules_game))

    # ------------------------------------------------------------------ listings and records

    async def my_games(
        self,
        user_id: int,
        *,
        finished: bool = False,
        guild_id: int | None = None,
        viewer_id: int | None = None,
    ) -> list[GameSummary]:
        """Games in progress (yours to move first), or the 20 most recently finished: of
        this server (`guild_id`), or in direct messages every game of the viewer's own
        (someone else's games are listed only in a server, the ones played there)."""
        if guild_id is None and viewer_id not in (None, user_id):
            raise BadRequestError(
                "In direct messages /games lists your own games; someone else's are listed "
                "in a server, the games they play there."
            )
        if finished:
            recent = await self.storage.games.list_recent(
                user_id, RECENT_LISTED * 5, finished_only=True
            )
            games = [g for g in recent if guild_id in (None, g.guild_id)][:RECENT_LISTED]
        else:
            games = await self.storage.games.list_active(user_id)
            games = [g for g in games if guild_id in (None, g.guild_id)]
        out = []
        for g in games:
            opponent = g.opponent_of(user_id)
            color = g.color_of(user_id)
            out.append(
                GameSummary(
                    g,
                    (await self.variants.for_game(g)).name,
                    opponent,
                    await self.name_of(opponent),
                    g.is_active and g.to_move_id == user_id,
                    color.value if color else "",
                    "" if g.is_active else self._ending(g),
                )
            )
        return out

    async def history(
        self,
        *,
        channel_id: int,
        game_id: int | None = None,
        guild_id: int | None = None,
        user_id: int | None = None,
    ) -> RecordFile:
        """The game record (spec §6) with names, date and the current position text."""
        game = await self.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)
        rules_game = await self._rules(game)
        white, black = await self.names_of(game)
        if game.engine_id is not None:
            # Who chose Fairy Post's moves, as stored with them (none before migration 0019).
            engines = [m.engine for m in await self.storage.games.moves(game.id) if m.engine]
            if engines:
                who = " and ".join(dict.fromkeys(engines))
                credit = engine_credit(game.engine_level, who)
                if game.engine_id == game.white_id:
                    white = f"{white} ({credit})"
                else:
                    black = f"{black} ({credit})"
        date = dt.datetime.fromtimestamp(game.created_at, dt.UTC).date().isoformat()
        result = None
        if not game.is_active:
            result = game.end_detail or self._ending(game)
        headers = {
            "white": white,
            "black": black,
            "date": date,
            "source": f"Fairy Post game #{game.id}",
        }
        variant_id = rules_game.variant.id
        if game.definition_digest:
            headers["note"] = (
                f"a game of a server's own variant (definition {game.definition_digest[:12]}); "
                f"replay it with its file: python -m rules replay RECORD --definition "
                f"{variant_id}.toml"
            )
        text = format_record(rules_game, headers, result=result)
        text += f"# position: {rules_game.position_text}\n"
        return RecordFile(f"fairypost-{game.id}-{variant_id}.txt", text)

    async def fen(
        self,
        *,
        channel_id: int,
        game_id: int | None = None,
        guild_id: int | None = None,
        user_id: int | None = None,
    ) -> tuple[str, str]:
        """The current position as a FEN that Fairy-Stockfish reads, with its variant id
        (every variant with a `[fairy-stockfish]` table, a player's too)."""
        game = await self.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)
        rules_game = await self._rules(game)
        variant = rules_game.variant
        if variant.fsf_variant is None or game.options:
            raise BadRequestError(
                f"Fairy-Stockfish does not know {variant.name} (it has no [fairy-stockfish] "
                "table), so it has no FEN there."
            )
        return variant.fsf_variant, await off_loop(fsf.fen, rules_game.position.copy())

    async def pgn(
        self,
        *,
        channel_id: int,
        game_id: int | None = None,
        guild_id: int | None = None,
        user_id: int | None = None,
    ) -> RecordFile | None:
        """The game as PGN, for the variants other tools read (every variant Fairy-Stockfish
        knows, `rules.pgn`); None for the others."""
        game = await self.find(channel_id, game_id, guild_id=guild_id, user_id=user_id)
        if game.options:
            return None
        rules_game = await self._rules(game)
        if not has_pgn(rules_game.variant):
            return None
        white, black = await self.names_of(game)
        date = dt.datetime.fromtimestamp(game.created_at, dt.UTC).strftime("%Y.%m.%d")
        result = "*"
        if game.result is not None:
            result = {"1-0": "1-0", "0-1": "0-1"}.get(game.result.value, "1/2-1/2")
        tags = {
            "Event": f"Fairy Post game #{game.id}",
            "Site": "Fairy Post (Discord)",
            "Date": date,
            "White": white,
            "Black": black,
        }
        if not game.is_active:
            tags["Termination"] = self._ending(game)
        text = await off_loop(format_pgn, rules_game, tags, result)
        return RecordFile(f"fairypost-{game.id}-{game.variant_id}.pgn", text)

    # ------------------------------------------------------------------ views

    async def render(self, scene: Scene, *, viewer: int | None = None) -> Picture:
        """Draw a scene in a worker thread (rendering must never block the event loop), with
        the piece set `viewer` chose in /settings (the traditional set by default)."""
        if self.pictures is None:
            raise BadRequestError("Pictures are not available.")
        pictures = self.pictures
        pieces = await self.piece_set(viewer)
        picture = await asyncio.to_thread(
            pictures.board,
            scene.position,
            perspective=scene.perspective,
            last_move=scene.last_move,
            highlights=scene.highlights,
            captures=scene.captures,
            selected=scene.selected,
            pieces=pieces,
        )
        return replace(picture, description=describe_scene(scene))

    async def piece_set(self, viewer: int | None) -> str:
        """The piece set `viewer` sees (`/settings pieces:`); the traditional one for nobody
        in particular and for players the bot has not seen."""
        if viewer is None:
            return "traditional"
        player = await self.storage.players.find(viewer)
        return "traditional" if player is None else player.piece_set

    async def replay(self, game_id: int) -> Animation | None:
        """The animated replay of a game, drawn in a worker thread (seconds for a long
        game: callers acknowledge the interaction first). None before the first move and
        for aborted games."""
        if self.pictures is None:
            raise BadRequestError("Pictures are not available.")
        game = await self.storage.games.get(game_id)
        if game.ply_count == 0 or (not game.is_active and game.result is None):
            return None
        moves = [m.coordinate for m in await self.storage.games.moves(game.id)]
        white, black = await self.names_of(game)
        variant = await self.variants.for_game(game)
        title = f"{variant.name}: {white} vs {black}"
        result = None if game.is_active else self._ending(game)
        pictures = self.pictures

        def draw() -> Animation:
            # A game of its own: the cached one may move on while this thread draws.
            rules_game = replay(variant, moves)
            return pictures.replay(rules_game, result=result, title=title)

        animation = await off_loop(draw)
        words = describe_replay(f"game #{game.id}, {title}", animation.plies, result)
        return replace(animation, description=words)

    async def render_piece(self, variant: Variant, piece_id: str) -> Picture:
        """The piece diagram (for /piece, /variant define), drawn in a worker thread."""
        if self.pictures is None:
            raise BadRequestError("Pictures are not available.")
        picture = await asyncio.to_thread(self.pictures.piece, variant, piece_id)
        piece = variant.piece(piece_id)
        text = f"How the {piece.name} moves in {variant.name}: {describe_movement(piece)}."
        return replace(picture, description=text[:MAX_DESCRIPTION])

    async def view(self, game_id: int, *, perspective: int | None = None) -> GameView:
        game = await self.storage.games.get(game_id)
        return await self._view(game, await self._rules(game), perspective=perspective)

    async def view_at(self, game: Game, ply: int) -> GameView | None:
        """The game as it was after `ply` moves (for posts made after the fact, such as
        those of effects resumed after a restart); None if those moves were taken back."""
        if ply == game.ply_count:
            try:
                return await self._view(game, await self._rules(game))
            except GameMovedOnError:
                # A move came between the caller's read and ours: show `ply` from the moves.
                game = await self.storage.games.get(game.id)
        moves = await self.storage.games.moves(game.id)
        if not 0 <= ply <= len(moves):
            return None
        variant = await self.variants.for_game(game)
        rules_game = await off_loop(replay, variant, [m.coordinate for m in moves[:ply]])
        return await self._view(game, rules_game, perspective=rules_game.side_to_move)

    async def _view(
        self,
        game: Game,
        rules_game: RulesGame | Shown,
        *,
        perspective: int | None = None,
        last_move: str | None = None,
        highlights: Sequence[int] = (),
        captures: Sequence[int] = (),
        selected: int | None = None,
    ) -> GameView:
        position, ply = rules_game.position, rules_game.ply
        if perspective is None:
            perspective = position.side if game.is_active else 0
        if isinstance(rules_game, Shown):
            last, last_notation, recent = (
                rules_game.last,
                rules_game.last_notation,
                rules_game.recent,
            )
            checked = rules_game.in_check
        else:
            history = rules_game.history
            last = history[-1].move if history else None
            last_notation = history[-1].notation if history else None
            recent = recent_moves(rules_game)
            checked = None
        scene = Scene(
            position.copy(),
            perspective,
            last,
            tuple(highlights),
            tuple(captures),
            selected,
        )
        in_check = (game.is_active or ply < game.ply_count) and (
            checked if checked is not None else position.is_check()
        )
        white_name, black_name = await self.names_of(game)
        return GameView(
            game=game,
            variant=variant_info(rules_game.variant),
            white_name=white_name,
            black_name=black_name,
            status=self._status(game, rules_game.variant, position, ply, in_check),
            recent_moves=recent,
            scene=scene,
            last_move=last_move or last_notation,
            in_check=in_check,
        )

    def _status(
        self, game: Game, variant: Variant, position: Position, ply: int, in_check: bool
    ) -> str:
        if not game.is_active and ply >= game.ply_count:
            return _capital(self._ending(game))
        # From the position shown: a post made after the fact shows an earlier ply.
        side = "White" if position.side == 0 else "Black"
        if position.placing:
            return f"{side} to place a reserve piece"
        if variant.goal == "royal-capture":
            return f"{side} to move" + (" — the royal piece is attacked!" if in_check else "")
        return f"{side} to move" + (" — check!" if in_check else "")


@dataclass(frozen=True, slots=True)
class Shown:
    """What a board view needs of a game read from its stored position (no history)."""

    variant: Variant
    position: Position
    ply: int
    last: Move | None
    last_notation: str | None
    recent: tuple[str, ...]
    in_check: bool


_COORDINATE = re.compile(r"([a-z])(\d+)([a-z])(\d+)")
_DROP = re.compile(r"[^@]+@([a-z])(\d+)")


def _stored_move(variant: Variant, coordinate: str) -> Move | None:
    """The squares of a stored move, read from its coordinates (`e2e4`, `b7b8Q`, `B@c3`):
    enough to mark it on a picture. None for any other form (castling by the King's target,
    placements into a reserve slot), which the caller then replays."""
    geo = variant.geometry
    if not variant.reserve:
        drop = _DROP.fullmatch(coordinate)
        if drop is not None:
            target = geo.parse(drop.group(1) + drop.group(2))
            if target is None:
                return None
            return Move(MoveKind.DROP, None, geo.square(target))
    normal = _COORDINATE.match(coordinate)
    if normal is None or "@" in coordinate or "(" in coordinate:
        return None
    origin = geo.parse(normal.group(1) + normal.group(2))
    target = geo.parse(normal.group(3) + normal.group(4))
    if origin is None or target is None:
        return None
    return Move(MoveKind.NORMAL, geo.square(origin), geo.square(target))


def shown_to(game: Game, guild_id: int | None, user_id: int | None) -> bool:
    """Whether `game` may be shown where a command was used: in its own server, or in
    direct messages (`guild_id` None) to one of its two players."""
    if guild_id is not None:
        return game.guild_id == guild_id
    return user_id is not None and game.color_of(user_id) is not None


def parse_color(color: str) -> ColorChoice:
    """The colour a challenger asked for (white, black or random, any case)."""
    try:
        return ColorChoice(color.lower())
    except ValueError:
        raise BadRequestError("The colour must be white, black or random.") from None


def recent_moves(rules_game: RulesGame, count: int = RECENT_MOVES) -> tuple[str, ...]:
    """The last plies as numbered lines (`12. Hi2-g4`, `12... f6xe5 e.p.`)."""
    history = rules_game.history
    start = max(0, len(history) - count)
    variant = rules_game.variant
    return tuple(
        f"{ply_label(variant, i)} {history[i].notation}" for i in range(start, len(history))
    )


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


__all__ = ["GameService", "RulesError"]
