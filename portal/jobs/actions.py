"""The web's side of jobs: starting, cancelling and resuming them for the signed-in user.

A view starts a job of a kind (a task on portal.jobs.tasks.JobTask) with
`start_job(request, task, title, params, dedupe_key)`; the task is sent once the transaction
commits, carrying only the job's id, and runs on a worker with the user's credentials, kept
encrypted on the job's row.
"""

from __future__ import annotations

from collections.abc import Callable

from celery.contrib.django.task import DjangoTask
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from portal.accounts import credentials, preferences
from portal.accounts.language import written_in
from portal.accounts.session import user_credentials
from portal.jobs.models import Job, expiry

LANGUAGES = [code for code, _ in settings.LANGUAGES]


# A job's title: written once (in the language of the page), or written by a function in each
# language, so that the pages show it in theirs (Job.shown_title).
Title = str | Callable[[], str]


def _titled(title: Title) -> dict[str, object]:
    """The job's `title` (in the current language) and its `titles` in each language."""
    if isinstance(title, str):
        return {"title": title[:200]}
    written = written_in(LANGUAGES, title)
    titles = {language: said[:200] for language, said in zip(LANGUAGES, written, strict=True)}
    return {"title": titles.get(translation.get_language()) or title()[:200], "titles": titles}


def start_job(
    request: HttpRequest, task: DjangoTask, title: Title, params: dict, dedupe_key: str = ""
) -> Job:
    """A job of `task`'s kind for the signed-in user, acting with their credentials; queued
    once the transaction commits. With a `dedupe_key`, the user's job of that key that is
    queued, running or done (its file not yet expired) is returned instead of a new one, and
    one that failed is queued again, to go on where it stopped."""
    token = user_credentials(request)  # AuthenticationRequired if the sign-in has ended
    if dedupe_key:
        same = _reusable(request.user, dedupe_key)
        if same is not None and (same.state != Job.State.FAILED or resume(request, same)):
            same.refresh_from_db()
            return same
    job = Job.objects.create(
        kind=task.name, owner=request.user, params=params, dedupe_key=dedupe_key,
        credential=credentials.encrypt(token.token), language=translation.get_language(),
        **_titled(title),
    )  # fmt: skip
    task.delay_on_commit(job.pk)
    return job


def queue_for(
    owner: AbstractBaseUser, task: DjangoTask, title: Title, params: dict, countdown: int = 0
) -> Job:
    """A job of `task`'s kind for `owner` that the portal starts of its own accord, not at a
    request of theirs (a mail to them): a kind that acts with no credentials (its task's
    `acts_as_owner` is off). Queued once the transaction commits, to start `countdown` seconds
    later (a short wait: far less than the broker's visibility time-out); listed among their
    jobs."""
    if getattr(task, "acts_as_owner", True):
        raise ValueError(f"{task.name} acts with its owner's credentials: start it with start_job.")
    language = preferences.language(owner) or settings.LANGUAGE_CODE
    job = Job.objects.create(kind=task.name, owner=owner, params=params, language=language,
                             **_titled(title))  # fmt: skip
    task.apply_async_on_commit((job.pk,), countdown=countdown)
    return job


def queue_again(job: Job) -> bool:
    """Queues again from the start a failed job that the portal started of its own accord (a
    kind that acts with no credentials: a mail to its owner, tried again later); False if it
    had not failed."""
    if getattr(job.task, "acts_as_owner", True):
        raise ValueError(f"{job.kind} acts with its owner's credentials: they resume it.")
    return _queue_again(job, Job.objects.all())


def _reusable(owner: AbstractBaseUser, dedupe_key: str) -> Job | None:
    return (
        Job.objects.filter(owner=owner, dedupe_key=dedupe_key)
        .exclude(state=Job.State.CANCELLED)
        .exclude(expires__lte=timezone.now())
        .first()
    )


def cancel(job: Job) -> bool:
    """Cancels a job that has not ended; its worker stops at its next progress. False if it
    had ended."""
    now = timezone.now()
    changed = Job.objects.filter(pk=job.pk, state__in=(Job.State.QUEUED, Job.State.RUNNING))
    ended = changed.update(state=Job.State.CANCELLED, credential="", message=_("Cancelled."),
                           finished=now, touched=now, expires=expiry(now))  # fmt: skip
    return bool(ended)


def retry_as_staff(job: Job) -> bool:
    """Queues a failed job again with the credentials it kept (staff retrying it from the
    admin); False if it had not failed, kept none where its kind needs them (its sign-in had
    ended: its owner resumes it), or is of a kind this portal no longer has."""
    needs_credentials = getattr(job.task, "acts_as_owner", True)
    jobs = Job.objects.exclude(credential="") if needs_credentials else Job.objects.all()
    return _queue_again(job, jobs)


def resume(request: HttpRequest, job: Job) -> bool:
    """Queues a failed job again with the signed-in owner's current credentials (a job whose
    sign-in had ended, or one that failed). False if the job had not failed, or is of a kind
    this portal no longer has."""
    token = user_credentials(request)
    return _queue_again(job, Job.objects.all(), credential=credentials.encrypt(token.token),
                        needs_sign_in=False)  # fmt: skip


def _queue_again(job: Job, jobs: QuerySet[Job], **changed: object) -> bool:
    """Queues `job` again from the start, with `changed`, if it failed and is among `jobs`;
    False otherwise, or if it is of a kind this portal no longer has."""
    task = job.task
    if task is None:
        return False
    queued = jobs.filter(pk=job.pk, state=Job.State.FAILED).update(
        state=Job.State.QUEUED, message="", done=0, total=0, started=None, finished=None,
        touched=timezone.now(), **changed,
    )  # fmt: skip
    if queued:
        task.delay_on_commit(job.pk)
    return bool(queued)
