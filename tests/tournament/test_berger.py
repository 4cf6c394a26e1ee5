"""Round-robin schedules: the published FIDE Berger tables, and their invariants."""

from __future__ import annotations

from collections import Counter

import pytest

from tournament.berger import berger_round, round_robin_schedule, schedule_pairings

# FIDE Handbook C.05, Annex 1 (Berger tables), as printed: round by round, White first.
PUBLISHED = {
    4: ["1-4 2-3", "4-3 1-2", "2-4 3-1"],
    6: ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"],
    8: [
        "1-8 2-7 3-6 4-5",
        "8-5 6-4 7-3 1-2",
        "2-8 3-1 4-7 5-6",
        "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4",
        "4-8 5-3 6-2 7-1",
    ],
    10: [
        "1-10 2-9 3-8 4-7 5-6",
        "10-6 7-5 8-4 9-3 1-2",
        "2-10 3-1 4-9 5-8 6-7",
        "10-7 8-6 9-5 1-4 2-3",
        "3-10 4-2 5-1 6-9 7-8",
        "10-8 9-7 1-6 2-5 3-4",
        "4-10 5-3 6-2 7-1 8-9",
        "10-9 1-8 2-7 3-6 4-5",
        "5-10 6-4 7-3 8-2 9-1",
    ],
}


@pytest.mark.parametrize("n", sorted(PUBLISHED))
def test_published_berger_tables(n: int) -> None:
    for r, printed in enumerate(PUBLISHED[n], start=1):
        expected = [tuple(int(x) for x in game.split("-")) for game in printed.split()]
        assert berger_round(n, r) == expected, f"{n} players, round {r}"


@pytest.mark.parametrize("players", range(2, 21))
@pytest.mark.parametrize("cycles", [1, 2])
def test_everyone_meets_everyone_with_balanced_colours(players: int, cycles: int) -> None:
    schedule = round_robin_schedule(players, cycles)
    assert len(schedule) == cycles * (players - 1 + players % 2)
    met: Counter[frozenset[int]] = Counter()
    whites: Counter[int] = Counter()
    blacks: Counter[int] = Counter()
    byes: Counter[int] = Counter()
    for games in schedule:
        seen = [p for game in games for p in game if p is not None]
        assert len(seen) == len(set(seen)) == players, "everyone once per round"
        for white, black in games:
            if black is None:
                byes[white] += 1
                continue
            met[frozenset((white, black))] += 1
            whites[white] += 1
            blacks[black] += 1
    assert len(met) == players * (players - 1) // 2
    assert set(met.values()) == {cycles}
    for p in range(1, players + 1):
        assert abs(whites[p] - blacks[p]) <= (1 if cycles == 1 else 0), p
        assert byes[p] == (cycles if players % 2 else 0)


def test_double_round_robin_reverses_colours() -> None:
    schedule = round_robin_schedule(6, cycles=2)
    for first, second in zip(schedule[:5], schedule[5:], strict=True):
        assert second == [(b, w) for w, b in first]


def test_schedule_pairings_use_ids_and_put_the_bye_last() -> None:
    pairings = schedule_pairings({1: 101, 2: 102, 3: 103})
    assert [(p.round, p.board, p.white, p.black) for p in pairings] == [
        (1, 1, 102, 103),
        (1, 2, 101, None),
        (2, 1, 101, 102),
        (2, 2, 103, None),
        (3, 1, 103, 101),
        (3, 2, 102, None),
    ]


def test_refusals() -> None:
    with pytest.raises(ValueError, match="even"):
        berger_round(5, 1)
    with pytest.raises(ValueError, match="rounds 1 to 3"):
        berger_round(4, 4)
    with pytest.raises(ValueError, match="two players"):
        round_robin_schedule(1)
    with pytest.raises(ValueError, match="cycles"):
        round_robin_schedule(4, cycles=3)
