"""An independent, slow, plain reference move generator for every variant of the catalogue.

It exists to check the engine (`rules.position`, `rules.tables`), so it shares none of its
logic: no Betza parser, no compiled tables, no make/unmake. Movement is written here piece by
piece from the prose of `../shared/spec/` (README §2-§4, `pieces.md`, the variant files);
the board is a dict `(file, rank) -> (colour, piece id)`, every move is made on a fresh copy,
and a move is legal when, afterwards, no enemy piece generating its captures could take the
King. Only a variant's static data is read from `rules.variant.load_variant` (letters, the
setup, which pieces, promotion settings, castling squares, options) and, for the Pawn's kind
of double step, straight from the variant's TOML file.

Moves are named in the coordinate form of `rules.notation.coordinates`: `e2e4`, `b7b8Q`
(promotion with the new piece's letters), `B@c3` / `FA@c1` (drops and placements),
`O-O(h1)` (Florea's fast castling), `e1g1` (standard castling, the King's move), `f2e5`
(a Timurid King-Prince swap: King's square, then the Prince's).

    reference_moves("bigorra")                      # set of coordinate strings
    reference_moves("timurid-mirza", moves=["e3e5"])
    reference_moves("chess", text="4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    reference_perft("bigorra", (), [], 2)           # 2704
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from rules.variant import VARIANTS_DIR, PieceType, Variant, load_variant

Sq = tuple[int, int]  # (file, rank), both from 0
Piece = tuple[int, str]  # (colour, piece id); colour 0 is White
Board = dict[Sq, Piece]

FILES = "abcdefghijklmnop"
WHITE, BLACK = 0, 1


def name(sq: Sq) -> str:
    return f"{FILES[sq[0]]}{sq[1] + 1}"


def parse_square(text: str) -> Sq:
    return FILES.index(text[0]), int(text[1:]) - 1


# ------------------------------------------------------------------------------ offsets
# README §2.1: an (m, n) leaper goes to (±m, ±n) and (±n, ±m).


def images(m: int, n: int) -> set[Sq]:
    out = set()
    for a, b in ((m, n), (n, m)):
        for sa in (1, -1):
            for sb in (1, -1):
                out.add((a * sa, b * sb))
    return out


ATOMS: dict[str, tuple[int, int]] = {
    "W": (1, 0),
    "F": (1, 1),
    "D": (2, 0),
    "N": (2, 1),
    "A": (2, 2),
    "H": (3, 0),
    "C": (3, 1),
    "Z": (3, 2),
    "G": (3, 3),
}


def atoms(letters: str) -> frozenset[Sq]:
    """Union of the atoms' squares: `atoms("NAD")` is the Squirrel's 16 squares."""
    out: set[Sq] = set()
    for letter in letters:
        if letter == "K":
            out |= images(1, 0) | images(1, 1)
        else:
            out |= images(*ATOMS[letter])
    return frozenset(out)


ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
ALL_LINES = ORTHOGONAL + DIAGONAL
KNIGHT = atoms("N")
KING_STEPS = atoms("K")

# pieces.md: leapers, written from each entry's prose.
LEAPERS: dict[str, frozenset[Sq]] = {
    "man": atoms("K"),
    "wazir": atoms("W"),
    "fers": atoms("F"),
    "dabbaba": atoms("D"),
    "alfil": atoms("A"),
    "knight": atoms("N"),
    "camel": atoms("C"),
    "zebra": atoms("Z"),
    "giraffe": frozenset(images(1, 4)),
    "bat": frozenset(images(1, 8) | images(4, 7)),
    "elephant": atoms("FA"),
    "machine": atoms("WD"),
    "kirin": atoms("FD"),
    "phoenix": atoms("WA"),
    "frog": atoms("FH"),
    "squirrel": frozenset(
        (x, y) for x in range(-2, 3) for y in range(-2, 3) if max(abs(x), abs(y)) == 2
    ),
    "mammoth": atoms("KAD"),
    "lion": frozenset((x, y) for x in range(-2, 3) for y in range(-2, 3) if (x, y) != (0, 0)),
    "hawk": atoms("DAHG"),
    "cheetah": frozenset(
        (x, y) for x in range(-3, 4) for y in range(-3, 4) if max(abs(x), abs(y)) == 3
    ),
    "duchess": atoms("KDAHG"),
    "direwolf": frozenset(
        (x, y) for x in range(-3, 4) for y in range(-3, 4) if max(abs(x), abs(y)) in (2, 3)
    ),
    "centaur": atoms("KN"),
    "wildebeest": atoms("NC"),
    "okapi": atoms("NZ"),
    "bison": atoms("CZ"),
    "buffalo": atoms("NCZ"),
    "wizard": atoms("FC"),
    "emir": atoms("FNC"),
    "sorcerer": atoms("WZ"),
}

# Riders (README §2.2) combined with leaps: piece -> (slide directions, extra leaps).
RIDERS: dict[str, tuple[tuple[Sq, ...], frozenset[Sq]]] = {
    "rook": (ORTHOGONAL, frozenset()),
    "bishop": (DIAGONAL, frozenset()),
    "queen": (ALL_LINES, frozenset()),
    "amazon": (ALL_LINES, KNIGHT),
    "marshal": (ORTHOGONAL, KNIGHT),
    "cardinal": (DIAGONAL, KNIGHT),
    "admiral": (ORTHOGONAL, atoms("F")),
    "missionary": (DIAGONAL, atoms("W")),
    "badger": (DIAGONAL, atoms("D")),
    "ram": (ORTHOGONAL, atoms("A")),
    "medusa": (ALL_LINES, atoms("AD")),
    "nightrider": (tuple(sorted(KNIGHT)), frozenset()),
}

# Hoppers (README §3.5): slide without capturing along these lines, capture over a screen.
HOPPERS: dict[str, tuple[Sq, ...]] = {
    "cannon": ORTHOGONAL,
    "archer": DIAGONAL,
    "sorceress": ALL_LINES,
}


def _bent_gryphon(d1: Sq) -> tuple[Sq, ...]:
    return ((d1[0], 0), (0, d1[1]))


def _bent_manticore(d1: Sq) -> tuple[Sq, ...]:
    if d1[1] == 0:
        return ((d1[0], 1), (d1[0], -1))
    return ((1, d1[1]), (-1, d1[1]))


def _bent_ship(d1: Sq) -> tuple[Sq, ...]:
    return ((0, d1[1]),)


def _bent_snake(d1: Sq) -> tuple[Sq, ...]:
    return ((1, d1[1]), (-1, d1[1]))


# README §3.1: first steps, second-leg directions after each, minimum steps of a plain move.
BENT: dict[str, tuple[tuple[Sq, ...], Callable[[Sq], tuple[Sq, ...]], int]] = {
    "gryphon": (DIAGONAL, _bent_gryphon, 1),
    "manticore": (ORTHOGONAL, _bent_manticore, 1),
    "ship": (DIAGONAL, _bent_ship, 1),
    "snake": (((0, 1), (0, -1)), _bent_snake, 1),
    "savard-griffin": (DIAGONAL, _bent_gryphon, 3),
}


def _symmetries(v: Sq) -> list[Sq]:
    """The images of an offset under the 8 reflections/rotations, in a fixed order."""
    x, y = v
    return [(x, y), (-x, y), (x, -y), (-x, -y), (y, x), (-y, x), (y, -x), (-y, -x)]


def _falcon_paths() -> dict[Sq, list[tuple[Sq, Sq]]]:
    """README §3.2: three paths of three king steps to each Camel and Zebra square."""
    base = {
        (1, 3): [((0, 1), (0, 2)), ((0, 1), (1, 2)), ((1, 1), (1, 2))],
        (2, 3): [((1, 1), (2, 2)), ((1, 1), (1, 2)), ((0, 1), (1, 2))],
    }
    out: dict[Sq, list[tuple[Sq, Sq]]] = {}
    for target, paths in base.items():
        for k in range(8):
            t = _symmetries(target)[k]
            for a, b in paths:
                path = (_symmetries(a)[k], _symmetries(b)[k])
                if path not in out.setdefault(t, []):
                    out[t].append(path)
    return out


FALCON_PATHS = _falcon_paths()

# README §3.3: the eight king directions, clockwise from straight up.
CLOCK = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


class Cand(NamedTuple):
    """A square a piece could go to: moving there if empty (`move`), capturing there if
    it holds an enemy piece (`capture`). `pawn`: a pawn-class move (move-count rule, the
    Troll's promotion); `double`: a double step; `once`: uses the once-per-game move."""

    target: Sq
    move: bool
    capture: bool
    pawn: bool = False
    double: bool = False
    once: bool = False


@dataclass(frozen=True)
class Rules:
    """A variant's static data, read once."""

    variant: Variant
    width: int
    height: int
    pieces: dict[str, PieceType]
    double: dict[str, str]  # piece id -> none / initial / any (the Pawn's, from the file)
    start_count: Counter[str]  # piece id -> number per side in the setup

    def on_board(self, sq: Sq) -> bool:
        return 0 <= sq[0] < self.width and 0 <= sq[1] < self.height

    def forward(self, color: int) -> int:
        return 1 if color == WHITE else -1

    def row(self, sq: Sq, color: int) -> int:
        """README §1.3: a player's n-th row (from 1)."""
        return sq[1] + 1 if color == WHITE else self.height - sq[1]

    def mirror(self, sq: Sq) -> Sq:
        return sq[0], self.height - 1 - sq[1]

    def letters(self, pid: str) -> str:
        return self.pieces[pid].letters


def _raw_pieces(variant_id: str) -> dict[str, object]:
    """The `[pieces]` table of a variant file merged over its parents' (data only)."""
    with (VARIANTS_DIR / f"{variant_id}.toml").open("rb") as fh:
        data = tomllib.load(fh)
    pieces: dict[str, object] = {}
    parent = data.get("extends")
    if isinstance(parent, str):
        pieces.update(_raw_pieces(parent))
    for pid, entry in data.get("pieces", {}).items():
        old = pieces.get(pid)
        if isinstance(old, dict) and isinstance(entry, dict):
            pieces[pid] = {**old, **entry}
        else:
            pieces[pid] = entry
    return pieces


@cache
def rules_for(variant_id: str, options: frozenset[str] = frozenset()) -> Rules:
    v = load_variant(variant_id, options)
    double = {}
    for pid, entry in _raw_pieces(variant_id).items():
        kind = entry.get("double-step", "none") if isinstance(entry, dict) else "none"
        double[pid] = str(kind)
    count: Counter[str] = Counter(pid for _, pid in v.setup)
    pieces = {p.id: p for p in v.pieces}
    return Rules(v, v.geometry.files, v.geometry.ranks, pieces, double, count)


# ------------------------------------------------------------------------ piece movement


def candidates(
    r: Rules, board: Board, sq: Sq, piece: Piece, virgin: frozenset[Sq] | set[Sq], once: bool
) -> list[Cand]:
    """Every square the piece on `sq` could move to or capture on, by its movement alone
    (blocking, screens and paths applied; what stands on the target is judged later)."""
    color, pid = piece
    fx, fy = sq
    out: list[Cand] = []

    def add(dx: int, dy: int) -> Sq | None:
        t = (fx + dx, fy + dy)
        return t if r.on_board(t) else None

    def leaps(offsets: Iterable[Sq], move: bool = True, capture: bool = True) -> None:
        for dx, dy in offsets:
            t = add(dx, dy)
            if t is not None:
                out.append(Cand(t, move, capture))

    def slide(dirs: Iterable[Sq], move: bool = True, capture: bool = True) -> None:
        for dx, dy in dirs:
            k = 1
            while (t := add(dx * k, dy * k)) is not None:
                out.append(Cand(t, move, capture))
                if t in board:
                    break
                k += 1

    def hop_captures(dirs: Iterable[Sq]) -> None:
        for dx, dy in dirs:
            k = 1
            screen = False
            while (t := add(dx * k, dy * k)) is not None:
                if t in board:
                    if screen:
                        out.append(Cand(t, False, True))
                        break
                    screen = True
                k += 1

    if pid in LEAPERS:
        leaps(LEAPERS[pid])
    elif pid in RIDERS:
        dirs, extra = RIDERS[pid]
        slide(dirs)
        leaps(extra)
    elif pid in HOPPERS:
        slide(HOPPERS[pid], capture=False)
        hop_captures(HOPPERS[pid])
    elif pid == "king":
        leaps(KING_STEPS)
        p = r.pieces["king"]
        if p.once_per_game and once:
            # savard.md §5.2: a Knight's leap once per game, which may capture.
            for dx, dy in sorted(KNIGHT):
                t = add(dx, dy)
                if t is not None:
                    out.append(Cand(t, True, True, once=True))
    elif pid in ("pawn", "soldier", "troll", "prince"):
        f = r.forward(color)
        one = add(0, f)
        if pid == "prince":
            leaps(KING_STEPS)
        else:
            # fmW (plus the Soldier's sideways steps) and fcF, pawn-class moves.
            steps = [(0, f), (1, 0), (-1, 0)] if pid == "soldier" else [(0, f)]
            for dx, dy in steps:
                t = add(dx, dy)
                if t is not None:
                    out.append(Cand(t, True, False, pawn=True))
            for dx in (1, -1):
                t = add(dx, f)
                if t is not None:
                    out.append(Cand(t, False, True, pawn=True))
        if pid == "troll":
            leaps(atoms("HG"))
        # Soldier and Prince double-step from any square (pieces.md), the Troll never;
        # the Pawn as its variant says.
        kind = {"soldier": "any", "prince": "any", "troll": "none"}.get(pid)
        if kind is None:
            kind = r.double.get(pid, "none")
        two = add(0, 2 * f)
        if (
            (kind == "any" or (kind == "initial" and sq in virgin))
            and one is not None
            and two is not None
            and one not in board
        ):
            out.append(Cand(two, True, False, pawn=pid != "prince", double=True))
    elif pid in BENT:
        firsts, seconds, min_steps = BENT[pid]
        for d1 in firsts:
            s1 = add(*d1)
            if s1 is None:
                continue
            if s1 in board:
                out.append(Cand(s1, False, True))
                continue
            out.append(Cand(s1, min_steps <= 1, True))
            for dx, dy in seconds(d1):
                k = 1
                while r.on_board(t := (s1[0] + dx * k, s1[1] + dy * k)):
                    step = 1 + k
                    if t in board:
                        out.append(Cand(t, False, True))
                        break
                    out.append(Cand(t, step >= min_steps, True))
                    k += 1
    elif pid == "falcon":
        for target, paths in FALCON_PATHS.items():
            t = add(*target)
            if t is None:
                continue
            if any(add(*a) not in board and add(*b) not in board for a, b in paths):
                out.append(Cand(t, True, True))
    elif pid == "savard-rhinoceros":
        for i in range(8):
            for sense in (1, -1):
                x, y = fx, fy
                for k in range(1, 8):
                    dx, dy = CLOCK[(i + sense * (k - 1)) % 8]
                    x, y = x + dx, y + dy
                    if not r.on_board((x, y)):
                        break
                    out.append(Cand((x, y), True, True))
                    if (x, y) in board:
                        break
    elif pid == "betza-rhino":
        for o in ORTHOGONAL:
            for p in ((o[1], o[0]), (-o[1], -o[0])):
                for k in range(1, 10):
                    t = add(k * o[0] + (k // 2) * p[0], k * o[1] + (k // 2) * p[1])
                    if t is None:
                        break
                    out.append(Cand(t, True, True))
                    if t in board:
                        break
    elif pid == "flying-stag":
        leaps(atoms("F"))
        leaps(((1, 0), (-1, 0)))
        slide(((0, 1), (0, -1)))
    elif pid == "tiger":
        slide(DIAGONAL, capture=False)
        leaps(KNIGHT, move=False)
    elif pid == "walker":
        leaps(atoms("W"), capture=False)
        leaps(atoms("F"), move=False)
    else:  # pragma: no cover - a new piece needs its movement written here
        raise KeyError(f"the reference generator does not know the piece {pid!r}")
    return out


def attacked(r: Rules, board: Board, target: Sq, by: int, once: bool) -> bool:
    """README §2.5: some piece of colour `by` could capture on `target` (an enemy piece is
    assumed to stand there). `once`: that side's King still has its once-per-game move."""
    for sq, piece in board.items():
        if piece[0] != by:
            continue
        for c in candidates(r, board, sq, piece, frozenset(), once):
            if c.capture and c.target == target:
                return True
    return False


# ------------------------------------------------------------------------------ position


@dataclass(frozen=True)
class RefMove:
    """A ply as the reference makes it. `text` is the engine's coordinate form."""

    text: str
    kind: str  # normal, ep, castle, drop, place, swap
    origin: Sq | None
    target: Sq
    new: str | None = None  # the piece id on the target afterwards (promotion, flip, drop)
    promoted: bool = False
    pawn: bool = False
    double: bool = False
    once: bool = False
    rook: tuple[Sq, Sq] | None = None  # castling: the Rook's squares
    held: str | None = None  # drops: the piece taken from the hand (free-face drops)


@dataclass
class RefPosition:
    r: Rules
    board: Board
    side: int = WHITE
    virgin: set[Sq] = field(default_factory=set)  # squares whose piece never moved
    ep: tuple[Sq, Sq] | None = None  # (square passed over, the double-stepped piece)
    once: list[bool] = field(default_factory=lambda: [False, False])
    hands: list[Counter[str]] = field(default_factory=lambda: [Counter(), Counter()])
    reserve: list[list[str]] = field(default_factory=lambda: [[], []])
    gates: list[dict[Sq, str]] = field(default_factory=lambda: [{}, {}])
    halfmove: int = 0
    fullmove: int = 1

    # -------------------------------------------------------------- construction

    @classmethod
    def start(cls, variant_id: str, options: Iterable[str] = ()) -> RefPosition:
        r = rules_for(variant_id, frozenset(options))
        v = r.variant
        board: Board = {}
        for index, pid in v.setup:
            sq = (index % r.width, index // r.width)
            board[sq] = (WHITE, pid)
            board[r.mirror(sq)] = (BLACK, pid)
        has_once = any(p.once_per_game for p in v.pieces)
        return cls(
            r,
            board,
            virgin=set(board),
            once=[has_once, has_once],
            reserve=[list(v.reserve), list(v.reserve)],
        )

    @classmethod
    def from_text(cls, variant_id: str, text: str) -> RefPosition:
        """Read the engine's position text format (rules/README.md) independently."""
        fields = text.split()
        options: list[str] = []
        for f in fields[6:]:
            if f.startswith("options:"):
                options = [o for o in f.removeprefix("options:").split(",") if o]
        start = cls.start(variant_id, options)
        r = start.r
        v = r.variant
        pawn_symbol = "+" if any(p.letters == "P" for p in v.pieces) else "P"

        def token_piece(tok: str) -> Piece:
            if pawn_symbol == "+" and tok in "+-":
                return (WHITE if tok == "+" else BLACK), "pawn"
            if pawn_symbol == "P" and tok in ("P", "p"):
                return (WHITE if tok == "P" else BLACK), "pawn"
            color = WHITE if tok.isupper() else BLACK
            for p in v.pieces:
                if p.letters and p.letters == tok.upper():
                    return color, p.id
            raise ValueError(f"unknown piece token {tok!r}")

        board: Board = {}
        for i, row in enumerate(fields[0].split("/")):
            rank = r.height - 1 - i
            file = 0
            for m in re.finditer(r"\(([A-Za-z]{2})\)|([A-Za-z+\-])|(\d+)", row):
                if m.group(3):
                    file += int(m.group(3))
                    continue
                board[(file, rank)] = token_piece(m.group(1) or m.group(2))
                file += 1
        pos = cls(r, board, side=WHITE if fields[1] == "w" else BLACK)
        pos.once = [False, False]
        moved: set[Sq] = set()
        seen_once = False
        for f in fields[6:]:
            key, _, value = f.partition(":")
            items = [] if value in ("", "-") else value.split(",")
            if key == "hand":
                for tok in items:
                    color, pid = token_piece(tok)
                    pos.hands[color][pid] += 1
            elif key == "reserve":
                for tok in items:
                    color, pid = token_piece(tok)
                    pos.reserve[color].append(pid)
            elif key == "gates":
                for item in items:
                    tok, _, sq = item.partition("@")
                    color, pid = token_piece(tok)
                    pos.gates[color][parse_square(sq)] = pid
            elif key == "once":
                seen_once = True
                pos.once = ["w" in value, "b" in value]
            elif key == "moved":
                moved = {parse_square(s) for s in items}
        if not seen_once:
            pos.once = list(start.once)
        # Pieces on their own starting squares have never moved unless said otherwise;
        # King and Rook squares of castling are governed by the castling rights.
        castling = pos.castling_letters()
        castling_squares = {s for _, king, rook in castling for s in (king, rook)}
        for sq, piece in start.board.items():
            if board.get(sq) == piece and sq not in moved and sq not in castling_squares:
                pos.virgin.add(sq)
        for letter, king, rook in castling:
            if letter in fields[2]:
                pos.virgin |= {king, rook}
        if fields[3] != "-":
            m = parse_square(fields[3])
            # The piece that double-stepped belongs to the side that has just moved.
            back = -r.forward(pos.side)
            pos.ep = (m, (m[0], m[1] + back))
        pos.halfmove = int(fields[4])
        pos.fullmove = int(fields[5])
        return pos

    def castling_letters(self) -> list[tuple[str, Sq, Sq]]:
        """(KQkq letter, King square, Rook square) of each castling pair."""
        r = self.r
        v = r.variant
        pairs: list[tuple[int, int]] = []
        if v.castling:
            pairs = [(c.king_from, c.rook_from) for c in v.castling]
        elif v.fast_castling:
            pairs = [(v.fast_castling.king_from, rook) for rook in v.fast_castling.rooks]
        out = []
        for color in (WHITE, BLACK):
            for king_i, rook_i in pairs:
                king = (king_i % r.width, king_i // r.width)
                rook = (rook_i % r.width, rook_i // r.width)
                if color == BLACK:
                    king, rook = r.mirror(king), r.mirror(rook)
                letter = "K" if rook[0] > king[0] else "Q"
                out.append((letter if color == WHITE else letter.lower(), king, rook))
        return out

    def copy(self) -> RefPosition:
        return RefPosition(
            self.r,
            dict(self.board),
            self.side,
            set(self.virgin),
            self.ep,
            list(self.once),
            [Counter(h) for h in self.hands],
            [list(x) for x in self.reserve],
            [dict(g) for g in self.gates],
            self.halfmove,
            self.fullmove,
        )

    # -------------------------------------------------------------- queries

    @property
    def placing(self) -> bool:
        return bool(self.reserve[0] or self.reserve[1])

    def king_square(self, color: int, board: Board | None = None) -> Sq | None:
        b = self.board if board is None else board
        pieces = self.r.pieces
        for sq, (c, pid) in b.items():
            if c == color and pieces[pid].royal:
                return sq
        return None

    def in_check(self) -> bool:
        king = self.king_square(self.side)
        enemy = 1 - self.side
        return king is not None and attacked(self.r, self.board, king, enemy, self.once[enemy])

    def safe(self, king: Sq, x: Sq) -> bool:
        """README §4.3: lift the King, clear `x`, put the King on `x`; is it unattacked?"""
        board = dict(self.board)
        piece = board.pop(king)
        board[x] = piece
        enemy = 1 - self.side
        return not attacked(self.r, board, x, enemy, self.once[enemy])

    # -------------------------------------------------------------- generation

    def _promotions(self, pid: str, target: Sq, cand: Cand) -> list[str | None]:
        """README §4.6: the possible results of a move (None: no promotion). An empty
        list means the move is impossible (compulsory with nothing to promote to)."""
        p = self.r.pieces[pid]
        promo = p.promotion
        if promo is None or (promo.pawn_moves_only and not cand.pawn):
            return [None]
        row = self.r.row(target, self.side)
        choices = list(promo.to)
        if promo.limited_by_start_count:
            # grand.md §1: only a type of which the side has fewer than at the start.
            on_board = Counter(q for c, q in self.board.values() if c == self.side)
            choices = [q for q in choices if on_board[q] < self.r.start_count[q]]
        if row in promo.compulsory_rows:
            return list(choices)
        if row in promo.optional_rows:
            return [None, *choices]
        return [None]

    def pseudo_moves(self) -> list[RefMove]:
        r = self.r
        v = r.variant
        side = self.side
        out: list[RefMove] = []
        if self.placing:
            back = 0 if side == WHITE else r.height - 1
            for pid in dict.fromkeys(self.reserve[side]):
                for f in range(r.width):
                    sq = (f, back)
                    piece = self.board.get(sq)
                    if (
                        piece is not None
                        and piece[0] == side
                        and not r.pieces[piece[1]].royal
                        and sq not in self.gates[side]
                    ):
                        text = f"{r.letters(pid)}@{name(sq)}"
                        out.append(RefMove(text, "place", None, sq, pid))
            return out
        for sq, piece in list(self.board.items()):
            if piece[0] != side:
                continue
            pid = piece[1]
            seen: set[str] = set()
            for c in candidates(r, self.board, sq, piece, self.virgin, self.once[side]):
                occupant = self.board.get(c.target)
                if occupant is None and not c.move:
                    continue
                if occupant is not None and (occupant[0] == side or not c.capture):
                    continue
                for promo in self._promotions(pid, c.target, c):
                    new = promo if promo is not None else (r.pieces[pid].flip or pid)
                    text = name(sq) + name(c.target) + (r.letters(promo) if promo else "")
                    if text in seen:
                        continue  # README §3.8: one move however it is reached
                    seen.add(text)
                    out.append(
                        RefMove(
                            text,
                            "normal",
                            sq,
                            c.target,
                            new,
                            promoted=promo is not None,
                            pawn=c.pawn,
                            double=c.double,
                            once=c.once,
                        )
                    )
        if self.ep is not None:
            m, _victim = self.ep
            f = r.forward(side)
            for dx in (1, -1):
                o = (m[0] + dx, m[1] - f)
                piece = self.board.get(o)
                if piece is not None and piece[0] == side and piece[1] in v.ep_capturers:
                    out.append(RefMove(name(o) + name(m), "ep", o, m, piece[1], pawn=True))
        out.extend(self._castling_moves())
        if v.captures_to_hand:
            for pid, n in self.hands[side].items():
                if n <= 0:
                    continue
                faces = [pid]
                if v.drop_any_face and r.pieces[pid].family:
                    faces = [q.id for q in v.pieces if q.family == r.pieces[pid].family]
                for face in faces:
                    for f in range(r.width):
                        for rank in range(r.height):
                            sq = (f, rank)
                            if sq in self.board or r.row(sq, side) in r.pieces[face].no_drop_rows:
                                continue
                            text = f"{r.letters(face) or 'P'}@{name(sq)}"
                            if all(m.text != text for m in out):
                                out.append(RefMove(text, "drop", None, sq, face, held=pid))
        return out

    def _castling_moves(self) -> list[RefMove]:
        """README §4.4 and florea.md §6, conditions on the squares and the rights only;
        the conditions on check are tested in `legal_moves`."""
        r = self.r
        v = r.variant
        side = self.side
        out: list[RefMove] = []

        def sq_of(i: int) -> Sq:
            s = (i % r.width, i // r.width)
            return r.mirror(s) if side == BLACK else s

        for c in v.castling:
            kf, kt, rf, rt = (sq_of(i) for i in (c.king_from, c.king_to, c.rook_from, c.rook_to))
            king, rook = self.board.get(kf), self.board.get(rf)
            if king is None or king[0] != side or not r.pieces[king[1]].royal:
                continue
            if rook is None or rook[0] != side or kf not in self.virgin or rf not in self.virgin:
                continue
            lo, hi = sorted((kf[0], rf[0]))
            if any((f, kf[1]) in self.board for f in range(lo + 1, hi)):
                continue
            if any(s in self.board and s not in (kf, rf) for s in (kt, rt)):
                continue
            out.append(RefMove(name(kf) + name(kt), "castle", kf, kt, rook=(rf, rt)))
        if v.fast_castling:
            fc = v.fast_castling
            kf = sq_of(fc.king_from)
            king = self.board.get(kf)
            if king is None or king[0] != side or kf not in self.virgin:
                return out
            for rook_i in fc.rooks:
                rf = sq_of(rook_i)
                rook = self.board.get(rf)
                if rook is None or rook[0] != side or rf not in self.virgin:
                    continue
                step = 1 if rf[0] > kf[0] else -1
                for f in range(kf[0] + step, rf[0], step):
                    d = (f, kf[1])
                    if d in self.board:
                        continue
                    text = f"{'O-O' if step > 0 else 'O-O-O'}({name(d)})"
                    out.append(RefMove(text, "castle", kf, d, rook=(rf, kf)))
        return out

    def _leaps(self, king: Sq) -> list[RefMove]:
        """cazaux.md §2.3: the Metamachy leap as the King's first move, never out of check
        (tested by the caller), to an empty square two steps away, over safe squares."""
        out = []
        # Offsets for one orientation with the intermediate squares of which one must be
        # safe; the other orientations are the images under the board's symmetries.
        base = {
            (2, 0): [(1, 0)],
            (2, 2): [(1, 1)],
            (2, 1): [(1, 0), (1, 1)],
        }
        seen: set[Sq] = set()
        for offset, mids in base.items():
            for k in range(8):
                dx, dy = _symmetries(offset)[k]
                if (dx, dy) in seen:
                    continue
                seen.add((dx, dy))
                d = (king[0] + dx, king[1] + dy)
                if not self.r.on_board(d) or d in self.board:
                    continue
                squares = [_symmetries(m)[k] for m in mids]
                if any(self.safe(king, (king[0] + mx, king[1] + my)) for mx, my in squares):
                    out.append(RefMove(name(king) + name(d), "normal", king, d, "king"))
        return out

    def board_after(self, m: RefMove) -> Board:
        """The board once the move is completely carried out (README §4.2)."""
        board = dict(self.board)
        side = self.side
        if m.kind == "place":
            return board
        if m.kind == "drop":
            assert m.new is not None
            board[m.target] = (side, m.new)
            return board
        assert m.origin is not None
        if m.kind == "swap":
            board[m.origin], board[m.target] = board[m.target], board[m.origin]
            return board
        if m.kind == "castle":
            assert m.rook is not None
            king = board.pop(m.origin)
            rook = board.pop(m.rook[0])
            board[m.target] = king
            board[m.rook[1]] = rook
            if m.rook[0] in self.gates[side]:
                board[m.rook[0]] = (side, self.gates[side][m.rook[0]])
            return board
        piece = board.pop(m.origin)
        if m.kind == "ep":
            assert self.ep is not None
            del board[self.ep[1]]
        board[m.target] = (side, m.new or piece[1])
        if m.origin in self.gates[side]:
            board[m.origin] = (side, self.gates[side][m.origin])
        return board

    def legal(self, m: RefMove, in_check: bool) -> bool:
        """Whether a pseudo-legal move (not a leap or a swap) is legal (README §4.2, §4.4)."""
        enemy = 1 - self.side
        if m.kind == "castle":
            if in_check:
                return False
            assert m.origin is not None
            if self.r.variant.fast_castling:
                if not self.safe(m.origin, m.target):
                    return False
            else:
                step = 1 if m.target[0] > m.origin[0] else -1
                passed = [(f, m.origin[1]) for f in range(m.origin[0] + step, m.target[0], step)]
                if not all(self.safe(m.origin, s) for s in passed):
                    return False
        board = self.board_after(m)
        k = self.king_square(self.side, board)
        return k is not None and not attacked(self.r, board, k, enemy, self.once[enemy])

    def legal_moves(self) -> list[RefMove]:
        r = self.r
        v = r.variant
        side = self.side
        enemy = 1 - side
        pseudo = self.pseudo_moves()
        if self.placing:
            return pseudo
        if v.goal == "royal-capture":
            # patricia.md §7-8: no check rule; the game is over once a royal piece is gone.
            return pseudo if self.king_square(side) is not None else []
        king = self.king_square(side)
        assert king is not None
        in_check = self.in_check()
        out = [m for m in pseudo if self.legal(m, in_check)]
        kp = r.pieces[self.board[king][1]]
        if kp.initial_leap == "metamachy" and king in self.virgin and not in_check:
            texts = {m.text for m in out}
            for m in self._leaps(king):
                board = self.board_after(m)
                if m.text not in texts and not attacked(
                    r, board, m.target, enemy, self.once[enemy]
                ):
                    out.append(m)
        if not out and in_check and kp.succession:
            # cazaux.md §4.7: checked, no ordinary move: swap with a Prince safe for the King.
            for sq, piece in sorted(self.board.items()):
                if piece == (side, kp.succession):
                    m = RefMove(name(king) + name(sq), "swap", king, sq)
                    board = self.board_after(m)
                    if not attacked(r, board, sq, enemy, self.once[enemy]):
                        out.append(m)
        return out

    # -------------------------------------------------------------- making moves

    def play(self, m: RefMove) -> RefPosition:
        """The position after the move (a new object; this one is unchanged)."""
        after = self.copy()
        r = self.r
        side = self.side
        after.board = self.board_after(m)
        after.ep = None
        if m.kind == "place":
            after.reserve[side].remove(m.new or "")
            after.gates[side][m.target] = m.new or ""
            after.side = WHITE if after.reserve[WHITE] else BLACK if after.reserve[BLACK] else WHITE
            return after
        reset = m.pawn or m.promoted
        if m.kind == "drop":
            after.hands[side][m.held or ""] -= 1
        elif m.kind in ("normal", "ep"):
            assert m.origin is not None
            captured = self.board.get(m.target)
            if m.kind == "ep":
                assert self.ep is not None
                captured = self.board[self.ep[1]]
                after.virgin.discard(self.ep[1])
                after.gates[1 - side].pop(self.ep[1], None)
            if captured is not None:
                reset = True
                after.gates[1 - side].pop(m.target, None)
                if r.variant.captures_to_hand and not r.pieces[captured[1]].royal:
                    after.hands[side][captured[1]] += 1
            after.gates[side].pop(m.origin, None)
            if m.once:
                after.once[side] = False
            if m.double and not m.promoted and self.board[m.origin][1] in r.variant.ep_victims:
                passed = (m.origin[0], (m.origin[1] + m.target[1]) // 2)
                after.ep = (passed, m.target)
        elif m.kind == "castle":
            assert m.rook is not None
            after.gates[side].pop(m.rook[0], None)
            after.virgin.discard(m.rook[0])
            after.virgin.discard(m.rook[1])
        for sq in (m.origin, m.target):
            if sq is not None:
                after.virgin.discard(sq)
        after.halfmove = 0 if reset else self.halfmove + 1
        if side == BLACK:
            after.fullmove += 1
        after.side = 1 - side
        return after

    def play_text(self, text: str) -> RefPosition:
        """Play a move given in coordinate form; ValueError if it is not legal."""
        if not self.placing and self.r.variant.goal == "checkmate":
            # The quick way for ordinary moves: test just this one.
            for m in self.pseudo_moves():
                if m.text == text and self.legal(m, self.in_check()):
                    return self.play(m)
        for m in self.legal_moves():
            if m.text == text:
                return self.play(m)
        raise ValueError(f"{text!r} is not a legal move for the reference generator")


# ------------------------------------------------------------------------------ the API


def reference_position(
    variant_id: str,
    options: Sequence[str] = (),
    moves: Sequence[str] = (),
    *,
    text: str | None = None,
) -> RefPosition:
    """The start position (or `text`), then `moves` in coordinate form."""
    pos = (
        RefPosition.from_text(variant_id, text)
        if text is not None
        else RefPosition.start(variant_id, options)
    )
    for mv in moves:
        pos = pos.play_text(mv)
    return pos


def reference_moves(
    variant_id: str,
    options: Sequence[str] = (),
    moves: Sequence[str] = (),
    *,
    text: str | None = None,
) -> set[str]:
    """The legal moves, in the coordinate form of `rules.notation.coordinates`."""
    return {m.text for m in reference_position(variant_id, options, moves, text=text).legal_moves()}


def perft_of(pos: RefPosition, depth: int) -> int:
    if depth <= 0:
        return 1
    moves = pos.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft_of(pos.play(m), depth - 1) for m in moves)


def reference_perft(
    variant_id: str,
    options: Sequence[str] = (),
    moves: Sequence[str] = (),
    depth: int = 1,
    *,
    text: str | None = None,
) -> int:
    """Leaf count after `depth` plies from the start (or `text`) and `moves`."""
    return perft_of(reference_position(variant_id, options, moves, text=text), depth)


def reference_divide(
    variant_id: str,
    options: Sequence[str] = (),
    moves: Sequence[str] = (),
    depth: int = 1,
    *,
    text: str | None = None,
) -> dict[str, int]:
    """Perft below each legal move, by the move's coordinate form."""
    pos = reference_position(variant_id, options, moves, text=text)
    return {m.text: perft_of(pos.play(m), depth - 1) for m in pos.legal_moves()}
