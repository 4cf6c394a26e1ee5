"""Square tables learned from a stronger engine's scores, where a variant has them.

The derived tables of `search.values` know a piece's reach and nothing of strategy: that a
Pawn on e4 is worth more than one on a4, that a Rook wants the seventh row, that a King
belongs behind its Pawns. `python -m benchmarks.tune squares` learns, for one variant, the
middle-game and ending worth of every piece on every square from positions of
Fairy-Stockfish's games labelled with its own search's score (Texel tuning with that score
as the target, pulled towards the derived tables where positions are few), and writes them
to `search/learned/<variant>.json`. The evaluation uses them in place of the derived ones
when the file's board, pieces and army are the variant's own; every other variant, and every
variant a player writes, keeps the derived tables. Reading them costs nothing a node: they
are the same per-square tables.

Squares are White's view: a Black piece reads the square its army's symmetry maps to (the
file kept where Black's army mirrors White's, as in chess; the board turned half round
where it is White's turned, as in Shogi or Makruk).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from rules.variant import Variant
from search.weights import WEIGHT_NAMES

FORMAT = 1


@dataclass(frozen=True, slots=True)
class LearnedTables:
    """One variant's learned tables: per piece id, centipawns per White-relative square,
    material included, for the middle game and the ending."""

    variant: str
    board: str  # "8x8"
    army: str  # the White army the tables were learned on, as `army_text` writes it
    mirror: bool
    mg: dict[str, tuple[int, ...]]
    eg: dict[str, tuple[int, ...]]
    source: str  # how they were made: positions, loss before and after
    # The evaluation's term weights fitted with the tables (names of `search.weights.
    # Weights`), in place of the engine's own for this variant; empty: the engine's own.
    weights: dict[str, float] = field(default_factory=dict)


def army_mirrors(variant: Variant) -> bool:
    """Whether Black's initial army is White's mirrored across the middle rank (files
    kept, chess) rather than turned half round (Shogi, Makruk)."""
    geo = variant.geometry
    white = sorted((geo.mirror(sq), pid) for sq, pid in variant.army(0))
    return white == sorted(variant.army(1))


def relative_square(variant: Variant, sq: int, color: int, mirror: bool) -> int:
    """`sq` as White sees it: Black's squares mirrored or turned by the army's symmetry."""
    if color == 0:
        return sq
    geo = variant.geometry
    return geo.mirror(sq) if mirror else geo.size - 1 - sq


def army_text(variant: Variant) -> str:
    """White's initial army, square by square: a learned table is kept only for the army
    it was learned on."""
    geo = variant.geometry
    return " ".join(f"{geo.name(sq)}={pid}" for sq, pid in sorted(variant.army(0)))


def to_json(tables: LearnedTables) -> str:
    """The file's text: one line per piece and phase, so that a diff reads by piece."""
    head: dict[str, object] = {
        "format": FORMAT,
        "variant": tables.variant,
        "board": tables.board,
        "army": tables.army,
        "mirror": tables.mirror,
        "source": tables.source,
    }
    if tables.weights:
        head["weights"] = tables.weights
    lines = [json.dumps(head)[:-1] + ","]
    for phase, table in (("mg", tables.mg), ("eg", tables.eg)):
        rows = [f"    {json.dumps(pid)}: {json.dumps(list(v))}" for pid, v in sorted(table.items())]
        end = "," if phase == "mg" else ""
        lines.append(f'  "{phase}": {{\n' + ",\n".join(rows) + f"\n  }}{end}")
    return "\n".join(lines) + "\n}\n"


def from_json(text: str) -> LearnedTables:
    data = json.loads(text)
    if data.get("format") != FORMAT:
        raise ValueError(f"learned tables of format {data.get('format')!r}, not {FORMAT}")
    return LearnedTables(
        variant=data["variant"],
        board=data["board"],
        army=data["army"],
        mirror=bool(data["mirror"]),
        mg={pid: tuple(int(x) for x in v) for pid, v in data["mg"].items()},
        eg={pid: tuple(int(x) for x in v) for pid, v in data["eg"].items()},
        source=data.get("source", ""),
        weights={name: float(x) for name, x in data.get("weights", {}).items()},
    )


@cache
def _shipped(variant_id: str) -> LearnedTables | None:
    path = resources.files("search").joinpath("learned", f"{variant_id}.json")
    if not path.is_file():
        return None
    return from_json(path.read_text(encoding="utf-8"))


def learned_tables(variant: Variant) -> LearnedTables | None:
    """The shipped learned tables of a built-in `variant`, if it has them and they fit it."""
    if variant.definition or not variant.id.replace("-", "").isalnum():
        return None  # a player's variant: its pieces may move otherwise under a known name
    found = _shipped(variant.id)
    return found if found is not None and fits(found, variant) else None


def fits(found: LearnedTables, variant: Variant) -> bool:
    """Whether `found` was learned on this variant: the same board, White army and
    symmetry, and an entry for every square of each piece it names."""
    geo = variant.geometry
    ids = {p.id for p in variant.pieces}
    return (
        found.variant == variant.id
        and found.board == geo.describe()
        and found.army == army_text(variant)
        and found.mirror == army_mirrors(variant)
        and set(found.mg) == set(found.eg)
        and set(found.mg) <= ids
        and all(len(v) == geo.size for v in (*found.mg.values(), *found.eg.values()))
        and set(found.weights) <= WEIGHT_NAMES
    )
