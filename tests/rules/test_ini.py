"""Fairy-Stockfish's variants.ini in and out (`rules.ini`).

The self-written sections of `data/ini-sections.ini` are converted and counted against
pyffish 0.0.90 (`data/ini-perft.tsv`, written by `ini_reference.py`: CI has no pyffish);
refusals name the option and the mechanism; a stranger's file, however mangled, is
answered with TOML or a `VariantError`, never another exception.
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import ini
from rules.cli import main
from rules.errors import RulesError, VariantError
from rules.fsf import uci_moves
from rules.game import Game
from rules.perft import perft
from rules.variant import Variant, load_definition, load_variant, variant_ids

DATA = Path(__file__).resolve().parent / "data"
SECTIONS = (DATA / "ini-sections.ini").read_text(encoding="utf-8")
ROWS = [
    line.split("\t")
    for line in (DATA / "ini-perft.tsv").read_text(encoding="utf-8").splitlines()[1:]
]
CONVERTED = {
    item.name: item for item in ini.convert_ini(SECTIONS, "ini-sections.ini", ini.LOCAL_FILE)
}


@pytest.mark.parametrize(("section", "moves", "counts"), ROWS)
def test_converted_sections_count_as_fairy_stockfish(section: str, moves: str, counts: str) -> None:
    item = CONVERTED[section]
    assert item.error is None, item.error
    assert item.toml is not None
    game = Game(load_definition(item.toml, source=section))
    for move in moves.split():
        assert move in uci_moves(game.position), (section, move)
        game.play(move)
    wanted = [int(c) for c in counts.split(",")]
    assert [perft(game.position, d) for d in range(1, len(wanted) + 1)] == wanted


def test_every_section_of_the_test_file_converts() -> None:
    assert [name for name, item in CONVERTED.items() if item.error] == []
    assert set(CONVERTED) == {row[0] for row in ROWS}


def test_the_format_is_read_as_fairy_stockfish_reads_it() -> None:
    text = (
        "text before the first section is ignored\r\n"
        "[mine:chess]\r\n"
        "# a comment\r\n"
        "; another\r\n"
        "nMoveRule = 40\r\n"
        "nMoveRule = 30\r\n"  # the last of two equal keys wins
        "customPiece1 = q:QN\r\n"  # a letter given again replaces the Queen
        "pieceToCharTable = PNBRQ............A...Kpnbrq............a...k\r\n"
    )
    toml = ini.convert_section(text, "mine")
    assert "move-rule = 30" in toml
    assert 'custom-q = { letter = "Q", betza = "N R B" }' in toml
    assert "queen =" not in toml
    assert "pieceToCharTable" in toml.splitlines()[1]  # named as without effect
    variant = load_definition(toml)
    assert variant.piece("custom-q").letters == "Q"


def test_the_rules_of_antichess_n_check_and_extinction_are_mapped() -> None:
    toml = ini.convert_section(
        "[t:chess]\nmustCapture = true\nchecking = false\ncheckmateValue = win\n"
        "stalemateValue = win\nstalematePieceCount = true\nextinctionValue = loss\n"
        "extinctionPieceTypes = q\nextinctionPieceCount = 0\ncheckCounting = true\n"
        "startFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 2+2 0 1\n",
        "t",
    )
    for line in (
        "must-capture = true",
        "no-checks = true",
        'checkmate = "win"',
        'stalemate = "fewer-pieces"',
        "check-count = 2",
        'extinction = { pieces = ["queen"], result = "loss", count = 0 }',
    ):
        assert line in toml
    assert load_definition(toml).check_count == 2


def test_fairy_stockfish_betza_directions_are_its_own() -> None:
    """`fN` is two moves in Fairy-Stockfish (Shogi's Knight), four in Betza's own reading."""
    moves, ep, skipped = ini.fsf_moves("fN")
    assert {m[3] for m in moves} == {(1, 2), (-1, 2)}
    assert ini.betza_for(moves) == "ffN"
    moves, ep, skipped = ini.fsf_moves("fmWfceF")
    assert ep and not skipped
    assert ini.betza_for(moves) == "cfF mfW"
    assert ini.fsf_betza_for(ini.fsf_moves("mfsWcfF")[0]) is not None


REFUSALS = [
    ("[t:chess]\nconnectN = 4\n", "connectN (connecting pieces in a row (a connection game)) is "
     "not a chess rule Fairy Post plays"),
    ("[t:chess]\nblastOnCapture = true\n", "blastOnCapture: exploding captures beside a royal"),
    ("[t:ataxx]\n", "Fairy-Stockfish's built-in 'ataxx' is not among the games Fairy "
     "Post plays"),
    ("[t:nosuch]\n", "no section or Fairy-Stockfish game named 'nosuch'"),
    ("[chess]\nmaxRank = 6\n", "a Fairy-Stockfish game of this name exists already"),
    ("[t:chess]\nfooBar = 1\n", "fooBar is not an option Fairy-Stockfish 0.0.90 reads"),
    ("[t:chess]\ncustomPiece1 = a:mafsW\n", "Fairy-Stockfish 0.0.90 skips 'a'"),
    ("[t:chess]\nstartFen = 4k3/8/8/8/8/8/8/4K3[Qq] w - - 0 1\n", "but no drops"),
    ("[t:chess]\npromotionRegionWhite = *8\npromotionRegionBlack = *1\npromotedPieceType = p:q\n",
     "a Pawn that promotes both as in chess (promotionPieceTypes) and Shogi-style"),
    # Captured pieces change sides: a Pawn type for Black alone would be White's too (the
    # Pawn itself promotes for both whatever the set says: pyffish 0.0.90 plays a2a1q here)
    ("[t:crazyhouse]\ncustomPiece1 = s:mfhNcfW\npromotionPawnTypesBlack = s\n"
     "startFen = 4k3/ssssssss/8/8/8/8/PPPPPPPP/4K3 w - - 0 1\n",
     "customPiece1 is a Pawn for one side"),
    ("[t:chess]\nmaxRank = 11\n", "'11' is not a rank from 1 to 10"),
    ("[t:chess]\nmaxFile = m\n", "'m' is not a file from a to l"),
    # Black's King castles on the rank White's shares (one rank): a move of Black's own
    ("[t:chess]\nmaxRank = 1\nmaxFile = l\nstartFen = R3K3k2r w Qk - 0 1\n",
     "Black's King on i1 castles with l1"),
    ("[t:chess]\nstartFen = r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1\n",
     "Black's King on e8 castles with a8"),
    ("[t:chess]\ndoubleStepRegionWhite = a2 b2\n", "starts in the double-step region"),
    ("[t:chess]\ntripleStepRegionWhite = e2\n", "tripleStepRegionWhite: a triple-step region of"),
    ("[t:chess]\ncustomPiece1 = n:NceF\npawnTypes = pn\n", "captures other than the Pawn's"),
    ("[t:chess]\nstalemateValue = none\n", "'none' is not win, loss or draw"),
    ("[t:chess]\nstartFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3+3 0 1\n",
     "check counts without checkCounting"),
    ("[t:chess]\ncheckCounting = true\n", "n-check needs the same number of checks"),
    ("[a:chess]\nblastOnCapture = true\n[b:a]\n", "[a] blastOnCapture: exploding captures beside"),
    # Squares, not whole ranks: a zone, unless an unpromoted Pawn can stand in it and leave
    ("[t:chess]\npromotionRegionWhite = a8 b8\nmandatoryPawnPromotion = false\n",
     "are not whole ranks, for a piece that can stand in them unpromoted"),
    ("[t:chess]\npromotionRegionWhite = a2 a8\n", "are not whole ranks, for a piece that can"),
    ("[t:chess]\nflagRegion = *8\nflagPieceCount = 2\nflagPieceSafe = true\n",
     "flagPieceSafe: several flag pieces to be kept safe"),
    ("[t:chess]\nflagRegion = *8\nflagMove = true\n", "a flag move for any piece beside a King"),
    ("[t:chess]\nnFoldRule = 1\n", "nFoldRule = 1: a position repeated once"),
    ("[t:chess]\ncastling = false\ncastlingWins = q\n", "castlingWins: q: no such castling"),
    ("[t:chess]\ncastlingWins = x\n", "'x' is not K, Q, k or q"),
    ("[t:chess]\ngating = true\n", "gating as Fairy-Stockfish writes it in the castling field"),
    ("[t:chess]\ncambodianMoves = true\n", "cambodianMoves without gating"),
    ("[t:makruk]\ngating = true\ncambodianMoves = true\n"
     "startFen = rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w Ad - 0 1\n",
     "gates other than on every King or every Fers"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), REFUSALS)
def test_refusals_name_the_option_and_the_mechanism(text: str, message: str) -> None:
    items = ini.convert_ini(text, "mine.ini")
    error = items[-1].error
    assert error is not None
    assert message in str(error)
    assert str(error).startswith("mine.ini")


def test_double_step_regions_that_differ_by_side_are_rows_per_side() -> None:
    # White's Pawns double-step from ranks 2 and 3, Black's from rank 7 only.
    text = ini.convert_section("[t:chess]\ndoubleStepRegionWhite = *2 *3\n", "t")
    assert "double-step-rows = { white = [2, 3], black = [2] }" in text
    game = Game.from_position_text(load_definition(text), "4k3/2p5/8/8/8/4P3/8/4K3 w - - 0 1")
    assert "e3e5" in {m.coordinates for m in game.legal_moves()}
    game.play("e3e4")
    assert "c7c5" in {m.coordinates for m in game.legal_moves()}
    game = Game.from_position_text(load_definition(text), "4k3/8/2p5/8/8/8/8/4K3 b - - 0 1")
    assert "c6c4" not in {m.coordinates for m in game.legal_moves()}


def test_fairy_stockfish_s_immobile_piece_never_moves_and_is_taken() -> None:
    text = ini.convert_section("[t:chess]\nimmobile = s\nstartFen = 4k3/8/8/8/8/3s4/4R3/4K3\n", "t")
    assert 'immobile = { letter = "S", never-moves = true }' in text
    game = Game.from_position_text(load_definition(text), "4k3/8/8/8/8/3S4/8/4K3 w - - 0 1")
    assert not any(m.coordinates.startswith("d3") for m in game.legal_moves())
    game = Game.from_position_text(load_definition(text), "4k3/8/8/8/8/3s4/3R4/4K3 w - - 0 1")
    assert "d2d3" in {m.coordinates for m in game.legal_moves()}
    moving = text.replace("never-moves = true", 'never-moves = true, betza = "W"')
    with pytest.raises(VariantError, match="never moves is given no movement"):
        load_definition(moving)


def test_command_line_converts_a_section(tmp_path: Path) -> None:
    path = tmp_path / "mine.ini"
    path.write_text(SECTIONS, encoding="utf-8")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["convert", str(path), "--section", "smallhouse"]) == 0
    variant = load_definition(out.getvalue())
    assert variant.id == "smallhouse"
    assert variant.captures_to_hand


KEYS = [
    *ini.SLOT_ORDER[:8], "customPiece1", "customPiece2", "king", "maxRank", "maxFile",
    "startFen", "promotionRegionWhite", "promotionPieceTypes", "doubleStep", "castling",
    "pieceDrops", "capturesToHand", "dropNoDoubled", "nMoveRule", "nFoldRule", "flagPiece",
    "flagRegionWhite", "flagRegionBlack", "mobilityRegionWhiteKing", "pawnTypes",
    "castlingKingsideFile", *list(ini.REFUSED)[:12],
]  # fmt: skip
VALUES = [
    "p", "k", "q:QN", "a:fN", "x:gR", "-", "true", "false", "0", "99999", "*1 *2", "d4 e4",
    "z9", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "3/3/3[PPp] w",
    "8/8/8/8 w", "k", "m:mBcpB", "i", "12", "l", "", "=", "[", "]",
]  # fmt: skip
line = st.one_of(
    st.tuples(st.sampled_from(KEYS), st.sampled_from(VALUES)).map(lambda kv: f"{kv[0]} = {kv[1]}"),
    st.sampled_from(["[x]", "[y:chess]", "[z:x]", "[chess]", "# c", ";", "", "[x:y]", "junk"]),
    st.text(max_size=30),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, max_size=25))
def test_any_file_is_answered_with_toml_or_a_refusal(lines: list[str]) -> None:
    text = "[a:chess]\n" + "\n".join(lines)
    try:
        items = ini.convert_ini(text, "fuzz.ini")
    except VariantError as exc:
        assert str(exc)
        return
    for item in items:
        if item.toml is not None:
            load_definition(item.toml)
        else:
            assert isinstance(item.error, RulesError) and str(item.error)


def test_files_beyond_the_bounds_are_refused_before_reading() -> None:
    with pytest.raises(VariantError, match="more than 40 sections"):
        ini.read_sections("".join(f"[s{i}:chess]\n" for i in range(41)))
    with pytest.raises(VariantError, match="bytes"):
        ini.read_sections("#" * (ini.MAX_INI_BYTES + 1))


EXPORT_ROWS = [
    line.split("\t")
    for line in (DATA / "ini-export-perft.tsv").read_text(encoding="utf-8").splitlines()[1:]
]


@pytest.mark.parametrize(("variant_id", "section", "counts"), EXPORT_ROWS)
def test_exported_variants_count_as_fairy_stockfish_and_come_back(
    variant_id: str, section: str, counts: str
) -> None:
    """`export-ini` of a built-in game: pyffish 0.0.90 counts the section as Fairy Post
    counts the game (data/ini-export-perft.tsv), and converting the section back gives a
    game with the same counts."""
    variant = load_variant(variant_id)
    text = ini.export_ini(variant)
    assert ini.read_sections(text)[0].name == section
    wanted = [int(c) for c in counts.split(",")]
    pos = Game(variant).position
    assert [perft(pos, d) for d in range(1, len(wanted) + 1)] == wanted
    back = load_definition(ini.convert_section(text, section))
    assert [perft(Game(back).position, d) for d in (1, 2)] == wanted[:2]


@pytest.mark.parametrize(
    ("section", "betza"),
    [("hopfield", "g:gRgB"), ("shorthops", "c:cpRpB2mFmR"), ("handed", "r:hrNhrC")],
)  # fmt: skip
def test_grasshoppers_short_hoppers_and_chiral_leaps_come_back_from_an_export(
    section: str, betza: str
) -> None:
    """The self-written sections' pieces are written back in Fairy-Stockfish's Betza, and
    the export converts back to the same game (data/ini-perft.tsv's counts from the start)."""
    variant = load_definition(CONVERTED[section].toml or "", source=section)
    text = ini.export_ini(variant, f"{section}-back")
    assert betza in text
    wanted = [int(c) for c in next(r[2] for r in ROWS if r[0] == section and not r[1]).split(",")]
    back = load_definition(ini.convert_section(text, f"{section}-back"))
    assert [perft(Game(back).position, d) for d in (1, 2)] == wanted[:2]


def test_a_plain_hopper_is_not_exported_as_the_janggi_cannon() -> None:
    """Fairy-Stockfish's janggiCannon moves as pR but never hops over or takes another
    one: a plain pR piece is a custom piece (Cannon Shogi's Silver Cannon)."""
    text = ini.convert_section(
        "[t:chess]\ncustomPiece1 = a:pR\ncustomPiece2 = c:mBcpB\n"
        "startFen = racqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RACQKBNR w KQkq - 0 1\n",
        "t",
    )
    exported = ini.export_ini(load_definition(text), "t-back")
    assert "janggiCannon" not in exported
    assert ":pR\n" in exported
    assert "cannot-hop-over" not in ini.convert_section(exported, "t-back")


def test_fairy_stockfish_pawn_promotes_whatever_promotion_pawn_types_says() -> None:
    """pyffish 0.0.90 promotes its own Pawn even when promotionPawnTypes leaves it out
    (`-`, or `n`: then the Knight promotes too): legal there, a7a8q, a7a8n, g6h8q."""
    for ppt in ("-", "n"):
        text = ini.convert_section(
            f"[t:chess]\npromotionPawnTypes = {ppt}\nstartFen = 4k3/P7/6N1/8/8/8/8/4K3 w - - 0 1\n",
            "t",
        )
        moves = set(uci_moves(Game(load_definition(text)).position))
        assert {"a7a8q", "a7a8n"} <= moves and "a7a8" not in moves
        assert ("g6h8q" in moves) == (ppt == "n")


def test_a_pawn_that_never_promotes_is_no_fairy_stockfish_pawn() -> None:
    """Since Fairy-Stockfish's Pawn always promotes, a Pawn without promotion (chess's
    moves, no choices, promotion optional: it steps onto the last rank and stays) is
    exported as a custom piece; pyffish 0.0.90 then plays a7a8 as Fairy Post does (with
    `pawn = p` it had no move for that Pawn: promotion compulsory, nothing to become)."""
    text = ini.convert_section(
        "[t:chess]\npromotionPieceTypes = -\nmandatoryPawnPromotion = false\n"
        "startFen = 4k3/P7/8/8/8/8/8/4K3 w - - 0 1\n",
        "t",
    )
    exported = ini.export_ini(load_definition(text), "t-back")
    assert "\npawn = p\n" not in exported
    assert re.search(r"^customPiece\d+ = p:", exported, re.M)
    back = Game(load_definition(ini.convert_section(exported, "t-back")))
    assert "a7a8" in uci_moves(back.position)


def test_a_grasshopper_with_a_range_is_refused_by_the_export() -> None:
    """Fairy-Stockfish's range digit replaces its grasshopper's: its gR3 is pR3, so a
    grasshopper whose screen must be within two squares has no form there (gR2, which is
    pR2, has)."""
    for betza, written in (("gR3", None), ("gR2", "g:pR2"), ("gR", "g:gR")):
        text = ini.convert_section(f"[t:chess]\ncustomPiece1 = g:{betza}\n", "t")
        if written is None:
            text = text.replace('betza = "pR3"', 'betza = "gR3"')
            with pytest.raises(ini.IniRefusal, match="Betza cannot say"):
                ini.export_ini(load_definition(text), "t-back")
        else:
            assert written in ini.export_ini(load_definition(text), "t-back")


@pytest.mark.parametrize(
    ("variant_id", "older"),
    [
        ("shako", ["promotionRank = 10", "doubleStepRank = 3", "doubleStepRankMin = 3"]),
        ("grand", ["promotionRank = 8", "doubleStepRank = 3", "doubleStepRankMin = 3"]),
        ("gardner", ["promotionRank = 5"]),
    ],
)
def test_the_export_also_says_its_ranks_in_the_keys_older_engines_read(
    variant_id: str, older: list[str]
) -> None:
    """Debian's fairy-stockfish 11.1 ignores the regions (its Shako had no double steps from
    the third rank): the older keys say the same ranks, and the section converts back with
    them (pyffish 0.0.90's counts of the exports are unchanged, ini-export-perft.tsv)."""
    text = ini.export_ini(load_variant(variant_id))
    assert all(line in text.splitlines() for line in older)
    plain = ini.export_ini(load_variant(variant_id), older_keys=False)
    assert not any(line in plain.splitlines() for line in older)
    # Only where they say exactly the same: Gardner's Pawns start on the last rank but one
    # and have no double step; a promotion zone of one side's ranks only has no older key.
    assert "doubleStepRank" not in ini.export_ini(load_variant("gardner"))


OLDER_KEYS_REFUSED = [
    ("[t:chess]\npromotionRank = 7\n", "promotionRank: an old option"),
    ("[t:chess]\npromotionRegionWhite = *8\npromotionRegionBlack = *1\npromotionRank = 7\n",
     "promotionRank: other rows than promotionRegionWhite/Black"),
    ("[t:chess]\ndoubleStepRank = 2\n", "doubleStepRank: an old option"),
    ("[t:chess]\ndoubleStepRegionWhite = *2\ndoubleStepRegionBlack = *7\ndoubleStepRank = 3\n",
     "another rank than doubleStepRegionWhite/Black"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), OLDER_KEYS_REFUSED)
def test_older_keys_are_read_only_beside_regions_saying_the_same(text: str, message: str) -> None:
    error = ini.convert_ini(text, "mine.ini")[-1].error
    assert error is not None and message in str(error)


def test_every_built_in_variant_is_exported_or_refused_by_name() -> None:
    exported = {row[0] for row in EXPORT_ROWS}
    for variant_id in variant_ids():
        try:
            ini.export_ini(load_variant(variant_id))
        except ini.IniRefusal as exc:
            assert exc.reason, exc  # refused with what the format cannot say
            continue
        if variant_id not in exported:
            # Not yet counted by pyffish (tests/rules/ini_reference.py adds it): at least
            # the section must come back as the same game.
            variant = load_variant(variant_id)
            section = ini.read_sections(ini.export_ini(variant))[0].name
            back = load_definition(ini.convert_section(ini.export_ini(variant), section))
            assert perft(Game(back).position, 2) == perft(Game(variant).position, 2)


@pytest.mark.parametrize(
    ("variant_id", "message"),
    [
        ("bigorra", "a board of 16x16: Fairy-Stockfish's boards are at most 12x10"),
        ("grand-cazaux", "bent riders: Fairy-Stockfish's Betza cannot say them"),
        ("leaping-bat", "a board of 16x12: Fairy-Stockfish's boards are at most 12x10"),
        ("patricia", "royal capture"),
    ],
)
def test_export_refusals_say_what_the_format_cannot(variant_id: str, message: str) -> None:
    with pytest.raises(ini.IniRefusal, match=re.escape(message)):
        ini.export_ini(load_variant(variant_id))


def test_command_line_exports() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["export-ini", "capablanca"]) == 0
    assert "[capablanca-fairypost]" in out.getvalue()
    assert "startFen = rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR" in out.getvalue()


def test_opposite_castling_takes_the_other_sides_wing() -> None:
    """oppositeCastling: once White castles short, Black may castle long only."""
    toml = ini.convert_section(
        "[t:chess]\nstartFen = r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\noppositeCastling = true\n",
        "t",
    )
    assert "opposite = true" in toml
    game = Game(load_definition(toml))
    game.play("e1g1")
    black = uci_moves(game.position)
    assert "e8c8" in black and "e8g8" not in black


@pytest.mark.parametrize(
    "variant_id",
    ["makruk", "asean", "makpong", "cambodian", "xiangqi", "shogi", "janggi", "shatar"],
)
def test_asian_rules_come_back_from_an_export(variant_id: str) -> None:
    """Counting, chasing, Makpong's King and Shogi's promoted forms are written as
    Fairy-Stockfish's options and read back as the same rules (pieces named by their
    Fairy-Stockfish letters, as the ids may differ)."""
    from rules.fsf import letters

    variant = load_variant(variant_id)
    text = ini.export_ini(variant)
    back = load_definition(ini.convert_section(text, ini.read_sections(text)[0].name))

    def rules_of(v: Variant) -> tuple[object, ...]:
        table = letters(v)
        counting = v.counting
        return (
            None
            if counting is None
            else (
                counting.style,
                counting.board,
                counting.otherwise,
                sorted(table[p] for p in counting.pawns),
                [(table[line.piece], line.count, line.moves) for line in counting.pieces],
            ),
            sorted((role, table[pid]) for role, pid in v.chasing),
            sorted(table[p.id] for p in v.pieces if p.capture_checker_only),
            sorted((table[p.id], table[p.demotes_to]) for p in v.pieces if p.demotes_to),
            None
            if v.mate is None
            else (
                sorted(table[p] for p in v.mate.forbidden_by),
                sorted(table[p] for p in v.mate.series_needs),
            ),
            v.bare_king_draw,
            sorted(
                (table[p.id], p.initial_leap, sorted(table[t] for t in p.first_leap_lost_by))
                for p in v.pieces
                if p.initial_leap
            ),
        )

    assert rules_of(back) == rules_of(variant)
    assert back.counting is not None or variant.counting is None
