"""Regions: named sets of squares, one set per side, that rules refer to by name.

A variant's `[regions]` table names them once (the palace, the squares across the river, a
promotion or drop zone, a goal), and pieces and rules use the names: a piece confined to a
region, moves a piece has only inside a region, and so on. Square sets are written as in
Fairy-Stockfish's variants.ini, so files translate both ways: square names, `*5` for a whole
rank and `e*` for a whole file, separated by spaces (a list of such strings is read too).

```toml
[regions]
palace = "d1 e1 f1 d2 e2 f2 d3 e3 f3"                 # White's; Black's mirrored (d8 ... f10)
across-river = { white = "*6 *7 *8 *9 *10", black = "*1 *2 *3 *4 *5" }
```
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.errors import VariantError
from rules.geometry import FILE_LETTERS, Geometry

_TOKEN_RE = re.compile(r"([a-p*])([1-9][0-9]?|\*)")
NAME_RE = re.compile(r"[a-z][a-z0-9-]*")
MAX_REGIONS = 24
"""Regions a variant may name (a player's file is bounded like everything else)."""


@dataclass(frozen=True, slots=True)
class Region:
    """A named region: `squares[color]` is the side's set (0 White, 1 Black)."""

    name: str
    squares: tuple[frozenset[int], frozenset[int]]

    def of(self, color: int) -> frozenset[int]:
        return self.squares[color]


def parse_squares(text: str, geometry: Geometry) -> frozenset[int]:
    """The squares of a square-set text (`"d1 e1 f1"`, `"*6 *7"`, `"e*"`, `"*"` is not
    accepted: say which squares). ValueError names the token that is wrong."""
    out: set[int] = set()
    for token in text.split():
        m = _TOKEN_RE.fullmatch(token)
        if m is None:
            raise ValueError(
                f"{token!r} is not a square, a rank (*5) or a file (e*); {geometry.square_hint()}"
            )
        file_text, rank_text = m.groups()
        if file_text == "*" and rank_text == "*":
            raise ValueError("'**' would be the whole board; list the ranks (*1 *2 ...)")
        files = range(geometry.files) if file_text == "*" else [FILE_LETTERS.index(file_text)]
        ranks = range(geometry.ranks) if rank_text == "*" else [int(rank_text) - 1]
        for f in files:
            for r in ranks:
                if not (0 <= f < geometry.files and 0 <= r < geometry.ranks):
                    raise ValueError(f"{token!r} is off the board; {geometry.square_hint()}")
                out.add(geometry.index(f, r))
    return frozenset(out)


def format_squares(squares: frozenset[int], geometry: Geometry) -> str:
    """A square-set text for `squares` (whole ranks as `*N`, then single squares), the
    inverse of `parse_squares` up to order."""
    parts: list[str] = []
    rest = set(squares)
    for r in range(geometry.ranks):
        rank = {geometry.index(f, r) for f in range(geometry.files)}
        if rank <= rest:
            parts.append(f"*{r + 1}")
            rest -= rank
    parts.extend(geometry.name(sq) for sq in sorted(rest))
    return " ".join(parts)


def _squares_value(
    value: Any, geometry: Geometry, source: str, key: str, empty: bool = False
) -> frozenset[int]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = " ".join(value)
    if not isinstance(value, str):
        raise VariantError(source, key, 'must be squares such as "d1 e1 f1" or "*6 *7"')
    try:
        squares = parse_squares(value, geometry)
    except ValueError as exc:
        raise VariantError(source, key, str(exc)) from None
    if not squares and not (empty and value == ""):
        raise VariantError(source, key, "names no square")
    return squares


def build_regions(raw: Any, geometry: Geometry, source: str) -> tuple[Region, ...]:
    """The `[regions]` table: each name maps to White's squares (Black's mirrored: the same
    files, ranks counted from the other side) or to `{ white = ..., black = ... }`."""
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise VariantError(source, "regions", "must be a table of named square sets")
    if len(raw) > MAX_REGIONS:
        raise VariantError(source, "regions", f"at most {MAX_REGIONS} regions")
    out: list[Region] = []
    for name, value in raw.items():
        key = f"regions.{name}"
        if not NAME_RE.fullmatch(name):
            raise VariantError(source, key, "region names are lowercase words joined by '-'")
        if isinstance(value, Mapping):
            unknown = set(value) - {"white", "black"}
            if unknown:
                raise VariantError(source, f"{key}.{sorted(unknown)[0]}", "unknown key")
            if "white" not in value:
                raise VariantError(source, f"{key}.white", "required: White's squares")
            # One side may have none of it (`white = ""`): Minihouse's White, whose
            # promotion rank is off its six-rank board.
            one_sided = "black" in value
            white = _squares_value(value["white"], geometry, source, f"{key}.white", one_sided)
            black = (
                _squares_value(value["black"], geometry, source, f"{key}.black", bool(white))
                if one_sided
                else frozenset(geometry.mirror(sq) for sq in white)
            )
        else:
            white = _squares_value(value, geometry, source, key)
            black = frozenset(geometry.mirror(sq) for sq in white)
        out.append(Region(name, (white, black)))
    return tuple(out)


def region_named(regions: Mapping[str, Region], name: Any, source: str, key: str) -> Region:
    """The region a key names, or a VariantError listing the variant's regions."""
    if isinstance(name, str) and name in regions:
        return regions[name]
    known = ", ".join(regions) or "none: declare them in [regions]"
    raise VariantError(source, key, f"unknown region {name!r} (regions: {known})")
