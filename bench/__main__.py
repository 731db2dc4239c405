"""Runs the benchmarks: `python -m bench` runs them all, `python -m bench sandbox client` some.

A benchmark is a module `bench/<name>.py` with a top-level `main()`. Each runs in a process of
its own (`python -m bench.<name>`), so that one benchmark's Django settings, caches and warm
imports cannot flatter or burden another's figures. A missed target is reported, not failed: the
exit status is 0 unless a benchmark itself broke (raised, or ran past its time limit). The end
says how long each took, and all of them (`make bench` should take under 30 minutes).
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
NOT_BENCHMARKS = {"__init__", "__main__", "common"}
TIME_LIMIT = 600  # seconds for any one benchmark


def has_main(path: Path) -> bool:
    """Whether the module defines `main()` at its top level (read, not imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "main"
        for node in tree.body
    )


def discover() -> list[str]:
    return [
        path.stem
        for path in sorted(BENCH_DIR.glob("*.py"))
        if path.stem not in NOT_BENCHMARKS and not path.stem.startswith("_") and has_main(path)
    ]


def run(name: str) -> tuple[bool, float]:
    """Runs one benchmark: whether it completed (whatever its figures), and the seconds it
    took."""
    started = time.monotonic()
    try:
        result = subprocess.run(
            [sys.executable, "-m", f"bench.{name}"], cwd=ROOT, timeout=TIME_LIMIT, check=False
        )
    except subprocess.TimeoutExpired:
        print(f"bench.{name}: stopped after {TIME_LIMIT} s", file=sys.stderr)
        return False, time.monotonic() - started
    took = time.monotonic() - started
    if result.returncode != 0:
        print(f"bench.{name}: broke (exit status {result.returncode})", file=sys.stderr)
        return False, took
    print(f"\nbench.{name}: done in {took:.0f} s")
    return True, took


def print_times(runs: dict[str, tuple[bool, float]]) -> None:
    print("\nEach benchmark's time:")
    for name, (completed, seconds) in runs.items():
        print(f"  {name:<16} {seconds:5.0f} s{'' if completed else ' (broke)'}")
    total = sum(seconds for _, seconds in runs.values())
    print(f"  {'in all':<16} {total:5.0f} s ({total / 60:.1f} minutes)")


def main(argv: list[str] | None = None) -> int:
    available = discover()
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="*", metavar="name", help=f"benchmarks to run: {', '.join(available)}"
    )
    names = parser.parse_args(argv).names or available
    unknown = [n for n in names if n not in available]
    if unknown:
        parser.error(f"no such benchmark: {', '.join(unknown)} (there are {', '.join(available)})")
    runs = {name: run(name) for name in names}
    print_times(runs)
    broken = [name for name, (completed, _) in runs.items() if not completed]
    if broken:
        print(f"\nBroken benchmarks: {', '.join(broken)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
