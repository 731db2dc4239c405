"""The page of a 300-point section: warm, cold and with the service stopped.

    python -m bench standards

Starts, in one run and on loopback only, a sandbox of its own with the large data (section
BM.BX of the benchmark scheme has 300 points) and the portal under gunicorn as `make run`
starts it (2 workers x 4 threads), with a database of its own on PostgreSQL (production's; as
bench.common.databases makes it, SQLite in a temporary directory if none answers) and Redis
database 15 on 127.0.0.1:6379 (the benchmark needs Redis: it is the shared cache that makes a
page warm or cold). It signs in as grower through the sign-in form, then measures, each figure
against its baseline in the same rounds, in turn and in the other order every other round
(bench.common.interleaved, loads_in_turn), and prints the median of the rounds and their
spread:

- warm: the section page against the home page (signed in, the same layout, no content) under
  the same gunicorn, with `wrk` at 16 connections (a request each, as nginx sends them) for
  4 s each, nine rounds. Target: the median of the rounds' ratios of the page's throughput to
  the home page's is at least 0.3 (the gap is the page's 670 KiB).
- cold: the section page with the standards cache emptied before each round (untimed), one
  request at a time, against the service's two answers a cold page waits for (the section's,
  and the scheme list's, whose scheme name is in the breadcrumbs) asked at once from this
  process (the client's `section_data` and `schemes` with a bearer token, in two threads: the
  calls and their decoding), and against Django's template engine rendering the section's
  template (its `content` part, as portal/standards/section_page.py renders it, with
  `section_context`) from the same records, decoded and arranged beforehand, in this process;
  25 rounds. Target: the page's time beyond both answers is at most 1.6 times the render's
  (the median of the rounds' ratios), so that what the portal does besides the render
  (decoding, sanitising, caching, the layout) stays small beside it. Printed too: each answer
  alone.
- stale: with the sandbox stopped, a second portal process on the same database and cache,
  whose standards are always stale (STANDARDS_FRESH_SECONDS=0), serves the kept copy with its
  notice. Target: its median under 20 ms (`wrk`, one connection).

Every answer must be a 200: the first is checked for the section's 300 points (and, when
stale, the notice), and the cold page for the render's HTML, verbatim; under load, wrk must
see no error, no answer but a 2xx, and at least the page's size in bytes for each answer.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory

import redis
import requests

from bench.common import (
    BENCH_POINTS,
    BENCH_PREFIX,
    BENCH_SECTOR,
    REQUEST_TIMEOUT,
    SCHEME_GUID,
    AtLeast,
    Load,
    Ratios,
    Target,
    Timing,
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
    running_sandbox,
    signed_in_cookie,
    size,
    wrk,
)
from portal.assurance.client import AssuranceClient, BearerToken
from scripts import servers

REDIS_URL = "redis://127.0.0.1:6379/15"
SECTION_PATH = f"/standards/{SCHEME_GUID}/{BENCH_SECTOR}/{BENCH_PREFIX}/"
BARE_PATH = "/"  # the home page: signed in, the same layout, no content of its own
CONNECTIONS = 16
# The home page alone swings by half between rounds here: the median of many short rounds.
LOAD_SECONDS, WARM_ROUNDS = 4, 9
COLD_ROUNDS, COLD_WARMUP = 25, 2
STALE_SECONDS = 3
WARM_RATIO, COLD_RATIO, STALE_MEDIAN_MS = 0.3, 1.6, 20.0
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


def measure_warm(portal_url: str, cookie: str, sizes: dict[str, int]) -> list[tuple[Load, Load]]:
    """The section page and the home page under load, round by round; `sizes` holds each
    page's size."""
    return loads_in_turn(
        ("section page", portal_url + SECTION_PATH, sizes[SECTION_PATH]),
        ("home page", portal_url + BARE_PATH, sizes[BARE_PATH]),
        cookie, connections=CONNECTIONS, seconds=LOAD_SECONDS, rounds=WARM_ROUNDS,
    )  # fmt: skip


# --- cold -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cold:
    """The cold page, the service's two answers at once and each alone, and the template's
    render, round by round."""

    page: Timing
    answers: Timing  # the section's and the scheme list's, asked at once
    section: Timing
    scheme_list: Timing
    render: Timing

    @property
    def beyond_answers(self) -> Ratios:
        """The page's time beyond both answers, against the render's, round by round."""
        return Ratios(tuple(
            (page - answers) / render
            for page, answers, render in zip(self.page.samples, self.answers.samples,
                                             self.render.samples, strict=True)
        ))  # fmt: skip


def forget_standards(cache: redis.Redis) -> None:
    """Empties the standards cache (the service's answers and the points made from them), and
    any outage remembered, but keeps sessions and users: what is cold is the section."""
    for pattern in ("*:standards:*", "*:template.cache.*", "*:assurance:outage"):
        keys = list(cache.scan_iter(match=pattern, count=1000))
        if keys:
            cache.delete(*keys)


def setup_django(database: Path) -> None:
    """Django in this process with the portal's settings (its own SQLite file, never used:
    rendering a template asks no database), for the render alone."""
    os.environ.update(DJANGO_SETTINGS_MODULE="portal.settings", REDIS_URL=REDIS_URL,
                      DATABASE_URL=f"sqlite:///{database}", PORTAL_LOG_LEVEL="WARNING")  # fmt: skip
    import django

    django.setup()


def section_render(client: AssuranceClient, credentials: BearerToken) -> Callable[[], str]:
    """Renders the section's template as the cold page does (its `content` part, with the
    context portal/standards/section_page.py makes), from the section's records as the client
    decodes them, arranged (their HTML sanitised) beforehand: the engine's time alone."""
    from django.template.loader import render_to_string

    from portal.standards.addresses import LIVE
    from portal.standards.filters import Filters
    from portal.standards.section_page import SECTION_TEMPLATE, SectionListing, section_context

    record = client.section_data(credentials, SCHEME_GUID, BENCH_PREFIX, sector=BENCH_SECTOR)
    schemes = client.schemes(credentials).items
    name = next((s.scheme_name for s in schemes if s.scheme_guid == SCHEME_GUID), None)
    listing = SectionListing.of(record, Filters())  # the page's address has no filter
    if len(listing.points) != BENCH_POINTS:  # arranged now, not in the render
        raise RuntimeError(f"The section has {len(listing.points)} points, not {BENCH_POINTS}")
    context = section_context(LIVE, SCHEME_GUID, name, listing)
    return lambda: render_to_string(f"{SECTION_TEMPLATE}#content", context)


def measure_cold(portal_url: str, cookie: str, sandbox_url: str, token: str) -> Cold:
    """The page with the standards cache emptied before each round, the service's answers and
    the template's render, in turn so that all see the same machine."""
    cache = redis.Redis.from_url(REDIS_URL)
    session = loopback_session()
    session.headers["Cookie"] = cookie
    client = AssuranceClient(sandbox_url)
    credentials = BearerToken(token)
    render = section_render(client, credentials)
    served: list[requests.Response] = []

    def page() -> None:
        response = session.get(portal_url + SECTION_PATH, timeout=REQUEST_TIMEOUT)
        if response.status_code != 200:
            raise RuntimeError(f"The cold page answered {response.status_code}")
        served[:] = [response]

    def section() -> object:
        return client.section_data(credentials, SCHEME_GUID, BENCH_PREFIX, sector=BENCH_SECTOR)

    def scheme_list() -> object:
        return client.schemes(credentials)

    with ThreadPoolExecutor(2) as pool:

        def answers_at_once() -> None:
            for answer in [pool.submit(section), pool.submit(scheme_list)]:
                answer.result()

        steps = {"page": page, "answers": answers_at_once, "section": section,
                 "scheme_list": scheme_list, "render": render}  # fmt: skip
        timed = interleaved(steps, COLD_ROUNDS, COLD_WARMUP, lambda: forget_standards(cache))
    forget_standards(cache)
    if render() not in served[0].text:
        raise RuntimeError("The cold page does not hold the template's render verbatim")
    return Cold(**timed)


# --- the benchmark --------------------------------------------------------------------------------


def main() -> None:
    heading("bench.standards: the page of a 300-point section")
    require_wrk_and_redis(REDIS_URL)
    print(f"Machine before: {machine_load()}")
    with ExitStack() as stack:
        directory = Path(stack.enter_context(TemporaryDirectory(prefix="bench-standards-")))
        sandbox = stack.enter_context(running_sandbox())
        kind, urls = stack.enter_context(databases("standards", ["portal"], directory))
        settings = {"ASSURANCE_BASE_URL": sandbox.url, "REDIS_URL": REDIS_URL,
                    "DATABASE_URL": urls["portal"]}  # fmt: skip
        portal = servers.start_portal(directory, **settings)
        stack.callback(portal.stop)
        cookie = signed_in_cookie(portal.url)
        page_bytes = checked_page(portal.url + SECTION_PATH, cookie)
        sizes = {SECTION_PATH: page_bytes, BARE_PATH: page_size(portal.url + BARE_PATH, cookie)}

        warm = measure_warm(portal.url, cookie, sizes)
        setup_django(directory / "bench.sqlite3")
        cold = measure_cold(portal.url, cookie, sandbox.url, sandbox.token())

        checked_page(portal.url + SECTION_PATH, cookie)  # kept again, for the stale page
        servers.stop(sandbox.process)
        (directory / "stale").mkdir()
        stale_portal = servers.start_portal(
            directory / "stale", STANDARDS_FRESH_SECONDS="0", **settings
        )
        stack.callback(stale_portal.stop)
        checked_page(stale_portal.url + SECTION_PATH, cookie, stale=True)
        stale = wrk(stale_portal.url + SECTION_PATH, cookie, "section page, stale, sandbox "
                    "stopped", 1, STALE_SECONDS, page_bytes)  # fmt: skip

    report(kind, warm, cold, stale, page_bytes)


def report(
    kind: str, warm: list[tuple[Load, Load]], cold: Cold, stale: Load, page_bytes: int
) -> None:
    warm_ratios = Ratios.of([p.throughput for p, _ in warm], [h.throughput for _, h in warm])
    beyond = cold.beyond_answers
    print(f"\nThe portal's database: {kind}.")
    print(f"\nUnder load: wrk, {CONNECTIONS} connections (a request each), {LOAD_SECONDS} s "
          f"each, the section page ({size(page_bytes)}) and the home page in turn:")  # fmt: skip
    print_loads([*(load for pair in warm for load in pair), stale])
    print(f"Ratios of the section page's throughput to the home page's: {warm_ratios}.")
    print(f"\nCold page, one request at a time, the standards cache emptied before each "
          f"(untimed), in turn with the service's answers and the section template's render in "
          f"this process ({COLD_ROUNDS} rounds):")  # fmt: skip
    print_timings([("cold page", cold.page),
                   ("service's two answers, at once", cold.answers),
                   ("the section's answer alone", cold.section),
                   ("the scheme list's answer alone", cold.scheme_list),
                   ("template's render alone", cold.render)])  # fmt: skip
    print(f"The cold page beyond both answers, against the render: {beyond}.")
    print()
    print_targets([
        AtLeast(f"warm page / home page, throughput (median of {WARM_ROUNDS})",
                warm_ratios.median, WARM_RATIO, unit="x"),
        Target(f"cold page beyond both answers / render (median of {COLD_ROUNDS})",
               beyond.median, COLD_RATIO, unit="x", inclusive=True),
        Target("stale page, sandbox stopped, median", stale.median_ms, STALE_MEDIAN_MS),
    ])  # fmt: skip
    print(f"Machine after: {machine_load()}")


if __name__ == "__main__":
    main()
