"""Standards pages: schemes, a scheme, a section, a standard point, search, what has changed."""

from __future__ import annotations

import re
from datetime import datetime

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.encoding import escape_uri_path
from django.utils.safestring import mark_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from portal import frames
from portal.accounts.session import user_credentials
from portal.assurance import records
from portal.assurance.errors import NotFound
from portal.standards import compare, exports, library, pages
from portal.standards.content import Choices, Filters, Point, arrange
from portal.standards.library import LIVE, PREVIEW, sector_of, sector_segment
from portal.standards.markup import point_markup
from portal.standards.search import SectionHits, is_reference, matches

_REFERENCE = re.compile(r"^([A-Za-z0-9]+)\.([A-Za-z]{2})(\.[0-9]+)+$")


def _section_or_404(request: HttpRequest, stage: str, scheme_guid: str, sector: str, prefix: str):
    try:
        return library.section(user_credentials(request), stage, scheme_guid, prefix, sector)
    except NotFound:
        raise Http404("No such section.") from None


def _sections_or_404(request: HttpRequest, stage: str, scheme_guid: str):
    try:
        return library.sections(user_credentials(request), stage, scheme_guid)
    except NotFound:
        raise Http404("No such scheme.") from None


# --- schemes and a scheme -------------------------------------------------------------------------


@login_required
def schemes(request: HttpRequest) -> HttpResponse:
    credentials = user_credentials(request)
    live = library.schemes(credentials, LIVE)
    preview = library.schemes(credentials, PREVIEW)
    return render(request, "standards/schemes.html", {
        "live": live, "preview": preview, "fetched": [live, preview],
    })  # fmt: skip


@login_required
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def scheme(request: HttpRequest, scheme_guid: str, stage: str = LIVE) -> HttpResponse:
    listing = _sections_or_404(request, stage, scheme_guid)
    sections = _in_order(listing.record.sections)
    sectors = sorted({s.sector_prefix for s in sections if s.sector_prefix})
    sector = request.GET.get("sector", "")
    if sector not in sectors:
        sector = ""
    # The live page links to the preview, if the scheme has one (the preview page to live).
    has_preview = stage == LIVE and bool(
        library.scheme_name(user_credentials(request), PREVIEW, scheme_guid)
    )
    context = {
        "stage": stage,
        "scheme": listing.record,
        "sections": [s for s in sections if s.sector_prefix == sector] if sector else sections,
        "sectors": sectors,
        "sector": sector,
        "has_preview": has_preview,
        "fetched": [listing],
    }
    template = "standards/scheme.html"
    return render(request, template + ("#sections" if _wants_fragment(request) else ""), context)


def _in_order(sections: list[records.SectionEntry]) -> list[records.SectionEntry]:
    return sorted(sections, key=lambda s: (s.index is None, s.index or 0))


def _wants_fragment(request: HttpRequest) -> bool:
    """Whether htmx asks for the part that changed; restoring history wants the whole page."""
    return bool(request.htmx) and not (request.htmx.boosted or request.htmx.history_restore_request)


# --- a section ------------------------------------------------------------------------------------


def _filters(request: HttpRequest) -> Filters:
    return Filters(
        aim=request.GET.get("aim", "")[:64],
        critical=request.GET.get("critical") == "1",
        revision=request.GET.get("revision", "")[:40],
    )


CONTENT_MARK = "<!-- the section's heading and points -->"


def _to_the_minute(moment: datetime) -> datetime:
    """As refreshed.html shows the time of a refresh, so that a page refreshed again within the
    same minute keeps its frame."""
    return moment.replace(second=0, microsecond=0)


@login_required
@vary_on_headers("HX-Request", "HX-History-Restore-Request")
def section(
    request: HttpRequest, scheme_guid: str, sector: str, prefix: str, stage: str = LIVE
) -> HttpResponse:
    filters = _filters(request)
    try:
        served = pages.section_page(
            user_credentials(request), stage, scheme_guid, sector, prefix, filters
        )
    except NotFound:
        raise Http404("No such section.") from None
    if _wants_fragment(request):
        # The address shown and shared names only the filters set ("?critical=1"), not every
        # field of the form ("?aim=&revision=&critical=1").
        address = escape_uri_path(request.path) + filters.query
        return push_url(HttpResponse(served.points_html), address)
    page = served.page
    response = frames.render_kept(request, "standards/section.html", {
        "page": page,
        "fetched": [served],
        "content_mark": mark_safe(CONTENT_MARK),  # noqa: S308 (a constant)
    }, vary=(page.title, _to_the_minute(page.refreshed), served.from_cache_only))  # fmt: skip
    # The kept heading and points take the mark's place in the frame.
    before, _, after = response.content.partition(CONTENT_MARK.encode())
    response.content = b"".join((before, page.header_html, served.points_html, after))
    return response


@login_required
def point(
    request: HttpRequest, scheme_guid: str, reference: str, stage: str = LIVE
) -> HttpResponse:
    """A standard point's permanent address, by its reference (`CR.ST.3`)."""
    found = _REFERENCE.match(reference)
    if not found:
        raise Http404("Not a reference.")
    sector, prefix = found.group(1), found.group(2)
    fetched = _section_or_404(request, stage, scheme_guid, sector, prefix)
    the_point = next(iter(arrange(fetched.record, reference)), None)
    if the_point is None:
        raise Http404("No such standard point.")
    return render(request, "standards/point.html", {
        "stage": stage, "scheme_guid": scheme_guid, "section": fetched.record,
        "scheme_name": library.scheme_name(user_credentials(request), stage, scheme_guid),
        "sector_segment": sector_segment(fetched.record.sector_prefix), "p": the_point,
        "point_markup": mark_safe(point_markup(the_point, request.path, open_=True)),  # noqa: S308
        "fetched": [fetched],
    })  # fmt: skip


# --- search and what has changed ------------------------------------------------------------------


def _all_sections(request: HttpRequest, stage: str, scheme_guid: str, listing):
    """Every section of the scheme in `listing`, fetched (or from the cache), in order."""
    credentials = user_credentials(request)
    for entry in _in_order(listing.record.sections):
        try:
            fetched = library.section(credentials, stage, scheme_guid, entry.prefix or "",
                                      entry.sector_prefix or "")  # fmt: skip
        except NotFound:
            continue
        yield entry, fetched


@login_required
def search(request: HttpRequest, scheme_guid: str, stage: str = LIVE) -> HttpResponse:
    query = request.GET.get("q", "").strip()[:100]
    listing = _sections_or_404(request, stage, scheme_guid)
    groups: list[SectionHits] = []
    if query:
        for entry, fetched in _all_sections(request, stage, scheme_guid, listing):
            group = SectionHits(entry.name or "", sector_segment(entry.sector_prefix),
                                entry.prefix or "")  # fmt: skip
            group.hits = [hit for p in arrange(fetched.record) if (hit := matches(p, query))]
            if group.hits:
                groups.append(group)
    return render(request, "standards/search.html", {
        "stage": stage, "scheme": listing.record, "scheme_guid": scheme_guid, "query": query,
        "groups": groups, "count": sum(len(g.hits) for g in groups),
        "by_reference": is_reference(query), "fetched": [listing],
    })  # fmt: skip


@login_required
def changes(request: HttpRequest, scheme_guid: str) -> HttpResponse:
    """The preview against the live standards, section by section and point by point."""
    preview_listing = _sections_or_404(request, PREVIEW, scheme_guid)
    preview = dict(_by_key(request, PREVIEW, scheme_guid, preview_listing))
    try:
        live_listing = library.sections(user_credentials(request), LIVE, scheme_guid)
    except NotFound:  # a scheme in preview only: every section is new
        live = {}
    else:
        live = dict(_by_key(request, LIVE, scheme_guid, live_listing))
    keys = list(preview) + [k for k in live if k not in preview]
    sections = [compare.compare_section(k, live.get(k), preview.get(k)) for k in keys]
    return render(request, "standards/changes.html", {
        "scheme": preview_listing.record, "scheme_guid": scheme_guid,
        "changed": [s for s in sections if s.kind != "unchanged"],
        "unchanged": [s for s in sections if s.kind == "unchanged"], "fetched": [preview_listing],
    })  # fmt: skip


def _by_key(request: HttpRequest, stage: str, scheme_guid: str, listing):
    for entry, fetched in _all_sections(request, stage, scheme_guid, listing):
        yield ".".join(filter(None, (entry.sector_prefix, entry.prefix))), fetched.record


# --- exports --------------------------------------------------------------------------------------


@login_required
def section_csv(
    request: HttpRequest, scheme_guid: str, sector: str, prefix: str, stage: str = LIVE
) -> HttpResponse:
    fetched = _section_or_404(request, stage, scheme_guid, sector_of(sector), prefix)
    kept, filters, _ = _kept_points(request, fetched.record)
    return _download(exports.section_csv(kept), "text/csv; charset=utf-8",
                     exports.file_name(fetched.record, "csv", filters))  # fmt: skip


@login_required
def section_pdf(
    request: HttpRequest, scheme_guid: str, sector: str, prefix: str, stage: str = LIVE
) -> HttpResponse:
    fetched = _section_or_404(request, stage, scheme_guid, sector_of(sector), prefix)
    kept, filters, choices = _kept_points(request, fetched.record)
    scheme_name = library.scheme_name(user_credentials(request), stage, scheme_guid) or ""
    content = exports.section_pdf(fetched, kept, filters.described(choices), scheme_name, stage)
    return _download(content, "application/pdf", exports.file_name(fetched.record, "pdf", filters))


def _kept_points(
    request: HttpRequest, section: records.SectionData
) -> tuple[list[Point], Filters, Choices]:
    """The points that the request's filters keep, the filters less what the section does not
    have, and what they choose from."""
    points = arrange(section)
    choices = Choices.of(points)
    filters = _filters(request).within(choices)
    return filters.apply(points), filters, choices


def _download(content: bytes, content_type: str, name: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
