"""The staff dashboard: what recording costs the pages users see, and the dashboard's time with a
million recorded calls to the service against with a thousand.

    python -m bench dashboard

Starts, on loopback only, a sandbox of its own (its demo data) and portals under gunicorn as
`make run` starts them (2 workers x 4 threads), with Redis database 15 on 127.0.0.1:6379 and
their databases on PostgreSQL at 127.0.0.1:5432 (user postgres; BENCH_POSTGRES_URL names
another server), production's database, each a database of the benchmark's own made and dropped
here (`bench_dashboard_<pid>_<name>`); with no PostgreSQL answering, SQLite files in a temporary
directory, as the report says. It signs in as grower through the sign-in form, then measures:

- recording: two portals on the same sandbox, a database each, one of them with
  PORTAL_METRICS_RECORDING=false, under `wrk` at 16 connections (a request each, as nginx sends
  them): a section page of the demo's standards, warm (no call to the service; recording counts
  the request and the cache's hit), the signed-in home page, and the memberships page (a call
  to the service each request, `authorisation`, which recording adds to its minute's row), each
  page on the two portals in turn, the order swapped every round, for five rounds. Target: the
  median of the rounds' ratios of the warm section page's throughput with recording to without
  is at least 0.95. The other two pages' ratios are printed beside it.
- scaling: two portals whose databases hold what the portal records as it works, written here
  as recording, the audit trail and the jobs leave it: a million calls to the service spread
  over the minutes of PORTAL_METRICS_DAYS (30), eight operations and 16 writers (a row a
  minute, an operation and a writer, with its count, failures and bands of time; 0.5% failed,
  each with its error row), 300,000 audit events over 90 days, 20,000 jobs over the last week,
  and the counts by five minutes the dashboard reads from the cache over two days; then the sweep's
  folding of the minutes' rows of hours two hours old into a row an hour; against a
  thousand calls with the rest in proportion. grower is staff in both. /staff/, signed in, one
  request at a time, the two portals in turn (the order swapped every round) for 10 rounds of
  3. Target: the dashboard's median time with a million calls is at most 2 times its median
  with a thousand.

Every answer must be the page: wrk must see no error, no answer but a 2xx and at least the
page's size in bytes for each answer, and the dashboard must answer 200 with its heading.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import dj_database_url
import redis

from bench.common import (
    DEMO_USER,
    REQUEST_TIMEOUT,
    ROOT,
    AtLeast,
    Load,
    Target,
    Timing,
    databases,
    heading,
    loopback_session,
    machine_load,
    ms,
    print_loads,
    print_targets,
    print_timings,
    require_wrk_and_redis,
    signed_in_cookie,
    size,
    time_calls,
    wrk,
)
from portal.lib.env import database_label
from sandbox.ids import guid_for
from scripts import servers

REDIS_URL = "redis://127.0.0.1:6379/15"

# Recording's cost: wrk on each page of a portal with recording and one without, in turn.
# The target's page: a section of the demo's standards, warm (kept in the shared cache: no call to
# the service, recording counts the request and a hit of the cache); the home page (the same
# layout, no content) and the memberships page (a call to the service each request, which
# recording adds to its minute's row) printed beside it.
SECTION_PATH = f"/standards/{guid_for('scheme:crops')}/CR/CP/"
HOME_PATH, MEMBERSHIPS_PATH = "/", "/memberships/"
RECORDING_PATHS = (SECTION_PATH, HOME_PATH, MEMBERSHIPS_PATH)
CONNECTIONS, LOAD_SECONDS, LOAD_ROUNDS = 16, 4, 5
RECORDING_RATIO = 0.95

# The dashboard's time with a million calls recorded against with a thousand.
DASHBOARD_PATH = "/staff/"
DASHBOARD_HEADING = "<h1>Staff dashboard</h1>"
MANY, FEW = 1_000_000, 1_000
DASHBOARD_ROUNDS, DASHBOARD_REQUESTS, DASHBOARD_WARMUP = 10, 3, 3
SCALING_RATIO = 2.0
FILL_SECONDS = 500  # for a database to be filled with a million calls' records

# What a portal with `calls` calls to the service in PORTAL_METRICS_DAYS leaves behind, besides
# the calls' rows: shares of the calls.
METRICS_DAYS = 30  # settings.PORTAL_METRICS_DAYS's default, over which the calls are spread
WRITERS = 16  # threads of processes that record calls: 2 machines x 2 workers x 4 threads
OPERATIONS = {  # the client's operations, by how often a portal calls them
    "section_data": 30, "authorisation": 20, "sections": 10, "schemes": 8, "login": 10,
    "create_passport": 8, "create_passport_pdf": 8, "passport": 6,
}  # fmt: skip
BAND_SHARES = (40, 30, 18, 7, 3, 1.5, 0.4, 0.1)  # of the calls, in call_bands.BANDS_MS's bands
ERROR_SHARE = 0.005
EVENTS_PER_CALL, AUDIT_DAYS = 0.3, 90  # the trail is kept PORTAL_AUDIT_DAYS (365)
EVENT_SHARES = {  # audit events by kind
    "sign-in": 12, "sign-out": 5, "sign-in-failed": 3, "lockout-met": 0.2,
    "passport-created": 30, "pdf-downloaded": 20, "look-up": 22, "look-up-limited": 0.5,
    "intake-check": 3, "mail-sent": 1, "export-requested": 1.9, "export-downloaded": 1.9,
}  # fmt: skip
BATCH_SHARE = 0.3  # of the passports created, made in batches
JOBS_PER_CALL, JOB_DAYS = 0.02, 7  # ended jobs are kept PORTAL_JOB_RESULT_DAYS (7)
JOB_SHARES = {"passport-pdf": 85, "passport-batch": 5, "passport-export": 4, "passport-mail": 3,
              "scheme-export-csv": 3}  # fmt: skip
CALLS_PER_USER = 2_000  # users who sign in: 500 for a million calls
REQUESTS_PER_CALL, COUNT_DAYS = 2, 2  # the cache's counts by five minutes, kept two days


# --- databases ------------------------------------------------------------------------------------


def forget_cached(urls: list[str]) -> None:
    """Removes what portals on these databases kept in the cache: their keys begin with the
    database's label (portal/settings.py's KEY_PREFIX)."""
    cache = redis.Redis.from_url(REDIS_URL)
    for url in urls:
        keys = list(cache.scan_iter(match=f"portal.{database_label(dj_database_url.parse(url))}:*",
                                    count=1000))  # fmt: skip
        for start in range(0, len(keys), 1000):
            cache.delete(*keys[start : start + 1000])


def start_portal(
    stack: ExitStack, directory: Path, database: str, sandbox_url: str, **settings: str
) -> servers.Server:
    """A portal on `database` (migrated), stopped with `stack`."""
    directory.mkdir()
    portal = servers.start_portal(directory, DATABASE_URL=database, ASSURANCE_BASE_URL=sandbox_url,
                                  REDIS_URL=REDIS_URL, PORTAL_LOG_LEVEL="WARNING",
                                  **settings)  # fmt: skip
    stack.callback(portal.stop)
    return portal


def page_size(url: str, cookie: str, *, holding: str = "") -> int:
    """The page's size in bytes, once checked to be a 200 (holding `holding`)."""
    response = loopback_session().get(url, headers={"Cookie": cookie}, allow_redirects=False,
                                      timeout=REQUEST_TIMEOUT)  # fmt: skip
    if response.status_code != 200 or holding not in response.text:
        raise RuntimeError(f"{url} answered {response.status_code}: {response.text[:300]}")
    return len(response.content)


# --- recording's cost -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Recording:
    """Each page's loads with recording and without, round by round."""

    loads: dict[str, list[tuple[Load, Load]]]  # by page: (with, without) each round

    def ratio(self, path: str) -> float:
        """The median of the rounds' ratios of the throughput with recording to without."""
        return statistics.median(on.throughput / off.throughput for on, off in self.loads[path])


def measure_recording(with_url: str, without_url: str, cookies: dict[str, str]) -> Recording:
    """wrk on each page of the portal with recording (`with_url`) and the one without, in turn,
    the order swapped every round; `cookies` by portal address."""
    pairs = [(url, path) for url in (with_url, without_url) for path in RECORDING_PATHS]
    sizes = {(url, path): page_size(url + path, cookies[url]) for url, path in pairs}
    for (url, path), least in sizes.items():  # untimed: workers warm, connections open
        wrk(url + path, cookies[url], "warm-up", CONNECTIONS, 1, least)
    loads: dict[str, list[tuple[Load, Load]]] = {path: [] for path in RECORDING_PATHS}
    for n in range(1, LOAD_ROUNDS + 1):
        for path in RECORDING_PATHS:
            turns = [(with_url, "with"), (without_url, "without")]
            found = {}
            for url, label in turns if n % 2 else reversed(turns):
                found[label] = wrk(url + path, cookies[url], f"{n}: {path}, recording {label}",
                                   CONNECTIONS, LOAD_SECONDS, sizes[url, path])  # fmt: skip
            loads[path].append((found["with"], found["without"]))
    return Recording(loads)


# --- the dashboard's scaling ----------------------------------------------------------------------


def fill_database(database: str, calls: int, log: Path) -> float:
    """Fills the portal's `database` (migrated) with `calls` calls' records, in a process of
    its own with the portal's settings for it; the seconds it took."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "portal.settings", "DATABASE_URL": database,
           "REDIS_URL": REDIS_URL, "PORTAL_LOG_LEVEL": "WARNING"}  # fmt: skip
    started = time.perf_counter()
    with log.open("w") as output:
        result = subprocess.run(
            [sys.executable, "-c", "import sys; from bench.dashboard import fill; "
             "fill(int(sys.argv[1]))", str(calls)],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, timeout=FILL_SECONDS,
            check=False,
        )  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"Filling {database} failed:\n{log.read_text()[-4000:]}")
    return time.perf_counter() - started


def fill(calls: int) -> None:
    """Writes to the portal's database (DATABASE_URL, migrated) and cache what the portal leaves
    after `calls` calls to the service over PORTAL_METRICS_DAYS, with the audit trail, jobs and
    counts in proportion, and makes grower staff. Random, but the same for the same `calls`."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from portal.operations import recording

    call_command("migrate", verbosity=0)

    rng = random.Random(calls)
    now = datetime.now().astimezone()
    users = _users(max(3, calls // CALLS_PER_USER))
    _service_calls(rng, calls, now)
    _events(rng, round(calls * EVENTS_PER_CALL), now, users)
    _jobs(rng, round(calls * JOBS_PER_CALL), now, users)
    _counts(rng, calls, now)
    recording.fold()  # as the periodic sweep leaves the hours two hours old
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # as autovacuum would have by the time staff look
    print(f"Filled with {calls:,} calls' records for {len(users)} users.")


def _users(count: int) -> list:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from portal.accounts.session import portal_user

    staff = portal_user(DEMO_USER)
    staff.is_staff = True
    staff.save()
    model = get_user_model()
    model.objects.bulk_create(
        [model(username=f"grower-{n}", password=make_password(None)) for n in range(count)],
        batch_size=1_000,
    )
    return list(model.objects.all())


def _service_calls(rng: random.Random, calls: int, now: datetime) -> None:
    """The calls' rows as recording leaves them: each call in a minute of the days kept, of an
    operation and by a writer (a thread of a process of a machine), added to that row; each
    failed call's error row too. Written in the order recording makes them, minute by minute,
    so that a day's rows lie together in the table as they would."""
    from portal.operations.call_bands import BAND_FIELDS
    from portal.operations.models import ServiceCalls, ServiceError

    minutes = METRICS_DAYS * 24 * 60
    first = now.replace(second=0, microsecond=0) - timedelta(minutes=minutes - 1)
    operations = list(OPERATIONS)
    picked = zip(
        (rng.randrange(minutes) for _ in range(calls)),
        rng.choices(range(len(operations)), list(OPERATIONS.values()), k=calls),
        (rng.randrange(WRITERS) for _ in range(calls)),
        rng.choices(BAND_FIELDS, BAND_SHARES, k=calls),
        strict=True,
    )
    rows: dict[tuple[int, int, int], Counter] = {}
    errors = []
    for minute, operation, writer, band in picked:
        row = rows.setdefault((minute, operation, writer), Counter())
        row["calls"] += 1
        row[band] += 1
        if rng.random() < ERROR_SHARE:
            row["errors"] += 1
            at = first + timedelta(minutes=minute, seconds=rng.uniform(0, 60))
            status = rng.choice((None, 502, 503))
            outcome = "unavailable" if status is None else "server_error"
            errors.append(ServiceError(at=at, operation=operations[operation], status=status,
                                       outcome=outcome))  # fmt: skip
    ServiceCalls.objects.bulk_create(
        (ServiceCalls(minute=first + timedelta(minutes=minute), operation=operations[operation],
                      writer=f"portal-{writer // 8}:{4000 + writer // 4}:{11_000 + writer}",
                      **counts)
         for (minute, operation, writer), counts in sorted(rows.items())),
        batch_size=5_000,
    )  # fmt: skip
    ServiceError.objects.bulk_create(sorted(errors, key=lambda e: e.at), batch_size=5_000)
    print(f"{len(rows):,} rows of calls, {len(errors):,} errors")


def _events(rng: random.Random, count: int, now: datetime, users: list) -> None:
    """The audit trail: `count` events over AUDIT_DAYS, by users among `users` (look-ups by
    visitors without an account)."""
    from portal.audit.models import Event

    kinds = rng.choices(list(EVENT_SHARES), list(EVENT_SHARES.values()), k=count)
    events = []
    for kind in kinds:
        user = None if kind in ("look-up", "look-up-limited") else rng.choice(users)
        detail: dict[str, object] = {}
        if kind in ("passport-created", "pdf-downloaded", "look-up"):
            detail["code"] = f"{rng.getrandbits(128):032x}"
        if kind == "passport-created" and rng.random() < BATCH_SHARE:
            batch = uuid.UUID(int=rng.getrandbits(128))
            detail.update(batch=str(batch), position=rng.randrange(50))
        events.append(Event(
            kind=kind, at=now - timedelta(seconds=rng.uniform(0, AUDIT_DAYS * 86_400)), user=user,
            username=user.username if user else "",
            client_address=f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}",
            request_id=f"{rng.getrandbits(128):032x}", detail=detail,
        ))  # fmt: skip
    Event.objects.bulk_create(sorted(events, key=lambda e: e.at), batch_size=5_000)
    print(f"{count:,} audit events")


def _jobs(rng: random.Random, count: int, now: datetime, users: list) -> None:
    """`count` jobs made over the last JOB_DAYS: ended, but for a few failed and those of the
    last minutes, still waiting or running."""
    from portal.jobs.models import Job

    jobs = []
    for kind in rng.choices(list(JOB_SHARES), list(JOB_SHARES.values()), k=count):
        created = now - timedelta(seconds=rng.uniform(0, JOB_DAYS * 86_400))
        age = now - created
        if age < timedelta(seconds=30):
            state, finished = rng.choice((Job.State.QUEUED, Job.State.RUNNING)), None
        else:
            state = Job.State.FAILED if rng.random() < 0.02 else Job.State.DONE
            finished = created + timedelta(seconds=rng.uniform(1, 30))
        jobs.append(Job(kind=kind, owner=rng.choice(users), title=f"A {kind} job", state=state,
                        done=1, total=1, created=created, touched=finished or created,
                        started=created if state != Job.State.QUEUED else None,
                        finished=finished))  # fmt: skip
    with _times_as_given(Job, "created", "touched"):
        Job.objects.bulk_create(sorted(jobs, key=lambda j: j.created), batch_size=5_000)
    print(f"{count:,} jobs")


@contextmanager
def _times_as_given(model: type, *names: str) -> Iterator[None]:
    """The model's `auto_now_add` fields take the times given, in this (throwaway) process."""
    fields = [model._meta.get_field(name) for name in names]
    for field in fields:
        field.auto_now_add = False
    try:
        yield
    finally:
        for field in fields:
            field.auto_now_add = True


def _counts(rng: random.Random, calls: int, now: datetime) -> None:
    """The counts by five minutes the dashboard reads from the cache
    (portal/operations/counting.py), over the COUNT_DAYS they are kept, in proportion to the
    calls."""
    from django.core.cache import cache

    from portal.operations import counting

    slots = COUNT_DAYS * 24 * 3600 // counting.SLOT_SECONDS
    last = counting.slot_of(now.timestamp())
    requests = round(calls * REQUESTS_PER_CALL * COUNT_DAYS / METRICS_DAYS)
    shares = {counting.OTHER_REQUESTS: 0.6, counting.REQUESTS_FAILED: 0.001,
              counting.STANDARDS_PAGES: 0.4, counting.STANDARDS_PAGES_ASKED: 0.02}  # fmt: skip
    for name, share in shares.items():
        by_slot = Counter(last - rng.randrange(slots) for _ in range(round(requests * share)))
        cache.set_many({counting.key_of(name, slot): n for slot, n in by_slot.items()},
                       counting.KEEP_SECONDS)  # fmt: skip


def measure_dashboards(urls: dict[str, str], cookies: dict[str, str]) -> dict[str, Timing]:
    """/staff/ of each portal (`urls` by label), one request at a time, the portals in turn,
    the order swapped every round; the times by label."""
    sessions = {}
    for label, url in urls.items():
        sessions[label] = loopback_session()
        sessions[label].headers["Cookie"] = cookies[url]

    def dashboard(label: str) -> None:
        response = sessions[label].get(urls[label] + DASHBOARD_PATH, timeout=REQUEST_TIMEOUT,
                                       allow_redirects=False)  # fmt: skip
        if response.status_code != 200 or DASHBOARD_HEADING not in response.text:
            raise RuntimeError(f"The dashboard answered {response.status_code}")

    for label in urls:  # untimed: each portal's workers warm
        time_calls(lambda label=label: dashboard(label), 0, warmup=DASHBOARD_WARMUP)
    samples: dict[str, list[float]] = {label: [] for label in urls}
    for n in range(DASHBOARD_ROUNDS):
        for label in list(urls) if n % 2 == 0 else reversed(list(urls)):
            samples[label] += time_calls(lambda label=label: dashboard(label),
                                         DASHBOARD_REQUESTS).samples  # fmt: skip
    return {label: Timing(tuple(taken)) for label, taken in samples.items()}


# --- the benchmark --------------------------------------------------------------------------------


def main() -> None:
    heading("bench.dashboard: recording's cost, and the staff dashboard with a million calls")
    require_wrk_and_redis(REDIS_URL)
    print(f"Machine before: {machine_load()}")
    many, few = f"{MANY:,} calls", f"{FEW:,} calls"
    with ExitStack() as stack:
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-dash-")))
        kind, urls = stack.enter_context(
            databases("dashboard", ["recording", "not_recording", "many", "few"], directory)
        )
        stack.callback(forget_cached, list(urls.values()))
        sandbox = servers.start_sandbox(directory)
        stack.callback(sandbox.stop)

        with ExitStack() as portals:
            recording = start_portal(portals, directory / "recording", urls["recording"],
                                     sandbox.url)  # fmt: skip
            not_recording = start_portal(portals, directory / "not-recording",
                                         urls["not_recording"], sandbox.url,
                                         PORTAL_METRICS_RECORDING="false")  # fmt: skip
            cookies = {p.url: signed_in_cookie(p.url) for p in (recording, not_recording)}
            found = measure_recording(recording.url, not_recording.url, cookies)

        filled = {label: fill_database(urls[name], calls, directory / f"fill-{name}.log")
                  for label, name, calls in ((many, "many", MANY), (few, "few", FEW))}  # fmt: skip
        portals = {label: start_portal(stack, directory / name, urls[name], sandbox.url)
                   for label, name in ((many, "many"), (few, "few"))}  # fmt: skip
        cookies = {p.url: signed_in_cookie(p.url) for p in portals.values()}
        sizes = {label: page_size(p.url + DASHBOARD_PATH, cookies[p.url],
                                  holding=DASHBOARD_HEADING)
                 for label, p in portals.items()}  # fmt: skip
        times = measure_dashboards({label: p.url for label, p in portals.items()}, cookies)
        fills = {label: (directory / f"fill-{name}.log").read_text().strip()
                 for label, name in ((many, "many"), (few, "few"))}  # fmt: skip

    report(kind, found, filled, fills, sizes, times, many, few)


def report(
    kind: str,
    found: Recording,
    filled: dict[str, float],
    fills: dict[str, str],
    sizes: dict[str, int],
    times: dict[str, Timing],
    many: str,
    few: str,
) -> None:
    print(f"\nThe portals' databases: {kind}.")
    print(f"\nRecording: wrk, {CONNECTIONS} connections (a request each), {LOAD_SECONDS} s each, "
          f"each page on the portal with recording and the one without in turn:")  # fmt: skip
    print_loads([load for pairs in found.loads.values() for pair in pairs for load in pair])
    print(f"Medians of the rounds' ratios, with recording / without: the section page (warm) "
          f"{found.ratio(SECTION_PATH):.2f}, home page {found.ratio(HOME_PATH):.2f}, "
          f"memberships page (a call to the service each) {found.ratio(MEMBERSHIPS_PATH):.2f}."
          )  # fmt: skip
    print("\nThe dashboard's databases, filled:")
    for label in (many, few):
        print(f"- {label} ({filled[label]:.0f} s): {'; '.join(fills[label].splitlines())}")
    print(f"\nThe dashboard ({size(sizes[many])} with {many}, {size(sizes[few])} with {few}), "
          f"signed in as staff, one request at a time, {DASHBOARD_ROUNDS} rounds of "
          f"{DASHBOARD_REQUESTS} on each portal in turn:")  # fmt: skip
    print_timings([(f"dashboard, {many}", times[many]), (f"dashboard, {few}", times[few])])
    ratio = times[many].median / times[few].median
    print(f"With {many} it takes {ms(times[many].median - times[few].median)} more, "
          f"{ratio:.2f} times as long.")  # fmt: skip
    print()
    print_targets([
        AtLeast(f"warm section page, recording / not, throughput (median of {LOAD_ROUNDS})",
                found.ratio(SECTION_PATH), RECORDING_RATIO, unit="x"),
        Target(f"dashboard, {many} / {few}, medians", ratio, SCALING_RATIO, unit="x",
               inclusive=True),
    ])  # fmt: skip
    print(f"Machine after: {machine_load()}")


if __name__ == "__main__":
    main()
