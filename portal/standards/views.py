"""Standards pages: schemes, a scheme, a section, a standard point, search, what has changed.

Each view asks the standards cache (`cached`) for the service's records and renders one
template. Upstream errors (no such scheme or section, the service unreachable) become the 404
and 503 pages in `portal.errors`, a bad request the 400 page.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.encoding import escape_uri_path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from portal.accounts.session import user_credentials
from portal.assurance import records
from portal.assurance.errors import NotFound
from portal.jobs.actions import start_job
from portal.jobs.views import progress_fragment
from portal.lib.htmx import wants_fragment
from portal.lib.references import parse_reference
from portal.standards import cached, exports, tasks
from portal.standards import changes as changes_of
from portal.standards.addresses import LIVE, PREVIEW, points_address, sector_of
from portal.standards.filters import Filters
from portal.standards.points import arrange
from portal.standards.search import SectionHits, is_reference, matches
from portal.standards.section_page import SectionListing, section_part


@login_required
def schemes(request: HttpRequest) -> HttpResponse:
    credentials = user_credentials(request)
    live = cached.schemes(credentials, LIVE)
    preview = cached.schemes(credentials, PREVIEW)
    return render(request, "standards/schemes.html", {
        "live": live, "preview": preview, "fetched": [live, preview],
    })  # fmt: skip


@login_required
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def scheme(request: HttpRequest, scheme_guid: str, stage: str = LIVE) -> HttpResponse:
    credentials = user_credentials(request)
    listing = cached.sections(credentials, stage, scheme_guid)
    sections = cached.sections_in_order(listing.record.sections)
    sectors = sorted({s.sector_prefix for s in sections if s.sector_prefix})
    sector = request.GET.get("sector", "")
    if sector not in sectors:
        sector = ""
    context = {
        "stage": stage,
        "scheme": listing.record,
        "sections": [s for s in sections if s.sector_prefix == sector] if sector else sections,
        "sectors": sectors,
        "sector": sector,
        # The live page links to the preview, if the scheme has one.
        "has_preview": stage == LIVE
        and bool(cached.scheme_name(credentials, PREVIEW, scheme_guid)),
        "fetched": [listing],
    }
    template = "standards/scheme.html"
    return render(request, template + ("#sections" if wants_fragment(request) else ""), context)


@login_required
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def section(
    request: HttpRequest, scheme_guid: str, sector: str, prefix: str, stage: str = LIVE
) -> HttpResponse:
    credentials = user_credentials(request)
    fetched, schemes = cached.section_and_schemes(
        credentials, stage, scheme_guid, prefix, sector_of(sector)
    )
    if wants_fragment(request):
        made = section_part(request, "points", stage, scheme_guid, fetched, schemes)
        # The address shown and shared names only the filters that apply ("?critical=1"), not
        # every field of the form ("?aim=&revision=&critical=1").
        return push_url(HttpResponse(made.html), escape_uri_path(request.path) + made.query)
    made = section_part(request, "content", stage, scheme_guid, fetched, schemes)
    return render(request, "standards/section.html", {"made": made, "fetched": [fetched]})


@login_required
def point(
    request: HttpRequest, scheme_guid: str, reference: str, stage: str = LIVE
) -> HttpResponse:
    """A standard point's permanent address, by its reference (`CR.ST.3`)."""
    parsed = parse_reference(reference)
    if parsed is None or not parsed.is_point:
        raise Http404("Not a standard point's reference.")
    credentials = user_credentials(request)
    fetched = cached.section(credentials, stage, scheme_guid, parsed.section, parsed.sector)
    the_point = next(iter(arrange(fetched.record, reference)), None)
    if the_point is None:
        raise Http404("No such standard point.")
    return render(request, "standards/point.html", {
        "stage": stage, "scheme_guid": scheme_guid, "section": fetched.record,
        "scheme_name": cached.scheme_name(credentials, stage, scheme_guid), "p": the_point,
        "points_address": points_address(stage, scheme_guid), "fetched": [fetched],
    })  # fmt: skip


@login_required
def search(request: HttpRequest, scheme_guid: str, stage: str = LIVE) -> HttpResponse:
    query = request.GET.get("q", "").strip()[:100]
    credentials = user_credentials(request)
    listing = cached.sections(credentials, stage, scheme_guid)
    groups: list[SectionHits] = []
    if query:
        for entry, data in cached.every_section(credentials, stage, scheme_guid, listing.record):
            hits = [hit for p in arrange(data) if (hit := matches(p, query))]
            if hits:
                groups.append(SectionHits.of(entry, hits))
    return render(request, "standards/search.html", {
        "stage": stage, "scheme": listing.record, "scheme_guid": scheme_guid, "query": query,
        "groups": groups, "count": sum(len(g.hits) for g in groups),
        "by_reference": is_reference(query), "fetched": [listing],
    })  # fmt: skip


@login_required
def changes(request: HttpRequest, scheme_guid: str) -> HttpResponse:
    """The preview against the live standards, section by section and point by point."""
    credentials = user_credentials(request)
    preview_listing = cached.sections(credentials, PREVIEW, scheme_guid)
    preview = _by_key(credentials, PREVIEW, scheme_guid, preview_listing.record)
    try:
        live_listing = cached.sections(credentials, LIVE, scheme_guid)
    except NotFound:  # a scheme in preview only: every section is new
        live = {}
    else:
        live = _by_key(credentials, LIVE, scheme_guid, live_listing.record)
    keys = list(preview) + [k for k in live if k not in preview]
    sections = [changes_of.compare_section(k, live.get(k), preview.get(k)) for k in keys]
    return render(request, "standards/changes.html", {
        "scheme": preview_listing.record, "scheme_guid": scheme_guid,
        "changed": [s for s in sections if s.kind != "unchanged"],
        "unchanged": [s for s in sections if s.kind == "unchanged"], "fetched": [preview_listing],
    })  # fmt: skip


def _by_key(
    credentials, stage: str, scheme_guid: str, listing: records.SectionList
) -> dict[str, records.SectionData]:
    """Each section's content by its code (`CR.ST`)."""
    return {
        ".".join(filter(None, (entry.sector_prefix, entry.prefix))): data
        for entry, data in cached.every_section(credentials, stage, scheme_guid, listing)
    }


# --- downloads ------------------------------------------------------------------------------------


EXPORTS = {"pdf": tasks.scheme_pdf, "csv": tasks.scheme_csv}


def _export_title(kind: str, stage: str, name: str) -> str:
    """The job's title, as its list shows it, in the language of the page that started it."""
    titles = {
        ("pdf", LIVE): _("%(scheme)s as a PDF checklist"),
        ("pdf", PREVIEW): _("%(scheme)s (preview) as a PDF checklist"),
        ("csv", LIVE): _("%(scheme)s as CSV"),
        ("csv", PREVIEW): _("%(scheme)s (preview) as CSV"),
    }
    return titles[kind, stage] % {"scheme": name}


@require_POST
@login_required
@vary_on_headers("HX-Request")
def scheme_export(request: HttpRequest, scheme_guid: str, stage: str = LIVE) -> HttpResponse:
    """Starts the export of the whole scheme as a job, or finds the one already made of its
    content as it is now; its progress takes the form's place (or has a page of its own)."""
    kind = request.POST.get("format", "")
    task = EXPORTS.get(kind)
    if task is None:
        raise BadRequest("No such format of export.")
    credentials = user_credentials(request)
    version = exports.scheme_version(credentials, stage, scheme_guid)
    name = cached.scheme_name(credentials, stage, scheme_guid) or _("The scheme")
    params = {"stage": stage, "scheme_guid": scheme_guid}
    job = start_job(request, task, lambda: _export_title(kind, stage, name), params,
                    f"{task.name}:{stage}:{scheme_guid}:{version}")  # fmt: skip
    if wants_fragment(request):
        return progress_fragment(request, job)
    return redirect("jobs:job", job_id=job.pk)


@login_required
def section_csv(
    request: HttpRequest, scheme_guid: str, sector: str, prefix: str, stage: str = LIVE
) -> HttpResponse:
    fetched = cached.section(user_credentials(request), stage, scheme_guid, prefix,
                             sector_of(sector))  # fmt: skip
    listing = SectionListing.of(fetched.record, Filters.of(request))
    return _download(exports.section_csv(listing.points), "text/csv; charset=utf-8",
                     exports.file_name(fetched.record, "csv", listing.filters))  # fmt: skip


@login_required
def section_pdf(
    request: HttpRequest, scheme_guid: str, sector: str, prefix: str, stage: str = LIVE
) -> HttpResponse:
    credentials = user_credentials(request)
    fetched = cached.section(credentials, stage, scheme_guid, prefix, sector_of(sector))
    listing = SectionListing.of(fetched.record, Filters.of(request))
    scheme_name = cached.scheme_name(credentials, stage, scheme_guid) or ""
    content = exports.section_pdf(fetched, listing, scheme_name, stage)
    return _download(content, "application/pdf",
                     exports.file_name(fetched.record, "pdf", listing.filters))  # fmt: skip


def _download(content: bytes, content_type: str, name: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
