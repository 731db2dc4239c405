"""A day's loads checked at intake (`/p/check`), for anyone, signed in or not: many short codes
sent at once, each counted against the client address's look-ups as `/p/<code>` counts it. The
table of verdicts is kept at an address of its own (`/p/check/<key>`), to read, print and
download as CSV without checking anything again."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from portal.passports import gate_check, lookup
from portal.passports.forms import GateCheckForm
from portal.passports.views.camera import with_the_camera

TEMPLATE = "passports/gate_check.html"


@require_http_methods(["GET", "HEAD", "POST"])
@with_the_camera
def check(request: HttpRequest) -> HttpResponse:
    """The form; the codes sent with it checked, and the browser sent to their table."""
    if request.method != "POST":
        return _page(request, GateCheckForm())
    form = GateCheckForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    done = gate_check.check(request, form.cleaned_data["codes"])
    if isinstance(done, lookup.Allowance):  # it refused the first code: none was checked
        response = _page(request, form, status=429, refusal=done)
        response["Retry-After"] = str(done.seconds)
        return response
    check_id = gate_check.keep(done)
    return HttpResponseRedirect(reverse("checks:checked", args=[check_id]), status=303)


@require_safe
@never_cache
@with_the_camera
def checked(request: HttpRequest, check_id: str) -> HttpResponse:
    """A check's table, with the form holding the codes left to check again (if any)."""
    done = gate_check.kept(check_id)
    if done is None:
        return _page(request, GateCheckForm(), status=404, gone=True)
    form = GateCheckForm(initial={"codes": "\n".join(done.to_check_again)})
    return _page(request, form, check=done, check_id=check_id)


@require_safe
@never_cache
def checked_csv(request: HttpRequest, check_id: str) -> HttpResponse:
    """A check's table as a CSV file."""
    done = gate_check.kept(check_id)
    if done is None:
        return _page(request, GateCheckForm(), status=404, gone=True)
    response = HttpResponse(gate_check.as_csv(done), content_type="text/csv; charset=utf-8")
    name = f"passports-checked-{timezone.localtime(done.checked_at):%Y-%m-%d-%H%M}.csv"
    response["Content-Disposition"] = content_disposition_header(True, name)
    return response


def _page(
    request: HttpRequest, form: GateCheckForm, *, status: int = 200, **context: object
) -> HttpResponse:
    context |= {
        "form": form,
        "allowance": lookup.allowance(request),
        "limit": settings.PORTAL_INTAKE_LIMIT,
        "headings": gate_check.HEADINGS,
    }
    return render(request, TEMPLATE, context, status=status)
