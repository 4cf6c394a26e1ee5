"""How close `tournament/swiss.py` pairs to an independent FIDE Dutch engine.

Not a dependency and not part of `make bench`: run it in a throwaway environment that has
caissify-pairings (a Python Dutch engine; its checker re-pairs every round of a TRF file
from the rounds before it and lists the boards that differ)::

    python -m venv /tmp/dutch && /tmp/dutch/bin/pip install caissify-pairings==0.5.0
    PYTHONPATH=. /tmp/dutch/bin/python benchmarks/swiss_dutch.py 9 4 200

Random tournaments are paired round by round by our module (the better seed wins 65% of the
decided games, one game in five is drawn, a bye scores 1); each is written as a TRF file
and checked round by round: the Dutch engine pairs the round from the same history as ours.
A round is counted identical when the same players meet (and the same player has the
bye), and again when the colours are the same too. Colour-only differences are split by
whether the two players' scores differ: FIDE ranks by score, then pairing number (C.04.3
A.2) and gives the tie in colours to the higher-ranked player; caissify-pairings 0.5.0
ranks by pairing number alone there, so a board where the lower-numbered player has the
lower score gets the other colours from it.
"""

from __future__ import annotations

import random
import sys
import warnings
from fractions import Fraction
from typing import Any

from tournament.model import Entrant, Pairing, Result
from tournament.swiss import NoPairingError, pair_swiss_round, player_states

WIN, LOSS, DRAW = Result.of(1, 0), Result.of(0, 1), Result.of("1/2", "1/2")


def play(seed: int, n: int, rounds: int) -> list[Pairing]:
    """A tournament of `n` players paired by our module, with random results."""
    rng = random.Random(seed)
    field = [Entrant(i, i, f"p{i}") for i in range(1, n + 1)]
    history: list[Pairing] = []
    for r in range(1, rounds + 1):
        try:
            pairs = pair_swiss_round(field, history, r)
        except NoPairingError:
            break
        for p in pairs:
            if p.black is None:
                history.append(p.with_result(WIN))
            elif rng.random() < 0.2:
                history.append(p.with_result(DRAW))
            else:
                better_wins = rng.random() < 0.65
                history.append(p.with_result(WIN if better_wins == (p.white < p.black) else LOSS))
    return history


def trf_players(n: int, history: list[Pairing]) -> list[dict[str, Any]]:
    players = []
    for i in range(1, n + 1):
        results: dict[int, dict[str, Any]] = {}
        score = Fraction(0)
        for p in history:
            if i not in (p.white, p.black) or p.result is None:
                continue
            if p.black is None:
                results[p.round] = {"opponent": None, "result": "U"}
                score += 1
                continue
            white = p.white == i
            points = p.result.white if white else p.result.black
            score += points
            results[p.round] = {
                "opponent": p.black if white else p.white,
                "color": "w" if white else "b",
                "result": "1" if points == 1 else "0" if points == 0 else "=",
            }
        players.append(
            {
                "starting_number": i,
                "name": f"p{i}",
                "rating": 2400 - 10 * i,
                "score": float(score),
                "results": results,
            }
        )
    return players


def main(n: int, rounds: int, count: int) -> None:
    from caissify_pairings.fpc import check_trf
    from caissify_pairings.trf import write_trf

    warnings.simplefilter("ignore")
    checked = same_pairs = same_colours = rank_colours = 0
    for seed in range(count):
        history = play(seed, n, rounds)
        played = max((p.round for p in history), default=0)
        field = [Entrant(i, i) for i in range(1, n + 1)]
        report = check_trf(write_trf({"name": "compare"}, trf_players(n, history), played))
        for row in report["rounds"]:
            checked += 1
            if not row["match"]:
                continue
            same_pairs += 1
            ours = {(p["white"], p.get("black")) for p in row["trf_pairings"]}
            dutch = {(p["white"], p.get("black")) for p in row["engine_pairings"]}
            if ours == dutch:
                same_colours += 1
                continue
            states = player_states(field, [p for p in history if p.round < row["round"]])
            boards = [(w, b) for w, b in ours - dutch if b is not None]
            if all(
                states[w].score != states[b].score
                and (w < b) != (states[w].score > states[b].score)
                for w, b in boards
            ):
                rank_colours += 1

    def share(k: int) -> str:
        return f"{k}/{checked} = {100 * k / checked:.1f}%"

    print(f"{n} players, {rounds} rounds, {count} tournaments ({checked} rounds):")
    print(f"  same players meet: {share(same_pairs)}")
    print(f"  same players meet with the same colours: {share(same_colours)}")
    print(
        "  same players, other colours, every such board one where the lower-numbered "
        f"player has the lower score (A.2): {share(rank_colours)}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
