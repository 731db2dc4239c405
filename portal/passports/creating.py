"""The create form sent: one passport made now under the form's one-time key (making.py) and
its PDF's job started, or, for more than one load, a batch's job (batches.py); the service's
refusal said on the form, with what to do about it. What the user typed is kept when their
sign-in ends as they send it, and given back in the form once they have signed in again."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.core.cache import cache
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from portal.assurance.errors import (
    AssuranceError,
    AuthenticationRequired,
    NotAContact,
    StatusNotValid,
    ValidationFailed,
)
from portal.jobs.models import Job
from portal.passports import batches, contacts, making, pdfs
from portal.passports.forms import PassportForm, harvest_year_of
from portal.passports.models import Passport

DRAFT_SECONDS = 24 * 60 * 60

# The service's refusals the form says in words of its own; any other is UNANSWERED.
REFUSALS = {
    NotAContact: _(
        "The Assurance service says you are not a registered contact of this membership, or "
        "that the site or store is not one of its own. Check your choices and send the form "
        "again; if the membership should be yours, ask your certification body to add you as "
        "its contact."
    ),
    StatusNotValid: _(
        "The assurance claim of this membership is not valid now, so no passport can be made "
        "for it. Your certification body can tell you why and what to do."
    ),
}
UNANSWERED = _(
    "The Assurance service did not make the passport: it could not be reached or did not "
    "answer. Nothing you typed is lost: send the form again in a moment."
)


def starting(request: HttpRequest) -> dict:
    """A new form's values: the draft kept when the user's sign-in ended as they sent it (given
    once), or this harvest and today's loading; and a one-time key of its own."""
    today = timezone.localdate()
    values = {"loading_date": today, "harvest_year": harvest_year_of(today)}
    draft = cache.get(_draft_key(request))
    if draft:
        cache.delete(_draft_key(request))
        values = {**draft, "restored": True}
    return {**values, "submission": uuid.uuid4()}


@dataclass(frozen=True, slots=True)
class Made:
    """What a valid form sent came to: its one passport (made now by this sending, `made_now`,
    or made or being made by a first sending of the same key; None while a later sending makes
    it), or its batch's job."""

    key: uuid.UUID
    passport: Passport | None = None
    job: Job | None = None
    made_now: bool = False


def send(request: HttpRequest, form: PassportForm) -> str | PassportForm:
    """Where the form, valid, leads once sent (the passport's page, the page that waits for it,
    the batch's job), or the form again with the service's refusal. A form sent again (a double
    click) makes nothing more. When the sign-in has ended, keeps what was typed and raises
    AuthenticationRequired."""
    try:
        made = make(request, form)
    except AuthenticationRequired:
        cache.set(_draft_key(request), _draft(form), DRAFT_SECONDS)
        raise
    if isinstance(made, PassportForm):
        return made
    if made.job is not None:
        return reverse("jobs:job", args=[made.job.pk])
    return _where(made.passport, made.key)


def make(request: HttpRequest, form: PassportForm) -> Made | PassportForm:
    """The valid form's passport, made once for its key (and its PDF's job started), or its
    batch's job; or the form again with the service's refusal. The page and the API make
    passports here."""
    key = form.cleaned_data["submission"]
    if form.cleaned_data["loads"] > 1:
        return Made(key, job=_batch(request, form))
    try:
        sending = making.make_once(request, key, form.passport_request())
    except AuthenticationRequired:
        raise  # not a refusal of the form: the sign-in has ended
    except AssuranceError as error:
        return _refused(request, form, error)
    if sending.made_now:
        pdfs.start(request, sending.passport.short_code)
    return Made(key, passport=sending.passport, made_now=sending.made_now)


def _batch(request: HttpRequest, form: PassportForm) -> Job:
    """The batch's job, started, or the one this form started already (a failed one goes on
    where it stopped: its passports made stay made, and are not made again)."""
    business_name = form.chosen_membership.business_name if form.chosen_membership else ""
    data = form.cleaned_data
    return batches.start(request, data["submission"], form.passport_request(), data["loads"],
                         business_name)  # fmt: skip


def _where(passport: Passport | None, key: uuid.UUID) -> str:
    if passport is not None and passport.is_made:
        return reverse("passports:passport", args=[passport.short_code])
    return reverse("passports:being-made", args=[key])


def _refused(request: HttpRequest, form: PassportForm, error: AssuranceError) -> PassportForm:
    """The form with the service's refusal said where it belongs, and what to do about it."""
    if isinstance(error, NotAContact | StatusNotValid):
        # The memberships kept did not foresee this: the form is made again with fresh ones.
        contacts.forget(request)
        form = PassportForm(form.data, memberships=contacts.memberships(request))
        form.is_valid()
    if isinstance(error, ValidationFailed) and error.field_errors:
        form.add_service_errors(error)
    else:
        form.add_error(None, str(REFUSALS.get(type(error), UNANSWERED)))
    return form


def _draft(form: PassportForm) -> dict:
    """What the user typed, to give back once they have signed in again."""
    return {name: form.data.get(name) for name in form.fields if name != "submission"}


def _draft_key(request: HttpRequest) -> str:
    return f"passport-draft:{request.user.pk}"
