"""Creating a passport: the form, fed by the memberships the user is a contact of, each choice
narrowing the next (through htmx, or a plain submit without JavaScript); then the service's
create call, once for each form, and the PDF's job started at once."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from portal.accounts.session import user_credentials
from portal.assurance.errors import (
    AssuranceError,
    AuthenticationRequired,
    NotAContact,
    StatusNotValid,
    ValidationFailed,
)
from portal.lib.htmx import wants_fragment
from portal.passports import contacts, pdfs
from portal.passports.forms import CROPS, PassportForm, harvest_year_of
from portal.passports.models import Passport
from portal.service import client

TEMPLATE = "passports/create.html"
DRAFT_SECONDS = 24 * 60 * 60
WAIT_STEP_SECONDS = 0.1


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
    """Creates the passport once for this form's submission key: a second submission (a double
    click, a form sent again) waits for the first and goes where it went."""
    passport = _claim(request, form)
    if passport is None:
        first = _first_submission(request, form.cleaned_data["submission"])
        if first is not None:
            return _see(first)
        passport = _claim(request, form)  # the first failed or was abandoned: this one goes on
        if passport is None:
            return _show(request, _busy(form), status=409)
    try:
        record = client().create_passport(user_credentials(request), form.passport_request())
    except AuthenticationRequired:
        passport.delete()
        cache.set(_draft_key(request), _draft(form), DRAFT_SECONDS)
        raise
    except AssuranceError as error:
        passport.delete()
        return _show(request, _refused(request, form, error), status=400)
    passport.keep_record(record)
    passport.save()
    pdfs.start(request, passport.short_code)
    return _see(passport)


def _see(passport: Passport) -> HttpResponseRedirect:
    """To the passport's page, as a GET whatever the request was (303)."""
    response = HttpResponseRedirect(reverse("passports:passport", args=[passport.short_code]))
    response.status_code = 303
    return response


def _claim(request: HttpRequest, form: PassportForm) -> Passport | None:
    """The row for this submission, or None if another request has it already."""
    data = form.cleaned_data
    try:
        with transaction.atomic():
            return Passport.objects.create(
                submission=data["submission"], membership_guid=data["membership"],
                site_guid=data["site"], store_guid=data["store"] or "", made_by=request.user,
            )  # fmt: skip
    except IntegrityError:
        return None


def _first_submission(request: HttpRequest, submission: uuid.UUID) -> Passport | None:
    """The passport the first submission of this form made, once the service has answered it.
    None if it failed (its row is gone), was abandoned (the process sending it died: its row,
    older than any call can last, is cleared), or is still being made after the client's whole
    deadline."""
    give_up = time.monotonic() + settings.ASSURANCE_TOTAL_TIMEOUT
    abandoned = timezone.now() - timedelta(seconds=settings.ASSURANCE_TOTAL_TIMEOUT + 30)
    while time.monotonic() < give_up:
        first = Passport.objects.filter(submission=submission, made_by=request.user).first()
        if first is None or first.is_made:
            return first
        if first.created < abandoned:
            Passport.objects.filter(pk=first.pk, short_code__isnull=True).delete()
            return None
        time.sleep(WAIT_STEP_SECONDS)
    return None


def _busy(form: PassportForm) -> PassportForm:
    form.add_error(
        None,
        "This form was sent twice and the first is still being made. Wait a minute and open "
        "Your jobs, where its PDF appears once it is made, before you send it again.",
    )
    return form


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
