"""`python -m search`: the command line players and developers use."""

from __future__ import annotations

import pytest

from search.cli import main


def test_bestmove_prints_notation_and_evaluation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bestmove", "chess", "--moves", "f2f3", "e7e5", "g2g4", "--nodes", "3000"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bestmove Qd8-h4++ (d8h4)")
    assert "mate in 1" in out
    assert "nodes/s" in out


def test_bestmove_with_a_level_and_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["bestmove", "patricia", "--level", "2", "--movetime", "200", "--nodes", "500"]) == 0
    )
    assert capsys.readouterr().out.startswith("bestmove ")


def test_bestmove_on_a_finished_game(capsys: pytest.CaptureFixture[str]) -> None:
    moves = ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert main(["bestmove", "chess", "--moves", *moves]) == 0
    assert "the game is over (black wins by checkmate)" in capsys.readouterr().out


def test_bad_input_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bestmove", "chess", "--moves", "e2e5"]) == 2
    assert "e2e5" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bestmove", "chess", "--level", "9"])


def test_values_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["values", "chess"]) == 0
    out = capsys.readouterr().out
    assert "Knight" in out and "320" in out
    assert "royal: no material value" in out


def test_analyze_marks_moves(capsys: pytest.CaptureFixture[str]) -> None:
    moves = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"]
    assert main(["analyze", "chess", "--moves", *moves, "--nodes", "3000"]) == 0
    out = capsys.readouterr().out
    assert "Ng8-f6??" in out
    assert "Black: 1 blunders" in out
