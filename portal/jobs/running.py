"""Starting, running, cancelling and resuming jobs.

A view starts a job with `start_job(request, kind, title, params, dedupe_key)`; the task is
sent once the transaction commits, carrying only the job's id. The worker calls `run(job_id)`,
which acts with the owner's token kept encrypted on the job's row, blanked once the job ends.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

import redis
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.files.base import ContentFile
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.http import HttpRequest
from django.utils import timezone

from portal.accounts import credentials
from portal.accounts.session import user_credentials
from portal.assurance.client import BearerToken
from portal.assurance.errors import AuthenticationRequired
from portal.jobs.models import Job
from portal.jobs.work import KINDS, JobCancelled, ResultFile, WorkFailed

log = logging.getLogger(__name__)

SIGN_IN_AGAIN = "Sign in again to finish this"
# Our own parts out of reach for a moment (Redis restarting, the database failing over): the
# job is tried again later rather than failed.
PASSING_TROUBLES = (redis.ConnectionError, redis.TimeoutError, OperationalError, InterfaceError)
PROGRESS_EVERY_SECONDS = 0.5  # the most often a job's counts are written


def start_job(
    request: HttpRequest, kind: str, title: str, params: dict, dedupe_key: str = ""
) -> Job:
    """A job of `kind` for the signed-in user, acting with their credentials; queued once the
    transaction commits. With a `dedupe_key`, the user's job of that key that is queued,
    running or done (its file not yet expired) is returned instead of a new one."""
    if kind not in KINDS:
        raise ValueError(f"No job of kind {kind!r}")
    token = user_credentials(request)  # AuthenticationRequired if the sign-in has ended
    if dedupe_key:
        same = _reusable(request.user, dedupe_key)
        if same is not None:
            return same
    job = Job.objects.create(
        kind=kind, owner=request.user, title=title, params=params, dedupe_key=dedupe_key,
        credential=credentials.encrypt(token.token),
    )  # fmt: skip
    _send(job)
    return job


def _reusable(owner: AbstractBaseUser, dedupe_key: str) -> Job | None:
    return (
        Job.objects.filter(owner=owner, dedupe_key=dedupe_key)
        .filter(state__in=(Job.State.QUEUED, Job.State.RUNNING, Job.State.DONE))
        .exclude(expires__lte=timezone.now())
        .first()
    )


def _send(job: Job) -> None:
    from portal.jobs.tasks import run_job  # the task module imports this one

    run_job.delay_on_commit(job.pk)


def cancel(job: Job) -> bool:
    """Cancels a job that has not ended; its worker stops at its next progress. False if it
    had ended."""
    now = timezone.now()
    changed = Job.objects.filter(pk=job.pk, state__in=(Job.State.QUEUED, Job.State.RUNNING))
    ended = changed.update(state=Job.State.CANCELLED, credential="", message="Cancelled.",
                           finished=now, touched=now, expires=_expiry(now))  # fmt: skip
    return bool(ended)


def _expiry(ended: datetime) -> datetime:
    return ended + timedelta(days=settings.PORTAL_JOB_RESULT_DAYS)


def resume(request: HttpRequest, job: Job) -> bool:
    """Queues a failed job again with the signed-in owner's current credentials (a job whose
    sign-in had ended, or one that failed). False if the job had not failed."""
    token = user_credentials(request)
    queued = Job.objects.filter(pk=job.pk, state=Job.State.FAILED).update(
        state=Job.State.QUEUED, credential=credentials.encrypt(token.token), message="",
        needs_sign_in=False, done=0, total=0, started=None, finished=None,
        touched=timezone.now(),
    )  # fmt: skip
    if queued:
        _send(job)
    return bool(queued)


# --- in the worker --------------------------------------------------------------------------------


def run(job_id: int) -> None:
    """Does the work of a job once: nothing if it has ended (a message delivered twice), its
    work again from the start if a worker died in it (the file of a run is written whole, under
    the job's one name, so a second run replaces rather than adds). Raises TryAgain when Redis
    or the database could not be reached meanwhile."""
    try:
        _run(job_id)
    except JobCancelled:
        return
    except PASSING_TROUBLES as trouble:
        raise TryAgain() from trouble


def _run(job_id: int) -> None:
    job = _claim(job_id)
    if job is None:
        return
    token = credentials.decrypt(job.credential)
    if not token:
        _stop_for_sign_in(job)
        return
    try:
        made = KINDS[job.kind](job, BearerToken(token), ProgressRecorder(job))
    except (JobCancelled, *PASSING_TROUBLES):
        raise
    except AuthenticationRequired:
        _stop_for_sign_in(job)
    except WorkFailed as failure:
        _fail(job, str(failure))
    except SoftTimeLimitExceeded:
        _fail(job, "This took too long and was stopped. Try again later.")
    except Exception:
        log.exception("Job %s failed", job_id)
        _fail(job, "Something went wrong while making this. Try again.")
    else:
        _finish(job, made)


def _claim(job_id: int) -> Job | None:
    """The job, marked running, or None if it is not there to run."""
    now = timezone.now()
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.state not in (Job.State.QUEUED, Job.State.RUNNING):
            return None
        job.state = Job.State.RUNNING
        job.started = job.started or now
        job.touched = now
        job.save(update_fields=["state", "started", "touched"])
    return job


def _finish(job: Job, made: ResultFile) -> None:
    storage = job.result.storage
    name = job.result.field.generate_filename(job, made.name)
    storage.delete(name)  # a run before this one, cut short after it wrote its file
    saved = storage.save(name, ContentFile(made.content))
    now = timezone.now()
    finished = Job.objects.filter(pk=job.pk, state=Job.State.RUNNING).update(
        state=Job.State.DONE, result=saved, result_name=made.name,
        result_type=made.content_type, done=Greatest(F("done"), F("total")), credential="",
        message="", finished=now, touched=now,
        expires=_expiry(now),
    )  # fmt: skip
    if not finished:  # cancelled meanwhile: it keeps no file
        storage.delete(saved)


def _fail(job: Job, message: str, *, needs_sign_in: bool = False) -> None:
    now = timezone.now()
    Job.objects.filter(pk=job.pk, state=Job.State.RUNNING).update(
        state=Job.State.FAILED, message=message, needs_sign_in=needs_sign_in, credential="",
        finished=now, touched=now,
        expires=_expiry(now),
    )  # fmt: skip


def _stop_for_sign_in(job: Job) -> None:
    _fail(job, SIGN_IN_AGAIN, needs_sign_in=True)


class TryAgain(Exception):
    """The job met a passing trouble of the portal's own parts: run it again later."""


class ProgressRecorder:
    """`progress(done, total)` for a job's work: writes the counts at most every
    PROGRESS_EVERY_SECONDS (and the last), never lower than before (a job run again counts
    from the start), and raises JobCancelled once the job is no longer running."""

    def __init__(self, job: Job) -> None:
        self.job_id = job.pk
        self.last_write = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last_write < PROGRESS_EVERY_SECONDS:
            return
        self.last_write = now
        written = Job.objects.filter(pk=self.job_id, state=Job.State.RUNNING).update(
            done=Greatest(F("done"), done), total=total, touched=timezone.now()
        )
        if not written:
            raise JobCancelled()
