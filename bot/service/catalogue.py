"""The built-in catalogue as players browse it, and what any variant shows: rules summaries,
piece lookups. A server's own variants join the built-in ones in `bot.service.variants`,
the one place that resolves what a player names."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from bot.service.engine import piece_infos, variant_info
from bot.service.errors import BadRequestError
from bot.service.models import PieceInfo, RulesView, Scene, Suggestion, VariantInfo
from rules.errors import UnknownVariantError
from rules.game import Game as RulesGame
from rules.summary import rules_summary
from rules.variant import (
    PieceType,
    Variant,
    load_variant,
    normalize_name,
    resolve_variant_id,
    variant_ids,
)
from search.values import PieceValue
from storage.models import GuildVariant


@cache
def all_variants() -> tuple[VariantInfo, ...]:
    return tuple(variant_info(load_variant(v)) for v in variant_ids())


def find_variant(text: str) -> Variant:
    """A built-in variant by id or name (options after `+`)."""
    try:
        variant_id, options = resolve_variant_id(text)
        return load_variant(variant_id, options)
    except UnknownVariantError as exc:
        raise BadRequestError(f"{exc}. Try /variants for the list.") from None


Rank = tuple[int, int]
"""A suggestion's place (`match_rank`): lower is better."""

FIRST_OFFERED = (
    "chess",
    "xiangqi",
    "shogi",
    "janggi",
    "makruk",
    "crazyhouse",
    "grand",
    "capablanca",
    "minishogi",
    "3check",
    "kingofthehill",
    "antichess",
)
"""What an empty variant option offers first: a newcomer sees Chess and the most-played
games of the variant servers before the rest of the catalogue (in file order, which begins
with Three-check and Ai-Wok). Ids not in the catalogue are passed over."""


def match_rank(typed: str, variant_id: str, name: str) -> Rank | None:
    """How well a variant answers what a player typed, for autocomplete: 0 exactly its id or
    name (typing `chess` must offer Chess first, before Hawk Chess), 1 the start of its id or
    name (`ch`: Chess before ASEAN Chess), 2 the start of a word of the name, 3 anywhere in
    them; None: not at all. Among starts, the fewest letters beyond those typed come first
    (`ch`: Chess before Chancellor Chess and Chigorin Chess). Empty text matches all, the
    `FIRST_OFFERED` games first."""
    key = normalize_name(typed)
    if not key:
        if variant_id in FIRST_OFFERED:
            return (1, FIRST_OFFERED.index(variant_id))
        return (1, len(FIRST_OFFERED))
    named = normalize_name(name)
    if key in (variant_id, named):
        return (0, 0)
    starts = [len(text) for text in (variant_id, named) if text.startswith(key)]
    if starts:
        return (1, min(starts) - len(key))
    if f"-{key}" in f"-{named}":
        return (2, 0)
    if key in variant_id or key in named:
        return (3, 0)
    return None


def ranked_variants(typed: str) -> list[tuple[Rank, Suggestion]]:
    """The built-in variants matching `typed` with their rank (`match_rank`), best first."""
    out = []
    for info in all_variants():
        rank = match_rank(typed, info.id, info.name)
        if rank is not None:
            out.append((rank, Suggestion(f"{info.name} ({info.size})"[:100], info.id)))
    return sorted(out, key=lambda pair: pair[0])


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


def piece_suggestions(variant: Variant, typed: str, limit: int = 25) -> list[Suggestion]:
    low = typed.strip().lower()
    out = []
    for p in variant.pieces:
        label = f"{p.name} ({p.letters})" if p.letters else p.name
        if not low or low in label.lower() or low == p.letters.lower():
            out.append(Suggestion(label[:100], p.letters or p.name))
    return out[:limit]


def rules_view(
    v: Variant, own: GuildVariant | None = None, values: Sequence[PieceValue] | None = None
) -> RulesView:
    """The rules summary, pieces and start position of a variant (a server's with `own`;
    `values`: its piece values if computed elsewhere)."""
    return RulesView(
        variant_info(v, own),
        piece_infos(v, values),
        rules_summary(v),
        Scene(RulesGame(v).position, 0),
    )


def piece_info(
    v: Variant, piece_text: str, values: Sequence[PieceValue] | None = None
) -> PieceInfo:
    p = find_piece(v, piece_text)
    return next(i for i in piece_infos(v, values) if i.id == p.id)
