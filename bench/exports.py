"""The export of a whole scheme as a job: its PDF, its progress bookkeeping, a worker's memory.

    python -m bench exports

Starts two sandboxes of its own with the large data: one with the benchmark scheme of 2,000
standard points, one where it has 300. In this process (Django set up with a temporary SQLite
database, the standards cache in memory) it reads the 2,000-point scheme through the portal's
client and times, in turn and in the same run:

- `exports.scheme_pdf(scheme)`, the checklist as a job makes it, against a bare
  `weasyprint.HTML(html, base_url=static).write_pdf()` of the same HTML with the same
  stylesheet (target: at most 1.3 times as long);
- the reading of the whole scheme (`exports.whole_scheme`, every section from the warm cache and
  its points arranged) with a job's progress bookkeeping (`tasks.ProgressRecorder` writing its
  counts to the job's row) against the same with none (target: at most 1.05 times as long).

Then it starts a Celery worker (one process, on Redis database 14 and the temporary database)
and runs twenty PDF exports of the 300-point scheme one after another through it, reading the
peak memory of the process that runs them after each (target: it levels off: the mean of the
last five at most 10% above the mean of the first five). The worker replaces that process after
PORTAL_JOB_TASKS_PER_CHILD jobs, as in production.
"""

from __future__ import annotations

import os
import statistics
import time
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from tempfile import TemporaryDirectory

from bench.common import (
    SCHEME_GUID,
    Target,
    heading,
    machine_load,
    print_table,
    print_targets,
    running_sandbox,
    size,
    stop_process,
)
from scripts import servers

REDIS_URL = "redis://127.0.0.1:6379/14"
RENDERS = 2  # of each PDF, in turn
READS = 5  # of the whole scheme, with and without bookkeeping, in turn
EXPORTS = 20  # through the worker
PDF_RATIO, BOOKKEEPING_RATIO, MEMORY_GROWTH = 1.3, 1.05, 1.10


def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return (time.perf_counter() - started) * 1000, result


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples):.0f} ms"


def main() -> None:
    heading("bench.exports: a whole scheme, exported as a job")
    print(f"Machine before: {machine_load()}")
    with ExitStack() as stack:
        directory = Path(stack.enter_context(TemporaryDirectory(prefix="bench-exports-")))
        large = stack.enter_context(running_sandbox())
        small = stack.enter_context(running_sandbox(points=300, passports=10))
        os.environ.update(
            DJANGO_SETTINGS_MODULE="portal.settings",
            PORTAL_DEVELOPMENT="true",
            PORTAL_LOG_LEVEL="WARNING",
            DATABASE_URL=f"sqlite:///{directory / 'portal.sqlite3'}",
            REDIS_URL=REDIS_URL,
            PORTAL_JOB_FILES_DIR=str(directory / "jobs"),
            ASSURANCE_BASE_URL=large.url,
        )
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        rows, targets = pdf_and_bookkeeping(large.token())
        memory = worker_memory(small, directory)
    report(rows, targets, memory)


def pdf_and_bookkeeping(token: str) -> tuple[list[list[str]], list[Target]]:
    import weasyprint
    from django.template.loader import render_to_string
    from django.test.utils import override_settings

    from portal.assurance.client import BearerToken
    from portal.jobs.tasks import ProgressRecorder
    from portal.standards import exports

    grower = BearerToken(token)
    in_memory = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(CACHES=in_memory):
        exports.whole_scheme(grower, "live", SCHEME_GUID)  # the cache made warm
        job = running_job()
        plain, kept = [], []
        for _ in range(READS):
            plain.append(timed(lambda: exports.whole_scheme(grower, "live", SCHEME_GUID))[0])
            recorder = ProgressRecorder(job)
            kept.append(
                timed(partial(exports.whole_scheme, grower, "live", SCHEME_GUID, recorder))[0]
            )
        scheme = exports.whole_scheme(grower, "live", SCHEME_GUID)

    html = render_to_string("standards/scheme_checklist.html", {"scheme": scheme})
    styles = exports.STATIC.as_uri() + "/"  # where its stylesheet is, as the export reads it
    weasyprint.HTML(string="<p>Fonts and styles loaded.</p>").write_pdf()
    renders: dict[str, list[float]] = {"bare": [], "ours": []}
    sizes = {}
    for _ in range(RENDERS):
        for name, render in (
            ("bare", lambda: weasyprint.HTML(string=html, base_url=styles).write_pdf()),
            ("ours", lambda: exports.scheme_pdf(scheme)),
        ):
            taken, pdf = timed(render)
            renders[name].append(taken)
            sizes[name] = len(pdf)

    print(f"\nThe scheme: {scheme.point_count} standard points in {len(scheme.sections)} sections.")
    rows = [
        [
            "bare weasyprint.HTML(html, base_url).write_pdf()",
            median_ms(renders["bare"]),
            size(sizes["bare"]),
        ],
        ["exports.scheme_pdf(scheme)", median_ms(renders["ours"]), size(sizes["ours"])],
        ["whole_scheme, warm cache, no bookkeeping", median_ms(plain), ""],
        ["whole_scheme, warm cache, the job's bookkeeping", median_ms(kept), ""],
    ]
    pdf_ratio = statistics.median(renders["ours"]) / statistics.median(renders["bare"])
    kept_ratio = statistics.median(kept) / statistics.median(plain)
    return rows, [
        Target("scheme PDF / bare WeasyPrint, median", pdf_ratio, PDF_RATIO, "x", True),
        Target("with bookkeeping / without, median", kept_ratio, BOOKKEEPING_RATIO, "x", True),
    ]


def running_job():
    """A job row as a worker holds it while it runs, for the bookkeeping to write to."""
    from django.contrib.auth import get_user_model

    from portal.jobs.models import Job

    owner, _ = get_user_model().objects.get_or_create(username="grower")
    return Job.objects.create(kind="scheme-export-pdf", owner=owner, title="Bench",
                              params={}, state=Job.State.RUNNING)  # fmt: skip


# --- a worker's memory ----------------------------------------------------------------------------


def worker_memory(sandbox, directory: Path) -> list[int]:
    """The peak resident memory (KiB) of the process running the jobs, after each export."""
    from django.contrib.auth import get_user_model

    from portal.accounts import credentials
    from portal.jobs.models import Job
    from portal.standards.tasks import scheme_pdf

    env = {**os.environ, "ASSURANCE_BASE_URL": sandbox.url}
    worker = servers.start_worker(env, concurrency=1, log=directory / "worker.log")
    try:
        owner, _ = get_user_model().objects.get_or_create(username="grower")
        token = credentials.encrypt(sandbox.token())
        peaks = []
        for n in range(EXPORTS):
            job = Job.objects.create(
                kind=scheme_pdf.name, owner=owner, title=f"Bench export {n + 1}",
                params={"stage": "live", "scheme_guid": SCHEME_GUID}, credential=token,
            )  # fmt: skip
            scheme_pdf.delay(job.pk)
            peaks.append(peak_while_running(job, worker.pid))
        return peaks
    finally:
        stop_process(worker)


def peak_while_running(job, worker_pid: int, seconds: float = 300) -> int:
    """The highest peak memory (KiB) of the worker's pool process seen while `job` ran."""
    deadline = time.monotonic() + seconds
    peak = 0
    while time.monotonic() < deadline:
        peak = max(peak, pool_peak_kib(worker_pid))
        job.refresh_from_db()
        if job.has_ended:
            if job.state != job.State.DONE:
                raise RuntimeError(f"Export {job.title} ended {job.state}: {job.message}")
            return peak
        time.sleep(0.2)
    raise RuntimeError(f"Export {job.title} did not end in {seconds:.0f} s")


def pool_peak_kib(worker_pid: int) -> int:
    """VmHWM of the worker's pool process (the one that runs the jobs), 0 while there is none
    (between one that was replaced and the next)."""
    children = Path(f"/proc/{worker_pid}/task/{worker_pid}/children").read_text().split()
    peak = 0
    for child in children:
        try:
            status = Path(f"/proc/{child}/status").read_text()
        except FileNotFoundError:  # it ended meanwhile
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM"):
                peak = max(peak, int(line.split()[1]))
    return peak


def report(rows: list[list[str]], targets: list[Target], memory: list[int]) -> None:
    print_table(["work", "median", "size"], rows)
    first, last = statistics.mean(memory[:5]), statistics.mean(memory[-5:])
    in_mib = ", ".join(f"{kib / 1024:.0f}" for kib in memory)
    print(f"\nPeak memory of the worker's pool process after each of {EXPORTS} exports of the "
          f"300-point scheme (MiB): {in_mib}")  # fmt: skip
    targets.append(Target("worker peak memory, last five / first five", last / first,
                          MEMORY_GROWTH, "x", True))  # fmt: skip
    print(f"Machine after: {machine_load()}\n")
    print_targets(targets)


if __name__ == "__main__":
    main()
