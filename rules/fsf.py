"""The bridge to Fairy-Stockfish's world: its variant ids, piece letters, UCI moves and FEN.

Fairy-Stockfish, its Python and JavaScript bindings and the variant servers built on them
share one way of writing moves (UCI: `e2e4`, `e7e8q`, `P@e5`, `g1f3h` for a gating move,
`b2h8+` for a Shogi promotion) and positions (FEN with a pocket: `...[Pp] w KQkq - 0 3`).
A variant says how it is known there in its `[fairy-stockfish]` table (docs/variants.md):

```toml
[fairy-stockfish]
variant = "grand"                              # its UCI_Variant id, if it has one
letters = { marshal = "c", cardinal = "a" }    # where its letter is not ours in lowercase
pgn = "Grand"                                  # the PGN [Variant] tag the servers write
```

Everything here reads a `Position`; nothing writes one: moves typed in UCI form are read by
the one parser (`rules.notation.parse` tries `parse_uci`), FEN is an export.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from rules.betza import Kind
from rules.errors import IllegalMoveError
from rules.position import CASTLE, DROP, EP, KIND_MASK, KIND_SHIFT, NORMAL, PASS, Position
from rules.postext import castling_letters, castling_rights, castling_squares_held
from rules.tables import MC, WALL
from rules.variant import Variant

UCI_RE = re.compile(r"(?:[a-p](?:1[0-6]|[1-9])){2}[a-z+\-]?|\+?[A-Z]@[a-p](?:1[0-6]|[1-9])")
"""The shapes of a Fairy-Stockfish UCI move: two squares and an optional suffix (a promotion
or gating letter, `+` or `-`), or a drop (`P@e5`, `+N@c3`)."""


def letters(variant: Variant) -> dict[str, str]:
    """Piece id -> Fairy-Stockfish's letter (lowercase; `+x` for a promoted form) for every
    piece that has one: the variant's `[fairy-stockfish] letters`, else its own single letter
    in lowercase (`p` for the letterless Pawn, `+p` for Shogi's `+P`). Two-letter pieces
    without one are left out."""
    out: dict[str, str] = {}
    for p in variant.pieces:
        given = variant.fsf_letters.get(p.id)
        if given is not None:
            out[p.id] = given
        elif p.is_pawn:
            out[p.id] = "p"
        elif len(p.letters.lstrip("+")) == 1:
            out[p.id] = p.letters.lower()  # `+p` for a promoted form written `+P`
    return out


def _letter(table: Mapping[str, str], pos: Position, type_index: int) -> str:
    piece_id = pos.t.type_ids[type_index]
    letter = table.get(piece_id)
    if letter is None:
        raise ValueError(
            f"{pos.variant.piece(piece_id).name} has no Fairy-Stockfish letter in "
            f"{pos.variant.name}"
        )
    return letter


def format_uci(pos: Position, c: int, table: Mapping[str, str] | None = None) -> str:
    """The legal move `c` of `pos` as Fairy-Stockfish's UCI writes it."""
    table = letters(pos.variant) if table is None else table
    t = pos.t
    geo = t.geo
    kind = (c >> KIND_SHIFT) & KIND_MASK
    o = c & 0xFF
    d = (c >> 8) & 0xFF
    if kind == DROP:
        return f"{_letter(table, pos, o).upper()}@{geo.name(d)}"
    if kind == PASS:
        return f"{geo.name(o)}{geo.name(o)}"  # the King's square twice (Janggi's pass)
    if kind not in (NORMAL, EP, CASTLE):
        raise ValueError(f"{pos.variant.name}: this kind of move has no UCI form")
    gate = (c >> MC.GATE_SHIFT) & MC.GATE_MASK
    if kind == CASTLE and gate and c & MC.GATE_ROOK:
        # S-Chess: castling with the piece entering the Rook's square is written from it.
        rook = pos._castling_rook(c)[0]
        return f"{geo.name(rook)}{geo.name(o)}{_letter(table, pos, gate)}"
    if (
        kind == CASTLE
        and not gate
        and (pos.variant.random_setup is not None or _king_could_step(pos, o, d))
    ):
        # Fairy-Stockfish writes castling as the King taking its Rook when the King's own
        # step to the same square would read the same (a King on d1 castling to c1).
        return f"{geo.name(o)}{geo.name(pos._castling_rook(c)[0])}"
    text = f"{geo.name(o)}{geo.name(d)}"
    promo = (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
    if promo:
        new = _letter(table, pos, promo)
        mover = _letter(table, pos, pos.board[o] >> 1)
        if new == "+" + mover:
            text += "+"
        elif mover == "+" + new:
            text += "-"
        else:
            text += new
    if gate:
        text += _letter(table, pos, gate)
    return text


def _king_could_step(pos: Position, o: int, d: int) -> bool:
    """Whether the piece on `o` moves to `d` by its own movement on an empty board (what
    Fairy-Stockfish's pseudo-legality test sees for the square a castling King goes to)."""
    geo = pos.t.geo
    piece = pos.variant.piece(pos.t.type_ids[pos.board[o] >> 1])
    dx = geo.file_of(d) - geo.file_of(o)
    dy = (d // geo.files) - (o // geo.files)
    if pos.side:
        dx, dy = -dx, -dy
    for comp in piece.components:
        if not comp.move:
            continue
        if comp.kind in (Kind.LEAP, Kind.LAME) and (dx, dy) in comp.vectors:
            return True
        if comp.kind is Kind.RIDE:
            for vx, vy in comp.vectors:
                for n in range(1, (comp.range or 16) + 1):
                    if (vx * n, vy * n) == (dx, dy):
                        return True
    return False


def marks_promotion(variant: Variant) -> bool:
    """Whether `+` and `-` after a UCI move promote and demote (Shogi's promoted forms)
    rather than being check marks."""
    return any(letter.startswith("+") for letter in letters(variant).values())


def uci_moves(pos: Position) -> dict[str, int]:
    """Every legal move of `pos` by its UCI text."""
    table = letters(pos.variant)
    return {format_uci(pos, c, table): c for c in pos.legal_codes()}


def parse_uci(pos: Position, text: str) -> int | None:
    """The legal move `text` names in UCI form, or None when `text` is not UCI-shaped.
    IllegalMoveError when it is, but no legal move is written so."""
    if not UCI_RE.fullmatch(text):
        return None
    try:
        found = uci_moves(pos).get(text)
    except ValueError:
        return None  # a piece without a Fairy-Stockfish letter: not a UCI game
    if found is None:
        raise IllegalMoveError(text, "no legal move is written so in Fairy-Stockfish's form")
    return found


def fen(pos: Position) -> str:
    """The position as a FEN that Fairy-Stockfish reads for the same variant: its letters
    (`Q~` for a piece promoted in a game with demotion to the hand), the pocket in brackets
    after the board, castling (and S-Chess gating) rights, the
    en-passant squares only where a capture there is legal, the clocks."""
    v = pos.variant
    t = pos.t
    geo = t.geo
    table = letters(v)
    rows = []
    for rank in range(geo.ranks - 1, -1, -1):
        row = ""
        empty = 0
        for f in range(geo.files):
            code = pos.board[geo.index(f, rank)]
            if not code:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            if code == WALL:
                row += "*"
                continue
            letter = _letter(table, pos, code >> 1)
            row += letter if code & 1 else letter.upper()
            if pos.promoted is not None and pos.promoted[geo.index(f, rank)]:
                row += "~"  # Crazyhouse: a promoted piece, which returns to hand demoted
        if empty:
            row += str(empty)
        rows.append(row)
    board = "/".join(rows)
    if v.has_hand:
        pocket = "".join(
            (letter if color else letter.upper()) * n
            for color in (0, 1)
            for code, n in enumerate(pos.hands[color])
            if n
            for letter in [_letter(table, pos, code >> 1).lstrip("+")]
        )
        board += f"[{pocket}]"
    # Every square a double or triple step passed where an en-passant capture is legal,
    # in the board's order and run together (`d7d8`), as Fairy-Stockfish writes them.
    ep = "".join(geo.name(sq) for sq in pos.ep_capture_squares()) or "-"
    clock = str(pos.halfmove)
    counting = pos.counting()
    if counting is not None:
        # Makruk's count takes the en-passant field (its limit) and the clock (its plies).
        ep, clock = str(counting[1]), str(counting[0])
    fields = [board, "w" if pos.side == 0 else "b", (_rights(pos) + _first_move_files(pos)) or "-"]
    fields.append(ep)
    if v.check_count:
        # N-check: the checks each side has still to give, White's first.
        fields.append(f"{v.check_count - pos.checks[0]}+{v.check_count - pos.checks[1]}")
    return " ".join([*fields, clock, str(pos.fullmove)])


def _first_move_files(pos: Position) -> str:
    """Cambodian: the files of the unmoved pieces that still have a first move of their own
    (the King's leap, the Met's jump), which Fairy-Stockfish keeps as gating files."""
    v = pos.variant
    if v.castles or v.reserve_in_hand:
        return ""
    t = pos.t
    geo = t.geo
    special = {
        p.id
        for p in v.pieces
        if p.first_leaps or any(c.initial and not c.pawnlike for c in p.components)
    }
    if not special:
        return ""
    files = ["", ""]
    for sq in range(geo.size):
        code = pos.board[sq]
        if code and pos.virgin[sq] and t.type_ids[code >> 1] in special:
            letter = "abcdefghijklmnop"[geo.file_of(sq)]
            files[code & 1] += letter.upper() if code & 1 == 0 else letter
    return files[0] + "".join(sorted(files[1]))


def _rights(pos: Position) -> str:
    """FEN's castling field: KQkq for standard castling, and for S-Chess also the files
    (uppercase for White) of the first-row pieces that may still gate: a King's or Rook's
    square among them only when no castling right held names it already."""
    rights = castling_rights(pos)
    if pos.variant.random_setup is not None:
        return _shredder_rights(pos)
    if not pos.variant.reserve_in_hand:
        return rights
    geo = pos.t.geo
    castling = castling_squares_held(pos)
    files = ["", ""]
    for color in (0, 1):
        if not any(pos.hands[color]) and not pos.variant.captures_to_hand:
            continue  # nothing left to gate, for good: the files are no rights any more
        for sq in sorted(pos.t.gate_squares[color]):
            if pos.virgin[sq] and pos.board[sq] and sq not in castling:
                letter = "abcdefghijklmnop"[geo.file_of(sq)]
                files[color] += letter.upper() if color == 0 else letter
    white = "".join(ch for ch in rights if ch.isupper()) + files[0]
    black = "".join(ch for ch in rights if ch.islower()) + files[1]
    return white + black


def _shredder_rights(pos: Position) -> str:
    """Fairy-Stockfish's Chess960 mode names each castling right by its Rook's file
    (`HAha`, `GEge`), uppercase for White."""
    geo = pos.t.geo
    out = []
    for letter, _king, rook in castling_letters(pos):
        if letter in castling_rights(pos):
            ch = "abcdefghijklmnop"[geo.file_of(rook)]
            out.append(ch.upper() if letter.isupper() else ch)
    return "".join(out)


def san(pos: Position, c: int, table: Mapping[str, str] | None = None) -> str:
    """The legal move `c` of `pos` in the notation Fairy-Stockfish writes by default, which
    the variant servers read in PGN: SAN (`Nf3`, `exd5`, `e8=Q`, `O-O`, `N@f3`, `Na3/H`,
    `+` and `#`) with its letters (`[fairy-stockfish] san` where its SAN letter is not its
    FEN letter: Xiangqi's `E` and `H`, a promoted form's `R` in `Lh8=R`), and for the Shogi
    games Western notation with numbers (`P-76`, `Bx22+`, `G41-52`, `S*33`, `S-44=`, no
    check marks)."""
    table = letters(pos.variant) if table is None else table
    shogi = pos.variant.notation == "shogi"
    t = pos.t
    geo = t.geo
    kind = (c >> KIND_SHIFT) & KIND_MASK
    o = c & 0xFF
    d = (c >> 8) & 0xFF

    def square(sq: int) -> str:
        if shogi:
            return f"{geo.files - geo.file_of(sq)}{geo.ranks - geo.rank_of(sq)}"
        return geo.name(sq)

    def upper(type_index: int) -> str:
        return _letter(table, pos, type_index).upper()

    gate = (c >> MC.GATE_SHIFT) & MC.GATE_MASK
    if kind == CASTLE:
        rook = pos._castling_rook(c)[0]
        text = "O-O" if geo.file_of(rook) > geo.file_of(o) else "O-O-O"
        if gate:
            text += "/" + upper(gate) + square(rook if c & MC.GATE_ROOK else o)
    elif kind == DROP:
        text = _san_letter(pos, table, o, shogi) + ("*" if shogi else "@") + square(d)
    else:
        mover = pos.board[o] >> 1
        piece = pos.variant.piece(t.type_ids[mover])
        text = "" if piece.is_pawn and not shogi else _san_letter(pos, table, mover, shogi)
        capture = kind == EP or (bool(pos.board[d]) and d != o)
        promo = (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
        text += _san_origin(pos, table, c, piece.is_pawn and not shogi, capture, square)
        text += "x" if capture else ("-" if shogi else "")
        text += square(d)
        if promo:
            new = _letter(table, pos, promo)
            old = _letter(table, pos, mover)
            if new == "+" + old:
                # Shogi's `+`; elsewhere the letter of the type it promotes into (`=R`)
                text += "+" if shogi else "=" + _san_letter(pos, table, promo, shogi)
            elif old == "+" + new:
                text += "-" if shogi else "=" + new.upper()
            else:
                text += "=" + new.upper()
        elif shogi and kind == NORMAL and pos.promotion_offered(c) and _promotes_too(pos, c):
            text += "="
        if gate:
            text += "/" + upper(gate)
    if shogi:
        return text
    pos.push_code(c, keep_key=False)
    try:
        if pos.is_check():
            text += "+" if pos.legal_codes() else "#"
    finally:
        pos.pop_code()
    return text


def _promotes_too(pos: Position, c: int) -> bool:
    """Whether the same step with a promotion is legal too: Fairy-Stockfish writes a
    declined promotion (`=`) only then, not where a promotion limit is reached (Shogun's
    Knight entering the zone while its promoted form is on the board)."""
    squares = c & 0xFFFF
    return any(
        x & 0xFFFF == squares and (x >> MC.PROMO_SHIFT) & MC.PROMO_MASK for x in pos.legal_codes()
    )


def _san_letter(pos: Position, table: Mapping[str, str], type_index: int, shogi: bool) -> str:
    """A piece's letter in Fairy-Stockfish's SAN: its synonym where it has one, else its FEN
    letter, in uppercase (`+P` for a promoted Shogi piece)."""
    piece_id = pos.t.type_ids[type_index]
    synonym = pos.variant.fsf_san.get(piece_id)
    if synonym is not None and not shogi:
        return synonym.upper()
    return _letter(table, pos, type_index).upper()


def _san_origin(
    pos: Position,
    table: Mapping[str, str],
    c: int,
    pawn: bool,
    capture: bool,
    square: Callable[[int], str],
) -> str:
    """The origin's file, rank or square where Fairy-Stockfish writes it: a pawn's file when
    it captures (or promotes off its file), else only when another piece of the type could
    go to the same square (the whole square in Shogi notation). Outside Shogi notation the
    type is Fairy-Stockfish's: a promoted Lance that moves as a Rook is one with the Rooks
    (`Rhb8` beside a Rook on a8, pyffish 0.0.90), so pieces of one SAN letter are."""
    geo = pos.t.geo
    o = c & 0xFF
    d = (c >> 8) & 0xFF
    shogi = pos.variant.notation == "shogi"
    name = square(o)
    file_part = name[0] if not shogi else name
    if pawn:
        straight = geo.file_of(o) == geo.file_of(d)
        promo = (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
        if capture or (promo and (not straight or o == d)):
            return geo.name(o)[0]
    mover = pos.board[o]

    def alike(code: int) -> bool:
        if code == mover or shogi or not code or code & 1 != mover & 1:
            return code == mover
        return _san_letter(pos, table, code >> 1, False) == _san_letter(
            pos, table, mover >> 1, False
        )

    others = {
        x & 0xFF
        for x in pos.legal_codes()
        if (x >> 8) & 0xFF == d
        and x & 0xFF != o
        and (x >> KIND_SHIFT) & KIND_MASK in (NORMAL, EP)
        and alike(pos.board[x & 0xFF])
    }
    if not others:
        return ""
    if shogi:
        return name
    if all(geo.file_of(x) != geo.file_of(o) for x in others):
        return file_part
    if all(geo.rank_of(x) != geo.rank_of(o) for x in others):
        return name[1:]
    return name
