"""The adapter from the rules engine to plain board views, and the shortcuts built on it.

`board_view(position)` reads a `rules.Position` (board, hands, reserve pieces, gates,
placement phase) into a `BoardView`; `render_position` and `render_game` draw it, the
latter marking the last move and a check by itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from renderer.board import Square as SquareRef
from renderer.board import render_board
from renderer.glyphs import figure_for, glyph_of_piece
from renderer.view import BoardView, HandPiece, Lines, PieceSprite, Traditional
from rules.game import Game
from rules.geometry import Square
from rules.moves import Move, MoveKind
from rules.position import Position
from rules.variant import PieceType, Variant


class Auto:
    """The default of `render_game`'s `last_move` and `check`: work it out."""

    def __repr__(self) -> str:
        return "AUTO"


AUTO = Auto()


@lru_cache(maxsize=4096)
def piece_sprite(variant: Variant, piece_id: str, color: int) -> PieceSprite:
    """How a piece of `variant` looks (cached per variant object, piece and colour)."""
    p = variant.piece(piece_id)
    reverse = ""
    if p.flip is not None and p.flip != p.id:
        other = variant.piece(p.flip)
        reverse = other.letters or other.name[:1].upper()  # the Pawn has no letter: "P"
    return PieceSprite(
        letters=p.letters,
        name=p.name,
        color=color,
        glyph=glyph_of_piece(p),
        royal=p.royal,
        figure=figure_for(p),
        reverse=reverse,
        characters=p.glyph[color] if p.glyph is not None else "",
        promoted=p.demotes_to is not None,
    )


INK = {"disc": ("#c8102e", "#161616"), "pointed": ("#161616", "#161616")}
"""The usual colours of the characters: Xiangqi's red and black; Shogi's black on both
sides (promoted pieces are written in red whatever the side)."""


@lru_cache(maxsize=256)
def traditional_set(variant: Variant) -> Traditional | None:
    """The variant's traditional piece set, when every piece has its characters (`glyph`)
    and the shipped font writes them all; None otherwise (letter tokens only)."""
    from renderer.sprites import cjk_characters

    known = cjk_characters()
    if not variant.pieces or any(
        p.glyph is None or not set(p.glyph[0] + p.glyph[1]) <= known for p in variant.pieces
    ):
        return None
    d = variant.display
    shape = d.pieces or ("disc" if d.intersections else "pointed")
    return Traditional(shape, d.ink or INK[shape])


@lru_cache(maxsize=256)
def board_lines(variant: Variant) -> Lines | None:
    """A board of lines (`[display] intersections = true`): river, palaces and the file
    and row numbers the variant's notation counts (WXF: each side from its right; Janggi:
    files from the left, rows from the top with the tenth as 0)."""
    d = variant.display
    if not d.intersections:
        return None
    geo = variant.geometry
    boxes: list[tuple[int, int, int, int]] = []
    for name in d.palaces:
        region = variant.region(name)
        for color in (0, 1):
            squares = region.of(color)
            if not squares:
                continue
            files = [geo.file_of(s) for s in squares]
            ranks = [geo.rank_of(s) for s in squares]
            box = (min(files), min(ranks), max(files), max(ranks))
            if box not in boxes:
                boxes.append(box)
    side_files: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    rows: tuple[str, ...] | None = None
    if variant.notation == "wxf":
        side_files = (
            tuple(str(geo.files - f) for f in range(geo.files)),
            tuple(str(f + 1) for f in range(geo.files)),
        )
    elif variant.notation == "janggi":
        numbers = tuple(str(f + 1) for f in range(geo.files))
        side_files = (numbers, numbers)
        rows = tuple(str((geo.ranks - r) % 10) for r in range(geo.ranks))
    return Lines(d.river, tuple(boxes), side_files, rows, d.marks)


def board_view(position: Position) -> BoardView:
    """Everything `render_board` needs from a position, as plain data."""
    variant = position.variant
    geo = variant.geometry
    pieces: dict[int, PieceSprite] = {}
    for sq in range(geo.size):
        found = position.piece_at(sq)
        if found is not None:
            pieces[sq] = piece_sprite(variant, found.piece_id, found.color)
    hands: tuple[tuple[HandPiece, ...], tuple[HandPiece, ...]] | None = None
    if variant.has_hand:
        order = {p.id: i for i, p in enumerate(variant.pieces)}
        per_side = []
        for color in (0, 1):
            held = position.hand(color)
            per_side.append(
                tuple(
                    HandPiece(piece_sprite(variant, pid, color), n)
                    for pid, n in sorted(held.items(), key=lambda kv: order[kv[0]])
                    if n > 0
                )
            )
        hands = (per_side[0], per_side[1])
    reserve = tuple(
        tuple(
            piece_sprite(variant, position.describe(code).piece_id, color)
            for code in position.reserve[color]
        )
        for color in (0, 1)
    )
    gates = tuple(
        {
            sq: piece_sprite(variant, position.describe(code).piece_id, color)
            for sq, code in sorted(position.gates[color].items())
        }
        for color in (0, 1)
    )
    return BoardView(
        files=geo.files,
        ranks=geo.ranks,
        pieces=pieces,
        hands=hands,
        reserve=(reserve[0], reserve[1]),
        gates=(gates[0], gates[1]),
        placing=position.placing,
        has_reserve=variant.placement,
        shogi_coordinates=variant.notation == "shogi",
        lines=board_lines(variant),
        traditional=traditional_set(variant),
        walls=frozenset(position.walls()),
    )


def _index(position: Position, sq: Square) -> int:
    return position.variant.geometry.index(sq.file, sq.rank)


def render_position(
    position: Position,
    *,
    perspective: int = 0,
    last_move: Sequence[SquareRef | None] | None = None,
    placed: tuple[int, SquareRef] | None = None,
    check: SquareRef | None = None,
    highlights: Iterable[SquareRef] = (),
    captures: Iterable[SquareRef] = (),
    selected: SquareRef | None = None,
    coordinates: bool = True,
    theme: str = "default",
    pieces: str = "traditional",
) -> bytes:
    """`render_board(board_view(position), ...)` with the same keyword options."""
    return render_board(
        board_view(position),
        perspective=perspective,
        last_move=last_move,
        placed=placed,
        check=check,
        highlights=highlights,
        captures=captures,
        selected=selected,
        coordinates=coordinates,
        theme=theme,
        palette_key=(position.variant.id, position.variant.digest),
        pieces=pieces,
    )


def move_marks(
    position: Position, move: Move | None
) -> tuple[tuple[int | None, int] | None, tuple[int, int] | None]:
    """How to mark `move`, the ply that led to `position`: `(last_move, placed)` for
    `render_board`. A placement marks the reserve slot it filled, (colour, square), not the
    board square behind it; any other move its (origin, target), origin None for a drop.
    For castling, the King's squares."""
    if move is None:
        return None, None
    target = _index(position, move.target)
    if move.kind is MoveKind.PLACEMENT:
        for color in (0, 1):
            if target in position.gates[color]:
                return None, (color, target)
        return (None, target), None  # placed on the board itself
    origin = _index(position, move.origin) if move.origin is not None else None
    return (origin, target), None


def last_move_squares(game: Game) -> tuple[int | None, int] | None:
    """The squares of the game's last ply: (origin, target); origin None for a drop or a
    placement on the board (a placement into a reserve slot: see `move_marks`)."""
    if not game.history:
        return None
    return move_marks(game.position, game.history[-1].move)[0]


def check_square(position: Position) -> int | None:
    """The square of the side to move's royal piece when it is attacked."""
    king = position.kings[position.side]
    if king >= 0 and position.is_check():
        return king
    return None


def render_game(
    game: Game,
    *,
    perspective: int = 0,
    last_move: Sequence[SquareRef | None] | Auto | None = AUTO,
    check: SquareRef | Auto | None = AUTO,
    highlights: Iterable[SquareRef] = (),
    captures: Iterable[SquareRef] = (),
    selected: SquareRef | None = None,
    coordinates: bool = True,
    theme: str = "default",
    pieces: str = "traditional",
) -> bytes:
    """The game's current position with its last move tinted and a check marked (pass
    `last_move=` or `check=`, None included, to override either)."""
    placed: tuple[int, SquareRef] | None = None
    if isinstance(last_move, Auto):
        last = game.history[-1].move if game.history else None
        last_move, placed = move_marks(game.position, last)
    return render_position(
        game.position,
        perspective=perspective,
        last_move=last_move,
        placed=placed,
        check=check_square(game.position) if isinstance(check, Auto) else check,
        highlights=highlights,
        captures=captures,
        selected=selected,
        coordinates=coordinates,
        theme=theme,
        pieces=pieces,
    )


def destinations(position: Position, square: int | str) -> tuple[list[int], list[int]]:
    """Where the piece on `square` may go: (moves to empty squares, captures), for the
    `highlights` and `captures` options of a selected piece."""
    geo = position.variant.geometry
    sq = geo.parse(square) if isinstance(square, str) else square
    if sq is None:
        raise ValueError(f"{square!r} is not a square of this board ({geo.square_hint()})")
    origin = geo.square(sq)
    moves: list[int] = []
    captures: list[int] = []
    for m in position.legal_moves():
        if m.origin != origin:
            continue
        t = _index(position, m.target)
        if m.kind is MoveKind.EN_PASSANT or (
            position.board[t] and m.kind not in (MoveKind.CASTLING, MoveKind.SWAP)
        ):
            captures.append(t)
        else:
            moves.append(t)
    return list(dict.fromkeys(moves)), list(dict.fromkeys(captures))


@dataclass(frozen=True, slots=True)
class LegendEntry:
    """One line of a variant's piece legend."""

    letters: str
    name: str
    piece_id: str
    royal: bool

    @property
    def label(self) -> str:
        """The letters as players read them: `(no letter)` for the Pawn."""
        return self.letters or "(no letter)"


def piece_legend(variant: Variant) -> tuple[LegendEntry, ...]:
    """The variant's pieces with their letters and names, in the variant's order."""
    return tuple(LegendEntry(p.letters, p.name, p.id, p.royal) for p in variant.pieces)


def find_piece(variant: Variant, text: str) -> PieceType:
    """A piece of `variant` by id, letters or name (any case); KeyError names the choices."""
    t = text.strip()
    low = t.lower().replace(" ", "-")
    for p in variant.pieces:
        if p.id == low or (p.letters and p.letters == t.upper()):
            return p
    for p in variant.pieces:
        if any(n.lower().replace(" ", "-") == low for n in p.all_names()):
            return p
    choices = ", ".join(f"{p.letters or '-'} {p.name}" for p in variant.pieces)
    raise KeyError(f"no piece {text!r} in {variant.name}; pieces: {choices}")
