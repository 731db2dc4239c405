"""Creating passports: the form, fed by the memberships the user is a contact of, each choice
narrowing the next (through htmx, or a plain submit without JavaScript); then the service's
create call, once for each form, and the PDF's job started at once; or, for more than one load,
a batch made by a job (portal.passports.batches)."""

from __future__ import annotations

import uuid

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HTMX_STOP_POLLING, HttpResponseClientRedirect

from portal.accounts.session import user_credentials
from portal.assurance.errors import (
    AssuranceError,
    AuthenticationRequired,
    NotAContact,
    StatusNotValid,
    ValidationFailed,
)
from portal.audit import events as audit
from portal.lib.htmx import wants_fragment
from portal.passports import batches, contacts, making, pdfs
from portal.passports.forms import CROPS, PassportForm, harvest_year_of
from portal.passports.models import Passport

TEMPLATE = "passports/create.html"
DRAFT_SECONDS = 24 * 60 * 60


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def create(request: HttpRequest) -> HttpResponse:
    memberships = contacts.memberships(request)
    if not memberships:
        return render(request, TEMPLATE, {"form": None})
    if request.method == "GET":
        return _show(request, PassportForm(memberships=memberships, initial=_starting(request)))
    form = PassportForm(request.POST, memberships=memberships)
    if request.POST.get("step") != "create":
        return _narrowed(request, form)
    if not form.is_valid():
        return _show(request, form, status=400)
    return _make(request, form)


def _starting(request: HttpRequest) -> dict:
    """A new form's values: a draft kept when the user's sign-in ended as they sent it, or
    this harvest and today's loading."""
    today = timezone.localdate()
    starting = {"loading_date": today, "harvest_year": harvest_year_of(today)}
    draft = cache.get(_draft_key(request))
    if draft:
        cache.delete(_draft_key(request))
        starting = {**draft, "restored": True}
    return {**starting, "submission": uuid.uuid4()}


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


def _make(request: HttpRequest, form: PassportForm) -> HttpResponse:
    """Makes the passports once for this form's one-time key: one here and now, or a batch by
    a job. A second sending (a double click, a form sent again) answers at once where the
    first went, or that it is still being made."""
    if form.cleaned_data["loads"] > 1:
        return _make_batch(request, form)
    key, passport_request = form.cleaned_data["submission"], form.passport_request()
    passport = making.claim(key, passport_request, request.user)
    if passport is None:
        first = Passport.objects.filter(submission=key, made_by=request.user).first()
        if first is not None and making.is_abandoned(first):
            making.clear(first)  # its sender died asking: this sending makes it
            first = None
        if first is not None:
            return HttpResponseRedirect(_where(first, key), status=303)
        passport = making.claim(key, passport_request, request.user)  # the first failed
        if passport is None:
            return HttpResponseRedirect(reverse("passports:being-made", args=[key]), status=303)
    try:
        making.make(passport, user_credentials(request), passport_request)
    except AuthenticationRequired:
        cache.set(_draft_key(request), _draft(form), DRAFT_SECONDS)
        raise
    except AssuranceError as error:
        return _show(request, _refused(request, form, error), status=400)
    audit.record(audit.Kind.PASSPORT_CREATED, request, code=audit.code_hash(passport.short_code))
    pdfs.start(request, passport.short_code)
    return HttpResponseRedirect(_where(passport, key), status=303)


def _make_batch(request: HttpRequest, form: PassportForm) -> HttpResponse:
    """The batch's job, started, or the one this form started already (a failed one goes on
    where it stopped: its passports made stay made, and are not made again)."""
    business_name = form.chosen_membership.business_name if form.chosen_membership else ""
    job = batches.start(request, form.cleaned_data["submission"], form.passport_request(),
                        form.cleaned_data["loads"], business_name or "your membership")  # fmt: skip
    return HttpResponseRedirect(reverse("jobs:job", args=[job.pk]), status=303)


def _where(passport: Passport, key: uuid.UUID) -> str:
    if passport.is_made:
        return reverse("passports:passport", args=[passport.short_code])
    return reverse("passports:being-made", args=[key])


@require_safe
@login_required
@vary_on_headers("HX-Request")
def being_made(request: HttpRequest, submission: uuid.UUID) -> HttpResponse:
    """Where a form sent again while its first sending is still being made leads: the passport
    once it is made; until then a page that says so and looks again every few seconds (htmx
    asks, answered 204 while nothing has changed; without JavaScript the page refreshes); and
    if the first sending failed meanwhile, a page that says nothing was made."""
    first = Passport.objects.filter(submission=submission, made_by=request.user).first()
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


def _refused(request: HttpRequest, form: PassportForm, error: AssuranceError) -> PassportForm:
    """The form with the service's refusal said where it belongs, and what to do about it."""
    if isinstance(error, NotAContact | StatusNotValid):
        # The memberships kept did not foresee this: the form is made again with fresh ones.
        contacts.forget(request)
        form = PassportForm(request.POST, memberships=contacts.memberships(request))
        form.is_valid()
    if isinstance(error, ValidationFailed) and error.field_errors:
        form.add_service_errors(error)
    elif isinstance(error, NotAContact):
        form.add_error(
            None,
            "The Assurance service says you are not a registered contact of this membership, "
            "or that the site or store is not one of its own. Check your choices and send the "
            "form again; if the membership should be yours, ask your certification body to add "
            "you as its contact.",
        )
    elif isinstance(error, StatusNotValid):
        form.add_error(
            None,
            "The assurance claim of this membership is not valid now, so no passport can be "
            "made for it. Your certification body can tell you why and what to do.",
        )
    else:
        form.add_error(
            None,
            "The Assurance service did not make the passport: it could not be reached or did "
            "not answer. Nothing you typed is lost: send the form again in a moment.",
        )
    return form


def _draft(form: PassportForm) -> dict:
    """What the user typed, to give back once they have signed in again."""
    return {name: form.data.get(name) for name in form.fields if name != "submission"}


def _draft_key(request: HttpRequest) -> str:
    return f"passport-draft:{request.user.pk}"
