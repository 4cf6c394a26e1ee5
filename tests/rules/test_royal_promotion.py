"""A royal piece that promotes into a royal form (Forward chess's King, crowned on the far
rank, as Fairy-Stockfish's variants.ini writes it: a lone pseudo-royal piece whose
promotedPieceType is the King): the side keeps one royal piece, whose new form is checked
and mated, written `+C` in the position text, and exported and read back as Fairy-Stockfish
writes it. The counts against pyffish 0.0.90 are the `crownprince` rows of
data/ini-perft.tsv and data/ini-endings.tsv."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rules import ini
from rules.errors import VariantError
from rules.game import Game
from rules.outcome import Termination
from rules.perft import perft
from rules.position import PROMO_MASK, PROMO_SHIFT, Position
from rules.variant import Variant, load_definition
from tests.rules.test_staged import check_stages

DATA = Path(__file__).resolve().parent / "data"
SECTIONS = (DATA / "ini-sections.ini").read_text(encoding="utf-8")

CROWN = """
id = "crown-test"
name = "Crown test"
files = 6
ranks = 6

[regions]
far-half = "*4 *5 *6"

[pieces]
heir = { letter = "C", betza = "fsW fF", royal = true, promotion = { to = ["crowned-heir"], \
zone = "far-half" } }
crowned-heir = { letter = "+C", betza = "K", royal = true, demotes-to = "heir" }
rook = "R"

[setup]
1 = "R . C . . ."
"""


def crown() -> Variant:
    return load_definition(CROWN, source="crown.toml")


def section(name: str) -> Variant:
    item = next(
        i for i in ini.convert_ini(SECTIONS, "ini-sections.ini", ini.LOCAL_FILE) if i.name == name
    )
    assert item.toml is not None, item.error
    return load_definition(item.toml, source=name)


def test_the_heir_may_be_crowned_and_the_crowned_piece_is_the_royal_one() -> None:
    game = Game.from_position_text(crown(), "4c1/6/6/2C3/6/r5 w - - 0 1")
    moves = {m.coordinates for m in game.legal_moves()}
    # Entering the zone it may be crowned or not; the Heir never steps back.
    assert {"c3c4", "c3c4+C", "c3b4+C", "c3d4+C"} <= moves
    assert not any(m.startswith(("c3c2", "c3b2")) for m in moves)
    game.play("c3c4+")
    assert game.position_text == "4c1/6/2+C3/6/6/r5 b - - 0 1"
    game.play("a1a4")
    assert game.is_check()  # the crowned piece is royal: the Rook gives check
    # ... and moves as a King: back and sideways, never onto the Rook's rank or beside
    # Black's Heir.
    assert {m.coordinates for m in game.legal_moves()} == {
        "c4c3",
        "c4c5",
        "c4b3",
        "c4b5",
        "c4d3",
    }


def test_the_crowned_piece_is_checkmated_as_the_heir_would_be() -> None:
    game = Game.from_position_text(crown(), "2c3/r5/1r4/6/6/+C5 w - - 0 1")
    outcome = game.outcome()
    assert outcome is not None and outcome.termination == Termination.CHECKMATE
    assert outcome.winner == 1
    # The same position with the Heir uncrowned: it may take the Rook, checked or not.
    game = Game.from_position_text(crown(), "2c3/6/1r4/6/r5/C5 w - - 0 1")
    assert game.is_check() and [m.coordinates for m in game.legal_moves()] == ["a1a2"]


def test_only_a_royal_piece_may_promote_into_a_royal_one() -> None:
    rook_crowned = CROWN.replace('rook = "R"', 'rook = { letter = "R", promotion = { to = '
                                 '["crowned-heir"], zone = "far-half" } }')  # fmt: skip
    with pytest.raises(VariantError, match="only a royal piece may promote into one"):
        load_definition(rook_crowned)


def test_a_lone_pseudo_royal_piece_promoting_into_the_king_converts() -> None:
    """Fairy-Stockfish's Forward-chess pattern: the King type comes only as the crowned
    form, so it is not a second royal piece of the game."""
    variant = section("crownprince")
    royal = sorted(p.id for p in variant.pieces if p.royal)
    assert royal == ["custom-c", "promoted-custom-c"]
    assert variant.piece("promoted-custom-c").demotes_to == "custom-c"
    assert variant.extinction is None  # the pseudo-royal piece plays as a royal one
    assert not any(p.id == "king" for p in variant.pieces)


def test_a_promotion_of_another_piece_into_the_king_is_refused() -> None:
    text = "[t:chess]\npromotedPieceType = q:k\npromotionRegionWhite = *8\n"
    error = ini.convert_ini(text, "mine.ini")[-1].error
    assert error is not None
    assert "q:k: promotion into the royal King of a piece that is not" in str(error)


# pyffish 0.0.90's perft 1-3 of each section where Black's Heir may be crowned at once.
CROWNING = "rnqbnr/p4p/4c1/1C4/P4P/RNQBNR w - - 0 1"
CROWNING_COUNTS = {"crownprince": [21, 257, 3495], "crownprince-centaur": [21, 254, 3431]}


@pytest.mark.parametrize("name", sorted(CROWNING_COUNTS))
def test_the_crowning_is_exported_as_fairy_stockfish_writes_it(name: str) -> None:
    variant = section(name)
    text = ini.export_ini(variant)
    keys = dict(line.split(" = ", 1) for line in text.splitlines() if " = " in line)
    assert keys["promotedPieceType"] == "c:k"
    assert keys["extinctionPieceTypes"] == "ck"
    assert keys["extinctionPseudoRoyal"] == "true"
    assert keys["king"] == ("k" if name == "crownprince" else "k:WFN")
    back = load_definition(ini.convert_section(text, ini.read_sections(text)[0].name))
    for v in (variant, back):
        pos = Game.from_position_text(v, CROWNING).position
        assert [perft(pos, d) for d in (1, 2, 3)] == CROWNING_COUNTS[name]
    assert perft(Position.start(back), 3) == perft(Position.start(variant), 3)


def test_export_refuses_what_fairy_stockfish_applies_to_its_king_type_alone() -> None:
    no_checks = CROWN + "\n[rules]\nno-checks = true\n"
    with pytest.raises(VariantError, match="no-checks beside a royal piece that promotes"):
        ini.export_ini(load_definition(no_checks))


def test_staged_generation_is_the_legal_moves_around_the_crowning() -> None:
    """Random play favouring the royal pieces' moves, from the start and from a position
    where Black's Heir may be crowned at once: the stages and the legality test of
    staged generation give exactly the legal moves, crowned royal pieces included."""
    variant = section("crownprince")
    crowned_positions = 0
    for seed in range(8):
        rng = random.Random(seed)
        pos = (
            Position.start(variant)
            if seed % 2
            else Game.from_position_text(variant, CROWNING).position
        )
        before: list[int] = []
        for _ in range(60):
            if pos.decided() is not None or not (legal := pos.legal_codes()):
                break
            check_stages(pos, before)
            crowned_positions += any(
                pos.t.royal[code] and pos.t.type_ids[code >> 1].startswith("promoted")
                for code in pos.board
            )
            before = legal
            royal = [c for c in legal if pos.t.royal[pos.board[c & 0xFF]]]
            promoting = [c for c in royal if (c >> PROMO_SHIFT) & PROMO_MASK]
            pos.push_code(
                rng.choice(promoting or (royal if royal and rng.random() < 0.5 else legal))
            )
    assert crowned_positions > 20


def test_crowning_moves_are_typed_back_as_they_are_printed() -> None:
    """The printed forms of a move into and of a `+C` piece read back (western notation)."""
    start = "4c1/6/6/2C3/6/r5 w - - 0 1"
    game = Game.from_position_text(crown(), start)
    crowning = game.play("c3c4+").notation
    assert crowning == "Cc3-c4+C"
    for typed in (crowning, "Cc4+C", "Cc3-c4=+C"):
        again = Game.from_position_text(crown(), start)
        assert again.play(typed).notation == crowning
        again.play("a1a2")
        assert again.play("+Cc4-c3").notation == "+Cc4-c3"
    uncrowned = Game.from_position_text(crown(), start)
    assert uncrowned.play("Cc3-c4").notation == "Cc3-c4"
    assert uncrowned.position_text.startswith("4c1/6/2C3/")
