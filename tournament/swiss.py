"""Swiss pairing close to FIDE's Dutch system (FIDE Handbook C.04.3), for small fields.

The rules, and where they differ from the Dutch system, are written out in
`tournament/README.md`; in short:

* Absolute rules (never broken): no two players meet twice; nobody gets a second bye;
  nobody's colour difference leaves -2..+2 and nobody gets the same colour three times in
  a row. When no pairing keeps them all, `NoPairingError` says so (the tournament ends).
* The bye goes to a player of the lowest score that can take it while the others can still
  be paired (before any bracket's wishes), and within that score to the one the last
  bracket leaves over (in Dutch order, the lowest-ranked).
* Score brackets are paired top-down. In each, players are ranked by score, then pairing
  number; as many pairs as possible are made (the others float down), the pairing is
  chosen by the Dutch criteria in order — the scores of the floaters (lowest float first),
  colour preferences met, then repeated floats — and among equals the first in Dutch
  order: S1 (the top half) against S2 in the order of S2's transpositions, then exchanges
  between S1 and S2, smallest first. A bracket's pairs are taken only if everyone left
  below can still be paired (maximum matching).
* Colours follow the Dutch rules: both preferences if they differ, else the stronger
  preference, else alternate from the last round the two had different colours, else the
  higher-ranked player's preference; without preferences, the higher-ranked player gets
  the initial colour when their pairing number is odd.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from tournament.matching import maximum_matching
from tournament.model import ZERO, Colour, Entrant, Pairing

CANDIDATE_LIMIT = 4000
"""Candidates examined per bracket and pair count before the best one so far is taken (the
first candidates in Dutch order are nearly always the answer; this bounds the worst case)."""

ABSOLUTE, STRONG, MILD, NONE = 3, 2, 1, 0


class NoPairingError(Exception):
    """No pairing of the round keeps the absolute rules (rematches, second byes, colours)."""


@dataclass(frozen=True, slots=True)
class PlayerState:
    """What pairing needs to know about a player before the round."""

    id: int
    number: int
    score: Fraction
    colours: tuple[Colour, ...]  # of games actually played, in order
    opponents: frozenset[int]
    had_bye: bool
    floats: tuple[int, ...] = ()  # per past round: +1 floated down (or bye), -1 up, 0 none
    rank_key: tuple[Fraction, int] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rank_key", (-self.score, self.number))

    @property
    def difference(self) -> int:
        whites = sum(1 for c in self.colours if c is Colour.WHITE)
        return 2 * whites - len(self.colours)

    def preference(self) -> tuple[Colour | None, int]:
        """The colour this player should get and how strongly (FIDE A.6)."""
        if not self.colours:
            return None, NONE
        diff = self.difference
        last = self.colours[-1]
        twice = len(self.colours) >= 2 and self.colours[-2] is last
        if diff > 1 or (twice and last is Colour.WHITE):
            return Colour.BLACK, ABSOLUTE
        if diff < -1 or (twice and last is Colour.BLACK):
            return Colour.WHITE, ABSOLUTE
        if diff == 1:
            return Colour.BLACK, STRONG
        if diff == -1:
            return Colour.WHITE, STRONG
        return last.other, MILD

    def may_get(self, colour: Colour) -> bool:
        """False if `colour` would break an absolute colour rule."""
        diff = self.difference + (1 if colour is Colour.WHITE else -1)
        if abs(diff) > 2:
            return False
        return not (
            len(self.colours) >= 2 and self.colours[-1] is colour and self.colours[-2] is colour
        )

    def floated(self, rounds_ago: int) -> int:
        return self.floats[-rounds_ago] if len(self.floats) >= rounds_ago else 0


def player_states(
    entrants: Sequence[Entrant], history: Sequence[Pairing]
) -> dict[int, PlayerState]:
    """Scores, colours, opponents, byes and floats of every entrant from the past rounds."""
    by_round: dict[int, list[Pairing]] = {}
    for p in history:
        by_round.setdefault(p.round, []).append(p)
    score = {e.id: ZERO for e in entrants}
    colours: dict[int, list[Colour]] = {e.id: [] for e in entrants}
    opponents: dict[int, set[int]] = {e.id: set() for e in entrants}
    byes: set[int] = set()
    floats: dict[int, list[int]] = {e.id: [] for e in entrants}
    for r in sorted(by_round):
        before = dict(score)
        moved = {e.id: 0 for e in entrants}
        for p in by_round[r]:
            if p.black is None:
                byes.add(p.white)
                moved[p.white] = 1
            else:
                opponents[p.white].add(p.black)
                opponents[p.black].add(p.white)
                sw, sb = before.get(p.white, ZERO), before.get(p.black, ZERO)
                if sw != sb:
                    moved[p.white] = 1 if sw > sb else -1
                    moved[p.black] = -moved[p.white]
                if p.result is not None and p.result.played:
                    colours[p.white].append(Colour.WHITE)
                    colours[p.black].append(Colour.BLACK)
            if p.result is not None:
                for player in p.players:
                    points = p.points_of(player)
                    if points is not None and player in score:
                        score[player] += points
        for player, value in moved.items():
            floats[player].append(value)
    return {
        e.id: PlayerState(
            e.id,
            e.number,
            score[e.id],
            tuple(colours[e.id]),
            frozenset(opponents[e.id]),
            e.id in byes,
            tuple(floats[e.id]),
        )
        for e in entrants
    }


def compatible(a: PlayerState, b: PlayerState) -> bool:
    """May `a` and `b` meet: not met before, and some colour allocation keeps both rules."""
    if b.id in a.opponents or a.id == b.id:
        return False
    return (a.may_get(Colour.WHITE) and b.may_get(Colour.BLACK)) or (
        a.may_get(Colour.BLACK) and b.may_get(Colour.WHITE)
    )


def allocate_colours(
    a: PlayerState, b: PlayerState, initial: Colour
) -> tuple[PlayerState, PlayerState]:
    """(white, black) for a compatible pair, by the Dutch colour rules (FIDE E.1-E.5)."""
    high, low = (a, b) if a.rank_key <= b.rank_key else (b, a)
    ph, sh = high.preference()
    pl, sl = low.preference()
    if ph is None and pl is None:
        white_for_high = (initial if high.number % 2 else initial.other) is Colour.WHITE
    elif pl is None or (ph is not None and ph is not pl):
        assert ph is not None
        white_for_high = ph is Colour.WHITE
    elif ph is None:
        white_for_high = pl is Colour.BLACK
    elif sh != sl:
        white_for_high = (ph if sh > sl else pl.other) is Colour.WHITE
    else:
        white_for_high = ph is Colour.WHITE
        for ch, cl in zip(reversed(high.colours), reversed(low.colours), strict=False):
            if ch is not cl:
                white_for_high = ch is Colour.BLACK
                break
    white, black = (high, low) if white_for_high else (low, high)
    if not (white.may_get(Colour.WHITE) and black.may_get(Colour.BLACK)):
        white, black = black, white
    return white, black


def _colour_misses(a: PlayerState, b: PlayerState, initial: Colour) -> tuple[int, int]:
    """How many of the two miss their colour preference, and how many a strong one."""
    white, black = allocate_colours(a, b, initial)
    missed = strong = 0
    for player, got in ((white, Colour.WHITE), (black, Colour.BLACK)):
        wanted, strength = player.preference()
        if wanted is not None and wanted is not got:
            missed += 1
            strong += strength >= STRONG
    return missed, strong


_Pairs = list[tuple[PlayerState, PlayerState]]
_Candidate = tuple[_Pairs, list[PlayerState]]  # the pairs made, the players floating down
_Scored = tuple[tuple[object, ...], _Pairs, list[PlayerState]]


def _rank(s: PlayerState) -> tuple[Fraction, int]:
    return s.rank_key


def _score_of(s: PlayerState) -> Fraction:
    return s.score


class _Pairer:
    def __init__(self, states: Sequence[PlayerState], initial: Colour) -> None:
        self.initial = initial
        self._completable: dict[frozenset[int], bool] = {}
        self._compatible: dict[tuple[int, int], bool] = {}
        self.bye_score: Fraction | None = None  # the bye goes to a player with this score

    def ok(self, a: PlayerState, b: PlayerState) -> bool:
        key = (a.id, b.id) if a.id < b.id else (b.id, a.id)
        known = self._compatible.get(key)
        if known is None:
            known = self._compatible[key] = compatible(a, b)
        return known

    def matching(self, players: Sequence[PlayerState]) -> list[tuple[PlayerState, PlayerState]]:
        """A pairing of everyone in `players` under the absolute rules (with an odd count,
        one player who has not had a bye is left out for it), or [] if none exists."""
        adjacency = [
            [j for j, q in enumerate(players) if j != i and self.ok(p, q)]
            for i, p in enumerate(players)
        ]
        if len(players) % 2:
            bye = len(players)
            adjacency.append([i for i, p in enumerate(players) if self.may_take_bye(p)])
            for i in adjacency[bye]:
                adjacency[i].append(bye)
        mate = maximum_matching(adjacency)
        if any(m == -1 for m in mate):
            return []
        return [(players[i], players[m]) for i, m in enumerate(mate) if i < m < len(players)]

    def may_take_bye(self, player: PlayerState) -> bool:
        return not player.had_bye and (self.bye_score is None or player.score == self.bye_score)

    def completable(self, players: Sequence[PlayerState]) -> bool:
        """Can `players` all be paired (one of them taking the bye if their number is odd)?"""
        key = frozenset(p.id for p in players)
        known = self._completable.get(key)
        if known is None:
            if len(players) < 2:
                known = not players or self.may_take_bye(players[0])
            else:
                known = bool(self.matching(players))
            self._completable[key] = known
        return known

    def lowest_bye_score(self, players: Sequence[PlayerState]) -> Fraction | None:
        """The lowest score whose holder can take the bye with everyone else paired (FIDE
        C.5: the bye's score comes before every bracket's wishes), None if nobody can."""
        for score in sorted({p.score for p in players if not p.had_bye}):
            self.bye_score = score
            self._completable.clear()
            if self.completable(players):
                return score
        self.bye_score = None
        self._completable.clear()
        return None

    # --- a bracket ------------------------------------------------------------------

    def pair_bracket(
        self,
        mdps: list[PlayerState],
        residents: list[PlayerState],
        below: list[PlayerState],
        last: bool,
    ) -> tuple[list[tuple[PlayerState, PlayerState]], list[PlayerState]]:
        """The pairs made in a bracket (the players floating down into it, `mdps`, and its
        own score group, `residents`) and the players floating down from it."""
        mdps = sorted(mdps, key=lambda s: s.rank_key)
        residents = sorted(residents, key=lambda s: s.rank_key)
        most = (len(mdps) + len(residents)) // 2
        for pairs_wanted in range(most, -1, -1) if not last else (most,):
            best = self._best_candidate(mdps, residents, below, pairs_wanted)
            if best is not None:
                return best
        # Only the last bracket gets here, and only if the candidate limit hid every
        # valid pairing: fall back to any pairing that keeps the absolute rules.
        pairs = self.matching(mdps + residents)
        if not pairs and len(mdps) + len(residents) > 1:
            raise NoPairingError("the last score group cannot be paired")
        paired = {s.id for pair in pairs for s in pair}
        return pairs, [s for s in mdps + residents if s.id not in paired]

    def _best_candidate(
        self,
        mdps: list[PlayerState],
        residents: list[PlayerState],
        below: list[PlayerState],
        p: int,
    ) -> tuple[list[tuple[PlayerState, PlayerState]], list[PlayerState]] | None:
        everyone = sorted(mdps + residents, key=lambda s: s.rank_key)
        floating = len(everyone) - 2 * p
        ideal = tuple(sorted((s.score for s in everyone[len(everyone) - floating :]), reverse=True))
        best: _Scored | None = None
        for count, (pairs, floaters) in enumerate(self._candidates(mdps, residents, p)):
            if count >= CANDIDATE_LIMIT and (best is not None or count >= 4 * CANDIDATE_LIMIT):
                break
            quality = self._quality(pairs, floaters)
            if best is not None and quality >= best[0]:
                continue
            if not self.completable(floaters + below):
                continue  # with nothing below, this checks the bye's taker too
            best = (quality, pairs, floaters)
            if quality[0] == ideal and not any(quality[1:]):
                break
        if best is None:
            return None
        return best[1], best[2]

    def _quality(
        self, pairs: list[tuple[PlayerState, PlayerState]], floaters: list[PlayerState]
    ) -> tuple[object, ...]:
        """Lower is better, compared in order (the Dutch quality criteria C.7-C.19)."""
        floats = tuple(sorted((s.score for s in floaters), reverse=True))
        missed = strong = 0
        up_again = up_again_2 = 0
        for a, b in pairs:
            m, s = _colour_misses(a, b, self.initial)
            missed += m
            strong += s
            if a.score != b.score:
                low = a if a.score < b.score else b
                up_again += low.floated(1) == -1
                up_again_2 += low.floated(2) == -1
        down_again = sum(1 for s in floaters if s.floated(1) == 1)
        down_again_2 = sum(1 for s in floaters if s.floated(2) == 1)
        return (floats, missed, strong, down_again, up_again, down_again_2, up_again_2)

    def _candidates(
        self, mdps: list[PlayerState], residents: list[PlayerState], p: int
    ) -> Iterator[_Candidate]:
        """Pairings of `p` pairs in Dutch order. The players who floated down (MDPs) are
        paired first, as many as possible and the highest first, against the residents in
        transposition order; the remaining residents are then paired as a homogeneous
        bracket."""
        for paired_mdps in range(min(len(mdps), len(residents), p), -1, -1):
            rest = p - paired_mdps
            if 2 * rest > len(residents) - paired_mdps:
                continue
            for chosen in itertools.combinations(mdps, paired_mdps):
                chosen_ids = {s.id for s in chosen}
                limbo = [s for s in mdps if s.id not in chosen_ids]
                for mdp_pairs, unused in self._transpositions(list(chosen), residents):
                    for pairs, floaters in self._homogeneous(unused, rest):
                        yield mdp_pairs + pairs, limbo + floaters

    def _homogeneous(self, bracket: list[PlayerState], p: int) -> Iterator[_Candidate]:
        """`p` pairs of a homogeneous bracket: S1 = the top p against S2 in transposition
        order, then exchanges between S1 and S2 (fewest players first, then the closest
        pairing numbers), each followed by its transpositions."""
        if p == 0:
            yield [], list(bracket)
            return
        s1, s2 = bracket[:p], bracket[p:]
        yield from self._transpositions(s1, s2)
        index = {s.id: i for i, s in enumerate(bracket)}
        for size in range(1, min(len(s1), len(s2)) + 1):
            swaps = []
            for out in itertools.combinations(s1, size):
                for into in itertools.combinations(s2, size):
                    gap = sum(index[s.id] for s in into) - sum(index[s.id] for s in out)
                    order = ([-index[s.id] for s in reversed(out)], [index[s.id] for s in into])
                    swaps.append((gap, order, out, into))
            swaps.sort(key=lambda x: (x[0], x[1]))
            for _gap, _order, out, into in swaps:
                new_s1 = sorted([s for s in s1 if s not in out] + list(into), key=_rank)
                new_s2 = sorted([s for s in s2 if s not in into] + list(out), key=_rank)
                yield from self._transpositions(new_s1, new_s2)

    def _transpositions(self, s1: list[PlayerState], s2: list[PlayerState]) -> Iterator[_Candidate]:
        """S1[i] against S2 in lexicographic order of S2's arrangements, skipping pairs that
        break an absolute rule (the subtree of a forbidden pair is never visited)."""
        used = [False] * len(s2)
        chosen: list[int] = []

        def walk(i: int) -> Iterator[_Candidate]:
            if i == len(s1):
                pairs = [(s1[k], s2[j]) for k, j in enumerate(chosen)]
                floaters = [s for j, s in enumerate(s2) if not used[j]]
                yield pairs, floaters
                return
            for j, candidate in enumerate(s2):
                if not used[j] and self.ok(s1[i], candidate):
                    used[j] = True
                    chosen.append(j)
                    yield from walk(i + 1)
                    chosen.pop()
                    used[j] = False

        yield from walk(0)


def pair_swiss_round(
    entrants: Sequence[Entrant],
    history: Sequence[Pairing],
    round_no: int,
    *,
    initial_colour: Colour = Colour.WHITE,
) -> list[Pairing]:
    """The pairings of round `round_no` for the active entrants, given every pairing of the
    earlier rounds with its result. Boards are ordered by the higher score, then the sum of
    scores, then the better rank; the bye (if any) comes last, with no result: the caller
    scores it as the organiser chose."""
    states = player_states(entrants, history)
    active = sorted((states[e.id] for e in entrants if e.active), key=lambda s: s.rank_key)
    if len(active) < 2:
        raise NoPairingError("fewer than two players are left to pair")
    pairer = _Pairer(active, initial_colour)
    if len(active) % 2 and pairer.lowest_bye_score(active) is None:
        raise NoPairingError("nobody can take the bye and leave the others pairable")
    if not pairer.completable(active):
        raise NoPairingError(
            "every pairing would repeat a game, give someone a second bye or break a colour rule"
        )
    groups = [list(members) for _score, members in itertools.groupby(active, key=_score_of)]
    pairs: list[tuple[PlayerState, PlayerState]] = []
    carried: list[PlayerState] = []
    for i, group in enumerate(groups):
        below = [s for g in groups[i + 1 :] for s in g]
        made, carried = pairer.pair_bracket(carried, group, below, last=i == len(groups) - 1)
        pairs.extend(made)
    if len(carried) != len(active) % 2:  # pragma: no cover - completion guarantees it
        raise NoPairingError("players were left unpaired")
    bye = carried[0] if carried else None

    allocated = [allocate_colours(a, b, initial_colour) for a, b in pairs]
    allocated.sort(
        key=lambda wb: (
            -max(wb[0].score, wb[1].score),
            -(wb[0].score + wb[1].score),
            min(wb[0].rank_key, wb[1].rank_key),
        )
    )
    out = [Pairing(round_no, board, w.id, b.id) for board, (w, b) in enumerate(allocated, start=1)]
    if bye is not None:
        out.append(Pairing(round_no, len(out) + 1, bye.id, None))
    return out
