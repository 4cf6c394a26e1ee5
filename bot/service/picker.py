"""The Move button's menus, without Discord: the pieces that can move, grouped by type and
cut into pages a select menu can hold, then their destinations, then the promotion (or
other) choices when one destination allows several moves.

Every step is computed afresh from storage for the player to move, and carries the ply it
was computed at: the move is finally played through `GameService.play(at_ply=...)`, which
refuses it if the game has moved on meanwhile, exactly like `/move` with the same text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.service.errors import BadRequestError, PositionChangedError
from bot.service.games import GameService
from rules.game import Game as RulesGame
from rules.game import LegalMove
from rules.notation import format_code, square_label
from storage.models import Game

PAGE = 25
"""Options in one Discord select menu."""


@dataclass(frozen=True, slots=True)
class PickerOption:
    value: str  # what the select sends back (at most 100 characters)
    label: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class PickerStep:
    """One menu: what to choose, the options of this page, and where it stands."""

    game_id: int
    ply: int
    prompt: str
    options: tuple[PickerOption, ...]
    page: int = 0
    pages: int = 1
    origin: str | None = None  # chosen piece (a square, or `@` and letters for a drop)
    target: str | None = None  # chosen destination


class MovePicker:
    def __init__(self, games: GameService) -> None:
        self.games = games

    async def pieces(self, *, game_id: int, user_id: int, page: int = 0) -> PickerStep:
        """The pieces of the player to move that have a legal move: by type in the order
        of the variant's piece list, then by square; pages of 25."""
        game, rules_game, moves = await self.games.turn_moves(game_id, user_id)
        if not moves:
            raise BadRequestError("You have no legal move.")
        groups = _by_origin(rules_game, moves)
        order = {p.id: i for i, p in enumerate(rules_game.variant.pieces)}
        entries = sorted(groups.items(), key=lambda kv: _origin_order(rules_game, kv[1][0], order))
        options = []
        for origin, group in entries:
            first = group[0]
            count = len({_target_key(m) for m in group})
            where = "in hand" if first.move.origin is None else _label(rules_game, origin)
            name = first.piece_name or "Pawn"
            options.append(
                PickerOption(
                    origin,
                    f"{name} {where}"[:100],
                    f"{count} destination{'s' if count != 1 else ''}",
                )
            )
        pages = max(1, -(-len(options) // PAGE))
        page = min(max(page, 0), pages - 1)
        chunk = options[page * PAGE : (page + 1) * PAGE]
        prompt = "Choose the piece to move"
        if pages > 1:
            prompt += f" (page {page + 1} of {pages}: {chunk[0].label} … {chunk[-1].label})"
        return PickerStep(game.id, game.ply_count, prompt, tuple(chunk), page, pages)

    async def targets(
        self, *, game_id: int, user_id: int, ply: int, origin: str, page: int = 0
    ) -> PickerStep:
        """Where the chosen piece can go (pages of 25 for long-range pieces)."""
        game, rules_game, moves = await self._at(game_id, user_id, ply)
        group = _by_origin(rules_game, moves).get(origin)
        if not group:
            raise BadRequestError(f"The piece on {origin} has no legal move now.")
        by_target: dict[str, list[LegalMove]] = {}
        for m in group:
            by_target.setdefault(_target_key(m), []).append(m)
        ordered = sorted(
            by_target.items(),
            key=lambda kv: (kv[1][0].move.target.rank, kv[1][0].move.target.file),
        )
        options = []
        for target, ms in ordered:
            if len(ms) == 1:
                label = ms[0].notation
                note = _capture_note(rules_game, ms[0])
            else:
                label = f"{_label(rules_game, target)} ({len(ms)} choices)"
                note = _choice_note(ms)
            options.append(PickerOption(target, label[:100], note[:100]))
        pages = max(1, -(-len(options) // PAGE))
        page = min(max(page, 0), pages - 1)
        chunk = options[page * PAGE : (page + 1) * PAGE]
        first = group[0]
        name = first.piece_name or "Pawn"
        where = (
            "from your hand" if first.move.origin is None else f"on {_label(rules_game, origin)}"
        )
        prompt = f"Where does the {name} {where} go?"
        if pages > 1:
            prompt += f" (page {page + 1} of {pages})"
        return PickerStep(game.id, ply, prompt, tuple(chunk), page, pages, origin=origin)

    async def choices(
        self, *, game_id: int, user_id: int, ply: int, origin: str, target: str
    ) -> PickerStep:
        """The moves from `origin` to `target` (several when it promotes, for example);
        each option's value is the move's printed form, which `/move` reads back."""
        game, rules_game, moves = await self._at(game_id, user_id, ply)
        group = [
            m for m in _by_origin(rules_game, moves).get(origin, []) if _target_key(m) == target
        ]
        if not group:
            raise BadRequestError(f"There is no legal move from {origin} to {target} now.")
        pos = rules_game.position
        options = []
        for m in group:
            text = format_code(pos, pos.to_code(m.move), marks=False)
            promoted = rules_game.variant.piece(m.move.promotion).name if m.move.promotion else None
            options.append(
                PickerOption(
                    text, m.notation[:100], f"becomes a {promoted}" if promoted else "no promotion"
                )
            )
        first = group[0]
        name = first.piece_name or "Pawn"
        return PickerStep(
            game.id,
            ply,
            f"The {name} reaches {_label(rules_game, target)}: choose",
            tuple(options),
            origin=origin,
            target=target,
        )

    def move_text(self, step: PickerStep) -> str | None:
        """The move to play when a step has a single option (no choice to ask)."""
        return step.options[0].value if len(step.options) == 1 else None

    async def _at(
        self, game_id: int, user_id: int, ply: int
    ) -> tuple[Game, RulesGame, list[LegalMove]]:
        if (await self.games.storage.games.get(game_id)).ply_count != ply:
            raise PositionChangedError(game_id)
        game, rules_game, moves = await self.games.turn_moves(game_id, user_id)
        if game.ply_count != ply:
            raise PositionChangedError(game.id)
        return game, rules_game, moves


def _label(rules_game: RulesGame, square: str) -> str:
    """A square (its algebraic name) as the variant's players name it: `7g` in Shogi."""
    sq = rules_game.variant.geometry.parse(square)
    return square if sq is None else square_label(rules_game.variant, sq)


def _origin_key(rules_game: RulesGame, m: LegalMove) -> str:
    """A piece's square, or `@` and its letters for a piece in hand or in reserve."""
    if m.move.origin is not None:
        return m.move.origin.name
    return "@" + (rules_game.variant.piece(m.move.piece or "").letters or "P")


def _target_key(m: LegalMove) -> str:
    return m.move.target.name


def _by_origin(rules_game: RulesGame, moves: Sequence[LegalMove]) -> dict[str, list[LegalMove]]:
    out: dict[str, list[LegalMove]] = {}
    for m in moves:
        out.setdefault(_origin_key(rules_game, m), []).append(m)
    return out


def _piece_id(rules_game: RulesGame, m: LegalMove) -> str:
    if m.move.origin is None:
        return m.move.piece or ""
    geo = rules_game.variant.geometry
    found = rules_game.position.piece_at(geo.index(m.move.origin.file, m.move.origin.rank))
    return found.piece_id if found else ""


def _origin_order(rules_game: RulesGame, m: LegalMove, order: dict[str, int]) -> tuple[int, ...]:
    """Pieces by type (the variant's order: King, Queen, ... Pawn), then by square; pieces
    in hand last."""
    kind = order.get(_piece_id(rules_game, m), len(order))
    if m.move.origin is None:
        return (1, kind, 0, 0)
    return (0, kind, m.move.origin.file, m.move.origin.rank)


def _capture_note(rules_game: RulesGame, m: LegalMove) -> str:
    geo = rules_game.variant.geometry
    victim = rules_game.position.piece_at(geo.index(m.move.target.file, m.move.target.rank))
    notes = []
    if victim is not None and m.move.origin is not None and victim.color != rules_game.side_to_move:
        notes.append(f"takes the {victim.name}")
    if m.notation.endswith("++"):
        notes.append("checkmate")
    elif m.notation.endswith("+"):
        notes.append("check")
    return ", ".join(notes)


def _choice_note(ms: Sequence[LegalMove]) -> str:
    return " / ".join(m.notation for m in ms)
