"""A bot that starts builds the move tables of the variants with games in progress, off
its event loop, before their players come back (issue 31): the first autocomplete of a long
game after a restart then answers with its moves."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from bot.client import FairyPost
from bot.service import games as games_module
from localdiscord import run_bot
from tests.e2e.conftest import World
from tests.e2e.test_fairypost import POST_TIMEOUT, start_game


async def test_a_restarted_bot_warms_the_variants_in_play(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "fairypost.sqlite3"
    async with run_bot(world.fake, FairyPost(database=db)):
        await start_game(world, "shogi", world.alice, world.bob)
    warmed: list[tuple[str, str]] = []
    original = games_module.warm_tables

    def record(variant: Any) -> Any:
        warmed.append((variant.id, threading.current_thread().name))
        return original(variant)

    monkeypatch.setattr(games_module, "warm_tables", record)
    async with run_bot(world.fake, FairyPost(database=db)):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + POST_TIMEOUT
        while not warmed and loop.time() < deadline:
            await asyncio.sleep(0.05)
    assert [v for v, _ in warmed] == ["shogi"]
    assert all(t != threading.main_thread().name for _, t in warmed)
