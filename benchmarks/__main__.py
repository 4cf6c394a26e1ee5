"""`python -m benchmarks [--quick] [--only NAME]`: every benchmark, printed as one Markdown
table under a short description of the machine (what `make bench` runs).

Each bench module is `benchmarks/bench_<name>.py` with `run(quick: bool) -> list[Row]`;
the render module is included when it exists. Progress goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import importlib.util
import os
import platform
import sys
import time
import traceback
from collections.abc import Sequence

from benchmarks.common import Row, optional_import

MODULES = (
    "rules",
    "pipeline",
    "storage",
    "load",
    "render",
    "interactions",
    "search",
    "clock",
    "match",
    "engine",
    "variants",
    "opponent",
    "responsive",
)
COLUMNS = ("section", "entry", "Fairy Post", "peer", "peer value", "ratio", "goal")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smoke test: little work each")
    parser.add_argument(
        "--only",
        choices=MODULES,
        action="append",
        metavar="NAME",
        help=f"run only this module ({', '.join(MODULES)}); may repeat",
    )
    args = parser.parse_args(argv)
    rows: list[Row] = []
    failed = False
    began = time.perf_counter()
    for name in args.only or MODULES:
        module_name = f"benchmarks.bench_{name}"
        if importlib.util.find_spec(module_name) is None:
            print(f"[{name}] skipped: {module_name} does not exist yet", file=sys.stderr)
            rows.append(Row(name, f"not measured: {module_name} does not exist yet", ""))
            continue
        print(f"[{name}] running...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            module = importlib.import_module(module_name)
            rows += module.run(quick=args.quick)
        except Exception as exc:  # one broken module must not hide the others' figures
            failed = True
            traceback.print_exc()
            rows.append(Row(name, f"FAILED: {type(exc).__name__}: {exc}", ""))
        print(f"[{name}] {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    print(header(args.quick, time.perf_counter() - began))
    print()
    print(markdown_table(rows))
    return 1 if failed else 0


def header(quick: bool, seconds: float) -> str:
    """The machine, the software and the date, as lines above the table."""
    cores = os.cpu_count() or 0
    chess = optional_import("chess")
    pyffish = optional_import("pyffish")
    peers = [
        f"python-chess {chess.__version__}" if chess else "python-chess not installed",
        f"pyffish {'.'.join(map(str, pyffish.version()))}" if pyffish else "pyffish not installed",
    ]
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Fairy Post benchmarks{' (--quick: smoke test, not for quoting)' if quick else ''}, "
        f"{when}, {seconds:.0f} s in all",
        "",
        f"- Machine: {cpu_model()}, {cores} core{'s' if cores != 1 else ''}, {memory_gb()} GB RAM",
        f"- Python {platform.python_version()} ({platform.python_implementation()}), {os_name()}",
        f"- Peers: {', '.join(peers)}",
    ]
    return "\n".join(lines)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def memory_gb() -> str:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 1024 / 1024:.0f}"
    except OSError:
        pass
    return "?"


def os_name() -> str:
    try:
        release = platform.freedesktop_os_release().get("PRETTY_NAME", "")
    except OSError:
        release = ""
    kernel = f"{platform.system()} {platform.release()}"
    return f"{release} ({kernel})" if release else kernel


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = (r.section, r.entry, r.value, r.peer, r.peer_value, r.ratio, r.goal)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
