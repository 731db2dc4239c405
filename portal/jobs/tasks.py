"""The Celery tasks: one that runs any job (its message holds only the job's id), and the
periodic sweep that Celery beat runs."""

from __future__ import annotations

from datetime import timedelta

from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from portal.jobs import running
from portal.jobs.models import Job

# Sending a job again while Redis restarts: keep trying for about a minute.
SEND_AGAIN_POLICY = {"max_retries": 30, "interval_start": 1, "interval_step": 1, "interval_max": 2}


@shared_task(name="portal.jobs.tasks.run_job", bind=True, max_retries=30,
             acks_late=True, reject_on_worker_lost=True)  # fmt: skip
def run_job(self: Task, job_id: int) -> None:
    try:
        running.run(job_id)
    except running.TryAgain as trouble:
        raise self.retry(countdown=2, retry_policy=SEND_AGAIN_POLICY) from trouble


@shared_task(name="portal.jobs.tasks.sweep")
def sweep() -> None:
    remove_expired()
    send_lost_again()


def remove_expired() -> int:
    """Removes the jobs past their expiry, and their files; how many."""
    expired = Job.objects.filter(expires__lte=timezone.now())
    for job in expired.exclude(result=""):
        job.result.delete(save=False)
    removed, _ = expired.delete()
    return removed


def send_lost_again() -> int:
    """Sends again the jobs whose message was lost (a broker that lost its data, a worker
    killed on a broker without a visibility time-out): queued or running, with no sign of life
    for longer than any job may run and its message be handed on. A job sent twice runs once."""
    quiet_since = timezone.now() - timedelta(
        seconds=settings.PORTAL_JOB_VISIBILITY_TIMEOUT + settings.PORTAL_JOB_TIME_LIMIT
    )
    lost = Job.objects.filter(state__in=(Job.State.QUEUED, Job.State.RUNNING),
                              touched__lt=quiet_since)  # fmt: skip
    job_ids = list(lost.values_list("pk", flat=True))
    for job_id in job_ids:
        run_job.delay(job_id)
    return len(job_ids)
