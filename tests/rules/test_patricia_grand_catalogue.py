"""Variant catalogue III: Rob Nierse's Patricia (with its three options) and the Grand family.

* Grand Chess against Fairy-Stockfish's counts (`data/oracle`), its relatives against the
  independent reference generator (`tests/rules/reference.py`) and hand counts.
* Patricia against a small generator written here from `patricia.md` alone, in every option
  combination, plus complete move lists in built positions.
* The mechanisms on positions built for them: drops, flips, royal capture, stalemate,
  repetition with hands, Grand promotion, the Rhino, the Chu pieces, Grand Betza's castling.
* Hypothesis playouts in all seven variants and every Patricia option combination.
"""

from __future__ import annotations

import csv
import itertools
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import (
    Game,
    GameOverError,
    IllegalMoveError,
    PositionTextError,
    Termination,
    UnknownVariantError,
    load_variant,
    resolve_variant_id,
)
from rules.notation import coordinates, format_code, parse
from rules.perft import perft
from rules.position import Position
from rules.postext import format_position, parse_position, piece_token
from rules.record import format_record, read_record, replay_record
from rules.tables import MC
from tests.rules.conftest import ORACLE
from tests.rules.reference import reference_moves, reference_perft

GRAND_FAMILY = (
    "grand",
    "grand-betza",
    "grand-cazaux",
    "grand-tamerlane",
    "grand-courier",
    "grand-chu",
)
OPTIONS = ("fixed-king", "flipping-pawns", "free-face-drops")
COMBOS = [frozenset(c) for n in range(4) for c in itertools.combinations(OPTIONS, n)]
FILES = "abcdefghijklmnop"


def combo_id(opts: frozenset[str]) -> str:
    return "+".join(sorted(opts)) or "plain"


def board_text(files: int, ranks: int, placement: dict[str, str]) -> str:
    """The board field of a position text from {square: token}; tokens as in the spec's
    diagrams (`K`, `p`, `RH`, `dk`)."""
    rows = []
    for rank in range(ranks, 0, -1):
        row, empty = "", 0
        for f in range(files):
            token = placement.get(f"{FILES[f]}{rank}")
            if token is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += f"({token})" if len(token) == 2 else token
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def grand_text(placement: dict[str, str], side: str = "w", rights: str = "-") -> str:
    return f"{board_text(10, 10, placement)} {side} {rights} - 0 20"


def printed(pos: Position, origin: str | None = None) -> list[str]:
    """The printed legal moves of `pos` (board moves from `origin` only, if given), sorted."""
    geo = pos.t.geo
    return sorted(
        format_code(pos, c)
        for c in pos.legal_codes()
        if origin is None
        or (((c >> MC.KIND_SHIFT) & MC.KIND_MASK) != MC.DROP and geo.name(c & 0xFF) == origin)
    )


# ============================================================================ Grand Chess


def _oracle(name: str) -> list[dict[str, str]]:
    with (ORACLE / name).open() as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_grand_start_perft_against_fairy_stockfish() -> None:
    row = next(r for r in _oracle("perft-start.tsv") if r["variant"] == "grand")
    pos = Game.new("grand").position
    assert [perft(pos, d) for d in (1, 2, 3)] == [int(row[f"perft{d}"]) for d in (1, 2, 3)]


@pytest.mark.parametrize("row", _oracle("positions-grand.tsv"), ids=lambda r: r["id"])
def test_grand_positions_against_fairy_stockfish(row: dict[str, str]) -> None:
    """Rebuilt by playing the `moves` column (oracle/README.md), never from its FEN."""
    pos = Game.replay("grand", (), row["moves"].split()).position
    assert [perft(pos, d) for d in (1, 2, 3)] == [int(row[f"perft{d}"]) for d in (1, 2, 3)]


@pytest.mark.parametrize(
    ("variant", "count"),
    # Counted by hand from grand.md's diagrams (every piece's moves in the start array).
    [("grand-betza", 43), ("grand-chu", 43)],
)
def test_grand_relatives_start_counted_by_hand(variant: str, count: int) -> None:
    pos = Game.new(variant).position
    assert perft(pos, 1) == count
    # Nothing either side can do in one ply reaches the other army: the counts multiply.
    assert perft(pos, 2) == count * count


# ------------------------------------------------------------------ against the reference

RELATIVES = GRAND_FAMILY[1:]


def _random_game(variant: str, seed: str, plies: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(variant)
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.play_move(rng.choice(moves).move)
    return game


def _placement(pos: Position) -> dict[str, str]:
    geo = pos.t.geo
    return {
        geo.name(sq): piece_token(pos.variant, pos.t, code, bracket=False)
        for sq, code in pos.occupied()
    }


def _engine_moves(pos: Position) -> set[str]:
    return {coordinates(pos, c) for c in pos.legal_codes()}


@pytest.mark.parametrize("variant", RELATIVES)
def test_grand_relatives_perft_against_the_reference(variant: str) -> None:
    pos = Game.new(variant).position
    assert perft(pos, 2) == reference_perft(variant, depth=2)
    game = _random_game(variant, variant, 24)
    text = game.position_text
    assert perft(game.position, 2) == reference_perft(variant, depth=2, text=text), text


@pytest.mark.parametrize("variant", RELATIVES)
def test_grand_relatives_random_game_against_the_reference(variant: str) -> None:
    rng = random.Random(f"walk {variant}")
    game = Game.new(variant)
    for _ in range(60):
        assert _engine_moves(game.position) == reference_moves(variant, text=game.position_text)
        moves = game.legal_moves()
        if not moves:
            break
        game.play_move(rng.choice(moves).move)


@pytest.mark.parametrize("variant", GRAND_FAMILY)
def test_grand_family_promotions_against_the_reference(variant: str) -> None:
    """White has lost its first-rank pieces (so those types are available) and has eight
    Pawns on rank 8, where Black's stood; Black to move, then White's promotions."""
    placement = _placement(Game.new(variant).position)
    for f in FILES[:10]:
        if placement.get(f"{f}1", "K") != "K":
            del placement[f"{f}1"]
    for f in "bcdefghi":
        placement[f"{f}8"] = "P"
    text = grand_text(placement, side="b")
    game = Game.from_position_text(variant, text)
    assert _engine_moves(game.position) == reference_moves(variant, text=text)
    assert perft(game.position, 2) == reference_perft(variant, depth=2, text=text)
    game.play_move(game.legal_moves()[0].move)
    after = game.position
    assert any((c >> MC.PROMO_SHIFT) & MC.PROMO_MASK for c in after.legal_codes())
    assert _engine_moves(after) == reference_moves(variant, text=game.position_text)


def test_grand_betza_castling_against_the_reference() -> None:
    placement = _placement(Game.new("grand-betza").position)
    for sq in ("c1", "d1", "e1", "g1", "h1", "c10", "d10", "e10", "g10", "h10"):
        del placement[sq]
    text = grand_text(placement, rights="KQkq")
    game = Game.from_position_text("grand-betza", text)
    moves = _engine_moves(game.position)
    assert {"f1i1", "f1c1"} <= moves  # castling in coordinates is the King's move
    assert moves == reference_moves("grand-betza", text=text)
    assert perft(game.position, 2) == reference_perft("grand-betza", depth=2, text=text)


# ------------------------------------------------------------------ Grand promotion

FULL_ARMY = {
    "a1": "R", "j1": "R", "b2": "N", "c2": "B", "d2": "Q", "e2": "K", "f2": "M", "g2": "C",
    "h2": "B", "i2": "N",
}  # fmt: skip
BLACK_ARMY = {
    "a10": "r", "j10": "r", "b9": "n", "c9": "b", "d9": "q", "e9": "k", "f9": "m", "g9": "c",
    "h9": "b", "i9": "n",
}  # fmt: skip


def _grand(extra: dict[str, str], remove: tuple[str, ...] = (), side: str = "w") -> Position:
    placement = {**FULL_ARMY, **BLACK_ARMY, **extra}
    for sq in remove:
        del placement[sq]
    return parse_position("grand", grand_text(placement, side))


def test_grand_no_promotion_without_a_missing_piece() -> None:
    # Optional rows 8-9: the Pawn may go there and stays a Pawn.
    assert printed(_grand({"e7": "P"}), "e7") == ["e7-e8"]
    assert printed(_grand({"e8": "P"}), "e8") == ["e8xd9", "e8xf9"]
    # Rank 10 would need a promotion: with nothing missing, the Pawn on b9 (in place of
    # Black's Knight) may not go there at all, neither by its step nor by taking the Rook.
    assert printed(_grand({"b9": "P"}), "b9") == []


def test_grand_promotion_choices_are_the_missing_types() -> None:
    # White has lost a Rook and a Knight: optional on rank 8 (declining is a move too).
    pos = _grand({"e7": "P"}, remove=("j1", "i2"))
    assert printed(pos, "e7") == ["e7-e8", "e7-e8N", "e7-e8R+"]
    # Compulsory on rank 10: only the promotions, by the step and by the capture.
    pos = _grand({"b9": "P"}, remove=("j1", "i2"))
    assert printed(pos, "b9") == ["b9-b10N", "b9-b10R", "b9xa10N", "b9xa10R"]


def test_grand_promotion_counted_before_the_move() -> None:
    """One Rook missing: the first Pawn may become a Rook, and then the second may not."""
    placement = {**FULL_ARMY, **BLACK_ARMY, "b9": "P", "i9": "P"}
    del placement["j1"]
    del placement["a10"]
    del placement["j10"]
    pos = parse_position("grand", grand_text(placement))
    assert printed(pos, "b9") == ["b9-b10R"]
    assert printed(pos, "i9") == ["i9-i10R"]
    game = Game(pos.variant, pos)
    game.play("b9-b10R")
    game.play("Bc9-d8")
    # Two Rooks again: the other Pawn has no choice left, so it may not reach rank 10.
    assert printed(game.position, "i9") == []
    with pytest.raises(IllegalMoveError, match="no piece is available to promote to"):
        game.play("i9-i10")


def test_grand_promotion_after_a_promoted_piece_is_lost() -> None:
    placement = {"e2": "K", "e9": "k", "a9": "P", "c10": "r", "h9": "P"}
    pos = parse_position("grand", grand_text(placement))
    game = Game(pos.variant, pos)
    # Every type is missing: all six choices are offered on a compulsory rank.
    assert printed(game.position, "a9") == [f"a9-a10{x}" for x in "BCMNQR"]
    game.play("a9-a10Q")
    game.play("Rc10xa10")  # the new Queen is captured at once: its type is free again
    assert "h9-h10Q" in printed(game.position, "h9")


def test_grand_immobile_pawn_on_rank_nine_still_gives_check() -> None:
    stuck = {**FULL_ARMY, "a10": "r", "j10": "r", "g10": "k", "d9": "P"}
    assert printed(parse_position("grand", grand_text(stuck)), "d9") == []
    placement = {**FULL_ARMY, "a10": "r", "j10": "r", "e10": "k", "d9": "P"}
    pos = parse_position("grand", grand_text(placement, side="b"))
    assert pos.is_check()
    # Only King moves answer it (f10 is on the Marshal's file, d9 is guarded by the Queen).
    assert printed(pos) == ["Ke10-d10", "Ke10-e9"]
    # The position where White has just moved into that check by the Pawn is legal; one
    # where White to move has the Black King attacked by it is not.
    with pytest.raises(PositionTextError, match="in check"):
        parse_position("grand", grand_text(placement, side="w"))
    # The move that leaves the Pawn there is printed with its check mark.
    before = {**FULL_ARMY, "a10": "r", "j10": "r", "e10": "k", "d8": "P"}
    game = Game.from_position_text("grand", grand_text(before))
    assert game.play("d8-d9").notation == "d8-d9+"


# ------------------------------------------------------------------ Rhino and Chu pieces

ORTH = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
KING = ORTH + DIAG


def _sq(name: str) -> tuple[int, int]:
    return FILES.index(name[0]), int(name[1:])


def _name(f: int, r: int) -> str:
    return f"{FILES[f]}{r}"


def _on(f: int, r: int) -> bool:
    return 0 <= f < 10 and 1 <= r <= 10


def rhino_targets(occ: dict[tuple[int, int], int], origin: str) -> set[str]:
    """README §3.4 from its formula: after k steps k*o + (k // 2)*p, 8 paths."""
    f0, r0 = _sq(origin)
    out: set[str] = set()
    for o in ORTH:
        for p in ((o[1], o[0]), (-o[1], -o[0])):
            for k in range(1, 10):
                f, r = f0 + k * o[0] + (k // 2) * p[0], r0 + k * o[1] + (k // 2) * p[1]
                if not _on(f, r):
                    break
                if (f, r) in occ:
                    if occ[(f, r)] == 1:
                        out.add(_name(f, r))
                    break
                out.add(_name(f, r))
    return out


def line_targets(
    occ: dict[tuple[int, int], int],
    origin: str,
    steps: tuple[tuple[int, int], ...],
    rides: tuple[tuple[int, int], ...],
) -> set[str]:
    """A White leaper (`steps`, jumping) and rider (`rides`) from `origin`."""
    f0, r0 = _sq(origin)
    out: set[str] = set()
    for dx, dy in steps:
        f, r = f0 + dx, r0 + dy
        if _on(f, r) and occ.get((f, r)) != 0:
            out.add(_name(f, r))
    for dx, dy in rides:
        f, r = f0 + dx, r0 + dy
        while _on(f, r):
            if (f, r) in occ:
                if occ[(f, r)] == 1:
                    out.add(_name(f, r))
                break
            out.add(_name(f, r))
            f, r = f + dx, r + dy
    return out


LION = tuple((dx, dy) for dx in range(-2, 3) for dy in range(-2, 3) if dx or dy)
CHU_PIECES = {
    # letter: (variant, leaps, rides)
    "FS": ("grand-chu", KING, ((0, 1), (0, -1))),  # Flying Stag FsWvR
    "DH": ("grand-chu", ORTH, DIAG),  # Dragon Horse BW
    "DK": ("grand-chu", DIAG, ORTH),  # Dragon King RF
    "L": ("grand-chu", LION, ()),  # Lion KNAD, a plain leaper
    "CP": ("grand-chu", KING, ()),  # Crown Prince: a King-mover, not royal
}


def _random_boards(seed: int, letter: str, variant: str, count: int) -> list[tuple[str, Position]]:
    """Positions with one White `letter` piece among random Pawns of both sides (which
    never attack either King), Kings on a1 and j10, White to move."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        origin = _name(rng.randrange(1, 9), rng.randrange(2, 10))
        placement = {"a1": "K", "j10": "k", origin: letter}
        for _ in range(rng.randrange(4, 22)):
            f, r = rng.randrange(10), rng.randrange(3, 9)
            placement.setdefault(_name(f, r), rng.choice("Pp"))
        try:
            pos = parse_position(variant, grand_text(placement))
        except PositionTextError:
            continue  # the piece would be checking the Black King: not a position
        out.append((origin, pos))
    return out


def _occupancy(pos: Position) -> dict[tuple[int, int], int]:
    geo = pos.t.geo
    return {_sq(geo.name(sq)): code & 1 for sq, code in pos.occupied()}


def _targets(pos: Position, origin: str) -> list[str]:
    geo = pos.t.geo
    return [geo.name((c >> 8) & 0xFF) for c in pos.legal_codes() if geo.name(c & 0xFF) == origin]


@pytest.mark.parametrize("seed", range(6))
def test_betza_rhino_eight_crooked_paths(seed: int) -> None:
    for origin, pos in _random_boards(seed, "RH", "grand-betza", 6):
        found = _targets(pos, origin)
        assert len(found) == len(set(found)), "the shared first square must be one move"
        assert set(found) == rhino_targets(_occupancy(pos), origin), origin


def test_betza_rhino_on_an_empty_board_and_blocked() -> None:
    pos = parse_position("grand-betza", grand_text({"a1": "K", "j10": "k", "h1": "RH"}))
    # grand.md §3.3: h2, then g3 or i3, then g4 or i4, then f5 or j5, ...; or toward g1, i1.
    expected = {"h2", "g3", "i3", "g4", "i4", "f5", "j5", "f6", "j6", "e7", "e8", "d9", "d10"}
    expected |= {"g1", "f2", "e2", "d3", "c3", "b4", "a4"}  # toward g1, turning up
    expected |= {"i1", "j2"}  # toward i1, turning up (the next step leaves the board)
    assert set(_targets(pos, "h1")) == expected
    # A piece on h2 closes both paths that start there; an enemy there is taken.
    pos = parse_position(
        "grand-betza", grand_text({"a1": "K", "j10": "k", "h1": "RH", "h2": "p", "j5": "p"})
    )
    assert set(_targets(pos, "h1")) == {"h2", "g1", "f2", "e2", "d3", "c3", "b4", "a4", "i1", "j2"}
    # The Rhino gives check along a path, and not through a blocker.
    check = parse_position("grand-betza", grand_text({"a1": "K", "h1": "RH", "e7": "k"}, "b"))
    assert check.is_check()
    with pytest.raises(PositionTextError):
        parse_position("grand-betza", grand_text({"a1": "K", "h1": "RH", "e7": "k"}))
    blocked = parse_position(
        "grand-betza", grand_text({"a1": "K", "h1": "RH", "f5": "P", "e7": "k"}, "b")
    )
    assert not blocked.is_check()


@pytest.mark.parametrize("letter", sorted(CHU_PIECES))
def test_chu_pieces(letter: str) -> None:
    variant, steps, rides = CHU_PIECES[letter]
    for seed in range(4):
        for origin, pos in _random_boards(100 + seed, letter, variant, 5):
            assert set(_targets(pos, origin)) == line_targets(_occupancy(pos), origin, steps, rides)


def test_chu_lion_leaps_over_a_full_ring() -> None:
    ring = {_name(4 + dx, 5 + dy): "P" for dx, dy in KING}
    pos = parse_position("grand-chu", grand_text({"a1": "K", "j10": "k", "e5": "L", **ring}))
    assert sorted(_targets(pos, "e5")) == sorted(
        _name(4 + dx, 5 + dy) for dx, dy in LION if max(abs(dx), abs(dy)) == 2
    )
    crown = load_variant("grand-chu").piece("man")
    assert crown.name == "Crown Prince" and not crown.royal


# ------------------------------------------------------------------ Grand Betza castling

CASTLE_BASE = {"a1": "R", "f1": "K", "j1": "R", "a10": "r", "f10": "k", "j10": "r"}


def _betza(extra: dict[str, str], side: str = "w", rights: str = "KQkq") -> Game:
    return Game.from_position_text(
        "grand-betza", grand_text({**CASTLE_BASE, **extra}, side, rights)
    )


def test_grand_betza_castles_three_squares() -> None:
    game = _betza({})
    assert {"O-O", "O-O-O"} <= {m.notation for m in game.legal_moves()}
    game.play("O-O")
    text = game.position_text
    assert text.startswith("r4k3r/") and "/R6RK1 b kq " in text  # King i1, Rook h1
    game.play("f10c10")  # a King move of three squares along its rank is read as castling
    assert game.history[-1].notation == "O-O-O"
    assert game.position_text.startswith("2kr5r/")


@pytest.mark.parametrize(
    ("extra", "allowed"),
    [
        ({}, {"O-O", "O-O-O"}),
        ({"g10": "r"}, {"O-O-O"}),  # g1 attacked: the King may not pass over it
        ({"h10": "r"}, {"O-O-O"}),  # h1 too
        ({"d10": "r"}, {"O-O"}),  # d1 attacked
        ({"c10": "r"}, {"O-O"}),  # the King would land in check on c1
        ({"b10": "r"}, {"O-O", "O-O-O"}),  # only the Rook crosses b1
        ({"f10": "r"}, set()),  # in check
        ({"h1": "N"}, {"O-O-O"}),  # a piece between King and Rook
        ({"b1": "N"}, {"O-O"}),
    ],
)
def test_grand_betza_castling_conditions(extra: dict[str, str], allowed: set[str]) -> None:
    placement = {"a1": "R", "f1": "K", "j1": "R", "i10": "k", **extra}
    game = Game.from_position_text("grand-betza", grand_text(placement, "w", "KQ"))
    castles = {m.notation.rstrip("+") for m in game.legal_moves() if m.notation.startswith("O")}
    assert castles == allowed


def test_grand_betza_castling_rights_are_lost() -> None:
    game = _betza({})
    game.play("Kf1-f2")
    game.play("Kf10-f9")
    game.play("Kf2-f1")
    game.play("Kf9-f10")
    assert not any(m.notation.startswith("O") for m in game.legal_moves())
    assert " - - " in game.position_text
    rook = _betza({})
    rook.play("Ra1-b1")
    rook.play("Ra10-b10")
    assert {m.notation for m in rook.legal_moves() if m.notation.startswith("O")} == {"O-O"}


@pytest.mark.parametrize("variant", (*GRAND_FAMILY[2:], "grand"))
def test_no_castling_elsewhere_in_the_family(variant: str) -> None:
    v = load_variant(variant)
    assert not v.castles
    with pytest.raises(IllegalMoveError, match="no castling"):
        Game.new(variant).play("O-O")


def test_reconstructed_arrays_say_so() -> None:
    reconstructed = ("grand-cazaux", "grand-tamerlane", "grand-courier", "grand-chu")
    for variant in (*reconstructed, "waffle-manticore", "waffle-gryphon"):
        v = load_variant(variant)
        assert v.status == "reconstructed setup"
        assert "reconstructed" in v.description
    for variant in ("grand", "grand-betza", "patricia"):
        assert load_variant(variant).status == "documented"


# ============================================================================ Patricia

FAMILY = {"R": "B", "B": "B", "P": "P", "N": "P"}  # a held piece under free-face-drops
FACES = {"B": ("B", "R"), "P": ("P", "N")}
KNIGHT = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))


@dataclass
class PState:
    """Patricia as patricia.md states it, independent of the engine."""

    board: dict[tuple[int, int], tuple[int, str]]  # (file 0-4, rank 1-5) -> (side, face)
    hands: list[Counter[str]]
    side: int
    options: frozenset[str]

    @classmethod
    def from_text(cls, text: str, options: frozenset[str]) -> PState:
        fields = text.split()
        board: dict[tuple[int, int], tuple[int, str]] = {}
        for i, row in enumerate(fields[0].split("/")):
            f = 0
            for ch in row:
                if ch.isdigit():
                    f += int(ch)
                    continue
                board[(f, 5 - i)] = (0 if ch.isupper() else 1, ch.upper())
                f += 1
        hands: list[Counter[str]] = [Counter(), Counter()]
        for extra in fields[6:]:
            if extra.startswith("hand:") and extra != "hand:-":
                for tok in extra[5:].split(","):
                    key = tok.upper()
                    if "free-face-drops" in options:
                        key = FAMILY[key]
                    hands[0 if tok.isupper() else 1][key] += 1
        return cls(board, hands, 0 if fields[1] == "w" else 1, options)

    def key(self) -> tuple[object, ...]:
        hands = tuple(tuple(sorted((+h).items())) for h in self.hands)
        return (tuple(sorted(self.board.items())), hands, self.side)

    def _targets(self, f: int, r: int, face: str) -> list[tuple[int, int]]:
        side = self.side
        board = self.board
        out: list[tuple[int, int]] = []

        def on(x: int, y: int) -> bool:
            return 0 <= x < 5 and 1 <= y <= 5

        if face == "P":  # one step forward, never two; captures diagonally forward
            fwd = 1 if side == 0 else -1
            if on(f, r + fwd) and (f, r + fwd) not in board:
                out.append((f, r + fwd))
            for dx in (-1, 1):
                sq = (f + dx, r + fwd)
                if sq in board and board[sq][0] != side:
                    out.append(sq)
            return out
        if face in "KN":
            for dx, dy in KING if face == "K" else KNIGHT:
                sq = (f + dx, r + dy)
                if on(*sq) and board.get(sq, (side ^ 1, ""))[0] != side:
                    out.append(sq)
            return out
        for dx, dy in {"Q": KING, "R": ORTH, "B": DIAG}[face]:
            x, y = f + dx, r + dy
            while on(x, y):
                if (x, y) in board:
                    if board[(x, y)][0] != side:
                        out.append((x, y))
                    break
                out.append((x, y))
                x, y = x + dx, y + dy
        return out

    def successors(self) -> dict[str, PState]:
        """Every legal ply in coordinate form (`b2b3`, `b3b4N`, `B@c3`) -> the position."""
        side = self.side
        if not any(c == side and face in "KQ" for c, face in self.board.values()):
            return {}  # the royal piece has been captured: the game is over
        opts = self.options
        out: dict[str, PState] = {}
        for (f, r), (c, face) in self.board.items():
            if c != side:
                continue
            for x, y in self._targets(f, r, face):
                row = y if side == 0 else 6 - y
                results: list[tuple[str, str]]  # (promotion suffix, face after the move)
                if face == "K":
                    results = [("", "K" if "fixed-king" in opts else "Q")]
                elif face in "QRB":
                    results = [("", {"Q": "K", "R": "B", "B": "R"}[face])]
                elif "flipping-pawns" in opts:
                    results = [("", "N" if face == "P" else "P")]
                elif face == "N" or row < 4:
                    results = [("", face)]
                elif row == 4:
                    results = [("", "P"), ("N", "N")]
                else:
                    results = [("N", "N")]
                for suffix, new in results:
                    board = dict(self.board)
                    hands = [Counter(self.hands[0]), Counter(self.hands[1])]
                    taken = board.pop((x, y), None)
                    if taken is not None and taken[1] not in "KQ":
                        held = FAMILY[taken[1]] if "free-face-drops" in opts else taken[1]
                        hands[side][held] += 1
                    del board[(f, r)]
                    board[(x, y)] = (side, new)
                    move = _name(f, r) + _name(x, y) + suffix
                    out[move] = PState(board, hands, side ^ 1, opts)
        for held, n in self.hands[side].items():
            if n <= 0:
                continue
            for face in FACES[held] if "free-face-drops" in opts else (held,):
                for f in range(5):
                    for r in range(1, 6):
                        last_row = r == (5 if side == 0 else 1)
                        if (f, r) in self.board or (face == "P" and last_row):
                            continue
                        board = dict(self.board)
                        board[(f, r)] = (side, face)
                        hands = [Counter(self.hands[0]), Counter(self.hands[1])]
                        hands[side][held] -= 1
                        out[f"{face}@{_name(f, r)}"] = PState(board, hands, side ^ 1, opts)
        return out


def ref_perft(state: PState, depth: int) -> int:
    succ = state.successors()
    if depth == 1:
        return len(succ)
    return sum(ref_perft(s, depth - 1) for s in succ.values())


def patricia(text: str, options: frozenset[str] | tuple[str, ...] = ()) -> Game:
    variant = load_variant("patricia", options)
    return Game(variant, parse_position(variant, text))


def compare_with_reference(game: Game) -> PState:
    """The engine's legal plies and their results are the reference's."""
    opts = game.variant.options
    state = PState.from_text(game.position_text, opts)
    expected = state.successors()
    pos = game.position
    codes = pos.legal_codes()
    found = {coordinates(pos, c): c for c in codes}
    assert len(found) == len(codes)
    assert set(found) == set(expected), game.position_text
    for move, code in found.items():
        pos.push_code(code, keep_key=False)
        after = PState.from_text(format_position(pos), opts)
        pos.pop_code()
        assert after.key() == expected[move].key(), move
    return state


@pytest.mark.parametrize("opts", COMBOS, ids=combo_id)
def test_patricia_perft_against_the_spec_generator(opts: frozenset[str]) -> None:
    game = Game.new("patricia", opts)
    state = PState.from_text(game.position_text, opts)
    assert [perft(game.position, d) for d in (1, 2, 3)] == [ref_perft(state, d) for d in (1, 2, 3)]


@pytest.mark.parametrize("opts", COMBOS, ids=combo_id)
def test_patricia_perft_against_the_reference(opts: frozenset[str]) -> None:
    pos = Game.new("patricia", opts).position
    assert perft(pos, 4) == reference_perft("patricia", sorted(opts), depth=4)


def test_patricia_no_ply_after_the_royal_capture() -> None:
    """Regression: the side whose royal piece was taken had moves, so perft counted them."""
    text = "k4/R4/5/5/4K w - - 0 1 hand:-"
    game = patricia(text)
    state = PState.from_text(text, frozenset())
    assert "a4a5" in state.successors() and state.successors()["a4a5"].successors() == {}
    assert (
        perft(game.position, 2)
        == ref_perft(state, 2)
        == reference_perft("patricia", depth=2, text=text)
    )


@pytest.mark.parametrize("opts", COMBOS, ids=combo_id)
def test_patricia_random_games_against_the_spec_generator(opts: frozenset[str]) -> None:
    rng = random.Random(combo_id(opts))
    for _ in range(12):
        game = Game.new("patricia", opts)
        for _ in range(60):
            compare_with_reference(game)
            moves = game.legal_moves()
            if not moves:
                break
            game.play_move(rng.choice(moves).move)


# Complete move lists in built positions ---------------------------------------------

# White: King a1, Pawns c3 (to its 4th row: optional) and e4 (to its 5th row: compulsory),
# a Rook in hand. Black: King a5, Bishop d5, a Pawn in hand.
P1 = "k2b1/4P/2P2/5/K4 w - - 0 1 hand:R,p"
P1_MOVES = [
    "Ka1-a2+",  # the King turns into a Queen on a2, which attacks a5
    "Ka1-b1",
    "Ka1-b2",
    "c3-c4",  # declines the optional promotion
    "c3-c4N+",
    "e4-e5N",  # compulsory
    "e4xd5N",
]
P1_DROPS = {
    "a2": "+", "a3": "+", "a4": "+", "b5": "+", "c5": "+", "e5": "", "b1": "", "c1": "",
    "d1": "", "e1": "", "b2": "", "c2": "", "d2": "", "e2": "", "b3": "", "d3": "", "e3": "",
    "b4": "", "c4": "", "d4": "",
}  # fmt: skip


def test_patricia_complete_list_with_drops_and_promotions() -> None:
    game = patricia(P1)
    expected = P1_MOVES + [f"R*{sq}{mark}" for sq, mark in P1_DROPS.items()]
    assert sorted(m.notation for m in game.legal_moves()) == sorted(expected)
    assert len(expected) == 27
    compare_with_reference(game)


def test_patricia_promotion_input() -> None:
    game = patricia(P1)
    game.play("c3c4")  # no letter: the optional promotion is declined
    assert "P" in game.position_text.split("/")[1]
    game = patricia(P1)
    game.play("c3-c4N")
    assert game.position_text.split("/")[1] == "2N1P"
    game = patricia(P1)
    game.play("e4e5")  # compulsory with one choice: the letter may be omitted
    assert game.history[-1].notation == "e4-e5N"
    with pytest.raises(IllegalMoveError, match="not a promotion choice"):
        patricia(P1).play("e4-e5R")


def test_patricia_dropped_piece_keeps_its_face_and_a_drop_never_promotes() -> None:
    game = patricia("k4/5/5/5/K4 w - - 0 1 hand:R,P,b")
    game.play("R*c3")
    assert game.position_text.startswith("k4/5/2R2/5/K4 b ")  # a Rook, not turned over
    game.play("B@e2")  # the `@` form is accepted too
    assert game.history[-1].notation == "B*e2"
    game.play("P*b4")  # dropped on its 4th row: stays a Pawn
    assert game.position_text.split("/")[1] == "1P3"
    game.play("Be2-d1")  # the moved Bishop turns into a Rook
    assert game.position_text.split()[0].endswith("K2r1")
    game.play("b4b5")  # the later move onto the 5th row promotes
    assert game.history[-1].notation == "b4-b5N"


def test_patricia_no_pawn_drop_on_the_last_row() -> None:
    game = patricia("k4/5/5/5/4K w - - 0 1 hand:P,p")
    drops = {m.notation for m in game.legal_moves() if "*" in m.notation}
    assert not any(d.endswith("5") or d[3] == "5" for d in drops)
    assert len(drops) == 23 - 4  # every empty square but the four empty ones on rank 5
    with pytest.raises(IllegalMoveError, match="may not be dropped on your row 5"):
        game.play("P*c5")
    game.play("P*c4")
    black = {m.notation for m in game.legal_moves() if "*" in m.notation}
    assert black and not any(d.endswith("1") for d in black)
    with pytest.raises(IllegalMoveError, match="row 5"):
        game.play("P*b1")


def test_patricia_captured_pieces_change_side_with_the_face_they_showed() -> None:
    game = patricia("2n1k/5/R4/5/p3K w - - 0 1 hand:-")
    game.play("Ra3xa1")  # takes the Pawn and turns into a Bishop
    assert game.position_text.endswith("hand:P") and "/B3K " in game.position_text
    game.play("Ke5-d5")  # Black's King turns into a Queen
    game.play("Ba1-d4")  # the Bishop turns into a Rook
    game.play("Qd5xd4")  # the Queen face takes the Rook, which Black holds as a Rook
    assert game.position_text.endswith("hand:P,r")
    assert game.position_text.startswith("2n2/3k1/5/5/4K w ")


def test_patricia_promoted_pawn_is_captured_as_a_knight() -> None:
    game = patricia("2k2/1P3/5/5/K4 w - - 0 1 hand:-")
    game.play("b4-b5N")
    game.play("Kc5xb5")  # the King takes the Knight and turns into a Queen
    assert game.position_text == "1q3/5/5/5/K4 w - - 0 2 hand:n"
    game.play("Ka1-a2")
    game.play("N*c3")
    assert game.position_text.startswith("1q3/5/2n2/")


def test_patricia_moving_into_attack_is_legal_and_the_royal_capture_ends_the_game() -> None:
    game = patricia("k4/R4/5/5/4K b - - 0 1 hand:-")
    moves = {m.notation for m in game.legal_moves()}
    # a4 is defended by nothing, b4 is attacked by the Rook: both are legal King moves.
    assert {"Ka5xa4", "Ka5-b4+", "Ka5-b5"} <= moves  # b4: the Queen face attacks e1
    game.play("Ka5-b4")  # the King steps onto an attacked square and becomes a Queen
    played = game.play("Ra4xb4")  # the Rook takes the royal piece (Queen face)
    assert played.notation == "Ra4xb4"
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.ROYAL_CAPTURE
    assert outcome.result_text == "white wins by capturing the royal piece"
    assert game.legal_moves() == [] and game.position.legal_codes() == []
    assert game.position_text == "5/1B3/5/5/4K b - - 0 2 hand:-"  # the royal piece is not held
    with pytest.raises(GameOverError):
        game.play("a5a4")
    again = parse_position("patricia", game.position_text)
    assert again.outcome() == outcome


def test_patricia_king_face_captured_and_check_marks() -> None:
    game = patricia("k4/5/5/5/K3r b - - 0 1 hand:-")
    assert "Re1xa1" in {m.notation for m in game.legal_moves()}
    with pytest.raises(IllegalMoveError, match="annotated as checkmate"):
        game.play("Re1xa1++", check_marks=True)
    game.play("Re1xa1")
    outcome = game.outcome()
    assert outcome is not None and outcome.result_text == "black wins by capturing the royal piece"
    # '+' is information only: a drop that leaves the King no escape is still printed '+'.
    trapped = patricia("k4/2R2/1R3/5/4K w - - 0 1 hand:R")
    notes = {m.notation for m in trapped.legal_moves()}
    assert "R*a3+" in notes and not any(n.endswith("++") for n in notes)
    with pytest.raises(IllegalMoveError, match="annotated as checkmate"):
        trapped.play("R*a3#", check_marks=True)
    trapped.play("R*a3+")


STALEMATE = "KRBb1/PP1P1/5/2p2/r3k w - - 0 20"


@pytest.mark.parametrize("opts", COMBOS, ids=combo_id)
def test_patricia_stalemate_is_a_draw(opts: frozenset[str]) -> None:
    """White: King a5 boxed in by its own Rook b5 and Pawns a4, b4; Bishop c5 stuck between
    b4 and d4; the d4 Pawn blocked by Black's Bishop on d5 — and nothing in hand."""
    game = patricia(STALEMATE + " hand:-", opts)
    assert game.position.legal_codes() == []
    outcome = game.outcome()
    assert outcome is not None and outcome.result_text == "draw by stalemate"
    # A piece in hand is a ply: no stalemate.
    assert patricia(STALEMATE + " hand:N", opts).outcome() is None
    # Nor when the King can step onto an attacked square (a4, on the Black Rook's file).
    loose = patricia(STALEMATE.replace("PP1P1", "1P1P1") + " hand:-", opts)
    assert [m.notation for m in loose.legal_moves() if m.notation.startswith("K")] == ["Ka5-a4"]
    assert loose.outcome() is None


def test_patricia_repetition_counts_hands() -> None:
    text = "k4/5/5/5/K4 w - - 0 1 hand:R,r"
    game = patricia(text)
    cycle = ["Ka1-a2", "Ka5-b5", "Qa2-a1", "Qb5-a5"]
    for move in cycle:
        game.play(move)
    assert game.outcome() is None and game.position.repetitions() == 2
    for move in cycle:
        game.play(move)
    outcome = game.outcome()
    assert outcome is not None and outcome.result_text == "draw by repetition"
    assert game.position_text.endswith("hand:R,r")
    # The same board with other pieces in hand is another position.
    other = parse_position("patricia", text.replace("hand:R,r", "hand:B,r"))
    assert other.hash != parse_position("patricia", text).hash
    same = parse_position("patricia", text.replace("hand:R,r", "hand:r,R"))
    assert same.hash == parse_position("patricia", text).hash


# Options ------------------------------------------------------------------------------


def test_flipping_pawns() -> None:
    game = patricia("k4/5/2N2/5/K4 w - - 0 1 options:flipping-pawns hand:-")
    assert [m.notation for m in sorted(game.legal_moves(), key=lambda m: m.notation)] == [
        "Ka1-a2+",
        "Ka1-b1",
        "Ka1-b2",
        *sorted(f"Nc3-{sq}" for sq in ("a2", "a4", "b1", "b5", "d1", "d5", "e2", "e4")),
    ]
    game.play("Nc3-b5")  # onto its 5th row: it turns into a Pawn there, which cannot move
    assert game.position_text.startswith("kP3/")
    game.play("Ka5-a4")
    assert not [m for m in game.legal_moves() if m.move.origin and m.move.origin.name == "b5"]
    # A Pawn that moves becomes a Knight, with no promotion, even onto the 4th row.
    game = patricia("k4/5/2P2/5/K4 w - - 0 1 options:flipping-pawns hand:-")
    assert printed(game.position, "c3") == ["c3-c4+"]
    game.play("c3-c4")
    assert game.position_text.startswith("k4/2N2/")
    # The Pawn drop on the 5th row is still banned.
    game = patricia("k4/5/5/5/K4 w - - 0 1 options:flipping-pawns hand:P")
    assert not any(m.notation.endswith("5") for m in game.legal_moves())


def test_free_face_drops() -> None:
    game = patricia("k4/5/5/5/K4 w - - 0 1 options:free-face-drops hand:R,N")
    # The hand holds an officer and a pawn-piece (written by their starting faces).
    assert game.position_text.endswith("hand:B,P")
    notes = [m.notation for m in game.legal_moves()]
    assert len([n for n in notes if n.startswith("R*")]) == 23
    assert len([n for n in notes if n.startswith("B*")]) == 23
    assert len([n for n in notes if n.startswith("N*")]) == 23  # a Knight face on rank 5 too
    assert len([n for n in notes if n.startswith("P*")]) == 19  # never a Pawn face there
    assert len(notes) == 3 + 23 * 3 + 19
    game.play("N*b3")
    # A drop cannot be taken back: it restarts the move count (as in Fairy-Stockfish).
    assert game.position_text == "k4/5/1N3/5/K4 b - - 0 1 options:free-face-drops hand:B"
    # A captured Rook is held as an officer and may come back as a Bishop.
    game = patricia("k4/r3R/5/5/K4 w - - 0 1 options:free-face-drops hand:-")
    game.play("Re4xa4")
    game.play("Ka5-b5")
    assert game.position_text.endswith("hand:B")
    assert {"B*e4+", "R*e4+"} <= {m.notation for m in game.legal_moves()}  # Ba4 attacks b5
    # A pawn-piece dropped as a Pawn promotes again later.
    game = patricia("k4/5/5/5/4K w - - 0 1 options:free-face-drops hand:N")
    game.play("P*c4")
    game.play("Ka5-a4")
    assert printed(game.position, "c4") == ["c4-c5N+"]


def test_fixed_king() -> None:
    game = patricia("k4/5/5/5/K4 w - - 0 1 options:fixed-king hand:-")
    game.play("Ka1-a2")
    game.play("Ka5-b5")
    assert game.position_text == "1k3/5/5/K4/5 w - - 2 2 options:fixed-king hand:-"
    # Without the option the same moves turn both Kings into Queens.
    plain = patricia("k4/5/5/5/K4 w - - 0 1 hand:-")
    plain.play("Ka1-a2")
    plain.play("Ka5-b5")
    assert plain.position_text.startswith("1q3/5/5/Q4/5 ")


def test_options_in_position_text_and_command_line_names() -> None:
    game = Game.new("patricia", ["flipping-pawns", "fixed-king"])
    text = game.position_text
    assert text == "1bkb1/1p1p1/5/1P1P1/1BKB1 w - - 0 1 options:fixed-king,flipping-pawns hand:-"
    pos = parse_position("patricia", text)
    assert pos.variant.options == {"fixed-king", "flipping-pawns"}
    assert format_position(pos) == text and pos.hash == game.position.hash
    assert Game.new("patricia").position_text == "1bkb1/1p1p1/5/1P1P1/1BKB1 w - - 0 1 hand:-"
    assert resolve_variant_id("patricia+fixed-king+flipping-pawns") == (
        "patricia",
        ("fixed-king", "flipping-pawns"),
    )
    assert load_variant("patricia", ["fixed-king"]).full_id == "patricia+fixed-king"
    with pytest.raises(UnknownVariantError, match="no option 'castling'"):
        load_variant("patricia", ["castling"])
    with pytest.raises(UnknownVariantError):
        parse_position("patricia", text.replace("fixed-king", "fixed-queen"))


def test_options_in_the_record_header_round_trip() -> None:
    game = Game.new("patricia", ["free-face-drops", "fixed-king"])
    for move in ("d2d3", "b5a4", "b2b3", "d5b3", "c1c2"):
        game.play(move)
    text = format_record(game)
    assert "# options: fixed-king, free-face-drops\n" in text
    record = read_record(text)
    assert record.options == ("fixed-king", "free-face-drops")
    again = replay_record(record)
    assert again.position_text == game.position_text
    assert "options:fixed-king,free-face-drops" in again.position_text
    # The options may also be appended to the variant's name.
    merged = read_record(text.replace("# variant: patricia", "# variant: Patricia+fixed-king"))
    assert merged.options == ("fixed-king", "free-face-drops")


def test_sample_patricia_game_record() -> None:
    text = (Path(__file__).resolve().parent / "games" / "patricia-options.txt").read_text()
    record = read_record(text)
    assert record.variant == "patricia" and record.options == ("fixed-king", "flipping-pawns")
    game = replay_record(record)
    assert [p.notation for p in game.history] == [p.text for p in record.plies]
    outcome = game.outcome()
    assert outcome is not None and outcome.result_text == "black wins by capturing the royal piece"
    assert game.position_text == (
        "2k2/3p1/2r2/1P3/3B1 w - - 0 8 options:fixed-king,flipping-pawns hand:B,R,P,p"
    )
    assert format_record(game, dict(record.headers)) == text


# ============================================================================ playouts


def check_playout(variant: str, options: frozenset[str], choices: list[int]) -> None:
    game = Game.new(variant, options)
    pos = game.position
    for choice in choices:
        if game.outcome() is not None:
            break
        if variant == "patricia":
            compare_with_reference(game)
        codes = pos.legal_codes()
        assert codes, "no legal move but no outcome"
        text = format_position(pos)
        again = parse_position(variant, text)
        assert format_position(again) == text and again.hash == pos.hash
        assert sorted(again.legal_codes()) == sorted(codes)
        code = codes[choice % len(codes)]
        shown = format_code(pos, code)
        if variant == "patricia":
            assert not shown.endswith("++")
        assert parse(pos, shown).code == code
        assert parse(pos, coordinates(pos, code), check_marks=False).code == code
        snapshot = (
            pos.board[:],
            bytes(pos.virgin),
            [h[:] for h in pos.hands],
            pos.kings[:],
            pos.hash,
            pos.ep,
            pos.halfmove,
            text,
        )
        pos.push_code(code)
        pos.pop_code()
        assert snapshot == (
            pos.board[:],
            bytes(pos.virgin),
            [h[:] for h in pos.hands],
            pos.kings[:],
            pos.hash,
            pos.ep,
            pos.halfmove,
            format_position(pos),
        )
        game.play_move(pos.to_move(code))
        game.undo()
        assert game.position_text == text
        game.play_move(pos.to_move(code))
    outcome = game.outcome()
    if outcome is not None:
        assert outcome.result_text
        assert game.legal_moves() == []
        if variant == "patricia":
            assert outcome.termination in (
                Termination.ROYAL_CAPTURE,
                Termination.STALEMATE,
                Termination.REPETITION,
            )


SHORT = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=40)
LONG = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=80)


@pytest.mark.parametrize("variant", GRAND_FAMILY)
@settings(max_examples=5, deadline=None)
@given(choices=SHORT)
def test_grand_family_playouts(variant: str, choices: list[int]) -> None:
    check_playout(variant, frozenset(), choices)


@pytest.mark.parametrize("opts", COMBOS, ids=combo_id)
@settings(max_examples=10, deadline=None)
@given(choices=LONG)
def test_patricia_playouts(opts: frozenset[str], choices: list[int]) -> None:
    check_playout("patricia", opts, choices)
