"""A passport's PDF, fetched from the service by a job (portal.jobs) and kept as the job's file:
started as soon as the portal has made the passport, and by its page for a contact who has none
yet (a passport made elsewhere, or another contact of its membership)."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone

from portal.assurance.client import Credentials
from portal.assurance.errors import StatusNotValid
from portal.jobs import running
from portal.jobs.models import Job
from portal.jobs.work import Progress, ResultFile, WorkFailed
from portal.passports import codes
from portal.service import client

KIND = "passport-pdf"
CLAIM_NOT_VALID = (
    "The Assurance service gives no PDF of this passport while its membership's assurance "
    "claim is not valid."
)


def passport_pdf(job: Job, credentials: Credentials, progress: Progress) -> ResultFile:
    short_code = job.params["short_code"]
    try:
        content = client().passport_pdf(credentials, short_code)
    except StatusNotValid:
        raise WorkFailed(CLAIM_NOT_VALID) from None
    return ResultFile(f"passport-{short_code}.pdf", "application/pdf", content)


def download_address(job: Job) -> str:
    """Where the job's PDF is downloaded: the passport's own address for it, which checks again
    that its owner is still a contact of the passport's membership."""
    return reverse("passports:pdf", args=[job.params["short_code"]])


KINDS = {KIND: passport_pdf}
DOWNLOADS = {KIND: download_address}


def start(request: HttpRequest, short_code: str) -> Job:
    """The signed-in user's job fetching the PDF of the passport `short_code` (in any form;
    the job keeps it as codes.normalise gives it): a new one, or theirs under way or done."""
    short_code = codes.normalise(short_code) or short_code
    title = f"PDF of passport {short_code}"
    params = {"short_code": short_code}
    return running.start_job(request, KIND, title, params, dedupe_key=_key(short_code))


def latest(request: HttpRequest, short_code: str) -> Job | None:
    """The signed-in user's latest job for this passport's PDF, whatever its state, unless it
    has expired."""
    jobs = Job.objects.filter(owner=request.user, kind=KIND, dedupe_key=_key(short_code))
    return jobs.exclude(expires__lte=timezone.now()).first()


def for_page(request: HttpRequest, short_code: str) -> Job:
    """The job a passport's page shows: the user's latest, even a failed one (offered again
    with a retry), or one started now if they have none."""
    job = latest(request, short_code)
    if job is None or job.state == Job.State.CANCELLED:
        return start(request, short_code)
    return job


def again(request: HttpRequest, short_code: str) -> Job:
    """The user's job after they asked for the PDF again: a failed one queued once more with
    their current sign-in, or a job under way, done or new as `start` gives it."""
    job = latest(request, short_code)
    if job is not None and job.state == Job.State.FAILED:
        running.resume(request, job)
        job.refresh_from_db()
        return job
    return start(request, short_code)


def _key(short_code: str) -> str:
    return f"{KIND}:{short_code}"
