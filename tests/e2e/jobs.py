"""Jobs in the browser tests: run in a thread of the test's own process, as a worker would run
them (tests/portal/jobs/test_worker.py runs jobs on a real worker)."""

from __future__ import annotations

import threading

from django.db import connection

from portal.jobs import running
from portal.jobs.models import Job


def run_in_the_background(kind: str) -> threading.Thread:
    """The queued job of `kind` run in a thread, as a worker would run it."""
    job = Job.objects.get(kind=kind, state=Job.State.QUEUED)

    def run() -> None:
        try:
            running.run(job.pk)
        finally:
            connection.close()  # the thread's own

    worker = threading.Thread(target=run)
    worker.start()
    return worker
