"""The service's window on the rules engine: cached games, variant facts, outcomes."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence

import rules
from bot.service.models import PieceInfo, Suggestion, VariantInfo
from rules.game import Game as RulesGame
from rules.game import LegalMove
from rules.outcome import Outcome as RulesOutcome
from rules.outcome import Termination as RulesTermination
from rules.summary import describe_movement
from rules.variant import Variant
from storage.engine import Engine
from storage.models import GuildVariant, Outcome, Result, Termination

STORAGE_ENGINE = Engine(version=rules.ENGINE_VERSION, replay=rules.replay_to_text)
"""How storage replays games to check the positions it caches."""

_TERMINATIONS = {
    RulesTermination.AGREEMENT: Termination.AGREEMENT,
    RulesTermination.RESIGNATION: Termination.RESIGNATION,
    RulesTermination.TIME: Termination.TIMEOUT,
    RulesTermination.ABORTED: Termination.ABORTED,
}


def storage_outcome(outcome: RulesOutcome) -> Outcome:
    """A rules outcome as storage records it; the exact result text goes in the detail
    (it distinguishes, for example, a Bat-game stalemate scored 3/5 from a checkmate)."""
    if outcome.winner is None:
        result = Result.DRAW
    else:
        result = Result.WHITE_WINS if outcome.winner == 0 else Result.BLACK_WINS
    termination = _TERMINATIONS.get(outcome.termination, Termination.RULES)
    return Outcome(result, termination, outcome.result_text)


def variant_info(variant: Variant, own: GuildVariant | None = None) -> VariantInfo:
    """Facts about a variant for lists and embeds; `own`: the server's record of it."""
    return VariantInfo(
        id=variant.id,
        name=variant.name,
        description=variant.description,
        files=variant.geometry.files,
        ranks=variant.geometry.ranks,
        status=variant.status,
        inventor=variant.inventor,
        options=tuple((o.name, o.description) for o in variant.option_defs),
        own=bool(variant.digest),
        version=own.version if own else 0,
        author_id=own.author_id if own else None,
    )


def piece_infos(variant: Variant) -> tuple[PieceInfo, ...]:
    return tuple(
        PieceInfo(p.letters or "(none)", p.name, p.id, describe_movement(p)) for p in variant.pieces
    )


class GameCache:
    """Rules games by storage id, valid for one revision of the game's move list.

    Several bot processes may share the database: a cached game is used only while the
    stored game is at the same revision (storage raises it on every move and takeback), so a
    process whose cache is behind another process's moves rebuilds it from the move list.
    Only the service's per-game lock holder mutates a cached game, and only after the move
    is stored; a failed store drops the entry so the next reader rebuilds it."""

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._games: OrderedDict[int, tuple[int, RulesGame]] = OrderedDict()
        self._moves: dict[tuple[int, int], list[LegalMove]] = {}

    def get(self, game_id: int, ply: int, revision: int) -> RulesGame | None:
        entry = self._games.get(game_id)
        if entry is None or entry[0] != revision or entry[1].ply != ply:
            return None
        self._games.move_to_end(game_id)
        return entry[1]

    def put(self, game_id: int, game: RulesGame, revision: int) -> None:
        self._games[game_id] = (revision, game)
        self._games.move_to_end(game_id)
        self._forget_moves(game_id)
        while len(self._games) > self._size:
            old, _ = self._games.popitem(last=False)
            self._forget_moves(old)

    def drop(self, game_id: int) -> None:
        self._games.pop(game_id, None)
        self._forget_moves(game_id)

    def legal_moves(self, game_id: int, game: RulesGame) -> list[LegalMove]:
        """The legal moves with their notation, computed once per cached position
        (autocomplete); `put` forgets them."""
        key = (game_id, game.ply)
        found = self._moves.get(key)
        if found is None:
            self._forget_moves(game_id)
            found = game.legal_moves()
            self._moves[key] = found
        return found

    def _forget_moves(self, game_id: int) -> None:
        for key in [k for k in self._moves if k[0] == game_id]:
            del self._moves[key]


def replay(variant: Variant, coordinates: Sequence[str]) -> RulesGame:
    return RulesGame.replay_variant(variant, coordinates)


_SEPARATORS = re.compile(r"[\s\-x:·]+")


def _squash(text: str) -> str:
    return _SEPARATORS.sub("", text).lower()


def suggest(moves: Sequence[LegalMove], typed: str, limit: int = 25) -> list[Suggestion]:
    """Legal moves matching what the player typed so far, best matches first: the
    printed form or the coordinates starting with it, then containing it."""
    key = _squash(typed)
    first: list[Suggestion] = []
    later: list[Suggestion] = []
    for m in moves:
        printed = _squash(m.notation)
        coords = _squash(m.coordinates)
        label = f"{m.notation} · {m.piece_name}" if m.piece_name else m.notation
        item = Suggestion(label[:100], m.notation[:100])
        if not key or printed.startswith(key) or coords.startswith(key):
            first.append(item)
        elif key in printed or key in coords:
            later.append(item)
        if len(first) >= limit:
            break
    return (first + later)[:limit]
