"""Tournaments without Discord: sign-up, start, rounds, withdrawals, standings.

The state lives in storage (`storage.tournaments`); pairing and standings are computed by
`tournament/` from it every time, so nothing here is kept in memory between calls.
`advance` is the one transition function: it looks at the stored state and does whatever
is due — records the results that owe a post, pairs the next round when the previous one
is over (or at its deadline), ends the tournament after the last — each step guarded in
storage so that running it twice, concurrently or after a crash, changes nothing more.
The posts each step owes are recorded with it and carried out by the bot (`bot.tournaments`).
"""

from __future__ import annotations

import contextlib
import math
import random
from dataclasses import dataclass
from fractions import Fraction

from bot.service.errors import BadRequestError
from bot.service.games import ALLOWED_DAYS, GameService
from bot.service.models import Picture, UserRef
from bot.service.pictures import png_size
from rules.game import Game as RulesGame
from rules.outcome import Outcome as RulesOutcome
from storage.errors import ConflictError
from storage.models import DAY, NewGame
from storage.tournaments import (
    NewBoard,
    NewTournament,
    PairingRow,
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

MAX_ROUND_ROBIN = 16
MAX_SWISS = 64
BYE_POINTS = {"1": Fraction(1), "1/2": Fraction(1, 2), "0": Fraction(0)}
FORMAT_NAMES = {"round-robin": "round robin", "swiss": "Swiss"}


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
    games: dict[tuple[int, int], int]  # (round, board) -> game id


def points_of(row: PairingRow, detail: str = "") -> Result | None:
    """The board's result: the stored points of a bye or forfeit, or its game's result."""
    if row.game_id is None:
        if row.white_points is None:
            return None
        black = Fraction(row.black_points or "0")
        return Result(Fraction(row.white_points), black, played=False)
    if row.game_status == "active" or row.game_status is None:
        return None
    if row.game_status == "aborted" or row.game_result is None:
        return Result(Fraction(0), Fraction(0), played=False)
    if row.game_termination == "rules" and detail:
        try:
            outcome = RulesOutcome.from_text(detail)
        except ValueError:
            outcome = None
        if outcome is not None:
            white, black = (Fraction(x).limit_denominator(10) for x in outcome.score)
            return Result(white, black)
    return {
        "1-0": Result.of(1, 0),
        "0-1": Result.of(0, 1),
        "1/2-1/2": Result.of("1/2", "1/2"),
    }[row.game_result]


class TournamentService:
    def __init__(self, games: GameService, rng: random.Random | None = None) -> None:
        self.games = games
        self.storage = games.storage
        self.clock = games.clock
        self.rng = rng or random.SystemRandom()

    # ------------------------------------------------------------------ creating

    async def may_organise(self, guild_id: int, manage_server: bool, role_ids: set[int]) -> bool:
        """Manage Server, or the organisers' role set for the server."""
        if manage_server:
            return True
        role = await self.storage.tournaments.organiser_role(guild_id)
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
        name = " ".join(name.split())
        if not name or len(name) > 80 or any(not ch.isprintable() for ch in name):
            raise BadRequestError("Give the tournament a name of 1 to 80 printable characters.")
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
        clock = self.games._clock_for(days_per_move, settings.default_move_seconds, False)
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

    async def set_thread(self, tournament_id: int, thread_id: int) -> None:
        await self.storage.tournaments.set_thread(tournament_id, thread_id)

    async def view(self, tournament_id: int) -> TournamentView:
        t = await self.storage.tournaments.get(tournament_id)
        players = await self.storage.tournaments.players(tournament_id)
        if any(p.number is not None for p in players):
            players = sorted(players, key=lambda p: p.number or 0)
        names = tuple([(p.user_id, await self.games.name_of(p.user_id)) for p in players])
        variant = await self.games.variants.pinned(t.variant_id, t.options, t.definition_digest)
        return TournamentView(t, variant.name, names)

    async def find(self, guild_id: int, channel_id: int, text: str | None) -> Tournament:
        """The tournament named (`#12` or its name), or the one whose thread this is, or the
        guild's only running (then sign-up) tournament."""
        found = await self.storage.tournaments.in_guild(guild_id)
        if text:
            key = text.strip().lstrip("#")
            for t in found:
                if (
                    key.isascii() and key.isdigit() and t.id == int(key)
                ) or t.name.lower() == text.strip().lower():
                    return t
            raise BadRequestError(f"There is no tournament {text.strip()!r} on this server.")
        here = await self.storage.tournaments.by_channel(channel_id)
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

    async def join(self, tournament_id: int, user: UserRef) -> TournamentView:
        if user.bot:
            raise BadRequestError("Bots cannot play.")
        await self.games.seen(user)
        await self.storage.tournaments.join(tournament_id, user.id, self.clock.now())
        return await self.view(tournament_id)

    async def leave(self, tournament_id: int, user: UserRef) -> TournamentView:
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
        return await self.view(tournament_id)

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
        self, t: Tournament, pairings: list[Pairing], entrants: list[Entrant]
    ) -> list[NewBoard]:
        """Boards to store: a game for each pairing of two active players, the bye's points,
        or a forfeit against a withdrawn player (round robin)."""
        active = {e.id for e in entrants if e.active}
        start = RulesGame(
            await self.games.variants.pinned(t.variant_id, t.options, t.definition_digest)
        )
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
            game = NewGame(
                guild_id=t.guild_id,
                channel_id=t.channel_id,
                white_id=p.white,
                black_id=p.black,
                variant_id=t.variant_id,
                start_position=start.position_text,
                options=t.options,
                rated=t.rated,
                clock=t.clock,
                definition_digest=t.definition_digest,
            )
            out.append(NewBoard(p.round, board, p.white, p.black, game=game))
        return out

    def _deadline(self, t: Tournament, now: int) -> int | None:
        return None if t.round_seconds is None else now + t.round_seconds

    # ------------------------------------------------------------------ playing

    async def withdraw(self, tournament_id: int, user: UserRef) -> list[int]:
        """The player leaves a running tournament: their games in progress are resigned
        (they count as losses), a round robin's later rounds are scored as losses without
        being played, and a Swiss stops pairing them. Returns the games resigned."""
        t = await self.storage.tournaments.get(tournament_id)
        if t.status == "signup":
            await self.leave(tournament_id, user)
            return []
        if t.status != "running":
            raise BadRequestError("This tournament is over.")
        rows = await self.storage.tournaments.pairings(tournament_id)
        unplayed = sorted(
            {r.round for r in rows if r.game_id is None and user.id in (r.white_id, r.black_id)}
        )
        await self.storage.tournaments.withdraw(
            tournament_id, user.id, t.current_round, unplayed, self.clock.now()
        )
        resigned = []
        for r in rows:
            if (
                r.game_id is not None
                and r.game_status == "active"
                and user.id
                in (
                    r.white_id,
                    r.black_id,
                )
            ):
                try:
                    await self.games.resign(channel_id=0, user=user, game_id=r.game_id)
                except Exception:  # a game ending meanwhile is fine
                    continue
                resigned.append(r.game_id)
        return resigned

    async def advance(self, tournament_id: int) -> None:
        """Do whatever the stored state says is due (see the module's docstring)."""
        t = await self.storage.tournaments.get(tournament_id)
        now = self.clock.now()
        if t.status == "signup":
            if t.starts_at is not None and t.starts_at <= now:
                players = await self.storage.tournaments.players(tournament_id)
                if len(players) < 2:
                    await self.storage.tournaments.cancel(
                        tournament_id, now, "fewer than two players signed up"
                    )
                else:
                    await self.start(tournament_id)
            return
        if t.status != "running":
            return
        entrants, history, rows = await self._state(t)
        for row in rows:
            if row.game_id is not None and row.game_status not in (None, "active"):
                await self.storage.tournaments.note_result(tournament_id, row.game_id, now)
        current = [p for p in history if p.round == t.current_round]
        deadline_passed = t.round_deadline_at is not None and t.round_deadline_at <= now
        if deadline_passed and any(p.result is None for p in current):
            for row in rows:
                if row.round == t.current_round and row.game_status == "active":
                    assert row.game_id is not None
                    await self.storage.tournaments.adjudicate_draw(
                        row.game_id, now, "draw: the round's deadline passed"
                    )
            await self.advance(tournament_id)
            return
        if any(p.result is None for p in history):
            return
        last = max((p.round for p in history), default=0)
        if last >= t.rounds:
            await self.storage.tournaments.finish(tournament_id, now)
            return
        nxt = t.current_round + 1
        if t.swiss:
            try:
                pairings = pair_swiss_round(
                    entrants, history, nxt, initial_colour=Colour(t.initial_colour)
                )
            except NoPairingError as exc:
                await self.storage.tournaments.finish(
                    tournament_id, now, f"round {nxt} could not be paired: {exc}"
                )
                return
        else:
            numbers = {e.number: e.id for e in entrants}
            pairings = [p for p in berger.schedule_pairings(numbers, t.cycles) if p.round == nxt]
        try:
            await self.storage.tournaments.next_round(
                tournament_id, t.current_round, await self._boards(t, pairings, entrants), now,
                self._deadline(t, now),
            )  # fmt: skip
        except ConflictError:
            return  # paired meanwhile

    async def advance_all(self) -> None:
        """Everything due in every tournament: start times, round deadlines, finished
        rounds (run at start-up, after a game ends and when a deadline comes)."""
        now = self.clock.now()
        seen = set()
        for t in await self.storage.tournaments.due(now):
            seen.add(t.id)
            await self.advance(t.id)
        for t in await self.storage.tournaments.running():
            if t.id not in seen:
                await self.advance(t.id)

    async def next_due_at(self) -> int | None:
        return await self.storage.tournaments.next_due_at()

    # ------------------------------------------------------------------ reading

    async def _state(self, t: Tournament) -> tuple[list[Entrant], list[Pairing], list[PairingRow]]:
        players = await self.storage.tournaments.players(t.id)
        names = {p.user_id: await self.games.name_of(p.user_id) for p in players}
        entrants = [
            Entrant(p.user_id, p.number or 0, names[p.user_id], p.withdrawn_after) for p in players
        ]
        rows = await self.storage.tournaments.pairings(t.id)
        history = [
            Pairing(r.round, r.board, r.white_id, r.black_id, points_of(r, r.game_detail))
            for r in rows
        ]
        return entrants, history, rows

    async def table(self, tournament_id: int) -> Table:
        t = await self.storage.tournaments.get(tournament_id)
        view = await self.view(tournament_id)
        entrants, history, rows = await self._state(t)
        standings = compute_standings(
            entrants, history, SWISS_TIEBREAKS if t.swiss else ROUND_ROBIN_TIEBREAKS
        )
        done = sum(1 for p in history if p.result is not None and p.black is not None)
        games = sum(1 for p in history if p.black is not None)
        if t.status == "signup":
            progress = f"sign-up: {len(entrants)} of {t.max_players} players"
        elif t.swiss:
            progress = f"round {t.current_round} of {t.rounds}"
        else:
            progress = f"{done} of {games} games played"
        if t.status == "finished":
            progress = "final standings"
        subtitle = f"{view.variant_name} · {view.format_name} · {progress}"
        grid = crosstable(
            standings,
            history,
            title=t.name,
            subtitle=subtitle,
            swiss=t.swiss,
            rounds=max(t.rounds, 1),
        )
        games_at = {(r.round, r.board): r.game_id for r in rows if r.game_id is not None}
        return Table(view, standings, grid, text_table(grid), tuple(history), games_at)

    async def picture(self, table: Table) -> Picture:
        import asyncio

        from renderer.crosstable import render_crosstable

        png = await asyncio.to_thread(render_crosstable, table.crosstable)
        width, height = png_size(png)
        return Picture(png, width, height, "crosstable.png")
