"""A job's page and its progress fragment, the user's jobs, cancel, retry or resume, download.

Only a job's owner sees it or its file: anyone else gets 404. A kind whose task names a download
address of its own (JobTask.download_address) is downloaded there, at an address that checks
again that the owner may still have the file.

The progress fragment is polled by htmx with what the page shows (`?shown=`, Job.shown): it is
answered 204 while nothing has changed, so that nothing is swapped and a screen reader hears
only changes, and 286 once the job has ended, which stops the polling.
"""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.files.storage import FileSystemStorage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HTMX_STOP_POLLING

from portal.audit import events as audit
from portal.jobs import actions
from portal.jobs.models import Job
from portal.lib.htmx import wants_fragment

JOBS_LISTED = 100


def _get_job_for_owner(request: HttpRequest, job_id: int) -> Job:
    return get_object_or_404(Job, pk=job_id, owner=request.user)


@require_GET
@login_required
def job_list(request: HttpRequest) -> HttpResponse:
    jobs = Job.objects.filter(owner=request.user)[:JOBS_LISTED]
    context = {"jobs": jobs, "days": settings.PORTAL_JOB_RESULT_DAYS}
    return render(request, "jobs/list.html", context)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def job_page(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _get_job_for_owner(request, job_id)
    if wants_fragment(request):
        return progress_fragment(request, job)
    return render(request, "jobs/job.html", progress_context(job))


def progress_fragment(
    request: HttpRequest,
    job: Job,
    template: str = "jobs/progress.html",
    context: dict | None = None,
) -> HttpResponse:
    """The job's progress fragment (or another page's fragment of it, with its `context`):
    204 while the page already shows what there is to show, 286 once the job has ended."""
    if not job.has_ended and request.GET.get("shown") == job.shown:
        return HttpResponse(status=204)
    status = HTMX_STOP_POLLING if job.has_ended else 200
    return render(request, template, progress_context(job) | (context or {}), status=status)


def progress_context(job: Job) -> dict:
    """What jobs/progress.html shows of `job`: its kind's outcome once it has ended."""
    task = job.task
    outcome = task.outcome(job) if task is not None and job.has_ended else None
    return {"job": job, "outcome": outcome,
            "outcome_template": task.outcome_template if outcome is not None else ""}  # fmt: skip


@require_POST
@login_required
@vary_on_headers("HX-Request")
def cancel(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _get_job_for_owner(request, job_id)
    actions.cancel(job)
    return _after_change(request, job)


@require_POST
@login_required
@vary_on_headers("HX-Request")
def resume(request: HttpRequest, job_id: int) -> HttpResponse:
    """Retry a failed job, or resume one whose sign-in had ended, with the current sign-in."""
    job = _get_job_for_owner(request, job_id)
    actions.resume(request, job)
    return _after_change(request, job)


def _after_change(request: HttpRequest, job: Job) -> HttpResponse:
    job.refresh_from_db()
    if wants_fragment(request):
        return progress_fragment(request, job)
    return redirect("jobs:job", job_id=job.pk)


@require_GET
@login_required
def download(request: HttpRequest, job_id: int) -> HttpResponse:
    job = _get_job_for_owner(request, job_id)
    address = job.task.download_address(job) if job.task is not None else None
    if address:
        return redirect(address)
    if job.task is not None and job.task.downloaded_event and job.state == Job.State.DONE:
        audit.record(job.task.downloaded_event, request, job=job.pk)
    return result_response(job)


def result_response(job: Job) -> HttpResponse:
    """The file a job made, as a download; 404 while it has none (or once it has gone).
    Whoever calls it has checked that the user may have it.

    With PORTAL_PROTECTED_FILES_PREFIX set and the files on this machine's file system, the
    answer is empty and names the file in X-Accel-Redirect: nginx sends it from its internal
    location for that prefix (deploy/nginx/portal.conf.template), and no portal thread is
    held while a slow client reads it."""
    if job.state != Job.State.DONE or not job.result:
        raise Http404("This job has no file to download.")
    prefix = settings.PORTAL_PROTECTED_FILES_PREFIX
    if prefix and isinstance(job.result.storage, FileSystemStorage):
        return _sent_by_proxy(job, prefix)
    try:
        opened = job.result.open("rb")
    except FileNotFoundError:
        raise Http404("This job's file has gone.") from None
    return FileResponse(opened, as_attachment=True, filename=job.result_name,
                        content_type=job.result_type or None)  # fmt: skip


def _sent_by_proxy(job: Job, prefix: str) -> HttpResponse:
    if not job.result.storage.exists(job.result.name):
        raise Http404("This job's file has gone.")
    response = HttpResponse(content_type=job.result_type or "application/octet-stream")
    response["Content-Disposition"] = content_disposition_header(True, job.result_name)
    response["X-Accel-Redirect"] = prefix + quote(job.result.name)
    return response
