"""Bounds on variant definitions from players: size, shape and the cost of the move tables.

A definition uploaded to the bot is data from a stranger. Every bound here is checked before
the work it protects is done: the text before `tomllib` reads it, the parsed structure before
the loader walks it, and the move-table cost (counted in table entries, computed from the
pieces' movement without building anything) before the variant is compiled. The numbers are
set from the built-in catalogue, whose largest game is Bigorra (16x16, 34 piece types), with
room to spare; `docs/variants.md` lists them for authors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.betza import Component, Kind
from rules.text import text_problem

MAX_FILE_BYTES = 32 * 1024
"""A definition file; Bigorra's, the longest built-in, is 3 KB."""
MAX_NESTING = 10
"""Tables and arrays inside each other (an option's promotion list is 7 deep)."""
MAX_DOTS = 600
"""Dots outside strings (dotted keys and table headers): tomllib's cost grows with the
square of a dotted key's length, so a file of `a.a.a...` is refused before it is read."""
MAX_VALUES = 5000
"""Every key, table, array element and value of the parsed file."""
MAX_STRING = 2000
"""One string (a description, a decision)."""
MAX_INTEGER = 10_000
"""Any integer (sizes, rows, move counts); larger ones are mistakes or attacks."""
MAX_ID = 32
"""A variant id (it becomes part of a command's value and of the rating pool's name)."""
MAX_NAME = 60
"""A variant's or a piece's name (and a piece's other names): one line, as titles show it."""
MAX_INVENTOR = 200
"""Who invented the variant: one line, shown in a field of `/rules` (Discord's hold 1,024)."""
MULTILINE_KEYS = frozenset({"description", "decisions", "sources"})
"""Texts that may run over several lines (every other text of a file is one line)."""
MAX_PIECE_TYPES = 40
"""Bigorra has 34; the move encoding allows 63."""
MAX_MOVEMENT_TEXT = 80
"""One Betza string; Bigorra's longest is 12 characters."""
MAX_PATHS = 16
"""Paths of one `paths` or `ride-paths` list (the Falcon has 6, each expanded 8 ways)."""
MAX_PATH_STEPS = 12
MAX_OPTIONS = 8
MAX_TABLE_ENTRIES = 1_500_000
"""Move-table entries of the whole variant: a piece's patterns from one square on an open
board, summed over piece types, both colours and every square. Bigorra, the largest
built-in, needs 903,168."""
MAX_SPECIAL_ENTRIES = 300_000
"""The part of `MAX_TABLE_ENTRIES` that belongs to special attackers (bent riders, path
riders, lame and first-move leapers, once-per-game moves): their tables are built on every
square as soon as a King's safety is tested against them, at a few microseconds an entry.
Bigorra's four bent riders need 191,488."""
MAX_SANITY_WORK = 150_000
"""Moves generated and made during the sanity run (perft 2 and four random games of 160
plies, every move read back from its notation). Bigorra needs 98,214, chess 14,875."""


@dataclass(frozen=True, slots=True)
class Breach:
    """A bound a definition goes beyond: which key, and the message for the author."""

    key: str
    reason: str


def scan_text(text: str) -> Breach | None:
    """Nesting of brackets and dots in keys, counted outside strings and comments, before
    `tomllib` is given the text (its parser recurses and its dotted keys cost quadratically)."""
    depth = 0
    deepest = 0
    dots = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch in "\"'":
            triple = text.startswith(ch * 3, i)
            quote = ch * 3 if triple else ch
            j = i + len(quote)
            while j < n:
                if ch == '"' and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    break
                if not triple and text[j] == "\n":
                    break
                j += 1
            i = j + len(quote)
            continue
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
        elif ch == ".":
            dots += 1
        i += 1
    if deepest > MAX_NESTING:
        return Breach("", f"tables and lists are nested {deepest} deep; at most {MAX_NESTING}")
    if dots > MAX_DOTS:
        return Breach("", f"{dots} dots in keys and numbers; a definition needs far fewer")
    return None


DECIMAL_KEYS = ("rules.material-points.",)
"""Where a number may have a decimal point (Janggi's 1.5 points for Black); whole numbers
everywhere else."""


def check_structure(data: dict[str, Any]) -> Breach | None:
    """Depth, size, string lengths and integer magnitudes of the parsed file, walked
    iteratively (a recursive walk could be made to overflow)."""
    count = 0
    stack: list[tuple[str, Any, int]] = [("", data, 0)]
    while stack:
        key, value, depth = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return Breach("", f"more than {MAX_VALUES} values; a definition needs far fewer")
        if depth > MAX_NESTING:
            return Breach(key, f"nested more than {MAX_NESTING} deep")
        if isinstance(value, dict):
            for k, v in value.items():
                if len(k) > MAX_STRING:
                    return Breach(key, f"a key is {len(k)} characters long")
                stack.append((f"{key}.{k}" if key else k, v, depth + 1))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                stack.append((f"{key}[{i}]", v, depth + 1))
        elif isinstance(value, str):
            if len(value) > MAX_STRING:
                return Breach(key, f"{len(value)} characters; at most {MAX_STRING}")
        elif isinstance(value, bool):
            pass
        elif isinstance(value, int):
            if abs(value) > MAX_INTEGER:
                return Breach(key, f"{value} is out of range (at most {MAX_INTEGER})")
        elif isinstance(value, float):
            if not key.startswith(DECIMAL_KEYS):
                return Breach(key, "a number with a decimal point; whole numbers only")
            if not math.isfinite(value) or abs(value) > MAX_INTEGER:
                return Breach(key, f"{value} is out of range (at most {MAX_INTEGER})")
        else:
            return Breach(key, f"a {type(value).__name__}; expected text, a number or a table")
    return None


def check_texts(data: dict[str, Any]) -> Breach | None:
    """Every text of a new definition, keys included, by the one rule for players' text
    (`rules.text`) with the lengths of `text_bounds`: what a file says ends up in posts,
    embeds and thread names. (Definitions stored before the rule load as they were.)"""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                problem = text_problem(k, limit=MAX_NAME)
                if problem is not None:
                    return Breach(key, f"the key {k[:MAX_NAME]!r} {problem}")
                stack.append((f"{key}.{k}" if key else k, v))
        elif isinstance(value, list):
            stack += [(f"{key}[{i}]", v) for i, v in enumerate(value)]
        elif isinstance(value, str):
            limit, lines = text_bounds(key)
            problem = text_problem(value, limit=limit, lines=lines)
            if problem is not None:
                one_line = problem == "contains a line break"
                return Breach(key, problem + ("; write it on one line" if one_line else ""))
    return None


def text_bounds(key: str) -> tuple[int, bool]:
    """The length and whether line breaks are allowed, for the text at `key` of a player's
    file (`name`, `pieces.hawk.aliases[0]`, `options.fast.description`...)."""
    last = re.sub(r"\[\d+\]$", "", key.rsplit(".", 1)[-1])
    if last in ("name", "aliases"):
        return MAX_NAME, False
    if last == "inventor":
        return MAX_INVENTOR, False
    return MAX_STRING, last in MULTILINE_KEYS


def entries_per_square(components: Iterable[Component], longest: int = 15) -> int:
    """Move-table entries of these components from one square of an open board: an upper
    bound of what `rules.tables.compile_square` builds there (and of the attack probes)."""
    total = 0
    for c in components:
        if c.kind in (Kind.LEAP, Kind.LAME):
            total += len(c.vectors)
        elif c.kind in (Kind.RIDE, Kind.HOP):
            total += len(c.vectors) * min(c.range or longest, longest)
        elif c.kind is Kind.BENT:
            total += sum(1 + len(seconds) * longest for _first, seconds in c.second)
        elif c.kind is Kind.PATHS:
            total += len(c.paths)
        else:
            total += sum(len(path) for path in c.paths)
    return total


def table_entries(
    pieces: Iterable[tuple[Iterable[Component], Iterable[Component]]], size: int
) -> int:
    """Move-table entries of a variant: (components, once-per-game components) of each piece
    type, both colours, every one of `size` squares."""
    per_square = sum(entries_per_square(comps) + entries_per_square(once) for comps, once in pieces)
    return 2 * size * per_square


def special_attacker(components: Iterable[Component], once: Iterable[Component]) -> bool:
    """Whether a piece attacks in a way the reverse probes cannot see (anything but plain
    leaps, rides and hops): the rules engine then tests its attacks square by square."""
    if any(True for _ in once):
        return True
    return any(
        c.capture and (c.initial or c.kind not in (Kind.LEAP, Kind.RIDE, Kind.HOP))
        for c in components
    )
