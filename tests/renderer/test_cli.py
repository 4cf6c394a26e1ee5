"""`python -m renderer`: pictures from the command line, one-line errors with status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from renderer.cli import main
from tests.renderer.conftest import decode


def test_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b.png"
    assert (
        main(["board", "chess", str(out), "--moves", "e2e4", "e7e5", "--perspective", "black"]) == 0
    )
    assert decode(out.read_bytes()).width > 700
    assert "KB" in capsys.readouterr().out


def test_board_with_selection_and_theme(tmp_path: Path) -> None:
    out = tmp_path / "b.png"
    args = ["board", "Heavy Shako", str(out), "--select", "e3", "--theme", "contrast"]
    assert main(args) == 0
    assert out.exists()


def test_piece_and_legend(tmp_path: Path) -> None:
    assert main(["piece", "bigorra", "Eagle", str(tmp_path / "p.png")]) == 0
    assert main(["piece", "chess", "N", str(tmp_path / "n.png"), "--color", "black"]) == 0
    assert main(["legend", "patchanka", str(tmp_path / "l.png")]) == 0
    assert main(["themes"]) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["board", "nochess", "OUT"], "unknown variant 'nochess'"),
        (["board", "chess", "OUT", "--moves", "e2e5"], "--moves, move 1: 'e2e5'"),
        (["board", "chess", "OUT", "--theme", "neon"], "unknown theme 'neon'"),
        (["board", "chess", "OUT", "--select", "z9"], "--select"),
        (["piece", "bigorra", "dragon", "OUT"], "no piece 'dragon'"),
        (["board", "chess", "{tmp}/missing/dir/b.png"], "cannot write"),
        (["board", "chess", "{tmp}/b.jpg"], "must end in .png"),
    ],
)
def test_user_errors_exit_2_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    args = [a.replace("OUT", str(tmp_path / "x.png")).replace("{tmp}", str(tmp_path)) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert "Traceback" not in err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["board", "chess", "x.png", "--perspective", "up"])
    assert exc.value.code == 2
    assert "expected white or black" in capsys.readouterr().err


def test_module_entry_point(tmp_path: Path) -> None:
    out = tmp_path / "p.png"
    done = subprocess.run(
        [sys.executable, "-m", "renderer", "board", "patricia", str(out), "--moves", "Bd1-b3"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "renderer", "piece", "chess", "Z", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
