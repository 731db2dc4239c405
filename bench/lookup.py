"""Checking a passport by its short code: the verdict kept, and nothing kept; and a day's loads
checked at once at intake.

    python -m bench lookup

Starts, in one run and on loopback only, a sandbox of its own with its demo data (the demo
passport 7KXM4-QHT2W) and 50 more passports (generate_large_data's), and the portal under
gunicorn as `make run` starts it (2 workers x 4 threads), with a database of its own on
PostgreSQL (production's; as bench.common.databases makes it, SQLite in a temporary directory if
none answers) and Redis database 14 on 127.0.0.1:6379 as the shared cache (where verdicts are
kept). Every request comes from 127.0.0.1, so the portals run with PORTAL_LOOKUPS_PER_MINUTE out
of reach: each look-up is still counted (and recorded in the audit trail), but none refused. It
measures, each figure against its baseline in the same rounds, the two in turn and in the other
order every other round (bench.common.interleaved, loads_in_turn), and prints the median of the
rounds and their spread:

- kept: the verdict page with its verdict kept, against the look-up form (`/p/`: anonymous,
  the same layout, no look-up) under the same gunicorn, with `wrk` at 16 connections (a
  request each, as nginx sends them) for 4 s each, 15 rounds (their ratios spread from 0.26 to
  1.22 in one run: the figure needs its rounds). Each look-up keeps its guarantee: its row in
  the audit trail, counted after the rounds (at least one for each answer wrk saw). Target: the
  median of the rounds' ratios of the verdict's throughput to the form's is at least 0.4
  (issue 37: 0.41; issue 26: 0.78 before every look-up wrote its audit event).
- nothing kept: a second portal on the same database and cache that keeps no verdict
  (PORTAL_LOOKUP_KEEP_SECONDS=0), one request at a time, against the service's download call
  alone (the client's `passport` with the look-up account's bearer token, in this process), 30
  rounds. Target: the page adds at most 25 ms to the call's median.
- intake, nothing kept: on that second portal, 50 known codes checked at once (`/p/check`: the
  form sent, and the table it leads to), against what a person would otherwise do, the same 50
  looked up one by one through the look-up form (`/p/?code=...` as the form sends it, and the
  verdict page it leads to), and against the service's 50 download calls alone made as
  concurrently (8 at once, PORTAL_INTAKE_CALLS_AT_ONCE, from this process, with no portal at
  all), the three in turn, 15 rounds. Targets (issue 37): the median of the rounds' ratios at
  most 0.5 to the look-ups one by one, and at most 1.5 to the calls alone (1.44 in issue 37:
  one allowance for look-ups and the gate check, and every look-up in the audit trail, cost
  what they cost).

Every answer must be a 200 with the page: the first is checked for the valid verdict, every
intake table for a verdict on each code; under load, wrk must see no error, no answer but a
2xx, and at least the page's size each answer.
"""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, closing
from pathlib import Path
from tempfile import TemporaryDirectory

import psycopg
import redis

from bench.common import (
    REQUEST_TIMEOUT,
    AtLeast,
    Load,
    Ratios,
    Target,
    Timing,
    csrf_token,
    databases,
    heading,
    interleaved,
    loads_in_turn,
    loopback_session,
    machine_load,
    print_loads,
    print_targets,
    print_timings,
    require_wrk_and_redis,
    size,
    start_sandbox,
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
# The machine is shared: more rounds, shorter, steady the median better than a few long ones.
LOAD_SECONDS, LOAD_ROUNDS = 4, 15
COLD_REQUESTS, COLD_WARMUP = 30, 3
KEPT_RATIO, COLD_EXTRA_MS = 0.4, 25.0
VALID = "The assurance claim is valid now."
VERDICT_HEADING = "The assurance claim is"  # valid now, or not: a verdict was given
INTAKE_PATH = "/p/check"
INTAKE_CODES, INTAKE_ROUNDS, INTAKE_WARMUP = 50, 15, 2
INTAKE_RATIO, ONE_BY_ONE_RATIO = 1.5, 0.5
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


def measure_kept(portal_url: str, sizes: dict[str, int]) -> list[tuple[Load, Load]]:
    """The kept verdict's page and the look-up form under load, round by round."""
    return loads_in_turn(
        ("verdict, kept", portal_url + VERDICT_PATH, sizes[VERDICT_PATH]),
        ("look-up form", portal_url + BARE_PATH, sizes[BARE_PATH]),
        NO_COOKIE, connections=CONNECTIONS, seconds=LOAD_SECONDS, rounds=LOAD_ROUNDS,
    )  # fmt: skip


def look_up_events(database_url: str) -> int:
    """The look-ups in the portal's audit trail."""
    query = "SELECT count(*) FROM audit_event WHERE kind = 'look-up'"
    if database_url.startswith("sqlite:///"):
        with closing(sqlite3.connect(database_url.removeprefix("sqlite:///"))) as db:
            return db.execute(query).fetchone()[0]
    with psycopg.connect(database_url) as db:
        return db.execute(query).fetchone()[0]


def every_look_up_audited(kept: list[tuple[Load, Load]], audited: int) -> None:
    """Stops the benchmark if the kept verdict answered a look-up without its audit row."""
    looked_up = sum(verdict.requests for verdict, _ in kept)
    if audited < looked_up:
        raise RuntimeError(f"{looked_up:,} look-ups answered, {audited:,} in the audit trail")


def measure_nothing_kept(portal_url: str, sandbox_url: str) -> dict[str, Timing]:
    """The verdict page of a portal that keeps nothing, and the service's download call alone."""
    session = loopback_session()
    client = AssuranceClient(sandbox_url)
    credentials = BearerToken(client.login(*LOOKUP_ACCOUNT).token)

    def page() -> None:
        response = session.get(portal_url + VERDICT_PATH, timeout=REQUEST_TIMEOUT)
        if response.status_code != 200:
            raise RuntimeError(f"The verdict page answered {response.status_code}")

    def call() -> None:
        client.passport(credentials, SHORT_CODE)

    return interleaved({"page": page, "call": call}, COLD_REQUESTS, COLD_WARMUP)


def known_codes(database: Path) -> list[str]:
    """INTAKE_CODES short codes of generate_large_data's passports, from the sandbox's database,
    as the portal writes them."""
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT short_code FROM sandbox_passport WHERE short_code != ? ORDER BY id LIMIT ?",
            [SHORT_CODE.replace("-", ""), INTAKE_CODES],
        ).fetchall()
    return [normalise(code) for (code,) in rows]


def measure_intake(portal_url: str, sandbox_url: str, codes: list[str]) -> dict[str, Timing]:
    """The known `codes` checked at once at intake (the form sent, and its table fetched) on a
    portal that keeps nothing, and the service's calls for `codes` alone, INTAKE_CALLS_AT_ONCE
    at a time (each thread asking for the next code as soon as it is free)."""
    session = loopback_session()
    client = AssuranceClient(sandbox_url)
    credentials = BearerToken(client.login(*LOOKUP_ACCOUNT).token)
    form = session.get(portal_url + INTAKE_PATH, timeout=REQUEST_TIMEOUT)
    data = {"csrfmiddlewaretoken": csrf_token(form.text), "codes": "\n".join(codes)}

    def checked_at_intake() -> None:
        response = session.post(portal_url + INTAKE_PATH, data=data, timeout=REQUEST_TIMEOUT)
        verdicts = response.text.count(f"{VERDICT_ROW}valid") + response.text.count(
            f"{VERDICT_ROW}not-valid"
        )
        if response.status_code != 200 or verdicts != len(codes):
            raise RuntimeError(f"/p/check answered {response.status_code}, {verdicts} verdicts")

    def looked_up_one_by_one() -> None:
        for code in codes:
            verdict = session.get(portal_url + BARE_PATH, params={"code": code},
                                  timeout=REQUEST_TIMEOUT)  # fmt: skip
            if verdict.status_code != 200 or VERDICT_HEADING not in verdict.text:
                raise RuntimeError(f"Looking {code} up answered {verdict.status_code}")

    with ThreadPoolExecutor(INTAKE_CALLS_AT_ONCE) as pool:

        def calls_alone() -> None:
            list(pool.map(lambda code: client.passport(credentials, code), codes))

        steps = {"intake": checked_at_intake, "one by one": looked_up_one_by_one,
                 "calls alone": calls_alone}  # fmt: skip
        return interleaved(steps, INTAKE_ROUNDS, INTAKE_WARMUP)


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
        kind, urls = stack.enter_context(databases("lookup", ["portal"], directory))
        settings = {"ASSURANCE_BASE_URL": sandbox.url, "REDIS_URL": REDIS_URL,
                    "DATABASE_URL": urls["portal"],
                    "ASSURANCE_LOOKUP_USERNAME": LOOKUP_ACCOUNT[0],
                    "ASSURANCE_LOOKUP_PASSWORD": LOOKUP_ACCOUNT[1],
                    "PORTAL_LOOKUPS_PER_MINUTE": NO_LIMIT}  # fmt: skip
        portal = servers.start_portal(directory, **settings)
        stack.callback(portal.stop)
        sizes = {
            VERDICT_PATH: checked_page(portal.url + VERDICT_PATH, verdict=True),
            BARE_PATH: checked_page(portal.url + BARE_PATH, verdict=False),
        }
        events_before = look_up_events(urls["portal"])
        kept = measure_kept(portal.url, sizes)
        audited = look_up_events(urls["portal"]) - events_before
        every_look_up_audited(kept, audited)

        (directory / "nothing-kept").mkdir()
        keeping_nothing = servers.start_portal(
            directory / "nothing-kept", PORTAL_LOOKUP_KEEP_SECONDS="0", **settings
        )
        stack.callback(keeping_nothing.stop)
        checked_page(keeping_nothing.url + VERDICT_PATH, verdict=True)
        cold = measure_nothing_kept(keeping_nothing.url, sandbox.url)
        intake = measure_intake(keeping_nothing.url, sandbox.url, known_codes(sandbox.database))

    report(kind, kept, audited, cold, sizes[VERDICT_PATH], intake)


def report(kind: str, kept: list[tuple[Load, Load]], audited: int, cold: dict[str, Timing],
           page_bytes: int, intake: dict[str, Timing]) -> None:  # fmt: skip
    kept_ratios = Ratios.of([v.throughput for v, _ in kept], [f.throughput for _, f in kept])
    looked_up = sum(verdict.requests for verdict, _ in kept)
    intake_ratios = Ratios.of(intake["intake"].samples, intake["calls alone"].samples)
    one_by_one_ratios = Ratios.of(intake["intake"].samples, intake["one by one"].samples)
    print(f"\nThe portal's database: {kind}.")
    print(
        f"\nUnder load: wrk, {CONNECTIONS} connections (a request each), {LOAD_SECONDS} s "
        f"each, the verdict page ({size(page_bytes)}) kept and the look-up form in turn:"
    )
    print_loads([load for pair in kept for load in pair])
    print(f"Ratios of the kept verdict's throughput to the form's: {kept_ratios}.")
    print(f"The kept verdict answered {looked_up:,} look-ups under wrk; the audit trail has "
          f"{audited:,} more look-ups (the warm-up's with them).")  # fmt: skip
    print(f"\nNothing kept, one request at a time, in turn with the service's download call "
          f"alone ({COLD_REQUESTS} rounds):")  # fmt: skip
    print_timings([("verdict page", cold["page"]), ("service's call alone", cold["call"])])
    print(f"\nIntake, nothing kept, one check at a time, in turn ({INTAKE_ROUNDS} rounds):")
    print_timings([(f"{INTAKE_CODES} codes at once ({INTAKE_PATH}, and its table)",
                    intake["intake"]),
                   (f"the same {INTAKE_CODES} looked up one by one through the look-up form",
                    intake["one by one"]),
                   (f"the service's {INTAKE_CODES} calls alone, {INTAKE_CALLS_AT_ONCE} at once",
                    intake["calls alone"])])  # fmt: skip
    print(f"Ratios of the check to the look-ups one by one: {one_by_one_ratios}.")
    print(f"Ratios of the check to the calls alone: {intake_ratios}.")
    print()
    print_targets([
        AtLeast(f"kept verdict / look-up form, throughput (median of {LOAD_ROUNDS})",
                kept_ratios.median, KEPT_RATIO, unit="x"),
        Target("verdict page - service's call, median", cold["page"].median - cold["call"].median,
               COLD_EXTRA_MS, inclusive=True),
        Target(f"{INTAKE_CODES} codes at intake / looked up one by one (median of "
               f"{INTAKE_ROUNDS})", one_by_one_ratios.median, ONE_BY_ONE_RATIO, unit="x",
               inclusive=True),
        Target(f"{INTAKE_CODES} codes at intake / their calls alone (median of {INTAKE_ROUNDS})",
               intake_ratios.median, INTAKE_RATIO, unit="x", inclusive=True),
    ])  # fmt: skip
    print(f"Machine after: {machine_load()}")


if __name__ == "__main__":
    main()
