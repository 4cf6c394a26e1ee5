"""Themes: the colours of a board picture, as small TOML files in `renderer/themes/`.

A theme file has three tables, `[board]`, `[pieces]` and `[diagram]`, whose keys are
exactly those of `Theme`'s fields (with `-` for `_`); colours are `#rrggbb`, or
`#rrggbbaa` where the value is an overlay drawn with that opacity.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

THEMES_DIR = Path(__file__).resolve().parent / "themes"
RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]
_COLOR_RE = re.compile(r"#([0-9a-fA-F]{6})([0-9a-fA-F]{2})?")

_TABLES = {
    "board": (
        "light",
        "dark",
        "frame",
        "coordinates",
        "strip",
        "strip_text",
        "last_move",
        "check",
        "destination",
        "capture",
    ),
    "pieces": (
        "white_fill",
        "white_line",
        "white_text",
        "white_mark",
        "white_capture",
        "black_fill",
        "black_line",
        "black_rim",
        "black_text",
        "black_mark",
        "black_capture",
        "crown",
        "crown_line",
    ),
    "diagram": ("both", "move", "capture", "screen", "path", "origin"),
}


class ThemeError(ValueError):
    """A theme that does not exist or whose file is not valid."""


@dataclass(frozen=True, slots=True)
class Theme:
    """The colours of one theme (RGBA; opaque colours have alpha 255)."""

    name: str
    description: str
    # board
    light: RGBA
    dark: RGBA
    frame: RGBA
    coordinates: RGBA
    strip: RGBA
    strip_text: RGBA
    last_move: RGBA
    check: RGBA
    destination: RGBA
    capture: RGBA
    # pieces
    white_fill: RGBA
    white_line: RGBA
    white_text: RGBA
    white_mark: RGBA
    white_capture: RGBA
    black_fill: RGBA
    black_line: RGBA
    black_rim: RGBA
    black_text: RGBA
    black_mark: RGBA
    black_capture: RGBA
    crown: RGBA
    crown_line: RGBA
    # piece diagrams
    both: RGBA
    move: RGBA
    diagram_capture: RGBA
    screen: RGBA
    path: RGBA
    origin: RGBA

    def fill(self, color: int) -> RGBA:
        return self.white_fill if color == 0 else self.black_fill

    def line(self, color: int) -> RGBA:
        return self.white_line if color == 0 else self.black_line

    def text(self, color: int) -> RGBA:
        return self.white_text if color == 0 else self.black_text

    def mark(self, color: int) -> RGBA:
        return self.white_mark if color == 0 else self.black_mark

    def capture_mark(self, color: int) -> RGBA:
        return self.white_capture if color == 0 else self.black_capture


def parse_color(text: Any, where: str) -> RGBA:
    if not isinstance(text, str) or not (m := _COLOR_RE.fullmatch(text.strip())):
        raise ThemeError(f"{where}: expected a colour like '#f0d9b5' or '#cddc3980'")
    rgb = int(m.group(1), 16)
    alpha = int(m.group(2), 16) if m.group(2) else 255
    return (rgb >> 16 & 0xFF, rgb >> 8 & 0xFF, rgb & 0xFF, alpha)


def theme_names() -> tuple[str, ...]:
    """Every theme shipped in `renderer/themes/`, by file name."""
    return tuple(sorted(p.stem for p in THEMES_DIR.glob("*.toml")))


@lru_cache(maxsize=16)
def load_theme(name: str) -> Theme:
    """The theme `name` (a file name in `renderer/themes/` without `.toml`)."""
    if name not in theme_names():
        raise ThemeError(f"unknown theme {name!r}; themes: {', '.join(theme_names())}")
    path = THEMES_DIR / f"{name}.toml"
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ThemeError(f"themes/{name}.toml is not valid TOML: {exc}") from None
    values: dict[str, Any] = {"name": name, "description": str(data.get("description", ""))}
    for table, keys in _TABLES.items():
        raw = data.get(table)
        if not isinstance(raw, dict):
            raise ThemeError(f"themes/{name}.toml: missing table [{table}]")
        wanted = {k.replace("_", "-") for k in keys}
        unknown = set(raw) - wanted
        if unknown:
            raise ThemeError(f"themes/{name}.toml: unknown key {table}.{sorted(unknown)[0]}")
        for key in keys:
            toml_key = key.replace("_", "-")
            if toml_key not in raw:
                raise ThemeError(f"themes/{name}.toml: missing key {table}.{toml_key}")
            field_name = "diagram_capture" if (table, key) == ("diagram", "capture") else key
            values[field_name] = parse_color(raw[toml_key], f"themes/{name}.toml {table}.{key}")
    names = {f.name for f in fields(Theme)}
    assert names == set(values), names ^ set(values)
    return Theme(**values)
