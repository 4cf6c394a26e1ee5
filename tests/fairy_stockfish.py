"""The real Fairy-Stockfish for the partner's integration tests: its path, or a skip where it
is not installed, unless FAIRYPOST_REQUIRE_FAIRY_STOCKFISH=1 (set by `.ci/run`, which installs
Debian's package) makes that a failure."""

from __future__ import annotations

import os

import pytest

from search.uci import INSTALL_HINT, find_engine


def fairy_stockfish() -> str:
    """The executable; skips (or fails, where required) the calling test without it."""
    path = find_engine()
    if path is None:
        reason = f"Fairy-Stockfish is not installed ({INSTALL_HINT})"
        if os.environ.get("FAIRYPOST_REQUIRE_FAIRY_STOCKFISH") == "1":
            pytest.fail(f"{reason}; FAIRYPOST_REQUIRE_FAIRY_STOCKFISH=1 requires these tests")
        pytest.skip(reason)
    return path
