"""The square-table fit of `benchmarks.tune squares` finds what the labels say, and the
move-quality probe reads Fairy-Stockfish's judgement. The shipped tables' own worth is
measured by matches and by the probe (search/README.md), not here."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest

from benchmarks.quality import main as quality_main
from benchmarks.tune import SquareModel, fit_squares, square_loss
from rules.position import Position
from search.evaluate import EvalTables
from tests.fairy_stockfish import fairy_stockfish


def _positions(count: int, seed: int) -> list[Position]:
    """Positions of random games, 16 to 60 plies in: pieces on many squares, some taken."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.start("chess")
        for _ in range(rng.randint(16, 60)):
            moves = pos.legal_codes()
            if not moves or pos.outcome(moves) is not None:
                break
            pos.push_code(rng.choice(moves), keep_key=False)
        else:
            out.append(pos)
    return out


def test_the_fit_finds_a_planted_knight_bonus() -> None:
    """Labels that value every Knight 120 centipawns above the derived tables move the
    Knights' entries up by about that, and the Pawns' hardly at all."""
    model = SquareModel("chess")
    derived = EvalTables(Position.start("chess").t, learned=False)
    knight = (model.et.tables.code("knight", 0), model.et.tables.code("knight", 1))
    samples = []
    for pos in _positions(300, seed=7):
        white = derived.evaluate(pos) * (1 if pos.side == 0 else -1)
        planted = 120 * (len(pos.pieces[knight[0]]) - len(pos.pieces[knight[1]]))
        found = model.sample(pos, white + planted)
        if found is not None:
            samples.append(found)
    assert len(samples) > 200
    theta = fit_squares(samples, model.start, steps=150, l2=0.0)
    assert square_loss(samples, theta) < square_loss(samples, model.start) / 4
    mg, _eg = model.tables(theta)
    start_mg, _ = model.tables(model.start)
    seen = {sq for pos in _positions(300, seed=7) for sq in pos.pieces[knight[0]]}
    knight_gain = [mg["knight"][sq] - start_mg["knight"][sq] for sq in seen]
    assert 60 < sum(knight_gain) / len(knight_gain) < 200
    pawn_gain = [abs(mg["pawn"][sq] - start_mg["pawn"][sq]) for sq in range(8, 56)]
    assert sum(pawn_gain) / len(pawn_gain) < 30


def test_folded_tables_read_one_entry_for_a_square_and_its_mirror() -> None:
    model = SquareModel("chess")
    theta = list(model.start)
    theta[model.slot(model.et.tables.code("knight", 0), 1, False)] += 50  # b1
    mg, _eg = model.tables(theta)
    start_mg, _ = model.tables(model.start)
    assert mg["knight"][1] - start_mg["knight"][1] == 50
    assert mg["knight"][6] - start_mg["knight"][6] == 50  # g1 reads the same entry
    assert mg["knight"][62] == start_mg["knight"][62]  # g8: another row


def test_move_quality_is_judged_by_fairy_stockfish(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A position with a Queen to take: taking it loses nothing, and the summary says so."""
    fairy_stockfish()
    text = "rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 0 3"
    path = tmp_path / "positions.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(f"chess\t0.5\t{text}\t900\n")
    quality_main([str(path), "--count", "1", "--every", "1", "--nodes", "2000", "--depth", "6"])
    out = capsys.readouterr().out
    assert "chess: 1 positions, 2000 nodes, judged at depth 6: mean loss 0.0 cp" in out
    assert "blunders (>= 150) 0 (0%)" in out
