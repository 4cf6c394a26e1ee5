"""The sanity run: after the static checks, prove that a player's variant can be played.

From the start position: no King can be taken at once, the side to move has legal moves,
perft 2 completes, and a few seeded random playouts of both sides reach a legal end or a
ply limit, every move surviving the round trip through the notation and every few plies the
position text, with no exception. All of it within a work budget counted in moves generated
and made (`rules.limits.MAX_SANITY_WORK`), so the cost of a file is bounded by counting, not
by a clock: the same file always passes or fails the same way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rules import limits
from rules.errors import RulesError, VariantError
from rules.notation import coordinates, format_code, parse
from rules.outcome import Outcome
from rules.perft import perft
from rules.position import Position
from rules.postext import format_position, parse_position
from rules.tables import Tables
from rules.variant import Variant, in_file

PLAYOUTS = 4
MAX_PLIES = 160
MAX_LEGAL_MOVES = 2000
"""A position with more legal moves makes every listing slow (autocomplete formats each)."""


class _OverBudget(Exception):
    pass


class _CountingPosition(Position):
    """A position that counts its work: every move generated, every move made, every check
    test (weighted by the special attackers it must look at)."""

    __slots__ = ("budget", "work")
    budget: int
    work: int

    def __init__(self, variant: Variant, tables: Tables) -> None:
        # Counting starts with the position: its first repetition key may test for check.
        self.work = 0
        self.budget = limits.MAX_SANITY_WORK
        super().__init__(variant, tables)

    def count(self, n: int) -> None:
        self.work += n
        if self.work > self.budget:
            raise _OverBudget

    def pseudo_codes(self) -> list[int]:
        out = super().pseudo_codes()
        self.count(len(out))
        return out

    def push_code(self, c: int, keep_key: bool = True) -> None:
        self.count(1)
        super().push_code(c, keep_key)

    def attacked(self, target: int, by: int) -> bool:
        # A check test costs more with every bent, path or conditional attacker on the board.
        self.count(1 + sum(len(self.pieces[c]) for c in self.t.special_codes[by]))
        return super().attacked(target, by)


@dataclass(frozen=True, slots=True)
class SanityReport:
    start_moves: int
    perft2: int
    endings: tuple[str, ...]
    """How each playout ended: a result text with its ply, or the ply limit."""
    work: int
    """Moves generated and made, against `rules.limits.MAX_SANITY_WORK`."""

    def lines(self) -> list[str]:
        return [
            f"legal moves from the start: {self.start_moves}",
            f"perft 2: {self.perft2:,}",
            *(f"random playout {i}: {e}" for i, e in enumerate(self.endings, start=1)),
            f"work: {self.work:,} moves generated or made (bound {limits.MAX_SANITY_WORK:,})",
        ]


def sanity_check(
    variant: Variant,
    *,
    playouts: int = PLAYOUTS,
    max_plies: int = MAX_PLIES,
    budget: int = limits.MAX_SANITY_WORK,
) -> SanityReport:
    """Play the variant a little; `VariantError` (key `setup` or `pieces`) says what failed,
    with the line and an example for a player's file."""
    try:
        return _run(variant, playouts, max_plies, budget)
    except VariantError as exc:
        raise in_file(exc, variant.definition) if variant.definition else exc from None


def _run(variant: Variant, playouts: int, max_plies: int, budget: int) -> SanityReport:
    source = variant.source_file or variant.id
    pos = _CountingPosition.start(variant)
    assert isinstance(pos, _CountingPosition)
    pos.work = 0
    pos.budget = budget
    try:
        _check_start(variant, pos, source)
        start_moves = len(pos.legal_codes())
        if not start_moves:
            whose = ("White", "Black")[variant.first]
            raise VariantError(source, "setup", f"{whose} has no legal move in the start position")
        leaves = perft(pos, 2)
        seed = variant.digest or variant.id
        endings = tuple(
            _playout(variant, pos, random.Random(f"{seed}/{i}"), max_plies, source, i + 1)
            for i in range(playouts)
        )
    except _OverBudget:
        raise VariantError(
            source,
            "pieces",
            f"the sanity run needed more than {budget:,} moves generated or made (perft 2 "
            "and a few random games): positions of this variant are too expensive to list "
            "for the bot; use fewer or shorter-ranged pieces, or a smaller board",
        ) from None
    return SanityReport(start_moves, leaves, endings, pos.work)


def _check_start(variant: Variant, pos: Position, source: str) -> None:
    """No King may be capturable at once: not Black's by White, who moves first, nor
    White's (a start in check)."""
    t = pos.t
    geo = t.geo
    for victim in (1, 0):
        king = pos.kings[victim]
        if king < 0 or not pos.attacked(king, victim ^ 1):
            continue
        attacker = next(
            (sq for sq, code in pos.occupied() if code & 1 != victim and _attacks(pos, sq, king)),
            None,
        )
        by = (
            f"{('White', 'Black')[victim ^ 1]}'s {pos.describe(pos.board[attacker]).name} on "
            f"{geo.name(attacker)}"
            if attacker is not None
            else ("White", "Black")[victim ^ 1]
        )
        name = pos.describe(pos.board[king]).name
        who = ("White", "Black")[victim]
        if victim == 1:
            reason = (
                f"in the start position {by} attacks {who}'s {name} on {geo.name(king)}: "
                "White, who moves first, could capture it"
            )
        else:
            reason = f"{who}'s {name} on {geo.name(king)} starts in check from {by}"
        raise VariantError(source, "setup", reason + "; move the pieces apart")


def _attacks(pos: Position, origin: int, target: int) -> bool:
    """Whether the piece on `origin` alone could capture on `target` (for the message)."""
    saved = pos.side
    pos.side = pos.board[origin] & 1
    try:
        return any(c & 0xFF == origin and (c >> 8) & 0xFF == target for c in pos.pseudo_codes())
    finally:
        pos.side = saved


def _playout(
    variant: Variant, start: Position, rng: random.Random, max_plies: int, source: str, n: int
) -> str:
    pos = start.copy()
    assert isinstance(start, _CountingPosition)
    played: list[str] = []
    try:
        for ply in range(max_plies):
            legal = pos.legal_codes()
            start.count(len(legal))
            if len(legal) > MAX_LEGAL_MOVES:
                raise VariantError(
                    source,
                    "pieces",
                    f"a position with {len(legal):,} legal moves came up (random game {n}, "
                    f"ply {ply + 1}); the bot lists at most {MAX_LEGAL_MOVES:,}",
                )
            ended: Outcome | None = pos.outcome(legal)
            if ended is not None:
                return f"{ended.result_text} after {ply} plies"
            code = rng.choice(legal)
            text = format_code(pos, code)
            if parse(pos, text).code != code:
                raise RulesError(f"{text!r} reads back as another move")
            played.append(coordinates(pos, code))
            pos.push_code(code)
            start.count(1)
            if ply % 10 == 9:
                again = parse_position(variant, format_position(pos))
                if again.hash != pos.hash:
                    raise RulesError("the position text does not read back the same")
        return f"no result after {max_plies} plies (the playout stops there)"
    except VariantError:
        raise
    except _OverBudget:
        raise
    except Exception as exc:  # a defect the file reveals: refuse it rather than crash a game
        moves = " ".join(played[-8:])
        raise VariantError(
            source,
            "",
            f"the sanity run failed in random game {n} at ply {len(played) + 1} "
            f"(last moves: {moves or 'none'}): {type(exc).__name__}: {exc}. Please report "
            "this file to the bot's operators",
        ) from exc
