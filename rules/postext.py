"""Position text: a FEN-like line that round-trips every state of every variant.

    <board> <side> <castling> <en passant> <halfmove clock> <move number> [key:value ...]

The board lists ranks from the top (Black's side) down, separated by `/`. White pieces
are uppercase, Black lowercase; a two-letter piece is written in parentheses, `(SH)` or
`(sh)`; runs of empty squares are numbers (1-16); `*` is a wall square (variants with
walls, as Fairy-Stockfish writes it). The Pawn is `P`/`p`, or `+`/`-` in
variants where `P` is another piece's letter (Bigorra, Timurid), as in the spec's
diagrams. A promoted Shogi piece is `+` and its letter, as Fairy-Stockfish writes it: `+P`
(White's), `+p` (Black's). Castling rights are FEN's `KQkq` (K: with the Rook on the higher
file). The optional fields that follow appear only when the variant has the state they describe:

    options:a,b          the variant options in play (Patricia)
    hand:R,B,p           pieces in hand (Patricia, drops; S-Chess reserves), White's uppercase
    reserve:FA,M,fa,m    reserve pieces not yet placed (Florea's placement phase)
    gates:FA@c1,m@g9     reserve pieces waiting behind a back-rank square
    once:wb              sides whose King still has its once-per-game move (Bat games)
    promoted:d8,e1       promoted pieces, which return to hand demoted when captured
    checks:2+0           checks given so far by White and Black (N-check), when any
    moved:h2,g3          pieces standing on a starting square that have already moved
                         (so they lost an initial power: a double step, a leap, castling,
                         S-Chess gating)

Standard chess keeps the standard FEN form:
`rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1`.
"""

from __future__ import annotations

import re

from rules.betza import is_multi_step
from rules.errors import PositionTextError
from rules.position import Position
from rules.tables import WALL, Tables, tables_of
from rules.variant import Variant, load_variant, variant_with_options

_TOKEN_RE = re.compile(r"\(([A-Za-z]{2})\)|([A-Za-z+\-*])|(\d+)")
_PLUS_TOKEN_RE = re.compile(r"\((\+?[A-Za-z]{1,2})\)|(\+[A-Za-z]|[A-Za-z\-*])|(\d+)")
"""Where promoted pieces are written `+P` (Shogi), `+` begins a piece's letters."""
EXT_ORDER = (
    "options",
    "hand",
    "reserve",
    "gates",
    "once",
    "promoted",
    "moved",
    "count",
    "checks",
)


def piece_token(variant: Variant, tables: Tables, code: int, *, bracket: bool = True) -> str:
    """The position-text token of a piece code."""
    piece = variant.piece(tables.type_ids[code >> 1])
    white = not code & 1
    if piece.is_pawn:
        sym = variant.pawn_symbol
        if sym == "+":
            return "+" if white else "-"
        return "P" if white else "p"
    letters = piece.letters if white else piece.letters.lower()
    return f"({letters})" if len(letters.lstrip("+")) > 1 and bracket else letters


def _token_code(variant: Variant, tables: Tables, token: str) -> int | None:
    pawn = next((p for p in variant.pieces if p.is_pawn), None)
    if token in ("+", "-") and variant.pawn_symbol == "+" and pawn is not None:
        return tables.code(pawn.id, 0 if token == "+" else 1)
    if token in ("P", "p") and variant.pawn_symbol == "P" and pawn is not None:
        return tables.code(pawn.id, 0 if token == "P" else 1)
    letters = token.upper()
    if token not in (letters, token.lower()):
        return None
    piece = variant.by_letters(letters)
    if piece is None or piece.is_pawn:
        return None
    return tables.code(piece.id, 0 if token == letters else 1)


def _castling_letters(pos: Position) -> list[tuple[str, int, int]]:
    """(letter, king square, rook square) of every castling right, in KQkq order."""
    v = pos.variant
    geo = pos.t.geo
    out: list[tuple[str, int, int]] = []
    for color, (hi, lo) in ((0, ("K", "Q")), (1, ("k", "q"))):
        pairs: list[tuple[int, int]] = []
        if not v.castles_side(color):
            pass
        elif v.castling:
            pairs = [(c.king_from, c.rook_from) for c in v.castling]
        elif v.fast_castling:
            pairs = [(v.fast_castling.king_from, r) for r in v.fast_castling.rooks]
        for king, rook in pairs:
            if color:
                king, rook = geo.mirror(king), geo.mirror(rook)
            letter = hi if rook > king else lo
            if all(letter != x for x, _, _ in out):
                out.append((letter, king, rook))
    return sorted(out, key=lambda e: "KQkq".index(e[0]))


def castling_letters(pos: Position) -> list[tuple[str, int, int]]:
    """(letter, king square, rook square) of every castling right, in KQkq order."""
    return _castling_letters(pos)


def castling_rights(pos: Position) -> str:
    """FEN's castling field without the dash: the KQkq letters of the rights still held."""
    return "".join(
        letter
        for letter, king, rook in _castling_letters(pos)
        if pos.virgin[king] and pos.virgin[rook] and pos.board[king] and pos.board[rook]
    )


def castling_squares_held(pos: Position) -> set[int]:
    """The King and Rook squares of the castling rights still held (their gating rights in
    S-Chess go with the KQkq letters rather than a file of their own)."""
    return {
        sq
        for _letter, king, rook in _castling_letters(pos)
        if pos.virgin[king] and pos.virgin[rook] and pos.board[king] and pos.board[rook]
        for sq in (king, rook)
    }


def format_position(pos: Position) -> str:
    """The position text of `pos`."""
    v = pos.variant
    t = pos.t
    geo = t.geo
    rows = []
    for rank in range(geo.ranks - 1, -1, -1):
        row = []
        empty = 0
        for f in range(geo.files):
            code = pos.board[geo.index(f, rank)]
            if not code:
                empty += 1
                continue
            if empty:
                row.append(str(empty))
                empty = 0
            row.append("*" if code == WALL else piece_token(v, t, code))
        if empty:
            row.append(str(empty))
        rows.append("".join(row))
    castling = castling_rights(pos)
    fields = [
        "/".join(rows),
        "w" if pos.side == 0 else "b",
        castling or "-",
        "".join(geo.name(sq) for sq in sorted(pos.ep_squares)) or "-",
        str(pos.halfmove),
        str(pos.fullmove),
    ]
    if v.options:
        fields.append("options:" + ",".join(sorted(v.options)))
    if v.has_hand:
        hand = []
        for color in (0, 1):
            for code, n in enumerate(pos.hands[color]):
                if n:
                    hand.extend([piece_token(v, t, code | color, bracket=False)] * n)
        fields.append("hand:" + (",".join(hand) or "-"))
    if v.placement:
        reserve = [
            piece_token(v, t, code, bracket=False)
            for color in (0, 1)
            for code in pos.reserve[color]
        ]
        if reserve:
            fields.append("reserve:" + ",".join(reserve))
        gates = [
            f"{piece_token(v, t, code, bracket=False)}@{geo.name(sq)}"
            for color in (0, 1)
            for sq, code in sorted(pos.gates[color].items())
        ]
        fields.append("gates:" + (",".join(gates) or "-"))
    if any(p.once_per_game for p in v.pieces):
        fields.append(
            "once:" + ("".join(c for c, ok in zip("wb", pos.once, strict=True) if ok) or "-")
        )
    if pos.promoted is not None:
        squares = [geo.name(sq) for sq, flag in enumerate(pos.promoted) if flag]
        fields.append("promoted:" + (",".join(squares) or "-"))
    moved = _moved_squares(pos)
    if moved:
        fields.append("moved:" + ",".join(geo.name(sq) for sq in moved))
    counting = pos.counting()
    if counting is not None:
        fields.append(f"count:{counting[0]}/{counting[1]}")
    if v.check_count and any(pos.checks):
        fields.append(f"checks:{pos.checks[0]}+{pos.checks[1]}")
    return " ".join(fields)


def _castling_squares(pos: Position) -> set[int]:
    return {sq for _, king, rook in _castling_letters(pos) for sq in (king, rook)}


def _start_squares(pos: Position) -> dict[int, int]:
    """Square -> code of the initial array."""
    t = pos.t
    out = {}
    for color in (0, 1):
        for sq, pid in pos.variant.army(color):
            out[sq] = t.code(pid, color)
    return out


def _moved_squares(pos: Position) -> list[int]:
    """Tracked pieces on their own starting squares that have nevertheless moved."""
    t = pos.t
    start = _start_squares(pos)
    castling = _castling_squares(pos)
    out = []
    in_hand = pos.variant.reserve_in_hand  # there, an unmoved King or Rook may still gate
    for sq, code in start.items():
        if (sq in castling and not in_hand) or not t.tracked[code]:
            continue
        if pos.board[sq] == code and not pos.virgin[sq]:
            out.append(sq)
    return sorted(out)


def parse_position(variant: Variant | str, text: str) -> Position:
    """Read a position text; `PositionTextError` says which field is wrong and why."""
    fields = text.split()
    options: tuple[str, ...] = ()
    for field in fields[6:]:
        if field.startswith("options:"):
            options = tuple(o for o in field.removeprefix("options:").split(",") if o)
    if isinstance(variant, str):
        variant = load_variant(variant, options)
    elif options and frozenset(options) != variant.options:
        variant = variant_with_options(variant, options)
    t = tables_of(variant)
    geo = t.geo
    if len(fields) < 6:
        raise PositionTextError(
            f"position text needs at least 6 fields (board, side, castling, en passant, "
            f"halfmove clock, move number); found {len(fields)}"
        )
    pos = Position(variant, t)
    token_re = (
        _PLUS_TOKEN_RE if any(p.letters.startswith("+") for p in variant.pieces) else _TOKEN_RE
    )
    rows = fields[0].split("/")
    if len(rows) != geo.ranks:
        raise PositionTextError(f"the board has {len(rows)} ranks; {variant.name} has {geo.ranks}")
    for i, row in enumerate(rows):
        rank = geo.ranks - 1 - i
        f = 0
        pos_in_row = 0
        while pos_in_row < len(row):
            m = token_re.match(row, pos_in_row)
            if not m:
                raise PositionTextError(
                    f"rank {rank + 1}: unexpected {row[pos_in_row]!r} in {row!r}"
                )
            pos_in_row = m.end()
            if m.group(3):
                n = int(m.group(3))
                if n < 1:
                    raise PositionTextError(f"rank {rank + 1}: empty runs are 1 or more")
                f += n
                continue
            token = m.group(1) or m.group(2)
            code = WALL if token == "*" and t.walls else _token_code(variant, t, token)
            if code is None:
                raise PositionTextError(
                    f"rank {rank + 1}: {token!r} is not a piece of {variant.name}"
                )
            if f >= geo.files:
                break
            pos._put(geo.index(f, rank), code)
            f += 1
        if f != geo.files:
            raise PositionTextError(
                f"rank {rank + 1} has {f} squares; the board has {geo.files} files"
            )
    side = fields[1]
    if side not in ("w", "b"):
        raise PositionTextError(f"side to move must be 'w' or 'b', not {side!r}")
    pos.side = 0 if side == "w" else 1
    # Initial powers: pieces on their own starting squares keep them unless said otherwise.
    start = _start_squares(pos)
    castling_sq = set() if variant.reserve_in_hand else _castling_squares(pos)
    for sq, code in start.items():
        if t.tracked[code] and pos.board[sq] == code and sq not in castling_sq:
            pos.virgin[sq] = 1
    rights = fields[2]
    letters = {letter: (king, rook) for letter, king, rook in _castling_letters(pos)}
    if rights != "-":
        for ch in rights:
            if ch not in letters:
                known = "".join(letters) or "none in this variant"
                raise PositionTextError(f"unknown castling right {ch!r} (rights: {known})")
            king, rook = letters[ch]
            if pos.board[king] != start.get(king) or pos.board[rook] != start.get(rook):
                raise PositionTextError(
                    f"castling right {ch!r} needs the King on {geo.name(king)} and the Rook "
                    f"on {geo.name(rook)}"
                )
            pos.virgin[king] = 1
            pos.virgin[rook] = 1
    if fields[3] != "-":
        _read_en_passant(pos, fields[3])
    for name, value in (("halfmove clock", fields[4]), ("move number", fields[5])):
        if not (value.isascii() and value.isdigit()):
            raise PositionTextError(f"the {name} must be a number, not {value!r}")
    pos.halfmove = int(fields[4])
    pos.fullmove = max(1, int(fields[5]))
    pos.ply = 2 * (pos.fullmove - 1) + pos.side
    pos.once = [False, False]
    seen: list[str] = []
    for extra in fields[6:]:
        key, sep, value = extra.partition(":")
        if not sep or key not in EXT_ORDER:
            raise PositionTextError(f"unknown field {extra!r}; known: {', '.join(EXT_ORDER)}")
        if key in seen:
            raise PositionTextError(f"field {key!r} appears twice")
        seen.append(key)
        _read_extension(pos, key, value)
    has_once = any(p.once_per_game for p in variant.pieces)
    if has_once and "once" not in seen:
        pos.once = [True, True]
    if variant.reserve_in_hand:
        # Unmoved Kings and Rooks are what `moved:` says; the rights must agree with them.
        derived = {
            letter
            for letter, king, rook in _castling_letters(pos)
            if pos.virgin[king] and pos.virgin[rook] and pos.board[king] and pos.board[rook]
        }
        if derived != set(rights.replace("-", "")):
            shown = "".join(sorted(derived, key="KQkq".index)) or "-"
            raise PositionTextError(
                f"castling rights {rights!r} disagree with the unmoved pieces ({shown})"
            )
    _check_consistency(pos)
    pos.rehash()
    return pos


_SQUARE_RE = re.compile(r"[a-p][1-9][0-9]?")


def _read_en_passant(pos: Position, text: str) -> None:
    """The en-passant field: the squares the last double or triple step passed, run
    together as Fairy-Stockfish writes them (`d6`; `d7d8` after a triple step). It may name
    only some of them (Fairy-Stockfish names those where a capture is legal): the piece
    that moved is the first one beyond them, on the same file."""
    t = pos.t
    geo = t.geo
    names = _SQUARE_RE.findall(text)
    mover = ("White", "Black")[pos.side ^ 1]
    if "".join(names) != text:
        raise PositionTextError(f"en-passant field {text!r}: squares such as d6, or d7d8")
    squares = []
    for name in names:
        sq = geo.parse(name)
        if sq is None:
            raise PositionTextError(f"en-passant square {name!r} is not on the board")
        squares.append(sq)
    # The step went away from the mover's side: White's up the board, Black's down.
    step = -geo.files if pos.side == 0 else geo.files
    squares.sort(reverse=step < 0)  # from the origin on
    files = {geo.file_of(sq) for sq in squares}
    if len(files) != 1 or len(set(squares)) != len(squares):
        raise PositionTextError(f"en-passant squares {text} are not on one file")
    victim = squares[-1] + step
    for _ in range(2):  # past a passed square left unnamed (a triple step's)
        if 0 <= victim < geo.size and not pos.board[victim]:
            victim += step
    code = pos.board[victim] if 0 <= victim < geo.size else 0
    passed = range(squares[0], victim, step)
    longest = (
        max(
            (
                y
                for c in pos.variant.piece(t.type_ids[code >> 1]).components
                if is_multi_step(c)
                for _, y in c.vectors
            ),
            default=0,
        )
        if code
        else 0
    )
    if (
        not code
        or not t.ep_victim[code]
        or (code & 1) == pos.side
        or any(pos.board[sq] for sq in passed)
        or len(passed) >= longest
    ):
        them = "it" if len(squares) == 1 else "them"
        raise PositionTextError(
            f"en passant on {text}: no {mover} piece has just double-stepped or "
            f"triple-stepped past {them}"
        )
    pos.ep_squares = tuple(squares)
    pos.ep = squares[0]
    pos.ep_victim = victim


def _read_extension(pos: Position, key: str, value: str) -> None:
    v = pos.variant
    t = pos.t
    geo = t.geo
    items = [] if value in ("", "-") else value.split(",")
    if key == "options":
        return
    if key == "hand":
        if not v.has_hand:
            raise PositionTextError(f"{v.name} has no pieces in hand")
        for token in items:
            code = _token_code(v, t, token)
            if code is None:
                raise PositionTextError(f"hand: {token!r} is not a piece of {v.name}")
            pos.hands[code & 1][t.hand_type[code]] += 1
    elif key == "reserve":
        for token in items:
            code = _token_code(v, t, token)
            if code is None or t.type_ids[code >> 1] not in v.reserve:
                raise PositionTextError(f"reserve: {token!r} is not a reserve piece of {v.name}")
            pos.reserve[code & 1].append(code)
    elif key == "gates":
        for item in items:
            token, at, square = item.partition("@")
            code = _token_code(v, t, token)
            sq = geo.parse(square)
            if not at or code is None or t.type_ids[code >> 1] not in v.reserve or sq is None:
                raise PositionTextError(
                    f"gates: expected a reserve piece and a square, not {item!r}"
                )
            pos.gates[code & 1][sq] = code
    elif key == "once":
        if not any(p.once_per_game for p in v.pieces):
            raise PositionTextError(f"{v.name} has no once-per-game move")
        if value != "-" and not set(value) <= {"w", "b"}:
            raise PositionTextError(f"once: expected w, b, wb or -, not {value!r}")
        pos.once = ["w" in value, "b" in value]
    elif key == "promoted":
        if pos.promoted is None:
            raise PositionTextError(f"{v.name} does not track promoted pieces")
        for name in items:
            sq = geo.parse(name)
            if sq is None or not t.demote[pos.board[sq]]:
                raise PositionTextError(f"promoted: {name!r} holds no promoted piece")
            pos.promoted[sq] = 1
    elif key == "count":
        counted, slash, limit = value.partition("/")
        if v.counting is None:
            raise PositionTextError(f"{v.name} has no counting rule")
        if not (
            slash
            and counted.isascii()
            and counted.isdigit()
            and limit.isascii()
            and limit.isdigit()
            and int(limit) > 0
        ):
            raise PositionTextError(
                f"count: expected the plies counted and the limit in plies (count:3/32), "
                f"not {value!r}"
            )
        pos.tally = (int(limit), pos.ply - int(counted))
    elif key == "checks":
        white, plus, black = value.partition("+")
        if not v.check_count:
            raise PositionTextError(f"{v.name} counts no checks")
        if not (
            plus and white.isascii() and white.isdigit() and black.isascii() and black.isdigit()
        ):
            raise PositionTextError(
                f"checks: expected the checks White and Black gave (checks:1+0), not {value!r}"
            )
        given = (int(white), int(black))
        if max(given) > v.check_count:
            raise PositionTextError(f"checks: at most {v.check_count} checks win")
        pos.checks = given
    elif key == "moved":
        for name in items:
            sq = geo.parse(name)
            if sq is None:
                raise PositionTextError(f"moved: {name!r} is not a square")
            pos.virgin[sq] = 0


def _check_consistency(pos: Position) -> None:
    v = pos.variant
    t = pos.t
    geo = t.geo
    if v.goal == "checkmate":
        for color, name in ((0, "White"), (1, "Black")):
            royals = [sq for sq, c in pos.occupied() if t.royal[c] and c & 1 == color]
            # A King still in hand, to be dropped (Sittuyin's placement), counts too.
            held = sum(n for code, n in enumerate(pos.hands[color]) if n and t.royal[code])
            kings = len(royals) + held
            if kings > 1 or (not kings and not v.royal_free):
                raise PositionTextError(f"{name} must have exactly one King, not {kings}")
        enemy_king = pos.kings[pos.side ^ 1]
        checked = (
            pos._atomic_check(pos.side ^ 1)
            if pos.t.blast
            else enemy_king >= 0 and pos.attacked(enemy_king, pos.side)
        )
        if not pos.placing and checked:
            raise PositionTextError(
                "the side that has just moved is in check: no legal game reaches this position"
            )
    if pos.placing:
        # florea.md §4: White places both reserve pieces, then Black places both.
        placer = 0 if pos.reserve[0] else 1
        if pos.side != placer or (placer == 0 and pos.gates[1]):
            raise PositionTextError(
                "reserve: White places both reserve pieces, then Black places his; "
                f"this is {('White', 'Black')[placer]}'s placement"
            )
    for color in (0, 1):
        owned = [t.type_ids[c >> 1] for c in (*pos.reserve[color], *pos.gates[color].values())]
        if any(owned.count(pid) > v.reserve.count(pid) for pid in owned):
            owner = ("White", "Black")[color]
            raise PositionTextError(
                f"reserve and gates: {owner} has more reserve pieces than {v.name} gives"
            )
        for sq in pos.gates[color]:
            p = pos.board[sq]
            back = 0 if color == 0 else geo.ranks - 1
            if geo.rank_of(sq) != back or not p or p & 1 != color or t.royal[p]:
                owner = ("White", "Black")[color]
                raise PositionTextError(
                    f"gates: {geo.name(sq)} is not a back-rank square of a {owner} non-royal piece"
                )
