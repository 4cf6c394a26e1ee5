"""Tournaments without Discord: sign-up, start, rounds, withdrawals, deadlines, standings.

The state lives in storage (`storage.tournaments`); pairing and standings are computed by
`tournament/` from it every time, so nothing here is kept in memory between calls. Every
transition is a guarded storage transaction that emits its event, and the rules below turn
each event into effects recorded in that same transaction (the durable outbox,
`bot.service.effects`), so a crash anywhere leaves either no transition or the transition
with everything it owes:

- a tournament game ends (`GAME_ENDED` of a game with a `tournament_id`): `tournament.result`
  (the crosstable after it, in the tournament's thread) and `tournament.advance`;
- `tournament.advance` pairs the next round when the last one is over (`ROUND_PAIRED`:
  `tournament.round`, the pairings post; each new game's `GAME_STARTED`:
  `tournament.game`, its post in the channel, then `game.started`, its thread and intro),
  or ends the tournament after the last round (`TOURNAMENT_FINISHED`: `tournament.final`);
- a start time (`TOURNAMENT_CREATED`: `tournament.start` at that time) and a Swiss round's
  deadline (`ROUND_PAIRED`: `tournament.deadline` at that time) are effects due later;
- a withdrawal (`PLAYER_WITHDREW`) resigns the player's games in the same transaction (each
  posts in its thread like any resignation) and records `tournament.withdrawal` and
  `tournament.advance`; a round's deadline draws its games still going
  (`ROUND_DEADLINE_PASSED`: `tournament.deadline_passed`).

Posts run in the tournament's queue (`tournament:<id>`, in order); advancing runs in a queue
of its own, so a post Discord refuses never holds the tournament up. `tournament.advance`,
`tournament.start` and `tournament.deadline` are carried out here; the posts by the Discord
layer (`bot/announce_tournaments.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.service import consequences, limits
from bot.service.effects import EffectRegistry, EffectRun, GiveUp, Handler
from bot.service.errors import BadRequestError
from bot.service.games import ALLOWED_DAYS, GameService
from bot.service.inputs import player_text
from bot.service.models import Picture, UserRef
from bot.service.ratings import game_scores
from rules.game import Game as RulesGame
from storage.crashpoints import crashpoint
from storage.errors import ConflictError, TournamentNotFoundError
from storage.models import (
    DAY,
    Board,
    Color,
    EventKind,
    GameStatus,
    NewBoard,
    NewEffect,
    NewGame,
    NewTournament,
    StorageEvent,
    Tournament,
    TournamentPlayer,
)
from tournament import berger
from tournament.model import Colour, Entrant, Pairing, Result
from tournament.standings import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Crosstable,
    Standings,
    compute_standings,
    crosstable,
    text_table,
)
from tournament.swiss import NoPairingError, pair_swiss_round

LIVE = ("signup", "running")
"""Tournaments that count towards the server's limit."""
MAX_NAME = 80
"""A tournament's name: a title, a thread's name (100 characters with its trophy)."""
MAX_ROUND_ROBIN = 16
MAX_SWISS = 64
BYE_POINTS = {"1": Fraction(1), "1/2": Fraction(1, 2), "0": Fraction(0)}
FORMAT_NAMES = {"round-robin": "round robin", "swiss": "Swiss"}

# Effects: the transitions carried out here, and the posts (bot/announce_tournaments.py).
ADVANCE = "tournament.advance"
START = "tournament.start"
DEADLINE = "tournament.deadline"
STARTED = "tournament.started"
ROUND = "tournament.round"
GAME = "tournament.game"
RESULT = "tournament.result"
WITHDRAWAL = "tournament.withdrawal"
DEADLINE_PASSED = "tournament.deadline_passed"
FINAL = "tournament.final"
CANCELLED = "tournament.cancelled"
POSTS = (STARTED, ROUND, RESULT, WITHDRAWAL, DEADLINE_PASSED, FINAL, CANCELLED)
"""Posts in the tournament's thread (or edits of its sign-up post), in its queue."""


@dataclass(frozen=True, slots=True)
class TournamentView:
    tournament: Tournament
    variant_name: str
    players: tuple[tuple[int, str], ...]  # (user id, name), in sign-up order or by number

    @property
    def format_name(self) -> str:
        t = self.tournament
        name = FORMAT_NAMES[t.format]
        return f"double {name}" if t.cycles == 2 else name


@dataclass(frozen=True, slots=True)
class Table:
    """Standings as players see them: the crosstable (for the picture) and its text."""

    view: TournamentView
    standings: Standings
    crosstable: Crosstable
    text: str
    pairings: tuple[Pairing, ...]
    boards: tuple[Board, ...]

    def games_of_round(self, round_no: int) -> list[Board]:
        return [b for b in self.boards if b.round == round_no]

    def board(self, round_no: int, board_no: int) -> Board | None:
        return next((b for b in self.boards if (b.round, b.board) == (round_no, board_no)), None)


def points_of(board: Board) -> Result | None:
    """The board's result: the stored points of a bye or forfeit, or its game's result (a
    game's score as ratings count it: 1, ½, 0, or 3/5 for a Bat Chess stalemate). An aborted
    game (a moderator's cancel) scores nothing for either side."""
    game = board.game
    if board.game_id is None or game is None:
        if board.white_points is None:
            return None
        black = Fraction(board.black_points or "0")
        return Result(Fraction(board.white_points), black, played=False)
    if game.status is GameStatus.ACTIVE:
        return None
    if game.status is GameStatus.ABORTED or game.result is None:
        return Result(Fraction(0), Fraction(0), played=False)
    white, black = (Fraction(x).limit_denominator(10) for x in game_scores(game))
    return Result(white, black)


def posts_queue(tournament_id: int) -> str:
    return f"tournament:{tournament_id}"


def _post(kind: str, t: Tournament, *key: int, **payload: object) -> NewEffect:
    """A post in the tournament's queue; `key` (with the kind and tournament) makes its
    recording idempotent."""
    return NewEffect(
        kind,
        {"tournament_id": t.id, **payload},
        queue=posts_queue(t.id),
        dedupe_key=":".join(str(part) for part in (kind, t.id, *key)),
    )


def _advance(tournament_id: int) -> NewEffect:
    return NewEffect(
        ADVANCE, {"tournament_id": tournament_id}, queue=f"tournament-advance:{tournament_id}"
    )


# --- the rules: what each event sets off (pure, run inside the event's transaction) --------


def on_game_started(event: StorageEvent) -> list[NewEffect]:
    """A tournament game: its post in the tournament's channel, then its thread (opened from
    that post) and first post, in the game's queue."""
    game = event.game
    if game is None or game.tournament_id is None:
        return []
    payload = {"tournament_id": game.tournament_id}
    return [
        NewEffect(GAME, payload, game.id),
        NewEffect(consequences.STARTED, {"ply": 0, "by": None}, game.id),
    ]


def on_game_ended(event: StorageEvent) -> list[NewEffect]:
    game = event.game
    if game is None or game.tournament_id is None:
        return []
    out = []
    if event.part_of is None:  # a withdrawal's or a deadline's own post tells the rest
        out.append(
            NewEffect(
                RESULT,
                {"tournament_id": game.tournament_id},
                game.id,
                queue=posts_queue(game.tournament_id),
            )
        )
    out.append(_advance(game.tournament_id))
    return out


def on_created(event: StorageEvent) -> list[NewEffect]:
    t = event.tournament
    if t is None or t.starts_at is None:
        return []
    return [
        NewEffect(
            START,
            {"tournament_id": t.id},
            dedupe_key=f"{START}:{t.id}",
            not_before=t.starts_at,
        )
    ]


def on_started(event: StorageEvent) -> list[NewEffect]:
    return [] if event.tournament is None else [_post(STARTED, event.tournament)]


def on_round_paired(event: StorageEvent) -> list[NewEffect]:
    t, round_no = event.tournament, event.round
    if t is None or round_no is None:
        return []
    out = [_post(ROUND, t, round_no, round=round_no)]
    if t.round_deadline_at is not None and round_no == t.current_round:
        out.append(
            NewEffect(
                DEADLINE,
                {"tournament_id": t.id, "round": round_no},
                dedupe_key=f"{DEADLINE}:{t.id}:{round_no}",
                not_before=t.round_deadline_at,
            )
        )
    return out


def on_withdrew(event: StorageEvent) -> list[NewEffect]:
    t, user_id = event.tournament, event.actor_id
    if t is None or user_id is None:
        return []
    post = _post(WITHDRAWAL, t, user_id, user_id=user_id, games=list(event.games))
    return [post, _advance(t.id)]


def on_deadline_passed(event: StorageEvent) -> list[NewEffect]:
    t, round_no = event.tournament, event.round
    if t is None or round_no is None:
        return []
    return [_post(DEADLINE_PASSED, t, round_no, round=round_no, games=list(event.games))]


def on_finished(event: StorageEvent) -> list[NewEffect]:
    return [] if event.tournament is None else [_post(FINAL, event.tournament)]


def on_cancelled(event: StorageEvent) -> list[NewEffect]:
    return [] if event.tournament is None else [_post(CANCELLED, event.tournament)]


class TournamentService:
    def __init__(self, games: GameService, rng: random.Random | None = None) -> None:
        self.games = games
        self.storage = games.storage
        self.clock = games.clock
        self.rng = rng or random.SystemRandom()

    # ------------------------------------------------------------------ creating

    async def may_organise(self, guild_id: int, manage_server: bool, role_ids: set[int]) -> bool:
        """Manage Server, or the organisers' role set for the server with /config."""
        if manage_server:
            return True
        role = (await self.storage.guilds.get(guild_id)).organiser_role_id
        return role is not None and role in role_ids

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        organiser: UserRef,
        name: str,
        variant: str,
        format: str,
        rounds: int | None = None,
        days_per_move: int | None = None,
        rated: bool = True,
        max_players: int | None = None,
        starts_in_hours: int | None = None,
        double: bool = False,
        round_by_round: bool = False,
        bye: str = "1",
        round_days: int | None = None,
        options: str = "",
    ) -> TournamentView:
        name = player_text("name", name, limit=MAX_NAME, required=True)
        if format not in FORMAT_NAMES:
            raise BadRequestError("The format is round-robin or swiss.")
        swiss = format == "swiss"
        resolved = await self.games.variants.resolve(guild_id, variant, options)
        v = resolved.variant
        limit = MAX_SWISS if swiss else MAX_ROUND_ROBIN
        max_players = max_players or (32 if swiss else 8)
        if not 2 <= max_players <= limit:
            raise BadRequestError(
                f"A {FORMAT_NAMES[format]} takes 2 to {limit} players"
                + (" (the crosstable must stay readable)." if not swiss else ".")
            )
        if rounds is not None and not swiss:
            raise BadRequestError("Rounds are for a Swiss; a round robin has one per opponent.")
        if rounds is not None and not 1 <= rounds <= 20:
            raise BadRequestError("A Swiss has 1 to 20 rounds.")
        if double and swiss:
            raise BadRequestError("Double is for a round robin (everyone meets twice).")
        if round_by_round and swiss:
            raise BadRequestError("A Swiss is always paired round by round.")
        if bye not in BYE_POINTS:
            raise BadRequestError("A bye scores 1, 1/2 or 0.")
        if round_days is not None and not swiss:
            raise BadRequestError("A round deadline is for a Swiss.")
        if round_days is not None and not 1 <= round_days <= 90:
            raise BadRequestError("A round deadline is 1 to 90 days.")
        if days_per_move is not None and days_per_move not in (0, *ALLOWED_DAYS):
            allowed = ", ".join(str(d) for d in ALLOWED_DAYS)
            raise BadRequestError(f"Days per move must be one of {allowed}, or 0 for no clock.")
        if starts_in_hours is not None and not 1 <= starts_in_hours <= 24 * 60:
            raise BadRequestError("The start is 1 hour to 60 days from now.")
        settings = await self.storage.guilds.get(guild_id)
        if rated and not settings.rated_allowed:
            raise BadRequestError("Rated games are switched off on this server; use rated: False.")
        going = [t for t in await self.storage.tournaments.in_guild(guild_id) if t.status in LIVE]
        if len(going) >= limits.TOURNAMENTS_PER_SERVER:
            raise limits.LimitError(
                f"This server already runs {len(going)} tournaments (in sign-up or playing), "
                "the most it may run at once: create this one when one of them is over, or "
                "cancel one still in sign-up (/tournament cancel)."
            )
        clock = self.games.clock_for(days_per_move, settings.default_move_seconds, bank=False)
        now = self.clock.now()
        await self.games.seen(organiser)
        created = await self.storage.tournaments.create(
            NewTournament(
                guild_id=guild_id,
                channel_id=channel_id,
                name=name,
                variant_id=resolved.key,
                options=tuple(sorted(v.options)),
                format=format,
                created_by=organiser.id,
                cycles=2 if double else 1,
                rounds=rounds or 0,
                all_at_once=not round_by_round,
                clock=clock,
                rated=rated,
                max_players=max_players,
                starts_at=None if starts_in_hours is None else now + starts_in_hours * 3600,
                round_seconds=None if round_days is None else round_days * DAY,
                bye_points=bye,
                initial_colour=self.rng.choice(("white", "black")),
                definition_digest=resolved.digest,
            ),
            now,
        )
        return await self.view(created.id)

    async def set_signup_message(self, tournament_id: int, message_id: int) -> None:
        await self.storage.tournaments.set_message(tournament_id, message_id)

    async def set_thread(self, tournament_id: int, thread_id: int) -> Tournament:
        return await self.storage.tournaments.set_thread(tournament_id, thread_id)

    async def view(self, tournament_id: int) -> TournamentView:
        t = await self.storage.tournaments.get(tournament_id)
        players = await self.storage.tournaments.players(tournament_id)
        if any(p.number is not None for p in players):
            players = sorted(players, key=lambda p: p.number or 0)
        names = tuple([(p.user_id, await self.games.name_of(p.user_id)) for p in players])
        variant = await self.games.variants.pinned(t.variant_id, t.options, t.definition_digest)
        return TournamentView(t, variant.name, names)

    async def find(self, guild_id: int, channel_id: int, text: str | None) -> Tournament:
        """The tournament named (`#12` or its name), or the one whose thread (or one of
        whose games' threads) this is, or the guild's only running (then sign-up) one."""
        found = await self.storage.tournaments.in_guild(guild_id)
        if text:
            key = text.strip().lstrip("#")
            for t in found:
                if (
                    key.isascii() and key.isdigit() and t.id == int(key)
                ) or t.name.lower() == text.strip().lower():
                    return t
            raise BadRequestError(f"There is no tournament {text.strip()!r} on this server.")
        here = await self.storage.tournaments.by_thread(channel_id)
        if here is None:
            game = await self.storage.games.find_by_thread(channel_id)
            if game is not None and game.tournament_id is not None:
                here = await self.storage.tournaments.get(game.tournament_id)
        if here is not None and here.guild_id == guild_id:
            return here
        for status in ("running", "signup"):
            current = [t for t in found if t.status == status]
            if len(current) == 1:
                return current[0]
            if current:
                names = ", ".join(f"#{t.id} {t.name}" for t in current[:5])
                raise BadRequestError(f"Several tournaments are {status}: name one ({names}).")
        raise BadRequestError("There is no tournament on this server yet: /tournament create.")

    # ------------------------------------------------------------------ sign-up

    async def _here(self, tournament_id: int, guild_id: int | None) -> None:
        """Refused unless the tournament is this server's (its buttons answer where its
        sign-up post is)."""
        if guild_id is not None:
            t = await self.storage.tournaments.get(tournament_id)
            if t.guild_id != guild_id:
                raise BadRequestError(f"There is no tournament #{tournament_id} on this server.")

    async def join(
        self, tournament_id: int, user: UserRef, *, guild_id: int | None = None
    ) -> TournamentView:
        if user.bot:
            raise BadRequestError("Bots cannot play.")
        await self._here(tournament_id, guild_id)
        await self.games.seen(user)
        await self.storage.tournaments.join(tournament_id, user.id, self.clock.now())
        return await self.view(tournament_id)

    async def leave(
        self, tournament_id: int, user: UserRef, *, guild_id: int | None = None
    ) -> TournamentView:
        await self._here(tournament_id, guild_id)
        await self.storage.tournaments.leave(tournament_id, user.id)
        return await self.view(tournament_id)

    async def cancel(self, tournament_id: int) -> TournamentView:
        await self.storage.tournaments.cancel(tournament_id, self.clock.now(), "cancelled")
        return await self.view(tournament_id)

    async def start(self, tournament_id: int) -> TournamentView:
        """Closes sign-up and pairs the first round (every round of a round robin played all
        at once). Refused with fewer than two players; a second start changes nothing."""
        t = await self.storage.tournaments.get(tournament_id)
        if t.status != "signup":
            raise BadRequestError("This tournament has already started.")
        players = await self.storage.tournaments.players(tournament_id)
        if len(players) < 2:
            raise BadRequestError("A tournament needs at least two players to start.")
        numbers = await self._numbers(t, players)
        entrants = [Entrant(p.user_id, numbers[p.user_id]) for p in players]
        n = len(players)
        if t.swiss:
            most = n - 1 + n % 2
            rounds = min(t.rounds or math.ceil(math.log2(n)) + 1, most)
            first = pair_swiss_round(entrants, [], 1, initial_colour=Colour(t.initial_colour))
            boards = await self._boards(t, first, entrants)
        else:
            schedule = berger.schedule_pairings(
                {number: user for user, number in numbers.items()}, t.cycles
            )
            rounds = max(p.round for p in schedule)
            wanted = schedule if t.all_at_once else [p for p in schedule if p.round == 1]
            boards = await self._boards(t, wanted, entrants)
        now = self.clock.now()
        with contextlib.suppress(ConflictError):  # started meanwhile: the same start
            await self.storage.tournaments.start(
                tournament_id, numbers, rounds, boards, now, self._deadline(t, now)
            )
            crashpoint("event.committed:tournament-start")
        return await self.view(tournament_id)

    async def start_due(self, tournament_id: int) -> None:
        """The start time came (`tournament.start`): start, or cancel with fewer than two
        players. Nothing if the organiser started or cancelled it already."""
        t = await self.storage.tournaments.get(tournament_id)
        now = self.clock.now()
        if t.status != "signup" or t.starts_at is None or t.starts_at > now:
            return
        if len(await self.storage.tournaments.players(tournament_id)) < 2:
            with contextlib.suppress(ConflictError):
                await self.storage.tournaments.cancel(
                    tournament_id, now, "fewer than two players signed up"
                )
            return
        with contextlib.suppress(BadRequestError):  # started by hand meanwhile
            await self.start(tournament_id)

    async def _numbers(self, t: Tournament, players: list[TournamentPlayer]) -> dict[int, int]:
        """Pairing numbers: drawn by lot for a round robin (ICCF's custom), by rating in
        the variant for a Swiss (sign-up order breaks ties)."""
        if not t.swiss:
            order = [p.user_id for p in players]
            self.rng.shuffle(order)
        else:
            ratings = {
                p.user_id: (await self.games.ratings.rating(p.user_id, t.variant_id)).rating
                for p in players
            }
            order = [
                p.user_id for p in sorted(players, key=lambda p: (-ratings[p.user_id], p.joined_at))
            ]
        return {user: i for i, user in enumerate(order, start=1)}

    async def _boards(
        self, t: Tournament, pairings: Sequence[Pairing], entrants: Sequence[Entrant]
    ) -> list[NewBoard]:
        """Boards to store: a game for each pairing of two active players, the bye's points,
        or a forfeit against a withdrawn player (round robin)."""
        active = {e.id for e in entrants if e.active}
        base = await self.games.variants.pinned(t.variant_id, t.options, t.definition_digest)
        start = RulesGame(base)
        out: list[NewBoard] = []
        boards_in_round: dict[int, int] = {}
        for p in pairings:
            board = boards_in_round.get(p.round, 0) + 1
            if p.black is None:
                if not t.swiss:
                    continue  # the odd player out of a round robin simply rests
                boards_in_round[p.round] = board
                out.append(NewBoard(p.round, board, p.white, None, white_points=t.bye_points))
                continue
            boards_in_round[p.round] = board
            if p.white not in active or p.black not in active:
                white_lost = p.white not in active
                out.append(
                    NewBoard(
                        p.round,
                        board,
                        p.white,
                        p.black,
                        white_points="0" if white_lost else "1",
                        black_points="1" if white_lost else "0",
                    )
                )
                continue
            # A random setup: each game its own array, drawn as it is paired.
            v, options = await self.games.variants.with_drawn_setup(
                base, t.variant_id, t.options, t.definition_digest
            )
            game_start = start if v is base else RulesGame(v)
            game = NewGame(
                guild_id=t.guild_id,
                channel_id=t.channel_id,
                white_id=p.white,
                black_id=p.black,
                variant_id=t.variant_id,
                start_position=game_start.position_text,
                options=options,
                rated=t.rated,
                clock=t.clock,
                tournament_id=t.id,
                definition_digest=t.definition_digest,
                first=Color.BLACK if game_start.side_to_move else Color.WHITE,
            )
            out.append(NewBoard(p.round, board, p.white, p.black, game=game))
        return out

    def _deadline(self, t: Tournament, now: int) -> int | None:
        return None if t.round_seconds is None else now + t.round_seconds

    # ------------------------------------------------------------------ playing

    async def withdraw(self, tournament_id: int, user: UserRef) -> list[int]:
        """The player leaves a running tournament: in one transaction their games in
        progress are resigned (they count as losses, and each thread says so), a round
        robin's boards still to come are scored as losses without being played, and a Swiss
        stops pairing them. Returns the games resigned. In sign-up, this is leaving."""
        t = await self.storage.tournaments.get(tournament_id)
        if t.status == "signup":
            await self.leave(tournament_id, user)
            return []
        if t.status != "running":
            raise BadRequestError("This tournament is over.")
        _, resigned = await self.storage.tournaments.withdraw(
            tournament_id, user.id, self.clock.now()
        )
        crashpoint("event.committed:withdraw")
        return resigned

    async def advance(self, tournament_id: int) -> None:
        """Pairs the next round when every board so far has its result, or ends the
        tournament after the last round (`tournament.advance`). Guarded in storage: running
        it twice, concurrently or after a crash, changes nothing more."""
        t = await self.storage.tournaments.get(tournament_id)
        if t.status != "running":
            return
        entrants, history, _boards = await self._state(t)
        if any(p.result is None for p in history):
            return
        now = self.clock.now()
        last = max((p.round for p in history), default=0)
        if last >= t.rounds:
            await self.storage.tournaments.finish(tournament_id, now)
            crashpoint("event.committed:tournament-finish")
            return
        nxt = t.current_round + 1
        if t.swiss:
            try:
                pairings = await asyncio.to_thread(
                    pair_swiss_round,
                    entrants,
                    history,
                    nxt,
                    initial_colour=Colour(t.initial_colour),
                )
            except NoPairingError as exc:
                await self.storage.tournaments.finish(
                    tournament_id, now, f"round {nxt} could not be paired: {exc}"
                )
                return
        else:
            numbers = {e.number: e.id for e in entrants}
            pairings = [p for p in berger.schedule_pairings(numbers, t.cycles) if p.round == nxt]
        boards = await self._boards(t, pairings, entrants)
        try:
            await self.storage.tournaments.next_round(
                tournament_id, t.current_round, boards, now, self._deadline(t, now)
            )
        except ConflictError:
            return  # paired meanwhile
        crashpoint("event.committed:round-paired")

    async def round_deadline(self, tournament_id: int, round_no: int) -> list[int]:
        """A Swiss round's deadline came (`tournament.deadline`): its games still going are
        drawn, unrated (decided by the round's clock, not over the board); the next round
        follows from their ends. Nothing if the round is over already."""
        drawn = await self.storage.tournaments.end_round(tournament_id, round_no, self.clock.now())
        crashpoint("event.committed:round-deadline")
        return drawn

    # ------------------------------------------------------------------ reading

    async def _state(self, t: Tournament) -> tuple[list[Entrant], list[Pairing], list[Board]]:
        players = await self.storage.tournaments.players(t.id)
        entrants = [
            Entrant(
                p.user_id, p.number or 0, await self.games.name_of(p.user_id), p.withdrawn_after
            )
            for p in players
        ]
        boards = await self.storage.tournaments.pairings(t.id)
        history = [Pairing(b.round, b.board, b.white_id, b.black_id, points_of(b)) for b in boards]
        return entrants, history, boards

    async def table(self, tournament_id: int) -> Table:
        t = await self.storage.tournaments.get(tournament_id)
        view = await self.view(tournament_id)
        entrants, history, boards = await self._state(t)
        standings = compute_standings(
            entrants, history, SWISS_TIEBREAKS if t.swiss else ROUND_ROBIN_TIEBREAKS
        )
        done = sum(1 for p in history if p.result is not None and p.black is not None)
        games = sum(1 for p in history if p.black is not None)
        if t.status == "signup":
            progress = f"sign-up: {len(entrants)} of {t.max_players} players"
        elif t.status == "finished":
            progress = "final standings"
        elif t.swiss:
            progress = f"round {t.current_round} of {t.rounds}"
        else:
            progress = f"{done} of {games} games played"
        subtitle = f"{view.variant_name} · {view.format_name} · {progress}"
        grid = crosstable(
            standings,
            history,
            title=t.name,
            subtitle=subtitle,
            swiss=t.swiss,
            rounds=max(t.rounds, 1),
        )
        return Table(view, standings, grid, text_table(grid), tuple(history), tuple(boards))

    async def picture(self, table: Table) -> Picture:
        """The crosstable picture, drawn in a worker thread."""
        if self.games.pictures is None:
            raise BadRequestError("Pictures are not available.")
        return await asyncio.to_thread(self.games.pictures.crosstable, table.crosstable)


def install(registry: EffectRegistry, service: TournamentService) -> None:
    """Attaches the rules above to storage events and registers the transitions carried out
    as effects. The posts' handlers are the Discord layer's (`bot.announce_tournaments`)."""
    registry.on(EventKind.GAME_STARTED, on_game_started)
    registry.on(EventKind.GAME_ENDED, on_game_ended)
    registry.on(EventKind.TOURNAMENT_CREATED, on_created)
    registry.on(EventKind.TOURNAMENT_STARTED, on_started)
    registry.on(EventKind.ROUND_PAIRED, on_round_paired)
    registry.on(EventKind.PLAYER_WITHDREW, on_withdrew)
    registry.on(EventKind.ROUND_DEADLINE_PASSED, on_deadline_passed)
    registry.on(EventKind.TOURNAMENT_FINISHED, on_finished)
    registry.on(EventKind.TOURNAMENT_CANCELLED, on_cancelled)

    async def advance(run: EffectRun) -> None:
        await service.advance(tournament_of(run))

    async def start(run: EffectRun) -> None:
        await service.start_due(tournament_of(run))

    async def deadline(run: EffectRun) -> None:
        round_no = run.effect.payload.get("round")
        if not isinstance(round_no, int):
            raise GiveUp("a round deadline without its round")
        await service.round_deadline(tournament_of(run), round_no)

    registry.register(ADVANCE, _known(advance))
    registry.register(START, _known(start))
    registry.register(DEADLINE, _known(deadline))


def tournament_of(run: EffectRun) -> int:
    """The tournament an effect is about (its payload's `tournament_id`)."""
    tournament_id = run.effect.payload.get("tournament_id")
    if not isinstance(tournament_id, int):
        raise GiveUp(f"a {run.effect.kind} effect without a tournament")
    return tournament_id


def _known(handler: Handler) -> Handler:
    """A tournament that no longer exists cannot be acted on: give up at once."""

    async def run(effect_run: EffectRun) -> None:
        try:
            await handler(effect_run)
        except TournamentNotFoundError as exc:
            raise GiveUp(str(exc)) from exc

    return run
