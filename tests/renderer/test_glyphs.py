"""Movement glyphs: every catalogue piece gets one, distinct movements get distinct ones."""

from __future__ import annotations

import pytest
from PIL import ImageChops

from renderer.glyphs import figure_for, glyph_for, rotated
from renderer.sprites import sprite_image
from renderer.view import Dot, Mode, PieceSprite, Ray
from rules.betza import Component, parse_betza
from rules.movement import components_from_entry
from rules.variant import catalogue, load_variant, variant_ids

CATALOGUE = catalogue()


def _components(pid: str) -> tuple[Component, ...]:
    return components_from_entry(CATALOGUE[pid], "rules/pieces.toml", pid)


def _movement_key(comps: tuple[Component, ...]) -> frozenset[tuple[object, ...]]:
    """What a piece does, independent of how its data file spells it."""
    return frozenset(
        (
            c.kind,
            c.vectors,
            c.move,
            c.capture,
            c.initial,
            c.range,
            c.second,
            c.paths,
            c.min_move_steps,
        )
        for c in comps
    )


@pytest.mark.parametrize("pid", sorted(CATALOGUE))
def test_every_catalogue_piece_has_a_glyph_and_sprites(pid: str) -> None:
    glyph = glyph_for(_components(pid))
    assert not glyph.empty
    for color in (0, 1):
        sprite = PieceSprite(pid[:2].upper(), CATALOGUE[pid]["name"], color, glyph)
        for size in (58, 96):
            img = sprite_image(sprite, size, "default")
            assert img.size == (size, size)
            assert img.mode == "RGBA"
            assert img.getbbox() is not None


def test_distinct_movements_give_distinct_glyphs() -> None:
    by_glyph: dict[object, tuple[str, frozenset[tuple[object, ...]]]] = {}
    for pid in CATALOGUE:
        comps = _components(pid)
        glyph = glyph_for(comps)
        key = _movement_key(comps)
        if glyph in by_glyph:
            other, other_key = by_glyph[glyph]
            assert other_key == key, f"{pid} and {other} move differently but look the same"
        by_glyph[glyph] = (pid, key)


def test_distinct_glyphs_give_distinct_pictures() -> None:
    seen: dict[bytes, str] = {}
    glyphs = {glyph_for(_components(pid)): pid for pid in CATALOGUE}
    # Pieces that move alike share a glyph (King and Man; Shogi's Gold and its promoted
    # pieces; the Dragon Horse and the Missionary): one per movement.
    assert len(glyphs) == len({_movement_key(_components(pid)) for pid in CATALOGUE})
    for glyph, pid in glyphs.items():
        data = sprite_image(PieceSprite("X", pid, 0, glyph), 58, "default").tobytes()
        assert data not in seen, f"{pid} is drawn exactly like {seen.get(data)}"
        seen[data] = pid


def test_bigorra_tokens_are_all_different() -> None:
    variant = load_variant("bigorra")
    assert len(variant.pieces) == 34
    pictures = set()
    for p in variant.pieces:
        sprite = PieceSprite(p.letters, p.name, 0, glyph_for(p.components), p.royal, figure_for(p))
        pictures.add(sprite_image(sprite, 58, "default").tobytes())
    assert len(pictures) == 34


def test_marks_keep_their_modes() -> None:
    pawn = glyph_for(parse_betza("fmW fcF"))
    assert Dot(0, 1, Mode.MOVE) in pawn.dots
    assert Dot(1, 1, Mode.CAPTURE) in pawn.dots and Dot(-1, 1, Mode.CAPTURE) in pawn.dots
    cannon = glyph_for(parse_betza("mR cpR"))
    assert Ray((0, 0), (1, 0), Mode.MOVE) in cannon.rays
    assert Ray((0, 0), (1, 0), Mode.CAPTURE, hop=True) in cannon.rays
    walker = glyph_for(parse_betza("mW cW"))
    assert walker == glyph_for(parse_betza("W"))


def test_bent_and_path_pieces() -> None:
    gryphon = glyph_for(_components("gryphon"))
    assert Dot(1, 1) in gryphon.dots
    assert Ray((1, 1), (1, 0)) in gryphon.rays and Ray((1, 1), (0, 1)) in gryphon.rays
    griffin = glyph_for(_components("savard-griffin"))
    assert Dot(1, 1, Mode.CAPTURE) in griffin.dots
    falcon = glyph_for(_components("falcon"))
    assert len(falcon.dots) == 16 and all(d.lame for d in falcon.dots)
    assert len(falcon.trails) == 48
    rhino = glyph_for(_components("savard-rhinoceros"))
    assert rhino.trails and all(t.ride for t in rhino.trails)


def test_black_sees_the_glyph_turned_around() -> None:
    pawn = glyph_for(parse_betza("fmW fcF"))
    turned = rotated(pawn)
    assert Dot(0, -1, Mode.MOVE) in turned.dots
    assert rotated(turned) == pawn
    white = sprite_image(PieceSprite("S", "Soldier", 0, pawn), 58, "default")
    flipped = sprite_image(PieceSprite("S", "Soldier", 0, pawn), 58, "default", True)
    assert ImageChops.difference(white, flipped).convert("RGB").getbbox() is not None


@pytest.mark.parametrize(
    ("variant_id", "piece_id", "figure"),
    [
        ("chess", "king", "king"),
        ("chess", "pawn", "pawn"),
        ("bigorra", "pawn", "pawn"),  # rapid Pawns are still Pawns
        ("bigorra", "king", "king"),  # the Metamachy leap does not change the figure
        ("patricia", "queen", "queen"),
        ("bigorra", "soldier", None),
        ("bigorra", "prince", None),
        ("grand", "marshal", None),
    ],
)
def test_orthodox_pieces_are_figurines(variant_id: str, piece_id: str, figure: str | None) -> None:
    assert figure_for(load_variant(variant_id).piece(piece_id)) == figure


@pytest.mark.parametrize("variant_id", variant_ids())
def test_every_variant_piece_is_drawn(variant_id: str) -> None:
    from renderer.from_rules import piece_sprite

    variant = load_variant(variant_id)
    for p in variant.pieces:
        for color in (0, 1):
            sprite = piece_sprite(variant, p.id, color)
            assert sprite.royal == p.royal
            assert sprite_image(sprite, 58, "contrast").getbbox() is not None
