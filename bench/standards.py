"""The page of a 300-point section: warm, cold and with the service stopped.

    python -m bench standards

Starts, in one run and on loopback only, a sandbox of its own with the large data (section
BM.BX of the benchmark scheme has 300 points) and the portal under gunicorn as `make run`
starts it (2 workers x 4 threads), with a SQLite database in a temporary directory and Redis
database 15 on 127.0.0.1:6379 (the benchmark needs Redis: it is the shared cache that makes a
page warm or cold). It signs in as grower through the sign-in form, then measures:

- warm: the section page against the home page (signed in, the same layout, no content) under
  the same gunicorn, with `wrk` at 16 connections (a request each, as nginx sends them), the
  two in turn for five rounds. Target: the median of the rounds' ratios of the page's
  throughput to the home page's is at least 0.5.
- cold: the section page with the standards cache emptied before each request, sequentially,
  against the service's answer alone (the client's `section_data` for the same section with a
  bearer token, in this process), the two interleaved. Target: the page adds at most 25 ms to
  the call's median.
- stale: with the sandbox stopped, a second portal process on the same database and cache,
  whose standards are always stale (STANDARDS_FRESH_SECONDS=0), serves the kept copy with its
  notice. Target: its median under 20 ms (`wrk`, one connection).

Every answer must be a 200: the first is checked for the section's 300 points (and, when
stale, the notice); under load, wrk must see no error, no answer but a 2xx, and at least the
page's size in bytes for each answer.
"""

from __future__ import annotations

import statistics
from contextlib import ExitStack
from pathlib import Path
from tempfile import TemporaryDirectory

import redis

from bench.common import (
    BENCH_POINTS,
    BENCH_PREFIX,
    BENCH_SECTOR,
    REQUEST_TIMEOUT,
    SCHEME_GUID,
    AtLeast,
    Load,
    Target,
    Timing,
    heading,
    loopback_session,
    machine_load,
    print_loads,
    print_targets,
    print_timings,
    require_wrk_and_redis,
    running_sandbox,
    signed_in_cookie,
    size,
    time_calls,
    wrk,
)
from portal.assurance.client import AssuranceClient, BearerToken
from scripts import servers

REDIS_URL = "redis://127.0.0.1:6379/15"
SECTION_PATH = f"/standards/{SCHEME_GUID}/{BENCH_SECTOR}/{BENCH_PREFIX}/"
BARE_PATH = "/"  # the home page: signed in, the same layout, no content of its own
CONNECTIONS = 16
LOAD_SECONDS = 5
WARM_ROUNDS = 5  # the home page alone swings by half between rounds here: a median of more
COLD_REQUESTS, COLD_WARMUP = 15, 2
STALE_SECONDS = 3
WARM_RATIO, COLD_EXTRA_MS, STALE_MEDIAN_MS = 0.5, 25.0, 20.0
STALE_NOTICE = "cannot be reached just now"


# --- checking pages -------------------------------------------------------------------------------


def checked_page(url: str, cookie: str, *, stale: bool = False) -> int:
    """Fetches the section page once and checks it is whole; its size in bytes."""
    response = loopback_session().get(url, headers={"Cookie": cookie}, allow_redirects=False,
                                      timeout=REQUEST_TIMEOUT)  # fmt: skip
    points = response.text.count('<details class="point')
    if response.status_code != 200 or points != BENCH_POINTS:
        raise RuntimeError(f"The section page answered {response.status_code} with {points} "
                           f"points, not 200 with {BENCH_POINTS}")  # fmt: skip
    if stale != (STALE_NOTICE in response.text):
        raise RuntimeError(f"The page {'lacks' if stale else 'has'} the notice of a kept copy")
    return len(response.content)


def page_size(url: str, cookie: str) -> int:
    response = loopback_session().get(url, headers={"Cookie": cookie}, allow_redirects=False,
                                      timeout=REQUEST_TIMEOUT)  # fmt: skip
    if response.status_code != 200:
        raise RuntimeError(f"{url} answered {response.status_code}")
    return len(response.content)


# --- load with wrk --------------------------------------------------------------------------------


def measure_warm(portal_url: str, cookie: str, sizes: dict[str, int]) -> tuple[float, list[Load]]:
    """The median ratio of the page's throughput to the home page's, and every run; `sizes`
    holds each page's size."""
    for path in (SECTION_PATH, BARE_PATH):  # untimed: workers warm, the page made and kept
        wrk(portal_url + path, cookie, "warm-up", CONNECTIONS, 1, sizes[path])
    runs, ratios = [], []
    for n in range(1, WARM_ROUNDS + 1):
        page = wrk(portal_url + SECTION_PATH, cookie, f"{n}: section page", CONNECTIONS,
                   LOAD_SECONDS, sizes[SECTION_PATH])  # fmt: skip
        bare = wrk(portal_url + BARE_PATH, cookie, f"{n}: home page", CONNECTIONS,
                   LOAD_SECONDS, sizes[BARE_PATH])  # fmt: skip
        runs += [page, bare]
        ratios.append(page.throughput / bare.throughput)
    return statistics.median(ratios), runs


# --- cold -----------------------------------------------------------------------------------------


def forget_standards(cache: redis.Redis) -> None:
    """Empties the standards cache (the service's answers and the points made from them), and
    any outage remembered, but keeps sessions and users: what is cold is the section."""
    for pattern in ("*:standards:*", "*:template.cache.*", "*:assurance:outage"):
        keys = list(cache.scan_iter(match=pattern, count=1000))
        if keys:
            cache.delete(*keys)


def measure_cold(
    portal_url: str, cookie: str, sandbox_url: str, token: str
) -> tuple[Timing, Timing]:
    """The page with the standards cache emptied before each request, and the service's
    answer alone, interleaved so that both see the same machine."""
    cache = redis.Redis.from_url(REDIS_URL)
    session = loopback_session()
    session.headers["Cookie"] = cookie
    client = AssuranceClient(sandbox_url)
    credentials = BearerToken(token)

    def page() -> None:
        forget_standards(cache)
        response = session.get(portal_url + SECTION_PATH, timeout=REQUEST_TIMEOUT)
        if response.status_code != 200:
            raise RuntimeError(f"The cold page answered {response.status_code}")

    def call() -> None:
        client.section_data(credentials, SCHEME_GUID, BENCH_PREFIX, sector=BENCH_SECTOR)

    pages, calls = [], []
    for n in range(COLD_WARMUP + COLD_REQUESTS):
        timed_page, timed_call = time_calls(page, 1), time_calls(call, 1)
        if n >= COLD_WARMUP:
            pages += timed_page.samples
            calls += timed_call.samples
    forget_standards(cache)
    return Timing(tuple(pages)), Timing(tuple(calls))


# --- the benchmark --------------------------------------------------------------------------------


def main() -> None:
    heading("bench.standards: the page of a 300-point section")
    require_wrk_and_redis(REDIS_URL)
    print(f"Machine before: {machine_load()}")
    with ExitStack() as stack:
        directory = Path(stack.enter_context(TemporaryDirectory(prefix="bench-standards-")))
        sandbox = stack.enter_context(running_sandbox())
        settings = {"ASSURANCE_BASE_URL": sandbox.url, "REDIS_URL": REDIS_URL}
        portal = servers.start_portal(directory, **settings)
        stack.callback(portal.stop)
        cookie = signed_in_cookie(portal.url)
        page_bytes = checked_page(portal.url + SECTION_PATH, cookie)
        sizes = {SECTION_PATH: page_bytes, BARE_PATH: page_size(portal.url + BARE_PATH, cookie)}

        ratio, runs = measure_warm(portal.url, cookie, sizes)
        cold, alone = measure_cold(portal.url, cookie, sandbox.url, sandbox.token())

        checked_page(portal.url + SECTION_PATH, cookie)  # kept again, for the stale page
        servers.stop(sandbox.process)
        (directory / "stale").mkdir()
        stale_portal = servers.start_portal(
            directory / "stale", DATABASE_URL=f"sqlite:///{directory / 'portal.sqlite3'}",
            STANDARDS_FRESH_SECONDS="0", **settings,
        )  # fmt: skip
        stack.callback(stale_portal.stop)
        checked_page(stale_portal.url + SECTION_PATH, cookie, stale=True)
        stale = wrk(stale_portal.url + SECTION_PATH, cookie, "section page, stale, sandbox "
                    "stopped", 1, STALE_SECONDS, page_bytes)  # fmt: skip

    report(ratio, runs, cold, alone, stale, page_bytes)


def report(
    ratio: float, runs: list[Load], cold: Timing, alone: Timing, stale: Load, page_bytes: int
) -> None:
    print(f"\nUnder load: wrk, {CONNECTIONS} connections (a request each), {LOAD_SECONDS} s "
          f"each, the section page ({size(page_bytes)}) and the home page in turn:")  # fmt: skip
    print_loads([*runs, stale])
    print(f"\nCold page, sequential, the standards cache emptied before each request, "
          f"interleaved with the service's answer alone ({COLD_REQUESTS} each):")  # fmt: skip
    print_timings([("cold page", cold), ("service's answer alone", alone)])
    print()
    print_targets([
        AtLeast(f"warm page / home page, throughput (median of {WARM_ROUNDS})", ratio,
                WARM_RATIO, unit="x"),
        Target("cold page - service's answer, median", cold.median - alone.median,
               COLD_EXTRA_MS, inclusive=True),
        Target("stale page, sandbox stopped, median", stale.median_ms, STALE_MEDIAN_MS),
    ])  # fmt: skip
    print(f"Machine after: {machine_load()}")


if __name__ == "__main__":
    main()
