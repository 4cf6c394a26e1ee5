"""The rules engine: perft against python-chess, legal-move listing against Fairy-Stockfish,
and the listing time of every variant of the catalogue.

1. Perft on standard chess from the start position and Kiwipete, both engines bulk-counting
   the last ply (`legal_codes()` / `board.legal_moves.count()`), as leaves per second.
2. Listing the legal moves of a position given as text, as the bot validates a move: parse
   the text, list the moves. Fairy-Stockfish gets the same positions in its own FEN dialect
   through `pyffish.legal_moves(variant, fen, [])`; Patchanka and Heavy Shako are defined for
   it in `fairy-stockfish-variants.ini`. The positions come from seeded random games played by
   Fairy Post (with a bias towards double steps, so that en passant shows up); both engines
   must list the same moves in every one of them, in a few constructed positions with
   en passant by and of Patchanka's Soldier, and in every position of the two recorded
   games. Compared per position, not per node: pyffish re-reads the position on every call.
3. Listing time in the start position and in a crowded middle game of every variant, in
   steady state, with the one-time cost of the first call in a fresh process (loading the
   variant and building its move tables) measured in a subprocess per variant.

Run alone: `python -m benchmarks --only rules`.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from functools import partial
from types import ModuleType
from typing import Any

from benchmarks.common import (
    NOT_INSTALLED,
    ROOT,
    Row,
    child_json,
    interleaved_medians,
    median_seconds,
    ms,
    optional_import,
    ratio,
)
from rules.game import Game
from rules.notation import coordinates
from rules.perft import perft
from rules.position import EP, KIND_MASK, KIND_SHIFT, Position
from rules.postext import format_position, parse_position
from rules.record import legend_letters, read_record
from rules.tables import MC
from rules.variant import load_variant, variant_ids

FSF_VARIANTS_FILE = ROOT / "benchmarks" / "fairy-stockfish-variants.ini"
RECORDS = ROOT / "tests" / "rules" / "data" / "games"

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

# Fairy Post variant id -> (Fairy-Stockfish variant, Fairy Post letter -> Fairy-Stockfish
# letter where they differ); see fairy-stockfish-variants.ini and the oracle's README.
FSF_VARIANTS: dict[str, tuple[str, dict[str, str]]] = {
    "chess": ("chess", {}),
    "grand": ("grand", {"M": "C", "C": "A"}),
    "patchanka": ("patchanka", {}),
    "heavy-shako": ("heavyshako", {"V": "O", "O": "W", "W": "M", "F": "U"}),
}
FSF_NAME = "Fairy-Stockfish (pyffish)"

# Patchanka positions and a double step that follows, giving a capture en passant by or of a
# Soldier, or a Soldier's double step from the middle of the board (cazaux.md §1.4): cases
# Fairy-Stockfish cannot reach through a move list (see fairy-stockfish-variants.ini).
SOLDIER_EP = (
    ("4k5/10/3p6/10/4S5/10/10/10/10/4K5 b - - 0 1", "d8d6"),  # Soldier takes Pawn
    ("4k5/10/10/5s4/10/4P5/10/10/10/4K5 b - - 0 1", "f7f5"),  # Pawn takes Soldier
    ("4k5/10/10/3s6/10/4S5/10/10/10/4K5 b - - 0 1", "d7d5"),  # Soldier takes Soldier
    ("4k5/10/10/10/3s6/10/4S5/10/10/4K5 w - - 0 1", "e4e6"),  # Black's Soldier takes
    ("4k5/10/10/10/10/10/10/10/3P1S4/4K5 w - - 0 1", "f2f4"),  # nobody can take
)
QUICK_CATALOGUE = ("chess", "patchanka", "patricia")
CROWDED_PLY = 40


def run(quick: bool = False) -> list[Row]:
    """Every rules figure; `quick` uses shallow perft, few positions and three variants."""
    return [*perft_rows(quick), *fsf_rows(quick), *catalogue_rows(quick)]


# ---------------------------------------------------------------------------- 1. perft


def chess_perft(board: Any, depth: int) -> int:
    """python-chess perft, bulk-counted at the last ply like `rules.perft.perft`."""
    if depth == 1:
        return int(board.legal_moves.count())
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def perft_rows(quick: bool) -> list[Row]:
    section = "rules: perft, chess"
    chess = optional_import("chess")
    repeats = 1 if quick else 7
    rows = []
    for name, fen, depth in (
        ("the start position", START_FEN, 3 if quick else 4),
        ("Kiwipete", KIWIPETE, 2 if quick else 3),
    ):
        pos = parse_position("chess", fen)
        leaves = perft(pos, depth)
        entry = f"perft {depth} from {name} ({leaves:,} leaves), leaves/s"
        ours_fn = partial(perft, pos, depth)
        if chess is None:
            ours = median_seconds(ours_fn, repeats)
            rows.append(
                Row(section, entry, f"{leaves / ours:,.0f}/s", "python-chess", NOT_INSTALLED)
            )
            continue
        board = chess.Board(fen)
        theirs_leaves = chess_perft(board, depth)
        if theirs_leaves != leaves:
            entry += f" — python-chess counts {theirs_leaves:,}!"
        ours, theirs = interleaved_medians(
            [ours_fn, partial(chess_perft, board, depth)], repeats=repeats
        )
        rows.append(
            Row(
                section,
                entry,
                f"{leaves / ours:,.0f}/s",
                f"python-chess {chess.__version__}",
                f"{theirs_leaves / theirs:,.0f}/s",
                ratio(ours, theirs),
                goal="≥ 1.2×",
            )
        )
    return rows


# ------------------------------------------------------------- 2. listing vs Fairy-Stockfish


def fsf_fen(variant_id: str, text: str) -> str:
    """Fairy Post's position text in Fairy-Stockfish's FEN dialect (the six FEN fields)."""
    _, letters = FSF_VARIANTS[variant_id]
    mapping = {**letters, **{a.lower(): b.lower() for a, b in letters.items()}}
    fields = text.split()
    return " ".join([fields[0].translate(str.maketrans(mapping)), *fields[1:6]])


def fsf_moves(pos: Position) -> list[str]:
    """The legal moves of `pos` written as Fairy-Stockfish writes them (UCI, its letters;
    a Patchanka Kirin's or Phoenix's promotion is `+`)."""
    _, letters = FSF_VARIANTS[pos.variant.id]
    t = pos.t
    out = []
    for c in pos.legal_codes():
        text = coordinates(pos, c)
        promo = (c >> MC.PROMO_SHIFT) & MC.PROMO_MASK
        if promo:
            letter = pos.variant.piece(t.type_ids[promo]).letters
            body = text[: -len(letter)]
            mover = t.type_ids[pos.board[c & 0xFF] >> 1]
            suffix = "+" if mover in ("kirin", "phoenix") else letters.get(letter, letter).lower()
            text = body + suffix
        out.append(text)
    return sorted(out)


def random_positions(variant_id: str, count: int, seed: int) -> list[str]:
    """`count` positions (as text) met in seeded random games, ending games at their end
    by rule; three moves in ten are double steps when one is legal."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        pos = Position.start(variant_id)
        for ply in range(160):
            codes = pos.legal_codes()
            if not codes or pos.outcome(codes) is not None:
                break
            if ply and rng.random() < 0.25:
                out.append(format_position(pos))
            doubles = [c for c in codes if c & MC.DOUBLE]
            pos.push_code(rng.choice(doubles if doubles and rng.random() < 0.3 else codes))
    return out[:count]


def record_positions(name: str) -> tuple[str, list[str]]:
    """(variant id, every position of a recorded game before each ply and at the end)."""
    record = read_record((RECORDS / name).read_text(encoding="utf-8"))
    variant = load_variant(record.variant, record.options)
    letters = legend_letters(variant, record.legend) if record.legend else None
    game = Game(variant)
    texts = []
    for ply in record.plies:
        texts.append(game.position_text)
        game.play(ply.text, letters=letters, check_marks=False)
    texts.append(game.position_text)
    return variant.id, texts


def soldier_ep_positions() -> list[str]:
    """The positions of `SOLDIER_EP` after their double step."""
    out = []
    for base, move in SOLDIER_EP:
        game = Game.from_position_text("patchanka", base)
        game.play(move)
        out.append(game.position_text)
    return out


def disagreement(sf: ModuleType, variant_id: str, text: str) -> str:
    """'' when both engines list the same moves in the position, else 'count' or 'list'
    (same number of moves, not the same moves); the case goes to stderr."""
    mine = fsf_moves(parse_position(variant_id, text))
    name, _ = FSF_VARIANTS[variant_id]
    theirs = sorted(sf.legal_moves(name, fsf_fen(variant_id, text), []))
    if theirs == mine:
        return ""
    kind = "count" if len(theirs) != len(mine) else "list"
    print(f"  engines disagree ({kind}): {variant_id} {text}", file=sys.stderr)
    print(f"    Fairy Post only: {sorted(set(mine) - set(theirs))}", file=sys.stderr)
    print(f"    Fairy-Stockfish only: {sorted(set(theirs) - set(mine))}", file=sys.stderr)
    return kind


def load_fsf() -> ModuleType | None:
    sf = optional_import("pyffish")
    if sf is not None:
        sf.load_variant_config(FSF_VARIANTS_FILE.read_text(encoding="utf-8"))
    return sf


def fsf_rows(quick: bool) -> list[Row]:
    section = "rules: listing vs Fairy-Stockfish"
    sf = load_fsf()
    per_variant = 8 if quick else 100
    repeats = 1 if quick else 5
    peer = (
        FSF_NAME if sf is None else f"Fairy-Stockfish (pyffish {'.'.join(map(str, sf.version()))})"
    )
    rows = []
    checked: list[str] = []  # the verdict of `disagreement` for every position checked
    for seed, variant_id in enumerate(FSF_VARIANTS):
        name, _ = FSF_VARIANTS[variant_id]
        texts = random_positions(variant_id, per_variant, seed=1000 + seed)
        ours_t: list[float] = []
        theirs_t: list[float] = []
        moves = eps = 0
        for text in texts:
            codes = parse_position(variant_id, text).legal_codes()
            moves += len(codes)
            eps += any((c >> KIND_SHIFT) & KIND_MASK == EP for c in codes)
            ours_fn = partial(_parse_and_list, variant_id, text)
            if sf is None:
                ours_t.append(median_seconds(ours_fn, repeats))
                continue
            checked.append(disagreement(sf, variant_id, text))
            fen = fsf_fen(variant_id, text)
            a, b = interleaved_medians(
                [ours_fn, partial(sf.legal_moves, name, fen, [])], repeats=repeats
            )
            ours_t.append(a)
            theirs_t.append(b)
        ours = statistics.median(ours_t)
        entry = (
            f"{load_variant(variant_id).name}: parse the position text + list the legal moves, "
            f"median per position ({len(texts)} positions, {moves / len(texts):.0f} moves on "
            f"average, {eps} with an e.p. capture)"
        )
        if sf is None:
            rows.append(Row(section, entry, ms(ours), peer, NOT_INSTALLED))
            continue
        theirs = statistics.median(theirs_t)
        rows.append(Row(section, entry, ms(ours), peer, ms(theirs), ratio(ours, theirs)))
    if sf is None:
        rows.append(
            Row(
                section,
                "positions where the engines disagree: not checked",
                "",
                peer,
                NOT_INSTALLED,
            )
        )
        return rows
    timed = len(checked)
    extra = [("patchanka", text) for text in soldier_ep_positions()]
    for record in ("patchanka.txt", "heavy-shako.txt"):
        variant_id, texts = record_positions(record)
        extra += [(variant_id, text) for text in texts]
    checked += [disagreement(sf, variant_id, text) for variant_id, text in extra]
    rows.append(
        Row(
            section,
            f"positions where the engines disagree: legal-move count / move list ({timed} "
            f"random positions above + {len(SOLDIER_EP)} of Soldier e.p. + "
            f"{len(extra) - len(SOLDIER_EP)} of the recorded Patchanka and Heavy Shako games)",
            f"{checked.count('count')} / {checked.count('list')} of {len(checked)}",
            goal="0",
        )
    )
    bare = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    fixed = median_seconds(partial(sf.legal_moves, "chess", bare, []), 5 if quick else 200)
    rows.append(
        Row(
            section,
            "pyffish's fixed cost per call: two bare Kings (chess)",
            "",
            peer,
            ms(fixed),
        )
    )
    return rows


def _parse_and_list(variant_id: str, text: str) -> int:
    return len(parse_position(variant_id, text).legal_codes())


# ---------------------------------------------------------------- 3. every variant


def crowded_position(variant_id: str, seed: int = 7) -> Position:
    """A crowded middle game: `CROWDED_PLY` plies of seeded random play that picks a move
    capturing nothing nine times in ten when there is one. Games that end early are replayed
    with the next seed; after 20 tries, the longest game stands."""
    best: Position | None = None
    for attempt in range(20):
        rng = random.Random(seed * 1000 + attempt)
        pos = Position.start(variant_id)
        for _ in range(CROWDED_PLY):
            codes = pos.legal_codes()
            if not codes or pos.outcome(codes) is not None:
                break
            quiet = [c for c in codes if not _captures(pos, c)]
            pos.push_code(rng.choice(quiet if quiet and rng.random() < 0.9 else codes))
        codes = pos.legal_codes()
        if pos.ply == CROWDED_PLY and codes and pos.outcome(codes) is None:
            return pos
        if best is None or pos.ply > best.ply:
            best = pos
    assert best is not None
    return best


def _captures(pos: Position, c: int) -> bool:
    kind = (c >> KIND_SHIFT) & KIND_MASK
    return kind == EP or (kind == MC.NORMAL and bool(pos.board[(c >> 8) & 0xFF]))


def catalogue_rows(quick: bool) -> list[Row]:
    section = "rules: listing, every variant"
    ids = QUICK_CATALOGUE if quick else variant_ids()
    repeats = 3 if quick else 21
    rows = []
    firsts: list[tuple[float, str]] = []
    for variant_id in ids:
        start = Position.start(variant_id)
        middle = crowded_position(variant_id)
        text = format_position(middle)
        cold = first_call(variant_id, text)
        t_start = median_seconds(start.legal_codes, repeats)
        t_middle = median_seconds(middle.legal_codes, repeats)
        pieces = sum(1 for code in middle.board if code)
        name = load_variant(variant_id).name
        firsts.append((cold["start"], name))
        rows.append(
            Row(
                section,
                f"{name}: start{' (placement phase)' if start.placing else ''} / ply "
                f"{middle.ply}, {pieces} pieces on the board "
                f"({len(start.legal_codes())} / {len(middle.legal_codes())} moves); "
                f"first call in a fresh process {ms(cold['start'])} / {ms(cold['middle'])}",
                f"{ms(t_start)} / {ms(t_middle)}",
            )
        )
    firsts.sort()
    rows.append(
        Row(
            section,
            f"one-time cost of the first listing in a fresh process (variant loaded, move "
            f"tables built), median of {len(firsts)} variants / slowest ({firsts[-1][1]})",
            f"{ms(statistics.median(t for t, _ in firsts))} / {ms(firsts[-1][0])}",
        )
    )
    return rows


def first_call(variant_id: str, middle_text: str) -> dict[str, float]:
    """Times of the first listings in a fresh interpreter: the start position (the variant
    is loaded and its tables built on the way), then the middle game (lazy tables)."""
    return child_json("benchmarks.bench_rules", "--first-call", variant_id, stdin=middle_text)


def _first_call_child(variant_id: str, middle_text: str) -> dict[str, float]:
    begin = time.perf_counter()
    Position.start(variant_id).legal_codes()
    after_start = time.perf_counter()
    parse_position(variant_id, middle_text).legal_codes()
    return {"start": after_start - begin, "middle": time.perf_counter() - after_start}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--first-call":
        print(json.dumps(_first_call_child(sys.argv[2], sys.stdin.read().strip())))
    else:
        for row in run(quick="--quick" in sys.argv):
            print(f"{row.section} | {row.entry} | {row.value} | {row.peer_value} | {row.ratio}")
