"""Standings: points, every tie-break on hand-computed tables, shared places, the text."""

from __future__ import annotations

from fractions import Fraction

from tournament.model import Entrant, Pairing, Result, points_text
from tournament.standings import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Tone,
    compute_standings,
    crosstable,
    text_table,
)

WIN, LOSS, DRAW = Result.of(1, 0), Result.of(0, 1), Result.of("1/2", "1/2")
A, B, C, D = (Entrant(i, i, name) for i, name in enumerate("ABCD", start=1))


def rr_four() -> list[Pairing]:
    """A: beats B, draws C, beats D (2½). B: beats C, beats D (2). C: beats D (1½).
    D: 0. The C-D game was won by C."""
    return [
        Pairing(1, 1, 1, 4, WIN),
        Pairing(1, 2, 2, 3, WIN),
        Pairing(2, 1, 4, 3, LOSS),
        Pairing(2, 2, 1, 2, WIN),
        Pairing(3, 1, 2, 4, WIN),
        Pairing(3, 2, 3, 1, DRAW),
    ]


def test_points_and_sonneborn_berger() -> None:
    table = compute_standings([A, B, C, D], rr_four(), ROUND_ROBIN_TIEBREAKS)
    assert [(r.entrant.name, r.points) for r in table.rows] == [
        ("A", Fraction(5, 2)),
        ("B", Fraction(2)),
        ("C", Fraction(3, 2)),
        ("D", Fraction(0)),
    ]
    # SB(A) = 1·2 (B) + ½·1½ (C) + 1·0 (D) = 2¾; SB(B) = 1·1½ + 1·0 = 1½;
    # SB(C) = ½·2½ + 1·0 = 1¼.
    sb = [r.tiebreaks[0] for r in table.rows]
    assert sb == [Fraction(11, 4), Fraction(3, 2), Fraction(5, 4), Fraction(0)]
    assert [(r.wins, r.draws, r.losses) for r in table.rows] == [
        (2, 1, 0),
        (2, 0, 1),
        (1, 1, 1),
        (0, 0, 3),
    ]
    assert [r.place_text for r in table.rows] == ["1", "2", "3", "4"]


def test_direct_encounter_separates_equal_sonneborn_berger() -> None:
    # A and B both beat C and D and drew each other... except A beat B: 3 vs 2. Make them
    # level instead: A beats B, B beats... a cycle of three with equal SB is decided by the
    # game between the two still tied.
    e = [A, B, C]
    pairings = [Pairing(1, 1, 1, 2, WIN), Pairing(2, 1, 2, 3, WIN), Pairing(3, 1, 3, 1, WIN)]
    table = compute_standings(e, pairings, ROUND_ROBIN_TIEBREAKS)
    # Everyone 1 point, SB 1 each: direct encounter among all three is 1 each too, wins 1:
    # a three-way shared first place.
    assert [r.place_text for r in table.rows] == ["1–3"] * 3
    # Two players level: A and B drew with each other's... use 4 players.
    pairings = [
        Pairing(1, 1, 1, 2, WIN),  # A beats B
        Pairing(1, 2, 3, 4, DRAW),
        Pairing(2, 1, 3, 1, WIN),  # C beats A
        Pairing(2, 2, 2, 4, WIN),  # B beats D
        Pairing(3, 1, 1, 4, WIN),  # A beats D
        Pairing(3, 2, 2, 3, WIN),  # B beats C
    ]
    table = compute_standings([A, B, C, D], pairings, ROUND_ROBIN_TIEBREAKS)
    # A 2, B 2, C 1½, D ½. SB(A) = 1·2 + 1·½ = 2½ ; SB(B) = 1·½ + 1·1½ = 2 -> A first.
    assert [r.entrant.name for r in table.rows] == ["A", "B", "C", "D"]
    assert table.rows[0].tiebreaks[1] is None, "direct encounter only shown for a tie"


def test_direct_encounter_decides_when_sonneborn_berger_is_level() -> None:
    five = [Entrant(i, i, "ABCDE"[i - 1]) for i in range(1, 6)]
    results = {
        (1, 2): WIN, (1, 3): WIN, (1, 4): LOSS, (1, 5): LOSS, (2, 3): WIN,
        (2, 4): WIN, (2, 5): DRAW, (3, 4): DRAW, (3, 5): DRAW, (4, 5): WIN,
    }  # fmt: skip
    pairings = [Pairing(1, k, w, b, r) for k, ((w, b), r) in enumerate(results.items(), 1)]
    table = compute_standings(five, pairings, ROUND_ROBIN_TIEBREAKS)
    b, d = table.rows[0], table.rows[1]
    # B and D: 2½ points and SB 4½ each; B beat D, so B is first.
    assert (b.entrant.name, d.entrant.name) == ("B", "D")
    assert b.points == d.points == Fraction(5, 2)
    assert b.tiebreaks[0] == d.tiebreaks[0] == Fraction(9, 2)
    assert (b.tiebreaks[1], d.tiebreaks[1]) == (1, 0)
    assert (b.place_text, d.place_text) == ("1", "2")


def test_buchholz_median_and_byes() -> None:
    e = [Entrant(i, i, f"p{i}") for i in range(1, 6)]
    pairings = [
        Pairing(1, 1, 1, 3, WIN),
        Pairing(1, 2, 4, 2, DRAW),
        Pairing(1, 3, 5, None, Result.of(1, 0)),
        Pairing(2, 1, 5, 1, LOSS),
        Pairing(2, 2, 2, 3, WIN),
        Pairing(2, 3, 4, None, Result.of(1, 0)),
        Pairing(3, 1, 1, 2, DRAW),
        Pairing(3, 2, 3, 4, LOSS),
        Pairing(3, 3, 5, None, Result.of(0, 0)),  # a zero-point bye does not exist twice
    ]
    table = compute_standings(e, pairings, SWISS_TIEBREAKS)
    score = {r.entrant.id: r.points for r in table.rows}
    assert score == {
        1: Fraction(5, 2),
        2: Fraction(2),
        3: Fraction(0),
        4: Fraction(5, 2),
        5: Fraction(1),
    }
    row1 = table.row_of(1)
    # p1 met p3 (0), p5 (1), p2 (2): Buchholz 3, median (without 0 and 2) 1.
    assert row1.tiebreaks[:2] == (Fraction(3), Fraction(1))
    row4 = table.row_of(4)
    # p4 met p2 (2), had a bye (counts own 2½), met p3 (0): 4½; median 2.
    assert row4.tiebreaks[:2] == (Fraction(9, 2), Fraction(2))
    assert row4.byes == 1 and row4.games == 2
    assert table.rows[0].entrant.id == 4  # level on points, better Buchholz


def test_crosstable_cells() -> None:
    pairings = [*rr_four()[:5], Pairing(3, 2, 3, 1)]  # the last game still running
    table = compute_standings([A, B, C, D], pairings, ROUND_ROBIN_TIEBREAKS)
    grid = crosstable(table, pairings, title="Club RR", swiss=False, rounds=3)
    assert grid.columns == ("1", "2", "3", "4")
    first = grid.rows[0]
    assert first.name == "A" and first.points == "2"
    assert [c.text for c in first.cells] == ["", "1", "·", "1"]
    assert [c.tone for c in first.cells] == [Tone.SELF, Tone.WIN, Tone.PENDING, Tone.WIN]
    swiss = crosstable(table, pairings, title="as Swiss", swiss=True, rounds=4)
    assert swiss.columns == ("R1", "R2", "R3", "R4")
    assert [c.text for c in swiss.rows[0].cells] == ["4w 1", "2w 1", "3b ·", ""]


def test_forfeits_and_withdrawals_show_plus_and_minus() -> None:
    gone = Entrant(4, 4, "D", withdrawn_after=1)
    pairings = [Pairing(1, 1, 1, 4, WIN), Pairing(2, 1, 4, 3, Result.of(0, 1, played=False))]
    table = compute_standings([A, B, C, gone], pairings, ROUND_ROBIN_TIEBREAKS)
    grid = crosstable(table, pairings, title="t", swiss=True, rounds=2)
    c_row = next(r for r in grid.rows if r.name == "C")
    assert c_row.cells[1].text.endswith("+")
    d_row = next(r for r in grid.rows if r.name == "D")
    assert d_row.withdrawn and d_row.cells[1].text.endswith("−")
    assert "†" in text_table(grid)


def test_points_text() -> None:
    assert [points_text(Fraction(x)) for x in ("0", "1/2", "3", "7/2", "45/4", "3/5", "13/5")] == [
        "0",
        "½",
        "3",
        "3½",
        "11¼",
        "0.6",
        "2.6",
    ]


def test_text_table_is_bounded() -> None:
    e = [Entrant(i, i, f"player number {i}") for i in range(1, 65)]
    table = compute_standings(e, [], SWISS_TIEBREAKS)
    text = text_table(crosstable(table, [], title="big", swiss=True, rounds=1), limit=500)
    assert len(text) <= 500 and text.endswith("…")
    assert text.splitlines()[1].split()[0] == "1–64"
