"""What a player's variant file costs the bot at worst: reading and validating it (the static
checks and the sanity run of `/variant define`) and the memory of its move tables, for the
largest real game written as a player's file and for files crafted to be as expensive as the
bounds of `rules.limits` allow. The numbers go to the README's closing notes of issue 16;
nothing here is a goal, only a measurement (CPU time on this machine, median of repeats)."""

from __future__ import annotations

import itertools
import tracemalloc

from benchmarks.common import Row, median_seconds, ms
from rules import limits
from rules.errors import VariantError
from rules.sanity import sanity_check
from rules.tables import build_tables
from rules.variant import Variant, load_definition

SECTION = "variants: untrusted files"
_LETTERS = [a + b for a in "ABCDEFGHIJLMNOQRSTUVWXYZ" for b in "ABCDEFGHIJLMNOQRSTUVWXYZ" if a != b]


def crafted(name: str, movements: list[str], *, size: int = 16, rows: int = 4) -> str:
    """A file of `len(movements)` piece types (Betza, or `bent:F>orthogonal`, or `paths`:
    Savard's circular rides) filling `rows` ranks of a `size` board."""
    lines = [f'id = "{name}"', f'name = "{name}"', f"files = {size}", f"ranks = {size}"]
    lines += ["[pieces]", 'king = "K"']
    for i, move in enumerate(movements):
        if move.startswith("bent:"):
            first, then = move[5:].split(">")
            body = f'bent = [{{ first = "{first}", then = "{then}" }}]'
        elif move == "paths":
            body = (
                'ride-paths = ["(0,1) (1,2) (2,2) (3,1) (3,0) (2,-1) (1,-1)", '
                '"(1,1) (2,1) (3,0) (3,-1) (2,-2) (1,-2) (0,-1)"]'
            )
        else:
            body = f'betza = "{move}"'
        lines.append(f'p{i} = {{ letter = "{_LETTERS[i]}", {body} }}')
    lines.append("[setup]")
    letters = itertools.cycle(_LETTERS[: len(movements)])
    for rank in range(1, rows + 1):
        row = [next(letters) for _ in range(size)]
        if rank == 1:
            row[size // 2] = "K"
        lines.append(f'{rank} = "{" ".join(row)}"')
    return "\n".join(lines) + "\n"


BIGORRA = 'Bigorra as a player\'s file (extends = "bigorra")'
CASES = {
    BIGORRA: 'id = "big"\nname = "Big"\nextends = "bigorra"\n',
    "crafted: 24 types of bent and path riders, hoppers and Kings, 10x10, 4 ranks": crafted(
        "mix", ["bent:F>orthogonal", "paths", "pQ", "K"] * 6, size=10
    ),
    "crafted: 20 hopper types on 16x16 (refused by the sanity budget)": crafted(
        "hop", ["pQ", "pR", "pB", "pNN"] * 5
    ),
    "crafted: 38 types of 72 leaps each on 16x16 (refused by the sanity budget)": crafted(
        "leap", ["(1,2)(1,3)(1,4)(2,3)(2,5)(3,4)(3,5)(1,5)(4,5)"] * 38
    ),
    "crafted: 24 circular riders on 16x16 (refused by the special-table bound)": crafted(
        "paths", ["paths"] * 24
    ),
    "hostile: 32 KB of nested brackets": "a = " + "[" * 16_000 + "]" * 16_000,
    "hostile: a dotted key 10,000 parts long": "a" + ".a" * 10_000 + " = 1",
    "hostile: an integer of 30,000 digits": "files = " + "9" * 30_000,
}


def validate(text: str) -> str:
    """What `/variant define` runs in its worker thread; returns how it ended."""
    try:
        variant = load_definition(text, source="bench.toml")
        report = sanity_check(variant)
    except VariantError as exc:
        return "refused: " + exc.reason.split(";")[0][:70]
    return f"accepted, sanity work {report.work:,}"


def table_memory(variant: Variant) -> tuple[int, float]:
    """Entries and MB of the variant's move tables with every square compiled (what a game
    costs once its pieces have been everywhere)."""
    tracemalloc.start()
    tables = build_tables(variant)
    for code in range(2, (tables.ntypes + 1) * 2):
        for sq in range(tables.geo.size):
            tables.square_moves(code, sq)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    entries = limits.table_entries(
        ((p.components, p.once_per_game) for p in variant.pieces), variant.geometry.size
    )
    return entries, peak / 1e6


def run(quick: bool) -> list[Row]:
    rows = []
    repeats = 1 if quick else 3
    for label, text in CASES.items():
        outcome = validate(text)
        seconds = median_seconds(lambda text=text: _fresh_validate(text), repeats, warmup=0)
        rows.append(Row(SECTION, f"{label}: {outcome}", ms(seconds)))
    for label in (
        "crafted: 38 types of 72 leaps each on 16x16 (refused by the sanity budget)",
        'Bigorra as a player\'s file (extends = "bigorra")',
    ):
        variant = load_definition(CASES[label], source="bench.toml")
        entries, mb = table_memory(variant)
        rows.append(
            Row(
                SECTION,
                f"move tables with every square compiled, {label.split(':')[0]} "
                f"({entries:,} entries; bound {limits.MAX_TABLE_ENTRIES:,})",
                f"{mb:.0f} MB",
            )
        )
    return rows


def _fresh_validate(text: str) -> None:
    """Validation without the loader's cache (each define reads its file anew)."""
    from rules import variant as variant_module

    variant_module._load_definition.cache_clear()
    validate(text)
