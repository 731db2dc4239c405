"""An upload of a site's tickets on a real Celery worker (tests/portal/jobs/test_worker.py's: a
Redis of the test's own as its broker and cache, the test database on PostgreSQL), its worker
killed with SIGKILL halfway: the worker that takes the job on records the rest, nothing twice,
and the report calls every row this upload recorded "recorded"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from portal.intake import uploads
from portal.intake.models import Load, LoadEntry, UploadedRow
from portal.jobs.models import Job
from scripts.servers import free_port
from tests.portal.intake.builders import tickets_file, upload_row
from tests.portal.intake.many_at_once.uploading import report_of, sent
from tests.portal.jobs import test_worker
from tests.portal.jobs.test_worker import Worker, started, worker_environment
from tests.services import PrivateRedis, wait_for

pytestmark = test_worker.pytestmark
ROWS = 600
# Long enough for the upload; a job of the killed worker is handed on after the time-out.
UPLOAD_TIME_LIMIT, UPLOAD_VISIBILITY_TIMEOUT = 20, 25


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A Redis of the test's own, that this process sends its jobs to."""
    server = PrivateRedis(free_port(), tmp_path)
    server.start()
    before = test_worker.app.conf.broker_url
    test_worker._send_to(server.url)
    yield server
    server.kill()
    test_worker._send_to(before)


@pytest.fixture
def upload_worker(broker, upstream_sandbox, job_files, tmp_path) -> Iterator[Worker]:
    environment = worker_environment(
        broker, upstream_sandbox, job_files, PORTAL_JOB_TIME_LIMIT=str(UPLOAD_TIME_LIMIT),
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
