"""Fairy-Stockfish's `variants.ini`, in and out.

The variant world shares one file format: the sections of Fairy-Stockfish's `variants.ini`
(`[name]` or `[child:parent]`, then `key = value` lines). `convert_ini` reads such a text
as Fairy-Stockfish 0.0.90 (pyffish) does and writes each section as the Fairy Post TOML
of the same game; `export_ini` writes a Fairy Post variant as a section Fairy-Stockfish
loads and plays the same way.

Reading follows Fairy-Stockfish's parser: lines before the first section are ignored, a line
starting with `#` or `;` is a comment, the last of two equal keys wins, a section may inherit
from a section above it or from a Fairy-Stockfish built-in game that Fairy Post plays under
the same id (its export is the parent), piece slots are applied in Fairy-Stockfish's order
and a letter given twice replaces the first piece. Every option is either mapped to the
Fairy Post model or refused by name with the reason; display options (`pieceToCharTable`,
`pocketSize`, `variantTemplate`, piece values) are listed in the output as having no effect
on the rules (`variantTemplate = shogi` still gives the Shogi notation Fairy-Stockfish
writes). Nothing is silently dropped. Movement is compared, not copied: a piece's Betza
text is read as Fairy-Stockfish reads it into a set of moves, Fairy Post Betza is written for
that set and read back, and a piece whose moves differ is refused.

The text is a stranger's file: it is bounded in size, sections, keys and line length
before anything is built, and every TOML text produced is loaded by `load_definition`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NoReturn

from rules.betza import ATOMS, Component, Kind, is_multi_step, parse_betza
from rules.errors import BetzaError, RulesError, VariantError
from rules.variant import (
    ANY_PIECE,
    Counting,
    PieceType,
    Variant,
    Zone,
    load_variant,
    variant_ids,
)

MAX_INI_BYTES = 32 * 1024
MAX_SECTIONS = 40
MAX_KEYS = 200
MAX_LINE = 400


@dataclass(frozen=True)
class Bounds:
    """How much of a file is read before anything is built: a stranger's upload gets the
    small default; a file the owner of the machine converts (`python -m rules convert`)
    may be as large as Fairy-Stockfish's own example file."""

    max_bytes: int = MAX_INI_BYTES
    max_sections: int = MAX_SECTIONS


LOCAL_FILE = Bounds(max_bytes=1024 * 1024, max_sections=2000)
FILE_LETTERS = "abcdefghijklmnop"

# ---------------------------------------------------------------------------------------
# Fairy-Stockfish's pieces and Betza reading (piece.cpp of 0.0.90)

PREDEFINED: tuple[tuple[str, str], ...] = (
    ("pawn", "fmWfceF"),
    ("knight", "N"),
    ("bishop", "B"),
    ("rook", "R"),
    ("queen", "Q"),
    ("fers", "F"),
    ("alfil", "A"),
    ("fersAlfil", "FA"),
    ("silver", "FfW"),
    ("aiwok", "RNF"),
    ("bers", "RF"),
    ("archbishop", "BN"),
    ("chancellor", "RN"),
    ("amazon", "QN"),
    ("knibis", "mNcB"),
    ("biskni", "mBcN"),
    ("kniroo", "mNcR"),
    ("rookni", "mRcN"),
    ("shogiPawn", "fW"),
    ("lance", "fR"),
    ("shogiKnight", "fN"),
    ("gold", "WfF"),
    ("dragonHorse", "BW"),
    ("clobber", "cW"),
    ("breakthrough", "fmWfF"),
    ("immobile", ""),
    ("cannon", "mRcpR"),
    ("janggiCannon", "pR"),
    ("soldier", "fsW"),
    ("horse", "nN"),
    ("elephant", "nA"),
    ("janggiElephant", "nZ"),
    ("banner", "RcpRnN"),
    ("wazir", "W"),
    ("commoner", "K"),
    ("centaur", "KN"),
)
"""Fairy-Stockfish's predefined piece names and movement, in its piece-type order."""
CUSTOM_SLOTS = tuple(f"customPiece{i}" for i in range(1, 26))
SLOT_ORDER = (*(name for name, _ in PREDEFINED), *CUSTOM_SLOTS, "king")
PREDEFINED_BETZA = dict(PREDEFINED)
SPECIAL_PIECES = {
    "banner": "Manchu's Banner",
    "clobber": "Clobber's stone",
    "breakthrough": "Breakthrough's stone",
}
"""Predefined pieces whose behaviour Fairy-Stockfish builds in beyond their Betza text."""
CHASING_ROLES = {
    "chariot": "rook",
    "horse": "horse",
    "cannon": "cannon",
    "elephant": "elephant",
    "advisor": "fers",
    "soldier": "soldier",
}
"""Fairy Post's roles of Xiangqi's chasing rule -> the piece types Fairy-Stockfish's
chasingRule = axf gives them."""
JANGGI_TYPES = {
    "chariot": "rook",
    "cannon": "janggiCannon",
    "horse": "horse",
    "elephant": "janggiElephant",
    "advisor": "wazir",
    "soldier": "soldier",
}
"""The pieces of Fairy Post's janggi that its material points value -> the piece types
Fairy-Stockfish's materialCounting = janggi counts (the points are that game's)."""
DRAW_ODDS = {"blackdrawodds": 1.0, "whitedrawodds": -1.0}
"""Fairy-Stockfish's materialCounting that gives every draw by rule to one side -> the
`black-bonus` of material points without pieces that says the same."""
DIAGONAL_MOVES = {"wazir": "F", "soldier": "fF", "rook": "B", "janggiCannon": "pB"}
"""What Fairy-Stockfish's piece types add on its diagonalLines squares (Janggi's palace
lines); a King moving as its Wazir adds the Wazir's."""
WAZIR_KING_GAME = "janggi"
"""Fairy-Stockfish's game whose King moves as its Wazir: the only way a section's King gets
the palace lines' diagonal steps is to inherit from it."""
SHATAR_TYPES = ({"knight"}, {"knight", "rook", "bers"})
"""Fairy-Stockfish's shatarMateRule: a mate by its Knights alone is lost by the mating side,
and a mate is drawn unless a Knight, Rook or Bers gave check in the series of checks."""
COUNTING_TYPES = {"pawn": "pawn", "rook": "rook", "khon": "silver", "knight": "knight"}
"""The pieces of Fairy Post's makruk, cambodian and asean whose numbers their counting
rules test -> the piece types Fairy-Stockfish's countingRule counts (its KHON is the
silver): the rules' limits are those games' `[rules.counting]`, one place for them."""
PROMOTED_LETTERS = {"bers": "d", "dragonHorse": "h"}
"""The letters Fairy-Stockfish's Shogi games give their promoted Rook and Bishop types, which
a section inheriting from them may name (`promotedPieceType = b:h`)."""
ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyz"
CATALOGUE_IDS = {
    "pawn": "pawn",
    "knight": "knight",
    "bishop": "bishop",
    "rook": "rook",
    "queen": "queen",
    "king": "king",
    "fers": "fers",
    "alfil": "alfil",
    "fersAlfil": "elephant",
    "silver": "silver",
    "bers": "dragon-king",
    "archbishop": "cardinal",
    "chancellor": "marshal",
    "amazon": "amazon",
    "shogiPawn": "shogi-pawn",
    "lance": "lance",
    "shogiKnight": "shogi-knight",
    "gold": "gold",
    "dragonHorse": "dragon-horse",
    "cannon": "cannon",
    "wazir": "wazir",
    "commoner": "man",
    "centaur": "centaur",
}
"""Fairy-Stockfish's piece names -> the Fairy Post catalogue's ids for the same piece."""

_LEAPERS = {
    "W": ((1, 0),),
    "F": ((1, 1),),
    "D": ((2, 0),),
    "N": ((2, 1),),
    "A": ((2, 2),),
    "H": ((3, 0),),
    "L": ((3, 1),),
    "C": ((3, 1),),
    "J": ((3, 2),),
    "Z": ((3, 2),),
    "G": ((3, 3),),
    "K": ((1, 0), (1, 1)),
}
_RIDERS = {"R": ((1, 0),), "B": ((1, 1),), "Q": ((1, 0), (1, 1))}
_VERTICALS = "fbvh"
_HORIZONTALS = "rlsh"
_DIRECTION_TESTS: tuple[tuple[Callable[[int, int], tuple[int, int]], tuple[str, ...]], ...] = (
    # (dy, dx) as functions of the atom (first, second), and the direction pairs selecting it
    (lambda a, b: (a, b), ("ff", "vv", "rf", "rv", "fh", "rh", "hr")),
    (lambda a, b: (-a, -b), ("bb", "vv", "lb", "lv", "bh", "lh", "hr")),
    (lambda a, b: (-b, a), ("rr", "ss", "br", "bs", "bh", "rh", "hr")),
    (lambda a, b: (b, -a), ("ll", "ss", "fl", "fs", "fh", "lh", "hr")),
    (lambda a, b: (b, a), ("rr", "ss", "fr", "fs", "fh", "rh", "hl")),
    (lambda a, b: (-b, -a), ("ll", "ss", "bl", "bs", "bh", "lh", "hl")),
    (lambda a, b: (-a, b), ("bb", "vv", "rb", "rv", "bh", "rh", "hl")),
    (lambda a, b: (a, -b), ("ff", "vv", "lf", "lv", "fh", "lh", "hl")),
)

Move = tuple[str, bool, bool, tuple[int, int], int]
"""One move of a piece: (kind: leap, lame, ride, hop or grasshop; initial only; a capture
(else a quiet move); the vector (x, y) for White; the range of a ride or a hop, 0 for none).
A hop's range counts the whole line, screen included (`pB2` jumps over an adjacent piece);
a grasshop lands directly beyond its screen, and a grasshop with a range of 2 is that
hop."""


class IniRefusal(VariantError):
    """A section, or one of its options, that Fairy Post cannot play or write."""


def fsf_moves(betza: str) -> tuple[frozenset[Move], bool, str]:
    """Fairy-Stockfish's reading of a Betza string (piece.cpp's from_betza): its moves,
    whether it takes en passant (`e`), and the characters it skips without meaning ("" when
    none)."""
    out: dict[tuple[str, bool, bool, tuple[int, int]], int] = {}
    modalities: list[bool] = []
    hopper = rider = lame = initial = False
    distance = 0
    directions: list[str] = []
    skipped = ""
    ep = False
    i = 0
    while i < len(betza):
        c = betza[i]
        if c in "mc":
            modalities.append(c == "c")
        elif c in "pg":
            hopper = True
            if c == "g":
                distance = 1
        elif c == "n":
            lame = True
        elif c == "i":
            initial = True
        elif c in _VERTICALS or c in _HORIZONTALS:
            if i + 1 < len(betza):
                c2 = betza[i + 1]
                if (
                    c2 == c
                    or (c in _VERTICALS and c2 in _HORIZONTALS)
                    or (c in _HORIZONTALS and c2 in _VERTICALS)
                ):
                    directions.append(c + c2)
                    i += 2
                    continue
            directions.append(c + c)
        elif c in _LEAPERS or c in _RIDERS:
            atoms = _RIDERS[c] if c in _RIDERS else _LEAPERS[c]
            rider = rider or c in _RIDERS
            if i + 1 < len(betza) and (betza[i + 1].isdigit() or betza[i + 1] == c):
                rider = True
                if betza[i + 1].isdigit():
                    distance = int(betza[i + 1])
                i += 1
            if not rider and lame:
                distance = -1
            mods = modalities or [False, True]
            for first, second in atoms:
                dirs: list[str] = []
                for s in directions:
                    if len(atoms) == 1 and second == 0 and s[0] != s[1]:
                        dirs += [s[0] * 2, s[1] * 2]
                    else:
                        dirs.append(s)
                kind = "hop" if hopper else "ride" if rider else "step"
                for capture in mods:
                    for turn, selectors in _DIRECTION_TESTS:
                        if not dirs or any(d in selectors for d in dirs):
                            dy, dx = turn(first, second)
                            out[(kind, initial, capture, (dx, dy))] = distance
            modalities = []
            directions = []
            hopper = rider = lame = initial = False
            distance = 0
        elif c == "e":
            ep = True
        elif not c.isspace():
            skipped += c
        i += 1
    moves = set()
    for (kind, initial, capture, vector), dist in out.items():
        if kind == "step":
            moves.add(("lame" if dist < 0 else "leap", initial, capture, vector, 0))
        elif kind == "ride":
            moves.add(("ride", initial, capture, vector, dist))
        elif dist == 1:  # `g`, and a hop of range 1: Fairy-Stockfish's grasshopper
            moves.add(("grasshop", initial, capture, vector, 0))
        else:  # `gR3` is `pR3`: the range replaces the grasshopper's 1
            moves.add(("hop", initial, capture, vector, dist))
    return frozenset(moves), ep, skipped


_KIND_NAMES = {Kind.LEAP: "leap", Kind.LAME: "lame", Kind.RIDE: "ride", Kind.HOP: "hop"}
_RANGED = ("ride", "hop", "grasshop")
"""The kinds of `Move` that ride a line (and may have a range)."""
_HOP_PREFIX = {"lame": "n", "hop": "p", "grasshop": "g"}


def our_moves(components: Iterable[Component]) -> frozenset[Move] | None:
    """The same set for Fairy Post components (None when a component is of a kind
    Fairy-Stockfish's Betza cannot write: bent, paths, ...)."""
    moves: set[Move] = set()
    for c in components:
        kind = _KIND_NAMES.get(c.kind)
        if kind is None:
            return None
        span = c.range or 0
        if kind == "hop" and c.grasshopper and span != 2:
            kind = "grasshop"  # (over an adjacent screen to the second square: `pR2`)
        for v in c.vectors:
            # A lame step of one square has nothing to jump: it is a plain leap.
            k = "leap" if kind == "lame" and max(abs(v[0]), abs(v[1])) == 1 else kind
            reach = span
            if reach and max(abs(v[0]), abs(v[1])) * reach > 15:
                reach = 0
            for capture, allowed in ((False, c.move), (True, c.capture)):
                if allowed:
                    moves.add((k, c.initial, capture, v, reach if k in _RANGED else 0))
    return frozenset(moves)


def _normal(moves: frozenset[Move]) -> frozenset[Move]:
    """Lame one-square steps are leaps (Fairy-Stockfish's `nW` is `W`)."""
    return frozenset(
        ("leap" if k == "lame" and max(abs(v[0]), abs(v[1])) == 1 else k, i, c, v, r)
        for k, i, c, v, r in moves
    )


def _base(v: tuple[int, int]) -> tuple[int, int]:
    a, b = abs(v[0]), abs(v[1])
    return (max(a, b), min(a, b))


_ATOM_OF = {vec: letter for letter, vec in ATOMS.items()}
_MOD_CANDIDATES = ("", *"fblrsv", *(a + b for a in "fblrsv" for b in "fblrsv"), "hl", "hr")


def _atom_text(base: tuple[int, int], kind: str, span: int) -> str:
    atom = _ATOM_OF.get((base[0], base[1])) or _ATOM_OF.get((base[1], base[0]))
    if atom is None:
        atom = f"({base[0]},{base[1]})"
    if kind in _RANGED and not span and atom in ("W", "F"):
        return "R" if atom == "W" else "B"
    if kind in _RANGED:
        if span and kind != "ride" and atom in ("W", "F"):
            return f"{'R' if atom == 'W' else 'B'}{span}"  # pR3, as Fairy-Stockfish writes it
        if span:
            return f"{atom}{span}" if atom[0] != "(" else f"{atom}{atom}"
        return atom * 2 if atom[0] != "(" else atom + atom
    return atom


def _selectable(mods: str, atom: str) -> frozenset[tuple[int, int]] | None:
    try:
        comps = parse_betza(mods + atom)
    except BetzaError:
        return None
    return frozenset(v for c in comps for v in c.vectors)


def betza_for(moves: frozenset[Move]) -> str | None:
    """Fairy Post Betza for exactly `moves`, or None when none is found."""
    groups: dict[tuple[str, bool, bool, bool, int, tuple[int, int]], set[tuple[int, int]]] = {}
    by_move: dict[tuple[str, bool, tuple[int, int], int], set[bool]] = {}
    for kind, initial, capture, v, span in moves:
        by_move.setdefault((kind, initial, v, span), set()).add(capture)
    for (kind, initial, v, span), captures in by_move.items():
        move, capture = False in captures, True in captures
        groups.setdefault((kind, initial, move, capture, span, _base(v)), set()).add(v)
    parts: list[str] = []
    for (kind, initial, move, capture, span, base), vectors in sorted(groups.items()):
        atom = _atom_text(base, kind, span)
        prefix = ("i" if initial else "") + ("" if move and capture else "m" if move else "c")
        prefix += _HOP_PREFIX.get(kind, "")
        if kind in _RANGED and span and atom.endswith(atom[:1] * 2):
            return None  # a limited ride of a free leap has no short form
        need = set(vectors)
        while need:
            best: frozenset[tuple[int, int]] = frozenset()
            best_mods = ""
            for mods in _MOD_CANDIDATES:
                got = _selectable(mods, atom)
                if got and got <= vectors and len(got & need) > len(best & need):
                    best, best_mods = got, mods
            if not best:
                return None
            need -= best
            parts.append(prefix + best_mods + atom)
    text = " ".join(parts)
    try:
        back = our_moves(parse_betza(text)) if text else frozenset()
    except BetzaError:
        return None
    return text if back == _normal(moves) else None


_FSF_MOD_CANDIDATES = (
    "",
    *dict.fromkeys([*"fblrvs", *(a + b for a in "fblrvsh" for b in "fblrvsh")]),
)


def fsf_betza_for(moves: frozenset[Move]) -> str | None:
    """Fairy-Stockfish Betza for exactly `moves` (as its from_betza reads it), or None."""
    groups: dict[tuple[str, bool, bool, bool, int, tuple[int, int]], set[tuple[int, int]]] = {}
    by_move: dict[tuple[str, bool, tuple[int, int], int], set[bool]] = {}
    for kind, initial, capture, v, span in moves:
        by_move.setdefault((kind, initial, v, span), set()).add(capture)
    for (kind, initial, v, span), captures in by_move.items():
        move, capture = False in captures, True in captures
        groups.setdefault((kind, initial, move, capture, span, _base(v)), set()).add(v)
    parts: list[str] = []
    for (kind, initial, move, capture, span, base), vectors in sorted(groups.items()):
        letters = {(1, 0): "W", (1, 1): "F", (2, 0): "D", (2, 1): "N", (2, 2): "A"}
        letters |= {(3, 0): "H", (3, 1): "C", (3, 2): "Z", (3, 3): "G"}
        atom = letters.get(base)
        if atom is None:
            return None
        if kind == "ride":
            if span > 9:
                return None
            atom = {"W": "R", "F": "B"}.get(atom, atom + atom) if not span else atom + str(span)
        elif kind in ("hop", "grasshop"):
            # Fairy-Stockfish's hoppers ride the Rook's and Bishop's lines; its range digit
            # replaces a grasshopper's (`gR3` is `pR3`), so a ranged grasshopper has no form
            atom = {"W": "R", "F": "B"}.get(atom, "")
            if not atom or span > 9 or (kind == "grasshop" and span):
                return None
            atom += str(span) if span else ""
        prefix = ("i" if initial else "") + ("" if move and capture else "m" if move else "c")
        prefix += _HOP_PREFIX.get(kind, "")
        need = set(vectors)
        while need:
            best: frozenset[tuple[int, int]] = frozenset()
            best_mods = ""
            for mods in _FSF_MOD_CANDIDATES:
                got = frozenset(v for _, _, _, v, _ in fsf_moves("m" + mods + atom)[0])
                if got and got <= vectors and len(got & need) > len(best & need):
                    best, best_mods = got, mods
            if not best:
                return None
            need -= best
            parts.append(prefix + best_mods + atom)
    text = "".join(parts)
    return text if _normal(fsf_moves(text)[0]) == _normal(moves) else None


# ---------------------------------------------------------------------------------------
# Reading the file


@dataclass
class Section:
    name: str
    parent: str
    keys: dict[str, str]
    lines: dict[str, int]
    line: int


def read_sections(
    text: str, source: str = "variants.ini", bounds: Bounds = Bounds()
) -> list[Section]:
    """The sections of a variants.ini text, read as Fairy-Stockfish reads them, bounded."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > bounds.max_bytes:
        raise VariantError(
            source, "", f"{size:,} bytes; a variants.ini file may be at most {bounds.max_bytes:,}"
        )
    if "\x00" in text:
        raise VariantError(source, "", "the file contains a NUL character; it is not a text file")
    sections: list[Section] = []
    current: Section | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if len(line) > MAX_LINE:
            raise VariantError(source, "", f"line {number} is longer than {MAX_LINE} characters")
        if line.startswith("["):
            header = line[1:].split("]", 1)[0]
            name, _, parent = header.partition(":")
            if len(sections) >= bounds.max_sections:
                raise VariantError(source, "", f"more than {bounds.max_sections} sections")
            current = Section(name, parent, {}, {}, number)
            sections.append(current)
            continue
        if current is None or not line or line[0] in ";#":
            continue
        key, eq, value = line.partition("=")
        if not eq:
            raise VariantError(
                source,
                f"[{current.name}]",
                f"line {number} is not 'key = value': {line.strip()[:60]!r}",
                line=number,
            )
        key = key.rstrip(" ")
        if not key:
            continue
        if len(current.keys) >= MAX_KEYS:
            raise VariantError(source, f"[{current.name}]", f"more than {MAX_KEYS} options")
        current.keys[key] = value.lstrip()
        current.lines[key] = number
    return sections


# ---------------------------------------------------------------------------------------
# The state of a variant as Fairy-Stockfish builds it


@dataclass
class Slot:
    letter: str  # lowercase
    betza: str  # custom pieces and a custom King; "" for the predefined movement


@dataclass
class Config:
    """A variant as Fairy-Stockfish holds it: pieces by slot, options as written (piece
    sets resolved to slots when they are read, as Fairy-Stockfish does), and where each
    option came from for messages."""

    pieces: dict[str, Slot] = field(default_factory=dict)
    options: dict[str, str] = field(default_factory=dict)
    sets: dict[str, frozenset[str]] = field(default_factory=dict)
    origin: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    promoted: dict[str, str] = field(default_factory=dict)
    """promotedPieceType by slot: a section adds to its parent's (Fairy-Stockfish keeps
    the types a child does not name: gorogoroplus's l:g n:g beside gorogoro's p:g s:g)."""
    king_type: str = "king"
    """The predefined piece the King moves as: `wazir` in Fairy-Stockfish's janggi (and so
    along its palace lines too), `custom` for a King given a Betza text."""

    def copy(self) -> Config:
        return Config(
            {k: Slot(s.letter, s.betza) for k, s in self.pieces.items()},
            dict(self.options),
            dict(self.sets),
            dict(self.origin),
            dict(self.promoted),
            self.king_type,
        )

    def slot_of(self, letter: str) -> str | None:
        for name, slot in self.pieces.items():
            if slot.letter == letter.lower():
                return name
        return None


SET_BASES = (
    "promotionPawnTypes",
    "promotionPieceTypes",
    "enPassantTypes",
    "castlingKingPiece",
    "castlingRookPieces",
    "nMoveRuleTypes",
    "flagPiece",
    "extinctionPieceTypes",
    "dropNoDoubled",
    "mustDropType",
    "blastImmuneTypes",
    "mutuallyImmuneTypes",
    "petrifyOnCaptureTypes",
    "connectPieceTypes",
)
SET_ALIASES = {
    "pawnTypes": ("promotionPawnTypes", "enPassantTypes", "nMoveRuleTypes"),
    "castlingRookPiece": ("castlingRookPieces",),
}
"""Aliases that set other piece sets, as Fairy-Stockfish's parser does."""
SET_DEFAULTS = {
    "promotionPawnTypes": frozenset({"pawn"}),
    "enPassantTypes": frozenset({"pawn"}),
    "castlingKingPiece": frozenset({"king"}),
    "castlingRookPieces": frozenset({"rook"}),
    "nMoveRuleTypes": frozenset({"pawn"}),
    "flagPiece": frozenset({"*"}),
}


def _set_key(key: str) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """The piece sets (and colours) a key writes, or None when it is no piece-set key."""
    colors: tuple[int, ...] = (0, 1)
    base = key
    if key.endswith(("White", "Black")):
        base, colors = key[:-5], ((0,) if key.endswith("White") else (1,))
    if base in SET_ALIASES:
        return SET_ALIASES[base], colors
    if base in SET_BASES:
        return (base,), colors
    return None


def _resolve_set(value: str, config: Config) -> frozenset[str] | None:
    """A piece set as Fairy-Stockfish reads it: letters until one is unknown (`-` ends it
    quietly), `*` for every piece; None when a letter is unknown."""
    out: set[str] = set()
    for ch in value.replace(" ", ""):
        if ch == "*":
            out.add("*")
            continue
        slot = config.slot_of(ch)
        if slot is None:
            return frozenset(out) if ch == "-" else None
        out.add(slot)
    return frozenset(out)


def piece_set(config: Config, base: str, color: int) -> frozenset[str]:
    return config.sets.get(f"{base}/{color}", SET_DEFAULTS.get(base, frozenset()))


def default_config() -> Config:
    """Fairy-Stockfish's template for a section without a parent: chess's rules, no
    pieces, no promotion choices."""
    config = Config()
    for color in (0, 1):
        config.sets[f"promotionPieceTypes/{color}"] = frozenset()
    return config


ATOMIC_INI = """[atomic]
king = -
commoner = k
castlingKingPiece = k
extinctionValue = loss
extinctionPieceTypes = k
blastOnCapture = true
"""
PLACEMENT_INI = """[placement]
startFen = 8/pppppppp/8/8/8/8/PPPPPPPP/8[KQRRBBNNkqrrbbnn] w - - 0 1
mustDrop = true
pieceDrops = true
capturesToHand = false
whiteDropRegion = *1
blackDropRegion = *8
dropOppositeColoredBishop = true
castlingDroppedPiece = true
"""
POCKETKNIGHT_INI = """[pocketknight]
startFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1
pieceDrops = true
capturesToHand = false
"""
CHESS_INI = """[chess]
pawn = p
knight = n
bishop = b
rook = r
queen = q
king = k
promotionPieceTypes = qrbn
"""
"""Fairy-Stockfish's chess: its template with the six pieces."""


def apply_section(base: Config, section: Section, source: str) -> Config:
    """`section`'s keys over `base`, in Fairy-Stockfish's order: the board size, the pieces
    in piece-type order (a letter given again replaces the piece that had it), then every
    other option, piece sets read with the letters as they now are."""
    config = base.copy()
    keys = section.keys
    for key in ("maxRank", "maxFile"):
        if key in keys:
            config.options[key] = keys[key]
            config.origin[key] = (section.name, section.lines[key])

    def remove(slot: str) -> None:
        config.pieces.pop(slot, None)
        for color in (0, 1):
            name = f"promotionPieceTypes/{color}"
            if name in config.sets:
                config.sets[name] = config.sets[name] - {slot}

    for slot in SLOT_ORDER:
        value = keys.get(slot)
        if not value:
            continue
        line = section.lines[slot]
        if value[0].isalpha():
            other = config.slot_of(value[0])
            if other is not None:
                remove(other)
            custom = slot in CUSTOM_SLOTS or slot == "king"
            if slot in CUSTOM_SLOTS and len(value) < 2:
                raise IniRefusal(
                    source,
                    f"[{section.name}] {slot}",
                    "a custom piece needs its movement after its letter: customPiece1 = a:BN",
                    line=line,
                )
            betza = value[2:] if custom and len(value) > 1 else ""
            if slot == "king":
                # `king = k` gives the King a King's moves again, `king = k:W` its own
                config.king_type = "custom" if betza else "king"
            config.pieces[slot] = Slot(value[0].lower(), betza)
            config.origin[slot] = (section.name, line)
            if "e" in betza:
                for color in (0, 1):
                    config.sets[f"enPassantTypes/{color}"] = piece_set(
                        config, "enPassantTypes", color
                    ) | {slot}
        else:
            remove(slot)
    for key, value in keys.items():
        if key in SLOT_ORDER or key in ("maxRank", "maxFile"):
            continue
        where = (section.name, section.lines[key])
        if key == "promotedPieceType":
            for token in value.split():
                a, _, b = token.partition(":")
                slot_a = config.slot_of(a) if len(a) == 1 else None
                slot_b = config.slot_of(b) if len(b) == 1 else None
                if slot_a is None or slot_b is None:
                    raise IniRefusal(
                        source,
                        f"[{section.name}] {key}",
                        f"{token!r} is not two pieces' letters",
                        line=where[1],
                    )
                config.promoted[slot_a] = slot_b
        target = _set_key(key)
        if target is None:
            config.options[key] = value
            config.origin[key] = where
            continue
        members = _resolve_set(value, config)
        if members is None:
            raise IniRefusal(
                source,
                f"[{section.name}] {key}",
                f"{value.strip()!r} names a letter that no piece of this section has",
                line=where[1],
            )
        bases, colors = target
        for base_name in bases:
            for color in colors:
                config.sets[f"{base_name}/{color}"] = members
                config.origin[f"{base_name}/{color}"] = where
    return config


# ---------------------------------------------------------------------------------------
# Option values as Fairy-Stockfish reads them

BOOL_DEFAULTS = {
    "chess960": False,
    "twoBoards": False,
    "sittuyinPromotion": False,
    "piecePromotionOnCapture": False,
    "mandatoryPawnPromotion": True,
    "mandatoryPiecePromotion": False,
    "pieceDemotion": False,
    "blastOnCapture": False,
    "petrifyBlastPieces": False,
    "doubleStep": True,
    "castling": True,
    "castlingDroppedPiece": False,
    "oppositeCastling": False,
    "checking": True,
    "dropChecks": True,
    "mustCapture": False,
    "mustDrop": False,
    "pieceDrops": False,
    "dropLoop": False,
    "capturesToHand": False,
    "firstRankPawnDrops": False,
    "promotionZonePawnDrops": False,
    "sittuyinRookDrop": False,
    "dropOppositeColoredBishop": False,
    "dropPromoted": False,
    "immobilityIllegal": False,
    "gating": False,
    "wallOrMove": False,
    "seirawanGating": False,
    "cambodianMoves": False,
    "pass": False,
    "passWhite": False,
    "passBlack": False,
    "passOnStalemate": False,
    "passOnStalemateWhite": False,
    "passOnStalemateBlack": False,
    "makpongRule": False,
    "flyingGeneral": False,
    "nFoldValueAbsolute": False,
    "perpetualCheckIllegal": False,
    "moveRepetitionIllegal": False,
    "stalematePieceCount": False,
    "shogiPawnDropMateIllegal": False,
    "shatarMateRule": False,
    "bikjangRule": False,
    "extinctionClaim": False,
    "extinctionPseudoRoyal": False,
    "dupleCheck": False,
    "flagPieceBlockedWin": False,
    "flagMove": False,
    "flagPieceSafe": False,
    "checkCounting": False,
    "connectHorizontal": True,
    "connectVertical": True,
    "connectDiagonal": True,
    "adjudicateFullBoard": False,
    "dropOnTop": False,
}
INT_DEFAULTS = {
    "nMoveRule": 50,
    "nFoldRule": 3,
    "dropNoDoubledCount": 1,
    "extinctionPieceCount": 0,
    "extinctionOpponentPieceCount": 0,
    "flagPieceCount": 1,
    "connectN": 0,
    "connectNxN": 0,
    "collinearN": 0,
    "pocketSize": 0,
}
WORD_DEFAULTS = {
    "checkmateValue": "loss",
    "extinctionValue": "none",
    "nFoldValue": "draw",
    "stalemateValue": "draw",
    "connectValue": "win",
    "materialCounting": "none",
    "countingRule": "none",
    "chasingRule": "none",
    "enclosingDrop": "none",
    "flipEnclosedPieces": "none",
    "wallingRule": "none",
    "castlingWins": "-",
}
FILE_DEFAULTS = {
    "castlingKingsideFile": 6,
    "castlingQueensideFile": 2,
    "castlingKingFile": 4,
    "castlingRookKingsideFile": 11,
    "castlingRookQueensideFile": 0,
}
RANK_DEFAULTS = {"castlingRank": 1, "soldierPromotionRank": 1}
REGION_KEYS = (
    "promotionRegionWhite",
    "promotionRegionBlack",
    "doubleStepRegionWhite",
    "doubleStepRegionBlack",
    "tripleStepRegionWhite",
    "tripleStepRegionBlack",
    "enPassantRegion",
    "enPassantRegionWhite",
    "enPassantRegionBlack",
    "dropRegionWhite",
    "dropRegionBlack",
    "whiteDropRegion",
    "blackDropRegion",
    "flagRegion",
    "flagRegionWhite",
    "flagRegionBlack",
    "whiteFlag",
    "blackFlag",
    "diagonalLines",
    "enclosingDropStart",
    "wallingRegion",
    "wallingRegionWhite",
    "wallingRegionBlack",
    "connectRegion1White",
    "connectRegion2White",
    "connectRegion1Black",
    "connectRegion2Black",
)
DISPLAY_KEYS = ("variantTemplate", "pieceToCharTable", "pocketSize", "pieceValueMg", "pieceValueEg")
"""Options for the engine's evaluation and XBoard's pictures: no effect on the rules."""

REFUSED: dict[str, str] = {
    "chess960": "random starting arrays with Chess960 castling",
    "twoBoards": "partner play on two boards (Bughouse)",
    "sittuyinPromotion": "Sittuyin's promotion (a Pawn turning into a General in place)",
    "petrifyBlastPieces": "exploding captures (Atomic)",
    "sittuyinRookDrop": "Sittuyin's setup drops",
    "seirawanGating": "S-Chess gating from the hand",
    "wallOrMove": "walls placed on the board (Duck chess, Atlantis)",
    "passWhite": "passing",
    "passBlack": "passing",
    "passOnStalemate": "passing when stalemated",
    "passOnStalemateWhite": "passing when stalemated",
    "passOnStalemateBlack": "passing when stalemated",
    "extinctionClaim": "extinction (losing when a kind of piece is gone)",
    "dupleCheck": "pseudo-royal pieces (extinction)",
    "connectHorizontal": "connecting pieces in a row (a connection game)",
    "connectVertical": "connecting pieces in a row (a connection game)",
    "connectDiagonal": "connecting pieces in a row (a connection game)",
    "adjudicateFullBoard": "material counting when the board is full (Reversi)",
    "dropOnTop": "drops on top of other pieces (Connect Four)",
    "connectN": "connecting pieces in a row (a connection game)",
    "connectNxN": "connecting pieces in a square (a connection game)",
    "collinearN": "pieces on one line (a connection game)",
    "connectValue": "connecting pieces in a row (a connection game)",
    "enclosingDrop": "drops that must enclose pieces (Reversi, Ataxx)",
    "flipEnclosedPieces": "flipping enclosed pieces (Reversi, Ataxx)",
    "wallingRule": "walls placed on the board (Duck chess, Amazons)",
    "enclosingDropStart": "drops that must enclose pieces (Reversi)",
    "wallingRegion": "walls placed on the board (Duck chess, Amazons)",
    "wallingRegionWhite": "walls placed on the board (Duck chess, Amazons)",
    "wallingRegionBlack": "walls placed on the board (Duck chess, Amazons)",
    "connectRegion1White": "connecting two edges (a connection game)",
    "connectRegion2White": "connecting two edges (a connection game)",
    "connectRegion1Black": "connecting two edges (a connection game)",
    "connectRegion2Black": "connecting two edges (a connection game)",
}
"""Options Fairy Post does not convert, by the mechanism they switch on; refused only when
a section gives them a value other than Fairy-Stockfish's default."""
SET_REFUSED = {
    "mustDropType": "compulsory drops",
    "blastImmuneTypes": "exploding captures (Atomic)",
    "mutuallyImmuneTypes": "exploding captures (Atomic)",
    "connectPieceTypes": "connecting pieces in a row (a connection game)",
}
CONNECTION_GAME = ("connectN", "connectNxN", "collinearN", "connectRegion1White")
MAPPED = frozenset(
    {
        "promotedPieceType",
        "mandatoryPiecePromotion",
        "piecePromotionOnCapture",
        "pieceDemotion",
        "dropPromoted",
        "blastOnCapture",
        "extinctionPseudoRoyal",
        "maxRank",
        "maxFile",
        "startFen",
        "promotionRegionWhite",
        "promotionRegionBlack",
        "promotionRank",
        "mandatoryPawnPromotion",
        "doubleStep",
        "doubleStepRegionWhite",
        "doubleStepRegionBlack",
        "doubleStepRank",
        "doubleStepRankMin",
        "tripleStepRegionWhite",
        "tripleStepRegionBlack",
        "enPassantRegion",
        "enPassantRegionWhite",
        "enPassantRegionBlack",
        "castling",
        "castlingKingsideFile",
        "castlingQueensideFile",
        "castlingRank",
        "castlingKingFile",
        "castlingRookKingsideFile",
        "castlingRookQueensideFile",
        "pieceDrops",
        "capturesToHand",
        "dropLoop",
        "firstRankPawnDrops",
        "promotionZonePawnDrops",
        "dropRegionWhite",
        "dropRegionBlack",
        "whiteDropRegion",
        "blackDropRegion",
        "dropNoDoubledCount",
        "promotionLimit",
        "immobilityIllegal",
        "flyingGeneral",
        "soldierPromotionRank",
        "chasingRule",
        "countingRule",
        "makpongRule",
        "pass",
        "cambodianMoves",
        "gating",
        "shatarMateRule",
        "materialCounting",
        "bikjangRule",
        "moveRepetitionIllegal",
        "diagonalLines",
        "nMoveRule",
        "nFoldRule",
        "nFoldValue",
        "nFoldValueAbsolute",
        "perpetualCheckIllegal",
        "stalemateValue",
        "shogiPawnDropMateIllegal",
        "checking",
        "mustCapture",
        "checkCounting",
        "checkmateValue",
        "mustDrop",
        "castlingDroppedPiece",
        "dropOppositeColoredBishop",
        "dropChecks",
        "oppositeCastling",
        "extinctionValue",
        "flagMove",
        "castlingWins",
        "flagPieceCount",
        "flagPieceBlockedWin",
        "flagPieceSafe",
        "stalematePieceCount",
        "extinctionPieceCount",
        "extinctionOpponentPieceCount",
        "flagRegion",
        "flagRegionWhite",
        "flagRegionBlack",
        "whiteFlag",
        "blackFlag",
    }
)


def _bool(config: Config, key: str, source: str) -> bool:
    value = config.options.get(key)
    if value is None:
        return BOOL_DEFAULTS[key]
    word = value.strip()
    if word not in ("true", "false"):
        _refuse(config, key, source, f"{value.strip()!r} is not true or false")
    return word == "true"


def _int(config: Config, key: str, source: str) -> int:
    value = config.options.get(key)
    if value is None:
        return INT_DEFAULTS[key]
    m = re.match(r"\s*([+-]?\d{1,6})", value)
    if m is None:
        _refuse(config, key, source, f"{value.strip()!r} is not a whole number")
    return int(m.group(1))


def _word(config: Config, key: str) -> str:
    value = config.options.get(key)
    return WORD_DEFAULTS[key] if value is None else value.strip()


def _file(config: Config, key: str, source: str) -> int:
    value = config.options.get(key)
    if value is None:
        return FILE_DEFAULTS[key]
    v = value.strip()
    m = re.match(r"(\d{1,2})", v)
    if m is not None:
        index = int(m.group(1)) - 1
    elif v and v[0].isalpha():
        index = ord(v[0]) - ord("a")
    else:
        index = -1
    if not 0 <= index <= 11:
        _refuse(config, key, source, f"{v!r} is not a file from a to l (or 1 to 12)")
    return index


def _rank(config: Config, key: str, source: str) -> int:
    value = config.options.get(key)
    if value is None:
        return RANK_DEFAULTS[key] - 1
    m = re.match(r"\s*(\d{1,2})", value)
    if m is None or not 1 <= int(m.group(1)) <= 10:
        _refuse(config, key, source, f"{value.strip()!r} is not a rank from 1 to 10")
    return int(m.group(1)) - 1


def _refuse(config: Config, key: str, source: str, reason: str) -> NoReturn:
    section, line = config.origin.get(key, ("", None))
    label = f"[{section}] {key}" if section else key
    raise IniRefusal(source, label, reason, line=line)


Square = tuple[int, int]


def _region(
    config: Config, key: str, source: str, files: int, ranks: int
) -> frozenset[Square] | None:
    """A Bitboard option (`*1 *2 e4 a*`) as squares on the board; None when not given.
    Squares beyond the board are dropped, as they are off Fairy-Stockfish's board too."""
    value = config.options.get(key)
    if value is None:
        return None
    out: set[Square] = set()
    for token in value.split():
        if token == "-":
            break
        if token.endswith("*") and len(token) == 2 and token[0].isalpha():
            f = ord(token[0].lower()) - ord("a")
            out.update((f, r) for r in range(ranks))
        elif token.startswith("*") and token[1:].isdigit():
            r = int(token[1:]) - 1
            out.update((f, r) for f in range(files))
        elif re.fullmatch(r"[a-lA-L]\d{1,2}", token):
            out.add((ord(token[0].lower()) - ord("a"), int(token[1:]) - 1))
        else:
            _refuse(config, key, source, f"{token!r} is not a square, '*N' or 'f*'")
    return frozenset((f, r) for f, r in out if f < files and r < ranks)


def _rank_rows(squares: frozenset[Square], files: int, ranks: int, color: int) -> list[int] | None:
    """Whole ranks as rows counted from `color`'s side, or None when not whole ranks."""
    rows = sorted({r for _, r in squares})
    if len(squares) != len(rows) * files:
        return None
    return sorted((r + 1) if color == 0 else (ranks - r) for r in rows)


def _square_name(sq: Square) -> str:
    return f"{FILE_LETTERS[sq[0]]}{sq[1] + 1}"


def _squares_text(squares: Iterable[Square]) -> str:
    return " ".join(_square_name(s) for s in sorted(squares, key=lambda s: (s[1], s[0])))


# ---------------------------------------------------------------------------------------
# The start position


@dataclass
class Start:
    board: dict[Square, tuple[str, int]]  # square -> (slot, colour)
    castling: str
    side: str
    checks: tuple[int, int] | None = None
    hand: tuple[str, ...] = ()  # each side's pieces in hand at the start (slots)
    black_hand: tuple[str, ...] | None = None  # Black's, where they differ from White's
    walls: frozenset[Square] = frozenset()  # the wall squares ('*')

    @property
    def any_hand(self) -> frozenset[str]:
        """The slots either side holds in hand at the start."""
        return frozenset(self.hand) | frozenset(self.black_hand or ())


def _start(config: Config, source: str, files: int, ranks: int) -> Start:
    fen = config.options.get("startFen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    fields = fen.split()
    if not fields:
        _refuse(config, "startFen", source, "empty")
    board_text = fields[0]
    pocket = ""
    if "[" in board_text:
        board_text, _, rest = board_text.partition("[")
        pocket = rest.rstrip("]")
    hand: list[str] = []
    black_hand: list[str] | None = None
    if pocket.strip("-"):
        sides: tuple[list[str], list[str]] = ([], [])
        for token in pocket.strip("-"):
            slot = config.slot_of(token) if token.isalpha() else None
            if slot is None:
                _refuse(config, "startFen", source, f"{token!r} in hand is not a piece's letter")
            assert slot is not None
            sides[0 if token.isupper() else 1].append(slot)
        if not _bool(config, "pieceDrops", source):
            _refuse(config, "startFen", source, f"pieces in hand ([{pocket}]) but no drops")
        hand = sorted(sides[0], key=SLOT_ORDER.index)
        if sorted(sides[0]) != sorted(sides[1]):
            black_hand = sorted(sides[1], key=SLOT_ORDER.index)
    rows = board_text.split("/")
    if len(rows) != ranks:
        _refuse(config, "startFen", source, f"{len(rows)} ranks, but the board has {ranks}")
    board: dict[Square, tuple[str, int]] = {}
    walls: set[Square] = set()
    for i, row in enumerate(rows):
        rank = ranks - 1 - i
        f = 0
        for token in re.findall(r"\d+|\+?.", row):
            if token.isdigit():
                f += int(token)
                continue
            if token == "*":
                if f >= files:
                    _refuse(
                        config, "startFen", source, f"rank {rank + 1} is wider than {files} files"
                    )
                walls.add((f, rank))  # a wall square: Fairy Post's [setup] walls
                f += 1
                continue
            if token == "~":
                _refuse(config, "startFen", source, "'~': promoted Pawns in the start position")
            letter = token.lstrip("+")
            slot = config.slot_of(letter) if letter.isalpha() else None
            if slot is None:
                _refuse(config, "startFen", source, f"{token!r} is not the letter of a piece")
            if f >= files:
                _refuse(config, "startFen", source, f"rank {rank + 1} is wider than {files} files")
            assert slot is not None
            # `+l`: a promoted Lance, the piece promotedPieceType makes of it (Kyoto Shogi)
            board[(f, rank)] = (token[:-1] + slot, 0 if letter.isupper() else 1)
            f += 1
        if f != files:
            _refuse(config, "startFen", source, f"rank {rank + 1} has {f} files, the board {files}")
    # Fairy-Stockfish reads `b` as Black to move and anything else as White (`[setup] first`).
    side = "b" if len(fields) > 1 and fields[1] == "b" else "w"
    castling = fields[2] if len(fields) > 2 else "-"
    checks = None
    for token in fields[3:]:
        m = re.fullmatch(r"(\d+)\+(\d+)", token)
        if m is not None:
            if not _bool(config, "checkCounting", source):
                _refuse(config, "startFen", source, "check counts without checkCounting")
            checks = (int(m.group(1)), int(m.group(2)))
    if castling and not re.fullmatch(r"-|[KQkqA-La-l]+", castling):
        castling = "-"  # Fairy-Stockfish skips what it cannot read there
    return Start(
        board,
        castling,
        side,
        checks,
        tuple(hand),
        None if black_hand is None else tuple(black_hand),
        frozenset(walls),
    )


def _petrify(
    config: Config, source: str, by_slot: Mapping[str, Piece], rules: dict[str, object]
) -> None:
    """petrifyOnCaptureTypes: a capturing piece of these types becomes a wall on the square
    it captured on (Fairy Post's `petrify`); one set for both sides."""
    key = "petrifyOnCaptureTypes"
    sets = [piece_set(config, key, color) for color in (0, 1)]
    if sets[0] != sets[1]:
        _refuse(config, key, source, "petrifying pieces that differ between the sides")
    members = sets[0]
    if not members:
        return
    slots = sorted(by_slot) if "*" in members else sorted(members & by_slot.keys())
    royal = [s for s in slots if by_slot[s].entry.get("royal")]
    if royal:
        _refuse(
            config,
            key,
            source,
            f"a royal piece ({by_slot[royal[0]].id}) turning into a wall: its side would be "
            "left without one",
        )
    if slots:
        rules["petrify"] = [by_slot[s].id for s in slots]


# ---------------------------------------------------------------------------------------
# A configuration as Fairy Post TOML


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def variant_id(name: str) -> str:
    """A section's name as a Fairy Post id: lowercase, '-' for anything else, starting with
    a letter (`3check-crazyhouse` becomes `fsf-3check-crazyhouse`)."""
    text = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or "variant"
    if not text[0].isalpha():
        text = "fsf-" + text
    text = text[:28].rstrip("-")
    from rules.variant import builtin_ids

    return text + "-ini" if text in builtin_ids() else text


def _check_options(config: Config, source: str) -> list[str]:
    """Refuse what is not converted; return the display options present."""
    display = []
    for key in config.options:
        if key in DISPLAY_KEYS:
            display.append(key)
            continue
        if key.startswith("mobilityRegion"):
            continue
        if key in MAPPED:
            continue
        if key in REFUSED:
            value = config.options[key].strip()
            default: object
            if key in BOOL_DEFAULTS:
                default = "true" if BOOL_DEFAULTS[key] else "false"
            elif key in INT_DEFAULTS:
                default = str(INT_DEFAULTS[key])
                value = re.sub(r"\D.*$", "", value)
            elif key in WORD_DEFAULTS:
                default = WORD_DEFAULTS[key]
            elif key in RANK_DEFAULTS:
                default = str(RANK_DEFAULTS[key])
            else:
                default = ""
            if key in REGION_KEYS and value in ("", "-"):
                continue
            if value != default:
                what = REFUSED[key]
                tail = (
                    "is not a chess rule Fairy Post plays"
                    if key in CONNECTION_GAME
                    else ("is not something Fairy Post plays")
                )
                _refuse(config, key, source, f"{key} ({what}) {tail}")
            continue
        _refuse(config, key, source, f"{key} is not an option Fairy-Stockfish 0.0.90 reads")
    for set_key, members in config.sets.items():
        base = set_key.split("/")[0]
        if base in SET_REFUSED and members:
            _refuse(
                config,
                set_key,
                source,
                f"{base} ({SET_REFUSED[base]}) is not something Fairy Post plays",
            )
    return display


@dataclass
class Piece:
    slot: str
    id: str
    letter: str
    moves: frozenset[Move]
    ep: bool
    entry: dict[str, object]


def convert_config(name: str, config: Config, source: str, label: str = "") -> str:
    """The Fairy Post TOML of one section's configuration (IniRefusal when some of it
    cannot be played or written)."""
    display = _check_options(config, source)
    ranks = _rank(config, "maxRank", source) + 1 if "maxRank" in config.options else 8
    if "maxFile" in config.options:
        files = _file(config, "maxFile", source) + 1
    else:
        files = 8
    start = _start(config, source, files, ranks)
    pieces = _pieces(config, source, start, files, ranks)
    by_slot = {p.slot: p for p in pieces}
    rules: dict[str, object] = {}
    regions: dict[str, object] = {}
    if any(
        isinstance(zoned := p.entry.get("promotion"), dict) and zoned.get("zone") == PAWN_ZONE
        for p in pieces
    ):
        zone_w, zone_b = _promotion_regions(config, source, files, ranks)
        regions[PAWN_ZONE] = {"white": _squares_text(zone_w), "black": _squares_text(zone_b)}

    # Where pieces may go (mobilityRegion<Color><Piece>)
    unused = []
    every = frozenset((f, r) for f in range(files) for r in range(ranks))
    for p in pieces:
        cap = p.slot[0].upper() + p.slot[1:]
        areas = [
            _region(config, f"mobilityRegion{color}{cap}", source, files, ranks)
            for color in ("White", "Black")
        ]
        if areas[0] is None and areas[1] is None:
            continue
        white_area, black_area = (every if a is None else a for a in areas)
        area = f"{p.id}-area"
        regions[area] = {"white": _squares_text(white_area), "black": _squares_text(black_area)}
        p.entry["region"] = area
    known = {
        f"mobilityRegion{c}{p.slot[0].upper()}{p.slot[1:]}"
        for p in pieces
        for c in ("White", "Black")
    }
    unused = sorted(k for k in config.options if k.startswith("mobilityRegion") and k not in known)
    display += unused

    _soldier_steps(config, source, files, ranks, pieces, regions)
    _cambodian_moves(config, source, ranks, start, pieces)
    _diagonal_lines(config, source, files, ranks, pieces, regions)
    _piece_promotions(config, source, files, ranks, pieces, regions)
    by_slot = {p.slot: p for p in pieces}
    for slot, _ in start.board.values():
        if slot not in by_slot:
            _refuse(
                config,
                "startFen",
                source,
                f"a promoted {slot[1:]} in the start position, but promotedPieceType promotes "
                "it into nothing",
            )
    if _bool(config, "dropPromoted", source):
        if not any(p.slot.startswith("+") for p in pieces):
            _refuse(config, "dropPromoted", source, "drops of promoted pieces, but none promote")
        rules["drop-promoted"] = True

    # Drops
    drops = _bool(config, "pieceDrops", source)
    to_hand = _bool(config, "capturesToHand", source)
    if to_hand and not drops:
        _refuse(config, "capturesToHand", source, "captured pieces held but never dropped")
    if drops and to_hand:
        rules["captures-to-hand"] = True
        if not _bool(config, "dropLoop", source):
            rules["demote-to-hand"] = True
    if drops and (to_hand or start.any_hand):
        white = _region(config, "dropRegionWhite", source, files, ranks)
        white = _region(config, "whiteDropRegion", source, files, ranks) if white is None else white
        black = _region(config, "dropRegionBlack", source, files, ranks)
        black = _region(config, "blackDropRegion", source, files, ranks) if black is None else black
        if (white or every) != every or (black or every) != every:
            regions["drop"] = {
                "white": _squares_text(white or every),
                "black": _squares_text(black or every),
            }
            rules["drop-region"] = "drop"
        nodouble = piece_set(config, "dropNoDoubled", 0)
        for slot in nodouble:
            if slot in by_slot:
                count = _int(config, "dropNoDoubledCount", source)
                if count == 1:
                    by_slot[slot].entry["drop-one-per-file"] = True
                elif count == 0:
                    by_slot[slot].entry["no-drop-rows"] = list(range(1, ranks + 1))
                else:
                    _refuse(
                        config, "dropNoDoubledCount", source, "more than one of a kind per file"
                    )
        pawn = by_slot.get("pawn")
        zoned = pawn is not None and PAWN_ZONE in regions
        if pawn is not None and zoned and "no-drop-rows" not in pawn.entry:
            # Promotion regions that differ by side (Minihouse: none for White, rank 1 for
            # Black): the rows a Pawn is not dropped on differ too, so it gets a drop region
            # of its own per side.
            zones = _promotion_regions(config, source, files, ranks)
            no_zone = not _bool(config, "promotionZonePawnDrops", source)
            no_first = not _bool(config, "firstRankPawnDrops", source)
            allowed = []
            for color, side_region in enumerate((white, black)):
                first = 0 if color == 0 else ranks - 1
                allowed.append(
                    {
                        sq
                        for sq in side_region or every
                        if not (no_zone and sq in zones[color])
                        and not (no_first and sq[1] == first)
                    }
                )
            if allowed[0] != every or allowed[1] != every:
                regions["pawn-drop"] = {
                    "white": _squares_text(allowed[0]),
                    "black": _squares_text(allowed[1]),
                }
                pawn.entry["drop-region"] = "pawn-drop"
        elif "pawn" in by_slot:
            rows = set()
            if not _bool(config, "firstRankPawnDrops", source):
                rows.add(1)
            if not _bool(config, "promotionZonePawnDrops", source) and "promotion" in (
                by_slot["pawn"].entry
            ):
                rows.update(_promotion_rows(config, source, files, ranks)[0])
            if rows and "no-drop-rows" not in by_slot["pawn"].entry:
                by_slot["pawn"].entry["no-drop-rows"] = sorted(rows)
        if _bool(config, "immobilityIllegal", source):
            rules["immobility-illegal"] = True
    elif _bool(config, "immobilityIllegal", source):
        rules["immobility-illegal"] = True

    # Game end
    rules["move-rule"] = max(0, _int(config, "nMoveRule", source))
    fold = _int(config, "nFoldRule", source)
    if fold == 1 or fold < 0:
        _refuse(config, "nFoldRule", source, f"nFoldRule = {fold}: a position repeated once")
    rules["repetition"] = fold
    value = _word(config, "nFoldValue")
    absolute = _bool(config, "nFoldValueAbsolute", source)
    results = {
        ("draw", False): "draw",
        ("draw", True): "draw",
        ("loss", False): "repeater-wins",
        ("win", False): "repeater-loses",
        ("loss", True): "white-loses",
        ("win", True): "black-loses",
    }
    if (value, absolute) not in results:
        _refuse(config, "nFoldValue", source, f"{value!r} is not win, loss or draw")
    if results[(value, absolute)] != "draw":
        rules["repetition-result"] = results[(value, absolute)]
    if _bool(config, "perpetualCheckIllegal", source):
        rules["perpetual-check"] = "loss"
    stalemate = _word(config, "stalemateValue")
    if _bool(config, "stalematePieceCount", source):
        if stalemate != "win":
            _refuse(config, "stalematePieceCount", source, "a stalemate scored by material")
        rules["stalemate"] = "fewer-pieces"
    elif stalemate in ("loss", "win"):
        rules["stalemate"] = stalemate
    elif stalemate != "draw":
        _refuse(config, "stalemateValue", source, f"{stalemate!r} is not win, loss or draw")
    mate = _word(config, "checkmateValue")
    if mate == "win":
        rules["checkmate"] = "win"
    elif mate != "loss":
        _refuse(config, "checkmateValue", source, f"checkmateValue = {mate}: not a win or a loss")
    if _bool(config, "dropOppositeColoredBishop", source) and "bishop" in by_slot:
        by_slot["bishop"].entry["drop-other-colour"] = True
    if _bool(config, "mustDrop", source):
        rules["must-drop"] = True  # while a drop can be made, nothing else (in check too)
    if _bool(config, "mustCapture", source):
        rules["must-capture"] = True
    if (
        not _bool(config, "dropChecks", source)
        and _bool(config, "pieceDrops", source)
        and "king" in config.pieces  # without a King nothing is in check (atomic's Commoner)
    ):
        rules["no-drop-checks"] = True
    if not _bool(config, "checking", source):
        rules["no-checks"] = True
    if _bool(config, "checkCounting", source):
        if start.checks is None or start.checks[0] != start.checks[1] or start.checks[0] < 1:
            _refuse(
                config,
                "checkCounting",
                source,
                "n-check needs the same number of checks for both sides in startFen (3+3)",
            )
        assert start.checks is not None
        rules["check-count"] = start.checks[0]
    _extinction(config, source, by_slot, start, rules)
    _royal_promotions(config, source, by_slot)
    if _bool(config, "blastOnCapture", source):
        # Fairy-Stockfish's blast spares the Pawns around the capture (the pawn type
        # only), not a captured Pawn: Fairy Post's `immune`.
        royal = any(p.entry.get("royal") for p in by_slot.values())
        if royal and not _bool(config, "extinctionPseudoRoyal", source):
            _refuse(
                config,
                "blastOnCapture",
                source,
                "exploding captures beside a royal King (Fairy-Stockfish's own atomic "
                "has a pseudo-royal one: inherit from atomic)",
            )
        rules["blast"] = {"immune": [by_slot["pawn"].id] if "pawn" in by_slot else []}
    _petrify(config, source, by_slot, rules)

    if _bool(config, "flyingGeneral", source):
        rules["flying-general"] = True
    counting = _word(config, "countingRule")
    if counting != "none":
        if counting not in ("makruk", "cambodian", "asean"):
            _refuse(
                config, "countingRule", source, f"{counting!r} is not makruk, cambodian or asean"
            )
        slots_ids = {p.slot: p.id for p in pieces if not p.slot.startswith("+")}
        rules["counting"] = _counting_table(counting, slots_ids)
    if _bool(config, "pass", source):
        rules["pass"] = True
    if _bool(config, "bikjangRule", source):
        rules["bikjang"] = True
    if _bool(config, "moveRepetitionIllegal", source):
        rules["move-repetition"] = "loss"
    material = _word(config, "materialCounting")
    if material == "janggi":
        points = load_variant(WAZIR_KING_GAME).points
        assert points is not None
        values = {
            by_slot[JANGGI_TYPES[pid]].id: value
            for pid, value in points.values
            if JANGGI_TYPES[pid] in by_slot
        }
        rules["material-points"] = {"pieces": values, "black-bonus": points.black_bonus}
    elif material in DRAW_ODDS:
        # Fairy-Stockfish gives the draws by rule (and the drawn stalemates) to one side:
        # no piece counts, and the bonus alone decides.
        rules["material-points"] = {"pieces": {}, "black-bonus": DRAW_ODDS[material]}
    elif material != "none":
        _refuse(
            config,
            "materialCounting",
            source,
            f"materialCounting = {material} (adjudication by counting material other than "
            "Janggi's or draw odds) is not something Fairy Post plays",
        )
    if _bool(config, "shatarMateRule", source):
        forbidden, series = SHATAR_TYPES
        rules["mate"] = {
            "forbidden-by": [p.id for p in pieces if p.slot in forbidden],
            "series-needs": [p.id for p in pieces if p.slot in series],
        }
    if _bool(config, "makpongRule", source):
        if "king" not in by_slot:
            _refuse(config, "makpongRule", source, "Makpong's rule without a King")
        by_slot["king"].entry["in-check"] = "capture-checker"
    chasing = _word(config, "chasingRule")
    if chasing == "axf":
        rules["chasing"] = {
            role: by_slot[slot].id for role, slot in CHASING_ROLES.items() if slot in by_slot
        }
    elif chasing != "none":
        _refuse(config, "chasingRule", source, f"{chasing!r} is not axf or none")
    if _bool(config, "shogiPawnDropMateIllegal", source):
        if "shogiPawn" not in by_slot:
            _refuse(config, "shogiPawnDropMateIllegal", source, "no shogiPawn in this section")
        by_slot["shogiPawn"].entry["drop-mate"] = "loss"
    _goal(config, source, files, ranks, by_slot, rules)
    _en_passant(config, source, files, ranks, pieces, start, rules)
    castling_sides = ["white", "black"]
    castling = _castling(config, source, files, ranks, start, by_slot, castling_sides)
    if castling and _bool(config, "castlingDroppedPiece", source):
        _refuse(
            config,
            "castlingDroppedPiece",
            source,
            "castlingDroppedPiece (castling with a dropped King or Rook) beside castling "
            "rights at the start is not something Fairy Post plays",
        )
    _castling_wins(config, source, castling)
    pieces = _without_idle_king(pieces, start, castling)

    description = f"Fairy-Stockfish variants.ini section [{label or name}], converted."
    lines = [
        f"# Converted from Fairy-Stockfish's variants.ini, section [{label or name}].",
    ]
    if display:
        lines.append(
            "# Options without effect on the rules (display, engine, or no such piece): "
            + ", ".join(display)
            + "."
        )
    lines += [
        f"id = {_toml(variant_id(name))}",
        f"name = {_toml(name[:60])}",
        f"description = {_toml(description)}",
        f"files = {files}",
        f"ranks = {ranks}",
    ]
    if config.options.get("variantTemplate", "").strip() == "shogi" and files <= 9 and ranks <= 10:
        # pyffish 0.0.90 writes a section of the Shogi template in Shogi's Western
        # notation (get_san: L-11+, +L-71), as Fairy Post's `notation = "shogi"` does.
        lines.append('notation = "shogi"')
    lines += [
        "",
        "[pieces]",
    ]
    for p in pieces:
        entry = p.entry
        if list(entry) == ["letter"]:
            lines.append(f"{_key(p.id)} = {_toml(entry['letter'])}")
        else:
            lines.append(f"{_key(p.id)} = {_toml(entry)}")
    symbol = "+" if any(p.letter == "P" for p in pieces) else "P"

    def token(slot: str) -> str:
        return by_slot[slot].letter or symbol

    white_army = {sq: s for sq, (s, c) in start.board.items() if c == 0}
    black_army = {sq: s for sq, (s, c) in start.board.items() if c == 1}
    lines += ["", "[setup]"]
    lines += _setup_lines(white_army, files, token)
    if start.side == "b":
        lines.append('first = "black"')
    if start.walls:
        walls = sorted(start.walls, key=lambda s: (s[1], s[0]))
        lines.append(f"walls = {_toml([_square_name(w) for w in walls])}")
    mirrored = {(f, ranks - 1 - r): s for (f, r), s in white_army.items()}
    if mirrored != black_army:
        lines += ["", "[setup.black]"]
        lines += _setup_lines(black_army, files, token, top_down=True)
    if start.any_hand:
        # Fairy-Stockfish's pieces in hand at the start: a reserve dropped as a move.
        hand = [by_slot[slot].id for slot in start.hand]
        lines += ["", "[reserve]", f"pieces = {_toml(hand)}"]
        if start.black_hand is not None:
            black_hand = [by_slot[slot].id for slot in start.black_hand]
            lines.append(f"black-pieces = {_toml(black_hand)}")
        lines.append('style = "drop"')
    if regions:
        lines += ["", "[regions]"]
        lines += [f"{_key(k)} = {_toml(v)}" for k, v in regions.items()]
    lines += ["", "[rules]"]
    lines += [f"{_key(k)} = {_toml(v)}" for k, v in rules.items()]
    if castling:
        lines += ["", "[castling]"]
        if len(castling_sides) == 1:
            lines.append(f"sides = {_toml(castling_sides)}")
        if _bool(config, "oppositeCastling", source):
            lines.append("opposite = true")
        lines += ["moves = ["]
        lines += [f"    {_toml(m)}," for m in castling]
        lines.append("]")
    letters = {
        p.id: config.pieces[p.slot].letter
        for p in pieces
        if p.slot in config.pieces and (p.letter or "P").lower() != config.pieces[p.slot].letter
    }
    # A promoted form (`+L`, FEN) is written in Fairy-Stockfish's SAN by the letter of the
    # type it promotes into: `Lh8=R`, then `Rd8` (pyffish 0.0.90's get_san).
    san = {
        p.id: config.pieces[config.promoted[p.slot[1:]]].letter
        for p in pieces
        if p.slot.startswith("+") and config.promoted.get(p.slot[1:]) in config.pieces
    }
    lines += ["", "[fairy-stockfish]", f"variant = {_toml(name)}"]
    if letters:
        lines.append(f"letters = {_toml(letters)}")
    if san:
        lines.append(f"san = {_toml(san)}")
    return "\n".join(lines) + "\n"


def _setup_lines(
    army: Mapping[Square, str],
    files: int,
    token: Callable[[str], str],
    top_down: bool = False,
) -> list[str]:
    out = []
    rank_numbers = sorted({r for _, r in army}, reverse=top_down)
    for r in rank_numbers:
        cells = [token(army[(f, r)]) if (f, r) in army else "." for f in range(files)]
        out.append(f"{r + 1} = {_toml(' '.join(cells))}")
    return out or ['1 = ""']  # an empty board (Screen: every piece starts in hand)


FSF_BUILTINS = frozenset(
    [
        "3check",
        "5check",
        "ai-wok",
        "almost",
        "amazon",
        "amazons",
        "antichess",
        "armageddon",
        "asean",
        "ataxx",
        "atomar",
        "atomic",
        "berolina",
        "breakthrough",
        "bughouse",
        "cambodian",
        "capablanca",
        "capahouse",
        "caparandom",
        "centaur",
        "chancellor",
        "chaturanga",
        "checkshogi",
        "chess",
        "chessgi",
        "chigorin",
        "clobber",
        "clobber10",
        "codrus",
        "coregal",
        "courier",
        "crazyhouse",
        "dobutsu",
        "dragon",
        "duck",
        "embassy",
        "euroshogi",
        "extinction",
        "fairy",
        "fischerandom",
        "flipello",
        "flipello10",
        "flipersi",
        "fox-and-hounds",
        "gardner",
        "georgian",
        "giveaway",
        "gorogoro",
        "gothic",
        "grand",
        "grasshopper",
        "gustav3",
        "hoppelpoppel",
        "horde",
        "isolation",
        "isolation7x7",
        "janggi",
        "janggicasual",
        "janggimodern",
        "janggitraditional",
        "janus",
        "jesonmor",
        "joust",
        "judkins",
        "karouk",
        "kinglet",
        "kingofthehill",
        "knightmate",
        "koedem",
        "kyotoshogi",
        "legan",
        "loop",
        "losalamos",
        "losers",
        "makpong",
        "makruk",
        "manchu",
        "micro",
        "mini",
        "minishogi",
        "minixiangqi",
        "misere",
        "modern",
        "newzealand",
        "nightrider",
        "nocastle",
        "nocheckatomic",
        "normal",
        "okisakishogi",
        "omicron",
        "opulent",
        "paradigm",
        "pawnback",
        "pawnsideways",
        "perfect",
        "petrified",
        "placement",
        "pocketknight",
        "raazuvaa",
        "racingkings",
        "seirawan",
        "shako",
        "shatar",
        "shatranj",
        "shogi",
        "shoshogi",
        "shouse",
        "sittuyin",
        "snailtrail",
        "sortofalmost",
        "spartan",
        "suicide",
        "supply",
        "tencubed",
        "threekings",
        "torishogi",
        "torpedo",
        "troitzky",
        "wolf",
        "xiangqi",
        "yarishogi",
    ]
)
"""The variants built into Fairy-Stockfish 0.0.90 (pyffish): a section may inherit from
them, and a section of the same name is ignored by Fairy-Stockfish."""


def _reach(move: Move, size: int) -> frozenset[tuple[int, int]]:
    """The offsets a move can land on, on an empty board of `size` files or ranks."""
    kind, _initial, _capture, (x, y), span = move
    if kind in ("leap", "lame"):
        return frozenset({(x, y)})
    last = span or size
    first = 1 if kind == "ride" else 2  # a hop's range counts its screen's square
    return frozenset((k * x, k * y) for k in range(first, last + 1))


def _split_resets(moves: frozenset[Move], size: int) -> tuple[frozenset[Move], str]:
    """Pyffish 0.0.90's move-count rule for an `nMoveRuleTypes` piece: a quiet move resets
    the count unless the piece's plain (not initial) quiet moves lead straight back, on an
    empty board (a lame leap's or a hop's way back counts, whatever stands between).
    Returns the moves that do not reset (Fairy Post's `betza`; the rest are `pawn-moves`)
    and, when a move resets for some of its squares only or an initial move would not
    reset, why it cannot be written ("" when it can)."""
    back = [m for m in moves if not m[1] and not m[2]]
    if any(m[0] == "grasshop" for m in back):
        return frozenset(), "a grasshopper's way back: not measured against pyffish yet"
    home: set[tuple[int, int]] = set()
    for m in back:
        home |= {(-x, -y) for x, y in _reach(m, size)}
    keep: set[Move] = set()
    for m in moves:
        if m[2]:
            continue  # a capture resets the count anyway
        reach = _reach(m, size)
        if reach <= home:
            if m[1]:
                return frozenset(), "an initial move that can be taken back would not reset"
            keep.add(m)
        elif reach & home:
            return frozenset(), "a ride that can be taken back on some of its squares only"
    # A capture beside a quiet move that does not reset stays with it (`W`, not `mW cW`).
    keep |= {m for m in moves if m[2] and (m[0], m[1], False, m[3], m[4]) in keep}
    return frozenset(keep), ""


def _catalogue_moves(piece_id: str) -> frozenset[Move] | None:
    from rules.movement import components_from_entry
    from rules.variant import catalogue

    entry = catalogue().get(piece_id)
    if entry is None:
        return None
    return our_moves(components_from_entry(entry, "rules/pieces.toml", piece_id))


def _promotes_as_pawn(config: Config, slot: str, color: int) -> bool:
    """Whether `slot` promotes as a Pawn for `color`: one of its promotionPawnTypes, or
    Fairy-Stockfish's own Pawn, which 0.0.90 always promotes (its pawn move generator
    ignores the set: `promotionPawnTypes = -` or `= n` leaves a7a8q legal, checked with
    pyffish 0.0.90)."""
    return slot == "pawn" or slot in piece_set(config, "promotionPawnTypes", color)


def _pieces(config: Config, source: str, start: Start, files: int, ranks: int) -> list[Piece]:
    out: list[Piece] = []
    used_ids: set[str] = set()
    # A promotion pawn type that is neither on the board nor in hand at the start never
    # appears (nothing promotes into it), so its promotion regions do not matter (Alapo).
    present = {slot for slot, _color in start.board.values()} | set(start.hand)
    promoting = [
        s
        for s in config.pieces
        if s in present and (_promotes_as_pawn(config, s, 0) or _promotes_as_pawn(config, s, 1))
    ]
    promo_rows, mandatory = (
        _promotion_rows(config, source, files, ranks) if promoting else ([], True)
    )
    for slot in SLOT_ORDER:
        if slot not in config.pieces:
            continue
        if slot in SPECIAL_PIECES:
            _refuse(config, slot, source, f"{slot} is {SPECIAL_PIECES[slot]}, not converted")
        fsf_letter = config.pieces[slot].letter
        if slot == "king":
            text = config.pieces[slot].betza or PREDEFINED_BETZA.get(config.king_type, "K")
        elif slot in CUSTOM_SLOTS:
            text = config.pieces[slot].betza
        else:
            text = PREDEFINED_BETZA[slot]
        moves, ep, skipped = fsf_moves(text)
        if skipped:
            _refuse(
                config,
                slot,
                source,
                f"Betza {text.strip()!r}: Fairy-Stockfish 0.0.90 skips {skipped!r} "
                "(multi-leg and other extended Betza), so the piece would not move as written",
            )
        promo = [_promotes_as_pawn(config, slot, c) for c in (0, 1)]
        nmove = [slot in piece_set(config, "nMoveRuleTypes", c) for c in (0, 1)]
        owner = _sole_owner(config, source, start, slot)
        if owner is not None:  # what the piece would be for the other side never matters
            promo = [promo[owner]] * 2
            nmove = [nmove[owner]] * 2
        if promo[0] != promo[1] or nmove[0] != nmove[1]:
            _refuse(
                config,
                "promotionPawnTypes" if promo[0] != promo[1] else "nMoveRuleTypes",
                source,
                f"{slot} is a Pawn for one side only",
            )
        pawnlike = slot == "pawn" or promo[0] or nmove[0]
        letter = "" if fsf_letter == "p" and pawnlike else fsf_letter.upper()
        if letter == "":
            piece_id = "pawn"
        elif slot in CUSTOM_SLOTS:
            piece_id = f"custom-{fsf_letter}"
        else:
            piece_id = CATALOGUE_IDS.get(slot, _kebab(slot))
        if piece_id in used_ids or (not nmove[0] and piece_id in _catalogue_pawns()):
            # (a catalogue piece with pawn moves, such as the Soldier, cannot be given a
            # Betza movement instead: the piece gets an id of its own)
            piece_id = f"{_kebab(slot)}-{fsf_letter}"
        used_ids.add(piece_id)
        entry: dict[str, object] = {"letter": letter}
        double: str | list[int] | dict[str, list[int]] = "none"
        if slot == "pawn" or any(initial for _, initial, *_ in moves):
            double = _double_step(config, source, start, slot, files, ranks, moves)
        if slot == "pawn":
            entry["double-step"] = double if isinstance(double, str) else "none"
        if not isinstance(double, str):
            entry["double-step-rows"] = double
        if slot == "pawn":
            triple = _triple_step(config, source, files, ranks)
            if triple is not None:
                entry["triple-step-rows"] = triple
        fsf_set = moves
        if slot == "pawn" or not isinstance(double, str):
            fsf_set = frozenset(m for m in moves if not m[1])
        known = _catalogue_moves(piece_id) if piece_id != "pawn" or slot == "pawn" else None
        plain: frozenset[Move] = frozenset()
        if nmove[0]:
            plain, why = _split_resets(moves, max(files, ranks))
            if why:
                _refuse(config, slot, source, f"Betza {text.strip()!r}: {why}")
        if (
            known is None
            or _normal(known) != _normal(fsf_set)
            or (slot == "pawn" and not nmove[0])
            or plain
        ):
            written = betza_for(fsf_set - plain)
            if not fsf_set and not nmove[0]:  # Fairy-Stockfish's immobile: a stone
                entry["never-moves"] = True
            elif written is None or (plain and betza_for(plain) is None):
                _refuse(config, slot, source, f"Betza {text.strip()!r} has no Fairy Post form")
            elif plain:
                # Moves the piece can take back reset no count (pyffish 0.0.90): `betza`.
                entry["betza"] = betza_for(plain)
                if written:
                    entry["pawn-moves"] = written
            else:
                entry["pawn-moves" if nmove[0] else "betza"] = written
            if piece_id in _catalogue_ids() and nmove[0] and piece_id != "pawn":
                entry.setdefault("betza", "")
        if slot == "king":
            entry["royal"] = True
        if slot == "janggiCannon":
            # Fairy-Stockfish's Janggi Cannon never hops over nor takes another one
            entry["cannot-capture"] = [piece_id]
            entry["cannot-hop-over"] = [piece_id]
        if promo[0] and promo_rows:
            entry["promotion"] = _promotion(config, source, mandatory, promo_rows, start, owner)
        elif promo[0] and slot in promoting:  # far ranks that differ by side: PAWN_ZONE
            if not _zone_kept(config, source, start, slot, files, ranks, moves, mandatory):
                _refuse(
                    config,
                    "promotionRegionWhite",
                    source,
                    "promotion regions that differ between the sides or are not whole "
                    "ranks, for a piece that can stand in them unpromoted and step out",
                )
            zoned = _promotion(config, source, mandatory, [], start, owner)
            zoned.pop("compulsory-rows", None)
            zoned.pop("optional-rows", None)
            zoned["zone"] = PAWN_ZONE
            if mandatory:
                zoned["mandatory"] = True
            entry["promotion"] = zoned
        out.append(Piece(slot, piece_id, letter, moves, ep, entry))
    if "king" not in config.pieces:
        pass  # a game without a King: Fairy Post's loader says what it needs
    ids = {p.slot: p.id for p in out}
    shogi_style = set(config.promoted)  # Pawns that promotedPieceType promotes (`p:c`)
    for p in out:
        promotion = p.entry.get("promotion")
        if isinstance(promotion, dict):
            promotion["to"] = [ids[s] for s in promotion["to"] if s in ids]
            if not promotion["to"] and not mandatory and p.slot not in shogi_style:
                del p.entry["promotion"]  # it moves there and stays what it is
            # Compulsory with nothing to promote to: Fairy-Stockfish generates no move onto
            # the region, as Fairy Post does for `to = []`.
    return out


def _zone_kept(
    config: Config,
    source: str,
    start: Start,
    slot: str,
    files: int,
    ranks: int,
    moves: frozenset[Move],
    mandatory: bool,
) -> bool:
    """Whether a promotion zone (`PAWN_ZONE`) plays `slot` as Fairy-Stockfish's regions do.
    Fairy-Stockfish promotes a piece arriving in its region; Fairy Post's zone also lets a
    move that starts in it promote. They agree when the piece never leaves the zone
    unpromoted: its zone is whole far ranks and it has no move back, or promotion is
    compulsory there and the piece neither starts in its zone nor is dropped (Argess)."""
    zones = _promotion_regions(config, source, files, ranks)
    rows = [_rank_rows(zones[c], files, ranks, c) for c in (0, 1)]
    far = all(r is not None and r == list(range(ranks - len(r) + 1, ranks + 1)) for r in rows)
    if far and not any(m[3][1] < 0 for m in moves):
        return True
    if not mandatory or start.any_hand or _bool(config, "pieceDrops", source):
        return False
    return not any(s == slot and sq in zones[c] for sq, (s, c) in start.board.items())


def _catalogue_pawns() -> frozenset[str]:
    """The catalogue's pieces that move with `pawn-moves` (other than the Pawn)."""
    from rules.variant import catalogue

    return frozenset(k for k, v in catalogue().items() if "pawn-moves" in v and k != "pawn")


def _catalogue_ids() -> frozenset[str]:
    from rules.variant import catalogue

    return frozenset(catalogue())


def _promotion_regions(
    config: Config, source: str, files: int, ranks: int
) -> tuple[frozenset[Square], frozenset[Square]]:
    """Each side's promotion region (Fairy-Stockfish's defaults: the eighth rank, which
    a smaller board lacks, and the first)."""
    white = _region(config, "promotionRegionWhite", source, files, ranks)
    black = _region(config, "promotionRegionBlack", source, files, ranks)
    if white is None:
        white = frozenset((f, 7) for f in range(files) if ranks > 7)
    if black is None:
        black = frozenset((f, 0) for f in range(files))
    return white, black


def _promotion_rows(config: Config, source: str, files: int, ranks: int) -> tuple[list[int], bool]:
    """The promotion rows (from each owner's side) and whether promotion is compulsory."""
    legacy = "promotionRank" in config.options
    if legacy and not {"promotionRegionWhite", "promotionRegionBlack"} <= config.options.keys():
        _refuse(config, "promotionRank", source, "an old option: write promotionRegionWhite/Black")
    white, black = _promotion_regions(config, source, files, ranks)
    rows_w = _rank_rows(white, files, ranks, 0)
    rows_b = _rank_rows(black, files, ranks, 1)
    if rows_w is None or rows_b is None:
        # Squares rather than whole ranks (g8 h8 h7): a promotion zone, a region per side,
        # as long as no promoting piece can stand in it unpromoted (see _pieces).
        if legacy:
            _refuse(config, "promotionRank", source, "other rows than promotionRegionWhite/Black")
        return [], _bool(config, "mandatoryPawnPromotion", source)
    if legacy and not rows_w == rows_b == list(
        range(_int(config, "promotionRank", source), ranks + 1)
    ):
        # Beside the regions (as export_ini writes it for older engines) it must say the same.
        _refuse(config, "promotionRank", source, "other rows than promotionRegionWhite/Black")
    if rows_w != rows_b:
        # Different far ranks for each side: a promotion zone (a region per side) says
        # it, as long as no promoting piece can step back out of it (see _pieces).
        suffix = [
            rows == list(range(ranks - len(rows) + 1, ranks + 1)) for rows in (rows_w, rows_b)
        ]
        if not ((rows_w or rows_b) and all(suffix)):
            _refuse(
                config,
                "promotionRegionWhite",
                source,
                f"promotion regions that differ between the sides (rows {rows_w} for White, "
                f"{rows_b} for Black, counted from each side)",
            )
        return [], _bool(config, "mandatoryPawnPromotion", source)
    return rows_w, _bool(config, "mandatoryPawnPromotion", source)


PAWN_ZONE = "pawn-promotion"


def _promotion_choices(config: Config) -> tuple[frozenset[str], frozenset[str]]:
    """Each side's promotionPieceTypes (Fairy-Stockfish's default: Queen, Rook, Bishop,
    Knight, those the section has)."""
    default = frozenset(s for s in ("queen", "rook", "bishop", "knight") if s in config.pieces)
    white, black = (config.sets.get(f"promotionPieceTypes/{c}", default) for c in (0, 1))
    return white, black


def _sole_owner(config: Config, source: str, start: Start, slot: str) -> int | None:
    """The one side that can ever hold a piece of `slot` (Khans' White Pawns, Black's
    Steppe Pawns): it stands or waits in hand for that side alone at the start, only that
    side promotes into it, and captured pieces never change sides. None otherwise."""
    if _bool(config, "capturesToHand", source) or config.promoted:
        return None
    sides = {c for s, c in start.board.values() if s.lstrip("+") == slot}
    hands = (start.hand, start.hand if start.black_hand is None else start.black_hand)
    sides |= {c for c in (0, 1) if slot in hands[c]}
    choices = _promotion_choices(config)
    sides |= {c for c in (0, 1) if slot in choices[c]}
    return next(iter(sides)) if len(sides) == 1 else None


def _promotion(
    config: Config,
    source: str,
    mandatory: bool,
    rows: list[int],
    start: Start,
    owner: int | None = None,
) -> dict[str, object]:
    white, black = _promotion_choices(config)
    if owner is not None:  # a piece only `owner` ever holds: its choices
        white = black = (white, black)[owner]
    if white != black:
        _refuse(
            config,
            "promotionPieceTypesWhite",
            source,
            "promotion choices that differ between the sides",
        )
    order = [s for s in SLOT_ORDER if s in white and s in config.pieces]
    order.sort(key=lambda s: "qrbnk".find(config.pieces[s].letter) % 10)
    out: dict[str, object] = {"to": order}
    limit = config.options.get("promotionLimit", "").strip()
    if limit:
        wanted = {}
        for token in limit.split():
            letter, _, count = token.partition(":")
            slot = config.slot_of(letter) if len(letter) == 1 else None
            if slot is None or not count.isdigit():
                _refuse(config, "promotionLimit", source, f"{token!r} is not letter:count")
            if slot in order:  # (limits on the types promotedPieceType makes: below)
                wanted[slot] = int(count)
    if limit and wanted:
        at_start = {
            s: sum(1 for slot, color in start.board.values() if slot == s and color == 0)
            for s in order
        }
        if wanted != at_start:
            _refuse(
                config,
                "promotionLimit",
                source,
                "promotionLimit (a limit on promoted pieces) other than each type's number in "
                'the start position (Fairy Post\'s limit = "start-count")',
            )
        out["limit"] = "start-count"
    if mandatory:
        out["compulsory-rows"] = rows
    else:
        out["optional-rows"] = rows
        out["compulsory-rows"] = []
    return out


def _soldier_steps(
    config: Config,
    source: str,
    files: int,
    ranks: int,
    pieces: list[Piece],
    regions: dict[str, object],
) -> None:
    """Fairy-Stockfish's soldier (fsW) keeps to its file until it reaches the relative rank
    soldierPromotionRank (Xiangqi's river): its sideways step is a region move there."""
    row = _rank(config, "soldierPromotionRank", source)
    soldier = next((p for p in pieces if p.slot == "soldier"), None)
    if soldier is None or row == 0:
        return
    forward = betza_for(frozenset(m for m in soldier.moves if m[3][0] == 0))
    sideways = betza_for(frozenset(m for m in soldier.moves if m[3][0] != 0))
    assert forward is not None and sideways is not None
    name = f"{soldier.id}-across"
    regions[name] = {
        "white": " ".join(f"*{r + 1}" for r in range(row, ranks)),
        "black": " ".join(f"*{ranks - r}" for r in range(row, ranks)),
    }
    soldier.entry["betza"] = forward
    soldier.entry["region-moves"] = [{"region": name, "betza": sideways}]


def _counting_table(style: str, ids: Mapping[str, str]) -> dict[str, object]:
    """Fairy-Stockfish's countingRule `style` as `[rules.counting]` for a game whose piece
    types (slots) have the piece ids `ids`: Fairy Post's own game of that name gives the
    limits, its pieces read as the types Fairy-Stockfish counts; a line for a type the game
    lacks never applies and is left out."""
    counting = load_variant(style).counting
    assert counting is not None
    table: dict[str, object] = {"style": style}
    table["pawns"] = [
        ids[COUNTING_TYPES[p]] for p in sorted(counting.pawns) if COUNTING_TYPES[p] in ids
    ]
    if counting.board:
        table["board"] = counting.board
    table["pieces"] = [
        {"piece": ids[COUNTING_TYPES[line.piece]], "count": line.count, "moves": line.moves}
        for line in counting.pieces
        if COUNTING_TYPES[line.piece] in ids
    ]
    table["otherwise"] = counting.otherwise
    return table


def _diagonal_lines(
    config: Config,
    source: str,
    files: int,
    ranks: int,
    pieces: list[Piece],
    regions: dict[str, object],
) -> None:
    """Fairy-Stockfish's diagonalLines (Janggi's palace lines): on those squares its Wazir
    (and a King moving as one) also steps diagonally, its Soldier diagonally forward, its
    Rook slides and its Janggi Cannon hops diagonally, staying on the lines: region moves."""
    lines = _region(config, "diagonalLines", source, files, ranks)
    if not lines:
        return
    regions["palace-lines"] = {"white": _squares_text(lines), "black": _squares_text(lines)}
    for p in pieces:
        kind = config.king_type if p.slot == "king" else p.slot
        betza = DIAGONAL_MOVES.get(kind)
        if betza is None:
            continue
        moves = betza_for(fsf_moves(betza)[0])
        assert moves is not None
        extra = [{"region": "palace-lines", "betza": moves}]
        existing = p.entry.get("region-moves")
        p.entry["region-moves"] = (existing if isinstance(existing, list) else []) + extra


def _piece_limit(config: Config, source: str, slot: str) -> int:
    """promotionLimit for a type that promotedPieceType makes (0: none). Fairy-Stockfish
    counts every piece of the type, Fairy Post the promoted forms of one piece: they agree
    when that piece is the only way to the type (none at the start, none a Pawn's choice,
    one piece promoting into it, promoted pieces going back to the hand as they were)."""
    counts = {}
    for token in config.options.get("promotionLimit", "").split():
        letter, _, count = token.partition(":")
        if len(letter) == 1 and count.isdigit() and config.slot_of(letter) == slot:
            counts[slot] = int(count)
    if slot not in counts:
        return 0
    sources = [a for a, b in config.promoted.items() if b == slot and a in config.pieces]
    start = _start_slots(config)
    if (
        len(sources) != 1
        or slot in start
        or any(slot in piece_set(config, "promotionPieceTypes", c) for c in (0, 1))
        or _bool(config, "dropLoop", source)
        or not 1 <= counts[slot] <= 64
    ):
        _refuse(
            config,
            "promotionLimit",
            source,
            f"a limit on {slot} other than on the promoted forms of one piece: Fairy-Stockfish "
            "counts every piece of the type",
        )
    return counts[slot]


def _start_slots(config: Config) -> set[str]:
    """The slots of the pieces in startFen (on the board or in hand), any colour."""
    fen = config.options.get("startFen", "").split()
    letters = {ch.lower() for ch in (fen[0] if fen else "") if ch.isalpha()}
    return {slot for slot, s in config.pieces.items() if s.letter in letters}


def _cambodian_moves(
    config: Config, source: str, ranks: int, start: Start, pieces: list[Piece]
) -> None:
    """Fairy-Stockfish's cambodianMoves with gating: the files in the castling field are
    gates on the first rank; a King on its gate may leap mfsN (lost when a Rook checks it),
    a Fers on its gate jump mfD, both once: Fairy Post's initial-leap and initial move."""
    gating = _bool(config, "gating", source)
    if gating != _bool(config, "cambodianMoves", source):
        key = "gating" if gating else "cambodianMoves"
        _refuse(
            config,
            key,
            source,
            "gating as Fairy-Stockfish writes it in the castling field (S-Chess)"
            if gating
            else "cambodianMoves without gating (it has no gates to move from)",
        )
    if not gating:
        return
    if _bool(config, "castling", source):
        _refuse(config, "gating", source, "gates beside castling in the castling field")
    by_slot = {p.slot: p for p in pieces}
    gates = set()
    for ch in start.castling.strip("-"):
        if not ch.isalpha() or ch.upper() not in FILE_LETTERS.upper()[:12] or ch in "KQkq":
            _refuse(
                config, "startFen", source, f"{ch!r} in the castling field is not a gate's file"
            )
        color = 0 if ch.isupper() else 1
        gates.add((FILE_LETTERS.index(ch.lower()), 0 if color == 0 else ranks - 1, color))
    on_own = all(
        start.board.get((f, r), ("", -1)) in (("king", c), ("fers", c)) for f, r, c in gates
    )
    king_gates = {(f, r, c) for f, r, c in gates if start.board.get((f, r), ("", c))[0] == "king"}
    fers_gates = gates - king_gates
    kings = {(f, r, c) for (f, r), (s, c) in start.board.items() if s == "king"}
    fers = {(f, r, c) for (f, r), (s, c) in start.board.items() if s == "fers"}
    if not on_own or (king_gates and king_gates != kings) or (fers_gates and fers_gates != fers):
        _refuse(
            config,
            "startFen",
            source,
            "gates other than on every King or every Fers of both sides (Cambodian's first moves)",
        )
    if king_gates:
        rooks = [p.id for p in pieces if p.slot == "rook"]
        by_slot["king"].entry["initial-leap"] = {
            "betza": betza_for(fsf_moves(CAMBODIAN_LEAP)[0]),
            "lost-on-check-by": rooks,
        }
    if fers_gates:
        by_slot["fers"].entry["betza"] = "F imfD"


def _piece_promotions(
    config: Config,
    source: str,
    files: int,
    ranks: int,
    pieces: list[Piece],
    regions: dict[str, object],
) -> None:
    """Fairy-Stockfish's promotedPieceType (`r:t`): Shogi's promotion. A move that starts
    or ends in the promotion region may promote the piece into a piece of its own that
    moves as the other type and, captured, goes to the hand as the piece it was."""
    by_slot = {p.slot: p for p in pieces}
    if not any(slot in by_slot for slot in config.promoted):
        return
    white = _region(config, "promotionRegionWhite", source, files, ranks)
    black = _region(config, "promotionRegionBlack", source, files, ranks)
    if white is None:  # Fairy-Stockfish's template: rank 8 and rank 1
        white = frozenset((f, 7) for f in range(files) if ranks > 7)
    if black is None:
        black = frozenset((f, 0) for f in range(files))
    if not white or not black:
        _refuse(config, "promotedPieceType", source, "promotion without a promotion region")
    assert white is not None and black is not None
    regions["promotion-zone"] = {"white": _squares_text(white), "black": _squares_text(black)}
    mandatory = _bool(config, "mandatoryPiecePromotion", source)
    on_capture = _bool(config, "piecePromotionOnCapture", source)
    demotion = _bool(config, "pieceDemotion", source)
    extinct = {piece_set(config, "extinctionPieceTypes", c) for c in (0, 1)}
    flags = set().union(*(piece_set(config, "flagPiece", c) for c in (0, 1)))
    for slot_a, slot_b in sorted(config.promoted.items(), key=lambda kv: SLOT_ORDER.index(kv[0])):
        if slot_a not in by_slot:
            continue  # a piece the section took away
        b = config.pieces[slot_b].letter if slot_b in config.pieces else "?"
        token = f"{config.pieces[slot_a].letter}:{b}"
        if slot_b not in by_slot:
            _refuse(config, "promotedPieceType", source, f"{token}: into a piece taken away")
        pawn_rows = by_slot[slot_a].entry.get("promotion")
        if isinstance(pawn_rows, dict) and pawn_rows.get("to"):
            _refuse(
                config,
                "promotedPieceType",
                source,
                f"{token}: a Pawn that promotes both as in chess (promotionPieceTypes) and "
                "Shogi-style",
            )
        if slot_a == "pawn" and not isinstance(pawn_rows, dict):
            _refuse(
                config,
                "promotedPieceType",
                source,
                f"{token}: a Shogi-style promotion of a Pawn that is no promotionPawnType",
            )
        target = by_slot[slot_b]
        if any(m[1] for m in target.moves) or "pawn-moves" in target.entry:
            _refuse(
                config, "promotedPieceType", source, f"{token}: promotion into a pawn-like piece"
            )
        written = betza_for(target.moves)
        if written is None:
            _refuse(config, "promotedPieceType", source, f"{token}: no Fairy Post Betza for {b}")
        limit = _piece_limit(config, source, slot_b)
        origin = by_slot[slot_a]
        new_id = f"promoted-{origin.id}"
        promo: dict[str, object] = {"to": [new_id], "zone": "promotion-zone"}
        if mandatory:
            promo["mandatory"] = True
        if on_capture:
            promo["on-capture"] = True
        if isinstance(pawn_rows, dict):
            # A Pawn (promotionPawnTypes) promotes on its promotion rows as in chess, into
            # the promoted form (checked with pyffish 0.0.90: e6e7+ only, whatever
            # mandatoryPiecePromotion says, as mandatoryPawnPromotion rules it).
            promo = {**pawn_rows, "to": [new_id]}
            if demotion or on_capture:
                _refuse(
                    config,
                    "promotedPieceType",
                    source,
                    f"{token}: a promoted Pawn that turns back over or promotes on captures",
                )
        if limit:
            promo["limit"] = limit
        origin.entry["promotion"] = promo
        letter = "+" + (origin.letter or origin.slot[0]).upper()
        entry: dict[str, object] = {
            "letter": letter,
            "betza": written,
            "demotes-to": origin.id,
        }
        if target.entry.get("royal"):
            # Into the King (Forward chess's forward-moving King, crowned on the last rank):
            # the promoted form is royal, which holds only if the piece that promotes is
            # the side's royal piece too (a pseudo-royal one becomes so in `_extinction`;
            # `_royal_promotions` refuses the rest).
            entry["royal"] = True
        elif any(slot_b in members for members in extinct) or slot_b in flags - {"*"}:
            # Fairy-Stockfish's promoted piece is of its new type: extinction (and its
            # pseudo-royal pieces) and the flag count it as one.
            entry["counts-as"] = target.id
        if "region" in target.entry:
            entry["region"] = target.entry["region"]  # mobilityRegion is the type's
        if demotion:
            # Fairy-Stockfish's pieceDemotion: the promoted piece turns back over by the
            # same rule (Kyoto Shogi).
            entry["promotion"] = {**promo, "to": [origin.id]}
        pieces.append(Piece(f"+{slot_a}", new_id, letter, target.moves, False, entry))


FSF_DOUBLE_STEP = frozenset({("lame", True, False, (0, 2), 0)})  # ifmnD


def _double_step(
    config: Config,
    source: str,
    start: Start,
    slot: str,
    files: int,
    ranks: int,
    moves: frozenset[Move],
) -> str | list[int] | dict[str, list[int]]:
    """Fairy-Stockfish's double steps (and custom initial moves) come from a region of
    squares; Fairy Post's `initial` from the first move. They agree when every such piece
    starts in the region and cannot come back to it: `initial`; `none` without any.
    Otherwise a region of whole ranks for a piece whose only initial move is the double
    step is `double-step-rows` (the rows it returns, per side where they differ)."""
    if "doubleStepRank" in config.options or "doubleStepRankMin" in config.options:
        regions = _double_step_regions(config, source, files, ranks)
        _legacy_double_step(config, source, files, ranks, regions)
    try:
        return _double_step_initial(config, source, start, slot, files, ranks, moves)
    except IniRefusal:
        # The predefined Pawn's double step is not in its Betza (fmWfceF) but is ifmnD.
        initial = FSF_DOUBLE_STEP if slot == "pawn" else frozenset(m for m in moves if m[1])
        rows = [
            _rank_rows(_double_step_regions(config, source, files, ranks)[c], files, ranks, c)
            for c in (0, 1)
        ]
        if initial == FSF_DOUBLE_STEP and rows[0] and rows[0] == rows[1]:
            return rows[0]
        # Rows that differ (Minihouse: Black's seventh rank is off the board)
        if initial == FSF_DOUBLE_STEP and rows[0] is not None and rows[1] is not None:
            return {"white": rows[0], "black": rows[1]}
        raise


def _triple_step(
    config: Config, source: str, files: int, ranks: int
) -> list[int] | dict[str, list[int]] | None:
    """Fairy-Stockfish's triple step (`tripleStepRegionWhite/Black`, none by default) is the
    predefined Pawn's alone (0.0.90 gives custom pieces none): from any square of the region,
    moved or not, as Fairy Post's `triple-step-rows`, when the regions are whole ranks."""
    regions = []
    for key in ("tripleStepRegionWhite", "tripleStepRegionBlack"):
        region = _region(config, key, source, files, ranks)
        regions.append(region or frozenset())
    if not regions[0] and not regions[1]:
        return None
    rows = []
    for color, key in enumerate(("tripleStepRegionWhite", "tripleStepRegionBlack")):
        found = _rank_rows(regions[color], files, ranks, color)
        if found is None:
            _refuse(config, key, source, "a triple-step region of part of a rank")
        rows.append(found)
    if rows[0] == rows[1]:
        return rows[0]
    return {"white": rows[0], "black": rows[1]}


def _double_step_regions(
    config: Config, source: str, files: int, ranks: int
) -> tuple[frozenset[Square], frozenset[Square]]:
    """The squares each side's double steps start from (Fairy-Stockfish's defaults: the
    second and seventh ranks)."""
    white = _region(config, "doubleStepRegionWhite", source, files, ranks)
    black = _region(config, "doubleStepRegionBlack", source, files, ranks)
    return (
        white if white is not None else frozenset((f, 1) for f in range(files) if ranks > 1),
        black if black is not None else frozenset((f, 6) for f in range(files) if ranks > 6),
    )


def _legacy_double_step(
    config: Config,
    source: str,
    files: int,
    ranks: int,
    regions: tuple[frozenset[Square], frozenset[Square]],
) -> None:
    """The old keys are read only beside both regions (as export_ini writes them for older
    engines), and only when they name the regions' single rank: otherwise refused."""
    options = config.options
    if not {"doubleStepRegionWhite", "doubleStepRegionBlack"} <= options.keys():
        _refuse(
            config, "doubleStepRank", source, "an old option: write doubleStepRegionWhite/Black"
        )
    named = {
        _int(config, k, source) for k in ("doubleStepRank", "doubleStepRankMin") if k in options
    }
    row = min(named)
    same = (
        len(named) == 1
        and regions[0] == frozenset((f, row - 1) for f in range(files))
        and regions[1] == frozenset((f, ranks - row) for f in range(files))
    )
    if not same:
        _refuse(config, "doubleStepRank", source, "another rank than doubleStepRegionWhite/Black")


def _double_step_initial(
    config: Config,
    source: str,
    start: Start,
    slot: str,
    files: int,
    ranks: int,
    moves: frozenset[Move],
) -> str:
    if not _bool(config, "doubleStep", source):
        return "none"
    regions = _double_step_regions(config, source, files, ranks)
    if not regions[0] and not regions[1]:
        return "none"
    key = "doubleStepRegionWhite"
    starts = [
        [sq for sq, (s, c) in start.board.items() if s == slot and c == color] for color in (0, 1)
    ]
    kinds = []
    for color in (0, 1):
        region = regions[color]
        forward = 1 if color == 0 else -1
        inside = [sq for sq in starts[color] if sq in region]
        outside = [sq for sq in starts[color] if sq not in region]
        if inside and outside:
            _refuse(
                config,
                key,
                source,
                f"{slot} on {_square_name(inside[0])} starts in the double-step region and on "
                f"{_square_name(outside[0])} outside it: Fairy Post's double step is a piece's "
                "first move",
            )
        first = min((sq[1] * forward for sq in starts[color]), default=None)
        for sq in region:
            if first is not None and (
                sq[1] * forward > first or (outside and sq[1] * forward == first)
            ):
                _refuse(
                    config,
                    key,
                    source,
                    f"a double-step region reaching {_square_name(sq)}, where a piece that "
                    "has moved may stand: Fairy Post's double step is a piece's first move",
                )
        if inside:
            kinds.append("initial")
        elif starts[color]:
            kinds.append("none")
    if slot in start.any_hand:
        _refuse(
            config,
            key,
            source,
            f"{slot} in hand at the start, dropped anywhere in the double-step region: Fairy "
            "Post's double step is a piece's first move",
        )
    if len(set(kinds)) > 1:
        _refuse(config, key, source, "double steps for one side only")
    if not kinds or kinds[0] == "none":
        return "none"
    if any(v[1] <= 0 for _, initial, _, v, _ in moves if not initial):
        _refuse(
            config,
            slot,
            source,
            "initial moves (i) of a piece that can step back into the double-step region",
        )
    return "initial"


def _goal(
    config: Config,
    source: str,
    files: int,
    ranks: int,
    by_slot: Mapping[str, Piece],
    rules: dict[str, object],
) -> None:
    for old in ("whiteFlag", "blackFlag"):
        if old in config.options:
            _refuse(config, old, source, "an old option: write flagRegionWhite/Black")
    both = _region(config, "flagRegion", source, files, ranks)
    white = _region(config, "flagRegionWhite", source, files, ranks)
    black = _region(config, "flagRegionBlack", source, files, ranks)
    white = both if white is None else white
    black = both if black is None else black
    if not white and not black:
        return
    goal: list[str] = []
    slots: list[str] = []
    for color in (0, 1):
        members = piece_set(config, "flagPiece", color)
        if len(members) != 1:
            _refuse(config, f"flagPiece/{color}", source, "several kinds of flag piece")
        slot = next(iter(members))
        if slot != "*" and slot not in by_slot:
            _refuse(config, f"flagPiece/{color}", source, f"{slot} is not a piece of this section")
        slots.append(slot)
        goal.append(ANY_PIECE if slot == "*" else by_slot[slot].id)
    zone: dict[str, object] = {
        "piece": goal[0],
        "squares": [_square_name(s) for s in sorted(white or ())],
        "black-squares": [_square_name(s) for s in sorted(black or ())],
    }
    if goal[1] != goal[0]:
        zone["black-piece"] = goal[1]
    count = _int(config, "flagPieceCount", source)
    if count < 1:
        _refuse(config, "flagPieceCount", source, f"flagPieceCount = {count}: not 1 or more")
    if count > 1:
        zone["count"] = count
        if _bool(config, "flagPieceBlockedWin", source):
            zone["full"] = True
    safe = _bool(config, "flagPieceSafe", source)
    if safe:
        if count > 1:
            _refuse(config, "flagPieceSafe", source, "several flag pieces to be kept safe")
        zone["safe"] = True
    if _bool(config, "flagMove", source):
        kings = [slot for slot in slots if slot == "king"]  # FSF's King gets a reply
        if count > 1:
            _refuse(config, "flagMove", source, "a flag move with several flag pieces")
        if kings and (safe or len(kings) != 2):
            _refuse(
                config,
                "flagMove",
                source,
                "a flag move for a King with another flag piece, or to be reached safely",
            )
        if ANY_PIECE in goal and any(p.entry.get("royal") for p in by_slot.values()):
            _refuse(config, "flagMove", source, "a flag move for any piece beside a King")
        zone["reply" if kings else "hold"] = True
    rules["goal-zone"] = zone


def _extinction(
    config: Config,
    source: str,
    by_slot: Mapping[str, Piece],
    start: Start,
    rules: dict[str, object],
) -> None:
    """Fairy-Stockfish's extinction: the listed types (`*`: all pieces together), the
    result, the count."""
    value = _word(config, "extinctionValue")
    types = {piece_set(config, "extinctionPieceTypes", c) for c in (0, 1)}
    if value == "none":
        return
    royals = [p for p in by_slot.values() if p.entry.get("royal")]
    if (
        value == "draw"
        and types == {frozenset({"*"})}
        and _int(config, "extinctionPieceCount", source) == 1
        and len(royals) == 1
        and not _bool(config, "extinctionPseudoRoyal", source)
        and all(c == 1 for c in Counter(v for v in start.board.values() if v[0] == "king").values())
    ):
        # a side down to one piece, its King, draws (Shatar's bare King)
        rules["bare-king"] = "draw"
        return
    if value not in ("loss", "win"):
        _refuse(config, "extinctionValue", source, f"extinctionValue = {value}: not win or loss")
    members = next(iter(types))
    if len(types) != 1:
        _refuse(config, "extinctionPieceTypes", source, "extinction types that differ by side")
    if not members:
        return  # nothing listed: Fairy-Stockfish never applies the rule
    pieces = (
        ["all"]
        if "*" in members
        else [by_slot[s].id for s in SLOT_ORDER if s in members and s in by_slot]
    )
    extinction: dict[str, object] = {
        "pieces": pieces,
        "result": value,
        "count": max(0, _int(config, "extinctionPieceCount", source)),
    }
    opponent = _int(config, "extinctionOpponentPieceCount", source)
    if opponent > 0:
        extinction["opponent-count"] = opponent
    rules["extinction"] = extinction
    pseudo = _bool(config, "extinctionPseudoRoyal", source)
    if pseudo and _bool(config, "blastOnCapture", source):
        # Fairy-Stockfish's atomic: one pseudo-royal piece a side that explodes plays as
        # Fairy Post's royal piece under rules.blast (touching, never capturing).
        slots = [s for s in SLOT_ORDER if s in members and s in by_slot]
        placed = [
            tuple(sum(1 for v in start.board.values() if v == (slot, c)) for c in (0, 1))
            for slot in slots
        ]
        if (
            "*" not in members
            and len(slots) == 1
            and value == "loss"
            and extinction["count"] == 0
            and placed == [(1, 1)]
            and not any(p.entry.get("royal") for p in by_slot.values())
        ):
            by_slot[slots[0]].entry["royal"] = True
            del rules["extinction"]
            return
        _refuse(
            config,
            "extinctionPseudoRoyal",
            source,
            "exploding pseudo-royal pieces other than one a side that is all the side "
            "must keep (Atomic's King)",
        )
    if pseudo and any(p.entry.get("royal") for p in by_slot.values()):
        # One piece a side that must not be lost, a royal King or a single pseudo-royal
        # piece that nothing can add to (Maharajah's Amazon against the King): the
        # pseudo-royal piece plays as a royal one, and the extinction never happens.
        slots = [s for s in SLOT_ORDER if s in members and s in by_slot]
        royal = [s for s, p in by_slot.items() if p.entry.get("royal")]
        per_side = [
            sum(1 for slot, c in start.board.values() if c == color and slot in slots + royal)
            for color in (0, 1)
        ]
        promoted_into = {
            t
            for p in by_slot.values()
            if isinstance(promo := p.entry.get("promotion"), dict)
            for t in promo.get("to", [])
        }
        if (
            "*" not in members
            and value == "loss"
            and extinction["count"] == 0
            and per_side == [1, 1]
            and not set(slots) & start.any_hand
            and not {by_slot[s].id for s in slots} & promoted_into  # "to" holds ids by now
        ):
            for slot in slots:
                by_slot[slot].entry["royal"] = True
            del rules["extinction"]
            return
    if pseudo:
        extinction["pseudo-royal"] = True


def _royal_promotions(config: Config, source: str, by_slot: Mapping[str, Piece]) -> None:
    """A promotion into the royal King keeps one royal piece a side only when the piece
    that promotes is royal itself (Forward chess's forward King, a lone pseudo-royal piece
    that `_extinction` made royal): any other would crown a second King."""
    by_id = {p.id: p for p in by_slot.values()}
    for form in by_slot.values():
        origin = by_id.get(str(form.entry.get("demotes-to")))
        if not form.entry.get("royal") or origin is None or origin.entry.get("royal"):
            continue
        target = config.promoted[origin.slot]
        b = config.pieces[target].letter if target in config.pieces else "?"
        _refuse(
            config,
            "promotedPieceType",
            source,
            f"{config.pieces[origin.slot].letter}:{b}: promotion into the royal King of a "
            "piece that is not the side's only royal (or lone pseudo-royal) piece: a side "
            "would have two",
        )


def _without_idle_king(
    pieces: list[Piece], start: Start, castling: list[dict[str, object]]
) -> list[Piece]:
    """The pieces less the royal King where the King comes only as another royal piece's
    promoted form (Forward chess's crowned King): neither set up nor held, promoted into
    by nothing and castling with nothing, it is a second royal type no game ever sees."""
    king = next((p for p in pieces if p.slot == "king" and p.entry.get("royal")), None)
    if king is None or castling or "king" in start.any_hand:
        return pieces
    if any(slot == "king" for slot, _ in start.board.values()):
        return pieces
    crowned = any(p.entry.get("royal") and "demotes-to" in p.entry for p in pieces)
    named = any(
        isinstance(promo := p.entry.get("promotion"), dict) and king.id in promo.get("to", [])
        for p in pieces
    )
    if not crowned or named:
        return pieces
    return [p for p in pieces if p is not king]


def _en_passant(
    config: Config,
    source: str,
    files: int,
    ranks: int,
    pieces: list[Piece],
    start: Start,
    rules: dict[str, object],
) -> None:
    victims = [
        p.id
        for p in pieces
        if (p.slot == "pawn" and p.entry.get("double-step") == "initial")
        or "double-step-rows" in p.entry
        or "triple-step-rows" in p.entry
        or (p.slot != "pawn" and any(m[1] for m in p.moves))
    ]
    capturers = [
        p.id
        for p in pieces
        if all(p.slot in piece_set(config, "enPassantTypes", c) for c in (0, 1))
        and (not victims or _takes_en_passant(config, source, p))
    ]
    if any(p.slot in piece_set(config, "enPassantTypes", 0) for p in pieces) != any(
        p.slot in piece_set(config, "enPassantTypes", 1) for p in pieces
    ):
        _refuse(config, "enPassantTypes/0", source, "en passant for one side only")
    if not victims or not capturers:
        return
    every = frozenset((f, r) for f in range(files) for r in range(ranks))
    regions = []
    for key in ("enPassantRegionWhite", "enPassantRegionBlack"):
        region = _region(config, key, source, files, ranks)
        if region is None:
            region = _region(config, "enPassantRegion", source, files, ranks)
        regions.append(every if region is None else region)
    if not regions[0] and not regions[1]:
        return
    if regions[0] != every or regions[1] != every:
        _refuse(config, "enPassantRegion", source, "en passant on some squares only")
    rules["en-passant"] = {"capturers": capturers, "victims": victims}


def _takes_en_passant(config: Config, source: str, piece: Piece) -> bool:
    """Whether a piece of `enPassantTypes` ever takes en passant. Fairy-Stockfish (0.0.90)
    takes en passant onto the squares a piece attacks but cannot move to without capturing:
    the Pawn's `fcF`, never a piece that also steps there (Dragon Chess's Pawn, which moves
    as a King too). Fairy Post's en passant is the diagonal forward capture's alone."""

    def reach(move: Move) -> set[tuple[int, int]]:
        kind, _, _, (x, y), span = move
        if kind in ("leap", "lame"):
            return {(x, y)}
        return {(x * k, y * k) for k in range(1, (span or 15) + 1)}

    quiet = set().union(*(reach(m) for m in piece.moves if not m[2]))
    only = set().union(*(reach(m) for m in piece.moves if m[2] and not m[1])) - quiet
    forward = {(1, 1), (-1, 1)}
    if not only:
        return False
    if only != forward:
        _refuse(
            config,
            "enPassantTypes/0",
            source,
            f"{piece.slot} would take en passant with captures other than the Pawn's "
            f"diagonal forward one ({betza_for(frozenset(m for m in piece.moves if m[2]))})",
        )
    return True


def _castling(
    config: Config,
    source: str,
    files: int,
    ranks: int,
    start: Start,
    by_slot: Mapping[str, Piece],
    sides: list[str],
) -> list[dict[str, object]]:
    """The castling moves, White's (Black's mirrored); `sides` is narrowed to the side
    that castles when the other has no castling rights."""
    if not _bool(config, "castling", source) or start.castling in ("", "-"):
        return []
    rank_rel = _rank(config, "castlingRank", source)
    king_file = _file(config, "castlingKingFile", source)
    k_to = _file(config, "castlingKingsideFile", source)
    q_to = _file(config, "castlingQueensideFile", source)
    rook_k = _file(config, "castlingRookKingsideFile", source)
    rook_q = _file(config, "castlingRookQueensideFile", source)
    found: list[set[tuple[Square, Square, Square, Square]]] = [set(), set()]
    for token in start.castling:
        color = 0 if token.isupper() else 1
        rank = rank_rel if color == 0 else ranks - 1 - rank_rel
        kings = piece_set(config, "castlingKingPiece", color)
        rooks = piece_set(config, "castlingRookPieces", color)

        def holds(sq: Square, kinds: frozenset[str], color: int = color) -> bool:
            return start.board.get(sq, ("", -1))[1] == color and start.board[sq][0] in kinds

        upper = token.upper()
        rook_sq: Square | None = None
        if upper == "K":
            f = min(rook_k, 11)
            while f > 0 and not holds((f, rank), rooks):
                f -= 1
            rook_sq = (f, rank)
        elif upper == "Q":
            f = rook_q
            while f < files - 1 and not holds((f, rank), rooks):
                f += 1
            rook_sq = (f, rank)
        elif "A" <= upper <= "L":
            rook_sq = (ord(upper) - ord("A"), rank)
        else:
            continue
        king_squares = [(f, rank) for f in range(files) if holds((f, rank), kings)]
        king_sq = king_squares[0] if len(king_squares) == 1 else (king_file, rank)
        if not holds(king_sq, kings) or not holds(rook_sq, rooks):
            continue
        kingside = rook_sq[0] > king_sq[0]
        to = k_to if kingside else q_to
        found[color].add((king_sq, (to, rank), rook_sq, (to - 1 if kingside else to + 1, rank)))
    white = found[0]
    black = {
        ((a[0], ranks - 1 - a[1]), (b[0], ranks - 1 - b[1]), (c[0], ranks - 1 - c[1]),
         (d[0], ranks - 1 - d[1]))
        for a, b, c, d in found[1]
    }  # fmt: skip
    if white and not black:
        sides[:] = ["white"]  # Black has no castling rights at all (Weak!, Orda)
    elif black and not white:
        sides[:] = ["black"]
        white = black
    if white != black and len(sides) == 2:
        for move in black - white:
            # Fairy Post's castling moves are White's, mirrored for Black: a move of Black's
            # own (where White lacks the King or Rook, so cannot have the right) has no form.
            king_sq, rook_sq = ((s[0], ranks - 1 - s[1]) for s in (move[0], move[2]))
            _refuse(
                config,
                "startFen",
                source,
                "castling rights that differ between White and Black (Black's King on "
                f"{_square_name(king_sq)} castles with {_square_name(rook_sq)}; Fairy Post's "
                "castling moves are White's, mirrored for Black)",
            )
        for move in white - black:
            mirrored = [(s[0], ranks - 1 - s[1]) for s in (move[0], move[2])]
            if all(start.board.get(s, ("", -1))[1] == 1 for s in mirrored):
                _refuse(
                    config,
                    "startFen",
                    source,
                    "castling rights that differ between White and Black",
                )
    moves = white
    out: list[dict[str, object]] = []
    for king_sq, king_to, rook_sq, rook_to in sorted(moves, key=lambda m: -m[1][0]):
        out.append(
            {
                "king": _square_name(king_sq),
                "king-to": _square_name(king_to),
                "rook": _square_name(rook_sq),
                "rook-to": _square_name(rook_to),
            }
        )
    return out


def _castling_wins(config: Config, source: str, castling: list[dict[str, object]]) -> None:
    """castlingWins (castling rights as FEN writes them, `q`: Black's queen-side
    castling) become the `wins` of the castling moves they name."""
    value = _word(config, "castlingWins")
    if value in ("", "-"):
        return
    for letter in value:
        if letter.upper() not in "KQ":
            _refuse(config, "castlingWins", source, f"{letter!r} is not K, Q, k or q")
        side = "white" if letter.isupper() else "black"
        kingside = letter.upper() == "K"
        moves = [
            m
            for m in castling
            if (str(m["rook"])[0] > str(m["king"])[0]) == kingside  # the files decide
        ]
        if len(moves) != 1:
            _refuse(config, "castlingWins", source, f"{letter}: no such castling in this section")
        wins = moves[0].setdefault("wins", [])
        assert isinstance(wins, list)
        if side not in wins:
            wins.append(side)


# ---------------------------------------------------------------------------------------
# Whole files


def builtin_parent(name: str, source: str) -> Config:
    """The configuration of Fairy-Stockfish's built-in game `name`, from the Fairy Post
    variant playing it under the same id (its export)."""
    if name not in FSF_BUILTINS:
        raise IniRefusal(source, f"[{name}]", f"no section or Fairy-Stockfish game named {name!r}")
    if name == "chess":
        return apply_section(default_config(), read_sections(CHESS_INI, source)[0], source)
    if name in ("placement", "pocketknight"):
        # As Fairy-Stockfish defines them; Fairy Post's own keep their pieces in a reserve,
        # which the export cannot say.
        base = apply_section(default_config(), read_sections(CHESS_INI, source)[0], source)
        own = PLACEMENT_INI if name == "placement" else POCKETKNIGHT_INI
        return apply_section(base, read_sections(own, source)[0], source)
    if name in ("atomic", "nocheckatomic"):
        # As Fairy-Stockfish defines them: a Commoner King whose loss loses, and blasts.
        base = apply_section(default_config(), read_sections(CHESS_INI, source)[0], source)
        atomic = ATOMIC_INI + ("extinctionPseudoRoyal = true\n" if name == "atomic" else "")
        return apply_section(base, read_sections(atomic, source)[0], source)
    for vid in variant_ids():
        variant = load_variant(vid)
        if variant.fsf_variant == name or (vid == name and variant.fsf_variant is None):
            try:
                # Without the older keys: a section inherits the parent's rules (the regions),
                # not its keys, so a child's own regions are not held to the parent's ranks.
                text = export_ini(variant, name=f"{name}-parent", older_keys=False)
            except IniRefusal as exc:
                raise IniRefusal(
                    source,
                    f"[{name}]",
                    f"its parent, Fairy-Stockfish's {name} as Fairy Post plays it, has "
                    f"{exc.reason}",
                ) from None
            section = read_sections(text, source)[0]
            base = default_config()
            if section.parent == WAZIR_KING_GAME:
                # the export inherits its King from there: a `k` that moves as a Wazir
                base.pieces["king"] = Slot("k", "")
                base.king_type = "wazir"
            return apply_section(base, section, source)
    raise IniRefusal(
        source,
        f"[{name}]",
        f"Fairy-Stockfish's built-in {name!r} is not among the games Fairy Post plays, "
        "so a section cannot inherit from it",
    )


@dataclass(frozen=True)
class Converted:
    """One section: its name, the TOML of the game or the refusal."""

    name: str
    parent: str
    toml: str | None
    error: VariantError | None


def convert_ini(
    text: str, source: str = "variants.ini", bounds: Bounds = Bounds()
) -> list[Converted]:
    """Every section of a variants.ini text, converted or refused (in file order)."""
    sections = read_sections(text, source, bounds)
    configs: dict[str, Config | VariantError] = {}
    out: list[Converted] = []
    for section in sections:
        label = f"{section.name}:{section.parent}" if section.parent else section.name
        try:
            if section.name in FSF_BUILTINS or section.name in configs:
                raise IniRefusal(
                    source,
                    f"[{section.name}]",
                    "a Fairy-Stockfish game of this name exists already: Fairy-Stockfish "
                    "ignores the section; give it another name",
                    line=section.line,
                )
            if not section.name or not re.fullmatch(r"[A-Za-z0-9_.+-]{1,40}", section.name):
                raise IniRefusal(
                    source,
                    f"[{section.name[:40]}]",
                    "a section name is letters, digits and - (at most 40)",
                    line=section.line,
                )
            base: Config
            if not section.parent:
                base = default_config()
            elif section.parent in configs:
                parent = configs[section.parent]
                if isinstance(parent, VariantError):
                    raise IniRefusal(
                        source,
                        f"[{label}]",
                        f"its parent [{section.parent}] is refused ({parent.reason})",
                        line=section.line,
                    )
                base = parent
            else:
                try:
                    base = builtin_parent(section.parent, source)
                except IniRefusal as exc:
                    raise IniRefusal(source, f"[{label}]", exc.reason, line=section.line) from None
            config = apply_section(base, section, source)
            configs[section.name] = config
            toml = convert_config(section.name, config, source, label)
            from rules.variant import load_definition

            load_definition(toml, source=f"[{section.name}]", new=True)
            out.append(Converted(section.name, section.parent, toml, None))
        except VariantError as exc:
            configs.setdefault(section.name, exc)
            out.append(Converted(section.name, section.parent, None, exc))
        except RulesError as exc:
            err = VariantError(source, f"[{section.name}]", str(exc), line=section.line)
            configs.setdefault(section.name, err)
            out.append(Converted(section.name, section.parent, None, err))
    return out


def convert_section(
    text: str, name: str, source: str = "variants.ini", bounds: Bounds = Bounds()
) -> str:
    """The TOML of section `name` (VariantError when it is refused or missing)."""
    for item in convert_ini(text, source, bounds):
        if item.name == name:
            if item.error is not None:
                raise item.error
            assert item.toml is not None
            return item.toml
    names = ", ".join(s.name for s in read_sections(text, source, bounds)) or "none"
    raise VariantError(source, f"[{name}]", f"no such section; the sections are: {names}")


# ---------------------------------------------------------------------------------------
# Out: a Fairy Post variant as a variants.ini section

VARIANT_WRITTEN = frozenset(
    [
        "id",
        "name",
        "description",
        "status",
        "inventor",
        "sources",
        "geometry",
        "pieces",
        "setup",
        "castling",
        "fast_castling",
        "ep_capturers",
        "ep_victims",
        "move_rule",
        "repetition",
        "stalemate",
        "goal",
        "insufficient_material",
        "captures_to_hand",
        "demote_to_hand",
        "zone",
        "regions",
        "fsf_variant",
        "fsf_letters",
        "pgn_variant",
        "fsf_san",
        "fsf_aliases",
        "black_setup",
        "flying_general",
        "perpetual_check",
        "display",
        "notation",
        "immobility_illegal",
        "drop_region",
        "repetition_result",
        "option_defs",
        "options",
        "decisions",
        "source_file",
        "definition",
        "digest",
        "_by_id",
    ]
)
"""Variant fields the export writes (or that have no effect on the rules); any other field
that differs from its default is refused by name."""
VARIANT_WRITTEN |= {
    "must_capture",
    "no_checks",
    "no_drop_checks",
    "castling_opposite",
    "check_count",
    "checkmate",
    "extinction",
}
VARIANT_WRITTEN |= {"drop_promoted", "chasing", "counting", "passing", "bikjang", "points"}
VARIANT_WRITTEN |= {"move_repetition", "mate", "bare_king_draw", "first", "castling_sides"}
VARIANT_WRITTEN |= {"walls", "petrify"}
PIECE_WRITTEN = frozenset(
    [
        "id",
        "name",
        "letters",
        "aliases",
        "components",
        "royal",
        "promotion",
        "no_drop_rows",
        "region",
        "drop_one_per_file",
        "drop_mate",
        "glyph",
        "region_moves",
        "capture_checker_only",
        "cannot_capture",
        "cannot_hop_over",
        "initial_leap",
        "first_leaps",
        "first_leap_lost_by",
    ]
)
FIELD_NAMES = {
    "bare_king": "a bare King losing (Shatranj)",
    "bare_king_draw": "a bare King drawing (Shatar)",
    "counting": "Makruk's counting rules",
    "mate": "Shatar's mating rules",
    "reserve": "reserve pieces (S-Chess, Florea)",
    "reserve_in_hand": "reserve pieces (S-Chess)",
    "drop_any_face": "two-sided pieces dropped either face up",
    "passing": "passing (Janggi)",
    "bikjang": "Janggi's bikjang",
    "points": "material points (Janggi)",
    "move_repetition": "the ban on repeating a move (Janggi)",
    "chasing": "Xiangqi's chasing rule",
    "drop_promoted": "drops of promoted pieces (Kyoto Shogi)",
    "flip": "two-sided pieces (Patricia)",
    "family": "two-sided pieces (Patricia)",
    "initial_leap": "the King's first leap",
    "first_leaps": "the King's first leap (Cambodian)",
    "capture_checker_only": "Makpong's King",
    "once_per_game": "a once-per-game move",
    "succession": "succession (Timurid's Prince)",
    "region_moves": "moves in a region only (the Xiangqi Soldier, Janggi's palace)",
    "cannot_capture": "pieces that may not take others (the Janggi Cannon)",
    "cannot_hop_over": "pieces that may not hop over others (the Janggi Cannon)",
    "demotes_to": "Shogi-style promoted pieces",
    "counts_as": "promoted forms counted as another piece",
    "drop_region": "a drop region of one piece",
    "must_capture": "compulsory captures (Antichess)",
    "check_count": "winning by giving a number of checks (n-check)",
    "no_checks": "a game without checks (Racing Kings)",
    "checkmate": "a checkmate that does not lose",
    "bare_king_win": "winning by losing everything (Antichess)",
    "extinction": "extinction (losing when a kind of piece is gone)",
    "must_drop": "compulsory drops (Sittuyin's placement)",
}


def _default_of(cls: type, name: str) -> object:
    import dataclasses

    for f in dataclasses.fields(cls):
        if f.name == name:
            if f.default is not dataclasses.MISSING:
                return f.default
            if f.default_factory is not dataclasses.MISSING:
                return f.default_factory()
    return dataclasses.MISSING


def _unwritten(obj: object, written: frozenset[str]) -> list[str]:
    import dataclasses

    assert dataclasses.is_dataclass(obj)
    out = []
    for f in dataclasses.fields(obj):
        if f.name in written:
            continue
        default = _default_of(type(obj), f.name)
        if default is dataclasses.MISSING or getattr(obj, f.name) != default:
            out.append(f.name)
    return out


def export_ini(variant: Variant, name: str | None = None, *, older_keys: bool = True) -> str:
    """`variant` as a variants.ini section that Fairy-Stockfish 0.0.90 loads and plays the
    same way (IniRefusal naming what its format cannot say). `older_keys`: also the keys
    older engines read where they say exactly the same (`_with_older_keys`)."""
    from rules.fsf import letters as fsf_letters

    source = variant.id
    title = name or variant.id
    if title in FSF_BUILTINS:
        title += "-fairypost"  # Fairy-Stockfish ignores a section named after its own game

    def refuse(key: str, reason: str) -> NoReturn:
        raise IniRefusal(source, key, reason)

    geo = variant.geometry
    files, ranks = geo.files, geo.ranks
    if files > 12 or ranks > 10:
        refuse("files", f"a board of {files}x{ranks}: Fairy-Stockfish's boards are at most 12x10")
    for fname in _unwritten(variant, VARIANT_WRITTEN):
        what = FIELD_NAMES.get(fname, fname.replace("_", " "))
        refuse(fname.replace("_", "-"), f"{what}: Fairy-Stockfish's variants.ini cannot say it")
    if variant.goal != "checkmate":
        refuse("rules.goal", "royal capture: Fairy-Stockfish's variants.ini cannot say it")
    if variant.stalemate not in ("draw", "loss", "win", "fewer-pieces"):
        refuse("rules.stalemate", f"stalemate = {variant.stalemate!r}: no variants.ini option")
    table = fsf_letters(variant)
    keys: dict[str, str] = {"maxRank": str(ranks), "maxFile": FILE_LETTERS[files - 1]}
    if variant.notation == "shogi":
        keys["variantTemplate"] = "shogi"  # Fairy-Stockfish's moves in Shogi notation too
    slots: dict[str, str] = {}
    used: set[str] = set()
    customs = iter(CUSTOM_SLOTS)
    # A royal piece's royal promoted form (Forward chess's crowned King) is that piece's
    # other side, not a second royal piece: written as below (`_export_crowning`).
    crowned = [p for p in variant.pieces if p.royal and p.demotes_to is not None]
    royal = [p for p in variant.pieces if p.royal and p.demotes_to is None]
    if len(royal) > 1 or (not royal and not variant.royal_free):
        refuse("pieces", "a game without exactly one royal piece")
    if crowned:
        _export_crowning(variant, refuse)
    pawn_rows: set[int] = set()
    initial_pieces = []
    rowed: list[tuple[PieceType, tuple[Component, ...]]] = []
    promoted_forms = [p for p in variant.pieces if p.demotes_to is not None]
    gated = _cambodian_pieces(variant, refuse)
    diagonal: list[PieceType] = []  # pieces with region moves on Janggi's palace lines
    for p in variant.pieces:
        if p.demotes_to is not None:
            continue  # a promoted form: the type it moves as is chosen below
        for fname in _unwritten(p, PIECE_WRITTEN):
            what = FIELD_NAMES.get(fname, fname.replace("_", " "))
            refuse(f"pieces.{p.id}", f"{what}: Fairy-Stockfish's variants.ini cannot say it")
        letter = table.get(p.id)
        if letter is None or len(letter) != 1:
            refuse(f"pieces.{p.id}", "a piece without a one-letter Fairy-Stockfish name")
        assert letter is not None
        # Double and triple steps from rows (moved or not) are Fairy-Stockfish's regions
        stepped = tuple(c for c in p.components if is_multi_step(c) and c.rows)
        if stepped:
            rowed.append((p, stepped))
        moves = our_moves(c for c in p.components if c not in stepped)
        if moves is None:
            kinds = sorted({c.kind.value for c in p.components} - {"leap", "lame", "ride", "hop"})
            names = {
                "bent": "bent riders",
                "paths": "multi-path leapers",
                "path-ride": "circular and crooked riders",
            }
            refuse(
                f"pieces.{p.id}",
                f"{', '.join(names.get(k, k) for k in kinds)}: Fairy-Stockfish's Betza cannot "
                "say them",
            )
        assert moves is not None
        if any(len(c.sides) < 2 for c in p.components):
            refuse(
                f"pieces.{p.id}",
                "double steps from rows that differ between the sides: not written yet",
            )
        if any(c.pawnlike for c in p.components):
            # Pyffish resets the move count on the moves the piece cannot take back
            # (`_split_resets`): Fairy Post's `betza` must be exactly the others.
            initial = {(k, True, c, v, r) for k, _i, c, v, r in our_moves(stepped) or ()}
            kept, why = _split_resets(moves | initial, max(files, ranks))
            stated = our_moves(c for c in p.components if not c.pawnlike and c not in stepped)
            if why or stated is None or _normal(stated) != _normal(kept):
                refuse(
                    f"pieces.{p.id}",
                    "its betza and pawn-moves: Fairy-Stockfish 0.0.90 resets the move count "
                    "on exactly the moves the piece cannot take back "
                    + (f"({why})" if why else "(docs/variants.md, pawn-moves)"),
                )
        if p.id in gated and not p.royal:
            moves = frozenset(m for m in moves if not m[1])  # its jump: cambodianMoves
        if any(m[1] for m in moves):
            initial_pieces.append(p)
        plain = frozenset(m for m in moves if not m[1])
        slot: str | None = None
        betza: str | None = ""
        rank = _soldier_rank(variant, p) if p.region_moves and not p.royal else None
        if rank is not None and "soldier" in used:
            rank = None
        if p.region_moves and rank is None:
            diagonal.append(p)  # checked against Fairy-Stockfish's diagonalLines below
        if p.cannot_capture or p.cannot_hop_over:
            if (
                p.cannot_capture != (p.id,)
                or p.cannot_hop_over != (p.id,)
                or _normal(moves) != _normal(fsf_moves("pR")[0])
                or "janggiCannon" in used
            ):
                refuse(
                    f"pieces.{p.id}",
                    "pieces that may not take or hop over others, other than the Janggi Cannon",
                )
            slot, betza = "janggiCannon", ""
        elif rank is not None:
            slot, betza = "soldier", ""
            keys["soldierPromotionRank"] = str(rank)
        elif p.royal and not crowned:
            slot = "king"
            betza = "" if _normal(plain) == _normal(fsf_moves("K")[0]) else fsf_betza_for(moves)
        elif (
            "pawn" not in used
            and _normal(plain) == _normal(fsf_moves("fmWfcF")[0])
            and p.promotion is not None
        ):
            # (Fairy-Stockfish 0.0.90's Pawn promotes whatever promotionPawnTypes says: a
            # Pawn that never promotes is a custom piece with the same moves)
            slot, betza = "pawn", ""
        elif "janggiElephant" not in used and _normal(moves) == _normal(fsf_moves("nZ")[0]):
            slot, betza = "janggiElephant", ""
        if slot is None:
            slot, betza = _free_slot(moves, used, customs)
            if slot is None:
                refuse("pieces", "more than 25 custom pieces")
        if betza is None:
            refuse(f"pieces.{p.id}", "a movement Fairy-Stockfish's Betza cannot say")
        assert slot is not None
        used.add(slot)
        slots[p.id] = slot
        keys[slot] = letter + (f":{betza}" if betza else "")
        if slot == "pawn":
            pawn_rows |= {geo.row(sq, 0) for sq, pid in variant.setup if pid == p.id}
        if stepped and slot != "pawn":
            refuse(
                f"pieces.{p.id}",
                "double or triple steps from rows for a piece other than Fairy-Stockfish's Pawn",
            )
    letter_of = {pid: table[pid] for pid in slots}
    parent = _export_diagonal_lines(variant, diagonal, slots, keys, refuse)
    _export_promoted_forms(variant, promoted_forms, slots, letter_of, keys, used, customs, refuse)
    pawn_types = sorted(
        letter_of[p.id] for p in variant.pieces if any(c.pawnlike for c in p.components)
    )
    if (
        pawn_types != ["p"]
        or slots.get("pawn") is None
        or letter_of.get(next((pid for pid, s in slots.items() if s == "pawn"), "")) != "p"
    ):
        keys["nMoveRuleTypes"] = "".join(pawn_types) or "-"
    # Promotion
    promoting = [p for p in variant.pieces if p.promotion is not None and p.promotion.zone is None]
    promo_keys = {
        (p.promotion.to, p.promotion.compulsory_rows, p.promotion.optional_rows,
         p.promotion.limited_by_start_count)
        for p in promoting if p.promotion is not None
    }  # fmt: skip
    if len(promo_keys) > 1:
        refuse("promotion", "pieces that promote differently: Fairy-Stockfish has one rule")
    keys["promotionPawnTypes"] = "".join(sorted(letter_of[p.id] for p in promoting)) or "-"
    zoned_pawns = [p for p in variant.pieces if _pawn_zoned(variant, p)]
    if zoned_pawns and promoting:
        refuse("promotion", "Pawns promoting on rows beside pieces promoting in a zone")
    if zoned_pawns:
        _export_pawn_zone(variant, zoned_pawns, letter_of, keys, refuse)
    elif promoting:
        promo = promoting[0].promotion
        assert promo is not None
        if promo.in_place:
            refuse("promotion", "Sittuyin's in-place promotion: not written yet")
        if (
            promo.zone is not None
            or promo.mandatory
            or promo.on_capture
            or (promo.pawn_moves_only and any(not c.pawnlike for c in promoting[0].components))
        ):
            refuse("promotion", "Shogi-style promotion zones: not written yet")
        if promo.compulsory_rows and promo.optional_rows:
            if not _immobile_rows_are(variant, promoting, promo.compulsory_rows):
                refuse("promotion", "promotion optional on some rows and compulsory on others")
            keys["immobilityIllegal"] = "true"
        rows = sorted(promo.compulsory_rows | promo.optional_rows)
        white_rows = " ".join(f"*{r}" for r in rows) or "-"
        black_rows = " ".join(f"*{ranks + 1 - r}" for r in rows) or "-"
        if "promotionRegionWhite" in keys and [
            set(keys[k].split()) for k in ("promotionRegionWhite", "promotionRegionBlack")
        ] != [set(white_rows.split()), set(black_rows.split())]:
            # One region serves both in Fairy-Stockfish: the Pawns' rows must be the zone
            # (Forward chess: the last rank for both).
            refuse("promotion", "Pawns promoting on rows other than the pieces' promotion zone")
        keys["promotionRegionWhite"], keys["promotionRegionBlack"] = white_rows, black_rows
        keys["mandatoryPawnPromotion"] = "false" if promo.optional_rows else "true"
        keys["promotionPieceTypes"] = "".join(letter_of[t] for t in promo.to) or "-"
        if promo.limit_count:
            keys["promotionLimit"] = " ".join(
                f"{letter_of[t]}:{promo.limit_count}" for t in promo.to
            )
        if promo.limited_by_start_count:
            counts = {t: sum(1 for _, pid in variant.setup if pid == t) for t in promo.to}
            keys["promotionLimit"] = " ".join(f"{letter_of[t]}:{n}" for t, n in counts.items())
    else:
        keys.setdefault("promotionPawnTypes", "-")
        keys["promotionPieceTypes"] = "-"
    # Double steps and en passant: Fairy-Stockfish's come from a region
    starts: set[int] = set()
    for p in initial_pieces:
        if any(m[3][1] <= 0 for m in (our_moves(p.components) or ()) if not m[1]):
            refuse(f"pieces.{p.id}", "first-move-only moves of a piece that can step back")
        starts |= {geo.row(sq, 0) for sq, pid in variant.setup if pid == p.id}
    if len(starts) > 1:
        refuse("pieces", "first moves from more than one rank")
    if starts and rowed:
        refuse("pieces", "double steps both on the first move and from rows")
    if starts:
        row = next(iter(starts))
        keys["doubleStepRegionWhite"] = f"*{row}"
        keys["doubleStepRegionBlack"] = f"*{ranks + 1 - row}"
    elif rowed:
        _export_step_rows(rowed[0][1], ranks, keys, refuse)
    else:
        keys["doubleStep"] = "false"
    victims = {p.id for p in initial_pieces} | {p.id for p, _ in rowed}
    if variant.ep_victims and variant.ep_victims != victims:
        refuse("rules.en-passant", "en-passant victims other than the pieces with a first move")
    if not variant.ep_capturers and victims:
        keys["enPassantRegion"] = "-"
    keys["enPassantTypes"] = "".join(sorted(letter_of[i] for i in variant.ep_capturers)) or "-"
    # Castling
    if variant.fast_castling is not None:
        refuse("castling", "Florea's castling")
    castling = _export_castling(variant, letter_of, keys, refuse)
    if gated:
        castling = _export_gates(variant, gated, slots, keys, refuse)
    # Start position
    keys["startFen"] = _export_fen(variant, letter_of, castling)
    if variant.check_count:
        board, side, rights, ep, *clocks = keys["startFen"].split()
        given = f"{variant.check_count}+{variant.check_count}"
        keys["startFen"] = " ".join([board, side, rights, ep, given, *clocks])
    # Rules
    keys["nMoveRule"] = str(variant.move_rule)
    keys["nFoldRule"] = str(variant.repetition)
    results = {
        "draw": ("draw", "false"),
        "repeater-wins": ("loss", "false"),
        "repeater-loses": ("win", "false"),
        "white-loses": ("loss", "true"),
        "black-loses": ("win", "true"),
    }
    keys["nFoldValue"], keys["nFoldValueAbsolute"] = results[variant.repetition_result]
    keys["stalemateValue"] = "win" if variant.stalemate == "fewer-pieces" else variant.stalemate
    if variant.stalemate == "fewer-pieces":
        keys["stalematePieceCount"] = "true"
    if variant.checkmate != "loss":
        keys["checkmateValue"] = variant.checkmate
    if variant.must_capture:
        keys["mustCapture"] = "true"
    if variant.petrify:
        keys["petrifyOnCaptureTypes"] = "".join(sorted(letter_of[pid] for pid in variant.petrify))
    if variant.no_checks:
        keys["checking"] = "false"
    if variant.no_drop_checks:
        keys["dropChecks"] = "false"
    if variant.castling_opposite:
        keys["oppositeCastling"] = "true"
    if variant.check_count:
        keys["checkCounting"] = "true"
    if variant.extinction is not None:
        ext = variant.extinction
        keys["extinctionValue"] = ext.result
        keys["extinctionPieceTypes"] = (
            "".join(sorted(letter_of[t] for t in ext.pieces)) if ext.pieces else "*"
        )
        keys["extinctionPieceCount"] = str(ext.count)
        if ext.pseudo_royal:
            keys["extinctionPseudoRoyal"] = "true"
        if ext.opponent_count:
            keys["extinctionOpponentPieceCount"] = str(ext.opponent_count)
    if crowned:
        # Fairy-Stockfish's King is one type, so the piece crowned King is its own type,
        # kept safe as the last piece of the two types together (`_export_crowning`).
        keys["extinctionValue"] = "loss"
        keys["extinctionPieceTypes"] = "".join(
            [*sorted(letter_of[p.id] for p in royal), keys["king"][0]]
        )
        keys["extinctionPseudoRoyal"] = "true"
    if variant.perpetual_check == "loss":
        keys["perpetualCheckIllegal"] = "true"
    if variant.counting is not None:
        style = variant.counting.style
        ids = {slot: pid for pid, slot in slots.items()}
        if _counting_table(style, ids) != _counting_table_of(variant.counting):
            refuse(
                "rules.counting",
                f"counting limits other than Fairy-Stockfish's {style} rule for its piece types",
            )
        keys["countingRule"] = style
    for p in variant.pieces:
        if p.capture_checker_only:
            if not p.royal or slots.get(p.id) != "king":
                refuse(f"pieces.{p.id}.in-check", "Makpong's rule for a piece other than the King")
            keys["makpongRule"] = "true"
    if variant.mate is not None:
        forbidden, series = SHATAR_TYPES
        used_slots = set(slots.values())
        if {slots[p] for p in variant.mate.forbidden_by} != forbidden & used_slots or {
            slots[p] for p in variant.mate.series_needs
        } != series & used_slots:
            refuse(
                "rules.mate",
                "mating rules other than Fairy-Stockfish's shatarMateRule (its Knight alone may "
                "not mate; a Knight, Rook or Bers must check in the series)",
            )
        keys["shatarMateRule"] = "true"
    if variant.bare_king_draw:
        if variant.extinction is not None or len(royal) != 1:
            refuse("rules.bare-king", "a bare King's draw beside extinction or several royals")
        keys["extinctionValue"] = "draw"
        keys["extinctionPieceTypes"] = "*"
        keys["extinctionPieceCount"] = "1"
    if variant.passing:
        keys["pass"] = "true"
    if variant.bikjang:
        keys["bikjangRule"] = "true"
    if variant.move_repetition == "loss":
        keys["moveRepetitionIllegal"] = "true"
    odds: dict[float, str] = {bonus: word for word, bonus in DRAW_ODDS.items()}
    if (
        variant.points is not None
        and not any(value for _, value in variant.points.values)
        and variant.points.black_bonus in odds
    ):
        keys["materialCounting"] = odds[variant.points.black_bonus]
    elif variant.points is not None:
        janggi = load_variant(WAZIR_KING_GAME).points
        assert janggi is not None
        ours = {slots[pid]: value for pid, value in variant.points.values if value}
        theirs = {JANGGI_TYPES[pid]: value for pid, value in janggi.values}
        if variant.points.black_bonus != janggi.black_bonus or any(
            ours.get(slot, 0) != theirs.get(slot, 0) for slot in slots.values()
        ):
            refuse("rules.material-points", "material points other than Janggi's")
        keys["materialCounting"] = "janggi"
    if variant.chasing:
        roles_given = {(role, slots[pid]) for role, pid in variant.chasing}
        roles_wanted = {
            (role, slot) for role, slot in CHASING_ROLES.items() if slot in slots.values()
        }
        if roles_given != roles_wanted:
            refuse(
                "rules.chasing",
                "chasing roles other than Fairy-Stockfish's: the Rook, Horse, Cannon, Elephant, "
                "Fers and Soldier it writes are the Chariot, Horse, Cannon, Elephant, Advisor "
                "and Soldier",
            )
        keys["chasingRule"] = "axf"
    if variant.flying_general:
        keys["flyingGeneral"] = "true"
    if variant.immobility_illegal:
        keys["immobilityIllegal"] = "true"
    if variant.captures_to_hand:
        keys["pieceDrops"] = "true"
        keys["capturesToHand"] = "true"
        if not variant.demote_to_hand and not promoted_forms:
            keys["dropLoop"] = "true"
        elif not variant.demote_to_hand and promoting:
            refuse(
                "rules.demote-to-hand",
                "promoted Pawns kept in hand as promoted beside promoted forms that return "
                "as what they were: Fairy-Stockfish's dropLoop is one rule for both",
            )
        _export_drops(variant, letter_of, slots, keys, refuse)
    else:
        for p in variant.pieces:
            if p.no_drop_rows or p.drop_one_per_file or p.drop_mate != "legal":
                pass  # no drops in this game: drop rules have no effect
    if variant.zone is not None:
        _export_zone(variant, variant.zone, royal, letter_of, keys, refuse)
    for p in variant.pieces:
        if p.region is not None:
            region = variant.region(p.region)
            cap = slots[p.id][0].upper() + slots[p.id][1:]
            for color, side in ((0, "White"), (1, "Black")):
                keys[f"mobilityRegion{side}{cap}"] = _bitboard_text(variant, region.of(color))
    lines = [f"# {variant.name}, written by Fairy Post (python -m rules export-ini {variant.id})"]
    if variant.insufficient_material:
        lines.append(
            "# Fairy Post also draws at once on insufficient material; Fairy-Stockfish has no "
            "such rule (the moves are the same)."
        )
    lines.append(f"[{title}:{parent}]" if parent else f"[{title}]")
    if older_keys:
        keys = _with_older_keys(keys, ranks)
    lines += [f"{k} = {v}" for k, v in keys.items()]
    return "\n".join(lines) + "\n"


def _whole_ranks(text: str | None) -> list[int] | None:
    """The ranks of a region written as whole ranks only (`*8 *9 *10`), else None."""
    tokens = (text or "").split()
    if not tokens or not all(re.fullmatch(r"\*\d+", t) for t in tokens):
        return None
    return sorted(int(t[1:]) for t in tokens)


def _with_older_keys(keys: dict[str, str], ranks: int) -> dict[str, str]:
    """`keys` with, after each region, the older key that says exactly the same where there
    is one, so engines older than the regions (Debian's fairy-stockfish 11.1 ignores
    `promotionRegion*` and `doubleStepRegion*`) read the same rules; newer ones (pyffish
    0.0.90) turn these keys back into the same regions. Promotion: the far ranks from
    `promotionRank` on; double steps: the one rank `doubleStepRank` (newer engines take the
    ranks from `doubleStepRankMin` to it, so both are written)."""
    out: dict[str, str] = {}
    for key, value in keys.items():
        out[key] = value
        if key not in ("promotionRegionBlack", "doubleStepRegionBlack"):
            continue
        white = _whole_ranks(keys.get(key.replace("Black", "White")))
        black = _whole_ranks(value)
        if white is None or black != sorted(ranks + 1 - r for r in white):
            continue  # not the same ranks from each side: no older key says it
        if key == "promotionRegionBlack" and white == list(range(white[0], ranks + 1)):
            out["promotionRank"] = str(white[0])
        elif key == "doubleStepRegionBlack" and len(white) == 1:
            out["doubleStepRank"] = out["doubleStepRankMin"] = str(white[0])
    return out


def _pawn_zoned(variant: Variant, p: PieceType) -> bool:
    """A piece that promotes in a zone into other pieces of the game, not into a promoted
    form of its own: Fairy-Stockfish's Pawn promotion regions (`PAWN_ZONE`)."""
    promo = p.promotion
    if promo is None or promo.zone is None or p.demotes_to is not None:
        return False
    return not (len(promo.to) == 1 and variant.piece(promo.to[0]).demotes_to == p.id)


def _export_pawn_zone(
    variant: Variant,
    zoned: list[PieceType],
    letter_of: Mapping[str, str],
    keys: dict[str, str],
    refuse: Callable[[str, str], NoReturn],
) -> None:
    """Pieces promoting in a zone into other pieces as Fairy-Stockfish's promotion regions
    (a region per side, squares or ranks). Fairy-Stockfish promotes a piece arriving in its
    region, Fairy Post's zone one leaving it too: they agree when promotion is compulsory
    there and the piece never stands in it unpromoted (none starts there, none is dropped)."""
    promo = zoned[0].promotion
    assert promo is not None and promo.zone is not None
    key = f"pieces.{zoned[0].id}.promotion"
    if any(p.promotion != promo for p in zoned):
        refuse("promotion", "pieces that promote differently: Fairy-Stockfish has one rule")
    if (
        not promo.mandatory
        or not promo.to
        or promo.on_capture
        or promo.in_place
        or promo.limit_count
        or promo.limited_by_start_count
        or (promo.pawn_moves_only and any(not c.pawnlike for p in zoned for c in p.components))
    ):
        refuse(key, "a promotion zone other than a compulsory promotion on arriving there")
    region = variant.region(promo.zone)
    ids = {p.id for p in zoned}
    for color in (0, 1):
        inside = [sq for sq, pid in variant.army(color) if pid in ids and sq in region.of(color)]
        if inside:
            refuse(
                key,
                "a piece that starts unpromoted in its promotion zone "
                f"({variant.geometry.name(inside[0])})",
            )
    if variant.has_hand or variant.reserve:
        refuse(key, "a promotion zone for pieces that can be dropped into it")
    keys["promotionPawnTypes"] = "".join(sorted(letter_of[p.id] for p in zoned))
    keys["promotionRegionWhite"] = _bitboard_text(variant, region.of(0)) or "-"
    keys["promotionRegionBlack"] = _bitboard_text(variant, region.of(1)) or "-"
    keys["mandatoryPawnPromotion"] = "true"
    keys["promotionPieceTypes"] = "".join(letter_of[t] for t in promo.to)


def _export_promoted_forms(
    variant: Variant,
    promoted: list[PieceType],
    slots: dict[str, str],
    letter_of: dict[str, str],
    keys: dict[str, str],
    used: set[str],
    customs: Iterator[str],
    refuse: Callable[[str, str], NoReturn],
) -> None:
    """Shogi's promotion as Fairy-Stockfish's promotedPieceType: each piece that promotes in
    a zone turns into its promoted form, which moves as some type of the section (a piece
    of the game that moves the same, else a type of its own that no piece starts as) and,
    captured, goes to the hand as what it was. One zone, mandatory or not, for all."""
    every = [
        p
        for p in variant.pieces
        if p.promotion is not None and p.promotion.zone and not _pawn_zoned(variant, p)
    ]
    if not every and not promoted:
        return
    zoned = [p for p in every if p.demotes_to is None]
    back = [p for p in every if p.demotes_to is not None]
    pairs: list[str] = []
    zones = set()
    flags = set()
    for p in every:
        promo = p.promotion
        assert promo is not None and promo.zone is not None
        if p.demotes_to is not None:
            own_form = promo.to == (p.demotes_to,)  # turning back over (Kyoto Shogi)
        else:
            own_form = len(promo.to) == 1 and variant.piece(promo.to[0]).demotes_to == p.id
        if not own_form:
            refuse(
                f"pieces.{p.id}.promotion",
                "a promotion in a zone into anything but the piece's own promoted form",
            )
        if promo.in_place or promo.limit_count or promo.limited_by_start_count:
            refuse(f"pieces.{p.id}.promotion", "a Shogi-style promotion with Sittuyin's rules")
        zones.add(promo.zone)
        flags.add((promo.mandatory, promo.on_capture))
    if len(zones) > 1 or len(flags) > 1:
        refuse("promotion", "pieces that promote in different zones or by different rules")
    sources = {p.demotes_to for p in promoted}
    if sources != {p.id for p in zoned}:
        refuse("pieces", "promoted forms of pieces that do not promote in a zone")
    if back and len(back) != len(promoted):
        refuse(
            "pieces",
            "some promoted forms turning back over and others not: Fairy-Stockfish's "
            "pieceDemotion is one rule for all",
        )
    if back:
        keys["pieceDemotion"] = "true"
    if variant.drop_promoted:
        if not back:
            refuse("rules.drop-promoted", "drops of promoted pieces that do not turn back over")
        keys["dropPromoted"] = "true"
    taken = {v for v in letter_of.values() if len(v) == 1}
    own_types: dict[frozenset[Move], str] = {}
    for p in zoned:
        form = variant.piece(p.promotion.to[0])  # type: ignore[union-attr]
        for fname in _unwritten(form, PIECE_WRITTEN | {"demotes_to", "promotion", "counts_as"}):
            what = FIELD_NAMES.get(fname, fname.replace("_", " "))
            refuse(f"pieces.{form.id}", f"{what}: Fairy-Stockfish's variants.ini cannot say it")
        moves = our_moves(form.components)
        if moves is None or any(m[1] for m in moves) or any(c.pawnlike for c in form.components):
            refuse(f"pieces.{form.id}", "a promoted form Fairy-Stockfish's Betza cannot say")
        assert moves is not None
        same = [
            pid
            for pid in slots
            if variant.piece(pid).demotes_to is None
            and not variant.piece(pid).royal
            and _normal(our_moves(variant.piece(pid).components) or frozenset()) == _normal(moves)
        ]
        if form.counts_as is not None and form.counts_as not in same[:1]:
            refuse(
                f"pieces.{form.id}.counts-as",
                "a promoted form counted as a piece it is not written as (Fairy-Stockfish's "
                "promoted piece is the type it is written as)",
            )
        if form.royal:
            # The crowned King: Fairy-Stockfish's King type, moving as the form moves.
            betza = "" if _normal(moves) == _normal(fsf_moves("K")[0]) else fsf_betza_for(moves)
            if betza is None:
                refuse(f"pieces.{form.id}", "a movement Fairy-Stockfish's Betza cannot say")
            letter = next(c for c in "k" + form.name.lower() + ASCII_LETTERS if c not in taken)
            used.add("king")
            slots[form.id] = "king"
            keys["king"] = letter + (f":{betza}" if betza else "")
            taken.add(letter)
        elif same:
            letter = letter_of[same[0]]
        elif _normal(moves) in own_types:
            letter = own_types[_normal(moves)]
        else:
            slot, betza = _free_slot(moves, used, customs)
            if slot is None or betza is None:
                refuse(f"pieces.{form.id}", "a promoted form Fairy-Stockfish cannot say")
            assert slot is not None
            choices = PROMOTED_LETTERS.get(slot, "") + form.name.lower() + ASCII_LETTERS
            letter = next(c for c in choices if c.isalpha() and c not in taken)
            used.add(slot)
            slots[form.id] = slot
            keys[slot] = letter + (f":{betza}" if betza else "")
            taken.add(letter)
            own_types[_normal(moves)] = letter
        letter_of[form.id] = "+" + letter_of[p.id]
        pairs.append(f"{letter_of[p.id]}:{letter}")
    region = variant.region(next(iter(zones)))
    keys["promotionRegionWhite"] = _bitboard_text(variant, region.of(0))
    keys["promotionRegionBlack"] = _bitboard_text(variant, region.of(1))
    keys["promotionPawnTypes"] = "-"
    keys["promotedPieceType"] = " ".join(pairs)
    mandatory, on_capture = next(iter(flags))
    if mandatory:
        keys["mandatoryPiecePromotion"] = "true"
    if on_capture:
        keys["piecePromotionOnCapture"] = "true"


def _export_crowning(variant: Variant, refuse: Callable[[str, str], NoReturn]) -> None:
    """A royal piece that promotes into a royal form is written as Fairy-Stockfish's
    Forward chess writes its King: the piece as a type of its own, pseudo-royal as the
    last piece of an extinction of it and the King type, which `promotedPieceType` makes
    of it. Rules that Fairy-Stockfish applies to the King type alone, or that need the
    extinction for something else, are refused."""
    others = {
        "rules.extinction": variant.extinction is not None,
        "castling": bool(variant.castles),
        "rules.no-checks": variant.no_checks,
        "rules.check-count": bool(variant.check_count),
        "rules.blast": variant.blast is not None,
        "rules.flying-general": variant.flying_general or variant.bikjang,
        "rules.bare-king": variant.bare_king or variant.bare_king_draw or variant.bare_king_win,
        "rules.goal-zone": variant.zone is not None,
        "drops": variant.drops,
    }
    for key, present in others.items():
        if present:
            refuse(
                key,
                f"{key.split('.')[-1]} beside a royal piece that promotes into a royal one "
                "(Fairy-Stockfish writes that piece as a pseudo-royal type)",
            )
    for p in variant.pieces:
        if p.royal and p.demotes_to is not None:
            origin = variant.piece(p.demotes_to)
            if not origin.royal or origin.promotion is None or origin.promotion.to != (p.id,):
                refuse(f"pieces.{p.id}", "a royal promoted form of a piece that is not royal")


def _bitboard_text(variant: Variant, squares: Iterable[int]) -> str:
    """Squares as a Fairy-Stockfish Bitboard option: `*N` for each whole rank, names for the
    rest, `-` for none."""
    geo = variant.geometry
    chosen = set(squares)
    out = []
    for rank in range(geo.ranks):
        row = {geo.index(f, rank) for f in range(geo.files)}
        if row <= chosen:
            out.append(f"*{rank + 1}")
            chosen -= row
    out += [geo.name(sq) for sq in sorted(chosen)]
    return " ".join(out) or "-"


def _free_slot(
    moves: frozenset[Move], used: set[str], customs: Iterator[str]
) -> tuple[str | None, str | None]:
    """The section's slot for a piece with `moves`: the first unused predefined piece that
    moves the same, else the next custom slot (None when none is left) with its Betza (None
    when Fairy-Stockfish's Betza cannot say it)."""
    for cand, text in PREDEFINED:
        if cand in used or cand in SPECIAL_PIECES or cand == "pawn" or bool(text) != bool(moves):
            continue  # (the one without a Betza text is the immobile piece: no moves)
        if cand == "janggiCannon":
            continue  # pR that never hops over or takes another one: only for that piece
        if _normal(fsf_moves(text)[0]) == _normal(moves):
            return cand, ""
    return next(customs, None), fsf_betza_for(moves)


def _export_step_rows(
    stepped: tuple[Component, ...],
    ranks: int,
    keys: dict[str, str],
    refuse: Callable[[str, str], NoReturn],
) -> None:
    """The Pawn's double and triple steps from rows as `doubleStepRegion*` and
    `tripleStepRegion*` (whole ranks: a region holds for a Pawn moved or not)."""
    rows: dict[int, set[int]] = {2: set(), 3: set()}
    for c in stepped:
        (_, length), *_ = c.vectors
        if length not in rows:
            refuse("pieces.pawn", f"a {length}-square step: Fairy-Stockfish's Pawn has none")
        rows[length] |= {r + 1 for r in c.rows}
    for length, name in ((2, "double"), (3, "triple")):
        if rows[length]:
            keys[f"{name}StepRegionWhite"] = " ".join(f"*{r}" for r in sorted(rows[length]))
            keys[f"{name}StepRegionBlack"] = " ".join(
                f"*{ranks + 1 - r}" for r in sorted(rows[length])
            )
    if not rows[2]:
        keys["doubleStep"] = "false"


def _soldier_rank(variant: Variant, p: PieceType) -> int | None:
    """The soldierPromotionRank that makes Fairy-Stockfish's soldier move as `p`: a forward
    step everywhere and a sideways step on the ranks from that one on (each side's own
    count); None when `p` moves otherwise."""
    if _normal(our_moves(p.components) or frozenset()) != _normal(fsf_moves("fW")[0]):
        return None
    if len(p.region_moves) != 1:
        return None
    extra = p.region_moves[0]
    if _normal(our_moves(extra.components) or frozenset()) != _normal(fsf_moves("sW")[0]):
        return None
    geo = variant.geometry
    region = variant.region(extra.region)
    rows = {geo.row(sq, 0) for sq in region.of(0)}
    if not rows:
        return None
    rank = min(rows)
    for color in (0, 1):
        whole = {sq for sq in range(geo.size) if geo.row(sq, color) >= rank}
        if region.of(color) != whole:
            return None
    return rank if rank > 1 else None


def _counting_table_of(counting: Counting) -> dict[str, object]:
    """A variant's counting rule in the form `_counting_table` writes."""
    table: dict[str, object] = {"style": counting.style, "pawns": sorted(counting.pawns)}
    if counting.board:
        table["board"] = counting.board
    table["pieces"] = [
        {"piece": line.piece, "count": line.count, "moves": line.moves} for line in counting.pieces
    ]
    table["otherwise"] = counting.otherwise
    return table


def _export_diagonal_lines(
    variant: Variant,
    diagonal: list[PieceType],
    slots: dict[str, str],
    keys: dict[str, str],
    refuse: Callable[[str, str], NoReturn],
) -> str:
    """Region moves on one region that are the moves Fairy-Stockfish's piece types add on
    its diagonalLines (Janggi's palace lines), for every piece of those types: the
    diagonalLines option. A royal piece moving as a Wazir there needs the King of
    Fairy-Stockfish's janggi: the section then inherits from it (the parent's name is
    returned, "" for none) and resets every option and piece that game sets."""
    if not diagonal:
        return ""
    names = {rm.region for p in diagonal for rm in p.region_moves}
    region = variant.region(next(iter(names)))
    if len(names) > 1 or region.of(0) != region.of(1):
        refuse("regions", "region moves on more than one region, or on lines not the same for both")
    parent = ""
    for p in variant.pieces:
        if p.demotes_to is not None:
            continue
        slot = slots[p.id]
        kind = slot
        if slot == "king" and _normal(our_moves(p.components) or frozenset()) == _normal(
            fsf_moves("W")[0]
        ):
            kind = "wazir"
        wanted = DIAGONAL_MOVES.get(kind)
        got = [] if p not in diagonal else list(p.region_moves)
        if not got and (wanted is None or slot == "king"):
            continue  # (a King given a Betza text has no moves on the lines)
        if (
            wanted is None
            or len(got) != 1
            or _normal(our_moves(got[0].components) or frozenset()) != _normal(fsf_moves(wanted)[0])
        ):
            refuse(
                f"pieces.{p.id}.region-moves",
                "region moves other than those Fairy-Stockfish's pieces have on Janggi's "
                "palace lines (diagonalLines), or a piece of such a type without them",
            )
        if slot == "king":
            parent = WAZIR_KING_GAME
            if keys["king"].split(":")[0] != "k":
                refuse(
                    f"pieces.{p.id}",
                    "a royal piece on Janggi's palace lines with a letter other than k: "
                    "only Fairy-Stockfish's janggi King moves so, and naming it again makes "
                    "it a King that moves as a King",
                )
            del keys["king"]  # the parent's King, which moves as its Wazir
    keys["diagonalLines"] = _bitboard_text(variant, region.of(0))
    if parent:
        # what the parent sets that the section does not write otherwise
        for slot in ("rook", "horse", "soldier", "wazir", "janggiCannon", "janggiElephant"):
            keys.setdefault(slot, "-")
        for option in ("pass", "bikjangRule", "flyingGeneral", "perpetualCheckIllegal"):
            keys.setdefault(option, "false")
        keys.setdefault("materialCounting", "none")
        keys.setdefault("chasingRule", "none")
        keys.setdefault("soldierPromotionRank", "1")
        every = range(variant.geometry.size)
        for p in variant.pieces:
            slot = slots.get(p.id, "")
            if p.region is None and slot in ("king", "wazir", "fers", "elephant"):
                # the parent confines these types to the palace or a half
                cap = slot[0].upper() + slot[1:]
                for side in ("White", "Black"):
                    keys[f"mobilityRegion{side}{cap}"] = _bitboard_text(variant, every)
    return parent


CAMBODIAN_LEAP = "mfsN"
"""The unmoved King's leap of Fairy-Stockfish's cambodianMoves (its Met jumps mfD)."""


def _cambodian_pieces(variant: Variant, refuse: Callable[[str, str], NoReturn]) -> set[str]:
    """The pieces whose first moves are Fairy-Stockfish's cambodianMoves: a royal piece
    whose first leaps are mfsN and the pieces (its Fers) whose only first move is the
    jump imfD; empty when the game has no such King."""
    kings = [p for p in variant.pieces if p.initial_leap is not None]
    if not kings:
        return set()
    king = kings[0]
    leap = our_moves(king.first_leaps) or frozenset()
    if (
        len(kings) > 1
        or not king.royal
        or king.initial_leap != "moves"
        or _normal(leap) != _normal(fsf_moves(CAMBODIAN_LEAP)[0])
    ):
        refuse(f"pieces.{king.id}.initial-leap", "first leaps other than Cambodian's King's")
    jump = _normal(frozenset({("leap", True, False, (0, 2), 0)}))
    out = {king.id}
    for p in variant.pieces:
        moves = our_moves(p.components) or frozenset()
        first = frozenset(m for m in moves if m[1])
        if first and _normal(first) == jump and not p.royal:
            out.add(p.id)
    return out


def _export_gates(
    variant: Variant,
    gated: set[str],
    slots: Mapping[str, str],
    keys: dict[str, str],
    refuse: Callable[[str, str], NoReturn],
) -> str:
    """Cambodian's first moves as Fairy-Stockfish's gating: the King's leap and the Fers'
    jump from their squares of the first rank, listed by file in the castling field."""
    geo = variant.geometry
    king = next(pid for pid in gated if variant.piece(pid).royal)
    takers = variant.piece(king).first_leap_lost_by
    if variant.castling or takers != {pid for pid, s in slots.items() if s == "rook"}:
        refuse(
            f"pieces.{king}.initial-leap",
            "Cambodian's first moves beside castling, or lost to checks by other pieces than "
            "the Rooks",
        )
    if any(slots[pid] not in ("king", "fers") for pid in gated):
        refuse("pieces", "first jumps of a piece other than the Fers (cambodianMoves)")
    files = []
    for color in (0, 1):
        row = []
        for sq, pid in variant.army(color):
            if pid in gated:
                if geo.row(sq, color) != 1:
                    refuse(f"pieces.{pid}", "Cambodian's first moves from off the first rank")
                row.append(FILE_LETTERS[geo.file_of(sq)])
        text = "".join(sorted(row))
        files.append(text.upper() if color == 0 else text)
    keys["gating"] = "true"
    keys["cambodianMoves"] = "true"
    return "".join(files)


def _immobile_rows_are(variant: Variant, promoting: list[PieceType], rows: frozenset[int]) -> bool:
    """Whether Fairy-Stockfish's immobilityIllegal makes promotion compulsory on exactly
    `rows` (the rows where the promoting pieces could never move again) and changes nothing
    else (every other piece can move from every square)."""
    geo = variant.geometry
    if variant.immobility_illegal:
        return False
    for p in variant.pieces:
        vectors = {c_v for c in p.components for c_v in c.vectors}
        stuck = set()
        for sq in range(geo.size):
            x, y = geo.file_of(sq), sq // geo.files
            if not any(0 <= x + vx < geo.files and 0 <= y + vy < geo.ranks for vx, vy in vectors):
                stuck.add(geo.row(sq, 0))
        if p in promoting:
            if stuck != set(rows):
                return False
        elif stuck:
            return False
    return True


def _export_castling(
    variant: Variant,
    letter_of: Mapping[str, str],
    keys: dict[str, str],
    refuse: Callable[[str, str], NoReturn],
) -> str:
    geo = variant.geometry
    if not variant.castling:
        keys["castling"] = "false"
        return ""
    king_files = {geo.file_of(c.king_from) for c in variant.castling}
    ranks_ = {
        geo.row(sq, 0)
        for c in variant.castling
        for sq in (c.king_from, c.king_to, c.rook_from, c.rook_to)
    }
    if len(king_files) != 1 or len(ranks_) != 1 or len(variant.castling) > 2:
        refuse("castling", "castling moves Fairy-Stockfish's options cannot place")
    king_file = next(iter(king_files))
    rights = ""
    for c in variant.castling:
        kf, kt = geo.file_of(c.king_from), geo.file_of(c.king_to)
        rf, rt = geo.file_of(c.rook_from), geo.file_of(c.rook_to)
        kingside = rf > kf
        if rt != (kt - 1 if kingside else kt + 1):
            refuse("castling", "a Rook that does not land beside the King")
        side = "Kingside" if kingside else "Queenside"
        if f"castling{side}File" in keys:
            refuse("castling", "two castling moves to one wing")
        keys[f"castling{side}File"] = FILE_LETTERS[kt]
        keys[f"castlingRook{side}File"] = FILE_LETTERS[rf]
        rights += "K" if kingside else "Q"
        for color in sorted(c.wins):
            wins = keys.get("castlingWins", "") + ("K" if kingside else "Q")
            keys["castlingWins"] = wins if color == 0 else wins[:-1] + wins[-1].lower()
    keys["castlingRank"] = str(next(iter(ranks_)))
    keys["castlingKingFile"] = FILE_LETTERS[king_file]
    # The pieces of the first side that castles (`sides = ["black"]`: Black's, mirrored);
    # the start position's rights name only the sides that castle (Fairy-Stockfish's rights
    # are only ever lost, so the rule holds for the whole game).
    color = variant.castling_sides[0]
    at = {sq if color == 0 else geo.mirror(sq): pid for sq, pid in variant.army(color)}
    kings = {at.get(c.king_from) for c in variant.castling}
    rooks = {at.get(c.rook_from) for c in variant.castling}
    if None in kings or None in rooks or len(kings) != 1:
        refuse("castling", "castling without its pieces on their squares")
    keys["castlingKingPiece"] = letter_of[str(next(iter(kings)))]
    keys["castlingRookPieces"] = "".join(sorted(letter_of[str(r)] for r in rooks))
    white = "".join(sorted(rights)) if 0 in variant.castling_sides else ""
    black = "".join(sorted(rights)).lower() if 1 in variant.castling_sides else ""
    return white + black


def _export_fen(variant: Variant, letter_of: Mapping[str, str], castling: str) -> str:
    geo = variant.geometry
    board: dict[int, str] = {}
    for color in (0, 1):
        for sq, pid in variant.army(color):
            letter = letter_of[pid]
            board[sq] = letter.upper() if color == 0 else letter.lower()
    for sq in variant.walls:
        board[sq] = "*"
    rows = []
    for rank in range(geo.ranks - 1, -1, -1):
        row, empty = "", 0
        for f in range(geo.files):
            sq = geo.index(f, rank)
            if sq in board:
                row += (str(empty) if empty else "") + board[sq]
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    pocket = "[]" if variant.captures_to_hand else ""
    side = "wb"[variant.first]
    return f"{'/'.join(rows)}{pocket} {side} {castling or '-'} - 0 1"


def _export_drops(
    variant: Variant,
    letter_of: Mapping[str, str],
    slots: Mapping[str, str],
    keys: dict[str, str],
    refuse: Callable[[str, str], NoReturn],
) -> None:
    geo = variant.geometry
    if variant.drop_region is not None:
        region = variant.region(variant.drop_region)
        keys["dropRegionWhite"] = _bitboard_text(variant, region.of(0))
        keys["dropRegionBlack"] = _bitboard_text(variant, region.of(1))
    promo_rows: set[int] = set()
    for p in variant.pieces:
        if p.promotion is not None:
            promo_rows = set(p.promotion.compulsory_rows | p.promotion.optional_rows)
    nodouble = [p for p in variant.pieces if p.drop_one_per_file]
    if len(nodouble) > 1:
        refuse("pieces", "more than one piece with drop-one-per-file")
    if nodouble:
        keys["dropNoDoubled"] = letter_of[nodouble[0].id]
    for p in variant.pieces:
        if p.demotes_to is not None:
            continue  # a promoted form is never in hand
        rows = set(p.no_drop_rows)
        if slots[p.id] == "pawn":
            first = 1 not in rows
            zone = not (promo_rows <= rows) or not promo_rows
            if rows - {1} - promo_rows:
                refuse(
                    f"pieces.{p.id}.no-drop-rows",
                    "rows other than the first and the promotion rows",
                )
            keys["firstRankPawnDrops"] = "true" if first else "false"
            keys["promotionZonePawnDrops"] = "true" if zone and promo_rows else "false"
        elif rows and rows != set(range(1, geo.ranks + 1)):
            refuse(f"pieces.{p.id}.no-drop-rows", "drop rows for a piece other than the Pawn")
        elif rows:
            if p.drop_one_per_file or nodouble:
                refuse(f"pieces.{p.id}.no-drop-rows", "a piece never dropped beside nifu")
            keys["dropNoDoubled"] = letter_of[p.id]
            keys["dropNoDoubledCount"] = "0"
        if p.drop_mate == "loss":
            if slots[p.id] != "shogiPawn":
                refuse(
                    f"pieces.{p.id}.drop-mate",
                    "a drop mate rule for a piece other than Shogi's Pawn",
                )
            keys["shogiPawnDropMateIllegal"] = "true"
        elif p.drop_mate != "legal":
            refuse(f"pieces.{p.id}.drop-mate", "drop mates that are illegal")


def _export_zone(
    variant: Variant,
    zone: Zone,
    royal: list[PieceType],
    letter_of: Mapping[str, str],
    keys: dict[str, str],
    refuse: Callable[[str, str], NoReturn],
) -> None:
    """flagPiece, flagRegion and the flag options of a goal zone."""
    king = royal[0].id if royal else None
    if zone.reply and zone.pieces != (king, king):
        refuse("rules.goal-zone", "a goal-zone reply for a piece other than the King")
    if zone.hold and king in zone.pieces:
        refuse("rules.goal-zone", "a goal-zone hold for the King (its flag move is a reply)")
    if zone.hold and ANY_PIECE in zone.pieces and king is not None:
        refuse("rules.goal-zone", "a goal-zone hold for any piece beside a King")
    if zone.reply or zone.hold:
        keys["flagMove"] = "true"
    if zone.safe:
        keys["flagPieceSafe"] = "true"
    if zone.count > 1:
        keys["flagPieceCount"] = str(zone.count)
        if zone.full:
            keys["flagPieceBlockedWin"] = "true"
    letters = ["*" if pid == ANY_PIECE else letter_of[pid] for pid in zone.pieces]
    if letters[0] == letters[1]:
        keys["flagPiece"] = letters[0]
    else:
        keys["flagPieceWhite"], keys["flagPieceBlack"] = letters
    geo = variant.geometry
    keys["flagRegionWhite"] = " ".join(geo.name(sq) for sq in sorted(zone.squares[0]))
    keys["flagRegionBlack"] = " ".join(geo.name(sq) for sq in sorted(zone.squares[1]))
