"""A game: a variant with options, the moves played, and how it stands.

This is the engine's high-level surface for the bot and the tools: play a move typed by a
player (validated, with a precise refusal), list the legal moves in notation, replay a
move list, take moves back, and know the outcome by rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rules.errors import GameOverError, MoveError, RulesError
from rules.moves import Move
from rules.notation import Letters, coordinates, format_code, parse
from rules.outcome import Outcome
from rules.position import Position
from rules.postext import format_position, parse_position
from rules.variant import Variant, load_definition, load_variant, load_variant_argument

ENGINE_VERSION = "1"


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """A ply as it is shown and stored: printed form, coordinates, and the hash of the
    position it led to (hex, stable across processes)."""

    ply: int
    notation: str
    coordinates: str
    move: Move
    position_hash: str


@dataclass(frozen=True, slots=True)
class LegalMove:
    """A legal move with its printed form, for lists and autocomplete."""

    move: Move
    notation: str
    coordinates: str
    piece_name: str


class Game:
    """A game in progress or finished. Not thread-safe; cheap to rebuild from moves."""

    def __init__(self, variant: Variant, start: Position | None = None) -> None:
        self.variant = variant
        self.position = start.copy() if start is not None else Position.start(variant)
        self.start_text = format_position(self.position)
        self.history: list[PlayedMove] = []
        self._codes: list[int] = []
        self._outcome: Outcome | None = None
        self._outcome_ply = -1

    @classmethod
    def new(cls, variant_id: str, options: Iterable[str] = ()) -> Game:
        return cls(load_variant(variant_id, options))

    @classmethod
    def from_position_text(cls, variant: Variant | str, text: str) -> Game:
        pos = parse_position(variant, text)
        return cls(pos.variant, pos)

    @classmethod
    def replay(cls, variant_id: str, options: Iterable[str], moves: Sequence[str]) -> Game:
        """Rebuild a game of a built-in variant from its moves (any accepted form)."""
        return cls.replay_variant(load_variant(variant_id, options), moves)

    @classmethod
    def replay_variant(cls, variant: Variant, moves: Sequence[str]) -> Game:
        """Rebuild a game of any variant (a player's too) from its moves."""
        game = cls(variant)
        for text in moves:
            game.play(text, check_marks=False)
        return game

    # ---------------------------------------------------------------- state

    @property
    def ply(self) -> int:
        return len(self.history)

    @property
    def side_to_move(self) -> int:
        return self.position.side

    @property
    def position_text(self) -> str:
        return format_position(self.position)

    def outcome(self) -> Outcome | None:
        """The end of the game by rule, if it has come (cached per ply)."""
        if self._outcome_ply != self.ply:
            self._outcome = self.position.outcome()
            self._outcome_ply = self.ply
        return self._outcome

    def is_check(self) -> bool:
        return self.position.is_check()

    def legal_moves(self) -> list[LegalMove]:
        """Every legal move with its printed form (check marks included)."""
        pos = self.position
        if self.outcome() is not None:
            return []
        out = []
        for c in pos.legal_codes():
            move = pos.to_move(c)
            mover = pos.board[c & 0xFF] if move.origin is not None else 0
            name = (
                pos.describe(mover).name
                if mover
                else self.variant.piece(move.piece or "").name
                if move.piece
                else ""
            )
            out.append(LegalMove(move, format_code(pos, c), coordinates(pos, c), name))
        return out

    # ---------------------------------------------------------------- playing

    def play(
        self, text: str, *, letters: Letters | None = None, check_marks: bool = False
    ) -> PlayedMove:
        """Play the move `text` (any accepted form, marks ignored unless `check_marks`)
        for the side to move; raise a `MoveError` (nothing changes) when it cannot be read,
        is not legal or is ambiguous, `GameOverError` after the end."""
        ended = self.outcome()
        if ended is not None:
            raise GameOverError(f"the game is over: {ended.result_text}")
        parsed = parse(self.position, text, letters=letters, check_marks=check_marks)
        return self._push(parsed.code)

    def play_move(self, move: Move) -> PlayedMove:
        ended = self.outcome()
        if ended is not None:
            raise GameOverError(f"the game is over: {ended.result_text}")
        return self._push(self.position.to_code(move))

    def _push(self, code: int) -> PlayedMove:
        pos = self.position
        notation = format_code(pos, code)
        coords = coordinates(pos, code)
        move = pos.to_move(code)
        pos.push_code(code)
        self._codes.append(code)
        played = PlayedMove(len(self.history) + 1, notation, coords, move, f"{pos.hash:016x}")
        self.history.append(played)
        return played

    def undo(self) -> PlayedMove:
        """Take back the last ply (for agreed takebacks)."""
        if not self.history:
            raise GameOverError("there is no move to take back")
        self.position.pop_code()
        self._codes.pop()
        return self.history.pop()


def game_after(variant: str, moves: Sequence[str]) -> Game:
    """The game of `variant` (an id or name, options appended with `+`, or the path of a
    definition file, `mine.toml`) after `moves` in any accepted form: what the command
    lines' `VARIANT --moves ...` mean. An illegal move raises `RulesError` naming its place
    in the list."""
    game = Game(load_variant_argument(variant))
    for i, text in enumerate(moves, start=1):
        try:
            game.play(text, check_marks=False)
        except MoveError as exc:
            raise RulesError(f"--moves, move {i}: {exc}") from None
    return game


def replay_to_text(
    variant_id: str,
    options: Sequence[str],
    moves: Sequence[str],
    definition: str | None = None,
) -> str:
    """The position text after playing `moves` from the start: how storage checks the
    position it caches against the moves it keeps. `definition` is the text a game of a
    player's variant pinned (then `variant_id` is only a label)."""
    variant = (
        load_definition(definition, options) if definition else load_variant(variant_id, options)
    )
    return Game.replay_variant(variant, moves).position_text
