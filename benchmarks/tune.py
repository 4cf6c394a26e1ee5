"""Texel tuning of the evaluation's variant-general weights (dev-only, needs Fairy-Stockfish
for the first step).

1. `positions`: Fairy-Stockfish plays itself at a small node budget in several variants
   (chess, Capablanca, Shako, Grand, Crazyhouse, Shogi, Xiangqi, Makruk), each game from a
   few random plies of Fairy Post's own move generator, and every few plies a quiet
   position (the side to move not in check, Fairy-Stockfish's reply neither a capture nor
   a promotion) is kept with the game's result. The positions are written as Fairy Post
   position texts, one a line: `variant<TAB>White's points<TAB>position`.
2. `fit`: the evaluation's terms are counted once per position (`EvalTables.terms`), and
   the weights of `search/weights.py` are fitted by gradient descent on the logistic loss
   of the result against the evaluation (`1 / (1 + 10 ** (-eval / SCALE))`), then written
   back to `search/weights.py` with the loss before and after.

3. `match`: the tuned weights against `BASELINE` (the evaluation before these terms) at an
   equal node budget or time, with the Elo difference and its 95% interval; `speed`: their
   nodes per second, searched in turn.

The committed positions (18,994: 40 games of each variant at 3,000 nodes, then 100 more of
chess, Capablanca and Shako at 2,000) and weights came from

    python -m benchmarks.tune positions --games 40 --seed 1 --out a.tsv.gz
    python -m benchmarks.tune positions --games 100 --seed 2 --nodes 2000 \
        --variants chess,capablanca,shako --out b.tsv.gz    # then a + b, in that order
    python -m benchmarks.tune fit benchmarks/data/tune-positions.tsv.gz --from-baseline \
        --l2 1e-6 --without mobility --write

The fit is deterministic, so anyone can check the weights without Fairy-Stockfish.
"""

from __future__ import annotations

import argparse
import gzip
import math
import random
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.bench_search import middle_game
from benchmarks.elo import estimate
from benchmarks.match import Choice, EnginePlayer, load_match_variant, match
from rules.fsf import format_uci, uci_moves
from rules.game import Game
from rules.notation import coordinates
from rules.position import (
    CASTLE,
    DROP,
    KIND_MASK,
    KIND_SHIFT,
    NORMAL,
    PROMO_MASK,
    PROMO_SHIFT,
    Position,
)
from rules.postext import format_position, parse_position
from rules.variant import load_variant
from search.evaluate import NTERMS, EvalTables, eval_tables
from search.learned import LearnedTables, army_mirrors, army_text, relative_square, to_json
from search.play import history_hashes
from search.searcher import Limits, Searcher
from search.uci import UciEngine, find_engine
from search.weights import BASELINE, MOBILITY_CLASSES, WEIGHTS, Weights

VARIANTS = ("chess", "capablanca", "shako", "grand", "crazyhouse", "shogi", "xiangqi", "makruk")
RANDOM_PLIES = (2, 8)  # a game starts from this many random plies (inclusive range)
MAX_PLIES = 300
ADJUDICATE_CP = 1_200  # Fairy-Stockfish's score, held for ADJUDICATE_PLIES plies running
ADJUDICATE_PLIES = 6
SAMPLE_EVERY = 3  # keep at most one quiet position in this many plies
SKIP_PLIES = 6  # after the random opening, before positions are kept


def _fsf_move(engine: UciEngine, moves: list[str], nodes: int) -> tuple[str, int | None]:
    """Fairy-Stockfish's move and score (side to move, cp; +-100000 for mate)."""
    engine.send("position startpos" + (" moves " + " ".join(moves) if moves else ""))
    engine.send(f"go nodes {nodes}")
    score: int | None = None
    for line in engine.read_until("bestmove"):
        if line.startswith("info") and " score " in line:
            words = line.split()
            i = words.index("score")
            kind, value = words[i + 1], int(words[i + 2])
            score = value if kind == "cp" else (100_000 if value > 0 else -100_000)
        if line.startswith("bestmove"):
            return line.split()[1], score
    raise RuntimeError("no bestmove")


def _noisy(pos: Position, code: int) -> bool:
    """A capture (en passant included) or a promotion: the position is not quiet."""
    kind = (code >> KIND_SHIFT) & KIND_MASK
    if (code >> PROMO_SHIFT) & PROMO_MASK or kind not in (NORMAL, DROP):
        return kind != CASTLE
    return kind == NORMAL and bool(pos.board[(code >> 8) & 0xFF])


def play_one(
    engine: UciEngine,
    variant_id: str,
    nodes: int,
    rng: random.Random,
    every: int = SAMPLE_EVERY,
    keep_all: bool = False,
) -> tuple[float, list[tuple[str, int]]]:
    """One self-play game: (White's points, the quiet positions kept as texts, each with
    Fairy-Stockfish's score of it for White in centipawns, its search's own label).
    `keep_all` keeps the positions in check and those whose best move takes too: Texel's
    fit wants quiet ones, the move-quality probe the games' tactics as well."""
    variant = load_variant(variant_id)
    game = Game(variant)
    uci: list[str] = []
    for _ in range(rng.randint(*RANDOM_PLIES)):
        pos = game.position
        c = rng.choice(pos.legal_codes())
        uci.append(format_uci(pos, c))
        game.play(coordinates(pos, c), check_marks=False)
        if game.outcome() is not None:
            return 0.5, []
    engine.send("ucinewgame")
    engine.ready()
    kept: list[tuple[str, int]] = []
    last_kept = -every
    start = game.ply
    big = 0
    while True:
        outcome = game.outcome()
        if outcome is not None:
            return outcome.score[0], kept
        if game.ply >= MAX_PLIES:
            return 0.5, kept
        pos = game.position
        move, score = _fsf_move(engine, uci, rng.randint(nodes // 2, nodes * 3 // 2))
        code = uci_moves(pos)[move]
        if score is not None:
            white = score if pos.side == 0 else -score
            big = (big + 1 if big >= 0 else 1) if white >= ADJUDICATE_CP else big
            big = (big - 1 if big <= 0 else -1) if white <= -ADJUDICATE_CP else big
            if abs(white) < ADJUDICATE_CP:
                big = 0
            if abs(big) >= ADJUDICATE_PLIES:
                return (1.0 if big > 0 else 0.0), kept
        if (
            score is not None
            and game.ply - start >= SKIP_PLIES
            and game.ply - last_kept >= every
            and (keep_all or not (pos.is_check() or _noisy(pos, code)))
        ):
            kept.append((format_position(pos), score if pos.side == 0 else -score))
            last_kept = game.ply
        game.play(coordinates(pos, code), check_marks=False)
        uci.append(move)


def positions(args: argparse.Namespace) -> None:
    path = find_engine()
    if path is None:
        sys.exit("Fairy-Stockfish is needed to play the games")
    engine = UciEngine(path, {"Threads": "1", "Hash": "8"})
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    variants = args.variants.split(",") if args.variants else VARIANTS
    with gzip.open(out, "wt", encoding="utf-8") as f:
        for variant_id in variants:
            engine.set_option("UCI_Variant", load_variant(variant_id).fsf_variant or variant_id)
            score = 0.0
            count = 0
            for _ in range(args.games):
                points, kept = play_one(engine, variant_id, args.nodes, rng, args.every, args.all)
                score += points
                count += len(kept)
                f.writelines(position_line(variant_id, points, text, white) for text, white in kept)
                f.flush()
            print(f"{variant_id}: {args.games} games, White {score:g}, {count} positions")
    engine.close()


# ------------------------------------------------------------------------------ 2. fit

NAMES = (
    "doubled_mg",
    "isolated_mg",
    "passed_mg",
    "shield_mg",
    "danger_mg",
    *(f"mobility_mg[{i}]" for i in range(len(MOBILITY_CLASSES) + 1)),
    "doubled_eg",
    "isolated_eg",
    "passed_eg",
    "shield_eg",
    "danger_eg",
    *(f"mobility_eg[{i}]" for i in range(len(MOBILITY_CLASSES) + 1)),
    "hand",
    "tempo",
)
L2 = 1e-6  # per squared centipawn of a weight's column spread: see fit()
FIXED = frozenset({"shield_eg", "danger_eg"})  # kept at 0: middle-game terms by design


@dataclass(frozen=True, slots=True)
class Sample:
    """One position reduced to what the loss needs: White's score without the tuned
    terms, the tuned terms' columns (the counts, tapered) and the result."""

    base: float
    columns: tuple[float, ...]
    result: float


def weight_vector(w: Weights) -> list[float]:
    return [
        w.doubled_mg,
        w.isolated_mg,
        w.passed_mg,
        w.shield_mg,
        w.danger_mg,
        *w.mobility_mg,
        w.doubled_eg,
        w.isolated_eg,
        w.passed_eg,
        0.0,
        0.0,
        *w.mobility_eg,
        w.hand,
        w.tempo,
    ]


def vector_weights(v: Sequence[float]) -> Weights:
    n = NTERMS
    return Weights(
        doubled_mg=v[0],
        isolated_mg=v[1],
        passed_mg=v[2],
        shield_mg=v[3],
        danger_mg=v[4],
        mobility_mg=tuple(v[5:n]),
        doubled_eg=v[n],
        isolated_eg=v[n + 1],
        passed_eg=v[n + 2],
        mobility_eg=tuple(v[n + 5 : 2 * n]),
        hand=v[2 * n],
        tempo=v[2 * n + 1],
    )


def middle_share(et: EvalTables, pos: Position) -> float | None:
    """How much the middle-game terms count in `pos` (1 with every piece on the board), or
    None when the evaluation would scale it as drawish (not linear in what is fitted)."""
    ph = min(et.board_terms(pos)[2], et.phase_max)
    if ph * 4 < et.phase_max and (et.drawish(pos, 0) or et.drawish(pos, 1)):
        return None
    return ph / et.phase_max


def sample(pos: Position, result: float) -> Sample | None:
    """The position's sample, or None when the evaluation would scale it as drawish
    (not linear in the weights) or the game is over there."""
    et = eval_tables(pos.t)
    share = middle_share(et, pos)
    if share is None:
        return None
    mg, eg, _ph = et.board_terms(pos)
    base = mg * share + eg * (1 - share)
    hand = 0.0
    if et.has_hands and et.hand_tuned:
        hand = float(et.hand_value(pos))
    if et.has_hands or et.has_reserve:
        base += et.off_board(pos) - et.weights.hand * hand
    terms = et.terms(pos)
    columns = (
        *(x * share for x in terms),
        *(x * (1 - share) for x in terms),
        hand,
        1.0 if pos.side == 0 else -1.0,
    )
    return Sample(base, columns, result)


def position_line(variant_id: str, points: float, text: str, white: int) -> str:
    """One line of a positions file: the variant, White's points in the game, the position
    text and Fairy-Stockfish's score of it for White (`read_positions` reads it back)."""
    return f"{variant_id}\t{points}\t{text}\t{white}\n"


def read_positions(path: str | Path) -> list[list[str]]:
    """The rows of a positions file written by `positions`: variant, White's points, the
    position text and (files written since the score was kept) Fairy-Stockfish's score."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f]


def load_samples(path: Path) -> list[Sample]:
    out: list[Sample] = []
    for variant_id, points, text, *_score in read_positions(path):
        found = sample(parse_position(variant_id, text), float(points))
        if found is not None:
            out.append(found)
    return out


def _predict(samples: Sequence[Sample], w: Sequence[float], scale: float) -> list[float]:
    out = []
    for s in samples:
        e = s.base + sum(a * b for a, b in zip(w, s.columns, strict=True))
        out.append(1 / (1 + 10 ** max(-20.0, min(20.0, -e / scale))))
    return out


def loss(samples: Sequence[Sample], w: Sequence[float], scale: float) -> float:
    """Mean squared error of the predicted score against the result (Texel's loss)."""
    p = _predict(samples, w, scale)
    return sum((q - s.result) ** 2 for q, s in zip(p, samples, strict=True)) / len(samples)


def fit_scale(samples: Sequence[Sample], w: Sequence[float]) -> float:
    """The logistic scale (centipawns) that fits the present weights best: golden section."""
    lo, hi = 50.0, 1500.0
    g = (math.sqrt(5) - 1) / 2
    for _ in range(30):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if loss(samples, w, a) < loss(samples, w, b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def fit(
    samples: Sequence[Sample],
    start: Sequence[float],
    scale: float,
    steps: int,
    l2: float,
    without: Sequence[str] = (),
) -> list[float]:
    """Adam on the loss, each weight in units of its column's spread (their sizes differ
    by thousands: a danger centipawn against a tempo), pulled towards the start by `l2`
    times the squared distance in those units (a few hundred games are few). Weights whose
    names start with one of `without` keep their start."""
    n = len(start)
    spread = []
    for j in range(n):
        col = [s.columns[j] for s in samples]
        mean = sum(col) / len(col)
        spread.append(math.sqrt(sum((x - mean) ** 2 for x in col) / len(col)) or 1.0)
    theta = [w * s for w, s in zip(start, spread, strict=True)]
    origin = theta[:]
    free = [
        NAMES[j] not in FIXED and not any(NAMES[j].startswith(x) for x in without) for j in range(n)
    ]
    m = [0.0] * n
    v = [0.0] * n
    rate, beta1, beta2 = 2.0, 0.9, 0.999
    k = math.log(10) / scale
    for step in range(1, steps + 1):
        w = [t / s for t, s in zip(theta, spread, strict=True)]
        p = _predict(samples, w, scale)
        grad = [0.0] * n
        for q, s in zip(p, samples, strict=True):
            g = 2 * (q - s.result) * q * (1 - q) * k
            for j, x in enumerate(s.columns):
                if x:
                    grad[j] += g * x
        for j in range(n):
            if not free[j]:
                continue
            gj = grad[j] / len(samples) / spread[j] + 2 * l2 * (theta[j] - origin[j])
            m[j] = beta1 * m[j] + (1 - beta1) * gj
            v[j] = beta2 * v[j] + (1 - beta2) * gj * gj
            mh = m[j] / (1 - beta1**step)
            vh = v[j] / (1 - beta2**step)
            theta[j] -= rate * mh / (math.sqrt(vh) + 1e-12)
    return [t / s for t, s in zip(theta, spread, strict=True)]


def _number(x: float) -> str:
    """Four significant figures, written as a float."""
    text = f"{x:.4g}"
    return text if any(c in text for c in ".en") else text + ".0"


def write_weights(w: Weights, note: str) -> None:
    """Rewrite the WEIGHTS literal of search/weights.py (and its note) in place."""
    path = Path(__file__).resolve().parent.parent / "search" / "weights.py"
    text = path.read_text(encoding="utf-8")
    head = text[: text.index("# fmt: off")]
    tail = text[text.index("# fmt: on\n") + len("# fmt: on\n") :]
    fields = []
    for name in Weights.__dataclass_fields__:
        value = getattr(w, name)
        if isinstance(value, tuple):
            shown = "(" + ", ".join(_number(x) for x in value) + ")"
        else:
            shown = _number(value)
        fields.append(f"    {name}={shown},")
    body = "\n".join(fields)
    path.write_text(
        f"{head}# fmt: off\n{note}WEIGHTS = Weights(\n{body}\n)\n# fmt: on\n{tail}",
        encoding="utf-8",
    )


def fit_command(args: argparse.Namespace) -> None:
    samples = load_samples(Path(args.positions))
    # Every fifth run of 25 positions is held out: a run is about one game, so the held-out
    # positions do not share their results with the training ones.
    train = [s for i, s in enumerate(samples) if (i // 25) % 5]
    held = [s for i, s in enumerate(samples) if not (i // 25) % 5]
    start = weight_vector(BASELINE if args.from_baseline else WEIGHTS)
    scale = fit_scale(train, start)
    before = (loss(train, start, scale), loss(held, start, scale))
    without = tuple(x for x in args.without.split(",") if x)
    tuned = fit(train, start, scale, args.steps, args.l2, without)
    after = (loss(train, tuned, scale), loss(held, tuned, scale))
    print(f"{len(samples)} positions, scale {scale:.0f} cp")
    print(f"loss before: train {before[0]:.5f}, held out {before[1]:.5f}")
    print(f"loss after:  train {after[0]:.5f}, held out {after[1]:.5f}")
    for name, a, b in zip(NAMES, start, tuned, strict=True):
        print(f"  {name:16} {a:9.4f} -> {b:9.4f}")
    if args.write:
        note = (
            f"# {len(samples)} positions of {args.positions}, logistic scale {scale:.0f} cp;\n"
            f"# loss (held-out fifth) {before[1]:.5f} before, {after[1]:.5f} after.\n"
        )
        write_weights(vector_weights(tuned), note)


# --------------------------------------------------------------- 2b. learned squares

SQUARE_SCALE = 400.0  # centipawns: the logistic scale of both the label and the prediction
SQUARE_L2 = 1e-9  # per squared centipawn away from the derived table, against the loss
# The terms `squares --terms` fits with the tables: weight name, index in
# `EvalTables.terms`, phase (0 middle game, 1 ending) and the count's scale (the parameter
# is weight x scale, so that every parameter moves in centipawns: danger counts centipawns
# of attackers, so its weight is per Pawn of them).
SQUARE_TERMS = (
    ("doubled_mg", 0, 0, 1.0),
    ("doubled_eg", 0, 1, 1.0),
    ("isolated_mg", 1, 0, 1.0),
    ("isolated_eg", 1, 1, 1.0),
    ("passed_mg", 2, 0, 1.0),
    ("passed_eg", 2, 1, 1.0),
    ("shield_mg", 3, 0, 1.0),
    ("danger_mg", 4, 0, 100.0),
)


@dataclass(frozen=True, slots=True)
class SquareSample:
    """One position for the square tables: the evaluation's other terms for White (royal
    danger, tempo, hands), the table entries it reads with their taper, and the label
    (Fairy-Stockfish's score as an expected result)."""

    base: float
    index: tuple[int, ...]
    weight: tuple[float, ...]
    label: float


class SquareModel:
    """The parameters of one variant's tables, as a flat list: for each piece id and each
    White-relative square, the middle-game entry, then the ending's."""

    def __init__(self, variant_id: str, folded: bool = True, terms: bool = False) -> None:
        self.variant = load_variant(variant_id)
        self.folded = folded
        self.terms = terms  # the Pawn-structure and royal-safety weights fitted too
        self.et = EvalTables(Position.start(variant_id).t, learned=False)
        self.mirror = army_mirrors(self.variant)
        tables = self.et.tables
        self.size = self.variant.geometry.size
        self.pids = list(tables.type_ids[1:])
        self.order = {pid: i for i, pid in enumerate(self.pids)}
        self.start: list[float] = []
        for pid in self.pids:
            code = tables.code(pid, 0)
            self.start += [float(x) for x in self.et.mg[code]]
        for pid in self.pids:
            code = tables.code(pid, 0)
            self.start += [float(x) for x in self.et.eg[code]]
        self.first_term = len(self.start)
        if terms:
            self.start += [getattr(WEIGHTS, name) * scale for name, _i, _p, scale in SQUARE_TERMS]

    def slot(self, code: int, sq: int, ending: bool) -> int:
        """The parameter of piece `code` on `sq`: with `folded`, a square and its mirror
        image across the middle file share one (a Knight is as good on b1 as on g1), which
        halves what the positions must pin down."""
        pid = self.et.tables.type_ids[code >> 1]
        rel = relative_square(self.variant, sq, code & 1, self.mirror)
        if self.folded:
            rel = self.fold(rel)
        base = self.order[pid] * self.size + rel
        return base + (len(self.pids) * self.size if ending else 0)

    def fold(self, sq: int) -> int:
        """`sq` or its mirror image across the middle file, whichever is on the left."""
        files = self.variant.geometry.files
        f = sq % files
        return sq - f + min(f, files - 1 - f)

    def weights(self, theta: Sequence[float]) -> dict[str, float]:
        """The term weights of `theta` (none unless the terms were fitted)."""
        if not self.terms:
            return {}
        return {
            name: float(f"{theta[self.first_term + k] / scale:.4g}")
            for k, (name, _i, _p, scale) in enumerate(SQUARE_TERMS)
        }

    def tables(self, theta: Sequence[float]) -> tuple[dict[str, tuple[int, ...]], ...]:
        """The middle-game and ending tables of `theta`, every square filled."""
        out: tuple[dict[str, tuple[int, ...]], ...] = ({}, {})
        half = len(self.pids) * self.size
        for phase in (0, 1):
            for i, pid in enumerate(self.pids):
                base = phase * half + i * self.size
                out[phase][pid] = tuple(
                    round(theta[base + (self.fold(sq) if self.folded else sq)])
                    for sq in range(self.size)
                )
        return out

    def sample(self, pos: Position, white_cp: float) -> SquareSample | None:
        et = self.et
        share = middle_share(et, pos)
        if share is None:
            return None
        entries: dict[int, float] = {}
        for code in et.codes:
            sign = -1.0 if code & 1 else 1.0
            for sq in pos.pieces[code]:
                i = self.slot(code, sq, False)
                entries[i] = entries.get(i, 0.0) + sign * share
                j = self.slot(code, sq, True)
                entries[j] = entries.get(j, 0.0) + sign * (1 - share)
        base = float(et.tempo if pos.side == 0 else -et.tempo)
        if self.terms:
            counts = et.terms(pos)
            for k, (_name, i, phase, scale) in enumerate(SQUARE_TERMS):
                w = (share if phase == 0 else 1 - share) * counts[i] / scale
                if w:
                    entries[self.first_term + k] = w
        elif share and et.use_danger:
            base += et.w_mg[4] * et.king_danger(pos) * share
        if et.has_hands or et.has_reserve:
            base += et.off_board(pos)
        label = 1 / (1 + 10 ** (-max(-4000.0, min(4000.0, white_cp)) / SQUARE_SCALE))
        return SquareSample(base, tuple(entries), tuple(entries.values()), label)


def _square_predict(s: SquareSample, theta: Sequence[float]) -> float:
    e = s.base + sum(theta[i] * w for i, w in zip(s.index, s.weight, strict=True))
    return 1 / (1 + 10 ** max(-20.0, min(20.0, -e / SQUARE_SCALE)))


def square_loss(samples: Sequence[SquareSample], theta: Sequence[float]) -> float:
    """Mean squared error of the predicted expected result against the label's."""
    return sum((_square_predict(s, theta) - s.label) ** 2 for s in samples) / len(samples)


def fit_squares(
    samples: Sequence[SquareSample], start: Sequence[float], steps: int, l2: float
) -> list[float]:
    """Adam on the loss plus `l2` times the squared distance from the derived tables, so
    that entries few positions read stay near them (a Pawn on its first row, none)."""
    n = len(start)
    theta = list(start)
    m = [0.0] * n
    v = [0.0] * n
    rate, beta1, beta2 = 2.0, 0.9, 0.999
    k = math.log(10) / SQUARE_SCALE
    count = len(samples)
    for step in range(1, steps + 1):
        grad = [2 * l2 * (a - b) for a, b in zip(theta, start, strict=True)]
        for s in samples:
            q = _square_predict(s, theta)
            g = 2 * (q - s.label) * q * (1 - q) * k / count
            for i, w in zip(s.index, s.weight, strict=True):
                grad[i] += g * w
        for j in range(n):
            gj = grad[j]
            m[j] = beta1 * m[j] + (1 - beta1) * gj
            v[j] = beta2 * v[j] + (1 - beta2) * gj * gj
            mh = m[j] / (1 - beta1**step)
            vh = v[j] / (1 - beta2**step)
            theta[j] -= rate * mh / (math.sqrt(vh) + 1e-12)
    return theta


def squares_command(args: argparse.Namespace) -> None:
    model = SquareModel(args.variant, folded=not args.unfolded, terms=args.terms)
    samples: list[SquareSample] = []
    sources = []
    for name in args.positions:
        sources.append(Path(name).name)
        for fields in read_positions(name):
            if fields[0] != args.variant or len(fields) < 4:
                continue
            found = model.sample(parse_position(fields[0], fields[2]), float(fields[3]))
            if found is not None:
                samples.append(found)
    # Every fifth run of 25 positions is held out (about one game's worth in a run).
    train = [s for i, s in enumerate(samples) if (i // 25) % 5]
    held = [s for i, s in enumerate(samples) if not (i // 25) % 5]
    before = (square_loss(train, model.start), square_loss(held, model.start))
    theta = fit_squares(train, model.start, args.steps, args.l2)
    after = (square_loss(train, theta), square_loss(held, theta))
    print(f"{len(samples)} positions ({len(train)} to fit, {len(held)} held out)")
    print(f"loss before: train {before[0]:.5f}, held out {before[1]:.5f}")
    print(f"loss after:  train {after[0]:.5f}, held out {after[1]:.5f}")
    mg, eg = model.tables(theta)
    for pid in model.pids:
        print(
            f"  {pid:10} mg mean {sum(mg[pid]) / model.size:7.1f}, eg mean "
            f"{sum(eg[pid]) / model.size:7.1f}"
        )
    for name, value in model.weights(theta).items():
        print(f"  {name:12} {value:g}")
    if args.write:
        learned = LearnedTables(
            variant=args.variant,
            board=model.variant.geometry.describe(),
            army=army_text(model.variant),
            mirror=model.mirror,
            mg=mg,
            eg=eg,
            weights=model.weights(theta),
            source=(
                f"{len(samples)} positions of Fairy-Stockfish 11.1's games "
                f"({', '.join(sources)}), labelled by its score; "
                f"held-out loss {before[1]:.5f} with the derived tables, {after[1]:.5f} "
                f"learned ({args.steps} steps, l2 {args.l2:g}"
                f"{', unfolded' if args.unfolded else ', files folded'}"
                f"{', with the Pawn-structure and royal-safety weights' if args.terms else ''})"
            ),
        )
        out = Path(__file__).resolve().parent.parent / "search" / "learned"
        out.mkdir(exist_ok=True)
        (out / f"{args.variant}.json").write_text(to_json(learned), encoding="utf-8")
        print(f"wrote search/learned/{args.variant}.json")


# ------------------------------------------------------------------- 3. match and speed


class WeightsPlayer(EnginePlayer):
    """Fairy Post's engine evaluating with a given set of weights."""

    def __init__(self, limits: Limits, name: str, weights: Weights, learned: bool = True) -> None:
        super().__init__(limits, name)
        self.weights = weights
        self.learned = learned
        self.et: EvalTables | None = None

    def choose(self, game: Game) -> Choice:
        t = game.position.t
        if self.et is None or self.et.tables is not t:
            self.et = EvalTables(t, self.weights, self.learned)
        searcher = Searcher(
            game.position, tt=self.tt, history=history_hashes(game), evaluation=self.et
        )
        result = searcher.search(self.limits)
        self.nodes += result.nodes
        self.seconds += result.elapsed
        assert result.move is not None
        return Choice(coordinates(game.position, result.move), result.score)


def match_command(args: argparse.Namespace) -> None:
    limits = Limits(nodes=args.nodes) if args.movetime is None else Limits(movetime=args.movetime)
    if args.squares:  # the learned square tables against the derived ones, same weights
        new = WeightsPlayer(limits, "learned", WEIGHTS)
        old = WeightsPlayer(limits, "derived", WEIGHTS, learned=False)
    else:
        new = WeightsPlayer(limits, "tuned", WEIGHTS)
        old = WeightsPlayer(limits, "baseline", BASELINE)
    for variant_id in args.variants.split(","):
        result = match(
            load_match_variant(variant_id),
            new,
            old,
            args.games,
            opening_plies=args.opening_plies,
            max_plies=args.max_plies,
            adjudicate=True,
            seed=args.seed,
            progress=print if args.verbose else None,
        )
        e = estimate(result.points)
        print(
            f"{variant_id}: {new.name} vs {old.name}, {len(result.games)} games, "
            f"{result.tally()}, Elo {e.text()}; nodes/s {new.name} "
            f"{new.nodes / max(new.seconds, 1e-9):.0f}, {old.name} "
            f"{old.nodes / max(old.seconds, 1e-9):.0f}; {result.reasons()}",
            flush=True,
        )


def speed_command(args: argparse.Namespace) -> None:
    """Nodes per second of the tuned evaluation against the baseline, searched in turn
    (the same load for both) from the middle games of the search benchmark."""
    for variant_id in args.variants.split(","):
        pos = middle_game(variant_id).position
        tables = {
            name: EvalTables(pos.t, w) for name, w in (("tuned", WEIGHTS), ("baseline", BASELINE))
        }
        rates: dict[str, list[float]] = {name: [] for name in tables}
        for _ in range(args.repeats):
            for name, et in tables.items():
                result = Searcher(pos, evaluation=et).search(Limits(nodes=args.nodes))
                rates[name].append(result.nodes / result.elapsed)
        tuned, base = (statistics.median(rates[n]) for n in ("tuned", "baseline"))
        print(
            f"{variant_id}: tuned {tuned:.0f} nodes/s, "
            f"baseline {base:.0f}, ratio {tuned / base:.2f}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tune", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("positions", help="play Fairy-Stockfish games, keep quiet positions")
    p.add_argument("--games", type=int, default=60, help="games per variant")
    p.add_argument("--nodes", type=int, default=3000, help="Fairy-Stockfish's nodes a move")
    p.add_argument("--variants", default="", help="comma-separated (default: all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--every", type=int, default=SAMPLE_EVERY, help="plies between two kept")
    p.add_argument(
        "--all", action="store_true", help="not only quiet positions (for benchmarks.quality)"
    )
    p.add_argument("--out", default="benchmarks/data/tune-positions.tsv.gz")
    p = sub.add_parser("fit", help="fit the weights to the positions' results")
    p.add_argument("positions", help="a positions file written by `positions`")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--l2", type=float, default=L2, help="pull towards the start weights")
    p.add_argument("--without", default="", help="names (prefixes) kept at the start, a,b")
    p.add_argument("--from-baseline", action="store_true", help="start from BASELINE")
    p.add_argument("--write", action="store_true", help="rewrite search/weights.py")
    p = sub.add_parser("squares", help="learn one variant's square tables from FSF's scores")
    p.add_argument("positions", nargs="+", help="positions files written by `positions`")
    p.add_argument("--variant", default="chess")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--l2", type=float, default=SQUARE_L2)
    p.add_argument("--unfolded", action="store_true", help="a parameter for every square")
    p.add_argument("--terms", action="store_true", help="fit the term weights with them")
    p.add_argument("--write", action="store_true", help="write search/learned/VARIANT.json")
    p = sub.add_parser("match", help="the tuned weights against BASELINE")
    p.add_argument("--variants", default="chess,shako")
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--nodes", type=int, default=20_000)
    p.add_argument("--movetime", type=float, default=None, help="seconds (instead of nodes)")
    p.add_argument("--opening-plies", type=int, default=4)
    p.add_argument("--max-plies", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--squares", action="store_true", help="learned tables against derived")
    p = sub.add_parser("speed", help="nodes per second, tuned against BASELINE")
    p.add_argument("--variants", default="chess,grand,bigorra")
    p.add_argument("--nodes", type=int, default=20_000)
    p.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    commands = {
        "positions": positions,
        "fit": fit_command,
        "squares": squares_command,
        "match": match_command,
        "speed": speed_command,
    }
    commands[args.command](args)


if __name__ == "__main__":
    main()
