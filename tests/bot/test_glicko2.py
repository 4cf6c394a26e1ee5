"""Glicko-2 against Glickman's worked example and cases away from 1500."""

from __future__ import annotations

import pytest

from bot.service.glicko2 import PERIOD_SECONDS, Glicko, inactive, update
from bot.service.ratings import current, game_scores
from storage.models import Rating


def test_glickmans_worked_example() -> None:
    """Example of the Glicko-2 system (2012): 1500/200/0.06 against three opponents."""
    player = Glicko(1500, 200, 0.06)
    results = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
    new = update(player, results)
    # The paper rounds at intermediate steps and prints 1464.06; exact arithmetic gives 1464.05.
    assert new.rating == pytest.approx(1464.06, abs=0.02)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)


def test_away_from_1500() -> None:
    strong, weak = Glicko(2100, 60, 0.06), Glicko(1700, 80, 0.06)
    after_win = update(strong, [(weak, 1.0)])
    after_loss = update(strong, [(weak, 0.0)])
    assert 2100 < after_win.rating < 2103  # an expected win gains little
    assert after_loss.rating < 2100 - 15  # an upset costs a lot
    upset = update(weak, [(strong, 1.0)])
    assert upset.rating - 1700 > 2100 - after_loss.rating  # the weaker side's RD is larger


def test_draw_between_equals_changes_nothing_but_deviation() -> None:
    a = Glicko(1800, 100, 0.06)
    new = update(a, [(a, 0.5)])
    assert new.rating == pytest.approx(1800, abs=1e-6)
    assert new.deviation < 100


def test_deviation_grows_with_inactivity_and_is_capped() -> None:
    r = Rating(1, "chess", 1800, 60, 0.06, games=10, last_played_at=0)
    assert current(r, PERIOD_SECONDS - 1).deviation == 60
    assert current(r, 10 * PERIOD_SECONDS).deviation > 60
    assert inactive(Glicko(1800, 60, 0.06), 100_000).deviation == 350


def test_bat_stalemate_scores_three_fifths() -> None:
    from storage.models import Clock as StorageClock
    from storage.models import Color, Game, GameStatus, Result, Termination

    game = Game(
        1, None, 1, 1, None, None, "leaping-bat", (), 10, 11, True, GameStatus.FINISHED,
        Result.WHITE_WINS, Termination.RULES, "white stalemates black", Color.BLACK, 80, "",
        "1", StorageClock(), None, None, 0, 0, 0, 0, 0,
    )  # fmt: skip
    assert game_scores(game) == (0.6, 0.4)
