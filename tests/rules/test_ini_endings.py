"""Converted variants.ini sections end their games where pyffish 0.0.90 ends them: every
row of `data/ini-endings.tsv` (written by `ini_endings.py`) is a random game of a
self-written section of `data/ini-sections.ini`, replayed with the Fairy Post variant that
`rules.ini` converts it into: no earlier ply may end it, and the last must end it the same
way (at once by a rule, by having no move, or by a claimable rule that Fairy Post applies
itself) with the same winner."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules import Game
from rules.ini import LOCAL_FILE, convert_ini
from rules.variant import Variant, load_definition
from tests.rules.test_fsf_endings import KINDS

DATA = Path(__file__).resolve().parent / "data"
ROWS = [
    line.split("\t")
    for line in (DATA / "ini-endings.tsv").read_text(encoding="utf-8").splitlines()[1:]
    if line
]
VARIANTS: dict[str, Variant] = {}


def _variant(section: str) -> Variant:
    if not VARIANTS:
        text = (DATA / "ini-sections.ini").read_text(encoding="utf-8")
        for item in convert_ini(text, "ini-sections.ini", LOCAL_FILE):
            assert item.toml is not None, item.error
            VARIANTS[item.name] = load_definition(item.toml, source=item.name)
    return VARIANTS[section]


@pytest.mark.parametrize("row", ROWS, ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_section_ends_as_in_pyffish(row: list[str]) -> None:
    section, moves, ending, winner = row
    game = Game(_variant(section))
    for move in moves.split():
        assert game.outcome() is None, f"ended before {move}: {game.outcome()}"
        game.play(move, check_marks=False)
    outcome = game.outcome()
    if ending == "-":
        assert outcome is None
        return
    assert outcome is not None, f"pyffish ends the game ({ending}, {winner})"
    assert outcome.termination in KINDS[ending], outcome
    assert ("draw" if outcome.winner is None else ("white", "black")[outcome.winner]) == winner


def test_every_section_has_games() -> None:
    text = (DATA / "ini-sections.ini").read_text(encoding="utf-8")
    assert {item.name for item in convert_ini(text, "ini-sections.ini", LOCAL_FILE)} == {
        r[0] for r in ROWS
    }
