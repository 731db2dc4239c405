"""The intake clerks' pages (`/intake/`): their sites and each site's loads, "Record a load" by
short code (typed, or scanned as the gate check scans), the record form, a load's page and
its correction. What each does is portal.intake.clerking's; a clerk reaches only the sites they
are a clerk of and their loads (anything else is not found), anyone else who is signed in is
told they are a clerk of no site, and anyone not signed in is sent to sign in."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_safe

from portal.intake import clerking
from portal.intake.clerking import Correcting, Recording, Refused
from portal.intake.forms import CodeForm
from portal.intake.models import IntakeSite
from portal.passports.views.camera import with_the_camera


@require_safe
@login_required
def home(request: HttpRequest) -> HttpResponse:
    """A clerk of one site goes to it; of several, chooses one."""
    sites = clerking.sites_of_clerk(request.user)
    if len(sites) == 1:
        return redirect("intake:site", sites[0].code)
    if not sites:
        return _not_a_clerk(request)
    return render(request, "intake/sites.html", {"summaries": clerking.summaries(sites)})


@require_safe
@login_required
def record_code(request: HttpRequest) -> HttpResponse:
    """From "Record" in the gate check's table: the record page of the clerk's site for the
    code (of which site, if they are a clerk of several)."""
    sites = clerking.sites_of_clerk(request.user)
    code = request.GET.get("code", "")[:200]
    if len(sites) == 1:
        return redirect(_record_address(sites[0], code))
    if not sites:
        return _not_a_clerk(request)
    choices = [(site, _record_address(site, code)) for site in sites]
    return render(request, "intake/choose_site.html", {"choices": choices, "code": code})


@require_safe
@login_required
@with_the_camera
def site(request: HttpRequest, site: str) -> HttpResponse:
    found = clerking.site_of_clerk(request.user, site)
    desk = clerking.desk(found, request.GET.get("page"))
    return render(request, "intake/site.html", {"desk": desk, "code_form": CodeForm()})


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def record(request: HttpRequest, site: str) -> HttpResponse:
    """GET: the code form; with a code, checked, the record form. POST: the load recorded."""
    found = clerking.site_of_clerk(request.user, site)
    if request.method == "POST":
        return _recorded(request, found, clerking.record(request, found, request.POST))
    if "code" not in request.GET:
        return _code_page(request, found, CodeForm())
    form = CodeForm(request.GET)
    if not form.is_valid():
        return _code_page(request, found, form, status=400)
    outcome = clerking.check_code(request, form.cleaned_data["code"])
    if isinstance(outcome, Refused):
        return _code_page(request, found, form, refused=outcome)
    return _record_page(request, clerking.record_form(found, outcome))


@require_safe
@login_required
def load(request: HttpRequest, pk: int) -> HttpResponse:
    found = clerking.load_of_clerk(request.user, pk)
    return render(request, "intake/load.html", {"page": clerking.load_page(found)})


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def correct(request: HttpRequest, pk: int) -> HttpResponse:
    found = clerking.load_of_clerk(request.user, pk)
    if request.method != "POST":
        return _correction_page(request, clerking.correction_form(found))
    outcome = clerking.correct(request, found, request.POST)
    if outcome.entry is None:
        return _correction_page(request, outcome, status=400)
    messages.success(request, outcome.said)
    return _see(reverse("intake:load", args=[found.pk]))


# --- the pages --------------------------------------------------------------------------------


def _not_a_clerk(request: HttpRequest) -> HttpResponse:
    return render(request, "intake/not_a_clerk.html", status=403)


def _record_address(site: IntakeSite, code: str) -> str:
    """The site's record page for `code`; with no code, its empty code form (not one that says
    the code is missing before the clerk typed anything)."""
    address = reverse("intake:record", args=[site.code])
    return f"{address}?{urlencode({'code': code})}" if code else address


@with_the_camera  # its Scan button; the record form's page has none
def _code_page(
    request: HttpRequest, site: IntakeSite, form: CodeForm, *, status: int = 200,
    refused: Refused | None = None,
) -> HttpResponse:  # fmt: skip
    context = {"site": site, "code_form": form}
    if refused is not None and form.is_bound:
        form.add_error("code", refused.message)  # beside the code it is about
    elif refused is not None:
        context["problem"] = refused.message
    status = refused.status if refused is not None else status
    response = render(request, "intake/record_code.html", context, status=status)
    if refused is not None and refused.retry_after:
        response["Retry-After"] = str(refused.retry_after)
    return response


def _record_page(request: HttpRequest, recording: Recording, *, status: int = 200) -> HttpResponse:
    return render(request, "intake/record.html", {"recording": recording}, status=status)


def _recorded(request: HttpRequest, site: IntakeSite, outcome: Recording | Refused) -> HttpResponse:
    if isinstance(outcome, Refused):
        return _code_page(request, site, CodeForm(), refused=outcome)
    if outcome.load is None:
        refused = outcome.not_checked_again
        return _record_page(request, outcome, status=refused.status if refused else 400)
    (messages.info if outcome.sent_twice else messages.success)(request, outcome.said)
    return _see(reverse("intake:load", args=[outcome.load.pk]))


def _see(address: str) -> HttpResponseRedirect:
    """After a form sent: the page to see, fetched with GET (303)."""
    return HttpResponseRedirect(address, status=303)


def _correction_page(
    request: HttpRequest, correcting: Correcting, *, status: int = 200
) -> HttpResponse:
    return render(request, "intake/correct.html", {"correcting": correcting}, status=status)
