"""Black's special attack maps (bent, multi-path and circular pieces) are White's turned
round where the board's turn keeps the rules the same: what walking Black's moves finds."""

from __future__ import annotations

import pytest

from rules.tables import SpecialMap, tables_of
from rules.variant import load_variant


def _sorted(found: SpecialMap) -> dict[int, list[tuple[int, tuple[tuple[int, ...], ...]]]]:
    return {dest: sorted(conds) for dest, conds in found.items()}


# Each kind of special attacker: bent riders (Gryphon, Manticore, Ship, Snake), multi-path
# leapers (Falcon, Rhinoceros), lame leapers beside palace pieces (Janggi, Xiangqi, Manchu),
# a King's initial leap (Leaping Bat), on square and oblong boards.
VARIANTS = [
    "bigorra",
    "frog-gryphon",
    "grand-betza",
    "janggi",
    "leaping-bat",
    "manchu",
    "timurid-mirza",
    "xiangqi",
]


@pytest.mark.parametrize("variant", VARIANTS)
def test_black_special_maps_are_what_walking_its_moves_finds(variant: str) -> None:
    t = tables_of(load_variant(variant))
    for code in t.special_codes[1]:
        for o in range(t.geo.size):
            assert _sorted(t.special_map(code, o)) == _sorted(t.walk_special_map(code, o))


def test_bigorra_turns_its_special_pieces() -> None:
    t = tables_of(load_variant("bigorra"))
    assert t.special_codes[1]
    assert all(t.turns_white(code) for code in t.special_codes[1])
