"""The gallery script skips variants that do not exist yet and says so."""

from __future__ import annotations

from pathlib import Path

from renderer.gallery import GALLERY, Picture, build


def test_gallery_skips_missing_variants(tmp_path: Path) -> None:
    pictures = (
        Picture("chess.png", "Chess", "chess", moves=("e2e4",)),
        Picture("piece.png", "A piece", "chess", "piece", piece="N"),
        Picture("future.png", "Not yet", "no-such-variant", random_plies=4),
    )
    written, skipped = build(tmp_path, pictures)
    assert written == ["chess.png", "piece.png"]
    assert len(skipped) == 1 and "no-such-variant" in skipped[0]
    index = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "![Chess](chess.png)" in index and "Not drawn yet" in index
    assert not (tmp_path / "future.png").exists()


def test_gallery_lists_the_wanted_pictures() -> None:
    variants = {p.variant for p in GALLERY}
    assert {"chess", "patchanka", "bigorra", "timurid-herat"} <= variants
    assert any(p.kind == "piece" for p in GALLERY)
