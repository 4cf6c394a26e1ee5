"""Learned square tables: they apply exactly to the variant they were learned on."""

from __future__ import annotations

from dataclasses import replace
from importlib import resources

import pytest

from rules.position import Position
from rules.variant import load_variant
from search.evaluate import EvalTables
from search.learned import (
    army_mirrors,
    army_text,
    fits,
    from_json,
    learned_tables,
    relative_square,
    to_json,
)
from search.weights import BASELINE, WEIGHTS, with_values

SHIPPED = sorted(
    p.name.removesuffix(".json")
    for p in resources.files("search").joinpath("learned").iterdir()
    if p.name.endswith(".json")
)


def test_some_tables_are_shipped() -> None:
    assert "chess" in SHIPPED


@pytest.mark.parametrize("variant_id", SHIPPED)
def test_every_shipped_table_fits_its_variant(variant_id: str) -> None:
    """A file that no longer fits (an army or board changed) would be ignored in silence:
    learn it again with `python -m benchmarks.tune squares`."""
    variant = load_variant(variant_id)
    found = learned_tables(variant)
    assert found is not None, f"search/learned/{variant_id}.json does not fit {variant_id}"
    et = EvalTables(Position.start(variant_id).t)
    assert et.learned
    code = et.tables.code(next(iter(found.mg)), 0)
    assert et.mg[code] == list(found.mg[et.tables.type_ids[code >> 1]])
    assert found.source  # says how the tables were made


@pytest.mark.parametrize("variant_id", SHIPPED)
def test_the_file_round_trips(variant_id: str) -> None:
    found = learned_tables(load_variant(variant_id))
    assert found is not None
    assert from_json(to_json(found)) == found


def test_the_start_is_level_with_learned_tables() -> None:
    """Both armies read the same entries: the start scores the tempo alone."""
    et = EvalTables(Position.start("chess").t)
    pos = Position.start("chess")
    assert et.evaluate(pos) == et.tempo


def test_other_armies_and_players_variants_keep_the_derived_tables() -> None:
    chess = load_variant("chess")
    found = learned_tables(chess)
    assert found is not None
    kq = {"king": "queen", "queen": "king"}  # Black's army mirrored still: d1 King, e1 Queen
    swapped = replace(
        chess,
        setup=tuple((sq, kq.get(pid, pid)) for sq, pid in chess.setup),
        black_setup=tuple((sq, kq.get(pid, pid)) for sq, pid in chess.army(1)),
    )
    assert army_text(swapped) != army_text(chess)
    assert not fits(found, swapped)
    player = replace(chess, definition="id = 'chess'", digest="x")
    assert learned_tables(player) is None
    assert not EvalTables(Position.start("makruk").t).learned


def test_symmetry_follows_the_armies() -> None:
    chess, makruk = load_variant("chess"), load_variant("makruk")
    assert army_mirrors(chess) and not army_mirrors(makruk)
    e1, e8, d8 = (chess.geometry.parse(s) for s in ("e1", "e8", "d8"))
    assert e1 is not None and e8 is not None and d8 is not None
    assert relative_square(chess, e8, 1, True) == e1
    assert relative_square(makruk, d8, 1, False) == e1


def test_weights_learned_with_the_tables_are_the_evaluation_s() -> None:
    """A file's term weights replace the engine's own for its variant (and only the names
    of single weights are accepted); weights given by the caller win over them."""
    chess = load_variant("chess")
    found = learned_tables(chess)
    assert found is not None
    with_weights = replace(found, weights={"passed_eg": 55.5, "shield_mg": 4.0})
    assert from_json(to_json(with_weights)) == with_weights
    assert fits(with_weights, chess)
    assert not fits(replace(found, weights={"mobility_mg": 1.0}), chess)
    assert not fits(replace(found, weights={"nonsense": 1.0}), chess)
    with pytest.raises(ValueError, match="nonsense"):
        with_values(WEIGHTS, {"nonsense": 1.0})
    chosen = with_values(WEIGHTS, with_weights.weights)
    assert chosen.passed_eg == 55.5 and chosen.shield_mg == 4.0
    assert chosen.doubled_mg == WEIGHTS.doubled_mg
    et = EvalTables(Position.start("chess").t)
    assert et.weights == with_values(WEIGHTS, found.weights)
    assert EvalTables(Position.start("chess").t, BASELINE).weights == BASELINE


def test_a_table_that_does_not_fit_is_refused() -> None:
    chess = load_variant("chess")
    found = learned_tables(chess)
    assert found is not None
    assert fits(found, chess)
    assert not fits(replace(found, mg={**found.mg, "pawn": found.mg["pawn"][:-1]}), chess)
    assert not fits(replace(found, mg={**found.mg, "amazon": found.mg["pawn"]}), chess)
    assert not fits(replace(found, mirror=False), chess)
    assert not fits(found, load_variant("capablanca"))
    with pytest.raises(ValueError, match="format"):
        from_json(to_json(found).replace('"format": 1', '"format": 2'))
