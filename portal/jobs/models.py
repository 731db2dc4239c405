"""The one job model: a slow task of some kind, its owner, its state and progress, its file."""

from __future__ import annotations

import zlib
from datetime import datetime, timedelta

from celery import current_app
from celery.app.task import Task
from django.conf import settings
from django.core.files.storage import Storage, storages
from django.db import models
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy


def result_storage() -> Storage:
    """Where result files go (STORAGES["jobs"]): a shared object store when workers run on
    several machines."""
    return storages["jobs"]


def result_path(job: Job, filename: str) -> str:
    """One name for each job, so that a job that runs again overwrites its file."""
    return f"jobs/{job.pk}/result"


def expiry(ended: datetime) -> datetime:
    """When a job that ended at `ended` is removed, with its file."""
    return ended + timedelta(days=settings.PORTAL_JOB_RESULT_DAYS)


class Job(models.Model):
    class State(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("job state", "Waiting to start")
        RUNNING = "running", pgettext_lazy("job state", "Running")
        DONE = "done", pgettext_lazy("job state", "Done")
        FAILED = "failed", pgettext_lazy("job state", "Failed")
        CANCELLED = "cancelled", pgettext_lazy("job state", "Cancelled")

    ENDED = (State.DONE, State.FAILED, State.CANCELLED)

    kind = models.CharField(gettext_lazy("kind"), max_length=64)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+",
                              verbose_name=gettext_lazy("owner"))  # fmt: skip
    title = models.CharField(
        gettext_lazy("title"), max_length=200,
        help_text=gettext_lazy("What the job makes, for people."),
    )  # fmt: skip
    # The title in each language, where the job was given one it can write in each: the pages
    # show the one of their language (`shown_title`); else `title`, as it was written.
    titles = models.JSONField(gettext_lazy("titles"), default=dict, blank=True)
    state = models.CharField(
        gettext_lazy("state"), max_length=16, choices=State.choices, default=State.QUEUED
    )
    done = models.PositiveIntegerField(gettext_lazy("done"), default=0)
    total = models.PositiveIntegerField(gettext_lazy("total"), default=0)
    message = models.CharField(gettext_lazy("message"), max_length=300, blank=True)
    # Failed because the owner's sign-in had ended: resumed once they sign in again.
    needs_sign_in = models.BooleanField(gettext_lazy("needs sign-in"), default=False)
    result = models.FileField(
        gettext_lazy("result"), storage=result_storage, upload_to=result_path, blank=True
    )
    result_name = models.CharField(gettext_lazy("result name"), max_length=200, blank=True)
    result_type = models.CharField(gettext_lazy("result type"), max_length=100, blank=True)
    params = models.JSONField(gettext_lazy("parameters"), default=dict, blank=True)
    # The language of the page it was started from (or its owner's choice, for a job the
    # portal starts of its own accord): what it writes (its file, its message, its mail) is in
    # it, as the page was.
    language = models.CharField(
        gettext_lazy("language"), max_length=8, choices=settings.LANGUAGES, default="en-gb"
    )
    dedupe_key = models.CharField(
        gettext_lazy("dedupe key"), max_length=200, blank=True, db_index=True
    )
    # The owner's upstream token, encrypted (portal.accounts.credentials); blank once ended.
    credential = models.TextField(gettext_lazy("credential"), blank=True)
    created = models.DateTimeField(gettext_lazy("created"), auto_now_add=True)
    started = models.DateTimeField(gettext_lazy("started"), null=True, blank=True)
    finished = models.DateTimeField(gettext_lazy("finished"), null=True, blank=True)
    expires = models.DateTimeField(gettext_lazy("expires"), null=True, blank=True)
    # Last change of state or progress: a job queued or running without one for too long was
    # lost (tasks.sweep sends it again).
    touched = models.DateTimeField(gettext_lazy("touched"), auto_now_add=True)

    class Meta:
        verbose_name = gettext_lazy("job")
        verbose_name_plural = gettext_lazy("jobs")
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["owner", "-created"]),
            # /metrics counts the jobs waiting or running, and those ended in the last hour,
            # through these two: its work grows with neither the jobs kept nor those ever made
            # (portal/jobs/collectors.py).
            models.Index(
                fields=["state", "kind", "touched"],
                condition=models.Q(state__in=["queued", "running"]),
                name="jobs_job_waiting_or_running",
            ),
            models.Index(fields=["finished"], name="jobs_job_finished"),
            # The staff dashboard's jobs of the last day (portal/dashboard/figures.py).
            models.Index(fields=["created"], name="jobs_job_created"),
        ]

    def __str__(self) -> str:
        """What the admin titles the job by: its kind (a code, as staff search for it) and its
        state in the page's language."""
        return f"{self.kind} #{self.pk} ({self.get_state_display()})"

    @property
    def shown_title(self) -> str:
        """The title in the language of the page that shows it, where the job has it."""
        return self.titles.get(translation.get_language()) or self.title

    @property
    def task(self) -> Task | None:
        """The Celery task that runs jobs of this kind (portal.jobs.tasks.JobTask), or None
        for a kind this portal no longer has."""
        return current_app.tasks.get(self.kind)

    @property
    def shown(self) -> str:
        """What a page shows of the job's progress, in short: a fragment that shows this has
        nothing new to show (portal.jobs.views.progress_fragment answers 204). The message
        counts too: a job waiting to be tried again says when."""
        return f"{self.state}.{self.done}.{self.total}.{zlib.crc32(self.message.encode()):x}"

    @property
    def progress(self) -> str:
        """What the job's progress says of it, after its title: "running, 12 of 30 made" (its
        kind's words, JobTask.progress_of)."""
        task = self.task
        if task is None:  # a kind this portal no longer has
            return self.get_state_display().lower()
        return task.progress_of(self)

    @property
    def has_ended(self) -> bool:
        return self.state in self.ENDED

    @property
    def percent(self) -> int:
        return min(100, self.done * 100 // self.total) if self.total else 0

    @property
    def time_left(self) -> str:
        """An estimate of the time left, for people ("about 20 seconds left"), or "" while
        there is nothing to go on."""
        if self.state != self.State.RUNNING or not (self.started and self.done and self.total):
            return ""
        elapsed = (timezone.now() - self.started).total_seconds()
        seconds = round(elapsed / self.done * max(0, self.total - self.done))
        if seconds < 5:
            return _("a few seconds left")
        if seconds < 90:
            seconds = (seconds + 4) // 5 * 5
            return ngettext("about %(seconds)s second left", "about %(seconds)s seconds left",
                            seconds) % {"seconds": seconds}  # fmt: skip
        minutes = round(seconds / 60)
        return ngettext("about %(minutes)s minute left", "about %(minutes)s minutes left",
                        minutes) % {"minutes": minutes}  # fmt: skip
