"""The event loop's watch: a stall is logged with the interactions begun just before."""

from __future__ import annotations

import logging

import pytest

from bot.lagwatch import LagWatch, interaction_name


def test_a_stall_is_logged_with_the_interactions_begun_before(
    caplog: pytest.LogCaptureFixture,
) -> None:
    watch = LagWatch(threshold=0.1, period=0.05)
    watch._recent.append((90.0, "/board"))
    watch._recent.append((100.0, "/piece"))
    with caplog.at_level(logging.WARNING, logger="fairypost.lag"):
        watch.check(200.0, 200.1)  # 50 ms late: not a stall
        assert watch.stalls == 0 and not caplog.records
        watch.check(100.5, 100.5 + 0.05 + 0.3)
    assert watch.stalls == 1
    assert "stalled 300 ms" in caplog.text and "/piece" in caplog.text
    assert "/board" not in caplog.text


def test_interactions_are_named_as_players_typed_them() -> None:
    assert interaction_name("command", {"name": "piece", "options": []}) == "/piece"
    show = {"name": "variant", "options": [{"type": 1, "name": "show", "options": []}]}
    assert interaction_name("command", show) == "/variant show"
    assert interaction_name("autocomplete", {"name": "move"}) == "autocomplete /move"
    assert interaction_name("component", {"custom_id": "move:12"}) == "component move:12"
