"""Random play with hypothesis in the core variants: nothing crashes, every state
round-trips through position text and notation, and undo restores the exact position.
(The other variants have their own property tests beside their catalogue tests.)"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import Game
from rules.notation import coordinates, format_code, parse
from rules.outcome import Outcome
from rules.postext import format_position, parse_position


def check_playout(variant: str, choices: list[int]) -> None:
    game = Game.new(variant)
    pos = game.position
    for choice in choices:
        if game.outcome() is not None:
            break
        codes = pos.legal_codes()
        assert codes, "no legal move but no outcome"
        text = format_position(pos)
        again = parse_position(variant, text)
        assert format_position(again) == text
        assert again.hash == pos.hash
        code = codes[choice % len(codes)]
        assert parse(pos, format_code(pos, code)).code == code
        assert parse(pos, coordinates(pos, code), check_marks=False).code == code
        snapshot = (pos.board[:], bytes(pos.virgin), pos.hash, pos.ep, pos.halfmove, text)
        pos.push_code(code)
        pos.pop_code()
        assert snapshot == (
            pos.board[:],
            bytes(pos.virgin),
            pos.hash,
            pos.ep,
            pos.halfmove,
            format_position(pos),
        )
        game.play_move(pos.to_move(code))
    outcome = game.outcome()
    assert outcome is None or isinstance(outcome, Outcome)
    if outcome is not None:
        assert outcome.result_text


PLAYOUT = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=60)


@settings(max_examples=15, deadline=None)
@given(PLAYOUT)
def test_chess_playouts(choices: list[int]) -> None:
    check_playout("chess", choices)


@settings(max_examples=10, deadline=None)
@given(PLAYOUT)
def test_patchanka_playouts(choices: list[int]) -> None:
    check_playout("patchanka", choices)


@settings(max_examples=8, deadline=None)
@given(PLAYOUT)
def test_heavy_shako_playouts(choices: list[int]) -> None:
    check_playout("heavy-shako", choices)
