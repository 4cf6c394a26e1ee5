"""The UCI client the benchmarks drive Fairy-Stockfish with (`search/uci.py`), against the
fake engine of the partner's tests: every wait on the engine ends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from search import uci
from search.uci import UciEngine, UciTimeout
from tests.search.fake_uci import install


@pytest.fixture
def hung(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[UciEngine]:
    """An engine that never answers `go`, with the waits cut to a fraction of a second."""
    monkeypatch.setenv("FAKE_UCI_MODE", "hang")
    monkeypatch.setattr(uci, "READY_SECONDS", 0.2)
    monkeypatch.setattr(uci, "STOP_GRACE_SECONDS", 0.2)
    engine = UciEngine(install(tmp_path), {})
    try:
        yield engine
    finally:
        engine.close()


def test_a_move_from_a_hung_engine_is_a_timeout_not_a_wait_forever(hung: UciEngine) -> None:
    with pytest.raises(UciTimeout, match="did not stop"):
        hung.best_move(["e2e4"], 50)


def test_a_speed_reading_from_a_hung_engine_is_a_timeout(hung: UciEngine) -> None:
    with pytest.raises(UciTimeout, match="did not stop"):
        hung.speed("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 50)


def test_a_playing_engine_gives_its_move_and_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_UCI_MOVE", "g8f6")
    monkeypatch.setenv("FAKE_UCI_SCORE", "cp -12")
    engine = UciEngine(install(tmp_path), {})
    try:
        assert engine.best_move(["e2e4"], 50) == ("g8f6", -12)
    finally:
        engine.close()
