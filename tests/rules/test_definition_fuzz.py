"""Fuzzing the loader of players' definitions: random and mutated TOML, deeply nested
tables, long dotted keys and huge numbers. Whatever the text, `load_definition` answers
with a valid variant or a `RulesError` (a `VariantError` naming the key, or an unknown
option), never another exception; a variant it accepts is within the bounds of
`rules.limits`, and its start position lists legal moves. Speed is not asserted here (no
timing in tests): the bounds are what keeps the work small, and `benchmarks/` measures it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import limits
from rules.errors import RulesError
from rules.position import Position
from rules.variant import Variant, load_definition

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "docs" / "examples").glob("*.toml"))
SEEDS = [p.read_text(encoding="utf-8") for p in EXAMPLES]

KEYS = [
    "id", "name", "description", "extends", "files", "ranks", "pieces", "setup", "rules",
    "castling", "reserve", "options", "letter", "betza", "pawn-moves", "bent", "paths",
    "ride-paths", "royal", "promotion", "to", "compulsory-rows", "optional-rows", "limit",
    "double-step", "flip", "family", "no-drop-rows", "stalemate", "goal", "goal-zone",
    "bare-king", "captures-to-hand", "demote-to-hand", "move-rule", "style", "moves", "king",
    "rook", "king-to", "rook-to", "set", "1", "2", "8", "16", "king", "queen", "pawn", "hawk",
]  # fmt: skip
TOKENS = [
    "[", "]", "{", "}", "=", ",", '"', "'", ".", "\n", " ", "#", "[[", "]]", '"""',
    "99999999999999999999999", "-1", "0", "17", "1e999", "nan", "inf", "true", "false",
    '"K"', '"BN"', '"R99"', '"(15,15)"', '"pR"', '"ipR"', '"chess"', '"../x"', "1979-05-27",
    *KEYS,
]  # fmt: skip
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def answer(text: str) -> Variant | None:
    """The loader's answer: a variant, or None for a refusal; anything else fails."""
    try:
        variant = load_definition(text)
    except RulesError as exc:
        assert str(exc)  # a message for the author, never empty
        return None
    assert len(variant.pieces) <= limits.MAX_PIECE_TYPES
    entries = limits.table_entries(
        ((p.components, p.once_per_game) for p in variant.pieces), variant.geometry.size
    )
    assert entries <= limits.MAX_TABLE_ENTRIES
    Position.start(variant).pseudo_codes()
    return variant


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A real definition with random edits: characters replaced, slices deleted or
    repeated, tokens inserted."""
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.integers(0, 3))
        if kind == 0:
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif kind == 1:
            end = draw(st.integers(at, min(len(text), at + 40)))
            text = text[:at] + text[end:]
        elif kind == 2:
            end = draw(st.integers(at, min(len(text), at + 80)))
            text = text[:end] + text[at:end] * draw(st.integers(1, 30)) + text[end:]
        else:
            text = text[:at] + draw(st.characters()) + text[at + 1 :]
    return text


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f'"{k}" = {toml_value(v)}' for k, v in value.items()) + "}"


SCALARS = (
    st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.integers(-3, 20)
    | st.sampled_from(["K", "BN", "fmW fcF", "R4", "(1,3)", "chess", "loss", "in-hand", "e1"])
    | st.text(max_size=30)
    | st.text(min_size=1900, max_size=2100, alphabet="ab")
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)
    ),
    max_leaves=40,
)


@st.composite
def structured(draw: st.DrawFn) -> str:
    """Random tables over the format's own keys, so the checks behind the first one run."""
    top = draw(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=12))
    top.setdefault("id", draw(st.sampled_from(["mine", "chess", "Mine", "x" * 40])))
    top.setdefault("name", "Mine")
    if draw(st.booleans()):
        top["extends"] = draw(st.sampled_from(["chess", "grand", "patricia", "florea", "nope"]))
    return "\n".join(f'"{k}" = {toml_value(v)}' for k, v in top.items())


@st.composite
def hostile(draw: st.DrawFn) -> str:
    """What an attacker sends: deep nesting, long dotted keys, huge numbers, many keys."""
    n = draw(st.integers(1, 20_000))
    return draw(
        st.sampled_from(
            [
                "a = " + "[" * n + "]" * n,
                "a = " + "{b=" * n + "1" + "}" * n,
                "a" + ".a" * n + " = 1",
                "[" + "a." * n + "b]\nc = 1",
                "files = " + "9" * min(n, 30_000),
                "\n".join(f"k{i} = {i}" for i in range(min(n, 4000))),
                'betza = "' + "W" * n + '"',
                "x = [" + "1," * min(n, 15_000) + "]",
            ]
        )
    )


@FUZZ
@given(mutated())
def test_mutated_definitions_get_an_answer(text: str) -> None:
    answer(text)


@FUZZ
@given(structured())
def test_random_tables_get_an_answer(text: str) -> None:
    answer(text)


@settings(max_examples=60, deadline=None)
@given(hostile())
def test_hostile_texts_are_refused(text: str) -> None:
    assert answer(text) is None


def test_the_unmutated_examples_are_accepted() -> None:
    assert all(answer(text) is not None for text in SEEDS)
