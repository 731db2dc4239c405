"""Creating passports: the form, fed by the memberships the user is a contact of, each choice
narrowing the next (through htmx, or a plain submit without JavaScript); then the form sent
(portal.passports.creating): the service's create call, once for each form, and the PDF's job
started at once; or, for more than one load, a batch made by a job (portal.passports.batches)."""

from __future__ import annotations

import uuid

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HTMX_STOP_POLLING, HttpResponseClientRedirect

from portal.lib.htmx import wants_fragment
from portal.passports import contacts, creating, making
from portal.passports.forms import CROPS, PassportForm

TEMPLATE = "passports/create.html"


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def create(request: HttpRequest) -> HttpResponse:
    memberships = contacts.memberships(request)
    if not memberships:
        return render(request, TEMPLATE, {"form": None})
    if request.method == "GET":
        starting = creating.starting(request)
        return _show(request, PassportForm(memberships=memberships, initial=starting))
    form = PassportForm(request.POST, memberships=memberships)
    if request.POST.get("step") != "create":
        return _narrowed(request, form)
    if not form.is_valid():
        return _show(request, form, status=400)
    sent = creating.send(request, form)
    if isinstance(sent, PassportForm):  # the service refused it
        return _show(request, sent, status=400)
    return HttpResponseRedirect(sent, status=303)


def _show(request: HttpRequest, form: PassportForm, status: int = 200) -> HttpResponse:
    context = {"form": form, "restored": form.initial.get("restored"), "crops": CROPS}
    return render(request, TEMPLATE, context, status=status)


def _narrowed(request: HttpRequest, form: PassportForm) -> HttpResponse:
    """The form again with the sites of the chosen membership (and the stores of the chosen
    site): no errors yet, since the user has not asked to create."""
    unbound = PassportForm(memberships=form.memberships, initial=request.POST.dict())
    if wants_fragment(request):
        part = "stores" if request.htmx.target == "stores" else "places"
        return render(request, f"{TEMPLATE}#{part}", {"form": unbound})
    return _show(request, unbound)


@require_safe
@login_required
@vary_on_headers("HX-Request")
def being_made(request: HttpRequest, submission: uuid.UUID) -> HttpResponse:
    """Where a form sent again while its first sending is still being made leads: the passport
    once it is made; until then a page that says so and looks again every few seconds (htmx
    asks, answered 204 while nothing has changed; without JavaScript the page refreshes); and
    if the first sending failed meanwhile, a page that says nothing was made."""
    first = making.claimed(submission, request.user)
    if first is not None and first.is_made:
        address = reverse("passports:passport", args=[first.short_code])
        return HttpResponseClientRedirect(address) if wants_fragment(request) else redirect(address)
    being = first is not None and not making.is_abandoned(first)
    if not wants_fragment(request):
        return render(request, "passports/being_made.html", {"being_made": being})
    if being:
        return HttpResponse(status=204)
    return render(request, "passports/being_made.html#state", {"being_made": being},
                  status=HTMX_STOP_POLLING)  # fmt: skip
