"""Scores, tie-breaks and the crosstable of a tournament, from its pairings and results.

Tie-breaks (the order is the tournament's; see `tournament/README.md`):

* **Sonneborn-Berger** (round robin): for every finished game, the points the player scored
  in it times the opponent's score (a double round robin counts both games).
* **Direct encounter** (round robin): among players level on points and on the tie-breaks
  before it, the points each scored in the games between them.
* **Buchholz** (Swiss): the sum of the opponents' scores; a bye counts the player's own
  score, as if played against an opponent of equal strength.
* **Median Buchholz** (Swiss): the Buchholz without its highest and lowest contribution
  (when there are at least three).
* **Wins**: games won, including games a withdrawn opponent forfeited; a bye is no win.

Players still level after every tie-break share the place (`3–4`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from tournament.model import ZERO, Colour, Entrant, Pairing, points_text


class TieBreak(Enum):
    SONNEBORN_BERGER = "SB"
    DIRECT_ENCOUNTER = "DE"
    BUCHHOLZ = "Buch"
    MEDIAN_BUCHHOLZ = "Med"
    WINS = "Wins"

    @property
    def title(self) -> str:
        return _TITLES[self]


_TITLES = {
    TieBreak.SONNEBORN_BERGER: "Sonneborn-Berger",
    TieBreak.DIRECT_ENCOUNTER: "direct encounter",
    TieBreak.BUCHHOLZ: "Buchholz",
    TieBreak.MEDIAN_BUCHHOLZ: "median Buchholz",
    TieBreak.WINS: "wins",
}

ROUND_ROBIN_TIEBREAKS = (TieBreak.SONNEBORN_BERGER, TieBreak.DIRECT_ENCOUNTER, TieBreak.WINS)
SWISS_TIEBREAKS = (TieBreak.BUCHHOLZ, TieBreak.MEDIAN_BUCHHOLZ, TieBreak.WINS)


@dataclass(frozen=True, slots=True)
class StandingRow:
    place: int
    last_place: int  # the same as `place` unless the place is shared
    entrant: Entrant
    points: Fraction
    games: int  # finished games, forfeits included, byes not
    wins: int
    draws: int
    losses: int
    byes: int
    tiebreaks: tuple[Fraction | None, ...]  # None: not applicable (direct encounter, untied)

    @property
    def place_text(self) -> str:
        return (
            str(self.place) if self.last_place == self.place else f"{self.place}–{self.last_place}"
        )


@dataclass(frozen=True, slots=True)
class Standings:
    rows: tuple[StandingRow, ...]
    tiebreaks: tuple[TieBreak, ...]

    @property
    def leaders(self) -> tuple[StandingRow, ...]:
        return tuple(r for r in self.rows if r.place == 1)

    def row_of(self, player: int) -> StandingRow:
        for row in self.rows:
            if row.entrant.id == player:
                return row
        raise KeyError(player)


def scores(entrants: Sequence[Entrant], pairings: Sequence[Pairing]) -> dict[int, Fraction]:
    out = {e.id: ZERO for e in entrants}
    for p in pairings:
        for player in p.players:
            points = p.points_of(player)
            if points is not None and player in out:
                out[player] += points
    return out


def compute_standings(
    entrants: Sequence[Entrant],
    pairings: Sequence[Pairing],
    tiebreaks: Sequence[TieBreak],
) -> Standings:
    """The table after the finished games of `pairings` (running games count nothing)."""
    score = scores(entrants, pairings)
    finished = [p for p in pairings if p.result is not None]
    contributions: dict[int, list[Fraction]] = {e.id: [] for e in entrants}
    sb = {e.id: ZERO for e in entrants}
    wins = {e.id: 0 for e in entrants}
    draws = {e.id: 0 for e in entrants}
    losses = {e.id: 0 for e in entrants}
    byes = {e.id: 0 for e in entrants}
    for p in finished:
        if p.black is None:
            byes[p.white] += 1
            contributions[p.white].append(score[p.white])
            continue
        for player, opponent in ((p.white, p.black), (p.black, p.white)):
            mine, theirs = p.points_of(player), p.points_of(opponent)
            assert mine is not None and theirs is not None
            contributions[player].append(score[opponent])
            sb[player] += mine * score[opponent]
            if mine > theirs:
                wins[player] += 1
            elif mine < theirs:
                losses[player] += 1
            else:
                draws[player] += 1

    def plain(tb: TieBreak, player: int) -> Fraction:
        if tb is TieBreak.SONNEBORN_BERGER:
            return sb[player]
        if tb is TieBreak.BUCHHOLZ:
            return sum(contributions[player], ZERO)
        if tb is TieBreak.MEDIAN_BUCHHOLZ:
            values = sorted(contributions[player])
            if len(values) >= 3:
                values = values[1:-1]
            return sum(values, ZERO)
        if tb is TieBreak.WINS:
            return Fraction(wins[player])
        raise ValueError(tb)

    keys: dict[int, list[Fraction]] = {e.id: [score[e.id]] for e in entrants}
    shown: dict[int, list[Fraction | None]] = {e.id: [] for e in entrants}
    for tb in tiebreaks:
        if tb is TieBreak.DIRECT_ENCOUNTER:
            groups: dict[tuple[Fraction, ...], list[int]] = {}
            for e in entrants:
                groups.setdefault(tuple(keys[e.id]), []).append(e.id)
            for members in groups.values():
                among = set(members)
                for player in members:
                    value = ZERO
                    for p in finished:
                        if player in p.players and p.opponent_of(player) in among:
                            value += p.points_of(player) or ZERO
                    keys[player].append(value)
                    shown[player].append(value if len(members) > 1 else None)
        else:
            for e in entrants:
                keys[e.id].append(plain(tb, e.id))
                shown[e.id].append(keys[e.id][-1])

    ordered = sorted(entrants, key=lambda e: ([-k for k in keys[e.id]], e.number))
    rows: list[StandingRow] = []
    position = 1
    for _key, level in itertools.groupby(ordered, key=lambda e: tuple(keys[e.id])):
        group = list(level)
        last = position + len(group) - 1
        for e in group:
            rows.append(
                StandingRow(
                    position,
                    last,
                    e,
                    score[e.id],
                    wins[e.id] + draws[e.id] + losses[e.id],
                    wins[e.id],
                    draws[e.id],
                    losses[e.id],
                    byes[e.id],
                    tuple(shown[e.id]),
                )
            )
        position = last + 1
    return Standings(tuple(rows), tuple(tiebreaks))


# --- the crosstable ---------------------------------------------------------------------


class Tone(Enum):
    """How a crosstable cell is coloured."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    PENDING = "pending"  # a game in progress
    EMPTY = "empty"  # not paired (yet)
    SELF = "self"  # the diagonal of a round robin
    BYE = "bye"


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    tone: Tone


@dataclass(frozen=True, slots=True)
class CrosstableRow:
    number: int  # the row's number, which the round robin's columns refer to
    place: str
    name: str
    withdrawn: bool
    cells: tuple[Cell, ...]
    points: str
    tiebreaks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Crosstable:
    """A table ready to draw or print: one row per player in standings order; the cells
    are the round robin's opponents (by row number) or the Swiss rounds."""

    title: str
    subtitle: str
    columns: tuple[str, ...]
    rows: tuple[CrosstableRow, ...]
    tiebreaks: tuple[str, ...]
    swiss: bool


def _result_cell(mine: Fraction, theirs: Fraction, played: bool) -> tuple[str, Tone]:
    tone = Tone.WIN if mine > theirs else Tone.LOSS if mine < theirs else Tone.DRAW
    if not played:
        return ("+" if mine > theirs else "−" if mine < theirs else "="), tone
    return points_text(mine), tone


def crosstable(
    standings: Standings,
    pairings: Sequence[Pairing],
    *,
    title: str,
    subtitle: str = "",
    swiss: bool,
    rounds: int,
) -> Crosstable:
    """The crosstable of `standings`: a round robin's N×N grid (two results per cell in a
    double round robin), or a Swiss table of opponent, colour and result per round."""
    number = {row.entrant.id: i for i, row in enumerate(standings.rows, start=1)}
    rows: list[CrosstableRow] = []
    for row in standings.rows:
        player = row.entrant.id
        mine = sorted((p for p in pairings if player in p.players), key=lambda p: p.round)
        if swiss:
            cells = tuple(_swiss_cell(p, player, number) for p in _by_round(mine, rounds))
            columns = tuple(f"R{r}" for r in range(1, rounds + 1))
        else:
            cells = tuple(
                _round_robin_cell(mine, player, other.entrant.id) for other in standings.rows
            )
            columns = tuple(str(i) for i in range(1, len(standings.rows) + 1))
        rows.append(
            CrosstableRow(
                number[player],
                row.place_text,
                row.entrant.name or f"player {player}",
                not row.entrant.active,
                cells,
                points_text(row.points),
                tuple(
                    _tiebreak_text(tb, v)
                    for tb, v in zip(standings.tiebreaks, row.tiebreaks, strict=True)
                ),
            )
        )
    return Crosstable(
        title,
        subtitle,
        columns,
        tuple(rows),
        tuple(tb.value for tb in standings.tiebreaks),
        swiss,
    )


def _by_round(pairings: list[Pairing], rounds: int) -> list[Pairing | None]:
    at = {p.round: p for p in pairings}
    return [at.get(r) for r in range(1, rounds + 1)]


def _swiss_cell(p: Pairing | None, player: int, number: dict[int, int]) -> Cell:
    if p is None:
        return Cell("", Tone.EMPTY)
    if p.black is None:
        points = p.points_of(player)
        return Cell("bye" if points is None else f"bye {points_text(points)}", Tone.BYE)
    opponent = p.opponent_of(player)
    assert opponent is not None
    side = "w" if p.colour_of(player) is Colour.WHITE else "b"
    where = f"{number.get(opponent, '?')}{side}"
    if p.result is None:
        return Cell(f"{where} ·", Tone.PENDING)
    mine, theirs = p.points_of(player), p.points_of(opponent)
    assert mine is not None and theirs is not None
    text, tone = _result_cell(mine, theirs, p.result.played)
    return Cell(f"{where} {text}", tone)


def _round_robin_cell(mine: list[Pairing], player: int, other: int) -> Cell:
    if player == other:
        return Cell("", Tone.SELF)
    games = [p for p in mine if p.black is not None and other in p.players]
    if not games:
        return Cell("", Tone.EMPTY)
    texts: list[str] = []
    total_mine = total_theirs = ZERO
    pending = False
    for p in games:
        if p.result is None:
            texts.append("·")
            pending = True
            continue
        a, b = p.points_of(player), p.points_of(other)
        assert a is not None and b is not None
        text, _tone = _result_cell(a, b, p.result.played)
        texts.append(text)
        total_mine += a
        total_theirs += b
    if pending and len(texts) == texts.count("·"):
        tone = Tone.PENDING
    else:
        tone = (
            Tone.WIN
            if total_mine > total_theirs
            else Tone.LOSS
            if total_mine < total_theirs
            else Tone.DRAW
        )
    return Cell(" ".join(texts) if len(texts) > 1 else texts[0], tone)


def _tiebreak_text(tb: TieBreak, value: Fraction | None) -> str:
    return "" if value is None else points_text(value)


def text_table(table: Crosstable, *, limit: int = 1900) -> str:
    """The standings as a monospaced table for a code block (place, name, points and
    tie-breaks; the grid itself is the picture's job), cut to `limit` characters."""
    width = min(16, max([len(r.name) for r in table.rows] + [6]))
    head = f"{'#':>5} {'Player':<{width}} {'Pts':>4}" + "".join(
        f" {name:>5}" for name in table.tiebreaks
    )
    lines = [head]
    for row in table.rows:
        name = row.name if len(row.name) <= width else row.name[: width - 1] + "…"
        flag = "†" if row.withdrawn else " "
        lines.append(
            f"{row.place:>5} {name:<{width}}{flag}{row.points:>4}"
            + "".join(f" {t:>5}" for t in row.tiebreaks)
        )
    out = "\n".join(lines)
    if len(out) > limit:
        cut = out[: limit - 2].rsplit("\n", 1)[0]
        out = cut + "\n…"
    return out
