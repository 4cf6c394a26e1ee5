"""Staged generation (`Position.capture_codes`, `quiet_codes`, `move_test`, `pseudo_ok`),
the search's way to list moves: its stages filtered by the legality test must be exactly
the legal moves, in random positions of every variant where the test applies."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.game import game_after
from rules.notation import coordinates
from rules.position import Position
from rules.postext import parse_position
from rules.tables import tables_of
from rules.variant import Variant, load_definition, load_variant, variant_ids

VARIANTS = sorted(variant_ids())
DATA = Path(__file__).resolve().parent / "data"


def check_stages(pos: Position, before: list[int]) -> bool:
    """The stages of `pos` against its legal moves; True when the legality test applied."""
    legal = set(pos.legal_codes())
    captures = pos.capture_codes()
    quiets = pos.quiet_codes()
    pseudo = set(pos.pseudo_codes())
    assert not set(captures) & set(quiets)
    split = pos.split_codes()
    assert (set(split[0]), set(split[1])) == (set(captures), set(quiets))
    if not pos.placing:
        assert pseudo <= set(captures) | set(quiets)
    assert all(pos._tactical(c) for c in captures)
    assert not any(pos._tactical(c) for c in quiets if c in pseudo)
    for c in [*list(pseudo)[:20], *before[:20]]:
        assert pos.pseudo_ok(c) == (c in pseudo), c
    for c in legal:
        assert pos.gives_check(c) == made_check(pos, c), c
    test = pos.move_test()
    if test is None:
        return False
    assert {c for c in [*captures, *quiets] if test(c)} == legal
    return True


def made_check(pos: Position, c: int) -> bool:
    """Whether `c` checks, by the whole make and unmake: what `gives_check` must say, and
    `is_check_after` once the move is made."""
    pos.push_code(c, keep_key=False)
    try:
        check = pos.is_check()
        assert pos.is_check_after(c) == check, c
        return check
    finally:
        pos.pop_code()


def playout(variant: str | Variant, seed: int, plies: int) -> int:
    """Random play in `variant`, the stages checked at every ply; positions tested."""
    rng = random.Random(seed)
    pos = Position.start(variant)
    before: list[int] = []
    tested = 0
    for _ in range(plies):
        if pos.decided() is not None:
            break
        legal = pos.legal_codes()
        if not legal:
            break
        tested += check_stages(pos, before)
        before = legal
        pos.push_code(rng.choice(legal))
    return tested


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(min_value=0, max_value=1 << 30))
def test_stages_are_the_legal_moves(variant: str, seed: int) -> None:
    playout(variant, seed, 40)


def test_the_test_applies_where_the_rules_allow() -> None:
    """Data-driven: the rules that look at the whole list of moves turn staging off."""
    assert tables_of(load_variant("chess")).staged
    assert tables_of(load_variant("xiangqi")).staged  # flying general: tested move by move
    assert tables_of(load_variant("shogi")).staged  # drop mate: tested move by move
    for variant in ("antichess", "atomic", "janggi", "seirawan", "sittuyin", "placement"):
        assert not tables_of(load_variant(variant)).staged, variant
    assert playout("chess", 1, 60) > 0
    assert playout("bigorra", 2, 40) > 0  # unmoved Kings' leaps
    assert playout("xiangqi", 3, 60) > 0
    assert playout("crazyhouse", 4, 60) > 0


def test_no_test_in_check() -> None:
    """In check the full list (its evasions) is used."""
    pos = game_after("chess", ["e2e4", "f7f6", "d1h5"]).position
    assert pos.is_check()
    assert pos.move_test() is None


def checks_by_coordinates(pos: Position) -> dict[str, bool]:
    """Each legal move's coordinates and whether `gives_check` calls it a check, checked
    against the whole make and unmake."""
    out = {}
    for c in pos.legal_codes():
        said = pos.gives_check(c)
        assert said == made_check(pos, c), coordinates(pos, c)
        out[coordinates(pos, c)] = said
    return out


def test_gives_check_sees_every_kind_of_check() -> None:
    """Direct, discovered and promotion checks, a drop's, and quiet moves that check
    nothing, as the whole make and unmake sees them."""
    checks = checks_by_coordinates(game_after("chess", ["e2e4", "d7d5"]).position)
    assert checks["f1b5"] and not checks["g1f3"]
    # The Bishop on e4 stands between the Rook on e1 and the King on e8: any move of it
    # uncovers a check, none of the King's does.
    checks = checks_by_coordinates(parse_position("chess", "4k3/8/8/8/4B3/8/8/4R1K1 w - - 0 1"))
    assert all(checks[m] for m in checks if m.startswith("e4"))
    assert not any(checks[m] for m in checks if m.startswith("g1"))
    # a7-a8 promotes: to a Queen or a Rook it checks along the eighth rank, to a Knight not.
    checks = checks_by_coordinates(parse_position("chess", "7k/P7/8/8/8/8/8/K7 w - - 0 1"))
    assert checks["a7a8Q"] and checks["a7a8R"] and not checks["a7a8N"]
    # A Pawn in hand (taken on d5) dropped on d7 checks the King on e8; on d6 it does not.
    pos = game_after("crazyhouse", ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5"]).position
    checks = checks_by_coordinates(pos)
    assert checks["P@d7"] and not checks["P@d6"]


def test_a_screen_placed_or_taken_away_checks() -> None:
    """A Cannon checks over exactly one screen: a second screen stepping aside leaves one,
    a piece stepping in front of it gives one, and the move's two squares alone show it
    (`Tables.local_checks`: only the lines through them are read)."""
    assert tables_of(load_variant("xiangqi")).local_checks
    # The Cannon on e2 looks up the file at the General on e10 over the Horses on e4, e6.
    pos = parse_position("xiangqi", "4k4/9/9/9/4H4/9/4H4/9/4C4/3K5 w - - 0 1")
    checks = checks_by_coordinates(pos)
    horses = [m for m in checks if m[:2] in ("e4", "e6")]
    assert horses and all(checks[m] for m in horses)
    assert not checks["e2d2"] and not checks["d1d2"]
    # No screen: the Horse from d4 to e6 becomes one.
    checks = checks_by_coordinates(
        parse_position("xiangqi", "4k4/9/9/9/9/9/3H5/9/4C4/3K5 w - - 0 1")
    )
    assert checks["d4e6"] and not checks["d4c6"]


def test_local_checks_only_where_a_move_changes_two_squares() -> None:
    """Where the side not to move may stand attacked (royal capture) or a move changes
    more than its two squares (explosions, walls, reserves), every probe is read."""
    assert tables_of(load_variant("chess")).local_checks
    for variant in ("atomic", "seirawan"):
        assert not tables_of(load_variant(variant)).local_checks, variant


HOPPER_SECTIONS = ("hopfield", "shorthops", "hopdrops")
"""The self-written variants.ini sections of grasshoppers (`gQ`), hoppers with a range
(`pB2`) and hoppers dropped under immobility-illegal (tests/rules/data/ini-sections.ini)."""


def test_stages_with_grasshoppers_and_short_hoppers() -> None:
    """Their checks come through screens next to the King or within a range: the move
    test must find them as the full legality test does."""
    from rules import ini

    text = (DATA / "ini-sections.ini").read_text(encoding="utf-8")
    for section in HOPPER_SECTIONS:
        toml = ini.convert_section(text, section, bounds=ini.LOCAL_FILE)
        variant = load_definition(toml, source=section)
        assert tables_of(variant).staged
        assert sum(playout(variant, seed, 80) for seed in range(4)) > 100, section


def test_an_in_place_promotion_is_pseudo_legal() -> None:
    """Found by hypothesis (seed 278): Sittuyin's Pawn promoting where it stands is listed by
    `pseudo_codes()` and must pass `pseudo_ok()` too (it is not among the square's moves)."""
    assert playout("sittuyin", 278, 40) >= 0
