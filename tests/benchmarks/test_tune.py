"""The square-table fit of `benchmarks.tune squares` finds what the labels say, and the
move-quality probe reads Fairy-Stockfish's judgement. The shipped tables' own worth is
measured by matches and by the probe (search/README.md), not here."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from benchmarks.match import elo_pick_depth
from benchmarks.openings import OPENINGS
from benchmarks.quality import compare
from benchmarks.quality import main as quality_main
from benchmarks.tune import SquareModel, fit_squares, play_one, read_positions, square_loss
from rules.game import game_after
from rules.position import Position
from rules.postext import parse_position
from search.evaluate import EvalTables
from search.uci import UciEngine
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


def test_the_fit_with_terms_finds_a_planted_doubled_pawn_penalty() -> None:
    """Labels that take 40 centipawns for every doubled Pawn (in both phases): fitted with
    the tables, the doubled weights come out near -40 and the other terms' near their
    start, the tables hardly moved."""
    model = SquareModel("chess", terms=True)
    derived = EvalTables(Position.start("chess").t, learned=False)
    samples = []
    for pos in _positions(600, seed=11):
        white = derived.evaluate(pos) * (1 if pos.side == 0 else -1)
        doubled = derived.pawn_terms(pos)[0]
        found = model.sample(pos, white - 40 * doubled)
        if found is not None:
            samples.append(found)
    assert len(samples) > 400
    theta = fit_squares(samples, model.start, steps=200, l2=0.0)
    weights = model.weights(theta)
    assert set(weights) == {
        "doubled_mg",
        "doubled_eg",
        "isolated_mg",
        "isolated_eg",
        "passed_mg",
        "passed_eg",
        "shield_mg",
        "danger_mg",
    }
    assert -60 < weights["doubled_mg"] < -25 and -60 < weights["doubled_eg"] < -25
    assert abs(weights["isolated_mg"]) < 15 and abs(weights["shield_mg"]) < 15
    assert SquareModel("chess").weights(SquareModel("chess").start) == {}


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


def test_two_probes_are_compared_position_by_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The judgements are kept (`--cache`) and read again by the second run; the comparison
    counts a move both runs chose as no difference, and a worse move as a loss."""
    fairy_stockfish()
    texts = (
        "rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 0 3",  # take the Queen
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    )
    path = tmp_path / "positions.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.writelines(f"chess\t0.5\t{t}\t0\n" for t in texts)
    cache, first, second = tmp_path / "judged.json", tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    common = [str(path), "--count", "2", "--every", "1", "--depth", "6", "--cache", str(cache)]
    quality_main([*common, "--nodes", "2000", "--out", str(first)])
    judged = json.loads(cache.read_text(encoding="utf-8"))
    assert len(judged) >= 2
    quality_main([*common, "--nodes", "3000", "--out", str(second), "--against", str(first)])
    out = capsys.readouterr().out
    assert "2 positions (" in out and "standard error" in out
    rows = [json.loads(line) for line in second.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["move"] == "c1g5" and rows[0]["drop"] == 0.0  # the Queen taken
    # A planted worse move in the earlier run reads as this run's improvement.
    worse = [{**rows[0], "move": "a2a3", "drop": 0.5}, rows[1]]
    first.write_text("".join(json.dumps(r) + "\n" for r in worse), encoding="utf-8")
    assert "-0.2500" in compare(rows, str(first))


def test_the_matches_opponent_is_judged_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--elo`: Fairy-Stockfish at a UCI_Elo, searching to the depth the matches give it,
    chooses the moves instead of Fairy Post. Its Skill draws among its four best lines, each
    lifted by (120 - 2 * level) / 128 of its gap to the best: at 1400 (level 0) that can lift
    a move a Queen worse over the capture (CI saw it), at 2400 (level 11-12) it cannot."""
    row = _probe_the_hanging_queen(tmp_path, "--elo", "2400")
    out = capsys.readouterr().out
    assert "chess: 1 positions, Fairy-Stockfish UCI_Elo 2400, judged at depth 6" in out
    assert row["move"] == "c1g5" and row["depth"] == elo_pick_depth(2400)


def test_the_probe_can_spend_cpu_seconds_as_the_matches_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--movetime`: Fairy Post searches a CPU-time budget instead of a number of nodes, so
    the use of the time (when to start an iteration) can be probed; the Queen is taken."""
    row = _probe_the_hanging_queen(tmp_path, "--movetime", "0.3")
    assert "chess: 1 positions, 0.3 CPU-s, judged at depth 6" in capsys.readouterr().out
    assert row["move"] == "c1g5" and row["depth"] >= 2


def test_the_probe_positions_can_keep_the_tactics_too() -> None:
    """`positions --all`: the same game keeps, besides its quiet positions, those in check
    and those whose best move takes, which the Texel fit leaves out and the probe needs
    (a probe on quiet positions alone cannot see a missed capture)."""
    engine = UciEngine(fairy_stockfish(), {"Threads": "1", "Hash": "8"})
    try:
        kept = {}
        for keep_all in (False, True):
            engine.set_option("UCI_Variant", "chess")
            _points, kept[keep_all] = play_one(
                engine, "chess", 300, random.Random(5), every=1, keep_all=keep_all
            )
    finally:
        engine.close()
    quiet, every = {t for t, _s in kept[False]}, {t for t, _s in kept[True]}
    assert quiet and quiet < every
    # Every quiet position of the game is kept by both; what --all adds is not quiet.
    for text in every - quiet:
        pos = parse_position("chess", text)
        assert pos.is_check() or pos.capture_codes(), text


def test_the_games_of_a_match_log_are_judged_move_by_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--games`: the moves played past the fixed opening, each side's, by phase; a lost
    game names the engine's worst move (here 4.Nxe5?, a Knight for a Pawn), and `--keep`
    writes the positions where the engine moved, for the probe."""
    fairy_stockfish()
    line = [*OPENINGS["chess"][0], "f3e5", "c6e5"]
    log = tmp_path / "match.jsonl"
    row = {"engine": "new", "opponent": "fsf2100", "variant": "chess", "opening": 0}
    row |= {"engine_color": 0, "points": 0.0, "line": " ".join(line)}
    log.write_text(json.dumps(row) + "\n", encoding="utf-8")
    kept = tmp_path / "kept.tsv.gz"
    quality_main([str(log), "--games", "--depth", "8", "--keep", str(kept)])
    out = capsys.readouterr().out
    assert "| new | plies 1-30 | 1 |" in out and "| fsf2100 | plies 1-30 | 1 |" in out
    assert "opening 1, ply 7: f3e5 loses" in out
    # --keep: the engine's own positions, to be probed again (White lost this one).
    (variant, points, text, score), *more = read_positions(kept)
    assert not more and (variant, points) == ("chess", "0.0") and abs(int(score)) < 200
    assert parse_position("chess", text).hash == game_after("chess", line[:6]).position.hash


def _probe_the_hanging_queen(tmp_path: Path, *mover: str) -> dict[str, object]:
    """The probe (judged at depth 6) of one position where White takes a hanging Queen,
    the move chosen as `mover` says; the row it writes."""
    fairy_stockfish()
    text = "rnb1kbnr/pppp1ppp/8/4p1q1/4P3/3P4/PPP2PPP/RNBQKBNR w KQkq - 0 3"
    path = tmp_path / "positions.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(f"chess\t0.5\t{text}\t900\n")
    out_file = tmp_path / "probe.jsonl"
    quality_main(
        [str(path), "--count", "1", "--every", "1", "--depth", "6", *mover, "--out", str(out_file)]
    )
    row: dict[str, object] = json.loads(out_file.read_text(encoding="utf-8"))
    return row
