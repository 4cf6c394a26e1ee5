"""Issue 29's match and speed harness: the fixed openings, the engine in a process of its
own, Fairy-Stockfish's UCI_Elo depth, the draw adjudication and the rows. Strength and
speed are reported by `make bench`, never asserted here."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from benchmarks.bench_engine import (
    ROOT,
    SHAKO_MIDDLE,
    Job,
    Played,
    jobs,
    match_rows,
    read_log,
    speed_positions,
)
from benchmarks.elo import estimate
from benchmarks.match import (
    Choice,
    DriverPlayer,
    FairyStockfishPlayer,
    Player,
    elo_pick_depth,
    play_game,
)
from benchmarks.openings import OPENINGS
from rules.game import Game, game_after
from rules.notation import coordinates
from rules.variant import load_variant
from search.uci import UciEngine, find_engine


@pytest.mark.parametrize("variant", sorted(OPENINGS))
def test_every_opening_is_legal_distinct_and_leaves_the_game_open(variant: str) -> None:
    lines = OPENINGS[variant]
    assert len(lines) >= 8 and len(set(lines)) == len(lines)
    for line in lines:
        game = game_after(variant, line)
        assert game.outcome() is None and game.ply == len(line)


def test_speed_positions_cover_four_variants_at_start_and_in_a_middle_game() -> None:
    positions = list(speed_positions())
    assert [v for v, _label, _moves in positions] == [
        v for v in ("chess", "shako", "grand", "bigorra") for _ in range(2)
    ]
    assert game_after("shako", SHAKO_MIDDLE).ply == 24
    for variant, _label, moves in positions:
        assert game_after(variant, moves).outcome() is None


def test_elo_pick_depth_follows_fairy_stockfish_skill_formula() -> None:
    # level = ((elo - 1346.6) / 143.4) ** (1 / 0.806): 7.83 at 2100, 2.03 at 1600
    assert elo_pick_depth(2100) == 9
    assert elo_pick_depth(1600) == 4
    assert elo_pick_depth(1350) == 2
    assert elo_pick_depth(2850) == 20  # level 18.4


def test_jobs_are_pairs_of_one_opening_interleaved_across_matches() -> None:
    todo = jobs(["chess:present", "shako:fsf1600"], 4)
    assert len(todo) == 8
    assert todo[:4] == [
        Job("chess", "present", 0, 0),
        Job("chess", "present", 0, 1),
        Job("shako", "fsf1600", 0, 0),
        Job("shako", "fsf1600", 0, 1),
    ]
    assert {j.opening for j in todo[4:]} == {1}
    assert len(jobs(["chess:present"], 3)) == 4, "rounded up to pairs"


class LevelMover(Player):
    """Plays at random (seeded) and always gives the same score."""

    def __init__(self, score: int, seed: int) -> None:
        self.score = score
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Choice:
        pos = game.position
        return Choice(coordinates(pos, self.rng.choice(pos.legal_codes())), self.score)


def test_a_level_game_is_adjudicated_a_draw_after_move_40_only_when_asked() -> None:
    chess = load_variant("chess")
    opening = OPENINGS["chess"][0]
    points, reason, plies = play_game(
        chess, LevelMover(0, 1), LevelMover(5, 2), opening, max_plies=200, adjudicate_draws=True
    )
    assert (points, reason) == (0.5, "draw (adjudicated)") and plies == 80
    _p, reason, plies = play_game(
        chess, LevelMover(0, 1), LevelMover(300, 2), opening, max_plies=90, adjudicate_draws=True
    )
    assert reason != "draw (adjudicated)"
    _p, reason, _plies = play_game(chess, LevelMover(0, 1), LevelMover(0, 2), opening, max_plies=90)
    assert reason != "draw (adjudicated)"


def test_a_game_s_moves_are_recorded_and_kept_in_the_log(tmp_path: Path) -> None:
    """The record holds the opening and every move played, so the game replays to its end;
    the log's line keeps them (and a log written before it existed still reads)."""
    chess = load_variant("chess")
    opening = OPENINGS["chess"][0]
    record: list[str] = []
    _p, _reason, plies = play_game(
        chess, LevelMover(0, 1), LevelMover(0, 2), opening, max_plies=30, record=record
    )
    assert len(record) == plies == 30 and record[: len(opening)] == list(opening)
    assert game_after("chess", record).ply == 30
    log = tmp_path / "games.jsonl"
    kept = replace(played(1), line=" ".join(record))
    old = {k: v for k, v in asdict(played(0)).items() if k != "line"}
    log.write_text(json.dumps(asdict(kept)) + "\n" + json.dumps(old) + "\n", encoding="utf-8")
    first, second = read_log(log)
    assert first.line.split() == record and second.line == ""


def test_the_engine_in_its_own_process_plays_a_legal_move_on_the_cpu_clock() -> None:
    player = DriverPlayer(ROOT, "new engine", 0.05, level=8)
    try:
        game = game_after("chess", OPENINGS["chess"][1])
        player.start(game)
        choice = player.choose(game)
        game.play(choice.move, check_marks=False)
        assert player.moves == 1 and player.nodes > 0 and player.depths[0] >= 1
        assert 0 < player.cpu < 2 and player.wall > 0
        answer = player.ask({"op": "speed", "variant": "shako", "moves": [], "movetime": 0.05})
        assert answer["nodes"] and answer["move"]
        with pytest.raises(RuntimeError, match="unknown op"):
            player.ask({"op": "nonsense"})
    finally:
        player.close()


def played(points: float, opponent: str = "present", error: str = "") -> Played:
    return Played(
        "new", "chess", opponent, 0, 0, points, "white wins by checkmate", 90, 1.0, 45, 5.0,
        4.0, 50_000, 1.0, 2.0, (3.0, 4.0), "09:00:00", 100.0, error,
    )  # fmt: skip


def test_match_rows_give_the_score_the_interval_and_leave_failed_games_out() -> None:
    rows = match_rows([played(1), played(1), played(0.5), played(0), played(0.5, error="x")])
    assert len(rows) == 1
    row = rows[0]
    assert row.value.startswith("+2 =1 -1 (62%), Elo +89 (95%: ")
    assert "4 games" in row.entry and "1 games failed" in row.entry
    assert row.peer == "present engine (34c1e75)" and row.goal == "≥ +200 Elo"
    assert "load 3.0-4.0" in row.entry


@pytest.mark.skipif(find_engine() is None, reason="Fairy-Stockfish is not installed")
def test_fairy_stockfish_at_an_elo_searches_to_its_pick_depth() -> None:
    path = find_engine()
    assert path is not None
    uci = UciEngine(path, {"Threads": "1", "Hash": "1"})
    try:
        player = FairyStockfishPlayer(uci, "shako", 0, 1000, elo=1600, depth=elo_pick_depth(1600))
        assert player.name == "Fairy-Stockfish UCI_Elo 1600"
        game = game_after("shako", OPENINGS["shako"][0])
        player.start(game)
        game.play(player.choose(game).move, check_marks=False)
        assert player.depths == [4]
    finally:
        uci.close()


def test_an_even_score_reads_plus_zero() -> None:
    assert estimate([1, 0, 1, 0]).text() == "+0 (95%: -798 to +798)"


def test_a_game_both_score_as_won_is_adjudicated_at_the_threshold_given() -> None:
    chess = load_variant("chess")
    opening = OPENINGS["chess"][0]
    white, black = LevelMover(700, 1), LevelMover(-700, 2)  # both: White is 7 Pawns up
    points, reason, plies = play_game(
        chess, white, black, opening, adjudicate=True, adjudicate_cp=600
    )
    assert (points, reason, plies) == (1.0, "white wins (adjudicated)", len(opening) + 6)
    _p, reason, _plies = play_game(chess, white, black, opening, max_plies=20, adjudicate=True)
    assert reason == "draw at the 20-ply cap", "not at the default 10 Pawns"
