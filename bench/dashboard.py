"""The staff dashboard: what recording costs the pages users see, and the dashboard's time with ten
million recorded calls to the service against with ten thousand.

    python -m bench dashboard

Starts, on loopback only, sandboxes of its own (their demo data) and portals under gunicorn as
`make run` starts them (2 workers x 4 threads), with Redis database 15 on 127.0.0.1:6379 and
their databases on PostgreSQL at 127.0.0.1:5432 (user postgres; BENCH_POSTGRES_URL names
another server), production's database, each a database of the benchmark's own made and dropped
here (`bench_dashboard_<pid>_<name>`). It signs in as grower through the sign-in form, then
measures:

- recording: two portals, each with a database and a sandbox of its own, one of them with
  PORTAL_METRICS_RECORDING=false, each under its own `wrk` at 16 connections (a request each,
  as nginx sends them), both at once, so that whatever else the machine runs weighs on both
  alike (one after the other, their throughputs swung by half from run to run here): a section
  page of the demo's standards, warm (no call to the service; recording counts the request in
  the cache), the signed-in home page, and the memberships page (a call to the service each
  request, `authorisation`, which recording adds to its minute's row), for LOAD_ROUNDS rounds
  (the target's page: the others for fewer).
  For each load: the throughput wrk saw, and the processor time the portal's gunicorn workers
  spent a request (from /proc). Target: the median of the rounds' ratios of the warm section
  page's throughput with recording to without is at least 0.95. Each page's ratios are printed
  with their least and greatest, and the ratio of the processor time a request took without
  recording to with.
- scaling: two portals whose databases hold what the portal leaves as it works, after the
  periodic sweep: ten million calls to the service over PORTAL_METRICS_DAYS (30), eight
  operations, in a row an hour and operation for the hours the sweep has folded and in a row a
  minute, operation and writer (16 writers) for the last hours, each with its count, failures
  (0.5%) and bands of time, and the last errors; 3,000,000 audit events over 90 days, 200,000
  jobs over the last week, and the counts by five minutes the dashboard reads from the cache
  over two days; against ten thousand calls with the rest in proportion. The audit trail and
  the jobs are written by PostgreSQL itself (generate_series, in the order they were made), so
  that ten million calls' records take a minute or two, not the benchmark's ten. grower is
  staff in both. /staff/, signed in, one request at a time, the two portals in turn (the order
  swapped every round) for DASHBOARD_ROUNDS rounds of DASHBOARD_REQUESTS. Target: the
  dashboard's median time with ten million calls is at most 2 times its median with ten
  thousand; printed with the least and greatest of the rounds' ratios of medians.

Every answer must be the page: wrk must see no error, no answer but a 2xx and at least the
page's size in bytes for each answer, and the dashboard must answer 200 with its heading. The
scaling needs PostgreSQL: without it, the benchmark measures recording alone and says so.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import accumulate
from pathlib import Path

import dj_database_url
import redis

from bench.common import (
    DEMO_USER,
    REQUEST_TIMEOUT,
    ROOT,
    AtLeast,
    Load,
    NoAnswer,
    Target,
    Timing,
    databases,
    heading,
    loopback_session,
    machine_load,
    ms,
    print_loads,
    print_table,
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

# Recording's cost: wrk on each page of a portal with recording and one without, at once.
# The target's page: a section of the demo's standards, warm (kept in the shared cache: no call to
# the service, recording counts the request in the cache); the home page (the same layout, no
# content) and the memberships page (a call to the service each request, which recording adds
# to its minute's row) printed beside it.
SECTION_PATH = f"/standards/{guid_for('scheme:crops')}/CR/CP/"
HOME_PATH, MEMBERSHIPS_PATH = "/", "/memberships/"
CONNECTIONS, LOAD_SECONDS = 16, 4
LOAD_ROUNDS = {SECTION_PATH: 16, HOME_PATH: 6, MEMBERSHIPS_PATH: 6}  # by page
STALLED_TRIES = 3
RECORDING_RATIO = 0.95

# The dashboard's time with ten million calls recorded against with ten thousand.
DASHBOARD_PATH = "/staff/"
DASHBOARD_HEADING = "<h1>Staff dashboard</h1>"
MANY, FEW = 10_000_000, 10_000
DASHBOARD_ROUNDS, DASHBOARD_REQUESTS, DASHBOARD_WARMUP = 10, 3, 3
SCALING_RATIO = 2.0
FILL_SECONDS = 400  # for a database to be filled with ten million calls' records

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
VISITORS_KINDS = ("look-up", "look-up-limited")  # made by visitors without an account
CODE_KINDS = ("passport-created", "pdf-downloaded", "look-up")  # with a short code's hash
BATCH_SHARE = 0.3  # of the passports created, made in batches
JOBS_PER_CALL, JOB_DAYS = 0.02, 7  # ended jobs are kept PORTAL_JOB_RESULT_DAYS (7)
JOB_SHARES = {"passport-pdf": 85, "passport-batch": 5, "passport-export": 4, "passport-mail": 3,
              "scheme-export-csv": 3}  # fmt: skip
JOB_FAILED_SHARE = 0.02
CALLS_PER_USER = 2_000  # users who sign in: 5,000 for ten million calls
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


# --- the spread of ratios -------------------------------------------------------------------------


@dataclass(frozen=True)
class Spread:
    """Ratios measured round by round: their median, least and greatest."""

    ratios: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.ratios) if self.ratios else math.nan

    def __str__(self) -> str:
        if not self.ratios:
            return "no round"
        return f"{self.median:.2f} ({min(self.ratios):.2f}-{max(self.ratios):.2f})"


# --- recording's cost -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """One wrk run, with the processor time the portal's workers spent on it."""

    load: Load
    cpu_seconds: float

    @property
    def cpu_ms_a_request(self) -> float:
        return 1000 * self.cpu_seconds / self.load.requests


@dataclass(frozen=True)
class Recording:
    """Each page's runs with recording and without, round by round."""

    runs: dict[str, list[tuple[Measured, Measured]]]  # by page: (with, without) each round

    def throughput(self, path: str) -> Spread:
        """The rounds' ratios of the throughput with recording to without."""
        return Spread(tuple(on.load.throughput / off.load.throughput
                            for on, off in self.runs[path]))  # fmt: skip

    def processor(self, path: str) -> Spread:
        """The rounds' ratios of the processor time a request took without recording to with:
        the throughput the portal's processors allow, with recording to without."""
        return Spread(tuple(off.cpu_ms_a_request / on.cpu_ms_a_request
                            for on, off in self.runs[path]))  # fmt: skip


def workers_cpu_seconds(portal: servers.Server) -> float:
    """The processor time (user and system) the portal's gunicorn workers have spent so far:
    those running now, and those that ended (gunicorn replaces a worker after max_requests),
    which their master has counted since it reaped them."""
    master = portal.process.pid
    running = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    ticks = _ticks(master, children=True) + sum(_ticks(int(pid)) for pid in running)
    return ticks / os.sysconf("SC_CLK_TCK")


def _ticks(pid: int, *, children: bool = False) -> int:
    """A process's processor time in clock ticks, or (`children`) that of its children that
    ended."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:  # ended just now: its master counts it
        return 0
    first = 13 if children else 11  # cutime and cstime, or utime and stime
    return int(fields[first]) + int(fields[first + 1])


def measure_recording(portals: dict[str, servers.Server], cookies: dict[str, str]) -> Recording:
    """wrk on each page of the portal with recording and the one without (`portals` by "with"
    and "without") at once, so that what else the machine runs weighs on both alike, for
    LOAD_ROUNDS rounds each; `cookies` by portal address. A round in which a portal answered
    nothing at all (the machine, or a sandbox, stalled) is run again, and left out, saying so,
    after STALLED_TRIES."""
    pairs = [(portal, path) for portal in portals.values() for path in LOAD_ROUNDS]
    sizes = {(p.url, path): page_size(p.url + path, cookies[p.url]) for p, path in pairs}
    for (url, path), least in sizes.items():  # untimed: workers warm, connections open
        wrk(url + path, cookies[url], "warm-up", CONNECTIONS, 1, least)
    runs: dict[str, list[tuple[Measured, Measured]]] = {path: [] for path in LOAD_ROUNDS}
    with ThreadPoolExecutor(len(portals)) as pool:
        for n in range(1, max(LOAD_ROUNDS.values()) + 1):
            for path in (path for path, rounds in LOAD_ROUNDS.items() if n <= rounds):
                for tries in range(1, STALLED_TRIES + 1):
                    started = {label: pool.submit(_measured, portal, cookies[portal.url], path,
                                                  f"{n}: {path}, recording {label}",
                                                  sizes[portal.url, path])
                               for label, portal in portals.items()}  # fmt: skip
                    wait(started.values())
                    try:
                        found = {label: run.result() for label, run in started.items()}
                    except NoAnswer as stalled:
                        again = "the round again" if tries < STALLED_TRIES else "left out"
                        print(f"{stalled.args[0].splitlines()[0]}: {again}")
                        continue
                    runs[path].append((found["with"], found["without"]))
                    break
    return Recording(runs)


def _measured(portal: servers.Server, cookie: str, path: str, label: str, least: int) -> Measured:
    before = workers_cpu_seconds(portal)
    load = wrk(portal.url + path, cookie, label, CONNECTIONS, LOAD_SECONDS, least)
    return Measured(load, workers_cpu_seconds(portal) - before)


# --- the dashboard's scaling: the databases filled ------------------------------------------------


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
    """Writes to the portal's database (DATABASE_URL, migrated, PostgreSQL) and cache what the
    portal leaves after `calls` calls to the service over PORTAL_METRICS_DAYS and the periodic
    sweep, with the audit trail, jobs and counts in proportion, and makes grower staff. Random,
    but the same for the same `calls`."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from portal.operations import recording

    call_command("migrate", verbosity=0)
    rng = random.Random(calls)
    now = datetime.now().astimezone()
    with connection.cursor() as cursor:
        cursor.execute("SELECT setseed(%s)", [1 / (1 + calls)])  # the same rows for the same calls
    users = _users(max(3, calls // CALLS_PER_USER))
    _service_calls(rng, calls, now)
    _events(round(calls * EVENTS_PER_CALL), now, users)
    _jobs(round(calls * JOBS_PER_CALL), now, users)
    _counts(rng, calls, now)
    recording.fold()  # as the periodic sweep leaves them
    recording.prune()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")  # as autovacuum would have by the time staff look
    print(f"Filled with {calls:,} calls' records for {len(users)} users.")


def _users(count: int) -> list[int]:
    """grower, made staff, and `count` other users: their ids."""
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
    return list(model.objects.values_list("pk", flat=True))


def _user_table() -> str:
    from django.contrib.auth import get_user_model
    from django.db import connection

    return connection.ops.quote_name(get_user_model()._meta.db_table)


def _service_calls(rng: random.Random, calls: int, now: datetime) -> None:
    """The calls' rows as recording and the sweep leave them: a row an hour and operation for
    the hours the sweep has folded, a row a minute, operation and writer (a thread of a process
    of a machine) for the hours since, and an error row for each failed call (which the sweep
    prunes to the last ones)."""
    from portal.operations import recording
    from portal.operations.models import ServiceCalls, ServiceError

    minutes = METRICS_DAYS * 24 * 60
    first = now.replace(second=0, microsecond=0) - timedelta(minutes=minutes - 1)
    folded = (now - recording.FOLD_AFTER).replace(minute=0, second=0, microsecond=0)
    rows, errors = [], []
    hour = first.replace(minute=0)
    while hour < folded:
        in_the_hour = (min(hour + timedelta(hours=1), folded) - max(hour, first)) / timedelta(
            minutes=1
        )
        for operation, share in OPERATIONS.items():
            chance = in_the_hour / minutes * share / sum(OPERATIONS.values())
            if count := rng.binomialvariate(calls, chance):
                counts = _some_calls(rng, count)
                rows.append(ServiceCalls(minute=hour, operation=operation,
                                         writer=recording.HOURLY, **counts))  # fmt: skip
                errors += _errors(rng, operation, hour, timedelta(hours=1), counts["errors"])
        hour += timedelta(hours=1)
    recent = int((now - folded) / timedelta(minutes=1)) + 1
    picked = Counter(
        (rng.randrange(recent), operation, rng.randrange(WRITERS))
        for operation in rng.choices(list(OPERATIONS), list(OPERATIONS.values()),
                                     k=rng.binomialvariate(calls, recent / minutes))
    )  # fmt: skip
    for (minute, operation, writer), count in sorted(picked.items()):
        at = folded + timedelta(minutes=minute)
        counts = _some_calls(rng, count)
        rows.append(ServiceCalls(minute=at, operation=operation, writer=_writer(writer),
                                 **counts))  # fmt: skip
        errors += _errors(rng, operation, at, timedelta(minutes=1), counts["errors"])
    ServiceCalls.objects.bulk_create(rows, batch_size=5_000)
    ServiceError.objects.bulk_create(sorted(errors, key=lambda e: e.at), batch_size=5_000)
    total = sum(row.calls for row in rows)
    print(f"{total:,} calls in {len(rows):,} rows, {len(errors):,} errors")


def _writer(n: int) -> str:
    """The nth writer, as recording names it: a thread of a process of a machine."""
    return f"portal-{n // 8}:{4000 + n // 4}:{11_000 + n}"


def _some_calls(rng: random.Random, count: int) -> dict[str, int]:
    """A row's counts of `count` calls: how many failed, and how many fell in each band (drawn
    band by band, each from the calls not yet in one)."""
    from portal.operations.call_bands import BAND_FIELDS

    bands, left = {}, count
    for n, name in enumerate(BAND_FIELDS):
        share = BAND_SHARES[n] / sum(BAND_SHARES[n:])
        bands[name] = rng.binomialvariate(left, share)
        left -= bands[name]
    return {"calls": count, "errors": rng.binomialvariate(count, ERROR_SHARE), **bands}


def _errors(rng: random.Random, operation: str, start: datetime, span: timedelta, count: int):
    """`count` error rows of `operation` in the `span` from `start`."""
    from portal.operations.models import ServiceError

    made = []
    for _ in range(count):
        status = rng.choice((None, 502, 503))
        made.append(ServiceError(at=start + span * rng.random(), operation=operation,
                                 status=status, outcome="Unavailable" if status is None
                                 else "UnexpectedResponse"))  # fmt: skip
    return made


def _events(count: int, now: datetime, users: list[int]) -> None:
    """The audit trail: `count` events over AUDIT_DAYS, in the order they were made, by users
    among `users` (look-ups by visitors without an account)."""
    from portal.audit.models import Event

    _insert_generated(
        Event, count,
        # Each event's kind, time and user, drawn once and read by the columns below.
        drawn=f"""SELECT made.*, person.username
                  FROM (SELECT (%(kinds)s::text[])[width_bucket(random(), %(shares)s::float8[])]
                                AS kind,
                               %(now)s - random() * %(days)s * interval '1 day' AS at,
                               (%(ids)s::bigint[])[1 + floor(random() * %(users)s)::int] AS who,
                               random() < %(batch_share)s AS in_a_batch
                        FROM generate_series(1, %(count)s)) AS made
                  JOIN {_user_table()} AS person ON person.id = made.who""",  # noqa: S608
        columns={
            "kind": "kind",
            "at": "at",
            "user": "CASE WHEN kind = ANY(%(visitors)s) THEN NULL ELSE who END",
            "username": "CASE WHEN kind = ANY(%(visitors)s) THEN '' ELSE username END",
            "client_address": "('10.' || floor(random() * 256) || '.' || floor(random() * 256)"
                              " || '.' || (1 + floor(random() * 254)))::inet",
            "request_id": "md5(random()::text)",
            "detail": """CASE WHEN kind = 'passport-created' AND in_a_batch
                               THEN jsonb_build_object('code', md5(random()::text),
                                    'batch', gen_random_uuid()::text,
                                    'position', floor(random() * 50)::int)
                              WHEN kind = ANY(%(with_code)s)
                               THEN jsonb_build_object('code', md5(random()::text))
                              ELSE '{}'::jsonb END""",
        },
        order_by="at",
        params={**_shares(EVENT_SHARES), "now": now, "days": AUDIT_DAYS, "users": len(users),
                "ids": users, "batch_share": BATCH_SHARE, "visitors": list(VISITORS_KINDS),
                "with_code": list(CODE_KINDS)},
    )  # fmt: skip
    print(f"{count:,} audit events")


def _jobs(count: int, now: datetime, users: list[int]) -> None:
    """`count` jobs made over the last JOB_DAYS: ended (a few failed) but for those of the last
    half minute, still waiting or running."""
    from portal.jobs.models import Job

    _insert_generated(
        Job, count,
        drawn="""SELECT kind, created, who,
                        CASE WHEN created > %(now)s - interval '30 seconds'
                              THEN (ARRAY['queued', 'running'])[1 + floor(random() * 2)::int]
                             WHEN random() < %(failed_share)s THEN 'failed'
                             ELSE 'done' END AS state,
                        created + (1 + random() * 29) * interval '1 second' AS ends
                 FROM (SELECT (%(kinds)s::text[])[width_bucket(random(), %(shares)s::float8[])]
                               AS kind,
                              %(now)s - random() * %(days)s * interval '1 day' AS created,
                              1 + floor(random() * %(users)s)::int AS who
                       FROM generate_series(1, %(count)s)) AS made""",
        columns={
            "kind": "kind",
            "owner": "(%(ids)s::bigint[])[who]",
            "title": "'A ' || kind || ' job'",
            "state": "state",
            "done": "1",
            "total": "1",
            "created": "created",
            "started": "CASE WHEN state <> 'queued' THEN created END",
            "finished": "CASE WHEN state IN ('done', 'failed') THEN ends END",
            "touched": "CASE WHEN state IN ('done', 'failed') THEN ends ELSE created END",
        },
        order_by="created",
        params={**_shares(JOB_SHARES), "now": now, "days": JOB_DAYS, "users": len(users),
                "failed_share": JOB_FAILED_SHARE, "ids": users},
    )  # fmt: skip
    print(f"{count:,} jobs")


def _shares(shares: dict[str, float]) -> dict[str, list]:
    """The kinds, and where each one's share of [0, 1) begins: for width_bucket."""
    total = sum(shares.values())
    starts = [0.0, *accumulate(share / total for share in list(shares.values())[:-1])]
    return {"kinds": list(shares), "shares": starts}


def _insert_generated(
    model: type, count: int, *, drawn: str, columns: dict[str, str], order_by: str, params: dict
) -> None:
    """`count` rows of `model` made by PostgreSQL: `drawn` is a SELECT of what each row draws,
    from generate_series(1, %(count)s), and `columns` the SQL of fields by name, reading it;
    every other field takes its default. Inserted in the order of `order_by`, as they would
    have been made, with the table's indexes made afresh afterwards (quicker than kept up)."""
    from django.db import connection

    values, defaults = [], {}
    for field in model._meta.concrete_fields:
        if field.primary_key:
            continue
        if field.name in columns:
            values.append((field.column, columns[field.name]))
        else:
            defaults[field.column] = field.get_db_prep_save(field.get_default(), connection)
            values.append((field.column, f"%({field.column})s"))
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(column) for column, _ in values)
    selected = ", ".join(expression for _, expression in values)
    with connection.cursor() as cursor, _indexes_made_after(cursor, model._meta.db_table):
        cursor.execute("SET work_mem = '256MB'")  # the rows sorted in memory
        cursor.execute(
            f"INSERT INTO {table} ({names}) SELECT {selected} FROM ({drawn}) AS drawn "  # noqa: S608 (the model's names)
            f"ORDER BY drawn.{order_by}",
            {**params, **defaults, "count": count},
        )


@contextmanager
def _indexes_made_after(cursor: object, table: str) -> Iterator[None]:
    """The table's indexes but those of its constraints dropped, and made again at the end."""
    cursor.execute(
        "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index "
        "WHERE indrelid = %s::regclass AND NOT EXISTS "
        "(SELECT FROM pg_constraint WHERE conindid = indexrelid)",
        [table],
    )
    indexes = cursor.fetchall()
    for name, _ in indexes:
        cursor.execute(f"DROP INDEX {name}")
    yield
    cursor.execute("SET maintenance_work_mem = '256MB'")
    for _, definition in indexes:
        cursor.execute(definition)


def _counts(rng: random.Random, calls: int, now: datetime) -> None:
    """The counts by five minutes the dashboard reads from the cache
    (portal/operations/counting.py), over the COUNT_DAYS they are kept, in proportion to the
    calls."""
    from django.core.cache import cache

    from portal.operations import counting

    slots = COUNT_DAYS * 24 * 3600 // counting.SLOT_SECONDS
    last = counting.slot_of(now.timestamp())
    requests = calls * REQUESTS_PER_CALL * COUNT_DAYS / METRICS_DAYS
    shares = {counting.OTHER_REQUESTS: 0.6, counting.REQUESTS_FAILED: 0.001,
              counting.STANDARDS_PAGES: 0.4, counting.STANDARDS_PAGES_ASKED: 0.02}  # fmt: skip
    for name, share in shares.items():
        expected = requests * share / slots
        by_slot = {last - n: max(0, round(rng.gauss(expected, math.sqrt(expected))))
                   for n in range(slots)}  # fmt: skip
        cache.set_many({counting.key_of(name, slot): n for slot, n in by_slot.items() if n},
                       counting.KEEP_SECONDS)  # fmt: skip


# --- the dashboard's scaling: its time ------------------------------------------------------------


@dataclass(frozen=True)
class Dashboards:
    """The dashboard's times on each portal, round by round."""

    rounds: dict[str, list[Timing]]  # by portal's label

    def timing(self, label: str) -> Timing:
        return Timing(tuple(sample for taken in self.rounds[label] for sample in taken.samples))

    def ratio(self, label: str, to: str) -> Spread:
        """The rounds' ratios of the median time on `label`'s portal to that on `to`'s."""
        return Spread(tuple(mine.median / theirs.median
                            for mine, theirs in zip(self.rounds[label], self.rounds[to],
                                                    strict=True)))  # fmt: skip


def measure_dashboards(urls: dict[str, str], cookies: dict[str, str]) -> Dashboards:
    """/staff/ of each portal (`urls` by label), one request at a time, the portals in turn,
    the order swapped every round."""
    sessions = {}
    for label, url in urls.items():
        sessions[label] = loopback_session()
        sessions[label].headers["Cookie"] = cookies[url]

    def dashboard(label: str) -> Callable[[], None]:
        def asked() -> None:
            response = sessions[label].get(urls[label] + DASHBOARD_PATH, timeout=REQUEST_TIMEOUT,
                                           allow_redirects=False)  # fmt: skip
            if response.status_code != 200 or DASHBOARD_HEADING not in response.text:
                raise RuntimeError(f"The dashboard answered {response.status_code}")

        return asked

    for label in urls:  # untimed: each portal's workers warm
        time_calls(dashboard(label), 0, warmup=DASHBOARD_WARMUP)
    rounds: dict[str, list[Timing]] = {label: [] for label in urls}
    for n in range(DASHBOARD_ROUNDS):
        for label in list(urls) if n % 2 == 0 else reversed(list(urls)):
            rounds[label].append(time_calls(dashboard(label), DASHBOARD_REQUESTS))
    return Dashboards(rounds)


# --- the benchmark --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scaling:
    filled: dict[str, float]  # seconds, by label
    fills: dict[str, str]  # what each fill wrote
    sizes: dict[str, int]
    times: Dashboards


def main() -> None:
    heading("bench.dashboard: recording's cost, and the staff dashboard with ten million calls")
    require_wrk_and_redis(REDIS_URL)
    print(f"Machine before: {machine_load()}")
    with ExitStack() as stack:
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-dash-")))
        kind, urls = stack.enter_context(
            databases("dashboard", ["recording", "not_recording", "many", "few"], directory)
        )
        stack.callback(forget_cached, list(urls.values()))
        found = recording_measured(directory, urls)
        scaling = None
        if kind == "PostgreSQL":
            scaling = scaling_measured(stack, directory, urls)
    report(kind, found, scaling)


def recording_measured(directory: Path, urls: dict[str, str]) -> Recording:
    """The portals with recording and without, each on a sandbox of its own (one sandbox
    would be the bottleneck of the memberships page, which calls it, for both)."""
    with ExitStack() as stack:
        portals = {}
        for label, name, settings in (("with", "recording", {}),
                                      ("without", "not_recording",
                                       {"PORTAL_METRICS_RECORDING": "false"})):  # fmt: skip
            (directory / name).mkdir()
            sandbox = servers.start_sandbox(directory / name)
            stack.callback(sandbox.stop)
            portals[label] = start_portal(stack, directory / name / "portal", urls[name],
                                          sandbox.url, **settings)  # fmt: skip
        cookies = {p.url: signed_in_cookie(p.url) for p in portals.values()}
        return measure_recording(portals, cookies)


def scaling_measured(stack: ExitStack, directory: Path, urls: dict[str, str]) -> Scaling:
    sandbox = servers.start_sandbox(directory)
    stack.callback(sandbox.stop)
    sandbox_url = sandbox.url
    labels = {"many": _calls(MANY), "few": _calls(FEW)}
    filled = {labels[name]: fill_database(urls[name], calls, directory / f"fill-{name}.log")
              for name, calls in (("many", MANY), ("few", FEW))}  # fmt: skip
    portals = {labels[name]: start_portal(stack, directory / name, urls[name], sandbox_url)
               for name in labels}  # fmt: skip
    cookies = {p.url: signed_in_cookie(p.url) for p in portals.values()}
    sizes = {label: page_size(p.url + DASHBOARD_PATH, cookies[p.url], holding=DASHBOARD_HEADING)
             for label, p in portals.items()}  # fmt: skip
    times = measure_dashboards({label: p.url for label, p in portals.items()}, cookies)
    fills = {labels[name]: (directory / f"fill-{name}.log").read_text().strip() for name in labels}
    return Scaling(filled, fills, sizes, times)


def _calls(count: int) -> str:
    return f"{count:,} calls"


def report(kind: str, found: Recording, scaling: Scaling | None) -> None:
    print(f"\nThe portals' databases: {kind}.")
    print(f"\nRecording: wrk, {CONNECTIONS} connections (a request each), {LOAD_SECONDS} s each, "
          f"each page on the portal with recording and the one without at once:")  # fmt: skip
    print_loads([run.load for pairs in found.runs.values() for pair in pairs for run in pair])
    print("\nWith recording / without, median of the rounds (least-greatest):")
    print_table(
        ["page", "rounds", "throughput", "processor time a request (without / with)"],
        [[path, str(len(found.runs[path])), str(found.throughput(path)),
          str(found.processor(path))] for path in LOAD_ROUNDS],
    )  # fmt: skip
    targets = [AtLeast(f"warm section page, recording / not, throughput (median of "
                       f"{len(found.runs[SECTION_PATH])})", found.throughput(SECTION_PATH).median,
                       RECORDING_RATIO, unit="x")]  # fmt: skip
    if scaling is None:
        print("\nThe dashboard's scaling needs PostgreSQL (its databases are filled in SQL): "
              "not measured.")  # fmt: skip
    else:
        targets.append(report_scaling(scaling))
    print()
    print_targets(targets)
    print(f"Machine after: {machine_load()}")


def report_scaling(scaling: Scaling) -> Target:
    many, few = _calls(MANY), _calls(FEW)
    print("\nThe dashboard's databases, filled:")
    for label in (many, few):
        print(f"- {label} ({scaling.filled[label]:.0f} s): "
              f"{'; '.join(scaling.fills[label].splitlines())}")  # fmt: skip
    print(f"\nThe dashboard ({size(scaling.sizes[many])} with {many}, "
          f"{size(scaling.sizes[few])} with {few}), signed in as staff, one request at a time, "
          f"{DASHBOARD_ROUNDS} rounds of {DASHBOARD_REQUESTS} on each portal in turn:")  # fmt: skip
    times = scaling.times
    print_timings([(f"dashboard, {label}", times.timing(label)) for label in (many, few)])
    ratio = times.timing(many).median / times.timing(few).median
    print(f"With {many} it takes {ms(times.timing(many).median - times.timing(few).median)} "
          f"more, {ratio:.2f} times as long; the rounds' ratios of medians, median "
          f"(least-greatest): {times.ratio(many, few)}.")  # fmt: skip
    return Target(f"dashboard, {many} / {few}, medians", ratio, SCALING_RATIO, unit="x",
                  inclusive=True)  # fmt: skip


if __name__ == "__main__":
    main()
