"""What game events set off: the effect rules and the Discord-free parts of the effects.

Every rule here runs inside the event's storage transaction (see `bot.service.effects`);
the effects of a game run in its queue, in this order:

- a challenge is accepted: `game.started` (the game's thread and first post);
- a move that does not end the game: `game.moved` (the board after it, the opponent's
  mention);
- any ending (a move, resignation, agreement, timeout, abort, adjudication):
  `ratings.apply` if rated and finished, then `game.ended` (the final board, the result,
  the rating changes), then `game.replay` (the animated replay) if any move was played;
- a takeback: `game.takeback` (the board it went back to);
- a turn notice or reminder falls due: `notice.send`, in a queue of its own per game, so a
  refused DM never holds up the game's posts; by the player's schedule (`bot.service.notices`)
  it is sent, or waits for the end of their quiet hours (a `notice.send` due then, in a queue
  of its own), or joins their daily digest (`notice.digest`, one per player and digest time);
- a challenge expires: `challenge.expired` (its post is updated).

`ratings.apply` is carried out here; the posts by the Discord layer (`bot/announce.py`),
from the `GameEvent` values `game_event` builds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.service import notices
from bot.service.effects import EffectRegistry, EffectRun, GiveUp
from bot.service.games import GameService
from bot.service.models import GameSummary, GameView, TournamentTag
from storage import Storage
from storage.effects import player_queue
from storage.errors import GameNotFoundError
from storage.models import (
    EventKind,
    Game,
    GameStatus,
    NewEffect,
    NoticeSchedule,
    NotifyMode,
    RatingChange,
    StorageEvent,
    Termination,
)

log = logging.getLogger("fairypost.effects")

STARTED = "game.started"
MOVED = "game.moved"
ENDED = "game.ended"
TAKEBACK = "game.takeback"
REPLAY = "game.replay"
RATINGS = "ratings.apply"
NOTICE = "notice.send"
DIGEST = "notice.digest"
CHALLENGE_EXPIRED = "challenge.expired"

GAME_POSTS = (STARTED, MOVED, ENDED, TAKEBACK)


def _game_effect(kind: str, event: StorageEvent) -> NewEffect:
    assert event.game is not None  # the rules below are registered for game events only
    return NewEffect(kind, {"ply": event.ply, "by": event.actor_id}, event.game.id)


def on_started(event: StorageEvent) -> list[NewEffect]:
    """A game born from a challenge, or started against the engine, gets its thread and first
    post here; games made by something else (a tournament's round, an import) are announced
    by their maker."""
    if event.game is None or (event.game.challenge_id is None and event.game.engine_id is None):
        return []
    return [_game_effect(STARTED, event)]


def on_moved(event: StorageEvent) -> list[NewEffect]:
    return [_game_effect(MOVED, event)]


def on_ended(event: StorageEvent) -> list[NewEffect]:
    game = event.game
    assert game is not None
    out = []
    if game.rated and game.status is GameStatus.FINISHED:
        out.append(NewEffect(RATINGS, {}, game.id, dedupe_key=f"{RATINGS}:{game.id}"))
    out.append(_game_effect(ENDED, event))
    if game.status is GameStatus.FINISHED and game.ply_count > 0:
        out.append(NewEffect(REPLAY, {}, game.id))
    return out


def on_takeback(event: StorageEvent) -> list[NewEffect]:
    return [_game_effect(TAKEBACK, event)]


def on_notice(event: StorageEvent) -> list[NewEffect]:
    due, game = event.due, event.game
    assert due is not None and game is not None
    if due.user_id == game.engine_id:
        return []  # the engine needs no reminding: its move is an effect of its own
    payload = {
        "user_id": due.user_id,
        "ply": due.ply,
        "reminder": due.kind.value == "reminder",
        "offset": due.offset_seconds,
        "due_at": due.due_at,
    }
    return [NewEffect(NOTICE, payload, game.id, queue=f"notices:{game.id}")]


def on_challenge_expired(event: StorageEvent) -> list[NewEffect]:
    challenge = event.challenge
    assert challenge is not None
    return [
        NewEffect(
            CHALLENGE_EXPIRED, {"challenge_id": challenge.id}, queue=f"challenge:{challenge.id}"
        )
    ]


def install(registry: EffectRegistry, service: GameService) -> None:
    """Attaches the rules above to storage events and registers `ratings.apply`. The posts'
    handlers are the Discord layer's (`bot.announce.install`)."""
    registry.on(EventKind.GAME_STARTED, on_started)
    registry.on(EventKind.MOVE_PLAYED, on_moved)
    registry.on(EventKind.GAME_ENDED, on_ended)
    registry.on(EventKind.TAKEBACK, on_takeback)
    registry.on(EventKind.NOTICE_DUE, on_notice)
    registry.on(EventKind.CHALLENGE_EXPIRED, on_challenge_expired)

    async def apply_ratings(run: EffectRun) -> None:
        """Idempotent: storage applies a game's ratings once (a repeat returns them)."""
        game_id = run.effect.game_id
        if game_id is None:
            raise GiveUp("a rating update without a game")
        try:
            game = await service.storage.games.get(game_id)
        except GameNotFoundError as exc:
            raise GiveUp(str(exc)) from exc
        await service.ratings.apply(game)

    registry.register(RATINGS, apply_ratings)


@dataclass(frozen=True, slots=True)
class GameEvent:
    """What a game post shows: the board at the event's ply and what happened."""

    kind: str
    view: GameView
    actor_id: int | None
    actor_name: str
    notation: str | None
    """The move played (for `game.moved`, and `game.ended` when a move ended it)."""
    rating_changes: tuple[RatingChange, ...]
    conditional: bool = False
    """The move was a conditional answer, played for its player."""
    answered: bool = False
    """A conditional answer followed the move at once: its own post comes next, and the
    player who answered is not asked to move in between."""
    tournament: TournamentTag | None = None
    """For the first post of a tournament game: its tournament and round."""
    ping_to_move: bool = True
    """Whether the post may ping the player it asks to move (`notices.pings_in_thread`)."""
    engine: str | None = None
    """Who chose the move, for Fairy Post's own moves (`Fairy-Stockfish 11.1`, `Fairy Post's
    engine`), as stored with it; None for a player's move and moves stored before 0019."""


async def tournament_tag(storage: Storage, game: Game) -> TournamentTag | None:
    """The tournament, round and board of a tournament game; None for other games."""
    if game.tournament_id is None:
        return None
    t = await storage.tournaments.get(game.tournament_id)
    board = await storage.tournaments.board_of(game.id)
    return TournamentTag(t.id, t.name, board.round if board else 0, board.board if board else 0)


async def game_event(service: GameService, run: EffectRun) -> GameEvent | None:
    """The post of a game effect, or None when it can no longer be shown (its moves were
    taken back before it could be posted)."""
    effect = run.effect
    if effect.game_id is None:
        raise GiveUp("a game post without a game")
    payload = effect.payload
    try:
        game = await service.storage.games.get(effect.game_id)
    except GameNotFoundError as exc:
        raise GiveUp(str(exc)) from exc
    ply = payload.get("ply")
    ply = game.ply_count if not isinstance(ply, int) else ply
    view = await service.view_at(game, ply)
    if view is None:
        log.info("effect %d: game %d no longer has ply %d; not posted", effect.id, game.id, ply)
        return None
    actor = payload.get("by")
    actor_id = actor if isinstance(actor, int) else None
    ended_by_move = game.termination is Termination.RULES
    notation = view.last_move if effect.kind == MOVED or ended_by_move else None
    changes: tuple[RatingChange, ...] = ()
    if effect.kind == ENDED:
        changes = tuple(await service.storage.ratings.game_changes(game.id))
    name = await service.name_of(actor_id) if actor_id is not None else ""
    conditional = answered = False
    engine: str | None = None
    if effect.kind in (MOVED, ENDED) and notation is not None and ply >= 1:
        moves = await service.storage.games.moves(game.id)
        conditional = len(moves) >= ply and moves[ply - 1].conditional
        answered = len(moves) > ply and moves[ply].conditional
        engine = moves[ply - 1].engine if len(moves) >= ply else None
    tag = await tournament_tag(service.storage, game) if effect.kind == STARTED else None
    ping = True
    if game.is_active and effect.kind in (MOVED, TAKEBACK):
        # Decided as of the move, as its turn notice is (both fell due then).
        ping = await pings_to_move(service, game, due=effect.created_at)
    return GameEvent(
        effect.kind,
        view,
        actor_id,
        name,
        notation,
        changes,
        conditional,
        answered,
        tag,
        ping,
        engine,
    )


async def schedule_of(service: GameService, user_id: int, game: Game) -> NoticeSchedule:
    """The player's notice schedule for this game (theirs, else its server's default)."""
    player = await service.storage.players.find(user_id)
    server = await service.storage.guilds.get(game.guild_id)
    return notices.effective(player, server.notice_schedule)


async def pings_to_move(service: GameService, game: Game, *, due: int) -> bool:
    """Whether the post asking the player to move pings them (at `due`, the move's time)."""
    user_id = game.to_move_id
    if user_id is None or user_id == game.engine_id:
        return False
    player = await service.storage.players.find(user_id)
    if player is not None and not player.turn_notices:
        return False
    schedule = await schedule_of(service, user_id, game)
    return notices.pings_in_thread(player, schedule, due=due, deadline=game.deadline_at)


@dataclass(frozen=True, slots=True)
class Notice:
    """A "your turn" notice or a reminder before the deadline, for one player."""

    game: Game
    user_id: int
    variant_name: str
    opponent_name: str
    via_dm: bool
    """The player asked for direct messages (else: a mention in the game's thread)."""
    reminder: bool
    seconds_left: int | None
    held: bool = False
    """It waited for the end of quiet hours (the move's post did not ping the player)."""


async def notice(service: GameService, run: EffectRun) -> Notice | None:
    """The notice of a `notice.send` effect; None when it is stale (the turn is over) or
    when the player's schedule has it wait: for the end of their quiet hours (a new effect
    due then) or for their digest (recorded once per digest time)."""
    effect = run.effect
    user_id = effect.payload.get("user_id")
    if effect.game_id is None or not isinstance(user_id, int):
        raise GiveUp("a notice without a game or a player")
    try:
        game = await service.storage.games.get(effect.game_id)
    except GameNotFoundError as exc:
        raise GiveUp(str(exc)) from exc
    if not game.is_active or game.ply_count != effect.payload.get("ply"):
        log.info("effect %d: the turn it announced is over; not sent", effect.id)
        return None
    player = await service.storage.players.find(user_id)
    due = effect.payload.get("due_at")
    due = due if isinstance(due, int) else effect.created_at
    schedule = await schedule_of(service, user_id, game)
    planned = notices.plan(schedule, due=due, deadline=game.deadline_at)
    if isinstance(planned, notices.Hold):
        wait = NewEffect(
            NOTICE,
            {**effect.payload, "due_at": planned.until, "held": True},
            game.id,
            queue=f"held:{effect.id}",  # never ahead of the game's other notices
            dedupe_key=f"held:{effect.id}",
            not_before=planned.until,
        )
        await service.storage.effects.add([wait], run.now)
        return None
    if isinstance(planned, notices.Digest):
        await service.storage.effects.add([digest_effect(user_id, planned.at)], run.now)
        return None
    variant = await service.variants.for_game(game)
    left = game.deadline_at - run.now if game.deadline_at is not None else None
    return Notice(
        game=game,
        user_id=user_id,
        variant_name=variant.name,
        opponent_name=await service.name_of(game.opponent_of(user_id)),
        via_dm=player is not None and player.notify_mode is NotifyMode.DM,
        reminder=bool(effect.payload.get("reminder")),
        seconds_left=left,
        held=bool(effect.payload.get("held")),
    )


def digest_effect(user_id: int, at: int) -> NewEffect:
    """The player's digest at `at`: one effect whatever number of notices join it (its key
    is the player and the time), in the player's queue."""
    queue = player_queue(user_id, "digest")
    return NewEffect(
        DIGEST,
        {"user_id": user_id, "at": at},
        queue=queue,
        dedupe_key=f"{queue}:{at}",
        not_before=at,
    )


@dataclass(frozen=True, slots=True)
class DigestNotice:
    """A player's daily digest: every game awaiting their move, earliest deadline first."""

    user_id: int
    games: tuple[GameSummary, ...]


async def digest(service: GameService, run: EffectRun) -> DigestNotice | None:
    """The digest of a `notice.digest` effect; None when no game awaits the player now
    (they moved everywhere since): nothing is sent."""
    user_id = run.effect.payload.get("user_id")
    if not isinstance(user_id, int):
        raise GiveUp("a digest without a player")
    waiting = [s for s in await service.my_games(user_id) if s.my_turn]
    if not waiting:
        log.info("effect %d: no game awaits the player's move; no digest", run.effect.id)
        return None
    never = 2**62
    waiting.sort(key=lambda s: (s.game.deadline_at or never, s.game.id))
    return DigestNotice(user_id, tuple(waiting))
