"""The business's passports (`/passports/`): every passport recorded for the memberships the user
is a contact of now, filtered in place (htmx, or a plain GET without JavaScript) and paginated;
a passport made elsewhere added by its code; and the passports ticked, or all that match the
filters, exported by a job."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from portal.accounts.session import user_credentials
from portal.assurance import records
from portal.assurance.errors import NotFound, StatusNotValid
from portal.assurance.service import client
from portal.audit import events as audit
from portal.lib.htmx import wants_fragment
from portal.passports import codes, contacts, exports, listing
from portal.passports.forms import AddByCodeForm, PassportFilters
from portal.passports.lookup import take_a_look_up
from portal.passports.models import Passport

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
    filters = _filters(given, memberships, everyone)
    kept = listing.narrowed(everyone, filters.applied)
    page = Paginator(listing.for_rows(kept), PER_PAGE).get_page(data.get("page"))
    sites = {s.site_guid: s.site_name or s.address for m in memberships for s in m.sites}
    return {
        "memberships": memberships, "filters": filters, "page": page,
        "rows": [(passport, sites.get(passport.site_guid, "")) for passport in page],
        "query": given.urlencode() if given else "",
        "any_at_all": page.paginator.count > 0 or everyone.exists(),
        "export_limit": settings.PORTAL_EXPORT_LIMIT,
        "passports_path": reverse("passports:list"),
    }  # fmt: skip


def _filters(
    given: QueryDict | None, memberships: list[records.Membership], everyone: QuerySet[Passport]
) -> PassportFilters:
    offered = listing.Offered.of(everyone)
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


@require_POST
@login_required
def add(request: HttpRequest) -> HttpResponse:
    """A passport made elsewhere, added to the list by its code: fetched with the user's own
    credentials, and recorded only if they are a contact of its membership (otherwise, the
    same answer as for a code no passport has). Each try counts as a look-up of the address."""
    form = AddByCodeForm(request.POST)
    if not form.is_valid():
        return _not_added(request, form)
    if not take_a_look_up(request).granted:
        form.add_error("code", "Too many passports looked up from here just now: try again "
                       "in a minute.")  # fmt: skip
        return _not_added(request, form, status=429)
    short_code = form.cleaned_data["code"]
    recorded = Passport.objects.filter(short_code=short_code).first()
    if recorded is not None:
        if contacts.is_contact(request, recorded.membership_guid):
            messages.info(request, f"Passport {short_code} is listed already.")
            return redirect("passports:passport", short_code)
        return _unknown(request, form)
    try:
        found = client().passport(user_credentials(request), short_code)
    except NotFound:
        return _unknown(request, form)
    except StatusNotValid:
        form.add_error(
            "code",
            "The Assurance service shows this passport to no one while its "
            "membership's assurance claim is not valid, so it cannot be added now.",
        )
        return _not_added(request, form)
    if not contacts.is_contact(request, found.membership_guid):
        return _unknown(request, form)
    passport = Passport(membership_guid=found.membership_guid or "",
                        site_guid=found.site_guid or "", store_guid=found.store_guid or "",
                        made_by=request.user, origin=Passport.Origin.ADDED)  # fmt: skip
    passport.keep_record(found)
    passport.save()
    messages.success(request, f"Passport {passport.short_code} is added to your business's list.")
    return redirect("passports:passport", passport.short_code)


def _unknown(request: HttpRequest, form: AddByCodeForm) -> HttpResponse:
    form.add_error("code", "No passport of your business has that short code. Check the code "
                   "on the passport and try again.")  # fmt: skip
    return _not_added(request, form, status=404)


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
        filters = _filters(_filters_in(request.POST), memberships, everyone)
        chosen = listing.ids_as_made(listing.narrowed(everyone, filters.applied))
        refusal = _invalid(filters)
    else:
        chosen, refusal = _ticked(request.POST.getlist("code"), everyone)
    fmt = request.POST.get("format", "")
    refusal = refusal or exports.refusal(fmt, len(chosen))
    if refusal:
        messages.error(request, refusal)
        return _back_to_list(request.POST)
    job = exports.start(request, fmt, chosen)
    audit.record(
        audit.Kind.EXPORT_REQUESTED, request, job=job.pk, format=fmt, passports=len(chosen)
    )
    return HttpResponseRedirect(reverse("jobs:job", args=[job.pk]), status=303)


def _invalid(filters: PassportFilters) -> str:
    if filters.is_bound and not filters.is_valid():
        return "Nothing was exported: the filters are not valid. Correct them and try again."
    return ""


def _ticked(typed: list[str], everyone: QuerySet[Passport]) -> tuple[list[int], str]:
    """The ids of the passports ticked, as made, and why they cannot be exported ("" if they
    can): none ticked, or some that are not the business's (or no passport's)."""
    short_codes = {codes.normalise(code) for code in typed}
    chosen = listing.ids_as_made(everyone.filter(short_code__in=short_codes - {None}))
    if not typed:
        return chosen, ("Nothing was exported: tick the passports to export, or export every "
                        "one that matches the filters.")  # fmt: skip
    if None in short_codes or len(chosen) != len(short_codes):
        return chosen, ("Nothing was exported: some of the passports ticked are not among your "
                        "business's passports. Tick them again from the list.")  # fmt: skip
    return chosen, ""


def _back_to_list(data: QueryDict) -> HttpResponse:
    """To the list, filtered as it was (the filters sent with the export as `query`)."""
    kept = _filters_in(QueryDict(data.get("query", "")))
    address = reverse("passports:list")
    return HttpResponseRedirect(f"{address}?{kept.urlencode()}" if kept else address, status=303)
