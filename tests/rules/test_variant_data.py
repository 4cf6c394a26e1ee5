"""Variants are data: every file loads, and bad data fails at load naming file and key."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rules import variant as variant_module
from rules.errors import UnknownVariantError, VariantError
from rules.tables import tables_for
from rules.variant import load_variant, resolve_variant_id, variant_ids

CATALOGUE = {
    "chess", "patchanka", "bigorra", "heavy-shako",
    "timurid-herat", "timurid-babur", "timurid-mirza", "timurid-samarkand",
    "wild-timurid-herat", "wild-timurid-babur", "wild-timurid-mirza", "wild-timurid-samarkand",
    "frog-manticore", "frog-gryphon", "hannibal-manticore", "hannibal-gryphon",
    "waffle-manticore", "waffle-gryphon", "leaping-bat", "missing-bat-zebra",
    "missing-bat-nightrider", "patricia", "grand", "grand-betza", "grand-cazaux",
    "grand-tamerlane", "grand-courier", "grand-chu", "asean", "shatar",
    "xiangqi", "minixiangqi", "manchu",
    "janggi", "janggicasual", "janggimodern", "janggitraditional",
    "makruk", "makpong", "cambodian", "karouk", "ai-wok", "sittuyin",
    "shogi", "minishogi", "kyotoshogi", "micro", "dobutsu", "euroshogi", "judkins", "gorogoro",
    "nocastle", "amazon", "almost", "hoppelpoppel", "newzealand", "chigorin", "gardner",
    "losalamos", "capablanca", "gothic", "janus", "embassy", "centaur", "chancellor", "modern",
    # Fairy-Stockfish's games with rules of their own (issue 28)
    "3check", "5check", "kingofthehill", "racingkings",
    "shatranj", "courier", "shako", "crazyhouse", "capahouse", "seirawan", "shouse", "loop",
    "chessgi",
    "antichess", "giveaway", "suicide", "losers",
    "pocketknight", "breakthrough",
    "extinction", "kinglet", "threekings", "codrus",
    "jesonmor",
    "horde", "knightmate",
    "placement",
    "atomic",
    "clobber", "clobber10",
    "fischerandom", "caparandom",
}  # fmt: skip


def test_the_whole_catalogue_is_there() -> None:
    assert set(variant_ids()) == CATALOGUE


@pytest.mark.parametrize("variant_id", sorted(CATALOGUE))
def test_every_variant_loads_and_compiles(variant_id: str) -> None:
    v = load_variant(variant_id)
    assert v.id == variant_id and v.name and v.description
    assert tables_for(variant_id).geo.size == v.geometry.files * v.geometry.ranks
    assert v.status in ("documented", "reconstructed setup")
    if v.status == "reconstructed setup":
        assert "reconstruct" in v.description.lower()


def test_names_resolve_like_game_records() -> None:
    assert resolve_variant_id("Heavy Shako") == ("heavy-shako", ())
    assert resolve_variant_id("patricia+fixed-king") == ("patricia", ("fixed-king",))
    with pytest.raises(UnknownVariantError, match="unknown variant"):
        resolve_variant_id("checkers")
    with pytest.raises(UnknownVariantError, match="no option"):
        load_variant("chess", ["fixed-king"])


@pytest.fixture
def variants_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary variants folder, with the loader's caches cleared around the test."""
    monkeypatch.setattr(variant_module, "VARIANTS_DIR", tmp_path)
    variant_module._load.cache_clear()
    yield tmp_path
    variant_module._load.cache_clear()


GOOD = """
id = "mini"
name = "Mini"
description = "A test."
files = 5
ranks = 5

[pieces]
king = "K"
rook = "R"

[setup]
1 = ". . K . R"
"""


def write(folder: Path, text: str, name: str = "mini") -> None:
    (folder / f"{name}.toml").write_text(text)


def test_a_minimal_variant_loads(variants_dir: Path) -> None:
    write(variants_dir, GOOD)
    v = load_variant("mini")
    assert [p.id for p in v.pieces] == ["king", "rook"]


@pytest.mark.parametrize(
    ("change", "key", "fragment"),
    [
        (('name = "Mini"', 'name = "Mini"\ncolour = "red"'), "colour", "unknown key"),
        (('rook = "R"', 'rook = "K"'), "pieces.rook.letter", "already the letter of king"),
        (('rook = "R"', 'wizardry = "W"'), "pieces.wizardry", "unknown piece"),
        (('1 = ". . K . R"', '1 = ". . K . X"'), "setup.1", "not a piece letter"),
        (('1 = ". . K . R"', '1 = ". . K R"'), "setup.1", "has 4 squares"),
        (('1 = ". . K . R"', '9 = ". . K . R"'), "setup.9", "ranks are numbered"),
        (("files = 5", "files = 17"), "files", "between 1 and 16, not 17"),
        (("files = 5", "files = 0"), "files", "between 1 and 16, not 0"),
        (("ranks = 5", "ranks = 0"), "ranks", "between 1 and 16, not 0"),
        (('rook = "R"', 'rook = { letter = "R", betza = "Rx" }'), "pieces.rook.betza", "'x'"),
        (('rook = "R"', 'rook = { letter = "R", promotion = { to = ["queen"] } }'),
         "pieces.rook.promotion.to", "unknown piece"),
        (('king = "K"', 'king = "k"'), "pieces.king.letter", "uppercase"),
        (("[setup]", "[rules]\nstalemate = \"lose\"\n[setup]"), "rules.stalemate", "must be"),
    ],
)  # fmt: skip
def test_bad_data_names_file_and_key(
    variants_dir: Path, change: tuple[str, str], key: str, fragment: str
) -> None:
    write(variants_dir, GOOD.replace(*change))
    with pytest.raises(VariantError, match=fragment) as info:
        load_variant("mini")
    assert info.value.key == key
    assert "mini.toml" in info.value.source


def test_castling_squares_must_exist(variants_dir: Path) -> None:
    write(
        variants_dir,
        GOOD
        + '\n[castling]\nmoves = [{ king = "c1", king-to = "i1", rook = "e1", rook-to = "d1" }]\n',
    )
    with pytest.raises(VariantError, match="'i1' is not a square") as info:
        load_variant("mini")
    assert info.value.key == "castling.moves[0].king-to"


def test_inheritance_and_circularity(variants_dir: Path) -> None:
    write(variants_dir, GOOD)
    write(variants_dir, 'id = "child"\nextends = "mini"\nname = "Child"\n', "child")
    assert load_variant("child").geometry.files == 5
    write(variants_dir, 'id = "loop"\nextends = "loop"\n', "loop")
    with pytest.raises(VariantError, match="circular"):
        load_variant("loop")


def test_a_new_piece_can_be_defined_in_a_variant_file(variants_dir: Path) -> None:
    write(
        variants_dir,
        GOOD.replace(
            'rook = "R"', 'rook = "R"\nsprite = { letter = "SP", name = "Sprite", betza = "NN" }'
        ),
    )
    v = load_variant("mini")
    assert v.piece("sprite").name == "Sprite"
