"""The business's passports (`/passports/`): every passport recorded for the memberships the user
is a contact of now, filtered in place (htmx, or a plain GET without JavaScript) and paginated;
a passport made elsewhere added by its code; and the passports ticked, or all that match the
filters, exported by a job."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from portal.assurance import records
from portal.lib.htmx import wants_fragment
from portal.lib.numbers import page_number
from portal.passports import adding, contacts, exports, listing
from portal.passports.forms import AddByCodeForm, PassportFilters

TEMPLATE = "passports/list.html"
PER_PAGE = 50


@require_safe
@login_required
@vary_on_headers("HX-Request")
def passport_list(request: HttpRequest) -> HttpResponse:
    context = _listed(request, request.GET) | {"add_form": AddByCodeForm()}
    if wants_fragment(request):
        response = render(request, f"{TEMPLATE}#results", context)
        return push_url(response, _address(request.path, context["query"], context["page"]))
    return render(request, TEMPLATE, context)


def _address(path: str, query: str, page: Page) -> str:
    """The list's address as filtered and paged, without the filters left empty: the one the
    browser shows, to bookmark or share."""
    parts = [query] if query else []
    if page.number > 1:
        parts.append(f"page={page.number}")
    return f"{path}?{'&'.join(parts)}" if parts else path


def _listed(request: HttpRequest, data: QueryDict) -> dict:
    """The list's context: the filters from `data`, and the page of passports they keep."""
    memberships = contacts.memberships(request)
    everyone = listing.visible(memberships)
    given = _filters_in(data)
    filters = _filters(given, memberships)
    kept = listing.narrowed(everyone, filters.applied)
    page = Paginator(listing.for_rows(kept), PER_PAGE).get_page(page_number(data.get("page")))
    sites = {s.site_guid: s.site_name or s.address for m in memberships for s in m.sites}
    return {
        "memberships": memberships, "filters": filters, "page": page,
        "rows": [(passport, sites.get(passport.site_guid, ""), listing.result_of(passport))
                 for passport in page],
        "query": given.urlencode() if given else "",
        "any_at_all": page.paginator.count > 0 or everyone.exists(),
        "export_limit": settings.PORTAL_EXPORT_LIMIT,
        "passports_path": reverse("passports:list"),
    }  # fmt: skip


def _filters(given: QueryDict | None, memberships: list[records.Membership]) -> PassportFilters:
    offered = listing.Offered.to(memberships)
    return PassportFilters(given, memberships=memberships, crops=offered.crops,
                           years=offered.harvest_years)  # fmt: skip


def _filters_in(data: QueryDict) -> QueryDict | None:
    """The filters' part of `data` (those given, not left empty), or None (an unbound form)
    when it gives none; as the list's address gives them, for its page links and exports."""
    given = QueryDict(mutable=True)
    for name in PassportFilters.NAMES:
        if data.get(name):
            given[name] = data[name]
    return given if given else None


# How each refusal to add a code is answered.
NOT_ADDED_STATUS = {
    adding.Refusal.TOO_MANY_LOOK_UPS: 429,
    adding.Refusal.UNKNOWN: 404,
    adding.Refusal.CLAIM_NOT_VALID: 400,
}


@require_POST
@login_required
def add(request: HttpRequest) -> HttpResponse:
    """A passport made elsewhere, added to the list by its code (portal.passports.adding)."""
    form = AddByCodeForm(request.POST)
    if not form.is_valid():
        return _not_added(request, form)
    listed = adding.add_by_code(request, form.cleaned_data["code"])
    if isinstance(listed, adding.Refusal):
        form.add_error("code", listed.said)
        return _not_added(request, form, status=NOT_ADDED_STATUS[listed])
    say = messages.success if listed.added_now else messages.info
    say(request, listed.said)
    return redirect("passports:passport", listed.passport.short_code)


def _not_added(request: HttpRequest, form: AddByCodeForm, status: int = 400) -> HttpResponse:
    context = _listed(request, QueryDict()) | {"add_form": form}
    return render(request, TEMPLATE, context, status=status)


@require_POST
@login_required
def export(request: HttpRequest) -> HttpResponse:
    """The passports ticked (`code`), or every one that matches the filters sent with them
    (`scope=all`), exported by a job as one ZIP (`format=zip`) or one PDF to print
    (`format=pdf`); refused before it starts, with the reason, when it cannot be made."""
    memberships = contacts.memberships(request)
    everyone = listing.visible(memberships)
    if request.POST.get("scope") == "all":
        filters = _filters(_filters_in(request.POST), memberships)
        chosen = listing.ids_as_made(listing.narrowed(everyone, filters.applied))
        refusal = _invalid(filters)
    else:
        chosen, refusal = exports.ticked(everyone, request.POST.getlist("code"))
    fmt = request.POST.get("format", "")
    refusal = refusal or exports.refusal(fmt, len(chosen))
    if refusal:
        messages.error(request, refusal)
        return _back_to_list(request.POST)
    job = exports.start(request, fmt, chosen)
    return HttpResponseRedirect(reverse("jobs:job", args=[job.pk]), status=303)


def _invalid(filters: PassportFilters) -> str:
    if filters.is_bound and not filters.is_valid():
        return _("Nothing was exported: the filters are not valid. Correct them and try again.")
    return ""


def _back_to_list(data: QueryDict) -> HttpResponse:
    """To the list, filtered as it was (the filters sent with the export as `query`)."""
    kept = _filters_in(QueryDict(data.get("query", "")))
    address = reverse("passports:list")
    return HttpResponseRedirect(f"{address}?{kept.urlencode()}" if kept else address, status=303)
