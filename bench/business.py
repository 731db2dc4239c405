"""The business's passports at ten times the data: the list against Django's admin, the list
with 100,000 passports against with 1,000, and an export's memory with 500 passports against
with 50.

    python -m bench business

Starts, on loopback only, a sandbox of its own (its demo data, and `generate_large_data`'s
passports of "Benchmark Farms Ltd", of which grower is a contact) and portals under gunicorn as
`make run` starts them (2 workers x 4 threads), with Redis database 12 on 127.0.0.1:6379 as
their cache and the jobs' broker, each on a database of the benchmark's own on PostgreSQL at
127.0.0.1:5432 (user postgres; BENCH_POSTGRES_URL names another server), production's database,
made and dropped here (`bench_business_<pid>_<name>`). It signs in as grower through the
sign-in form, then measures:

- the list: three portals whose databases hold 1,000, 10,000 and 100,000 passports of Benchmark
  Farms Ltd made by grower, written with SQL (INSERT ... SELECT generate_series), one every 47
  minutes back from now, in five crops (a fifth of them wheat), and then vacuumed and analysed
  as autovacuum would have; grower is staff (a superuser) there.
  - with 10,000: the list filtered by crop (`/passports/?crop=Wheat`, 50 a page with its count)
    against Django's admin changelist of the same passports filtered by the same crop
    (`/admin/passports/passport/?crop_type=Wheat`, 50 a page), the page staff would otherwise
    use, with `wrk` at 16 connections (a request each, as nginx sends them) for 5 s each, the
    two in turn (the order swapped every round) for five rounds. Target: the median of the
    rounds' ratios of the list's throughput to the admin's is at least 1.0.
  - the same list, one request at a time, with 100,000 passports and with 1,000, the two
    portals in turn (the order swapped every round) for 10 rounds of 3. Target: the median with
    100,000 is at most 1.3 times the median with 1,000.
- an export's memory: a fourth portal with a Celery worker of one process, replaced after each
  job (PORTAL_JOB_TASKS_PER_CHILD=1), with the sandbox's passports recorded in its database (as
  "added by code" records, fetched through the client); an export as a ZIP of every passport
  loaded on some days, about 50 and then about 500 of them, and the peak memory of the
  process that ran each. Target: the one of 500 at most 1.2 times the one of 50 (ten times the
  passports, as 100 and 1,000 were, with half the PDFs for the sandbox to render).

Every answer must be the page: wrk must see no error, no answer but a 2xx and at least the
page's size in bytes each answer; the pages timed one at a time must answer 200 with their
count; an export must end with every passport asked for.

Besides, for bench/batches.py and bench/passports.py (with their portal, worker and passports):
a batch of 50 against the same 50 through the create form and the service's create calls
(`measure_batches`, `report_batches`), and an export of 100 against the same PDFs fetched
(`measure_exports`, `report_exports`).
"""

from __future__ import annotations

import io
import os
import re
import sqlite3
import statistics
import sys
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import psycopg
import redis
from psycopg import sql

from bench.common import (
    BENCH_POINTS,
    DEMO_PASSWORD,
    DEMO_USER,
    POSTGRES_URL,
    REQUEST_TIMEOUT,
    AtLeast,
    Load,
    Ratios,
    Sandbox,
    SignedIn,
    Target,
    Timing,
    csrf_token,
    databases,
    heading,
    machine_load,
    made_superuser,
    ms,
    pages_in_turn,
    print_loads,
    print_targets,
    print_timings,
    require_wrk_and_redis,
    signed_in_portal,
    start_sandbox,
    stop_process,
    wrk,
)
from bench.exports import pool_peak_kib
from portal.assurance.client import AssuranceClient, BearerToken
from sandbox.ids import guid_for
from scripts import servers

BATCH, BATCH_ROUNDS = 50, 15  # three gave 1.42 and 1.64 in two runs of the same code
# The same passports in every round: a passport's PDF takes the sandbox one to three renders
# (its longer values in a smaller type), so other passports would be other work.
EXPORT, EXPORT_ROUNDS, CONCURRENCY = 100, 4, 4
PASSPORTS = EXPORT  # generate_large_data's, of "Benchmark Farms Ltd": the export's
BATCH_FORM_RATIO, BATCH_CALLS_RATIO, EXPORT_RATIO = 1.0, 1.6, 1.2
JOB_SECONDS = 300
POLL_SECONDS = 0.2  # how often the benchmark looks whether a job has ended
RECORD_THREADS = 8
EXPORT_PATH = "/passports/export"


@dataclass
class Bench:
    """What is started for the exports: the portal (its address, the grower's cookie and a
    session with it), the service's client and the grower's token, the sandbox, the benchmark's
    directory, the worker's environment and the stack that stops what is started."""

    url: str
    cookie: str
    portal: SignedIn
    client: AssuranceClient
    credentials: BearerToken
    sandbox: Sandbox
    directory: Path
    worker_env: dict[str, str]
    stack: ExitStack


@dataclass
class Found:
    batch: list[float] = field(default_factory=list)
    batch_waits: list[float] = field(default_factory=list)  # ms from its POST to its start
    by_form: list[float] = field(default_factory=list)
    singles: list[float] = field(default_factory=list)
    export: list[float] = field(default_factory=list)
    fetched: list[float] = field(default_factory=list)


def setup_django(settings: dict[str, str]) -> None:
    os.environ.update(DJANGO_SETTINGS_MODULE="portal.settings", PORTAL_DEVELOPMENT="true",
                      **settings)  # fmt: skip
    import django

    django.setup()


def measure_batches(bench: Bench, choice: Any) -> Found:
    """A batch, the same through the form and the service's calls, in turn. `choice` is
    bench.passports' Choice: the form's fields, and the request they make."""
    found = Found()
    today = date.today()
    form_data, request = choice.form_data(today), choice.request(today)

    def batch() -> None:
        taken, waited = batch_of_50(bench, form_data)
        found.batch.append(taken)
        found.batch_waits.append(waited)

    steps = [batch, lambda: found.by_form.append(one_by_one_with_the_form(bench, form_data)),
             lambda: found.singles.append(created_alone(bench, request))]  # fmt: skip
    for n in range(BATCH_ROUNDS):
        for step in steps if n % 2 == 0 else reversed(steps):
            step()
            _until_idle()
    return found


def measure_exports(bench: Bench) -> Found:
    """An export of the sandbox's passports and the same PDFs fetched, in turn."""
    found = Found()
    codes = record_the_sandboxs_passports(bench)
    chosen = codes[:EXPORT]  # the sandbox keeps no PDF it made: each round renders them all
    for n in range(EXPORT_ROUNDS):
        if n % 2:
            found.fetched.append(fetched_alone(bench, chosen))
        found.export.append(export(bench, chosen))
        if not n % 2:
            found.fetched.append(fetched_alone(bench, chosen))
    return found


def batch_of_50(bench: Bench, form_data: dict[str, str]) -> tuple[float, float]:
    """A batch of 50 made with the create form: ms from its POST until its job ended, and
    until it started."""
    from portal.jobs.models import Job

    data = {**bench.portal.blank_form(), **form_data, "loads": str(BATCH)}
    started = time.time()
    answer = bench.portal.http.post(bench.url + "/passports/new", data=data,
                                    headers=bench.portal.headers, allow_redirects=False,
                                    timeout=REQUEST_TIMEOUT)  # fmt: skip
    job = _until_ended(_job_of(answer))
    if job.state != Job.State.DONE or job.done != BATCH:
        raise RuntimeError(f"The batch ended {job.state} with {job.done} made: {job.message}")
    return (job.finished.timestamp() - started) * 1000, (job.started.timestamp() - started) * 1000


def one_by_one_with_the_form(bench: Bench, form_data: dict[str, str]) -> float:
    """BATCH passports made one by one through the create form, as a browser makes them: the
    form fetched, sent, and the new passport's page its answer leads to; ms for them all."""
    started = time.perf_counter()
    for _ in range(BATCH):
        _, page_path = bench.portal.create({**bench.portal.blank_form(), **form_data})
        page = bench.portal.get(page_path)
        if page.status_code != 200:
            raise RuntimeError(f"The new passport's page answered {page.status_code}")
    return (time.perf_counter() - started) * 1000


def created_alone(bench: Bench, request: Any) -> float:
    """BATCH of the service's create calls one after another, through the client: ms."""
    started = time.perf_counter()
    for _ in range(BATCH):
        bench.client.create_passport(bench.credentials, request)
    return (time.perf_counter() - started) * 1000


def _until_idle() -> None:
    """Once the worker has no job waiting or running, untimed: the PDFs a new passport's page
    starts (what is measured is the making of passports; 750 PDFs more would double the
    benchmark's time) cancelled if they have not ended, as their owner may cancel them."""
    from portal.jobs.actions import cancel
    from portal.jobs.models import Job

    for job in Job.objects.filter(kind="passport-pdf").exclude(state__in=Job.ENDED):
        cancel(job)
    deadline = time.monotonic() + JOB_SECONDS
    while Job.objects.exclude(state__in=Job.ENDED).exists() or _worker_is_busy():
        if time.monotonic() > deadline:
            raise RuntimeError(f"Jobs still running after {JOB_SECONDS} s")
        time.sleep(POLL_SECONDS)


def _worker_is_busy() -> bool:
    """Whether the worker still runs or holds a task: a cancelled PDF's task goes on until its
    one call ends (it has no progress to stop at), so its job's row has ended before its
    worker is free; the next step would wait for it, timed."""
    from portal.celery import app

    inspect = app.control.inspect(timeout=1, limit=1)  # one worker: its answer suffices
    held = [*(inspect.active() or {}).values(), *(inspect.reserved() or {}).values()]
    return any(held)


def _job_of(answer) -> int:
    found = re.fullmatch(r"/jobs/(\d+)/", answer.headers.get("Location", ""))
    if answer.status_code != 303 or not found:
        raise RuntimeError(f"The form answered {answer.status_code}, not 303 to a job: "
                           f"{answer.text[:600]}")  # fmt: skip
    return int(found[1])


def _until_ended(job_id: int):
    """The job, once it has ended. Its own times say how long it took (`finished`): this looks
    only every POLL_SECONDS, so as to take little of the machine from the job."""
    from django.db import connection

    from portal.jobs.models import Job

    deadline = time.monotonic() + JOB_SECONDS
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        if job.has_ended:
            return job
        connection.close()  # SQLite: see the other processes' commits, hold no lock
        time.sleep(POLL_SECONDS)
    raise RuntimeError(f"Job {job_id} did not end in {JOB_SECONDS} s")


def record_the_sandboxs_passports(bench: Bench) -> list[str]:
    return recorded_from_the_sandbox(bench.sandbox, bench.client, bench.credentials)


def recorded_from_the_sandbox(
    sandbox: Sandbox, client: AssuranceClient, credentials: BearerToken
) -> list[str]:
    """Every passport of the sandbox's benchmark membership recorded in the portal, as one
    added by its code is (the service's record, fetched through the client); their codes,
    newest first."""
    from django.contrib.auth import get_user_model

    from portal.passports.models import Passport

    with closing(sqlite3.connect(f"file:{sandbox.database}?mode=ro", uri=True)) as db:
        codes = [row[0] for row in db.execute(
            "SELECT p.short_code FROM sandbox_passport p JOIN sandbox_membership m "
            "ON p.membership_id = m.id WHERE m.business_name = 'Benchmark Farms Ltd' "
            "ORDER BY p.created DESC")]  # fmt: skip
    with ThreadPoolExecutor(RECORD_THREADS) as pool:
        fetched = list(pool.map(lambda code: client.passport(credentials, code), codes))
    grower = get_user_model().objects.get(username="grower")
    recorded = set(Passport.objects.values_list("short_code", flat=True))  # made by the rounds
    rows = []
    for record in fetched:
        row = Passport(membership_guid=record.membership_guid, site_guid=record.site_guid,
                       store_guid=record.store_guid or "", made_by=grower,
                       origin=Passport.Origin.ADDED, created=record.check_date)  # fmt: skip
        row.keep_record(record)
        if row.short_code not in recorded:
            rows.append(row)
    Passport.objects.bulk_create(rows, batch_size=500)
    return [row.short_code for row in rows]


def export(bench: Bench, codes: list[str]) -> float:
    """The ZIP of these passports asked for as the list asks: ms from its POST until its job
    has ended; its ZIP checked. The job is removed then, or the next export of the same
    passports would be this one, done, given again."""
    token = csrf_token(bench.portal.get("/passports/").text)
    data = {"csrfmiddlewaretoken": token, "format": "zip", "scope": "ticked", "code": codes}
    started = time.time()
    answer = bench.portal.http.post(bench.url + EXPORT_PATH, data=data,
                                    headers=bench.portal.headers, allow_redirects=False,
                                    timeout=REQUEST_TIMEOUT)  # fmt: skip
    job = _until_ended(_job_of(answer))
    taken = (job.finished.timestamp() - started) * 1000
    _check_zip(job, codes)
    job.result.delete(save=False)
    job.delete()
    return taken


def _check_zip(job, codes: list[str]) -> None:
    if job.state != job.State.DONE:
        raise RuntimeError(f"The export ended {job.state}: {job.message}")
    with job.result.open("rb") as result:
        names = set(zipfile.ZipFile(io.BytesIO(result.read())).namelist())
    missing = {f"{code}.pdf" for code in codes} - names
    if missing or job.message:
        raise RuntimeError(f"The export lacks {len(missing)} PDFs: {job.message}")


def fetched_alone(bench: Bench, codes: list[str]) -> float:
    """The same number of PDFs fetched from the sandbox through the client, CONCURRENCY at once:
    ms."""
    started = time.perf_counter()

    def pdf_size(code: str) -> int:
        return len(bench.client.passport_pdf(bench.credentials, code))

    with ThreadPoolExecutor(CONCURRENCY) as pool:
        sizes = list(pool.map(pdf_size, codes))
    if min(sizes) == 0:
        raise RuntimeError("A PDF came back empty")
    return (time.perf_counter() - started) * 1000


def memory(bench: Bench) -> dict[int, int]:
    """The peak memory (KiB) of the worker's process over an export of about SMALL and of about
    LARGE passports (all that were loaded on some days, as the list's filters choose them),
    each in a process of its own: a worker of one process, replaced after each job."""
    env = {**bench.worker_env, "PORTAL_JOB_TASKS_PER_CHILD": "1"}
    worker = servers.start_worker(env, concurrency=1, log=bench.directory / "memory-worker.log")
    bench.stack.callback(stop_process, worker)
    peaks = {}
    for wanted in (SMALL, LARGE):
        count, peak = _peak_of_export(bench, _days_holding(wanted), worker.pid)
        peaks[count] = peak
    return peaks


def _days_holding(wanted: int) -> dict[str, str]:
    """Loading dates from and to (the list's filters, whole days) that hold about `wanted`
    passports, from the day before yesterday back."""
    from portal.passports.models import Passport

    last = date.today() - timedelta(days=2)
    older = Passport.objects.filter(loading_date__date__lte=last).order_by("-loading_date")
    first = older.values_list("loading_date", flat=True)[wanted].date() + timedelta(days=1)
    return {"loaded_from": first.isoformat(), "loaded_to": last.isoformat()}


def _peak_of_export(bench: Bench, filters: dict[str, str], worker_pid: int) -> tuple[int, int]:
    """How many passports an export of all that match `filters` took, and the worker's peak
    memory (KiB) over it."""
    from portal.jobs.models import Job

    token = csrf_token(bench.portal.get("/passports/").text)
    data = {"csrfmiddlewaretoken": token, "format": "zip", "scope": "all", **filters}
    answer = bench.portal.http.post(bench.url + EXPORT_PATH, data=data,
                                    headers=bench.portal.headers, allow_redirects=False,
                                    timeout=REQUEST_TIMEOUT)  # fmt: skip
    job_id = _job_of(answer)
    peak, deadline = 0, time.monotonic() + JOB_SECONDS
    while time.monotonic() < deadline:
        peak = max(peak, pool_peak_kib(worker_pid))
        job = Job.objects.get(pk=job_id)
        if job.has_ended:
            if job.state != Job.State.DONE or job.message:
                raise RuntimeError(f"{job.title} ended {job.state}: {job.message}")
            return job.total - 1, peak  # its steps: each passport, and the manifests
        time.sleep(0.05)
    raise RuntimeError(f"{job.title} did not end in {JOB_SECONDS} s")


def report_batches(found: Found) -> None:
    batch, singles = Timing(tuple(found.batch)), Timing(tuple(found.singles))
    by_form = Timing(tuple(found.by_form))
    print(f"\nThe business's passports: {BATCH_ROUNDS} rounds of a batch of {BATCH}, of "
          f"{BATCH} made one by one through the create form and of {BATCH} of the service's "
          f"create calls, in turn.")  # fmt: skip
    print_timings([
        (f"portal: batch of {BATCH}, POST to its job ended", batch),
        (f"portal: {BATCH} through the create form, one by one", by_form),
        (f"service: {BATCH} create calls, one after another", singles),
    ])  # fmt: skip
    waits = ", ".join(f"{wait:.0f}" for wait in found.batch_waits)
    print(f"A batch's job started {waits} ms after its POST.")
    form_ratios = Ratios.of(found.batch, found.by_form)
    calls_ratios = Ratios.of(found.batch, found.singles)
    print(f"Ratios of the batch to the {BATCH} through the form: {form_ratios}.")
    print(f"Ratios of the batch to the {BATCH} create calls: {calls_ratios}.\n")
    print_targets([
        Target(f"batch of {BATCH} / {BATCH} through the create form (median of "
               f"{BATCH_ROUNDS})", form_ratios.median, BATCH_FORM_RATIO, "x", True),
        Target(f"batch of {BATCH} / {BATCH} create calls (median of {BATCH_ROUNDS})",
               calls_ratios.median, BATCH_CALLS_RATIO, "x", True),
    ])  # fmt: skip


def report_exports(found: Found) -> None:
    export_, fetched = Timing(tuple(found.export)), Timing(tuple(found.fetched))
    print(f"\nThe business's passports: {EXPORT_ROUNDS} rounds of an export of {EXPORT} and of "
          f"the same number of PDFs fetched {CONCURRENCY} at once.")  # fmt: skip
    print_timings([
        (f"portal: export of {EXPORT}, POST to its job ended", export_),
        (f"service: {EXPORT} PDF calls, {CONCURRENCY} at once", fetched),
    ])  # fmt: skip
    export_ratios = Ratios.of(found.export, found.fetched)
    print(f"Ratios of the export to the same PDFs fetched: {export_ratios}.\n")
    print_targets([
        Target(f"export of {EXPORT} / the same PDFs fetched (median of {EXPORT_ROUNDS})",
               export_ratios.median, EXPORT_RATIO, "x", True),
    ])  # fmt: skip


# --- a benchmark of its own: the list with ten times the passports, an export's memory ----------

REDIS_URL = "redis://127.0.0.1:6379/12"
LIST_SIZE = 10_000  # passports under the list against the admin
FEW, MANY = 1_000, 100_000  # passports under the list against itself
LIST_PATH = "/passports/?crop=Wheat"
ADMIN_PATH = "/admin/passports/passport/?crop_type=Wheat"
LIST_COUNT = re.compile(r"1–50 of [\d,]+ passports that match")
ADMIN_ROWS = re.compile(r'<td class="field-crop_type">Wheat</td>')
CONNECTIONS, LOAD_SECONDS, LOAD_ROUNDS = 16, 5, 5
SCALING_ROUNDS, SCALING_REQUESTS, WARMUP = 10, 3, 4
ADMIN_RATIO, SCALING_RATIO = 1.0, 1.3
SMALL, LARGE = 50, 500  # passports in an export whose memory is measured
MEMORY_RATIO = 1.2
EXPORT_PASSPORTS = 800  # the sandbox's, enough for the days that hold LARGE
MINUTES_APART = 47  # between two passports, as generate_large_data makes them

# The benchmark's business, as sandbox.generate makes it (which cannot be imported before Django
# is set up with the sandbox's settings).
BUSINESS = "Benchmark Farms Ltd"
MEMBERSHIP_GUID, SITE_GUID, STORE_GUID = (guid_for(f"{kind}:benchmark")
                                          for kind in ("membership", "site", "store"))  # fmt: skip

# The passports of the list, one every MINUTES_APART back from now: a short code from the
# passport's number (its number times a prime, in the codes' alphabet, a bijection), one of five
# crops by a hash of the number, the harvest year as the loading date's (from July, that year's).
FILL_PASSPORTS = """
WITH crops (i, crop, variety) AS (
    VALUES (0, 'Wheat', 'Extase'), (1, 'Barley', 'Laureate'), (2, 'Oilseed rape', 'Aurelia'),
           (3, 'Oats', 'Mascani'), (4, 'Beans', 'Tundra')
)
INSERT INTO passports_passport (submission, short_code, membership_guid, site_guid, store_guid,
    business_name, made_by_id, origin, created, crop_type, variety, harvest_year, loading_date,
    haulier_company_name, record)
SELECT md5('passport:' || n)::uuid, {code}, %(membership)s, %(site)s, %(store)s,
       %(business)s, %(user)s, 'made', made, crops.crop, crops.variety,
       (extract(year FROM made)::int - (extract(month FROM made) < 7)::int)::text, made,
       'Stour Valley Haulage', '{{}}'::jsonb
FROM generate_series(1, %(count)s) AS n
CROSS JOIN LATERAL (SELECT now() - n * %(minutes)s * interval '1 minute' AS made) AS t
JOIN crops ON crops.i = abs(hashint4(n)) %% 5
"""


def _short_code_of_n() -> str:
    """SQL of a short code (`ABCDE-FGHJK`) from `n`, each a different one (with psycopg's
    parameters: `%%` is `%`)."""
    alphabet, length, prime = "23456789ABCDEFGHJKMNPQRSTUVWXYZ", 10, 1_000_003
    letters = [f"substr('{alphabet}', 1 + (n::bigint * {prime} / {31**k} %% 31)::int, 1)"
               for k in range(length)]  # fmt: skip
    return " || ".join([*letters[:5], "'-'", *letters[5:]])


@dataclass
class Listed:
    """The list and the admin under load, round by round; the list one at a time, by size."""

    loads: list[tuple[Load, Load]]  # (the list, the admin) each round
    sizes: dict[str, int]  # bytes a page, by path
    times: dict[int, Timing]  # the list, by the passports in its database
    filled: dict[int, float]  # seconds to write them, by the passports

    @property
    def ratios(self) -> list[float]:
        return [listed.throughput / admin.throughput for listed, admin in self.loads]


def main() -> None:
    heading("bench.business: the business's passports with ten times the data")
    require_wrk_and_redis(REDIS_URL)
    cache = redis.Redis.from_url(REDIS_URL)
    cache.flushdb()  # the benchmark's own database: nothing queued or kept from an earlier run
    print(f"Machine before: {machine_load()}")
    with ExitStack() as stack:
        directory = Path(stack.enter_context(TemporaryDirectory(prefix="bench-business-")))
        stack.callback(cache.flushdb)
        kind, urls = stack.enter_context(
            databases("business", ["few", "ten_thousand", "many", "exports"], directory)
        )
        if kind != "PostgreSQL":
            print(f"This benchmark needs PostgreSQL at {POSTGRES_URL}.")
            sys.exit(1)
        (directory / "sandbox").mkdir()
        sandbox = start_sandbox(directory / "sandbox", points=BENCH_POINTS,
                                passports=EXPORT_PASSPORTS)  # fmt: skip
        stack.callback(stop_process, sandbox.process)
        settings = {"ASSURANCE_BASE_URL": sandbox.url, "REDIS_URL": REDIS_URL,
                    "PORTAL_JOB_FILES_DIR": str(directory / "jobs"),
                    "PORTAL_LOG_LEVEL": "WARNING"}  # fmt: skip
        with ExitStack() as portals:
            targets = report_the_list(measure_the_list(portals, directory, urls, settings))
        peaks = measure_memory(stack, directory, sandbox, urls["exports"], settings)
    targets.append(report_memory(peaks))
    print()
    print_targets(targets)
    print(f"Machine after: {machine_load()}")


def measure_the_list(stack: ExitStack, directory: Path, urls: dict[str, str],
                     settings: dict[str, str]) -> Listed:  # fmt: skip
    counts = {"few": FEW, "ten_thousand": LIST_SIZE, "many": MANY}
    portals, filled = {}, {}
    for name, count in counts.items():
        portals[count] = signed_in_portal(stack, directory / name, urls[name], settings)
        filled[count] = fill(urls[name], count)
    ten_thousand = portals[LIST_SIZE]
    page_sizes = {LIST_PATH: ten_thousand.page(LIST_PATH, LIST_COUNT),
                  ADMIN_PATH: ten_thousand.page(ADMIN_PATH, ADMIN_ROWS)}  # fmt: skip
    loads = list_against_admin(ten_thousand, page_sizes)
    times = pages_in_turn({FEW: portals[FEW], MANY: portals[MANY]}, LIST_PATH, LIST_COUNT,
                          SCALING_ROUNDS, SCALING_REQUESTS, WARMUP)  # fmt: skip
    return Listed(loads, page_sizes, times, filled)


def fill(database: str, count: int) -> float:
    """`count` passports of the benchmark's business made by grower (signed in already, and
    made a superuser) written to the portal's `database`, vacuumed and analysed; the seconds it
    took."""
    started = time.perf_counter()
    with psycopg.connect(database, autocommit=True) as connection:
        user = made_superuser(connection)
        connection.execute(
            sql.SQL(FILL_PASSPORTS).format(code=sql.SQL(_short_code_of_n())),
            {"membership": MEMBERSHIP_GUID, "site": SITE_GUID, "store": STORE_GUID,
             "business": BUSINESS, "user": user, "count": count, "minutes": MINUTES_APART},
        )  # fmt: skip
        connection.execute("VACUUM ANALYZE passports_passport")
    return time.perf_counter() - started


def list_against_admin(portal: SignedIn, page_sizes: dict[str, int]) -> list[tuple[Load, Load]]:
    """wrk on the list and on the admin, in turn, the order swapped every round."""
    url, cookie = portal.url, portal.headers["Cookie"]
    labels = {LIST_PATH: "list, filtered by crop", ADMIN_PATH: "admin, filtered by crop"}
    for path, holding in ((LIST_PATH, LIST_COUNT), (ADMIN_PATH, ADMIN_ROWS)):
        for _ in range(WARMUP):  # untimed, one at a time: the workers warm
            portal.page(path, holding)
    loads = []
    for n in range(1, LOAD_ROUNDS + 1):
        paths = [LIST_PATH, ADMIN_PATH] if n % 2 else [ADMIN_PATH, LIST_PATH]
        found = {path: wrk(url + path, cookie, f"{n}: {labels[path]}", CONNECTIONS,
                           LOAD_SECONDS, page_sizes[path])
                 for path in paths}  # fmt: skip
        loads.append((found[LIST_PATH], found[ADMIN_PATH]))
    return loads


def measure_memory(stack: ExitStack, directory: Path, sandbox: Sandbox, database: str,
                   settings: dict[str, str]) -> dict[int, int]:  # fmt: skip
    """The worker's peak memory over an export of about SMALL passports and one of about
    LARGE, on a portal of its own with the sandbox's passports recorded."""
    portal = signed_in_portal(stack, directory / "exports", database, settings)
    worker_env = {**os.environ, "PORTAL_DEVELOPMENT": "true", **settings,
                  "DATABASE_URL": database}  # fmt: skip
    setup_django({**settings, "DATABASE_URL": database})
    client = AssuranceClient(sandbox.url)
    credentials = BearerToken(client.login(DEMO_USER, DEMO_PASSWORD).token)
    bench = Bench(portal.url, portal.headers["Cookie"], portal, client, credentials, sandbox,
                  directory, worker_env, stack)  # fmt: skip
    record_the_sandboxs_passports(bench)
    return memory(bench)


def report_the_list(listed: Listed) -> list[Target]:
    """Prints the list's figures (before the exports', which take long); its targets."""
    print("\nThe portals' databases, filled: "
          + ", ".join(f"{count:,} passports in {seconds:.1f} s"
                      for count, seconds in listed.filled.items()) + ".")  # fmt: skip
    print(f"\nWith {LIST_SIZE:,} passports: the list filtered by crop "
          f"({listed.sizes[LIST_PATH]:,} bytes a page) and the admin's changelist filtered by "
          f"crop ({listed.sizes[ADMIN_PATH]:,} bytes), with wrk at {CONNECTIONS} connections "
          f"(a request each) for {LOAD_SECONDS} s each, in turn:")  # fmt: skip
    print_loads([load for pair in listed.loads for load in pair])
    print(f"Ratios of the list's throughput to the admin's: "
          f"{', '.join(f'{r:.2f}' for r in listed.ratios)}")  # fmt: skip
    few, many = listed.times[FEW], listed.times[MANY]
    print(f"\nThe list filtered by crop, one request at a time, {SCALING_ROUNDS} rounds of "
          f"{SCALING_REQUESTS} on each portal in turn:")  # fmt: skip
    print_timings([(f"list, {MANY:,} passports", many), (f"list, {FEW:,} passports", few)])
    scaling = many.median / few.median
    print(f"With {MANY:,} it takes {ms(many.median - few.median)} more, {scaling:.2f} times "
          f"as long.", flush=True)  # fmt: skip
    return [
        AtLeast(f"list / admin by crop, {LIST_SIZE:,} passports, throughput (median of "
                f"{LOAD_ROUNDS})", statistics.median(listed.ratios), ADMIN_RATIO, "x"),
        Target(f"list by crop, {MANY:,} / {FEW:,} passports, medians", scaling, SCALING_RATIO,
               "x", True),
    ]  # fmt: skip


def report_memory(peaks: dict[int, int]) -> Target:
    (small, small_peak), (large, large_peak) = sorted(peaks.items())
    print(f"\nThe worker's peak memory: {small_peak / 1024:.0f} MiB over an export of {small}, "
          f"{large_peak / 1024:.0f} MiB over one of {large:,}.")  # fmt: skip
    return Target(f"worker peak memory, export of {large:,} / of {small}",
                  large_peak / small_peak, MEMORY_RATIO, "x", True)  # fmt: skip


if __name__ == "__main__":
    main()
