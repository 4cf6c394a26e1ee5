"""The variant catalogue as players browse it: lists, rules summaries, piece lookups."""

from __future__ import annotations

from functools import cache

from bot.service.engine import piece_infos, variant_info
from bot.service.errors import BadRequestError
from bot.service.models import PieceInfo, RulesView, Scene, Suggestion, VariantInfo
from rules.errors import UnknownVariantError
from rules.game import Game as RulesGame
from rules.variant import (
    PieceType,
    Variant,
    load_variant,
    normalize_name,
    resolve_variant_id,
    variant_ids,
)


@cache
def all_variants() -> tuple[VariantInfo, ...]:
    return tuple(variant_info(load_variant(v)) for v in variant_ids())


def find_variant(text: str) -> Variant:
    try:
        variant_id, options = resolve_variant_id(text)
        return load_variant(variant_id, options)
    except UnknownVariantError as exc:
        raise BadRequestError(f"{exc}. Try /variants for the list.") from None


def variant_suggestions(typed: str, limit: int = 25) -> list[Suggestion]:
    key = normalize_name(typed)
    out = []
    for info in all_variants():
        if not key or key in info.id or key in normalize_name(info.name):
            out.append(Suggestion(f"{info.name} ({info.size})"[:100], info.id))
    return out[:limit]


def find_piece(variant: Variant, text: str) -> PieceType:
    key = text.strip()
    for p in variant.pieces:
        if key == p.letters and key:
            return p
    low = key.lower()
    for p in variant.pieces:
        if low in (p.id, p.name.lower()) or low in (a.lower() for a in p.aliases):
            return p
    if low in ("pawn", "p", ""):
        pawn = next((p for p in variant.pieces if p.is_pawn), None)
        if pawn is not None:
            return pawn
    names = ", ".join(f"{p.name} ({p.letters})" if p.letters else p.name for p in variant.pieces)
    raise BadRequestError(f"{variant.name} has no piece {text!r}. Its pieces: {names}.")


def piece_suggestions(variant_text: str, typed: str, limit: int = 25) -> list[Suggestion]:
    try:
        variant = find_variant(variant_text)
    except BadRequestError:
        return []
    low = typed.strip().lower()
    out = []
    for p in variant.pieces:
        label = f"{p.name} ({p.letters})" if p.letters else p.name
        if not low or low in label.lower() or low == p.letters.lower():
            out.append(Suggestion(label[:100], p.letters or p.name))
    return out[:limit]


def _rows(rows: frozenset[int]) -> str:
    return ", ".join(str(r) for r in sorted(rows))


def rules_summary(v: Variant) -> tuple[str, ...]:
    """Short rule lines generated from the variant's data."""
    lines = []
    if v.goal == "royal-capture":
        lines.append("Win by capturing the royal piece; there is no check rule.")
    else:
        lines.append("Checkmate wins.")
    if v.stalemate == "win-on-points":
        lines.append("Stalemate scores 3/5 for the side that stalemates, 2/5 for the other.")
    else:
        lines.append("Stalemate is a draw.")
    rule = f"the {v.move_rule}-move rule" if v.move_rule else "no move-count rule"
    lines.append(f"Threefold repetition is a draw; {rule}. Draws by rule are automatic.")
    if v.castling:
        squares = abs(v.castling[0].king_to - v.castling[0].king_from)
        lines.append(f"Castling: the King moves {squares} squares (O-O, O-O-O).")
    elif v.fast_castling:
        lines.append(
            "Fast castling: the King jumps to any empty safe square toward an unmoved Rook, "
            "e.g. O-O(h1)."
        )
    if v.ep_capturers:
        names = ", ".join(v.piece(p).name for p in sorted(v.ep_capturers))
        lines.append(f"En passant: taken by {names}.")
    for p in v.pieces:
        if p.promotion:
            to = ", ".join(v.piece(t).name for t in p.promotion.to)
            parts = []
            if p.promotion.compulsory_rows:
                parts.append(f"must promote on row {_rows(p.promotion.compulsory_rows)}")
            if p.promotion.optional_rows:
                parts.append(f"may promote on row {_rows(p.promotion.optional_rows)}")
            extra = (
                " (only to types below their starting count)"
                if p.promotion.limited_by_start_count
                else ""
            )
            lines.append(f"{p.name}: {' and '.join(parts)} to {to}{extra}.")
        if p.initial_leap:
            lines.append(f"{p.name}: on its first move it may leap two squares (Metamachy rule).")
        if p.once_per_game:
            lines.append(f"{p.name}: once per game it may make a Knight's move.")
        if p.succession:
            heir = v.piece(p.succession).name
            lines.append(f"{p.name}: checkmated, it may swap places with a {heir} (Kf2<>Pe5).")
    if v.captures_to_hand:
        lines.append("Captured pieces go to your hand; drop them on empty squares (B*c3).")
    if v.reserve:
        names = " and ".join(v.piece(r).name for r in v.reserve)
        lines.append(
            f"Before move 1 each side places its {names} behind back-rank pieces (FA@c1); "
            "they enter when that piece first moves."
        )
    return tuple(lines)


def rules_view(text: str) -> RulesView:
    v = find_variant(text)
    return RulesView(
        variant_info(v), piece_infos(v), rules_summary(v), Scene(RulesGame(v).position, 0)
    )


def piece_info(variant_text: str, piece_text: str) -> tuple[Variant, PieceInfo]:
    v = find_variant(variant_text)
    p = find_piece(v, piece_text)
    info = next(i for i in piece_infos(v) if i.id == p.id)
    return v, info
