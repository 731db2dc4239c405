"""A passport's PDF for its page: fetched from the service by a job of the user's (the
`passport-pdf` kind, portal.passports.tasks) and kept as the job's file. The job is started when
the portal makes the passport, and when a contact asks for the PDF on the passport's page (a
POST: a passport made elsewhere, or by another contact, or a fetch that failed)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _

from portal.jobs import actions
from portal.jobs.models import Job
from portal.passports import codes
from portal.passports.tasks import passport_pdf, pdf_job_key


def start(request: HttpRequest, short_code: str) -> Job:
    """The signed-in user's job fetching the PDF of the passport `short_code` (in any form;
    the job keeps it as codes.normalise gives it): a new one, or theirs under way or done, or
    theirs that failed, queued again with their current sign-in."""
    short_code = codes.normalise(short_code) or short_code
    params = {"short_code": short_code}
    return actions.start_job(
        request, passport_pdf, lambda: _("PDF of passport %(code)s") % {"code": short_code},
        params, dedupe_key=pdf_job_key(short_code),
    )  # fmt: skip


def latest(request: HttpRequest, short_code: str) -> Job | None:
    """The signed-in user's latest job for this passport's PDF, whatever its state, unless it
    has expired."""
    jobs = Job.objects.filter(owner=request.user, kind=passport_pdf.name,
                              dedupe_key=pdf_job_key(short_code))  # fmt: skip
    return jobs.exclude(expires__lte=timezone.now()).first()
