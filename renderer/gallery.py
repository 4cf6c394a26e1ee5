"""The README gallery: `python -m renderer.gallery [OUT_DIR]` (default `docs/gallery`).

Every picture is listed in `GALLERY`; a picture whose variant does not exist (yet) is
skipped and named in the summary and in the gallery's index, so the same command fills
the gallery in as variants are added. Games are either fixed move lists or a few
seeded random moves, so the pictures are the same on every run.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from renderer.diagram import render_piece
from renderer.from_rules import destinations, render_game
from renderer.legend import render_legend
from rules.errors import UnknownVariantError
from rules.game import Game
from rules.variant import load_variant, variant_ids

DEFAULT_DIR = Path("docs") / "gallery"


@dataclass(frozen=True, slots=True)
class Picture:
    file: str
    caption: str
    variant: str
    kind: str = "board"  # board, piece or legend
    moves: tuple[str, ...] = ()
    random_plies: int = 0
    piece: str = ""
    select: str = ""
    perspective: int = 0
    theme: str = "default"


GALLERY: tuple[Picture, ...] = (
    Picture(
        "chess.png",
        "Chess: the last move framed on both squares, the King in check in red",
        "chess",
        moves=("e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"),
    ),
    Picture(
        "patchanka.png",
        "Patchanka after 12 moves of the book's sample game, the Phoenix on i2 selected",
        "patchanka",
        moves=(
            "e3-e5",
            "e8-e6",
            "Hi2-g4",
            "Wg10-f7",
            "Hg4xe6",
            "d8-d7",
            "He6-g4",
            "Wf7xe5",
            "Hg4-i2",
            "f8-f6",
            "Bd2-d4",
            "g8-g7",
            "f3-f4",
            "We5-f8",
            "Se2-e4",
            "Se9-e7",
            "f4-f5",
            "d7-d6",
            "Bd4-d2",
            "Od10-f7",
            "Sf2-f4",
            "Of7-i5",
            "Bg2-e2",
            "Oi5xj3",
        ),
        select="i2",
    ),
    Picture("bigorra.png", "Bigorra: 16x16, 34 piece types", "bigorra", random_plies=10),
    Picture(
        "timurid-herat.png",
        "Timurid Herat, a few moves in, seen from Black",
        "timurid-herat",
        random_plies=14,
        perspective=1,
    ),
    Picture(
        "patricia.png",
        "Patricia: both hands labelled, two-sided pieces showing their other face",
        "patricia",
        moves=("Bd1-b3", "Bd5-b3", "Kc1-c2", "Rb3-b2", "Qc2xb2", "Kc5-c4"),
    ),
    Picture(
        "frog-gryphon.png",
        "Frog Chess with Gryphon and Falcon: reserve pieces waiting behind their files",
        "frog-gryphon",
        moves=("FA@c1", "G@h1", "FA@b9", "G@i9", "e2e4", "e8e6", "Ni1-h3"),
    ),
    Picture(
        "leaping-bat.png",
        "Leaping Bat Chess (16x12), high-contrast theme",
        "leaping-bat",
        random_plies=8,
        theme="contrast",
    ),
    Picture("piece-eagle.png", "A bent rider: Bigorra's Eagle", "bigorra", "piece", piece="G"),
    Picture(
        "piece-cannon.png", "A hopper and its screens: the Cannon", "bigorra", "piece", piece="C"
    ),
    Picture(
        "piece-falcon.png",
        "A multi-path piece: Florea's Falcon",
        "frog-gryphon",
        "piece",
        piece="FA",
    ),
    Picture("legend-bigorra.png", "Bigorra's legend (/rules)", "bigorra", "legend"),
    Picture(
        "xiangqi.png",
        "Xiangqi on the crossings: river, palaces, WXF's file numbers; C2=5 H8+7 H2+3 R9=8",
        "xiangqi",
        moves=("h3e3", "h10g8", "h1g3", "i10h10"),
    ),
    Picture(
        "janggi.png",
        "Janggi: Cho in green, Han in red, the palaces' diagonals, the rows numbered",
        "janggi",
        moves=("b1c3", "h10g8"),
    ),
    Picture(
        "shogi.png",
        "Shogi: kanji tokens pointing forward, a promoted piece in red, both hands",
        "shogi",
        moves=("c3c4", "g7g6", "b2h8+", "a7a6", "h8h7", "a6a5", "h7g6", "b8g8"),
    ),
)


def _play(picture: Picture) -> Game:
    game = Game.new(picture.variant)
    for text in picture.moves:
        game.play(text, check_marks=False)
    rng = random.Random(f"{picture.variant}-gallery")
    for _ in range(picture.random_plies):
        legal = game.legal_moves()
        if not legal:
            break
        game.play_move(rng.choice(legal).move)
    return game


def render_picture(picture: Picture) -> bytes:
    if picture.kind == "piece":
        return render_piece(picture.variant, picture.piece, theme=picture.theme)
    if picture.kind == "legend":
        return render_legend(picture.variant, theme=picture.theme)
    game = _play(picture)
    highlights: list[int] = []
    captures: list[int] = []
    if picture.select:
        highlights, captures = destinations(game.position, picture.select)
    return render_game(
        game,
        perspective=picture.perspective,
        highlights=highlights,
        captures=captures,
        selected=picture.select or None,
        theme=picture.theme,
    )


def build(out_dir: Path, pictures: Sequence[Picture] = GALLERY) -> tuple[list[str], list[str]]:
    """Write every picture whose variant exists; returns (written files, skipped lines)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    known = set(variant_ids())
    written: list[str] = []
    skipped: list[str] = []
    lines = [
        "# Gallery",
        "",
        "Pictures drawn by `renderer/` (regenerate with `python -m renderer.gallery`).",
        "",
    ]
    for pic in pictures:
        if pic.variant not in known:
            skipped.append(f"{pic.file}: variant {pic.variant!r} does not exist yet")
            continue
        try:
            load_variant(pic.variant)
        except UnknownVariantError as exc:
            skipped.append(f"{pic.file}: {exc}")
            continue
        data = render_picture(pic)
        (out_dir / pic.file).write_bytes(data)
        written.append(pic.file)
        lines += [f"## {pic.caption}", "", f"![{pic.caption}]({pic.file})", ""]
    if skipped:
        lines += ["Not drawn yet:", "", *[f"- {s}" for s in skipped], ""]
    (out_dir / "README.md").write_text("\n".join(lines), encoding="utf-8")
    return written, skipped


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    out_dir = Path(args[0]) if args else DEFAULT_DIR
    written, skipped = build(out_dir)
    for name in written:
        print(f"wrote {out_dir / name}")
    for line in skipped:
        print(f"skipped {line}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
