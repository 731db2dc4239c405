"""The standards' own kinds of job: a whole scheme as a PDF checklist or as CSV (run on a worker
by portal.jobs, with the credentials of the user who asked)."""

from __future__ import annotations

from celery import shared_task

from portal.assurance.client import Credentials
from portal.jobs.models import Job
from portal.jobs.tasks import JobTask, Progress, ResultFile
from portal.standards import exports


@shared_task(base=JobTask, name="scheme-export-pdf")
def scheme_pdf(job: Job, credentials: Credentials, progress: Progress) -> ResultFile:
    scheme = _whole_scheme(job, credentials, progress)
    return ResultFile(scheme.file_name("pdf"), "application/pdf", exports.scheme_pdf(scheme))


@shared_task(base=JobTask, name="scheme-export-csv")
def scheme_csv(job: Job, credentials: Credentials, progress: Progress) -> ResultFile:
    scheme = _whole_scheme(job, credentials, progress)
    content = exports.scheme_csv(scheme.sections)
    return ResultFile(scheme.file_name("csv"), "text/csv; charset=utf-8", content)


def _whole_scheme(job: Job, credentials: Credentials, progress: Progress) -> exports.WholeScheme:
    """The scheme the job names, its sections counted as done as they come, and one step left
    for making the file."""
    stage, scheme_guid = job.params["stage"], job.params["scheme_guid"]
    return exports.whole_scheme(credentials, stage, scheme_guid, progress, steps_after=1)
