"""The layering rules: `rules` is standard-library only, and only `bot` may import discord."""

from __future__ import annotations

import subprocess
import sys

import pytest

THIRD_PARTY = ("discord", "PIL", "aiosqlite", "aiohttp")


def _loaded_after_import(module: str) -> set[str]:
    code = (
        "import sys, json\n"
        f"import {module}\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    import json

    return set(json.loads(out))


@pytest.mark.parametrize("module", ["rules", "rules.variant", "rules.cli"])
def test_rules_imports_no_third_party(module: str) -> None:
    loaded = _loaded_after_import(module)
    assert not loaded & set(THIRD_PARTY)


@pytest.mark.parametrize("module", ["renderer", "storage", "storage.__main__", "bot.config"])
def test_renderer_and_storage_import_no_discord(module: str) -> None:
    assert "discord" not in _loaded_after_import(module)
