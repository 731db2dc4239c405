"""The passports' routes (growers' software): `/api/v1/passports/...`, with a person's token,
acting as that person with the upstream token of their latest sign-in
(portal.accounts.latest_sign_in). What they reach is what the business's list shows them: the
passports of the memberships they are a contact of now; any other is not found (404).

- GET  /passports: the business's passports, by cursor, with `updated_since` (when each was
  made or added: a passport does not change) and the list page's filters;
- GET  /passports/{code}: one, with its figures (the record as the service made it) and its
  loads at intake;
- POST /passports: one passport, or a batch of `loads` identical ones, as the create form makes
  them (portal.passports.creating: the same rules, the same job);
- GET  /passports/batches/{batch}: a batch's job and the passports it has made so far;
- GET  /passports/{code}/pdf: its PDF; 202 while the PDF's job fetches it (started if none is);
  POST asks for it again after a fetch that failed;
- POST /passports/{code}/mail: sent by e-mail, as the passport's mail form sends it.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from ninja import Field, Query, Router, Schema, Status
from pydantic import create_model

from portal.api.auth import scoped
from portal.api.errors import ApiError
from portal.api.idempotency import HEADER, idempotent
from portal.api.models import Scope
from portal.api.paging import ListQuery, page_of
from portal.api.schemas import Input, answers, page_out
from portal.assurance.passport_fields import PASSPORT_FIELDS, Kind
from portal.audit import events as audit
from portal.intake import showing
from portal.jobs.models import Job
from portal.jobs.views import result_response
from portal.passports import batches, codes, contacts, creating, listing, mailing, pdfs
from portal.passports.forms import PassportFilters, PassportForm
from portal.passports.mailing import MailForm
from portal.passports.models import Passport

router = Router()
READ, WRITE = scoped(Scope.PASSPORTS_READ), scoped(Scope.PASSPORTS_WRITE)
KEYS = uuid.UUID("6f1d7a52-8f43-4f0e-9d7a-3c0b1e2f4a11")  # the namespace of keys drawn from
# an Idempotency-Key: a POST sent again after its first answer was lost makes nothing more.
PDF_WAIT_SECONDS = 2


# --- what is shown -----------------------------------------------------------------------------


class IntakeResultOut(Schema):
    net_kg: int
    decision: str


class PassportOut(Schema):
    short_code: str
    membership_guid: str
    business_name: str
    site_guid: str
    site_name: str
    crop_type: str
    variety: str
    harvest_year: str
    loading_date: datetime | None
    haulier_company_name: str
    origin: str = Field(description="made (here), or added (by its code)")
    made_by: str | None
    created: datetime = Field(description="When it was made or added here.")
    intake: IntakeResultOut | None = Field(description="Its latest load's result, if any.")
    url: str


class PassportsPage(Schema):
    items: list[PassportOut]
    next_cursor: str | None
    has_more: bool


_TYPES = {Kind.DAY: datetime | None, Kind.NUMBER: float | None}
# The passport's record, each field of the interface's (2.5) under the name the portal gives it.
RecordOut = create_model(
    "PassportRecord",
    __base__=Schema,
    **{f.name: (_TYPES.get(f.kind, str | None), Field(None, description=f.label))
       for f in PASSPORT_FIELDS},
)  # fmt: skip


class ResultOut(Schema):
    parameter: str
    measured: str = Field(description="The value and its unit, as written.")
    specification: str = Field(description="The site's specification in words; empty if none.")
    within: bool | None


class ClaimOut(Schema):
    parameter: str
    rate: str = Field(description="Pounds a tonne.")
    tonnes: str
    total: str = Field(description="Pounds.")


class LoadOut(Schema):
    site: str = Field(description="The intake site's name.")
    ticket: str
    arrival: datetime
    decision: str
    net_kg: int
    results: list[ResultOut]
    reasons: list[str]
    claims: list[ClaimOut]
    claimed: str = Field(description="The claims' total in pounds.")
    query_open: bool
    corrected: bool


class PassportDetail(PassportOut):
    record: RecordOut  # type: ignore[valid-type]
    loads: list[LoadOut] = Field(description="Its loads at intake, newest first.")
    pdf: str


def _shown(
    passport: Passport, sites: dict[str, str], result: listing.Result | None
) -> dict[str, Any]:
    """The passport as the list shows it, with its latest load's `result` at intake."""
    return {
        "short_code": passport.short_code, "membership_guid": passport.membership_guid,
        "business_name": passport.business_name, "site_guid": passport.site_guid,
        "site_name": sites.get(passport.site_guid, ""), "crop_type": passport.crop_type,
        "variety": passport.variety, "harvest_year": passport.harvest_year,
        "loading_date": passport.loading_date,
        "haulier_company_name": passport.haulier_company_name, "origin": passport.origin,
        "made_by": passport.made_by.get_username() if passport.made_by else None,
        "created": passport.created,
        "intake": {"net_kg": passport.intake_net_kg, "decision": result.decision}
        if result else None,
        "url": reverse("api:passport", args=[passport.short_code]),
    }  # fmt: skip


def _detail(
    passport: Passport, sites: dict[str, str], result: listing.Result | None, loads: list[dict]
) -> dict[str, Any]:
    """The passport as one is shown (PassportDetail): as in the list, with its whole record
    and its `loads` at intake."""
    record = passport.crop_passport
    return _shown(passport, sites, result) | {
        "record": {f.name: getattr(record, f.name) for f in PASSPORT_FIELDS},
        "loads": loads,
        "pdf": reverse("api:passport-pdf", args=[passport.short_code]),
    }


def _load(shown: showing.ShownLoad) -> dict[str, Any]:
    figures = shown.figures
    return {
        "site": shown.load.site.name, "ticket": shown.load.ticket, "arrival": figures.arrival,
        "decision": str(figures.decision), "net_kg": figures.net_kg,
        "results": [{"parameter": str(r.label), "measured": r.measured,
                     "specification": r.specification, "within": r.within}
                    for r in shown.results],
        "reasons": [str(reason) for reason in shown.reasons],
        "claims": [{"parameter": str(c.label), "rate": c.rate, "tonnes": c.tonnes,
                    "total": c.total} for c in shown.claims],
        "claimed": shown.claimed, "query_open": shown.open_query is not None,
        "corrected": len(shown.history) > 1,
    }  # fmt: skip


def _sites(memberships: list) -> dict[str, str]:
    return {s.site_guid: s.site_name or s.address for m in memberships for s in m.sites}


# --- the list ----------------------------------------------------------------------------------


class PassportsQuery(ListQuery):
    """The list page's filters (portal.passports.forms.PassportFilters), with its rules."""

    membership: str | None = Field(None, max_length=64, description="A membership's GUID.")
    site: str | None = Field(None, max_length=64, description="A site's GUID.")
    crop: str | None = Field(None, max_length=200)
    year: str | None = Field(None, max_length=4, description="The harvest year.")
    loaded_from: date | None = None
    loaded_to: date | None = None
    code: str | None = Field(None, max_length=20, description="A short code, or part of one.")
    decision: str | None = Field(
        None, max_length=16, description="The latest load's decision at intake, or none."
    )


@router.get("", auth=READ, response=answers(ok=PassportsPage), url_name="passports")
def passport_list(request: HttpRequest, query: Query[PassportsQuery]) -> dict[str, Any]:
    memberships = contacts.memberships(request)
    filters = _filters(query, memberships)
    kept = listing.narrowed(listing.visible(memberships), filters)
    page = page_of(listing.for_rows(kept), query, name="passports", changed="created")
    sites = _sites(memberships)
    return page_out(page, lambda passport: _shown(passport, sites, listing.result_of(passport)))


def _filters(query: PassportsQuery, memberships: list) -> dict[str, Any]:
    """The filters given, as the list page's form takes them and with its rules (the crops and
    years offered, read only when a filter is given); 422 with the fields it refuses."""
    given = QueryDict(mutable=True)
    for name in PassportFilters.NAMES:
        value = getattr(query, name)
        if value not in (None, ""):
            given[name] = value.isoformat() if isinstance(value, date) else value
    if not given:
        return {}
    offered = listing.Offered.to(memberships)
    filters = PassportFilters(given, memberships=memberships, crops=offered.crops,
                              years=offered.harvest_years)  # fmt: skip
    if not filters.is_valid():
        raise ApiError(422, "invalid", None, _form_errors(filters))
    return filters.applied


def _form_errors(form: Any) -> dict[str, list[str]]:
    return {("body" if name == "__all__" else name): list(messages)
            for name, messages in form.errors.items()}  # fmt: skip


# --- one passport ------------------------------------------------------------------------------


def _passport(request: HttpRequest, code: str) -> Passport:
    """The business's passport of `code` (in any form), with its row's figures; 404 for a
    passport of a membership the user is not a contact of now, or none."""
    short_code = codes.normalise(code)
    memberships = contacts.memberships(request)
    found = listing.for_rows(listing.visible(memberships)).filter(short_code=short_code).first()
    if short_code is None or found is None:
        raise ApiError(404)
    return found


@router.get("/{code}", auth=READ, response=answers(ok=PassportDetail), url_name="passport")
def passport(request: HttpRequest, code: str) -> dict[str, Any]:
    found = _passport(request, code)
    with translation.override(settings.LANGUAGE_CODE):  # its values are the same in any language
        loads = [_load(shown) for shown in showing.loads_of(found)]
    return _detail(found, _sites(contacts.memberships(request)), listing.result_of(found), loads)


# --- making ------------------------------------------------------------------------------------


class PassportIn(Input):
    """The create form's fields (portal.passports.forms.PassportForm), by the same names and
    with the same rules."""

    membership: str = Field(max_length=64, description="One of your memberships' GUIDs.")
    site: str = Field(max_length=64, description="One of the membership's sites' GUIDs.")
    store: str | None = Field(None, max_length=64, description="One of the site's stores.")
    crop_type: str | None = Field(None, max_length=200)
    variety: str | None = Field(None, max_length=200)
    store_or_bin_name: str | None = Field(None, max_length=200)
    loading_date: date | None = None
    harvest_year: str | None = Field(None, max_length=4)
    haulier_company_name: str | None = Field(None, max_length=200)
    vehicle_registration: str | None = Field(None, max_length=200)
    trailer_number: str | None = Field(None, max_length=200)
    haulier_collection_ticket_no: str | None = Field(None, max_length=200)
    post_harvest_treatment_option: str | None = Field(None, max_length=1, description="A, B or C.")
    post_harvest_treatment_date: date | None = None
    post_harvest_treatment_product: str | None = Field(None, max_length=200)
    don_risk_assessment_result: Decimal | None = None
    don_test_date: date | None = None
    don_test_result: str | None = Field(None, max_length=200)
    zon_test_date: date | None = None
    zon_test_result: str | None = Field(None, max_length=200)
    loads: int = Field(
        1, ge=1, description="More than one: a batch of identical passports, made by a job."
    )


class JobOut(Schema):
    state: str
    done: int
    total: int
    message: str


class BatchOut(Schema):
    batch: uuid.UUID
    count: int
    job: JobOut
    passports: list[str] = Field(description="The short codes made so far, in order.")
    url: str


@router.post("", auth=WRITE, url_name="passports-make",
             response=answers(created=PassportDetail) | {202: BatchOut})  # fmt: skip
@idempotent
def make(request: HttpRequest, sent: PassportIn) -> Status:
    """One passport (201, as its page shows it), or a batch (202, its job under way)."""
    memberships = contacts.memberships(request)
    form = PassportForm(_form_data(request, sent), memberships=memberships)
    if not form.is_valid():
        raise ApiError(422, "invalid", None, _form_errors(form))
    made = creating.make(request, form)
    if isinstance(made, PassportForm):  # the service refused it
        raise ApiError(422, "refused", _first_error(made), _form_errors(made))
    if made.job is not None:
        return Status(202, _batch(request, made.key))
    if made.passport is None or not made.passport.is_made:
        raise ApiError(409, "being_made", _("This passport is still being made: ask again "
                       "shortly with the same Idempotency-Key."), retry_after=1)  # fmt: skip
    if not made.made_now:  # by a first sending of the key, whose answer was lost
        return Status(201, passport(request, made.passport.short_code))
    return Status(201, _just_made(made.passport, memberships))


def _just_made(made: Passport, memberships: list) -> dict[str, Any]:
    """The passport this request made, as GET /passports/{code} shows it, from its row as just
    written rather than read again: made now, it has no load at intake yet."""
    return _detail(made, _sites(memberships), None, [])


def _form_data(request: HttpRequest, sent: PassportIn) -> dict[str, str]:
    """What the form would be sent, and its one-time key: drawn from the Idempotency-Key, so
    that a POST sent again once its first answer was lost finds the first's passports."""
    data = {name: ("" if value is None else str(value))
            for name, value in sent.model_dump().items()}  # fmt: skip
    data["submission"] = str(_key(request))
    return data


def _first_error(form: PassportForm) -> str:
    return next(iter(form.non_field_errors()), _("The Assurance service refused some values."))


@router.get("/batches/{batch}", auth=READ, response=answers(ok=BatchOut),
            url_name="passport-batch")  # fmt: skip
def batch(request: HttpRequest, batch: uuid.UUID) -> dict[str, Any]:
    return _batch(request, batch)


def _batch(request: HttpRequest, key: uuid.UUID) -> dict[str, Any]:
    """The user's batch of `key`: its job, and its passports made so far that they may still
    see (a contact of its membership now); 404 for a batch they did not start."""
    job = batches.job_of(request, key)
    if job is None:
        raise ApiError(404)
    made = listing.visible(contacts.memberships(request)).filter(batch=key)
    return {
        "batch": key, "count": job.params.get("count", 0), "job": _job(job),
        "passports": list(made.order_by("batch_position").values_list("short_code", flat=True)),
        "url": reverse("api:passport-batch", args=[key]),
    }  # fmt: skip


# --- its PDF, and by e-mail --------------------------------------------------------------------


PDF_ANSWER = {
    "description": "The PDF.",
    "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
}


@router.get("/{code}/pdf", auth=READ, url_name="passport-pdf",
            response=answers() | {202: JobOut},
            openapi_extra={"responses": {200: PDF_ANSWER}})  # fmt: skip
def pdf(request: HttpRequest, code: str) -> HttpResponse:
    """The PDF, once its job has fetched it; until then 202 with the job (started if the user
    has none), with `Retry-After`. A fetch that failed is 422 with its reason, until the PDF is
    asked for again (POST)."""
    found = _passport(request, code)
    job = pdfs.latest(request, found.short_code)
    if job is not None and job.state == Job.State.DONE:
        audit.record(audit.Kind.PDF_DOWNLOADED, request, code=audit.code_hash(found.short_code))
        return result_response(job)
    if job is not None and job.state == Job.State.FAILED:
        raise ApiError(422, "pdf_not_fetched", f"{job.message} Ask for it again with a POST to "
                       "this address.")  # fmt: skip
    if job is None or job.state == Job.State.CANCELLED:
        job = pdfs.start(request, found.short_code)
    return _fetching(job)


@router.post("/{code}/pdf", auth=READ, url_name="passport-pdf-again",
             response=answers() | {202: JobOut})  # fmt: skip
@idempotent
def pdf_again(request: HttpRequest, code: str) -> HttpResponse:
    """Asks for the PDF (again, after a fetch that failed), as the passport's page does."""
    found = _passport(request, code)
    return _fetching(pdfs.start(request, found.short_code))


def _fetching(job: Job) -> HttpResponse:
    response = JsonResponse(_job(job), status=202)
    response["Retry-After"] = str(PDF_WAIT_SECONDS)
    return response


class MailIn(Input):
    recipient: str = Field(max_length=254, description="One e-mail address.")
    reply_to: str | None = Field(
        None,
        max_length=254,
        description="Where replies go; without it, the address kept on your account's page.",
    )
    note: str = Field("", max_length=mailing.NOTE_LIMIT, description="Plain text.")


class MailingOut(Schema):
    recipient: str
    passports: list[str]
    created: datetime
    sent: datetime | None
    job: JobOut | None


@router.post("/{code}/mail", auth=WRITE, url_name="passport-mail",
             response=answers() | {202: MailingOut})  # fmt: skip
@idempotent
def mail(request: HttpRequest, code: str, sent: MailIn) -> Status:
    """Sends the passport by e-mail, as its mail form does (the same limits, the same job)."""
    found = _passport(request, code)
    blank = MailForm.blank(request)
    data = {"recipient": sent.recipient, "note": sent.note,
            "reply_to": sent.reply_to or blank.initial["reply_to"] or "",
            "key": str(_key(request))}  # fmt: skip
    form = MailForm(data)
    if not form.is_valid():
        raise ApiError(422, "invalid", None, _form_errors(form))
    passports, _missing = mailing.chosen(request, [found.short_code])
    done = mailing.send(request, passports, form)
    if isinstance(done, str):
        raise ApiError(429, "mail_limit", done, retry_after=60 * 60)
    return Status(202, {
        "recipient": done.recipient, "passports": [found.short_code], "created": done.created,
        "sent": done.sent, "job": _job(done.job) if done.job else None,
    })  # fmt: skip


def _job(job: Job) -> dict[str, Any]:
    return {"state": job.state, "done": job.done, "total": job.total, "message": job.message}


def _key(request: HttpRequest) -> uuid.UUID:
    """A one-time key of the form's (a passport's, a mail's), drawn from the Idempotency-Key
    and the token: a POST sent again once its first answer was lost (or was a 5xx) finds what
    the first made, rather than making it again."""
    key = request.headers.get(HEADER)
    return uuid.uuid5(KEYS, f"{request.auth.pk}:{key}") if key else uuid.uuid4()
