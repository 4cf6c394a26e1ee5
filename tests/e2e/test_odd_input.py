"""Odd text in any player-supplied string gets a specific refusal, never "something went
wrong" (which would mean an assert or an unexpected exception on the input path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import World
from tests.e2e.test_fairypost import fairypost, start_game

CASES = [
    ("move", {"move": "e2e4\nfoo"}, "`move` contains a line break"),
    ("move", {"move": "Ng1-f3\r\nbar"}, "`move` contains a line break"),
    ("move", {"move": "e2\te4"}, "`move` contains a tab"),
    ("move", {"move": "e2e4\x1b[2J"}, "U+001B"),
    ("move", {"move": "e" * 500}, "characters long"),
    ("moves", {"square": "e2\x00"}, "`square` contains a NUL character"),
    ("moves", {"square": "e²"}, "is not a square"),
    ("rules", {"variant": "chess\nbigorra"}, "`variant` contains a line break"),
    ("settings", {"reminders": "24\n1"}, "`reminders` contains a line break"),
    ("settings", {"reminders": "²"}, "Reminders are hours before the deadline"),
    ("challenge", {"variant": "chess", "options": "a\u2028b"}, "U+2028"),
]


@pytest.mark.parametrize(("command", "options", "expected"), CASES)
async def test_odd_text_is_refused_specifically(
    world: World, tmp_path: Path, command: str, options: dict[str, str], expected: str
) -> None:
    fake = world.fake
    async with fairypost(fake, tmp_path / "fp.sqlite3"):
        thread, _ = await start_game(world, "chess", world.alice, world.bob)
        where = world.lobby if command in ("rules", "settings", "challenge") else thread
        reply = await (await fake.slash(world.alice, where, command, **options)).reply()
        assert reply.ephemeral and expected in reply.content, reply.content
        assert "went wrong" not in reply.content
