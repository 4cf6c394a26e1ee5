"""The service's window on the rules engine: cached games, variant facts, outcomes."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence

import rules
from bot.service.models import PieceInfo, Suggestion, VariantInfo
from rules import shuffle
from rules.game import Game as RulesGame
from rules.game import LegalMove
from rules.outcome import Outcome as RulesOutcome
from rules.outcome import Termination as RulesTermination
from rules.summary import describe_movement
from rules.variant import Variant
from search.values import PieceValue, piece_values
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
        start_array=shuffle.pinned_array(variant),
    )


def piece_infos(
    variant: Variant, values: Sequence[PieceValue] | None = None
) -> tuple[PieceInfo, ...]:
    """The pieces for legends, with the values the engine derives from their movement
    (`values`: computed elsewhere, else here, cached per variant; a second the first time
    for a 16x16 variant)."""
    by_id = {v.piece_id: v.value for v in (piece_values(variant) if values is None else values)}
    return tuple(
        PieceInfo(
            p.letters or "(none)",
            p.name,
            p.id,
            describe_movement(p),
            by_id.get(p.id),
            "" if p.glyph is None else "/".join(dict.fromkeys(p.glyph)),
        )
        for p in variant.pieces
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
        self._listed: OrderedDict[int, tuple[int, list[LegalMove]]] = OrderedDict()

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
        self._listed.pop(game_id, None)
        self._forget_moves(game_id)

    def listed(self, game_id: int, revision: int) -> list[LegalMove] | None:
        """The legal moves listed for a game at `revision` (`keep_listed`), if any: a
        revision changes with every move and takeback, so an old list is never returned."""
        entry = self._listed.get(game_id)
        if entry is None or entry[0] != revision:
            return None
        self._listed.move_to_end(game_id)
        return entry[1]

    def keep_listed(self, game_id: int, revision: int, moves: list[LegalMove]) -> None:
        """Keeps the moves listed at `revision` (one list per game, as many games as the
        cache holds), whether or not the game itself is cached."""
        self._listed[game_id] = (revision, moves)
        self._listed.move_to_end(game_id)
        while len(self._listed) > self._size:
            self._listed.popitem(last=False)

    def legal_moves(self, game_id: int, game: RulesGame) -> list[LegalMove]:
        """The legal moves with their notation, in the order a player scans them
        (`scan_order`), computed once per cached position (autocomplete, /moves, the Move
        button); `put` forgets them."""
        key = (game_id, game.ply)
        found = self._moves.get(key)
        if found is None:
            self._forget_moves(game_id)
            names = [p.name for p in game.variant.pieces]
            found = scan_order(game.legal_moves(), names)
            self._moves[key] = found
        return found

    def _forget_moves(self, game_id: int) -> None:
        for key in [k for k in self._moves if k[0] == game_id]:
            del self._moves[key]


def replay(variant: Variant, coordinates: Sequence[str]) -> RulesGame:
    return RulesGame.replay_variant(variant, coordinates)


_SEPARATORS = re.compile(r"[\s\-x:·]+")
_LETTERS = re.compile(r"\+?[A-Z]{1,2}")
_SHOGI_ORIGIN = re.compile(r"^(\+?[A-Z]{1,2})\d[a-p](?=[-x])")
"""The origin square of a move in Western Shogi notation (`P7g-7f`): players type `P-7f`."""
_SHORT = re.compile(r"(?P<letters>[A-Z]{1,2})?[x:]?(?P<target>[a-p]\d{1,2})")


def _squash(text: str) -> str:
    return _SEPARATORS.sub("", text).lower()


def _letters_of(m: LegalMove) -> str:
    """The piece letters a printed move starts with (`` for a Pawn, `O` for castling)."""
    found = _LETTERS.match(m.notation)
    return found.group(0) if found else ""


def scan_order(moves: Sequence[LegalMove], piece_order: Sequence[str]) -> list[LegalMove]:
    """Moves as a player scans them: by piece type (the variant's order, King first), then
    the piece's square, then the destination (files, then ranks)."""
    rank = {name: i for i, name in enumerate(piece_order)}

    def key(m: LegalMove) -> tuple[int, int, int, int, int, int]:
        origin = m.move.origin
        return (
            rank.get(m.piece_name, len(rank)),
            origin is None,
            origin.file if origin else 0,
            origin.rank if origin else 0,
            m.move.target.file,
            m.move.target.rank,
        )

    return sorted(moves, key=key)


def suggest(moves: Sequence[LegalMove], typed: str, limit: int = 25) -> list[Suggestion]:
    """Legal moves matching what the player typed so far, in the order given (see
    `scan_order`), the closest matches first: `x` narrows to captures (`xd5`: captures on
    d5); piece letters (`N`, `SN`) to that piece's moves; a square (`e4`) to the moves
    that end there, then those that start there; a short move (`Nf3`, `exd5`) to the moves
    it names; anything else to the printed form or coordinates starting with it, then
    containing it."""
    text = "".join(typed.split())
    key = _squash(text)
    tiers: list[list[LegalMove]] = [[], [], []]
    for m in moves:
        printed, coords = _squash(m.notation), _squash(m.coordinates)
        western = _squash(_SHOGI_ORIGIN.sub(r"\1", m.notation))
        target = m.move.target.name
        capture = "x" in m.notation.split(" ")[0]
        if text[:1] == "x":
            if capture and target.startswith(key):
                tiers[0].append(m)
        elif not key:
            tiers[0].append(m)
        elif _LETTERS.fullmatch(text):
            if _letters_of(m).startswith(text):
                tiers[0 if _letters_of(m) == text else 1].append(m)
        elif (short := _SHORT.fullmatch(text)) and target == short["target"]:
            letters = short["letters"]
            if letters is None or _letters_of(m) == letters:
                tiers[0].append(m)
            elif printed.startswith(key) or coords.startswith(key):
                tiers[1].append(m)
        elif printed.startswith(key) or coords.startswith(key) or western.startswith(key):
            tiers[1].append(m)
        elif key in printed or key in coords:
            tiers[2].append(m)
    out = []
    for m in tiers[0] + tiers[1] + tiers[2]:
        label = f"{m.notation} · {m.piece_name}" if m.piece_name else m.notation
        out.append(Suggestion(label[:100], m.notation[:100]))
        if len(out) >= limit:
            break
    return out
