"""The board picture in words: the alt text the bot attaches to every picture it posts.

Discord shows an attachment's description to screen readers (and local mode's page uses it
as the image's alt text); it is limited to 1024 characters. A position is described the way
a player would read it out: the variant, whose side the board is seen from, who is to move
and whether they are in check, the last move, the marked squares, then every piece by side,
grouped by type ("Rooks a1, h1"). Boards too crowded for the limit (Bigorra has 160 pieces)
use the pieces' letters instead of their names, and past that the list is cut with a count.
"""

from __future__ import annotations

import functools

from bot.service.models import Scene
from rules.position import Position
from tournament.standings import Crosstable

MAX_DESCRIPTION = 1024  # Discord's limit on an attachment's description
SIDES = ("White", "Black")


def describe_scene(scene: Scene) -> str:
    """The picture of ``scene`` in at most 1024 characters."""
    position = scene.position
    variant = position.variant
    geo = variant.geometry
    side = SIDES[scene.perspective]
    head = [f"{variant.name} board ({geo.files}×{geo.ranks}), seen from {side}'s side."]
    outcome = position.outcome()
    if outcome is None:
        turn = f"{SIDES[position.side]} to move"
        if position.placing:
            turn += " (placing reserve pieces)"
        elif position.is_check():
            turn += ", in check"
        head.append(turn + ".")
    else:
        text = outcome.result_text
        head.append(text[:1].upper() + text[1:] + ".")
    if scene.last_move is not None:
        head.append(f"Last move: {_move_text(scene, position)}.")
    if scene.selected is not None:
        head.append(f"Selected: {geo.name(scene.selected)}.")
    if scene.highlights or scene.captures:
        marked = [geo.name(sq) for sq in scene.highlights]
        taken = [geo.name(sq) for sq in scene.captures]
        bits = []
        if marked:
            bits.append("moves to " + ", ".join(marked))
        if taken:
            bits.append("captures on " + ", ".join(taken))
        head.append("Marked: " + "; ".join(bits) + ".")
    intro = " ".join(head)
    for by_name in (True, False):
        text = " ".join([intro, *_sides(position, by_name=by_name)])
        if len(text) <= MAX_DESCRIPTION:
            return text
    return _clip(intro, _sides(position, by_name=False))


def _move_text(scene: Scene, position: Position) -> str:
    move = scene.last_move
    assert move is not None
    geo = position.variant.geometry
    target = geo.index(move.target.file, move.target.rank)
    origin = move.origin
    if origin is None:
        return f"to {geo.name(target)}"
    return f"{geo.name(geo.index(origin.file, origin.rank))} to {geo.name(target)}"


def _sides(position: Position, *, by_name: bool) -> list[str]:
    """One sentence per side: its pieces on the board, then in hand and in reserve."""
    variant = position.variant
    geo = variant.geometry
    order = {p.id: i for i, p in enumerate(variant.pieces)}
    out = []
    # One pass over the board in reading order (file by file), each piece code described
    # once: a 16x16 picture's text took 2 ms on the loop square by square.
    groups_of: tuple[dict[str, list[str]], dict[str, list[str]]] = ({}, {})
    labels: dict[str, tuple[str, str]] = {}
    described: dict[int, tuple[str, str, str]] = {}
    board = position.board
    for sq in _reading_order(geo.files, geo.ranks):
        code = board[sq]
        if not code:
            continue
        facts = described.get(code)
        if facts is None:
            piece = position.describe(code)
            facts = described[code] = (
                piece.piece_id,
                piece.name,
                piece.letters or variant.pawn_symbol,
            )
        groups_of[code & 1].setdefault(facts[0], []).append(geo.name(sq))
        labels[facts[0]] = (facts[1], facts[2])
    for color in (0, 1):
        groups = groups_of[color]
        parts = []
        for pid in sorted(groups, key=lambda p: order.get(p, 99)):
            squares = groups[pid]
            name, letters = labels[pid]
            if by_name:
                label = name if len(squares) == 1 else _plural(name)
                parts.append(f"{label} {', '.join(squares)}")
            else:
                parts.append(" ".join(f"{letters}{sq}" for sq in squares))
        sentence = f"{SIDES[color]}: " + ("; ".join(parts) if parts else "no pieces")
        held = position.hand(color)
        if held:
            names = [
                f"{n} {variant.piece(pid).name if by_name else variant.piece(pid).letters}"
                for pid, n in sorted(held.items(), key=lambda kv: order.get(kv[0], 99))
            ]
            sentence += "; in hand " + ", ".join(names)
        reserve = position.reserve[color]
        if reserve:
            names = [position.describe(code).name for code in reserve]
            sentence += "; to place " + ", ".join(names)
        out.append(sentence + ".")
    return out


@functools.cache
def _reading_order(files: int, ranks: int) -> tuple[int, ...]:
    """The squares file by file, each file from its first rank (a1, a2, ..., b1, ...)."""
    return tuple(rank * files + file for file in range(files) for rank in range(ranks))


def _plural(name: str) -> str:
    if name.endswith(("s", "x", "ch", "sh")):
        return name + "es"
    if name.endswith("y") and name[-2:-1] not in "aeiou":
        return name[:-1] + "ies"
    return name + "s"


def _clip(intro: str, sides: list[str]) -> str:
    """Cut the piece lists at a square so the whole fits, and say how much is left out."""
    budget = MAX_DESCRIPTION - len(intro) - 60
    out = [intro]
    left_out = 0
    for sentence in sides:
        words = sentence.split(" ")
        kept: list[str] = []
        for word in words:
            if budget - len(word) - 1 < 0:
                left_out += 1
                continue
            kept.append(word)
            budget -= len(word) + 1
        out.append(" ".join(kept))
    text = " ".join(out)
    if left_out:
        text += f" (and {left_out} more; /board shows the picture)"
    return text[:MAX_DESCRIPTION]


def describe_replay(title: str, plies: int, result: str | None) -> str:
    """The animated replay in words: what game it shows, how long, how it ended."""
    moves = f"{plies} {'ply' if plies == 1 else 'plies'}"
    text = f"Animated replay of {title}, move by move ({moves})"
    text += f"; the result: {result}." if result else "."
    return text[:MAX_DESCRIPTION]


def describe_crosstable(table: Crosstable) -> str:
    """A tournament's crosstable picture in words: the standings, place by place."""
    head = f"Crosstable of {table.title}" + (f" ({table.subtitle})" if table.subtitle else "")
    rows = [
        f"{row.place}. {row.name}{' (withdrawn)' if row.withdrawn else ''}, {row.points}"
        for row in table.rows
    ]
    text = f"{head}: " + "; ".join(rows) + "." if rows else f"{head}: no players yet."
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"
