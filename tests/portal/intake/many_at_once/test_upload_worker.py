"""An upload of a site's tickets on a real Celery worker (tests/workers.py's: a
Redis of the test's own as its broker and cache, the test database on PostgreSQL), its worker
killed with SIGKILL halfway: the worker that takes the job on records the rest, nothing twice,
and the report calls every row this upload recorded "recorded"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from portal.intake import uploads
from portal.intake.models import Load, LoadEntry, UploadedRow
from portal.jobs.models import Job
from tests.portal.intake.builders import tickets_file, upload_row
from tests.portal.intake.many_at_once.uploading import report_of, sent
from tests.services import wait_for
from tests.workers import ON_A_WORKER, Worker, started, worker_environment

pytestmark = ON_A_WORKER
ROWS = 600
# Long enough for the upload; a job of the killed worker is handed on after the time-out.
UPLOAD_TIME_LIMIT, UPLOAD_VISIBILITY_TIMEOUT = 20, 25


@pytest.fixture
def upload_worker(redis_server, upstream_sandbox, job_files, tmp_path) -> Iterator[Worker]:
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files, PORTAL_JOB_TIME_LIMIT=str(UPLOAD_TIME_LIMIT),
        PORTAL_JOB_VISIBILITY_TIMEOUT=str(UPLOAD_VISIBILITY_TIMEOUT),
        ASSURANCE_LOOKUP_USERNAME="haulier", ASSURANCE_LOOKUP_PASSWORD="haulier-demo-pass",
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


def test_an_upload_whose_worker_was_killed_records_each_row_once(clerk, site, code, upload_worker):
    table = [upload_row(code, f"T-{n:04}") for n in range(ROWS)]
    table[10]["gross_kg"] = "-5"
    assert sent(clerk, site, tickets_file(table)).status_code == 303
    job = Job.objects.get(kind=uploads.KIND)
    wait_for(lambda: Load.objects.count() >= 50, "the upload to be under way")
    upload_worker.kill()
    recorded_then = Load.objects.count()
    assert recorded_then < ROWS - 1 and Job.objects.get(pk=job.pk).state == Job.State.RUNNING
    upload_worker.start()
    wait_for(lambda: Job.objects.get(pk=job.pk).has_ended, "the upload to end", 300)
    job = Job.objects.get(pk=job.pk)
    assert job.state == Job.State.DONE, job.message
    assert job.message == f"{ROWS - 1:,} recorded, 1 refused."
    assert Load.objects.count() == LoadEntry.objects.count() == ROWS - 1
    assert UploadedRow.objects.filter(job=job).count() == ROWS - 1
    outcomes = [line["outcome"] for line in report_of(job)]
    assert outcomes.count("recorded") == ROWS - 1 and outcomes[10] == "refused"
