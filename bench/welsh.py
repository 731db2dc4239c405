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

from bench.business import recorded_from_the_sandbox, setup_django
from bench.common import (
    DEMO_PASSWORD,
    DEMO_USER,
    AtLeast,
    heading,
    loads_in_turn,
    machine_load,
    page_bench,
    print_loads,
    print_targets,
    signed_in_portal,
)
from bench.passport_page import a_load_with_its_history, wheat_passports
from portal.assurance.client import AssuranceClient, BearerToken

REDIS_URL = "redis://127.0.0.1:6379/10"
PASSPORTS = 20
CONNECTIONS, LOAD_SECONDS, LOAD_ROUNDS = 8, 2, 15
RATIO = 0.95
ENGLISH = re.compile(r'<html lang="en-GB">')
WELSH = re.compile(r'<html lang="cy">')


def main() -> None:
    heading("bench.welsh: a page in Welsh / the same page in English")
    with ExitStack() as stack:
        bench = page_bench(stack, "welsh", REDIS_URL, PASSPORTS)
        sandbox, settings = bench.sandbox, bench.settings
        portal = signed_in_portal(stack, bench.directory / "portal", bench.database, settings)
        setup_django({**settings, "DATABASE_URL": bench.database})
        client = AssuranceClient(sandbox.url)
        credentials = BearerToken(client.login(DEMO_USER, DEMO_PASSWORD).token)
        code, _ = wheat_passports(recorded_from_the_sandbox(sandbox, client, credentials))
        a_load_with_its_history(code)
        pages = {
            "Welsh": (f"/cy/passports/{code}/", WELSH),
            "English": (f"/passports/{code}/", ENGLISH),
        }
        sizes = {label: portal.page(path, holding) for label, (path, holding) in pages.items()}
        first, second = ((label, portal.url + path, sizes[label])
                         for label, (path, _) in pages.items())  # fmt: skip
        loads = loads_in_turn(first, second, portal.headers["Cookie"], connections=CONNECTIONS,
                              seconds=LOAD_SECONDS, rounds=LOAD_ROUNDS)  # fmt: skip
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
