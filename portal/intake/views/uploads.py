"""A site's day of tickets uploaded at once (`/intake/<site>/upload`), for the site's clerks only
(anyone else: 404, as for a site that is not there): the form, with the template to download and
its columns explained, and the clerk's recent uploads; the file sent is checked at once for what
it is (its rows are counted and read by the job, never in the request), and taken by a job whose
page shows its progress and then its report (portal/intake/uploads.py).

The body of a request larger than the upload may be is refused before any of it is read (its
Content-Length), and a file that grows past it while it comes is not kept (uploads.AtMostBytes):
so the view takes the request before Django's CSRF check reads the body, and checks CSRF itself
once its upload handler is in place.
"""

from __future__ import annotations

import uuid

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_safe

from portal.audit import events as audit
from portal.intake import access, quality, uploads
from portal.intake.models import IntakeSite
from portal.intake.tasks import intake_upload
from portal.jobs.actions import start_job
from portal.jobs.models import Job

TEMPLATE = "intake/upload.html"
RECENT = 10
# A form's own fields and a multipart body's boundaries, beside the file.
BODY_BEYOND_THE_FILE = 64 * 1024
TEMPLATE_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def _site_of_clerk(request: HttpRequest, site_code: str) -> IntakeSite:
    return get_object_or_404(access.sites_of(request.user), code=site_code)


@csrf_exempt  # checked below, once the upload's handler is in place
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def upload(request: HttpRequest, site_code: str) -> HttpResponse:
    site = _site_of_clerk(request, site_code)
    if request.method != "POST":
        return _page(request, site, uploads.UploadForm())
    if _declared_length(request) > uploads.UPLOAD_BYTES + BODY_BEYOND_THE_FILE:
        form = uploads.UploadForm({"key": uuid.uuid4()}, {}, too_large=True)  # nothing read
        return _page(request, site, form, status=413)
    limit = uploads.AtMostBytes(request)
    request.upload_handlers.insert(0, limit)
    return _sent(request, site, limit)


@csrf_protect
def _sent(request: HttpRequest, site: IntakeSite, limit: uploads.AtMostBytes) -> HttpResponse:
    form = uploads.UploadForm(request.POST, request.FILES, too_large=limit.too_large)
    if not form.is_valid():
        return _page(request, site, form, status=413 if limit.too_large else 400)
    params = uploads.upload_params(site, form)
    with transaction.atomic():

        def title() -> str:
            return gettext("Tickets of %(site)s: %(file)s") % {
                "site": site.name, "file": params["name"],
            }  # fmt: skip

        job = start_job(request, intake_upload, title, params,
                        f"{uploads.KIND}:{form.cleaned_data['key']}")  # fmt: skip
        if "file" not in job.params:  # a new job, not the one this form started already
            job.params["file"] = uploads.keep_file(job, form.cleaned_data["file"])
            Job.objects.filter(pk=job.pk).update(params=job.params)
            audit.record(audit.Kind.INTAKE_UPLOAD, request, site=site.code, job=job.pk,
                         file_kind=params["kind"])  # fmt: skip
    return HttpResponseRedirect(reverse("jobs:job", args=[job.pk]), status=303)


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _page(
    request: HttpRequest, site: IntakeSite, form: uploads.UploadForm, status: int = 200
) -> HttpResponse:
    recent = Job.objects.filter(owner=request.user, kind=uploads.KIND,
                                params__site=site.pk)[:RECENT]  # fmt: skip
    context = {
        "site": site, "form": form, "recent": recent, "columns": uploads.columns_explained(),
        "reasons": quality.REASONS, "rows": f"{uploads.row_limit():,}",
    }  # fmt: skip
    return render(request, TEMPLATE, context, status=status)


@login_required
@require_safe
def template(request: HttpRequest, site_code: str, kind: str) -> HttpResponse:
    """The upload's template, as CSV or as a workbook: the columns and an example row."""
    site = _site_of_clerk(request, site_code)
    if kind not in TEMPLATE_TYPES:
        raise Http404("There is a CSV template and a workbook.")
    content = uploads.template_csv() if kind == "csv" else uploads.template_xlsx()
    response = HttpResponse(content, content_type=TEMPLATE_TYPES[kind])
    name = f"tickets-{site.code}.{kind}"
    response["Content-Disposition"] = content_disposition_header(True, name)
    return response
