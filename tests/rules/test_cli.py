"""`python -m rules`: the command line's output and exit codes."""

from __future__ import annotations

import subprocess
import sys

from tests.rules.conftest import GAMES


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rules", *args], capture_output=True, text=True, check=False
    )


def test_perft_prints_the_count_alone_on_its_last_line() -> None:
    result = run("perft", "chess", "4")
    assert result.returncode == 0
    assert result.stdout.strip().splitlines()[-1] == "197281"


def test_perft_after_moves_and_divide() -> None:
    result = run("perft", "patchanka", "2", "--moves", "e3e5", "e8e6", "--divide")
    lines = result.stdout.strip().splitlines()
    assert sum(int(line.split()[1]) for line in lines[:-1]) == int(lines[-1])


def test_moves_lists_canonical_notation() -> None:
    result = run("moves", "chess", "--moves", "e2e4", "e7e5")
    moves = result.stdout.split("\n")
    assert "Ng1-f3" in moves and "Qd1-h5" in moves and len([m for m in moves if m]) == 29


def test_replay_exit_codes(tmp_path: object) -> None:
    ok = run("replay", str(GAMES / "patchanka.txt"))
    assert ok.returncode == 0 and "150 plies" in ok.stdout
    bad = GAMES.parent / "bad-record.txt"
    bad.write_text("# variant: chess\n1. e2-e4\n1... e7-e4\n")
    try:
        result = run("replay", str(bad))
    finally:
        bad.unlink()
    assert result.returncode == 1
    assert "ply 2" in result.stderr and "e7-e4" in result.stderr


def test_user_errors_exit_2_without_traceback() -> None:
    for args in (("perft", "nonesuch", "1"), ("moves", "chess", "--moves", "e2e5")):
        result = run(*args)
        assert result.returncode == 2
        assert "Traceback" not in result.stderr and result.stderr.startswith("error:")
