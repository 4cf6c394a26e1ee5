"""Check `rules.ini` against a whole variants.ini file, such as Fairy-Stockfish's own
published example (GPL: it is never committed; keep a copy outside the repository):

    .venv/bin/python -m tests.rules.ini_published PATH [--section NAME ...]

Every section is converted as `python -m rules convert` converts it; each converted one is
played beside pyffish 0.0.90 (which loads the same file): the legal moves and the perft
counts from the start (depth 3 where pyffish's depth 2 is at most 4,000, else 2) and after
two seeded random games of pyffish-legal moves (depth 2) must be equal. Prints one line a
section, then the tally: converted and equal, converted and DIFFERENT (bugs), refused
(grouped by the option named), and sections pyffish does not load as written.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from rules import ini
from rules.errors import RulesError
from rules.fsf import uci_moves
from rules.game import Game
from rules.perft import perft
from rules.variant import load_definition
from tests.rules.ini_reference import pyffish_legal, pyffish_perft, random_games

START_DEPTH_3_LIMIT = 4000


def refusal_group(reason: str) -> str:
    """What a refusal is about, for the tally: the option it names, or its words without
    the particulars (squares, pieces in hand, rows)."""
    parent = re.match(r"its parent \[[^\]]*\] is refused \((.*)\)$", reason, re.S)
    if parent:
        return "parent refused: " + refusal_group(parent.group(1))
    built_in = re.match(r"its parent, .* as Fairy Post plays it, has (.*?):", reason)
    if built_in:
        return f"parent with {built_in.group(1)}"
    if reason.startswith("Fairy-Stockfish's built-in"):
        return "built-in parent Fairy Post does not play"
    option = re.match(r"([a-z][A-Za-z0-9]+) [(=]", reason)
    if option:
        return option.group(1)
    words = re.sub(r"\([^)]*\)|\[[^\]]*\]|'[^']*'|\b[a-p]\d+\b", "..", reason)
    return words.split(":")[0].strip()[:70]


def compare(sf: Any, name: str, toml: str) -> list[str]:
    """The disagreements between Fairy Post's game and pyffish's section (none: equal)."""
    problems: list[str] = []
    variant = load_definition(toml, source=name)
    for i, moves in enumerate(random_games(sf, name)):
        game = Game(variant)
        for ply, move in enumerate(moves):
            if move not in uci_moves(game.position):
                problems.append(f"game {i}: pyffish's move {move} (ply {ply + 1}) is not legal")
                break
            game.play(move)
        else:
            ours = set(uci_moves(game.position)) if not game.outcome() else set()
            theirs = set(pyffish_legal(sf, name, moves))
            if ours != theirs:
                problems.append(
                    f"game {i} after {len(moves)} plies: only Fairy Post "
                    f"{sorted(ours - theirs)[:6]}, only pyffish {sorted(theirs - ours)[:6]}"
                )
                continue
            depth = 2
            if i == 0 and pyffish_perft(sf, name, moves, 2) <= START_DEPTH_3_LIMIT:
                depth = 3
            want = [pyffish_perft(sf, name, moves, d) for d in range(1, depth + 1)]
            got = [perft(game.position, d) for d in range(1, depth + 1)]
            if got != want:
                problems.append(f"game {i} ({' '.join(moves)}): Fairy Post {got}, pyffish {want}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", help="a variants.ini file")
    parser.add_argument("--section", action="append", help="only these sections")
    args = parser.parse_args(argv)
    import pyffish as sf

    path = Path(args.path)
    text = path.read_text(encoding="utf-8")
    built_in = set(sf.variants())
    sf.load_variant_config(text)
    loaded = set(sf.variants()) - built_in
    items = ini.convert_ini(text, path.name, ini.LOCAL_FILE)
    equal: list[str] = []
    different: dict[str, list[str]] = {}
    refused: dict[str, list[str]] = defaultdict(list)
    unloaded: list[str] = []
    for item in items:
        if args.section and item.name not in args.section:
            continue
        if item.name not in loaded:
            unloaded.append(item.name)
            print(f"{item.name}\tnot loaded by pyffish (a built-in of this name, or refused)")
            continue
        if item.error is not None:
            reason = getattr(item.error, "reason", str(item.error))
            refused[refusal_group(reason)].append(item.name)
            print(f"{item.name}\trefused\t{reason}", flush=True)
            continue
        assert item.toml is not None
        try:
            problems = compare(sf, item.name, item.toml)
        except RulesError as exc:
            problems = [f"{type(exc).__name__}: {exc}"]
        if problems:
            different[item.name] = problems
            print(f"{item.name}\tDIFFERENT\t{' | '.join(problems)}", flush=True)
        else:
            equal.append(item.name)
            print(f"{item.name}\tequal", flush=True)
    total = len(equal) + len(different) + sum(map(len, refused.values())) + len(unloaded)
    print(
        f"\n{total} sections: {len(equal)} converted and equal to pyffish, "
        f"{len(different)} converted and DIFFERENT, "
        f"{sum(map(len, refused.values()))} refused, {len(unloaded)} not loaded by pyffish"
    )
    if different:
        print(f"DIFFERENT ({len(different)}): {' '.join(different)}")
    print("refused, by the option named:")
    for group, names in sorted(refused.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  {len(names):3d}  {group}: {' '.join(names)}")
    if unloaded:
        print(f"not loaded by pyffish ({len(unloaded)}): {' '.join(unloaded)}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
