"""Move notation: the one parser and the one formatter (spec §5).

`format_move` prints the long algebraic notation of Cazaux's books (`Hi2-g4`, `f6xe5 e.p.`,
`c2xd1M+`, `O-O(h1)/M`, `FA@c1`, `B*c3`, `Kf2<>Pe5`); `format_short` the shortest form that
names the move (`e4`, `Nf3`, `Nbd2`, `exd5`, `e8Q`; with `pgn=True`, PGN's SAN).

`parse` is the one way from text to a legal move: the printed form, bare coordinates
(`e3e5`, `b2b1B`), short algebraic (`e4`, `Nf3`, `SNd5`, `Nbd2`, `R1a3`, `exd5`, `e8=Q`),
`0-0`, drops written `B@c3`, capital file letters (`E2-E4`), spaces between the squares
(`e2 e4`); check marks and `!`/`?` are ignored (spec §5.2). Anything else is refused with
an error that says precisely why: an unknown square, no piece there, not your piece, the
wrong letter, a move the piece cannot make (and why), a move that leaves the King in check,
a missing or impossible promotion letter; several moves fitting raise `AmbiguousMoveError`
with the candidates to choose from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NoReturn

from rules import fsf
from rules.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, MoveError
from rules.geometry import FILE_LETTERS
from rules.moves import Move
from rules.position import (
    CASTLE,
    DROP,
    EP,
    KIND_MASK,
    KIND_SHIFT,
    NORMAL,
    PASS,
    PLACE,
    SWAP,
    Position,
)
from rules.tables import CAPTURE, COND_INITIAL, COND_ONCE, MC, MOVE
from rules.variant import Variant

COLOR_NAMES = ("White", "Black")

_SQ = r"[a-z]\d{1,2}"
_GATE = rf"/[A-Za-z]{{1,2}}(?:@{_SQ})?"
_BOARD_RE = re.compile(
    rf"(?P<letters>\+?[A-Z]{{1,2}})?(?P<origin>{_SQ})(?P<sep>[-x:]?)(?P<target>{_SQ})"
    rf"(?:=?(?P<promo>\+?[A-Za-z]{{1,2}}))?(?P<gate>{_GATE})?(?P<ep>\s*e\.p\.)?"
)
_CASTLE_RE = re.compile(
    rf"(?P<castle>[Oo0]-[Oo0]-[Oo0]|[Oo0]-[Oo0])(?:\((?P<dest>{_SQ})\))?(?P<gate>{_GATE})?"
)
_DROP_RE = re.compile(rf"(?P<letters>[A-Z]{{1,2}}|\+)(?P<sep>[*@])(?P<target>{_SQ})")
_SWAP_RE = re.compile(
    rf"(?P<kl>[A-Z]{{1,2}})?(?P<king>{_SQ})<>(?P<pl>[A-Z]{{1,2}})?(?P<prince>{_SQ})"
)
_SHORT_RE = re.compile(
    rf"(?P<letters>\+?[A-Z]{{1,2}})?(?P<file>[a-p])?(?P<rank>\d{{1,2}})?[-x:]?(?P<target>{_SQ})"
    rf"(?:=?(?P<promo>\+?[A-Za-z]{{1,2}}))?(?P<gate>{_GATE})?"
)
_WXF_RE = re.compile(r"[A-Za-z1-9+\-]{2,3}[-+=.]\d")
_JANGGI_RE = re.compile(
    r"(?P<letters>[A-Z])?(?P<origin>\d\d)[-x:]?(?P<captured>[A-Z])?(?P<target>\d\d)"
)
_PASS_WORDS = frozenset({"pass", "0000", "@@@@", "한수쉼"})
_LOWER_RE = re.compile(rf"[a-z]{{1,2}}(?={_SQ}[-x:]?{_SQ})")
_MARKS_RE = re.compile(r"[+#!?]+$")
_SHOGI_MARKS_RE = re.compile(r"[#!?]+$")
_SHOGI_SQ = r"(?:[1-9][a-p]|[1-9][1-9]|[a-p](?:1[0-6]|[1-9]))"
_SHOGI_RE = re.compile(
    rf"(?P<letters>\+?[A-Z]{{1,2}})?(?P<origin>{_SHOGI_SQ})?(?P<sep>[-x:*@']?)"
    rf"(?P<target>{_SHOGI_SQ})(?P<suffix>[+\-=]|=?\+?[A-Z]{{1,2}})?"
)
_EP_RE = re.compile(r"\s*e\.\s*p\.?$", re.IGNORECASE)
_CAPITAL_SQUARE_RE = re.compile(r"[A-Za-z]\d")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_NAMES = {"\n": "a line break", "\r": "a line break", "\t": "a tab"}
MAX_MOVE_TEXT = 40
"""Longer input is no move of any variant (the longest printed forms are about 20)."""


@dataclass(frozen=True, slots=True)
class Letters:
    """Piece letters for reading and writing notation: the variant's, or a game
    record's own legend (spec §6), piece id -> letters."""

    by_id: Mapping[str, str]

    def of(self, piece_id: str) -> str:
        return self.by_id[piece_id]

    def find(self, letters: str) -> str | None:
        for pid, lt in self.by_id.items():
            if lt == letters:
                return pid
        return None


def variant_letters(pos: Position) -> Letters:
    return Letters({p.id: p.letters for p in pos.variant.pieces})


def _letters(pos: Position, letters: Letters | None) -> Letters:
    return letters if letters is not None else variant_letters(pos)


def _drop_letters(lt: Letters, piece_id: str) -> str:
    """A piece's letters in drops, placements and gates. The Pawn, which has none, is `P`,
    or `+` where `P` is another piece's letter (as in setups and the position text)."""
    return lt.of(piece_id) or ("P" if lt.find("P") is None else "+")


def _dropped_piece(lt: Letters, letters: str) -> str | None:
    """The piece that drop, placement or gate letters name: the piece with those letters,
    else the Pawn for `P` (when no piece has that letter) or `+`."""
    pid = lt.find(letters) if letters != "+" else None
    if pid is None and letters in ("P", "+"):
        pid = lt.find("")
    return pid


# ---------------------------------------------------------------------------- formatting


def format_code(
    pos: Position, c: int, *, letters: Letters | None = None, marks: bool = True
) -> str:
    """The printed form of the legal move `c` in `pos` (check marks need a push/pop). In
    Shogi notation, the Western long form: `P7g-7f`, `B8hx2b+`, `P*5e` (no check marks)."""
    lt = _letters(pos, letters)
    if pos.variant.notation == "shogi":
        return _shogi_form(pos, c, lt, origin=True)
    t = pos.t
    geo = t.geo
    kind = (c >> KIND_SHIFT) & KIND_MASK
    o = c & 0xFF
    d = (c >> 8) & 0xFF
    if kind == PLACE:
        return f"{_drop_letters(lt, t.type_ids[o])}@{geo.name(d)}"
    if kind == PASS:
        return "pass"
    notation = pos.variant.notation
    plain = (
        kind == NORMAL
        and c < MC.GATED
        and not (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
        and o not in pos.gates[pos.side]
    )
    if notation == "wxf" and plain:
        return wxf(pos, c, lt)  # Xiangqi's notation has no check marks (`+` moves forward)
    if notation == "janggi" and plain:
        text = janggi(pos, c, lt)
    elif kind == DROP:
        text = f"{_drop_letters(lt, t.type_ids[o])}*{geo.name(d)}"
    elif kind == SWAP:
        king = lt.of(t.type_ids[pos.board[o] >> 1])
        prince = lt.of(t.type_ids[pos.board[d] >> 1])
        text = f"{king}{geo.name(o)}<>{prince}{geo.name(d)}"
    elif kind == CASTLE:
        rule = (c >> MC.CASTLE_SHIFT) & MC.CASTLE_MASK
        high = d > o
        text = "O-O" if high else "O-O-O"
        if pos.variant.fast_castling:
            text += f"({geo.name(d)})"
            rook = pos.variant.fast_castling.rooks[rule]
        else:
            rook = pos.variant.castling[rule].rook_from
        if pos.side:
            rook = geo.mirror(rook)
        gate = pos.gates[pos.side].get(rook)
        if gate is not None:
            text += "/" + lt.of(t.type_ids[gate >> 1])
        text += _hand_gate(pos, c, lt)
    elif o == d and kind == NORMAL:
        # An in-place promotion (Sittuyin): the piece turns over where it stands, `d5=F`.
        piece = pos.board[o]
        new = t.type_ids[(c >> MC.PROMO_SHIFT) & MC.PROMO_MASK]
        text = f"{lt.of(t.type_ids[piece >> 1])}{geo.name(o)}={lt.of(new)}"
    else:
        piece = pos.board[o]
        capture = kind == EP or bool(pos.board[d])
        text = f"{lt.of(t.type_ids[piece >> 1])}{geo.name(o)}{'x' if capture else '-'}{geo.name(d)}"
        promo = (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
        if promo:
            text += lt.of(t.type_ids[promo])
        gate = pos.gates[pos.side].get(o)
        if gate is not None:
            text += "/" + lt.of(t.type_ids[gate >> 1])
        text += _hand_gate(pos, c, lt)
        if kind == EP:
            text += " e.p."
    if marks:
        text += check_mark(pos, c)
    return text


def _hand_gate(pos: Position, c: int, lt: Letters) -> str:
    """S-Chess gating: `/H` (the piece enters the square the mover left) or `/H@h1`
    (castling, entering the Rook's square); "" for a move that gates nothing."""
    gate = (c >> MC.GATE_SHIFT) & MC.GATE_MASK
    if not gate:
        return ""
    text = "/" + _drop_letters(lt, pos.t.type_ids[gate])
    if c & MC.GATE_ROOK:
        text += "@" + pos.t.geo.name(pos._castling_rook(c)[0])
    return text


def check_mark(pos: Position, c: int) -> str:
    """`+` when the move leaves the opponent's royal piece attacked, `++` for checkmate
    (never `++` where the royal piece must be captured)."""
    pos.push_code(c, keep_key=False)
    try:
        if not pos.is_check():
            return ""
        if pos.variant.goal == "checkmate" and not pos.legal_codes():
            return "++"
        return "+"
    finally:
        pos.pop_code()


def format_move(
    pos: Position, move: Move, *, letters: Letters | None = None, marks: bool = True
) -> str:
    return format_code(pos, pos.to_code(move), letters=letters, marks=marks)


def coordinates(pos: Position, c: int) -> str:
    """The bare coordinate form (`e2e4`, `b7b8Q`, `B@c3`, `FA@c1`): what `--moves` takes
    and storage keeps next to the printed form. In Shogi notation a promotion is `+` and a
    demotion `-` (`b2h8+`, `a1a2-`), as Fairy-Stockfish's UCI writes them."""
    t = pos.t
    geo = t.geo
    lt = variant_letters(pos)
    kind = (c >> KIND_SHIFT) & KIND_MASK
    o = c & 0xFF
    d = (c >> 8) & 0xFF
    if kind in (DROP, PLACE):
        return f"{_drop_letters(lt, t.type_ids[o])}@{geo.name(d)}"
    if kind == CASTLE and pos.variant.fast_castling:
        return f"{'O-O' if d > o else 'O-O-O'}({geo.name(d)})" + _hand_gate(pos, c, lt)
    text = f"{geo.name(o)}{geo.name(d)}"
    promo = (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
    if promo:
        mark = _shogi_mark(pos, c) if pos.variant.notation == "shogi" else ""
        text += mark if mark in ("+", "-") else lt.of(t.type_ids[promo])
    return text + _hand_gate(pos, c, lt)


# ------------------------------------------------------ Xiangqi's WXF and Janggi's numbers


def _wxf_file(pos: Position, sq: int) -> str:
    """A file as the mover counts it in WXF: from the mover's right, 1 to 9."""
    geo = pos.t.geo
    f = geo.file_of(sq)
    return str(geo.files - f if pos.side == 0 else f + 1)


def _same_file(pos: Position, piece: int, sq: int) -> tuple[int, int, int]:
    """Pieces of this code on `sq`'s file: (how many, how many ahead of `sq` as its owner
    advances, how many behind)."""
    geo = pos.t.geo
    f, r = geo.file_of(sq), geo.rank_of(sq)
    ranks = [geo.rank_of(s) for s in pos.pieces[piece] if geo.file_of(s) == f]
    higher = sum(1 for x in ranks if x > r)
    lower = sum(1 for x in ranks if x < r)
    ahead, behind = (higher, lower) if piece & 1 == 0 else (lower, higher)
    return len(ranks), ahead, behind


def _tandem_files(pos: Position, piece: int) -> int:
    """Files holding two or more pieces of this code (WXF numbers such pieces)."""
    geo = pos.t.geo
    per_file: dict[int, int] = {}
    for s in pos.pieces[piece]:
        per_file[geo.file_of(s)] = per_file.get(geo.file_of(s), 0) + 1
    return sum(1 for n in per_file.values() if n > 1)


def _wxf_move(pos: Position, c: int) -> tuple[str, str]:
    """The direction sign and the last number of a WXF move: `=` and the new file for a
    sideways move, `+`/`-` and the ranks crossed along a file, else the new file."""
    geo = pos.t.geo
    o, d = c & 0xFF, (c >> 8) & 0xFF
    ro, rd = geo.rank_of(o), geo.rank_of(d)
    if ro == rd:
        op = "="
    else:
        op = "+" if (rd > ro) == (pos.side == 0) else "-"
    last = str(abs(rd - ro)) if geo.file_of(o) == geo.file_of(d) else _wxf_file(pos, d)
    return op, last


def wxf(pos: Position, c: int, letters: Letters | None = None) -> str:
    """Xiangqi's WXF notation of a board move, as Fairy-Stockfish writes it: the piece's
    letter and file (files counted from the mover's right), `+` forward, `-` back or `=`
    sideways, then the ranks crossed along a file or the new file: `C2=5`, `H8+7`, `R9+1`.
    Two of a kind on one file are told apart by `+` (front) and `-` (rear) for the file
    (`R+=9`); three or more on a file, or pairs on two files, by their place from the front
    instead of the letter (`15=4`: the foremost Soldier on file 5)."""
    lt = _letters(pos, letters)
    t = pos.t
    geo = t.geo
    o, d = c & 0xFF, (c >> 8) & 0xFF
    piece = pos.board[o]
    name = lt.of(t.type_ids[piece >> 1]) or "P"
    count, ahead, _behind = _same_file(pos, piece, o)
    multi = _tandem_files(pos, piece) >= 2
    head = str(ahead + 1) if count >= (2 if multi else 3) else name
    where = _wxf_file(pos, o)
    if count == 2 and not multi:
        # Front and rear, when the other piece could make the same move (else the file).
        other = next(s for s in pos.pieces[piece] if s != o and geo.file_of(s) == geo.file_of(o))
        dx = geo.file_of(d) - geo.file_of(o)
        dy = geo.rank_of(d) - geo.rank_of(o)
        moved = geo.offset(other, dx, dy)
        region = t.mask[piece]
        if moved is not None and (region is None or moved in region):
            where = "-" if ahead else "+"
    op, last = _wxf_move(pos, c)
    return f"{head}{where}{op}{last}"


def _wxf_spellings(pos: Position, c: int, lt: Letters) -> set[str]:
    """Every WXF spelling read as the move `c`: Fairy-Stockfish's, the plain letter-and-file
    form, the federation's tandem forms (`R+=9`, `+R=9`, `P3=4` for a middle Soldier, `++=4`
    and `--=4` for the foremost and rearmost of four or five, `3+=4` for the front one of
    file 3) and the place-from-the-front form (`15=4`)."""
    t = pos.t
    o = c & 0xFF
    piece = pos.board[o]
    names = {lt.of(t.type_ids[piece >> 1]) or "P"}
    names |= _alias_letters(pos, lt).get(t.type_ids[piece >> 1], set())
    count, ahead, behind = _same_file(pos, piece, o)
    where = _wxf_file(pos, o)
    op, last = _wxf_move(pos, c)
    heads = {n + where for n in names}
    if count >= 2:
        heads.add(str(ahead + 1) + where)
        front = {n + "+" for n in names} | {"+" + n for n in names}
        rear = {n + "-" for n in names} | {"-" + n for n in names}
        if count <= 3:
            heads |= (front | {where + "+"} if ahead == 0 else set()) | (
                rear | {where + "-"} if behind == 0 else set()
            )
        else:
            heads |= {"++", where + "+"} if ahead == 0 else front if ahead == 1 else set()
            heads |= {"--", where + "-"} if behind == 0 else rear if behind == 1 else set()
    heads.add(wxf(pos, c, lt)[: -len(op + last)])
    return {h + op + last for h in heads}


def _alias_letters(pos: Position, lt: Letters) -> dict[str, set[str]]:
    """Other letters players use for a piece: the initials of its other names (B for the
    Elephant called Bishop, N for ...), each where no piece of the game has that letter and
    no other piece claims it."""
    claims: dict[str, set[str]] = {}
    used = {lt.of(p.id) for p in pos.variant.pieces}
    for p in pos.variant.pieces:
        for alias in p.aliases:
            initial = alias[:1].upper()
            if initial.isalpha() and initial not in used:
                claims.setdefault(initial, set()).add(p.id)
    out: dict[str, set[str]] = {}
    for initial, ids in claims.items():
        if len(ids) == 1:
            out.setdefault(next(iter(ids)), set()).add(initial)
    return out


def _janggi_square(pos: Position, sq: int) -> str:
    """A square in the Korean notation: its row counted from the top (the tenth is 0),
    then its file from the left: e1 is 05, e10 is 15 on the 9x10 board."""
    geo = pos.t.geo
    return f"{(geo.ranks - geo.rank_of(sq)) % 10}{geo.file_of(sq) + 1}"


def janggi(pos: Position, c: int, letters: Letters | None = None) -> str:
    """Janggi's notation of a board move, as Fairy-Stockfish writes it: the piece's letter,
    its square and its destination in numbers, `x` for a capture (`H02-83`, `C82x12`)."""
    lt = _letters(pos, letters)
    o, d = c & 0xFF, (c >> 8) & 0xFF
    name = lt.of(pos.t.type_ids[pos.board[o] >> 1]) or "P"
    sep = "x" if pos.board[d] else "-"
    return f"{name}{_janggi_square(pos, o)}{sep}{_janggi_square(pos, d)}"


def format_short(
    pos: Position, c: int, *, letters: Letters | None = None, pgn: bool = False
) -> str:
    """The shortest form that names the legal move `c`: short algebraic for board moves
    (`e4`, `Nf3`, `Nbd2`, `R1a3`, `exd5`, `e8Q`, with the origin's file, rank or square
    only when another piece of the same type could go there), the printed form for the
    rest (castling, drops, swaps, placements). `pgn=True` gives PGN's SAN (`e8=Q`, `#`)."""
    lt = _letters(pos, letters)
    t = pos.t
    if pos.variant.notation == "shogi":
        return _shogi_form(pos, c, lt, origin=False)
    kind = (c >> KIND_SHIFT) & KIND_MASK
    if kind not in (NORMAL, EP):
        text = format_code(pos, c, letters=lt, marks=False)
    else:
        text = _short_prefix(pos, c, lt)
        promo = (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
        if promo:
            text += ("=" if pgn else "") + lt.of(t.type_ids[promo])
        gate = pos.gates[pos.side].get(c & 0xFF)
        if gate is not None:
            text += "/" + lt.of(t.type_ids[gate >> 1])
        text += _hand_gate(pos, c, lt)
    mark = check_mark(pos, c)
    return text + ("#" if pgn and mark == "++" else mark)


# ------------------------------------------------------------------ Western Shogi notation


def shogi_square(pos: Position, sq: int) -> str:
    """A square as Western Shogi notation names it: the file counted from the right (from
    Black's, the first player's, side), the rank a letter from the top: `7f`."""
    return _sq(pos, sq)


def square_label(variant: Variant, sq: int) -> str:
    """A square as the variant's players name it: `7f` in Shogi notation, `c6` otherwise."""
    geo = variant.geometry
    if variant.notation != "shogi":
        return geo.name(sq)
    return f"{geo.files - geo.file_of(sq)}{FILE_LETTERS[geo.ranks - 1 - geo.rank_of(sq)]}"


def _shogi_mark(pos: Position, c: int) -> str:
    """A Shogi move's suffix: `+` promotes, `-` turns a promoted piece back (Kyoto, Micro),
    `=` declines a promotion the move could make, "" otherwise; for a promotion among
    several pieces, the new piece's letters."""
    t = pos.t
    promo = (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
    mover = pos.variant.piece(t.type_ids[pos.board[c & 0xFF] >> 1])
    if promo:
        new = t.type_ids[promo]
        if new == mover.demotes_to:
            return "-"
        if mover.promotion is not None and len(mover.promotion.to) == 1:
            return "+"
        return pos.variant.piece(new).letters
    kind = (c >> KIND_SHIFT) & KIND_MASK
    return "=" if kind == NORMAL and pos.promotion_offered(c) else ""


def _shogi_form(pos: Position, c: int, lt: Letters, *, origin: bool) -> str:
    """Western (Hodges) notation: letters, the origin (always, or only when another piece
    of the type could make the move), `-`, `x` or `*` for a drop, the destination, then
    `+`, `-` or `=`: `P-7f`, `G6h-5h`, `Bx2b+`, `P*5e`, `+R-2b`, `S-4d=`."""
    t = pos.t
    kind = (c >> KIND_SHIFT) & KIND_MASK
    o, d = c & 0xFF, (c >> 8) & 0xFF
    if kind in (DROP, PLACE):
        return f"{_drop_letters(lt, t.type_ids[o])}*{shogi_square(pos, d)}"
    piece = pos.board[o]
    text = lt.of(t.type_ids[piece >> 1])
    if origin or any(
        (x >> 8) & 0xFF == d
        and x & 0xFF != o
        and pos.board[x & 0xFF] == piece
        and x & ~0xFF == c & ~0xFF
        for x in pos.legal_codes()
    ):
        text += shogi_square(pos, o)
    text += "x" if kind == EP or pos.board[d] else "-"
    return text + shogi_square(pos, d) + _shogi_mark(pos, c)


def _shogi_square_index(pos: Position, raw: str, text: str) -> int:
    """A square written the Shogi way (`7f`, or `76` on boards of up to 9 ranks) or the
    algebraic way (`c6`)."""
    geo = pos.t.geo
    if not text[0].isdigit():
        return _square(pos, raw, text)
    file = geo.files - int(text[0])
    second = text[1]
    rank = (
        geo.ranks - int(second) if second.isdigit() else geo.ranks - 1 - FILE_LETTERS.index(second)
    )
    if not (0 <= file < geo.files and 0 <= rank < geo.ranks) or (
        second.isdigit() and geo.ranks > 9
    ):
        last = f"{FILE_LETTERS[geo.ranks - 1]}"
        raise InvalidMoveError(
            raw,
            f"{text} is not a square: files run from {geo.files} to 1 (right to left), ranks "
            f"from a to {last} (top to bottom)",
        )
    return geo.index(file, rank)


def _parse_shogi(pos: Position, raw: str, body: str, lt: Letters) -> int | None:
    """A move in Western Shogi notation (`P-7f`, `P7g-7f`, `Bx2b+`, `S-4d=`, `P*5e`, `+B-5e`,
    `P76`, `7g7f`) or in coordinates with Shogi's marks (`c3c4`, `b2h8+`, `P@e5`, `a1a2-`);
    None when `body` has neither shape (the other readings are tried then)."""
    m = _SHOGI_RE.fullmatch(body)
    if m is None:
        return None
    t = pos.t
    geo = t.geo
    letters, sep, suffix = m.group("letters"), m.group("sep"), m.group("suffix")
    target = _shogi_square_index(pos, raw, m.group("target"))
    if sep in ("*", "@", "'"):
        if m.group("origin") or suffix or not letters:
            raise InvalidMoveError(raw, "a drop is the piece's letter, * and a square: P*5e")
        return _parse_drop(pos, raw, letters, geo.name(target), lt)
    if m.group("origin") is None:
        if letters is None:
            return None
        pid = _piece_of_letters(pos, raw, letters, lt)
        codes = [
            c for c in _board_codes_to(pos, target) if t.type_ids[pos.board[c & 0xFF] >> 1] == pid
        ]
        if not codes:
            name = pos.variant.piece(pid).name
            raise IllegalMoveError(raw, f"no {name} of yours can go to {shogi_square(pos, target)}")
        fitting = [c for c in codes if _suffix_fits(pos, c, suffix)] or codes
        origins = sorted({c & 0xFF for c in fitting})
        if len(origins) > 1:
            shown = tuple(
                _shogi_form(pos, next(c for c in fitting if c & 0xFF == o), lt, origin=True)
                for o in origins
            )
            choice = ", ".join(shown[:-1]) + f" or {shown[-1]}"
            raise AmbiguousMoveError(raw, f"several moves fit; which one: {choice}?", shown)
        origin = origins[0]
    else:
        origin = _shogi_square_index(pos, raw, m.group("origin"))
    promo = _suffix_letters(pos, raw, origin, suffix, lt)
    try:
        return _parse_board(
            pos, raw, letters, origin, target, promo, None, lt, plain_only=suffix == "="
        )
    except IllegalMoveError as exc:
        if suffix in ("+", "-") and "does not promote" in str(exc):
            where = f"{_sq(pos, origin)}-{_sq(pos, target)}"
            raise IllegalMoveError(
                raw, f"{where} cannot promote or turn back here: remove '{suffix}'"
            ) from None
        raise


def _suffix_fits(pos: Position, c: int, suffix: str | None) -> bool:
    if not suffix:
        return True
    mark = _shogi_mark(pos, c)
    return mark == suffix or (suffix == "=" and mark == "")


def _suffix_letters(
    pos: Position, raw: str, origin: int, suffix: str | None, lt: Letters
) -> str | None:
    """The promotion letters a Shogi suffix stands for: `+` the piece's one promoted form,
    `-` the piece it turns back into, a piece's letters themselves; None for `=` or none."""
    if suffix in (None, "="):
        return None
    if suffix not in ("+", "-"):
        return suffix.lstrip("=")
    t = pos.t
    code = pos.board[origin]
    if not code:
        return None  # `_parse_board` says there is no piece there
    mover = pos.variant.piece(t.type_ids[code >> 1])
    if suffix == "-":
        if mover.demotes_to is None:
            raise IllegalMoveError(raw, f"a {mover.name} has no side to turn back to: remove '-'")
        return lt.of(mover.demotes_to)
    ups = [p for p in (mover.promotion.to if mover.promotion else ()) if p != mover.demotes_to]
    if len(ups) != 1:
        if not ups:
            raise IllegalMoveError(raw, f"a {mover.name} does not promote: remove '+'")
        choices = ", ".join(lt.of(p) for p in ups)
        raise IllegalMoveError(raw, f"say what the piece becomes: one of {choices}")
    return lt.of(ups[0])


def parse_square(variant: Variant, text: str) -> int | None:
    """A square typed by a player: its algebraic name (`c3`), or in a Shogi game its Shogi
    name (`7g`); None when it is neither."""
    geo = variant.geometry
    text = text.strip()
    found = geo.parse(text.lower())
    if found is not None or variant.notation != "shogi":
        return found
    m = re.fullmatch(r"([1-9])([a-p])", text.lower())
    if m is None:
        return None
    file, rank = geo.files - int(m.group(1)), geo.ranks - 1 - FILE_LETTERS.index(m.group(2))
    return geo.index(file, rank) if 0 <= file < geo.files and 0 <= rank < geo.ranks else None


def _sq(pos: Position, sq: int) -> str:
    """A square in a message, named as the variant's players name it."""
    return square_label(pos.variant, sq)


def _board_codes_to(pos: Position, target: int) -> list[int]:
    """Legal moves of pieces on the board that end on `target` (what a short form names)."""
    return [
        c
        for c in pos.legal_codes()
        if (c >> 8) & 0xFF == target and (c >> KIND_SHIFT) & KIND_MASK not in (DROP, PLACE)
    ]


def _short_prefix(pos: Position, c: int, lt: Letters) -> str:
    """Letters, the least origin that tells the move apart, `x` for a capture, target."""
    geo = pos.t.geo
    o, d = c & 0xFF, (c >> 8) & 0xFF
    piece = pos.board[o]
    piece_letters = lt.of(pos.t.type_ids[piece >> 1])
    capture = (c >> KIND_SHIFT) & KIND_MASK == EP or (bool(pos.board[d]) and d != o)
    others = {
        x & 0xFF for x in _board_codes_to(pos, d) if pos.board[x & 0xFF] >> 1 == piece >> 1
    } - {o}
    name = geo.name(o)
    file_letter, rank_digits = name[0], name[1:]
    if not others:
        origin = file_letter if capture and not piece_letters else ""
    elif all(geo.file_of(x) != geo.file_of(o) for x in others):
        origin = file_letter
    elif all(geo.rank_of(x) != geo.rank_of(o) for x in others) and (piece_letters or not capture):
        origin = rank_digits
    else:
        origin = name
    return f"{piece_letters}{origin}{'x' if capture else ''}{geo.name(d)}"


# ------------------------------------------------------------------------------- parsing


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed ply: the legal move code and the check mark the text claimed, if any."""

    code: int
    move: Move
    claimed_mark: str | None


def parse_move(
    pos: Position, text: str, *, letters: Letters | None = None, check_marks: bool = False
) -> Move:
    """The legal move `text` names in `pos`; `InvalidMoveError` or `IllegalMoveError`
    (both `ValueError`s) with a message that says why otherwise."""
    return parse(pos, text, letters=letters, check_marks=check_marks).move


def parse(
    pos: Position, text: str, *, letters: Letters | None = None, check_marks: bool = False
) -> Parsed:
    """The legal move `text` names in `pos`, in any accepted form (module docstring), or a
    `MoveError` saying why not: `InvalidMoveError` (not a move), `IllegalMoveError` (not
    legal here) or `AmbiguousMoveError` (several moves fit; their short forms attached).
    Marks are ignored unless `check_marks` (game records verify theirs)."""
    raw = text
    lt = _letters(pos, letters)
    if pos.variant.notation == "shogi":
        # `+`, `-` and `=` end a Shogi move (promote, turn back, decline): not check marks.
        body, claimed = _clean(raw, shogi=True)
        found = _parse_shogi(pos, raw, body, lt)
        if found is not None:
            return Parsed(found, pos.to_move(found), None)
    body, claimed = _clean(raw)
    errors: list[MoveError] = []
    promotes_in_uci = raw.strip()[-1:] in ("+", "-") and fsf.marks_promotion(pos.variant)
    uci = fsf.parse_uci(pos, raw.strip()) if promotes_in_uci else None
    for reading in _readings(body, lt) if uci is None else ():
        try:
            code = _parse_body(pos, raw, reading, lt)
        except MoveError as exc:
            errors.append(exc)
            continue
        break
    else:
        # Fairy-Stockfish's UCI form (`g1f3h`, `b2h8+`, `e1h1` in Chess960) where ours fails.
        uci = uci if uci is not None else _uci_or_none(pos, raw.strip())
        if uci is None:
            # The most telling refusal: one about the position beats one about the spelling.
            raise next((e for e in errors if not isinstance(e, InvalidMoveError)), errors[0])
        code = uci
        claimed = None
    if check_marks and claimed is not None:
        actual = check_mark(pos, code)
        if actual != claimed:
            said = "checkmate" if claimed == "++" else "check"
            really = {"": "gives no check", "+": "gives check but not mate", "++": "is checkmate"}
            raise IllegalMoveError(raw, f"annotated as {said}, but the move {really[actual]}")
    return Parsed(code, pos.to_move(code), claimed)


def _uci_or_none(pos: Position, text: str) -> int | None:
    try:
        return fsf.parse_uci(pos, text)
    except MoveError:
        return None


def _clean(raw: str, *, shogi: bool = False) -> tuple[str, str | None]:
    """The move's body without surrounding or inner spaces, `e.p.` and annotations, and the
    check mark it claimed. Refuses what cannot be a move whatever the position. In Shogi
    notation a final `+` is the move's promotion, kept in the body."""
    text = raw.strip()
    if not text:
        raise InvalidMoveError(raw, "empty move: write it like e2-e4, Nf3 or e2e4")
    if bad := _CONTROL_RE.search(text):
        char = bad.group(0)
        what = _CONTROL_NAMES.get(char, f"the control character U+{ord(char):04X}")
        raise InvalidMoveError(
            raw, f"a move is one line of plain text, but this one contains {what}"
        )
    if len(text) > MAX_MOVE_TEXT:
        raise InvalidMoveError(
            text[:MAX_MOVE_TEXT] + "…", "too long to be a move: write it like e2-e4 or Nf3"
        )
    marks = ""
    marks_re = _SHOGI_MARKS_RE if shogi else _MARKS_RE
    while True:
        m = marks_re.search(text)
        if m:
            marks += m.group(0)
            text = text[: m.start()].rstrip()
        ep = _EP_RE.search(text)
        if not ep:
            break
        text = text[: ep.start()].rstrip()
    claimed: str | None = None
    if "#" in marks or "++" in marks:
        claimed = "++"
    elif "+" in marks:
        claimed = "+"
    body = "".join(text.split())
    if not body:
        raise InvalidMoveError(raw, "expected a move before the annotation")
    return body, claimed


def _readings(body: str, lt: Letters) -> list[str]:
    """What the player may have meant, most literal first: as typed, then with capital
    file letters made small (`E2-E4`, `NF3`, and a phone's automatic capital: `Exd5`). A
    leading capital that begins a piece's letters stays a piece letter (`Bxc3` is never
    read as `bxc3`)."""

    def piece_start(ch: str) -> bool:
        return any(letters.startswith(ch) for letters in lt.by_id.values() if letters)

    chars = list(body)
    for i, ch in enumerate(body):
        if not ch.isupper():
            continue
        after = body[i + 1 : i + 2]
        if i == 0:
            if not piece_start(ch) and after and (after.isdigit() or after in "xX:-"):
                chars[i] = ch.lower()
        elif after.isdigit():
            chars[i] = ch.lower()
        elif ch == "X" and not piece_start("X") and _CAPITAL_SQUARE_RE.match(body, i + 1):
            chars[i] = "x"
    return list(dict.fromkeys([body, "".join(chars)]))


def _square(pos: Position, raw: str, name: str) -> int:
    sq = pos.t.geo.parse(name)
    if sq is None:
        raise InvalidMoveError(raw, f"{name} is not a square: {pos.t.geo.square_hint()}")
    return sq


def _piece_phrase(pos: Position, code: int) -> str:
    p = pos.describe(code)
    return f"{COLOR_NAMES[p.color]}'s {p.name}"


def _parse_body(pos: Position, raw: str, body: str, lt: Letters) -> int:
    if pos.placing:
        m = _DROP_RE.fullmatch(body)
        if not m:
            raise InvalidMoveError(
                raw,
                "the game is in its placement phase: place a reserve piece behind a back-rank "
                "piece, like FA@c1",
            )
        return _parse_placement(pos, raw, m.group("letters"), m.group("target"), lt)
    if body.lower() in _PASS_WORDS:
        return _parse_pass(pos, raw)
    notation = pos.variant.notation
    if notation == "wxf" and _WXF_RE.fullmatch(body):
        return _parse_wxf(pos, raw, body, lt)
    if notation == "janggi" and (m := _JANGGI_RE.fullmatch(body)):
        return _parse_janggi(pos, raw, m, lt)
    if m := _CASTLE_RE.fullmatch(body):
        return _parse_castling(pos, raw, m, lt)
    if m := _DROP_RE.fullmatch(body):
        return _parse_drop(pos, raw, m.group("letters"), m.group("target"), lt)
    if m := _SWAP_RE.fullmatch(body):
        origin = _square(pos, raw, m.group("king"))
        target = _square(pos, raw, m.group("prince"))
        return _parse_board(pos, raw, m.group("kl"), origin, target, None, None, lt, swap=True)
    if m := _BOARD_RE.fullmatch(body):
        origin = _square(pos, raw, m.group("origin"))
        target = _square(pos, raw, m.group("target"))
        gate = m.group("gate")
        return _parse_board(
            pos,
            raw,
            m.group("letters"),
            origin,
            target,
            m.group("promo"),
            gate[1:] if gate else None,
            lt,
        )
    if lower := _LOWER_RE.match(body):
        raise InvalidMoveError(
            raw,
            f"piece letters are uppercase: write {lower.group(0).upper()}, not {lower.group(0)}",
        )
    if m := _SHORT_RE.fullmatch(body):
        return _parse_short(pos, raw, m, lt)
    raise InvalidMoveError(
        raw,
        "expected a move like e2-e4, Ng1-f3, Nf3, e4, exd5, e8Q or O-O",
    )


def _parse_pass(pos: Position, raw: str) -> int:
    """`pass` (also `0000`, `@@@@`, and the King's square twice, `e2e2`, read elsewhere)."""
    if not pos.variant.passing:
        raise IllegalMoveError(raw, f"there is no passing in {pos.variant.name}")
    for c in pos.legal_codes():
        if (c >> KIND_SHIFT) & KIND_MASK == PASS:
            return c
    if pos.kings[pos.side] >= 0 and pos.is_check():
        raise IllegalMoveError(raw, "you cannot pass while your General is in check")
    raise IllegalMoveError(raw, "you cannot pass now")


def _parse_wxf(pos: Position, raw: str, body: str, lt: Letters) -> int:
    """A move in WXF notation (`C2=5`, `C2.5`, `R+=9`, `+R=9`, `15=4`, `c2=5`): the one
    legal move that reads so, else a refusal naming the moves that piece has."""
    text = body.upper().replace(".", "=")
    codes = [c for c in pos.legal_codes() if (c >> KIND_SHIFT) & KIND_MASK == NORMAL]
    found = [c for c in codes if text in _wxf_spellings(pos, c, lt)]
    if len(found) == 1:
        return found[0]
    if found:
        shown = tuple(wxf(pos, c, lt) for c in found)
        choice = ", ".join(shown[:-1]) + f" or {shown[-1]}"
        raise AmbiguousMoveError(raw, f"several moves read so; which one: {choice}?", shown)
    letter = text[0] if text[0].isalpha() else text[1] if text[1].isalpha() else ""
    pid = lt.find(letter) if letter else None
    if pid is None and letter:
        for piece_id, initials in _alias_letters(pos, lt).items():
            if letter in initials:
                pid = piece_id
    hint = (
        "WXF: the piece's letter, its file counted from your right, + forward, - back or = "
        "sideways, then the ranks crossed along the file or the new file (C2=5, H8+7, R1+1)"
    )
    if pid is None:
        raise IllegalMoveError(raw, f"no move reads {text}. {hint}")
    name = pos.variant.piece(pid).name
    theirs = [wxf(pos, c, lt) for c in codes if pos.t.type_ids[pos.board[c & 0xFF] >> 1] == pid]
    if not theirs:
        raise IllegalMoveError(raw, f"no {name} of yours can move")
    listed = ", ".join(theirs[:12]) + (" ..." if len(theirs) > 12 else "")
    raise IllegalMoveError(raw, f"no {name} move reads {text}; the {name}s can play {listed}")


def _parse_janggi(pos: Position, raw: str, m: re.Match[str], lt: Letters) -> int:
    """Janggi's numbered squares (`H02-83`, `C82x12`, `E44xP72`): row from the top (the
    tenth is 0), then file from the left."""
    geo = pos.t.geo
    squares = []
    for group in ("origin", "target"):
        row, file = int(m.group(group)[0]), int(m.group(group)[1])
        rank = (geo.ranks - row) % 10
        if not 1 <= file <= geo.files or rank >= geo.ranks:
            raise InvalidMoveError(
                raw,
                f"{m.group(group)} is not a square: Janggi numbers the rows from the top "
                f"(1 to 9, then 0) and the files from the left (1 to {geo.files})",
            )
        squares.append(geo.index(file - 1, rank))
    captured = m.group("captured")
    if captured and pos.board[squares[1]]:
        victim = lt.of(pos.t.type_ids[pos.board[squares[1]] >> 1]) or "P"
        if victim != captured:
            raise IllegalMoveError(raw, f"the piece on {m.group('target')} is {victim}")
    return _parse_board(pos, raw, m.group("letters"), squares[0], squares[1], None, None, lt)


def _piece_of_letters(pos: Position, raw: str, letters: str | None, lt: Letters) -> str:
    """The piece type short-form letters name; none means the Pawn (the letterless piece),
    and `P` does too where no piece has that letter."""
    v = pos.variant
    pid = lt.find(letters or "")
    if pid is None and letters == "P":
        pid = lt.find("")
    if pid is None:
        known = ", ".join(f"{lt.of(p.id)} {p.name}" for p in v.pieces if lt.of(p.id))
        raise InvalidMoveError(raw, f"{letters} is not a piece letter in {v.name} ({known})")
    return pid


def _parse_short(pos: Position, raw: str, m: re.Match[str], lt: Letters) -> int:
    """`e4`, `Nf3`, `Nbd2`, `R1a3`, `exd5`, `e8Q`: the one legal move of that piece type
    to that square (from that file or rank), else a refusal listing what fits."""
    t = pos.t
    geo = t.geo
    target = _square(pos, raw, m.group("target"))
    pid = _piece_of_letters(pos, raw, m.group("letters"), lt)
    codes = [c for c in _board_codes_to(pos, target) if t.type_ids[pos.board[c & 0xFF] >> 1] == pid]
    file, rank = m.group("file"), m.group("rank")
    if file is not None:
        codes = [c for c in codes if geo.file_of(c & 0xFF) == ord(file) - ord("a")]
    if rank is not None:
        codes = [c for c in codes if geo.rank_of(c & 0xFF) == int(rank) - 1]
    origins = sorted({c & 0xFF for c in codes}, key=lambda o: (geo.file_of(o), geo.rank_of(o)))
    if len(origins) == 1:
        gate = m.group("gate")
        return _parse_board(
            pos, raw, None, origins[0], target, m.group("promo"), gate[1:] if gate else None, lt
        )
    if origins:
        shown = tuple(
            _short_prefix(pos, next(c for c in codes if c & 0xFF == o), lt) for o in origins
        )
        choice = ", ".join(shown[:-1]) + f" or {shown[-1]}"
        raise AmbiguousMoveError(raw, f"several moves fit; which one: {choice}?", shown)
    name = pos.variant.piece(pid).name
    where = f" on the {file}-file" if file else ""
    where += f" on rank {rank}" if rank else ""
    reason = f"no {name} of yours{where} can go to {_sq(pos, target)}"
    others = list(
        dict.fromkeys(format_code(pos, c, letters=lt) for c in _board_codes_to(pos, target))
    )
    if len(others) == 1:
        reason += f"; the only move there is {others[0]}"
    elif others:
        reason += f"; the moves there are {', '.join(others)}"
    else:
        reason += ", nor can any other piece"
    raise IllegalMoveError(raw, reason)


def _legal_from(pos: Position, origin: int, target: int) -> list[int]:
    return [
        c
        for c in pos.legal_codes()
        if (c & 0xFF) == origin
        and (c >> 8) & 0xFF == target
        and (c >> KIND_SHIFT) & KIND_MASK not in (DROP, PLACE)
    ]


def _parse_board(
    pos: Position,
    raw: str,
    letters: str | None,
    origin: int,
    target: int,
    promo: str | None,
    gate: str | None,
    lt: Letters,
    *,
    swap: bool = False,
    plain_only: bool = False,
) -> int:
    t = pos.t
    side = pos.side
    piece = pos.board[origin]
    if not piece:
        raise IllegalMoveError(raw, f"there is no piece on {_sq(pos, origin)}")
    if piece & 1 != side:
        raise IllegalMoveError(
            raw,
            f"the piece on {_sq(pos, origin)} is {_piece_phrase(pos, piece)}; "
            f"it is {COLOR_NAMES[side]}'s turn",
        )
    pid = t.type_ids[piece >> 1]
    if (
        letters is not None
        and letters != lt.of(pid)
        and not (letters == "P" and not lt.of(pid) and lt.find("P") is None)
    ):
        named = lt.find(letters)
        what = f"{pos.variant.piece(named).name} ({letters})" if named else f"{letters!r}"
        shown = lt.of(pid)
        mine = f"{pos.variant.piece(pid).name} ({shown})" if shown else "a Pawn"
        raise IllegalMoveError(raw, f"the piece on {_sq(pos, origin)} is {mine}, not {what}")
    candidates = _legal_from(pos, origin, target)
    if swap:
        candidates = [c for c in candidates if (c >> KIND_SHIFT) & KIND_MASK == SWAP]
    elif len({(c >> KIND_SHIFT) & KIND_MASK for c in candidates}) > 1:
        # Kf1-g1 is the King's step when it can make it; castling only otherwise.
        ordinary = [c for c in candidates if (c >> KIND_SHIFT) & KIND_MASK not in (CASTLE, SWAP)]
        if ordinary:
            candidates = ordinary
    if not candidates:
        raise IllegalMoveError(raw, _explain(pos, origin, target))
    if pos.variant.reserve_in_hand:
        candidates = _select_hand_gate(pos, raw, candidates, gate, lt)
        gate = None
    promo_codes = {
        c: (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
        for c in candidates
        if (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
    }
    plain = [c for c in candidates if c not in promo_codes]
    if plain_only and not plain:
        raise IllegalMoveError(
            raw,
            f"{_sq(pos, origin)}-{_sq(pos, target)} must promote here: write + instead of =",
        )
    if plain_only:
        code = plain[0]
    elif promo is not None:
        wanted = promo.upper()
        if not promo_codes:
            raise IllegalMoveError(
                raw,
                f"{_sq(pos, origin)}-{_sq(pos, target)} does not promote; remove {promo!r}",
            )
        for c, idx in promo_codes.items():
            if lt.of(t.type_ids[idx]) == wanted:
                code = c
                break
        else:
            choices = ", ".join(lt.of(t.type_ids[i]) for i in promo_codes.values())
            raise IllegalMoveError(
                raw, f"{wanted} is not a promotion choice here; choose {choices}"
            )
    elif plain:
        code = plain[0]
    elif len(promo_codes) == 1:
        code = next(iter(promo_codes))
    else:
        choices = ", ".join(lt.of(t.type_ids[i]) for i in promo_codes.values())
        raise IllegalMoveError(
            raw, f"this move promotes: add the letter of the new piece, one of {choices}"
        )
    _check_gate(pos, raw, origin, code, gate, lt)
    return code


def _select_hand_gate(
    pos: Position, raw: str, candidates: list[int], gate: str | None, lt: Letters
) -> list[int]:
    """S-Chess: the candidates that bring in the piece `gate` names (`H`, or `H@h1` for the
    Rook's square when castling), or those that bring in nothing when `gate` is None."""
    if gate is None:
        return [c for c in candidates if c < MC.GATED]
    t = pos.t
    letters, _at, square = gate.partition("@")
    letters = letters.upper()
    pid = _dropped_piece(lt, letters)
    if pid is None:
        raise InvalidMoveError(raw, f"{letters} is not a piece letter of {pos.variant.name}")
    gated = [c for c in candidates if c >= MC.GATED]
    if not gated:
        return _raise(
            raw,
            "no piece can enter with this move: a reserve piece enters only the first-row "
            "square a piece leaves for the first time",
        )
    mine = [c for c in gated if t.type_ids[(c >> MC.GATE_SHIFT) & MC.GATE_MASK] == pid]
    if not mine:
        held = sorted(
            {_drop_letters(lt, t.type_ids[(c >> MC.GATE_SHIFT) & MC.GATE_MASK]) for c in gated}
        )
        return _raise(
            raw, f"you have no {pos.variant.piece(pid).name} in hand (you have {', '.join(held)})"
        )
    if square:
        wanted = [
            c for c in mine if c & MC.GATE_ROOK and t.geo.name(pos._castling_rook(c)[0]) == square
        ]
        if not wanted:
            return _raise(raw, f"the piece cannot enter on {square} with this move")
        return wanted
    return [c for c in mine if not c & MC.GATE_ROOK]


def _check_gate(
    pos: Position, raw: str, origin: int, code: int, gate: str | None, lt: Letters
) -> None:
    if gate is None:
        return
    t = pos.t
    square = origin
    if (code >> KIND_SHIFT) & KIND_MASK == CASTLE:
        v = pos.variant
        rule = (code >> MC.CASTLE_SHIFT) & MC.CASTLE_MASK
        square = v.fast_castling.rooks[rule] if v.fast_castling else v.castling[rule].rook_from
        if pos.side:
            square = t.geo.mirror(square)
    waiting = pos.gates[pos.side].get(square)
    if waiting is None:
        raise IllegalMoveError(raw, f"no reserve piece enters with this move; remove /{gate}")
    expected = lt.of(t.type_ids[waiting >> 1])
    if gate.upper() != expected:
        raise IllegalMoveError(raw, f"the piece that enters is {expected}, not {gate}")


def _parse_castling(pos: Position, raw: str, m: re.Match[str], lt: Letters) -> int:
    t = pos.t
    geo = t.geo
    v = pos.variant
    high = len(m.group("castle")) == 3
    side_name = "O-O" if high else "O-O-O"
    if not v.castles:
        raise IllegalMoveError(raw, f"there is no castling in {v.name}")
    king = pos.kings[pos.side]
    dest = None
    if m.group("dest"):
        dest = _square(pos, raw, m.group("dest"))
    legal = [
        c
        for c in pos.legal_codes()
        if (c >> KIND_SHIFT) & KIND_MASK == CASTLE and (((c >> 8) & 0xFF) > (c & 0xFF)) == high
    ]
    if dest is not None:
        legal = [c for c in legal if (c >> 8) & 0xFF == dest]
    gate = m.group("gate")
    if v.reserve_in_hand and legal:
        legal = _select_hand_gate(pos, raw, legal, gate[1:] if gate else None, lt)
        gate = None
    if len(legal) == 1:
        _check_gate(pos, raw, king, legal[0], gate[1:] if gate else None, lt)
        return legal[0]
    if len(legal) > 1:
        options = tuple(f"{side_name}({geo.name((c >> 8) & 0xFF)})" for c in legal)
        raise AmbiguousMoveError(raw, f"say where the King goes: {', '.join(options)}", options)
    raise IllegalMoveError(raw, _explain_castling(pos, high, dest))


def _explain_castling(pos: Position, high: bool, dest: int | None) -> str:
    v = pos.variant
    geo = pos.t.geo
    side = pos.side
    king = pos.kings[side]
    if king < 0 or not pos.virgin[king]:
        return "your King has already moved, so it can no longer castle"
    pseudo = [
        c
        for c in pos.pseudo_codes()
        if (c >> KIND_SHIFT) & KIND_MASK == CASTLE and (((c >> 8) & 0xFF) > (c & 0xFF)) == high
    ]
    if dest is not None:
        pseudo = [c for c in pseudo if (c >> 8) & 0xFF == dest]
    if not pseudo:
        rooks = (
            [c.rook_from for c in v.castling]
            if v.castling
            else list(v.fast_castling.rooks if v.fast_castling else [])
        )
        if side:
            rooks = [geo.mirror(r) for r in rooks]
        rooks = [r for r in rooks if (r > king) == high]
        if rooks and not all(pos.virgin[r] for r in rooks):
            return "that Rook has moved (or is gone), so there is no castling on that side"
        if dest is not None and pos.board[dest]:
            return f"the King's destination {geo.name(dest)} is occupied"
        return "the squares between the King and the Rook must be empty"
    if pos.is_check():
        return "you cannot castle while your King is in check"
    if v.fast_castling:
        # Fast castling jumps over attacked squares; only the destination must be safe.
        if dest is not None:
            return f"the King may not castle to {geo.name(dest)}: that square is attacked"
        return "the King may not castle to an attacked square"
    return "the King may not pass over or land on an attacked square when castling"


def _parse_drop(pos: Position, raw: str, letters: str, target_name: str, lt: Letters) -> int:
    t = pos.t
    geo = t.geo
    v = pos.variant
    target = _square(pos, raw, target_name)
    if not v.drops:
        if v.reserve:
            raise IllegalMoveError(
                raw, "the placement phase is over: reserve pieces enter by gating"
            )
        raise IllegalMoveError(raw, f"there are no drops in {v.name}")
    pid = _dropped_piece(lt, letters)
    if pid is None:
        raise InvalidMoveError(raw, f"{letters} is not a piece letter of {v.name}")
    for c in pos.legal_codes():
        kind = (c >> KIND_SHIFT) & KIND_MASK
        if kind == DROP and (c >> 8) & 0xFF == target and t.type_ids[c & 0xFF] == pid:
            return c
    name = v.piece(pid).name
    hand_types = {t.type_ids[t.hand_type[t.code(pid, 0)] >> 1]}
    if not any(pos.hand(pos.side).get(h) for h in hand_types):
        return _raise(raw, f"you have no {name} in hand")
    if pos.board[target]:
        return _raise(raw, f"{_sq(pos, target)} is occupied: drops go on empty squares")
    piece = v.piece(pid)
    where = square_label(v, target)
    if geo.row(target, pos.side) in piece.no_drop_rows:
        return _raise(raw, f"a {name} may not be dropped on your row {geo.row(target, pos.side)}")
    code = t.code(pid, pos.side)
    stuck = t.immobile[code]
    if stuck is not None and stuck[target]:
        return _raise(raw, f"a {name} dropped on {where} could never move")
    region = piece.drop_region or v.drop_region or piece.region
    if region is not None and target not in v.region(region).of(pos.side):
        return _raise(raw, f"a {name} may be dropped only in the region {region!r}")
    if t.one_per_file[code] and any(
        geo.file_of(sq) == geo.file_of(target) for sq in pos.pieces[code]
    ):
        return _raise(raw, f"you already have a {name} on that file (two on a file: nifu)")
    if piece.drop_mate == "illegal":
        return _raise(raw, f"a {name} may not be dropped to give checkmate")
    return _raise(raw, f"you cannot drop a {name} on {where}")


def _raise(raw: str, reason: str) -> NoReturn:
    raise IllegalMoveError(raw, reason)


def _parse_placement(pos: Position, raw: str, letters: str, target_name: str, lt: Letters) -> int:
    t = pos.t
    geo = t.geo
    target = _square(pos, raw, target_name)
    pid = _dropped_piece(lt, letters)
    for c in pos.legal_codes():
        if (c >> 8) & 0xFF == target and t.type_ids[c & 0xFF] == pid:
            return c
    waiting = [lt.of(t.type_ids[code >> 1]) for code in pos.reserve[pos.side]]
    if pid is None or t.code(pid, pos.side) not in pos.reserve[pos.side]:
        return _raise(
            raw, f"{letters} is not one of your reserve pieces to place ({', '.join(waiting)})"
        )
    back = 1 if pos.side == 0 else geo.ranks
    if geo.rank_of(target) + 1 != back:
        return _raise(raw, f"reserve pieces wait behind your back rank (rank {back})")
    if target in pos.gates[pos.side]:
        return _raise(raw, f"a reserve piece already waits behind {geo.name(target)}")
    return _raise(raw, f"{geo.name(target)} must hold one of your pieces other than the King")


def _explain(pos: Position, origin: int, target: int) -> str:
    """Why the piece on `origin` cannot go to `target` in this position."""
    t = pos.t
    geo = t.geo
    side = pos.side
    piece = pos.board[origin]
    name = pos.describe(piece).name
    o_name, t_name = _sq(pos, origin), _sq(pos, target)
    # Pseudo-legal but illegal: the King would be (or stay) in check.
    pseudo = [c for c in pos.pseudo_codes() if (c & 0xFF) == origin and (c >> 8) & 0xFF == target]
    if pseudo:
        if any((c >> KIND_SHIFT) & KIND_MASK == CASTLE for c in pseudo):
            return _explain_castling(pos, target > origin, target)
        if t.royal[piece]:
            return f"your {name} would be in check on {t_name}"
        if pos.is_check():
            return f"your King is in check and {name} {o_name}-{t_name} does not parry it"
        return f"{name} {o_name}-{t_name} would leave your King in check"
    if t.royal[piece] and pos.variant.piece(t.type_ids[piece >> 1]).initial_leap:
        dx = abs(geo.file_of(target) - geo.file_of(origin))
        dy = abs(geo.rank_of(target) - geo.rank_of(origin))
        if max(dx, dy) == 2:
            if not pos.virgin[origin]:
                return "the King's leap is only allowed as its first move"
            if pos.board[target]:
                return "the King's leap never captures: its destination must be empty"
            if pos.is_check():
                return "the King cannot leap out of check"
            if pos.variant.piece(t.type_ids[piece >> 1]).first_leaps:
                return f"the King's leap is not one of its first moves, or {t_name} is attacked"
            return "the King may not leap over attacked squares"
    occupant = pos.board[target]
    successor = pos.variant.piece(t.type_ids[piece >> 1]).succession
    if occupant and successor and t.type_ids[occupant >> 1] == successor and occupant & 1 == side:
        # cazaux.md §4.7: the King's succession.
        successor_name = pos.describe(occupant).name
        if not pos.is_check() or any(
            (c >> KIND_SHIFT) & KIND_MASK != SWAP for c in pos.legal_codes()
        ):
            return (
                f"the King may swap places with a {successor_name} only when it is in check "
                "and has no other legal move"
            )
        return f"your {name} would be in check on {t_name}"
    if occupant and occupant & 1 == side:
        return f"{t_name} is occupied by your own {pos.describe(occupant).name}"
    reason = _geometric_reason(pos, piece, origin, target)
    return reason or f"a {name} cannot move from {o_name} to {t_name}"


def _geometric_reason(pos: Position, piece: int, origin: int, target: int) -> str | None:
    t = pos.t
    board = pos.board
    sm = t.square_moves(piece, origin)
    name = pos.describe(piece).name
    occupied = bool(board[target])
    reasons: list[str] = []

    def mode_reason(mode: int) -> str | None:
        if occupied and not mode & CAPTURE:
            return f"a {name} cannot capture that way (it only moves there)"
        if not occupied and not mode & MOVE:
            return f"a {name} goes there only to capture"
        return None

    for d, _c, mode in sm.leaps:
        if d == target:
            r = mode_reason(mode)
            if r:
                reasons.append(r)
    rays = [(pairs, MOVE | CAPTURE, 0, 0) for pairs in sm.slides] + list(sm.rays)
    for pairs, mode, mfrom, cfrom in rays:
        squares = [s for s, _ in pairs]
        if target not in squares:
            continue
        i = squares.index(target)
        blockers = [_sq(pos, s) for s in squares[:i] if board[s]]
        if blockers:
            reasons.append(
                f"the way from {_sq(pos, origin)} to {_sq(pos, target)} is blocked on {blockers[0]}"
            )
        elif (occupied and i < cfrom) or (not occupied and i < mfrom):
            reasons.append(f"a {name} must go further than that")
        else:
            r = mode_reason(mode)
            if r:
                reasons.append(r)
    for pairs, _mode, grass in sm.hops:
        squares = [s for s, _ in pairs]
        if target in squares and grass:
            i = squares.index(target)
            if not (i and board[squares[i - 1]] and not any(board[s] for s in squares[: i - 1])):
                reasons.insert(
                    0, f"a {name} lands only directly beyond the one piece it jumps over"
                )
        elif target in squares and occupied:
            i = squares.index(target)
            screens = sum(1 for s in squares[:i] if board[s])
            if screens != 1:
                # A hopper's capture explains more than its blocked move along the line.
                reasons.insert(
                    0, f"a {name} captures by jumping over exactly one piece; there are {screens}"
                )
    for d, _c, mode, _alts in sm.lames:
        if d == target:
            r = mode_reason(mode)
            reasons.append(r or f"the {name}'s way to {_sq(pos, target)} is blocked")
    for cond, d, _c, mode, _alts in sm.cond:
        if d != target:
            continue
        if cond & COND_INITIAL and not pos.virgin[origin]:
            reasons.append(f"that move is only allowed for a {name} that has never moved")
        elif cond & COND_ONCE and not pos.once[pos.side]:
            reasons.append("the once-per-game move has already been used")
        else:
            r = mode_reason(mode)
            reasons.append(r or f"the {name}'s way to {_sq(pos, target)} is blocked")
    zone = t.promo_zone[piece]
    reaches = any(d == target for d, _c, _m in sm.leaps) or any(
        target in [s for s, _ in pairs] for pairs, *_ in rays
    )
    if not reasons and zone is not None and zone[target] == 2 and reaches:
        return (
            f"a {name} may not go to {_sq(pos, target)}: it would have to promote there, "
            "and no piece is available to promote to"
        )
    return reasons[0] if reasons else None
