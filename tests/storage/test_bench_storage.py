"""The storage benchmark still runs and reports every entry (numbers are not judged here)."""

from __future__ import annotations

from benchmarks.bench_storage import SECTION, run


def test_quick_benchmark_reports_all_entries() -> None:
    rows = run(quick=True)
    assert {row.section for row in rows} == {SECTION}
    entries = " | ".join(row.entry for row in rows)
    assert "moves committed/s, 1,000 active games" in entries
    assert "20 most recent games" in entries
    assert all(row.value for row in rows)
