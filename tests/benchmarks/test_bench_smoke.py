"""Smoke test of `make bench`: the quick rules run prints the table. No timing is checked:
speed is reported by `make bench`, never asserted by a test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench_rules
from benchmarks.common import NOT_INSTALLED, optional_import

ROOT = Path(__file__).resolve().parents[2]
HEADER = "| section | entry | Fairy Post | peer | peer value | ratio | goal |"


def test_quick_rules_run_prints_one_table() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", "rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "- Machine: " in out and "- Python " in out
    table = [line for line in out.splitlines() if line.startswith("|")]
    assert table[0] == HEADER
    assert all(line.replace("\\|", "").count("|") == 8 for line in table), "seven columns"
    body = "\n".join(table[2:])
    for section in ("perft, chess", "listing vs Fairy-Stockfish", "listing, every variant"):
        assert f"| rules: {section} |" in body
    if optional_import("pyffish") is not None:
        # The two engines list the same moves in every benchmark position.
        assert "| 0 / 0 of " in body


def test_missing_peers_are_noted_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test environment has only the dev extra: without python-chess and pyffish the
    rows say so and Fairy Post's own figures are still measured."""
    monkeypatch.setattr(bench_rules, "optional_import", lambda name: None)
    rows = [*bench_rules.perft_rows(quick=True), *bench_rules.fsf_rows(quick=True)]
    assert len(rows) == 2 + len(bench_rules.FSF_VARIANTS) + 1
    assert all(r.peer_value == NOT_INSTALLED and not r.ratio for r in rows)
    assert all(r.value for r in rows[:-1]), "Fairy Post's own figures are measured"


def test_fairy_stockfish_dialect() -> None:
    """Position text to Fairy-Stockfish's letters (fairy-stockfish-variants.ini)."""
    shako = "csmowuomsc/ernbqkbnre/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQKBNRE/CSMOWUOMSC"
    start = bench_rules.Position.start("heavy-shako")
    assert bench_rules.fsf_fen("heavy-shako", bench_rules.format_position(start)) == (
        f"{shako} w KQkq - 0 1"
    )
    grand = bench_rules.format_position(bench_rules.Position.start("grand"))
    assert bench_rules.fsf_fen("grand", grand).startswith("r8r/1nbqkcabn1/")


def test_the_load_benchmark_runs_and_checks_its_data() -> None:
    """A tiny load run: three configurations side by side (PostgreSQL ones say why when no
    server answers); each run verifies that nothing was lost or doubled."""
    from benchmarks.bench_load import measure

    rows = measure(games=200, deadlines=20, seconds=1.0, rounds=1)
    entries = [r.entry for r in rows]
    assert any(e.startswith("SQLite, 1 process") for e in entries)
    assert any(e.startswith("PostgreSQL, 1 process") for e in entries)
    assert any(e.startswith("PostgreSQL, 4 processes") for e in entries)
    assert not any("FAILED" in r.value for r in rows)
