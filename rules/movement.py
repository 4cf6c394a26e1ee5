"""Movement data to components: Betza text plus the structured kinds of spec §3.

A piece entry (in the catalogue or a variant file) may combine `betza`, `pawn-moves`,
`bent`, `paths` and `ride-paths`; every one of them becomes `Component`s, the single
representation that `rules.tables` compiles into per-square move tables.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rules.betza import MAX_REACH, Component, Kind, Vector, parse_betza, symmetric
from rules.errors import BetzaError, VariantError

MOVEMENT_KEYS = ("betza", "pawn-moves", "bent", "paths", "ride-paths")
SLIDE_KINDS = ("orthogonal", "diagonal", "vertical", "horizontal")
_OFFSET_RE = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")


def _unit_vectors(kind: str) -> list[Vector]:
    orthogonal = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    diagonal = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    return {
        "orthogonal": orthogonal,
        "diagonal": diagonal,
        "vertical": [(0, 1), (0, -1)],
        "horizontal": [(1, 0), (-1, 0)],
    }[kind]


def outward(first: Vector, kind: str) -> tuple[Vector, ...]:
    """Slide directions of `kind` that lead away from the origin after the first step:
    positive dot product with it, and not its own line (that would be a plain rider)."""
    fx, fy = first
    out = []
    for v in _unit_vectors(kind):
        if v[0] * fx + v[1] * fy <= 0:
            continue
        if v[0] * fy - v[1] * fx == 0:  # parallel to the first step
            continue
        out.append(v)
    return tuple(out)


def parse_path(text: str) -> tuple[Vector, ...]:
    """`"(0,1) (1,2) (1,3)"` -> offsets; anything else between the groups is an error."""
    pos = 0
    out: list[Vector] = []
    for m in _OFFSET_RE.finditer(text):
        if text[pos : m.start()].strip():
            raise ValueError(f"unexpected {text[pos : m.start()].strip()!r} at character {pos + 1}")
        out.append((int(m.group(1)), int(m.group(2))))
        pos = m.end()
    if text[pos:].strip():
        raise ValueError(f"unexpected {text[pos:].strip()!r} at character {pos + 1}")
    if not out:
        raise ValueError("a path needs at least one offset like (1,2)")
    return tuple(out)


def expand_paths(paths: list[tuple[Vector, ...]]) -> tuple[tuple[Vector, ...], ...]:
    """Images of every path under the eight symmetries of the board, without repeats."""
    transforms = []
    for swap in (False, True):
        for sx in (1, -1):
            for sy in (1, -1):
                transforms.append((swap, sx, sy))
    seen: dict[tuple[Vector, ...], None] = {}
    for path in paths:
        for swap, sx, sy in transforms:
            image = tuple(((y if swap else x) * sx, (x if swap else y) * sy) for x, y in path)
            seen.setdefault(image, None)
    return tuple(seen)


MAX_TEXT = 80
"""One Betza string (Bigorra's longest is 12 characters); see `rules.limits`."""
MAX_PATHS = 16
MAX_PATH_STEPS = 12


def components_from_entry(entry: Mapping[str, Any], source: str, key: str) -> tuple[Component, ...]:
    """All movement components of one piece entry; errors name `source` and `key`."""
    comps: list[Component] = []
    for field, pawnlike in (("betza", False), ("pawn-moves", True)):
        text = entry.get(field)
        if text is None:
            continue
        if not isinstance(text, str):
            raise VariantError(source, f"{key}.{field}", "must be a Betza string")
        if len(text) > MAX_TEXT:
            raise VariantError(
                source, f"{key}.{field}", f"{len(text)} characters; at most {MAX_TEXT}"
            )
        try:
            comps.extend(parse_betza(text, pawnlike=pawnlike))
        except BetzaError as exc:
            raise VariantError(source, f"{key}.{field}", str(exc)) from None
    bent = entry.get("bent")
    if bent is not None:
        if not isinstance(bent, list):
            raise VariantError(source, f"{key}.bent", "must be a list of tables")
        if len(bent) > MAX_PATHS:
            raise VariantError(source, f"{key}.bent", f"at most {MAX_PATHS} legs")
        for i, leg in enumerate(bent):
            comps.append(_bent(leg, source, f"{key}.bent[{i}]"))
    for field, kind in (("paths", Kind.PATHS), ("ride-paths", Kind.PATH_RIDE)):
        raw = entry.get(field)
        if raw is None:
            continue
        if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw) or not raw:
            raise VariantError(source, f"{key}.{field}", "must be a list of path strings")
        if len(raw) > MAX_PATHS:
            raise VariantError(source, f"{key}.{field}", f"at most {MAX_PATHS} paths")
        parsed = []
        for i, p in enumerate(raw):
            try:
                path = parse_path(p)
            except ValueError as exc:
                raise VariantError(source, f"{key}.{field}[{i}]", str(exc)) from None
            if (0, 0) in path:
                raise VariantError(source, f"{key}.{field}[{i}]", "a path may not visit its origin")
            if len(path) > MAX_PATH_STEPS:
                raise VariantError(
                    source, f"{key}.{field}[{i}]", f"at most {MAX_PATH_STEPS} squares"
                )
            if any(max(abs(x), abs(y)) > MAX_REACH for x, y in path):
                raise VariantError(
                    source,
                    f"{key}.{field}[{i}]",
                    f"offsets go at most {MAX_REACH} squares (the largest board is 16x16)",
                )
            parsed.append(path)
        paths = expand_paths(parsed)
        comps.append(
            Component(
                kind=kind,
                vectors=frozenset(p[-1] for p in paths),
                paths=paths,
                source=f"{field}",
            )
        )
    return tuple(comps)


def _bent(leg: Any, source: str, key: str) -> Component:
    if not isinstance(leg, Mapping):
        raise VariantError(source, key, "must be a table {first = ..., then = ...}")
    unknown = set(leg) - {"first", "then", "min-move-steps"}
    if unknown:
        raise VariantError(source, f"{key}.{sorted(unknown)[0]}", "unknown key")
    first_text = leg.get("first")
    then = leg.get("then")
    if not isinstance(first_text, str):
        raise VariantError(source, f"{key}.first", "must be a Betza step such as 'F' or 'vW'")
    if then not in SLIDE_KINDS:
        raise VariantError(source, f"{key}.then", f"must be one of {', '.join(SLIDE_KINDS)}")
    try:
        first = parse_betza(first_text)
    except BetzaError as exc:
        raise VariantError(source, f"{key}.first", str(exc)) from None
    if len(first) != 1 or first[0].kind is not Kind.LEAP:
        raise VariantError(
            source, f"{key}.first", "must be a single one-step leap ('W', 'F', 'vW')"
        )
    steps = first[0].vectors
    if any(max(abs(x), abs(y)) != 1 for x, y in steps):
        raise VariantError(source, f"{key}.first", "the first step must be a king step")
    min_steps = leg.get("min-move-steps", 1)
    if not isinstance(min_steps, int) or min_steps < 1:
        raise VariantError(source, f"{key}.min-move-steps", "must be a positive integer")
    second = tuple((v, outward(v, then)) for v in sorted(steps))
    if not any(dirs for _, dirs in second):
        raise VariantError(source, f"{key}.then", f"no {then} slide leads away from {first_text}")
    return Component(
        kind=Kind.BENT,
        vectors=steps,
        second=second,
        min_move_steps=min_steps,
        source=f"bent {first_text}>{then}",
    )


def oriented(v: Vector, color: int) -> Vector:
    """White's vector as the piece of `color` sees it (Black turns the board around)."""
    return v if color == 0 else (-v[0], -v[1])


__all__ = [
    "MOVEMENT_KEYS",
    "components_from_entry",
    "expand_paths",
    "oriented",
    "outward",
    "parse_path",
    "symmetric",
]
