"""The worker's side of jobs: the base task every kind of job runs on, and the periodic sweep.

A kind of job is a Celery task on `JobTask`, named by the kind (Celery is the registry: a job's
`kind` is its task's name). The task's function does the work and returns the file it made (or
None, for a job whose work is all it does):

    @shared_task(base=JobTask, name="scheme-export-csv")
    def scheme_csv(job: Job, credentials: Credentials, progress: Progress) -> ResultFile: ...

It acts with `credentials` (the token of the user who asked, kept encrypted on the job's row and
blanked once the job ends), calls `progress(done, total)` as it goes, and may raise the
service's errors (AuthenticationRequired stops the job until its owner signs in again) or
WorkFailed with a message that tells its owner why it cannot be made. The task's message holds
only the job's id; JobTask claims the job, runs the work, and finishes or fails it. A job runs
again from the start if its worker died in it: its file is written whole, under the job's one
name, so that a second run replaces rather than adds.

Views start jobs with portal.jobs.actions, which never imports this module.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import IO, Any, Protocol

import redis
from celery import shared_task
from celery.contrib.django.task import DjangoTask
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.files.base import ContentFile, File
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy

from portal.accounts import credentials, lockout
from portal.assurance.client import BearerToken
from portal.assurance.errors import AuthenticationRequired, Unavailable
from portal.audit import events as audit
from portal.jobs.models import Job, expiry
from portal.operations import periodic, recording

log = logging.getLogger(__name__)

SIGN_IN_AGAIN = gettext_lazy("Sign in again to finish this")
# Our own parts out of reach for a moment (Redis restarting, the database failing over): the
# job is tried again later rather than failed.
PASSING_TROUBLES = (redis.ConnectionError, redis.TimeoutError, OperationalError, InterfaceError)
# Sending a job again while Redis restarts: keep trying for about a minute.
SEND_AGAIN_POLICY = {"max_retries": 30, "interval_start": 1, "interval_step": 1, "interval_max": 2}
PROGRESS_EVERY_SECONDS = 0.5  # the most often a job's counts are written


@dataclass(frozen=True, slots=True)
class ResultFile:
    """The file a job made: what the download is called, its type, and its bytes (or an open
    file, read from its start, for a file too large to hold in memory). `note` is said on the
    job's page beside the download."""

    name: str
    content_type: str
    content: bytes | IO[bytes]
    note: str = ""


class JobCancelled(Exception):
    """Raised by `progress` when the job's owner has cancelled it: the work stops there."""


class WorkFailed(Exception):
    """Raised by a kind's work that cannot be done, with a message for the job's owner: the
    job fails with it (and may be retried), rather than with the general one."""


class TryAgain(Exception):
    """Raised by a kind's work that met a trouble outside the portal likely to pass (a mail
    server that does not answer, or says "try later"), with a message for the job's owner: the
    job waits and is tried again, up to its task's `tries` in all, waiting `first_wait`
    seconds and twice as long each time; then it fails with the message."""


class Progress(Protocol):
    def __call__(self, done: int, total: int) -> None:
        """Records that `done` of `total` steps are done; raises JobCancelled if the job was
        cancelled meanwhile."""


class JobTask(DjangoTask):
    """The base of every kind of job: claims the job, runs the task's function with the
    owner's credentials and a progress recorder, and finishes or fails the job."""

    acks_late = True
    reject_on_worker_lost = True
    max_retries = 30
    do_not_call_in_templates = True  # a page may read the task's words
    # A job's task is sent the job's id alone; its function is given the job, the credentials
    # and the progress by __call__, so Celery does not check what it is sent against it.
    typing = False
    # What its progress says of it, after its title, while it runs with a count of its steps,
    # and once it has failed with one: whole phrases for each kind ("running, 12 of 30 made"),
    # the plural chosen by the total (progress_of).
    counted_running = ngettext_lazy(
        "running, %(done)s of %(total)s done", "running, %(done)s of %(total)s done", "total"
    )
    counted_failed = ngettext_lazy(
        "failed, %(done)s of %(total)s done", "failed, %(done)s of %(total)s done", "total"
    )
    # What its progress says of it while it runs without a count, if not "running": "sending".
    running = ""
    # The audit trail's kind of event for a download of its file, if it records one.
    downloaded_event = ""
    # A job whose work raises TryAgain: how many tries in all, and the first wait between.
    tries = 1
    first_wait = 30
    # Whether the job acts at the service with its owner's credentials. A kind that asks the
    # service nothing (a mail the portal sends its owner of its own accord, with no request
    # to take credentials from) runs without: its function is given None.
    acts_as_owner = True

    def __call__(self, job_id: int) -> None:
        try:
            self.run_job(job_id)
        except JobCancelled:
            return
        except PASSING_TROUBLES as trouble:
            raise self.retry(countdown=2, retry_policy=SEND_AGAIN_POLICY) from trouble

    def run_job(self, job_id: int) -> None:
        """Does the work of the job once: nothing if it has ended (a message delivered twice)."""
        job = _claim(job_id)
        if job is None:
            return
        with translation.override(job.language):  # what it writes is in the page's language
            self._run_claimed(job)

    def _run_claimed(self, job: Job) -> None:
        job_id = job.pk
        token = credentials.decrypt(job.credential) if self.acts_as_owner else ""
        if self.acts_as_owner and not token:
            _stop_for_sign_in(job)
            return
        try:
            made = self.run(job, BearerToken(token) if token else None, ProgressRecorder(job))
        except (JobCancelled, *PASSING_TROUBLES):
            raise
        except AuthenticationRequired:
            _stop_for_sign_in(job)
        except WorkFailed as failure:
            _fail(job, str(failure))
        except TryAgain as trouble:
            self._try_again_later(job, trouble)
        except SoftTimeLimitExceeded:
            _fail(job, _("This took too long and was stopped. Try again later."))
        except Unavailable as unavailable:  # the client has logged the call
            log.warning("Job %s failed: %s", job_id, unavailable)
            _fail(job, _("The Assurance service did not answer. Try again in a few minutes."))
        except Exception:
            log.exception("Job %s failed", job_id)
            _fail(job, _("Something went wrong while making this. Try again."))
        else:
            _finish(job, made)

    def _try_again_later(self, job: Job, trouble: TryAgain) -> None:
        tried = self.request.retries + 1
        if tried >= self.tries:
            _fail(job, ngettext("%(trouble)s Tried %(tries)s times; retry later.",
                                "%(trouble)s Tried %(tries)s times; retry later.",
                                tried) % {"trouble": trouble, "tries": tried})  # fmt: skip
            return
        wait = self.first_wait * 2 ** (tried - 1)
        again = timezone.localtime() + timedelta(seconds=wait)
        said = _("%(trouble)s Trying again at %(time)s.") % {
            "trouble": trouble, "time": f"{again:%H:%M:%S}"
        }  # fmt: skip
        Job.objects.filter(pk=job.pk, state=Job.State.RUNNING).update(
            state=Job.State.QUEUED, message=said[:300], touched=timezone.now(),
        )  # fmt: skip
        raise self.retry(countdown=wait, max_retries=self.tries, exc=trouble)

    # What a kind may say of its jobs to the pages (portal.jobs.views), by overriding these.

    def progress_of(self, job: Job) -> str:
        """What the job's progress says of it after its title, in the kind's words: its count
        while it runs or once it has failed ("running, 12 of 30 made"), else its state."""
        counts = {"done": job.done, "total": job.total}
        if job.total and job.state == Job.State.RUNNING:
            return self.counted_running % counts
        if job.total and job.state == Job.State.FAILED:
            return self.counted_failed % counts
        if job.state == Job.State.RUNNING and self.running:
            return str(self.running)
        return job.get_state_display().lower()

    def download_address(self, job: Job) -> str | None:
        """Where the job's file is downloaded, if not at the job's own address: an address that
        checks again that its owner may still have it (a passport's PDF, while they are a
        contact of its membership)."""
        return None

    def outcome(self, job: Job) -> dict[str, Any] | None:
        """What the job's page shows of what the job made, once it has ended, as the context
        of the task's `outcome_template`; None for nothing more than its file."""
        return None

    outcome_template = ""


class MailingTask(JobTask):
    """A job that hands mail to the mail server: tried again as the portal's mail is
    (PORTAL_MAIL_TRIES, PORTAL_MAIL_RETRY_SECONDS)."""

    running = gettext_lazy("sending")
    counted_running = ngettext_lazy(
        "sending, %(done)s of %(total)s sent", "sending, %(done)s of %(total)s sent", "total"
    )
    counted_failed = ngettext_lazy(
        "failed, %(done)s of %(total)s sent", "failed, %(done)s of %(total)s sent", "total"
    )

    @property
    def tries(self) -> int:
        return settings.PORTAL_MAIL_TRIES

    @property
    def first_wait(self) -> int:
        return settings.PORTAL_MAIL_RETRY_SECONDS


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


def _finish(job: Job, made: ResultFile | None) -> None:
    """The job done, with the file it made kept (if it made one)."""
    saved, kept = "", {}
    if made is not None:
        saved = _keep(job, made)
        kept = {"result": saved, "result_name": made.name, "result_type": made.content_type}
    now = timezone.now()
    finished = Job.objects.filter(pk=job.pk, state=Job.State.RUNNING).update(
        state=Job.State.DONE, done=Greatest(F("done"), F("total")), credential="",
        message=made.note[:300] if made else "", finished=now, touched=now,
        expires=expiry(now), **kept,
    )  # fmt: skip
    if saved and not finished:  # cancelled meanwhile: it keeps no file
        job.result.storage.delete(saved)


def _keep(job: Job, made: ResultFile) -> str:
    """The job's file written to its storage, under the job's one name; the name it has."""
    storage = job.result.storage
    name = job.result.field.generate_filename(job, made.name)
    storage.delete(name)  # a run before this one, cut short after it wrote its file
    if isinstance(made.content, bytes):
        content = ContentFile(made.content, name=made.name)
    else:
        content = File(made.content, name=made.name)
    try:
        return storage.save(name, content)
    finally:
        content.close()


def _fail(job: Job, message: str, *, needs_sign_in: bool = False) -> None:
    """The job failed. Its owner's credentials stay (encrypted) until it expires, so that staff
    may retry it from the admin; not those that no longer work."""
    now = timezone.now()
    kept = {"credential": ""} if needs_sign_in else {}
    Job.objects.filter(pk=job.pk, state=Job.State.RUNNING).update(
        state=Job.State.FAILED, message=message[:300], needs_sign_in=needs_sign_in,
        finished=now, touched=now, expires=expiry(now), **kept,
    )  # fmt: skip


def _stop_for_sign_in(job: Job) -> None:
    _fail(job, str(SIGN_IN_AGAIN), needs_sign_in=True)


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


# --- the periodic sweep (Celery beat) -------------------------------------------------------------


@shared_task(name="portal.jobs.tasks.sweep")
def sweep() -> None:
    """The periodic sweep, sent by Celery beat (portal/jobs/beat.py); recorded once all of it
    is done, for /readyz and the dashboard to say when it last ran."""
    remove_expired()
    send_lost_again()
    audit.prune()
    lockout.forget_expired()
    recording.fold()
    recording.prune()
    periodic.record_finished(periodic.SWEEP)


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
    sent = 0
    for job in lost:
        if job.task is None:
            log.warning("Job %s is of no kind this worker knows (%s)", job.pk, job.kind)
            continue
        job.task.delay(job.pk)
        sent += 1
    return sent
