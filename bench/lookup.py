"""Checking a passport by its short code: the verdict kept, and nothing kept; and a day's loads
checked at once at intake.

    python -m bench lookup

Starts, in one run and on loopback only, a sandbox of its own with its demo data (the demo
passport 7KXM4-QHT2W) and 50 more passports (generate_large_data's), and the portal under
gunicorn as `make run` starts it (2 workers x 4 threads), with a SQLite database in a temporary
directory and Redis database 14 on 127.0.0.1:6379 as the shared cache (where verdicts are
kept). Every request comes from 127.0.0.1, so the portals run with PORTAL_LOOKUPS_PER_MINUTE out
of reach: each look-up is still counted, but none refused. It measures:

- kept: the verdict page with its verdict kept, against the look-up form (`/p/`: anonymous,
  the same layout, no look-up) under the same gunicorn, with `wrk` at 16 connections (a
  request each, as nginx sends them), the two in turn for a few rounds. Target: the median of
  the rounds' ratios of the verdict's throughput to the form's is at least 0.5.
- nothing kept: a second portal on the same database and cache that keeps no verdict
  (PORTAL_LOOKUP_KEEP_SECONDS=0), sequentially, against the service's download call alone (the
  client's `passport` with the look-up account's bearer token, in this process), the two
  interleaved. Target: the page adds at most 25 ms to the call's median.
- intake, nothing kept: on that second portal, 50 known codes checked at once (`/p/check`: the
  form sent, and the table it leads to), against one code's verdict page, sequentially, the
  two interleaved. Target: the 50 take at most 10 times the one (medians): they are asked a
  few at once (PORTAL_INTAKE_CALLS_AT_ONCE, 8), not one after another. Beside them, the
  service's 50 download calls alone, 8 at once from this process, as the portal makes them:
  the floor on this machine, where the sandbox shares its CPUs with everything else.

Every answer must be a 200 with the page: the first is checked for the valid verdict; under
load, wrk must see no error, no answer but a 2xx, and at least the page's size each answer.
"""

from __future__ import annotations

import sqlite3
import statistics
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, closing
from pathlib import Path
from tempfile import TemporaryDirectory

import redis

from bench.common import (
    REQUEST_TIMEOUT,
    AtLeast,
    Load,
    Target,
    Timing,
    csrf_token,
    heading,
    loopback_session,
    machine_load,
    print_loads,
    print_targets,
    print_timings,
    require_wrk_and_redis,
    size,
    start_sandbox,
    time_calls,
    wrk,
)
from portal.assurance.client import AssuranceClient, BearerToken
from portal.passports.codes import normalise
from scripts import servers

REDIS_URL = "redis://127.0.0.1:6379/14"
SHORT_CODE = "7KXM4-QHT2W"
VERDICT_PATH = f"/p/{SHORT_CODE}"
BARE_PATH = "/p/"  # the look-up form: anonymous, the same layout, no look-up
LOOKUP_ACCOUNT = ("haulier", "haulier-demo-pass")
NO_LIMIT = str(10**9)
CONNECTIONS = 16
LOAD_SECONDS = 5
ROUNDS = 5  # the machine is shared: the median of five rounds steadies the ratio
COLD_REQUESTS, COLD_WARMUP = 30, 3
KEPT_RATIO, COLD_EXTRA_MS = 0.5, 25.0
VALID = "The assurance claim is valid now."
INTAKE_PATH = "/p/check"
INTAKE_CODES, INTAKE_ROUNDS, INTAKE_WARMUP = 50, 10, 2
INTAKE_RATIO = 10.0
INTAKE_CALLS_AT_ONCE = 8  # the portal's PORTAL_INTAKE_CALLS_AT_ONCE
VERDICT_ROW = '<td class="state state-'  # a row of the table: its verdict's cell
NO_COOKIE = ""  # wrk's Cookie header, empty: an anonymous visitor


def checked_page(url: str, *, verdict: bool) -> int:
    """Fetches a page once and checks it (the valid verdict, or the form); its size in bytes."""
    response = loopback_session().get(url, allow_redirects=False, timeout=REQUEST_TIMEOUT)
    expected = VALID if verdict else 'action="/p/"'
    if response.status_code != 200 or expected not in response.text:
        raise RuntimeError(f"{url} answered {response.status_code} without {expected!r}")
    return len(response.content)


def measure_kept(portal_url: str, sizes: dict[str, int]) -> tuple[float, list[Load]]:
    """The median ratio of the verdict's throughput to the form's, and every run."""
    for path in (VERDICT_PATH, BARE_PATH):  # untimed: workers warm, the verdict kept
        wrk(portal_url + path, NO_COOKIE, "warm-up", CONNECTIONS, 1, sizes[path])
    runs, ratios = [], []
    for n in range(1, ROUNDS + 1):
        verdict = wrk(portal_url + VERDICT_PATH, NO_COOKIE, f"{n}: verdict, kept", CONNECTIONS,
                      LOAD_SECONDS, sizes[VERDICT_PATH])  # fmt: skip
        form = wrk(portal_url + BARE_PATH, NO_COOKIE, f"{n}: look-up form", CONNECTIONS,
                   LOAD_SECONDS, sizes[BARE_PATH])  # fmt: skip
        runs += [verdict, form]
        ratios.append(verdict.throughput / form.throughput)
    return statistics.median(ratios), runs


def measure_nothing_kept(portal_url: str, sandbox_url: str) -> tuple[Timing, Timing]:
    """The verdict page of a portal that keeps nothing, and the service's download call alone,
    interleaved so that both see the same machine."""
    session = loopback_session()
    client = AssuranceClient(sandbox_url)
    credentials = BearerToken(client.login(*LOOKUP_ACCOUNT).token)

    def page() -> None:
        response = session.get(portal_url + VERDICT_PATH, timeout=REQUEST_TIMEOUT)
        if response.status_code != 200:
            raise RuntimeError(f"The verdict page answered {response.status_code}")

    def call() -> None:
        client.passport(credentials, SHORT_CODE)

    pages, calls = [], []
    for n in range(COLD_WARMUP + COLD_REQUESTS):
        timed_page, timed_call = time_calls(page, 1), time_calls(call, 1)
        if n >= COLD_WARMUP:
            pages += timed_page.samples
            calls += timed_call.samples
    return Timing(tuple(pages)), Timing(tuple(calls))


def known_codes(database: Path) -> list[str]:
    """INTAKE_CODES short codes of generate_large_data's passports, from the sandbox's database,
    as the portal writes them."""
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT short_code FROM sandbox_passport WHERE short_code != ? ORDER BY id LIMIT ?",
            [SHORT_CODE.replace("-", ""), INTAKE_CODES],
        ).fetchall()
    return [normalise(code) for (code,) in rows]


def measure_intake(portal_url: str, sandbox_url: str, codes: list[str]) -> list[Timing]:
    """The known `codes` checked at once at intake (the form sent, and its table fetched), one
    code's verdict page, on a portal that keeps nothing, and the service's calls for `codes`
    alone, INTAKE_CALLS_AT_ONCE at a time, interleaved."""
    session = loopback_session()
    client = AssuranceClient(sandbox_url)
    credentials = BearerToken(client.login(*LOOKUP_ACCOUNT).token)
    pool = ThreadPoolExecutor(INTAKE_CALLS_AT_ONCE)
    form = session.get(portal_url + INTAKE_PATH, timeout=REQUEST_TIMEOUT)
    data = {"csrfmiddlewaretoken": csrf_token(form.text), "codes": "\n".join(codes)}

    def check_all() -> None:
        response = session.post(portal_url + INTAKE_PATH, data=data, timeout=REQUEST_TIMEOUT)
        verdicts = response.text.count(f"{VERDICT_ROW}valid") + response.text.count(
            f"{VERDICT_ROW}not-valid"
        )
        if response.status_code != 200 or verdicts != len(codes):
            raise RuntimeError(f"/p/check answered {response.status_code}, {verdicts} verdicts")

    def look_up_one() -> None:
        response = session.get(portal_url + VERDICT_PATH, timeout=REQUEST_TIMEOUT)
        if response.status_code != 200:
            raise RuntimeError(f"The verdict page answered {response.status_code}")

    def calls_alone() -> None:
        list(pool.map(lambda code: client.passport(credentials, code), codes))

    samples: list[list[float]] = [[], [], []]
    with pool:
        for n in range(INTAKE_WARMUP + INTAKE_ROUNDS):
            timed = [time_calls(call, 1) for call in (check_all, look_up_one, calls_alone)]
            if n >= INTAKE_WARMUP:
                for kept, timing in zip(samples, timed, strict=True):
                    kept.extend(timing.samples)
    return [Timing(tuple(kept)) for kept in samples]


def main() -> None:
    heading("bench.lookup: checking a passport by its short code")
    require_wrk_and_redis(REDIS_URL)
    cache = redis.Redis.from_url(REDIS_URL)
    cache.flushdb()  # the benchmark's own database: nothing kept from an earlier run
    print(f"Machine before: {machine_load()}")
    with ExitStack() as stack:
        directory = Path(stack.enter_context(TemporaryDirectory(prefix="bench-lookup-")))
        sandbox = start_sandbox(directory, points=1, passports=INTAKE_CODES)
        stack.callback(servers.stop, sandbox.process)
        stack.callback(cache.flushdb)
        settings = {"ASSURANCE_BASE_URL": sandbox.url, "REDIS_URL": REDIS_URL,
                    "ASSURANCE_LOOKUP_USERNAME": LOOKUP_ACCOUNT[0],
                    "ASSURANCE_LOOKUP_PASSWORD": LOOKUP_ACCOUNT[1],
                    "PORTAL_LOOKUPS_PER_MINUTE": NO_LIMIT}  # fmt: skip
        portal = servers.start_portal(directory, **settings)
        stack.callback(portal.stop)
        sizes = {
            VERDICT_PATH: checked_page(portal.url + VERDICT_PATH, verdict=True),
            BARE_PATH: checked_page(portal.url + BARE_PATH, verdict=False),
        }
        ratio, runs = measure_kept(portal.url, sizes)

        (directory / "nothing-kept").mkdir()
        keeping_nothing = servers.start_portal(
            directory / "nothing-kept", DATABASE_URL=f"sqlite:///{directory / 'portal.sqlite3'}",
            PORTAL_LOOKUP_KEEP_SECONDS="0", **settings,
        )  # fmt: skip
        stack.callback(keeping_nothing.stop)
        checked_page(keeping_nothing.url + VERDICT_PATH, verdict=True)
        page, alone = measure_nothing_kept(keeping_nothing.url, sandbox.url)
        intake = measure_intake(keeping_nothing.url, sandbox.url, known_codes(sandbox.database))

    report(ratio, runs, page, alone, sizes[VERDICT_PATH], intake)


def report(ratio: float, runs: list[Load], page: Timing, alone: Timing, page_bytes: int,
           intake: list[Timing]) -> None:  # fmt: skip
    checked_at_once, one_code, calls_alone = intake
    print(
        f"\nUnder load: wrk, {CONNECTIONS} connections (a request each), {LOAD_SECONDS} s "
        f"each, the verdict page ({size(page_bytes)}) kept and the look-up form in turn:"
    )
    print_loads(runs)
    print(f"\nNothing kept, sequential, interleaved with the service's download call alone "
          f"({COLD_REQUESTS} each):")  # fmt: skip
    print_timings([("verdict page", page), ("service's call alone", alone)])
    print(f"\nIntake, nothing kept, sequential, interleaved ({INTAKE_ROUNDS} each):")
    print_timings([(f"{INTAKE_CODES} codes at once ({INTAKE_PATH})", checked_at_once),
                   ("one code's verdict page", one_code),
                   (f"the service's {INTAKE_CODES} calls alone, {INTAKE_CALLS_AT_ONCE} at once",
                    calls_alone)])  # fmt: skip
    print(f"The service's calls alone are {calls_alone.median / one_code.median:.1f} x one "
          "code's verdict page: the floor of the ratio on this machine.")  # fmt: skip
    print()
    print_targets([
        AtLeast(f"kept verdict / look-up form, throughput (median of {ROUNDS})", ratio,
                KEPT_RATIO, unit="x"),
        Target("verdict page - service's call, median", page.median - alone.median,
               COLD_EXTRA_MS, inclusive=True),
        Target(f"{INTAKE_CODES} codes at intake / one code's look-up, medians",
               checked_at_once.median / one_code.median, INTAKE_RATIO, unit="x", inclusive=True),
    ])  # fmt: skip
    print(f"Machine after: {machine_load()}")


if __name__ == "__main__":
    main()
