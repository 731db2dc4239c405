"""Jobs run in the test's own process, as a worker runs them (through their kind's task, on
portal.jobs.tasks.JobTask); tests/portal/jobs/test_worker.py runs them on a real worker."""

from __future__ import annotations

import threading

from django.db import connection

from portal.jobs.models import Job


def run(job: Job | int) -> Job:
    """The job run once, as a worker runs it; the job as it is afterwards."""
    pk = job if isinstance(job, int) else job.pk
    queued = Job.objects.get(pk=pk)
    queued.task(pk)
    return Job.objects.get(pk=pk)


def run_queued(kind: str) -> Job:
    """The one queued job of `kind` run, as a worker runs it; the job as it is afterwards."""
    return run(Job.objects.get(kind=kind, state=Job.State.QUEUED))


def run_in_the_background(kind: str) -> threading.Thread:
    """The queued job of `kind` run in a thread, as a worker would run it."""
    job = Job.objects.get(kind=kind, state=Job.State.QUEUED)

    def run_and_close() -> None:
        try:
            run(job)
        finally:
            connection.close()  # the thread's own

    worker = threading.Thread(target=run_and_close)
    worker.start()
    return worker


def configure_celery(**settings: object) -> None:
    """This process's Celery app given `settings` (by Celery's own names: `broker_url=...`). The
    app reads its settings from Django's, under their CELERY_ names, and Celery 5.6 keeps
    reading those when the plain name is assigned: each is set under its CELERY_ name."""
    from portal.celery import app

    app.conf.update({f"CELERY_{name.upper()}": value for name, value in settings.items()})
