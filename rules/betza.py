"""Betza notation: piece movement as text, read once into `Component`s.

Supported (README §2 of the spec): the atoms W F D N A H C Z G, the shorthands K Q R B, a
free leap `(x,y)`, riders by doubling (`WW`, `NN`) or by a range digit (`R4`, `N2`), the
modifiers m c f b s v l r i n p g and the chiral pairs hl hr, and compounds (components one
after another, spaces allowed between them). Anything else is an error naming the character
and its position; nothing is silently ignored.

The movement kinds Betza cannot express (bent riders, multi-path leapers, circular and
crooked riders) are built by `rules.movement` from structured data and produce the same
`Component` type, so move generation sees one representation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from rules.errors import BetzaError

Vector = tuple[int, int]


class Kind(Enum):
    """How a component travels from its origin to a destination."""

    LEAP = "leap"  # jumps straight to the destination
    LAME = "lame"  # a leap whose intermediate squares must be empty (`n`)
    RIDE = "ride"  # repeats one leap along a line until blocked
    HOP = "hop"  # a rider that must pass exactly one screen (`p`; `g`: land just beyond it)
    BENT = "bent"  # a first step, then an outward slide (spec §3.1)
    PATHS = "paths"  # a leaper reached along alternative lame paths (spec §3.2)
    PATH_RIDE = "path-ride"  # a rider along fixed non-straight paths (spec §3.3, §3.4)


@dataclass(frozen=True, slots=True)
class Component:
    """One part of a piece's movement, oriented for White (+y is forward).

    `vectors` holds the leap or step vectors. For `BENT` they are the first steps and
    `second` maps each first step to its slide directions; for `PATHS` and `PATH_RIDE`,
    `paths` lists the square offsets of each path in order (destinations last).
    """

    kind: Kind
    vectors: frozenset[Vector]
    move: bool = True
    capture: bool = True
    initial: bool = False
    range: int | None = None
    second: tuple[tuple[Vector, tuple[Vector, ...]], ...] = ()
    paths: tuple[tuple[Vector, ...], ...] = ()
    min_move_steps: int = 1
    grasshopper: bool = False
    """A `HOP` that lands only on the square directly beyond its screen (`gQ`, the
    Grasshopper); with a `range`, the screen and the landing square both lie within it."""
    pawnlike: bool = False
    rows: frozenset[int] = frozenset()
    """Rows (0-based, counted from the owner) the move starts from; empty: any (Horde's
    double step from the first two rows, `double-step-rows`)."""
    sides: frozenset[int] = frozenset((0, 1))
    """The colours (0 White, 1 Black) that have this move: Minihouse's double step is
    White's alone (`double-step-rows = { white = [2], black = [] }`)."""
    source: str = field(default="", compare=False)

    def reach(self) -> frozenset[Vector]:
        """Offsets reachable on an empty, unbounded board within one repeat (for pictures)."""
        if self.kind in (Kind.PATHS, Kind.PATH_RIDE):
            return frozenset(v for path in self.paths for v in path)
        return self.vectors


ATOMS: dict[str, Vector] = {
    "W": (1, 0),
    "F": (1, 1),
    "D": (2, 0),
    "N": (2, 1),
    "A": (2, 2),
    "H": (3, 0),
    "C": (3, 1),
    "Z": (3, 2),
    "G": (3, 3),
}
# Shorthand atoms: letter -> (components as (atom, is_rider)).
SHORTHANDS: dict[str, tuple[tuple[str, bool], ...]] = {
    "K": (("W", False), ("F", False)),
    "Q": (("W", True), ("F", True)),
    "R": (("W", True),),
    "B": (("F", True),),
}
MODIFIERS = set("mcfbslrvinpgh")
_ATOMS = "W F D N A H C Z G, the compounds K Q R B and free leaps like (1,4)"
_MODS = "m c f b s v l r i n p g, and hl hr"
MAX_REACH = 15
"""The longest step or range that fits a board (16x16 at most): longer ones are mistakes."""
DIRECTIONS = set("fbslrvh")


def symmetric(base: Vector) -> frozenset[Vector]:
    """All images of `base` under the eight symmetries of the square board."""
    x, y = base
    out = set()
    for a, b in ((x, y), (y, x)):
        for sa in (1, -1):
            for sb in (1, -1):
                out.add((a * sa, b * sb))
    return frozenset(out)


def _shape(v: Vector) -> str:
    x, y = v
    if x == 0 or y == 0:
        return "orthogonal"
    if abs(x) == abs(y):
        return "diagonal"
    return "oblique"


def _half(letter: str, v: Vector) -> bool:
    x, y = v
    return {
        "f": y > 0,
        "b": y < 0,
        "l": x < 0,
        "r": x > 0,
        "s": abs(x) > abs(y),
        "v": abs(y) > abs(x),
    }[letter]


def _direction_terms(letters: str, shape: str) -> list[str]:
    """Split direction letters into terms: pairs mean one narrower direction where Betza
    gives them a meaning (diagonal `fl`, oblique `fs`), single letters otherwise."""
    terms: list[str] = []
    i = 0
    while i < len(letters):
        a = letters[i]
        b = letters[i + 1] if i + 1 < len(letters) else ""
        pair = False
        if a == "h":
            pair = True  # hl, hr: the parser has checked that l or r follows
        elif shape == "diagonal":
            pair = (a in "fb" and b in "lr") or (a in "lr" and b in "fb")
        elif shape == "oblique":
            pair = (
                a in "fblr" and b != "" and b in "fblrsv" and {a, b} not in ({"f", "b"}, {"l", "r"})
            )
        if pair:
            terms.append(a + b)
            i += 2
        else:
            terms.append(a)
            i += 1
    return terms


def _turns_left(v: Vector) -> bool:
    """Whether an oblique leap, seen as its longer leg and then its shorter one, turns
    left (counter-clockwise): (2,1), (-1,2), (-2,-1), (1,-2) for the Knight."""
    x, y = v
    return (x * y > 0) == (abs(x) > abs(y))


def _term_selects(term: str, v: Vector, shape: str) -> bool:
    if term[0] == "h":  # the chiral halves exist for oblique leaps only
        return shape == "oblique" and _turns_left(v) == (term[1] == "l")
    if len(term) == 1:
        if shape == "diagonal" and term in "sv":
            return False
        if shape == "orthogonal":
            x, y = v
            return {
                "f": y > 0,
                "b": y < 0,
                "l": x < 0,
                "r": x > 0,
                "s": y == 0,
                "v": x == 0,
            }[term]
        return _half(term, v)
    a, b = term[0], term[1]
    if a == b:  # ff = forward and narrow, ll = left and wide
        b = "v" if a in "fb" else "s"
    return _half(a, v) and _half(b, v)


def select_directions(vectors: frozenset[Vector], letters: str) -> frozenset[Vector]:
    """The vectors a set of Betza direction letters keeps (all of them when no letters)."""
    if not letters:
        return vectors
    shapes = {_shape(v) for v in vectors}
    chosen: set[Vector] = set()
    for shape in shapes:
        group = [v for v in vectors if _shape(v) == shape]
        for term in _direction_terms(letters, shape):
            chosen.update(v for v in group if _term_selects(term, v, shape))
    return frozenset(chosen)


def is_multi_step(c: Component) -> bool:
    """A Pawn's double or triple step (`fmnD`, `fmnH`): a lame, move-only step two or more
    squares straight forward, the move after which a piece may be taken en passant on any
    square it passed."""
    if c.kind is not Kind.LAME or not c.move or c.capture or len(c.vectors) != 1:
        return False
    (x, y), *_ = c.vectors
    return x == 0 and y >= 2


def lame_intermediates(v: Vector) -> tuple[Vector, ...]:
    """Squares a lame (`n`) leap passes, as Fairy-Stockfish walks them: along the longer
    side until the rest is diagonal, then diagonally. The line for straight and diagonal
    leaps, the orthogonal neighbour for the Knight (the Xiangqi Horse), one step and a
    diagonal for the Zebra (the Janggi Elephant: (0,1) then (1,2) towards (2,3))."""
    x, y = v
    if x == 0 and y == 0:
        raise ValueError(f"no lame path for {v}")
    sx, sy = (x > 0) - (x < 0), (y > 0) - (y < 0)
    out: list[Vector] = []
    cx = cy = 0
    while True:
        diff = abs(x - cx) - abs(y - cy)
        if diff > 0:
            cx += sx
        elif diff < 0:
            cy += sy
        else:
            cx, cy = cx + sx, cy + sy
        if (cx, cy) == (x, y):
            return tuple(out)
        out.append((cx, cy))


def parse_betza(text: str, *, pawnlike: bool = False) -> tuple[Component, ...]:
    """Read a Betza string into components; raise `BetzaError` on anything unknown."""
    components: list[Component] = []
    i = 0
    n = len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        mod_start = i
        while i < n and text[i] in MODIFIERS:
            i += 1
        mods = text[mod_start:i]
        if i >= n or text[i].isspace():
            raise BetzaError(
                text, mod_start, f"modifiers {mods!r} are not followed by an atom letter"
            )
        ch = text[i]
        parts: list[tuple[Vector, bool]] = []  # (base vector, rider)
        label: str
        if ch == "(":
            close = text.find(")", i)
            if close < 0:
                raise BetzaError(text, i, "'(' without a closing ')'")
            inner = text[i + 1 : close]
            pieces = [p.strip() for p in inner.split(",")]
            if len(pieces) != 2 or not all(p.isascii() and p.isdigit() for p in pieces):
                raise BetzaError(text, i, f"expected a leap like (1,4), found ({inner})")
            if any(len(p) > 3 for p in pieces):
                raise BetzaError(text, i, f"({inner}) leaves every board")
            x, y = int(pieces[0]), int(pieces[1])
            if x == 0 and y == 0:
                raise BetzaError(text, i, "the null leap (0,0) is not a move")
            if max(x, y) > MAX_REACH:
                raise BetzaError(
                    text, i, f"({x},{y}) leaves every board: leaps go at most {MAX_REACH} squares"
                )
            parts.append(((x, y), False))
            label = text[i : close + 1]
            i = close + 1
        elif ch in ATOMS or ch in SHORTHANDS:
            i += 1
            label = ch
            if ch in SHORTHANDS:
                parts.extend((ATOMS[a], r) for a, r in SHORTHANDS[ch])
            else:
                rider = i < n and text[i] == ch
                if rider:
                    i += 1
                    label += ch
                parts.append((ATOMS[ch], rider))
        elif ch in MODIFIERS or ch.islower():
            raise BetzaError(text, i, f"unknown modifier {ch!r} (the modifiers are {_MODS})")
        else:
            raise BetzaError(text, i, f"unknown atom {ch!r} (the atoms are {_ATOMS})")
        # Range digits make a rider with that limit: R4, N2.
        digit_start = i
        while i < n and text[i] in "0123456789":
            i += 1
        limit: int | None = None
        if i > digit_start:
            digits = text[digit_start:i]
            limit = int(digits) if len(digits) <= 3 else MAX_REACH + 1
            if limit == 0:
                raise BetzaError(text, digit_start, "a range of 0 allows no move")
            if limit > MAX_REACH:
                raise BetzaError(
                    text,
                    digit_start,
                    f"a range of {digits} is longer than any board; at most {MAX_REACH} "
                    f"(or double the letter for an unlimited rider: {label}{label})",
                )
            label += text[digit_start:i]
        if (
            i < n
            and not text[i].isspace()
            and text[i] not in MODIFIERS
            and text[i] != "("
            and text[i] not in ATOMS
            and text[i] not in SHORTHANDS
        ):
            if text[i].isupper():
                raise BetzaError(text, i, f"unknown atom {text[i]!r} (the atoms are {_ATOMS})")
            raise BetzaError(text, i, f"unexpected {text[i]!r} after {label!r}")
        components.extend(_build(text, mod_start, mods, parts, limit, label, pawnlike))
    if not components:
        raise BetzaError(text, 0, "no atom: the piece could never move")
    return tuple(components)


def _build(
    text: str,
    mod_start: int,
    mods: str,
    parts: list[tuple[Vector, bool]],
    limit: int | None,
    label: str,
    pawnlike: bool,
) -> list[Component]:
    def err(letter: str, reason: str) -> BetzaError:
        return BetzaError(text, mod_start + mods.index(letter), reason)

    if "m" in mods and "c" in mods:
        raise err("c", "'m' (move only) and 'c' (capture only) contradict each other")
    for at, ch in enumerate(mods):
        if ch == "h" and mods[at + 1 : at + 2] not in ("l", "r"):
            raise BetzaError(
                text,
                mod_start + at,
                "'h' is written 'hl' or 'hr': the left- or right-turning half of an oblique "
                "leap's moves (hlN)",
            )
    move = "c" not in mods
    capture = "m" not in mods
    initial = "i" in mods
    lame = "n" in mods
    hop = "p" in mods
    grass = "g" in mods
    if hop and grass:
        raise err("g", "'p' (hopper) and 'g' (grasshopper) cannot be combined")
    hop_letter = "p" if hop else "g"
    directions = "".join(ch for ch in mods if ch in DIRECTIONS)
    out: list[Component] = []
    for base, doubled in parts:
        rider = doubled or (limit is not None and limit > 1)
        name = "hopper" if hop else "grasshopper"
        if lame and rider:
            raise err("n", f"'n' (lame) applies to leaps, not to the rider {label!r}")
        if (hop or grass) and not rider:
            raise err(
                hop_letter, f"'{hop_letter}' ({name}) applies to riders, not to the leap {label!r}"
            )
        if lame and (hop or grass):
            raise err(hop_letter, f"'n' and '{hop_letter}' cannot be combined")
        if (hop or grass) and limit == 1:
            raise err(
                hop_letter,
                f"a {name}'s range counts its screen, so with a range of 1 it never lands "
                f"({label!r}); the Grasshopper is gQ",
            )
        vectors = select_directions(symmetric(base), directions)
        if not vectors:
            continue
        if hop or grass:
            kind = Kind.HOP
        else:
            kind = Kind.RIDE if rider else Kind.LAME if lame else Kind.LEAP
        if kind is Kind.LAME:
            for v in vectors:
                lame_intermediates(v)
        out.append(
            Component(
                kind=kind,
                vectors=vectors,
                move=move,
                capture=capture,
                initial=initial,
                range=limit if rider else None,
                grasshopper=grass,
                pawnlike=pawnlike,
                source=(mods + label),
            )
        )
    if not out:
        letter = directions[0] if directions else mods[0]
        raise err(letter, f"direction modifiers {directions!r} select no move of {label!r}")
    return out
