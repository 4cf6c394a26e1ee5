"""Random starting arrays (`[setup.random]`, Chess960 and Capablanca Random): which arrays
of one rank's pieces are valid, how one is drawn uniformly, and how a drawn array is pinned
to a game as the option `setup-<letters>` (so replaying the game's variant, options and
moves gives it back). Works on the raw definition table, before the variant is built."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rules.errors import VariantError

if TYPE_CHECKING:
    from rules.variant import Variant

OPTION_PREFIX = "setup-"
MAX_SHUFFLES = 20_000
"""A draw gives up after this many invalid shuffles (Capablanca Random needs about 10 a
draw) and takes the array found when the variant was loaded: a player's rules cannot make
it loop, and rules no array keeps are refused."""


@dataclass(frozen=True, slots=True)
class RandomSetup:
    """`[setup.random]`: the pieces of White's `rank` are shuffled (Black mirrors them);
    each `opposite-colours` pair stands on squares of different colours, and the `between`
    piece stands between the two pieces of the other type (the King between the Rooks)."""

    rank: int
    opposite_colours: tuple[tuple[str, str], ...] = ()
    between: tuple[str, str] | None = None


def parse_random(data: Mapping[str, Any], source: str) -> RandomSetup | None:
    setup = data.get("setup")
    raw = setup.get("random") if isinstance(setup, dict) else None
    if raw is None or raw is False:
        return None
    if not isinstance(raw, dict) or set(raw) - {"rank", "opposite-colours", "between"}:
        raise VariantError(source, "setup.random", "a table of rank, opposite-colours and between")
    rank = raw.get("rank", 1)
    if not isinstance(rank, int) or isinstance(rank, bool) or rank < 1:
        raise VariantError(source, "setup.random.rank", "must be a rank number")
    pairs = raw.get("opposite-colours", [])
    if not isinstance(pairs, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs
    ):
        raise VariantError(
            source, "setup.random.opposite-colours", 'pairs of piece letters: [["B", "B"]]'
        )
    between = raw.get("between")
    if between is not None and not (
        isinstance(between, list) and len(between) == 2 and all(isinstance(x, str) for x in between)
    ):
        raise VariantError(source, "setup.random.between", 'two piece letters: ["K", "R"]')
    return RandomSetup(
        rank,
        tuple((a, b) for a, b in pairs),
        (between[0], between[1]) if between else None,
    )


def _row(data: Mapping[str, Any], spec: RandomSetup, source: str) -> list[str]:
    row = data.get("setup", {}).get(str(spec.rank))
    if not isinstance(row, str) or "." in row.split():
        raise VariantError(source, f"setup.{spec.rank}", "the shuffled rank must be full of pieces")
    return row.split()


def valid(spec: RandomSetup, tokens: Sequence[str]) -> bool:
    """Whether an array of piece letters keeps the rules of `spec`."""
    for a, b in spec.opposite_colours:
        where_a = [i for i, t in enumerate(tokens) if t == a]
        where_b = [i for i, t in enumerate(tokens) if t == b]
        if a == b:
            if len(where_a) != 2 or where_a[0] % 2 == where_a[1] % 2:
                return False
        elif len(where_a) != 1 or len(where_b) != 1 or where_a[0] % 2 == where_b[0] % 2:
            return False
    if spec.between is not None:
        inner, outer = spec.between
        at = [i for i, t in enumerate(tokens) if t == inner]
        ends = [i for i, t in enumerate(tokens) if t == outer]
        if len(at) != 1 or len(ends) < 2 or not ends[0] < at[0] < ends[-1]:
            return False
    return True


def arrays(spec: RandomSetup, tokens: Sequence[str]) -> Iterator[tuple[str, ...]]:
    """Every distinct valid array of these pieces (960 for chess's), in sorted order."""

    def place(left: dict[str, int], acc: list[str]) -> Iterator[tuple[str, ...]]:
        if len(acc) == len(tokens):
            if valid(spec, acc):
                yield tuple(acc)
            return
        for t in sorted(left):
            if left[t]:
                left[t] -= 1
                acc.append(t)
                yield from place(left, acc)
                acc.pop()
                left[t] += 1

    counts: dict[str, int] = {}
    for t in tokens:
        counts[t] = counts.get(t, 0) + 1
    yield from place(counts, [])


def draw(spec: RandomSetup, tokens: Sequence[str], rng: random.Random) -> tuple[str, ...]:
    """A valid array, each one equally likely: a uniform shuffle gives every distinct array
    the same chance, and rejecting the invalid ones keeps it so among the valid ones."""
    pool = list(tokens)
    for _ in range(MAX_SHUFFLES):
        rng.shuffle(pool)
        if valid(spec, pool):
            return tuple(pool)
    found = example(spec, tuple(tokens))  # rules almost nothing keeps (a player's file)
    assert found is not None  # checked when the variant was loaded
    return found


@lru_cache(maxsize=256)
def example(spec: RandomSetup, tokens: tuple[str, ...]) -> tuple[str, ...] | None:
    """One valid array, found the way a draw finds one (with a fixed seed), or None when
    none turned up: the variant is refused, so a draw never fails."""
    if valid(spec, tokens):
        return tokens
    pool = list(tokens)
    rng = random.Random(0)
    for _ in range(MAX_SHUFFLES):
        rng.shuffle(pool)
        if valid(spec, pool):
            return tuple(pool)
    return None


def option_for(array: Sequence[str]) -> str:
    return OPTION_PREFIX + "".join(array).lower()


def split_options(options: frozenset[str]) -> tuple[frozenset[str], str | None]:
    """The named options and the pinned array's option, if any."""
    pinned = [o for o in options if o.startswith(OPTION_PREFIX)]
    return frozenset(options) - set(pinned), pinned[0] if pinned else None


def pin(
    data: dict[str, Any], source: str, option: str | None
) -> tuple[dict[str, Any], RandomSetup | None]:
    """`data` with `[setup.random]` taken out and, when `option` pins an array, that array
    on its rank and the castling moves moved with it: each move's King starts on the
    King's new square and its Rook is the outermost one on the same side as before, the
    squares they end on staying (Chess960's castling)."""
    spec = parse_random(data, source)
    if spec is None:
        if option is not None:
            raise VariantError(source, "options", f"{option!r}: this variant has no random setup")
        return data, None
    data = copy.deepcopy(data)
    del data["setup"]["random"]
    tokens = _row(data, spec, source)
    named = {*(x for pair in spec.opposite_colours for x in pair), *(spec.between or ())}
    missing = sorted(named - set(tokens))
    if missing:
        raise VariantError(
            source, "setup.random", f"{missing[0]!r} is not a piece of rank {spec.rank}"
        )
    if example(spec, tuple(tokens)) is None:
        raise VariantError(
            source,
            "setup.random",
            f"no array found that keeps these rules ({MAX_SHUFFLES:,} tried)",
        )
    if option is None:
        return data, spec
    letters = option[len(OPTION_PREFIX) :]
    by_lower = {t.lower(): t for t in tokens}
    if not re.fullmatch(r"[a-z+]+", letters):
        raise VariantError(source, "options", f"{option!r} is not an array of piece letters")
    array = [by_lower.get(ch, "?") for ch in letters]
    if sorted(array) != sorted(tokens) or not valid(spec, array):
        raise VariantError(
            source, "options", f"{option!r} is not a valid array of {' '.join(tokens)}"
        )
    data["setup"][str(spec.rank)] = " ".join(array)
    castling = data.get("castling")
    if isinstance(castling, dict) and isinstance(castling.get("moves"), list):
        files = "abcdefghijklmnop"
        moves = []
        for mv in castling["moves"]:
            if mv["king"][1:] != str(spec.rank) or mv["rook"][1:] != str(spec.rank):
                moves.append(mv)  # castling on another rank than the shuffled one
                continue
            king_file = files.index(mv["king"][0])
            rook_file = files.index(mv["rook"][0])
            old_king = tokens[king_file]
            old_rook = tokens[rook_file]
            new_king = array.index(old_king)
            rooks = [i for i, t in enumerate(array) if t == old_rook]
            new_rook = rooks[-1] if rook_file > king_file else rooks[0]
            rank = mv["king"][1:]
            moves.append(
                {
                    **mv,
                    "king": f"{files[new_king]}{rank}",
                    "rook": f"{files[new_rook]}{rank}",
                }
            )
        data["castling"] = {**castling, "moves": moves}
    return data, spec


def rank_tokens(variant: Variant) -> list[str]:
    """The letters of the pieces on the variant's shuffled rank, file by file."""
    spec = variant.random_setup
    assert spec is not None
    files = variant.geometry.files
    row = sorted(
        (sq, variant.piece(pid).letters or "P")
        for sq, pid in variant.setup
        if sq // files == spec.rank - 1
    )
    return [letter for _, letter in row]


def draw_option(variant: Variant, rng: random.Random) -> str | None:
    """The option pinning a freshly drawn array, for a variant with a random setup whose
    array is not pinned yet (None otherwise)."""
    if variant.random_setup is None or pinned_array(variant) is not None:
        return None
    return option_for(draw(variant.random_setup, rank_tokens(variant), rng))


def pinned_array(variant: Variant) -> str | None:
    """The pinned array's letters (`BQNBRKRN`), if the variant's options pin one."""
    for option in sorted(variant.options):
        if option.startswith(OPTION_PREFIX):
            return " ".join(rank_tokens(variant)).replace(" ", "")
    return None
