"""The business's passports, for bench/passports.py (it is not a benchmark of its own): a batch
against single creations, the list with 10,000 passports against the home page, an export of
200 against the same PDFs fetched, and the worker's memory over exports of 100 and 1,000.

It works with the portal's database through Django in this process (the portal's SQLite file):
to record the sandbox's passports in it, and to see when a job has ended.
"""

from __future__ import annotations

import io
import os
import re
import sqlite3
import statistics
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from bench.common import (
    REQUEST_TIMEOUT,
    AtLeast,
    Load,
    Sandbox,
    Target,
    Timing,
    csrf_token,
    print_loads,
    print_targets,
    print_timings,
    stop_process,
    wrk,
)
from bench.exports import pool_peak_kib
from portal.assurance.client import AssuranceClient, BearerToken
from scripts import servers

PASSPORTS = 10_000  # generate_large_data's passports, of "Benchmark Farms Ltd"
BATCH, BATCH_ROUNDS = 50, 3
LIST_ROUNDS, LIST_SECONDS, CONNECTIONS = 5, 5, 16
LIST_PATH, HOME_PATH = "/passports/?crop=Wheat", "/"
EXPORT, EXPORT_ROUNDS, CONCURRENCY = 200, 3, 4
SMALL, LARGE = 100, 1_000
BATCH_RATIO, LIST_RATIO, EXPORT_RATIO, MEMORY_RATIO = 1.2, 0.5, 1.2, 1.2
JOB_SECONDS = 300
POLL_SECONDS = 0.2  # how often the benchmark looks whether a job has ended
RECORD_THREADS = 8
EXPORT_PATH = "/passports/export"


@dataclass
class Bench:
    """What bench/passports.py has started: the portal (its address, the grower's cookie and a
    session with it), the service's client and the grower's token, the sandbox, the benchmark's
    directory, the worker's environment and the stack that stops what is started."""

    url: str
    cookie: str
    portal: Any  # bench.passports.Portal
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
    singles: list[float] = field(default_factory=list)
    loads: list[tuple[Load, Load]] = field(default_factory=list)
    export: list[float] = field(default_factory=list)
    fetched: list[float] = field(default_factory=list)
    memory: dict[int, int] = field(default_factory=dict)
    list_bytes: int = 0


def setup_django(settings: dict[str, str]) -> None:
    os.environ.update(DJANGO_SETTINGS_MODULE="portal.settings", PORTAL_DEVELOPMENT="true",
                      **settings)  # fmt: skip
    import django

    django.setup()


def measure(bench: Bench, choice: Any) -> Found:
    """`choice` is bench.passports' Choice: the form's fields, and the request they make."""
    found = Found()
    today = date.today()
    for _ in range(BATCH_ROUNDS):
        taken, waited = batch_of_50(bench, choice.form_data(today))
        found.batch.append(taken)
        found.batch_waits.append(waited)
        request = choice.request(today)
        started = time.perf_counter()
        for _ in range(BATCH):
            bench.client.create_passport(bench.credentials, request)
        found.singles.append((time.perf_counter() - started) * 1000)
    codes = record_the_sandboxs_passports(bench)
    found.list_bytes = len(bench.portal.get(LIST_PATH).content)
    home_bytes = len(bench.portal.get(HOME_PATH).content)
    for _ in range(LIST_ROUNDS):
        listed = wrk(bench.url + LIST_PATH, bench.cookie, "list, filtered by crop", CONNECTIONS,
                     LIST_SECONDS, found.list_bytes)  # fmt: skip
        home = wrk(bench.url + HOME_PATH, bench.cookie, "home page", CONNECTIONS, LIST_SECONDS,
                   home_bytes)  # fmt: skip
        found.loads.append((listed, home))
    for n in range(EXPORT_ROUNDS):  # the same PDFs each way (the sandbox keeps none made)
        chosen = codes[n * EXPORT : (n + 1) * EXPORT]
        if n % 2:
            found.fetched.append(fetched_alone(bench, chosen))
        found.export.append(export(bench, chosen))
        if not n % 2:
            found.fetched.append(fetched_alone(bench, chosen))
    found.memory = memory(bench)
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
    """Every passport of the sandbox's benchmark membership recorded in the portal, as one
    added by its code is (the service's record, fetched through the client); their codes,
    newest first."""
    from django.contrib.auth import get_user_model

    from portal.passports.models import Passport

    with closing(sqlite3.connect(f"file:{bench.sandbox.database}?mode=ro", uri=True)) as db:
        codes = [row[0] for row in db.execute(
            "SELECT p.short_code FROM sandbox_passport p JOIN sandbox_membership m "
            "ON p.membership_id = m.id WHERE m.business_name = 'Benchmark Farms Ltd' "
            "ORDER BY p.created DESC")]  # fmt: skip
    with ThreadPoolExecutor(RECORD_THREADS) as pool:
        fetched = list(pool.map(lambda code: bench.client.passport(bench.credentials, code),
                                codes))  # fmt: skip
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
    has ended; its ZIP checked."""
    token = csrf_token(bench.portal.get("/passports/").text)
    data = {"csrfmiddlewaretoken": token, "format": "zip", "scope": "ticked", "code": codes}
    started = time.time()
    answer = bench.portal.http.post(bench.url + EXPORT_PATH, data=data,
                                    headers=bench.portal.headers, allow_redirects=False,
                                    timeout=REQUEST_TIMEOUT)  # fmt: skip
    job = _until_ended(_job_of(answer))
    taken = (job.finished.timestamp() - started) * 1000
    _check_zip(job, codes)
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


def report(found: Found) -> None:
    batch, singles = Timing(tuple(found.batch)), Timing(tuple(found.singles))
    export_, fetched = Timing(tuple(found.export)), Timing(tuple(found.fetched))
    print(f"\nThe business's passports: {BATCH_ROUNDS} rounds of a batch of {BATCH} and of "
          f"{BATCH} single creations; {EXPORT_ROUNDS} of an export of {EXPORT} and of the same "
          f"number of PDFs fetched {CONCURRENCY} at once.")  # fmt: skip
    print_timings([
        (f"portal: batch of {BATCH}, POST to its job ended", batch),
        (f"service: {BATCH} create calls, one after another", singles),
        (f"portal: export of {EXPORT}, POST to its job ended", export_),
        (f"service: {EXPORT} PDF calls, {CONCURRENCY} at once", fetched),
    ])  # fmt: skip
    waits = ", ".join(f"{wait:.0f}" for wait in found.batch_waits)
    print(f"A batch's job started {waits} ms after its POST.")
    print(f"\nThe list with {PASSPORTS:,} passports, filtered by crop ({found.list_bytes:,} "
          f"bytes a page), and the home page, with wrk at {CONNECTIONS} connections for "
          f"{LIST_SECONDS} s each, {LIST_ROUNDS} rounds:")  # fmt: skip
    print_loads([load for pair in found.loads for load in pair])
    ratios = [listed.throughput / home.throughput for listed, home in found.loads]
    print(f"Ratios of the list's throughput to the home page's: "
          f"{', '.join(f'{r:.2f}' for r in ratios)}")  # fmt: skip
    (few, small), (many, large) = sorted(found.memory.items())
    print(f"\nThe worker's peak memory: {small / 1024:.0f} MiB over an export of {few}, "
          f"{large / 1024:.0f} MiB over one of {many:,}.\n")  # fmt: skip
    print_targets([
        Target(f"batch of {BATCH} / {BATCH} single creations, medians",
               batch.median / singles.median, BATCH_RATIO, "x", True),
        AtLeast("list by crop / home page throughput, median of rounds",
                statistics.median(ratios), LIST_RATIO, "x"),
        Target(f"export of {EXPORT} / the same PDFs fetched, medians",
               export_.median / fetched.median, EXPORT_RATIO, "x", True),
        Target(f"worker peak memory, export of {many:,} / of {few}", large / small,
               MEMORY_RATIO, "x", True),
    ])  # fmt: skip
