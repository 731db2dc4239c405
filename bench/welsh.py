"""A page in Welsh against the same page in English.

    python -m bench welsh

Starts what bench/passport_page.py starts (a sandbox, the portal under gunicorn as `make run`
starts it, its own PostgreSQL database, Redis database 10 as its cache), and makes the same
passport with a load's result at intake and its history: the portal's fullest page of its own
words. The page at its English address and under /cy/ are asked with `wrk` at 8 connections for
2 s each, in turn, the order swapped every round, for 15 rounds; every answer must be a 200 of
at least the page's size, and the Welsh page must be the Welsh one (`lang="cy"`). Target (issue
40): the median of the rounds' ratios of the Welsh page's throughput to the English page's at
least 0.95.
"""

from __future__ import annotations

import re
import statistics
from contextlib import ExitStack

from bench.common import (
    AtLeast,
    heading,
    machine_load,
    print_loads,
    print_targets,
)
from bench.passport_page import CONNECTIONS, LOAD_SECONDS, pages_in_turn, started_with_a_load

REDIS_URL = "redis://127.0.0.1:6379/10"
LOAD_ROUNDS = 15
RATIO = 0.95
ENGLISH = re.compile(r'<html lang="en-GB">')
WELSH = re.compile(r'<html lang="cy">')


def main() -> None:
    heading("bench.welsh: a page in Welsh / the same page in English")
    with ExitStack() as stack:
        started = started_with_a_load(stack, "welsh", REDIS_URL)
        code = started.with_result
        pages = {
            "Welsh": (f"/cy/passports/{code}/", WELSH),
            "English": (f"/passports/{code}/", ENGLISH),
        }
        sizes, loads = pages_in_turn(started.portal, pages, rounds=LOAD_ROUNDS)
    ratios = [welsh.throughput / english.throughput for welsh, english in loads]
    print(f"\nA passport's page with a result at intake in Welsh ({sizes['Welsh']:,} bytes) and "
          f"in English ({sizes['English']:,} bytes), wrk at {CONNECTIONS} connections for "
          f"{LOAD_SECONDS} s each, in turn:")  # fmt: skip
    print_loads([load for pair in loads for load in pair])
    print(f"Ratios of throughput, Welsh / English: {', '.join(f'{r:.2f}' for r in ratios)}")
    print()
    print_targets([AtLeast(f"a page in Welsh / in English, throughput (median of {LOAD_ROUNDS})",
                           statistics.median(ratios), RATIO, "x")])  # fmt: skip
    print(f"Machine after: {machine_load()}")


if __name__ == "__main__":
    main()
