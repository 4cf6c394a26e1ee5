"""The layering rules: `rules` and `tournament` are standard-library only, `search` imports
nothing but `rules`, and only `bot` may import discord."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize("module", ["rules", "rules.variant", "rules.cli", "tournament"])
def test_rules_and_tournament_import_no_third_party(module: str) -> None:
    loaded = _loaded_after_import(module)
    assert not loaded & set(THIRD_PARTY)


@pytest.mark.parametrize("module", ["renderer", "storage", "storage.__main__", "bot.config"])
def test_renderer_and_storage_import_no_discord(module: str) -> None:
    assert "discord" not in _loaded_after_import(module)


ROOT = Path(__file__).resolve().parent.parent

# Imports flow one way: rules <- renderer, storage <- bot.service <- bot.cogs, bot.ui; the
# client (and the process entry points) wire them. Type-only imports count too.
FORBIDDEN = {
    "bot/service": (
        "discord",
        "bot.cogs",
        "bot.ui",
        "bot.client",
        "bot.app",
        "bot.loops",
        "bot.announce",
        "bot.announce_tournaments",
        "bot.announce_variants",
    ),
    "bot/ui": (
        "bot.cogs",
        "bot.client",
        "bot.app",
        "bot.loops",
        "bot.announce",
        "bot.announce_tournaments",
        "bot.announce_variants",
    ),
    "bot/cogs": (
        "bot.client",
        "bot.app",
        "bot.loops",
        "bot.announce",
        "bot.announce_tournaments",
        "bot.announce_variants",
    ),
    "bot/loops.py": ("discord", "bot.client", "bot.app", "bot.cogs", "bot.announce"),
    "bot/announce.py": ("bot.client", "bot.app", "bot.cogs", "bot.announce_tournaments"),
    "bot/announce_tournaments.py": ("bot.client", "bot.app", "bot.cogs"),
    "bot/announce_variants.py": ("bot.client", "bot.app", "bot.cogs"),
    "bot/replies.py": ("bot.client", "bot.cogs", "bot.ui"),
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


@pytest.mark.parametrize("where", sorted(FORBIDDEN))
def test_bot_imports_flow_one_way(where: str) -> None:
    target = ROOT / where
    files = [target] if target.is_file() else sorted(target.rglob("*.py"))
    assert files
    for path in files:
        for module in _imports(path):
            for banned in FORBIDDEN[where]:
                assert module != banned and not module.startswith(banned + "."), (
                    f"{path.relative_to(ROOT)} imports {module}"
                )


@pytest.mark.parametrize("module", ["search", "search.cli", "search.analysis"])
def test_search_imports_only_rules(module: str) -> None:
    loaded = _loaded_after_import(module)
    assert not loaded & set(THIRD_PARTY)
    assert not loaded & {"renderer", "storage", "bot", "localdiscord"}
