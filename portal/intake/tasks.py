"""Intake's kind of job: a site's upload of tickets taken a row at a time
(portal/intake/uploads.py), run on a worker by portal.jobs. The uploaded file, kept in the jobs'
storage for the job, is removed with the job (expired and swept, or removed by staff)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db.models.signals import post_delete
from django.utils.translation import pgettext_lazy

from portal.assurance.client import Credentials
from portal.intake import uploads
from portal.jobs.models import Job
from portal.jobs.tasks import JobTask, Progress, ResultFile


class UploadTask(JobTask):
    counted = pgettext_lazy("a job's progress: 12 of 30 …", "rows read")
    running = pgettext_lazy("a job's progress", "recording")
    outcome_template = "intake/upload_outcome.html"

    def outcome(self, job: Job) -> dict[str, Any] | None:
        return uploads.outcome(job)


@shared_task(base=UploadTask, name=uploads.KIND)
def intake_upload(job: Job, credentials: Credentials, progress: Progress) -> ResultFile:
    """params: `site` (its id), `file` (its name in the jobs' storage), `name` (as uploaded),
    `kind` (csv or xlsx) and `rows` (counted when it was uploaded). The clerk's credentials are
    not used: each passport's verdict is asked through the portal's look-up account."""
    return uploads.run(job, progress)


def _forget_file(sender: type[Job], instance: Job, **kwargs: object) -> None:
    uploads.forget_file(instance)


# Connected where the task is known: on the workers, which sweep expired jobs, and in the web
# processes, whose upload page starts them (and whose admin may remove them).
post_delete.connect(_forget_file, sender=Job, dispatch_uid="intake.upload-file")
