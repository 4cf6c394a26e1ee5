"""Game records: the book's games replay; a wrong record names its first bad ply."""

from __future__ import annotations

import pytest

from rules import GameRecordError
from rules.record import format_record, read_record, replay_record
from tests.rules.conftest import GAMES


@pytest.mark.parametrize(
    ("name", "plies", "result"),
    [
        ("patchanka.txt", 150, "black wins by checkmate"),
        ("heavy-shako.txt", 131, "white wins by checkmate"),
    ],
)
def test_recorded_games_replay_with_every_mark(name: str, plies: int, result: str) -> None:
    text = (GAMES / name).read_text()
    record = read_record(text)
    game = replay_record(record)
    assert game.ply == plies
    outcome = game.outcome()
    assert outcome is not None and outcome.result_text == result
    # The engine prints exactly what the book printed.
    assert [p.notation for p in game.history] == [p.text for p in record.plies]


def test_written_records_read_back() -> None:
    game = replay_record(read_record((GAMES / "patchanka.txt").read_text()))
    text = format_record(game, {"white": "Ann", "black": "Bob"})
    again = replay_record(read_record(text))
    assert again.position_text == game.position_text
    assert "# white: Ann" in text and "# result: black wins by checkmate" in text


def _mutate(old: str, new: str) -> str:
    text = (GAMES / "patchanka.txt").read_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("2. Hi2-g4", "2. Hi2-g5", "ply 3"),
        ("3. Hg4xe6", "3. Hg4xe6+", "annotated as check"),
        ("# result: black wins by checkmate", "# result: draw by repetition", "final position"),
        ("# result: black wins by checkmate", "# result: unfinished", "ended"),
        ("# variant: Patchanka", "# variant: Nonesuch", "unknown variant"),
        ("B=Badger, ", "B=Bison, ", "given both"),
        ("B=Badger, ", "B=Okapi, O=Badger, ", "given both"),
        ("B=Badger, ", "B=Unicorn, ", "not a piece of Patchanka"),
        ("1... e8-e6", "1. e8-e6", "numbered"),
        ("2. Hi2-g4", "2 Hi2-g4", "expected a ply"),
    ],
)
def test_bad_records_name_the_problem(old: str, new: str, fragment: str) -> None:
    with pytest.raises(GameRecordError, match=fragment):
        replay_record(read_record(_mutate(old, new)))


def test_a_letter_legend_overrides_the_variants_letters() -> None:
    text = "# variant: chess\n# piece letters: S=Knight\n1. Sg1-f3\n1... Sb8-c6\n"
    game = replay_record(read_record(text))
    assert [p.notation for p in game.history] == ["Ng1-f3", "Nb8-c6"]
