"""The intake routes (sites' weighbridge and laboratory software, and clerks' own tools):
`/api/v1/intake/...`. A site's token reaches its site's loads; a clerk's token the loads of the
sites they are a clerk of; anything else is not found (404), as on the clerks' pages.

- GET  /intake/loads: the loads, by cursor, with `updated_since` (`site` to name one);
- GET  /intake/loads/{id}: one load, with its figures and history;
- POST /intake/loads: one record or a list of at most PORTAL_API_RECORDS (portal.intake.door,
  also at its first address /intake/api/loads): one record answers 201 recorded, 200 already
  recorded, corrected or unchanged, 422 refused with its fields; a list answers 200 with each
  record's answer in order and their tally;
- POST /intake/loads/{id}/corrections: the load's record corrected, with `correction_reason`;
- POST /intake/loads/{id}/answers: the open query answered, or the result stood by.
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from ninja import Field, Query, Router, Schema, Status

from portal.api.auth import scoped
from portal.api.errors import ApiError, refused_field
from portal.api.idempotency import idempotent
from portal.api.models import Scope, Token
from portal.api.paging import ListQuery, page_of
from portal.api.schemas import Input, answers, page_out
from portal.intake import access, door, queries, rows
from portal.intake.models import IntakeSite, Load, LoadEntry

router = Router()
READ, WRITE = scoped(Scope.INTAKE_READ), scoped(Scope.INTAKE_WRITE)
STATUS_OF_ONE = {rows.Outcome.RECORDED: 201}
NOT_RECORDS = gettext_lazy("Send a record (a JSON object of a load's fields) or a list of them.")


# --- whose sites and loads ----------------------------------------------------------------------


def sites_of(token: Token) -> QuerySet[IntakeSite]:
    """The sites a token reaches: its own site's, or those its user is a clerk of."""
    if token.site_id:
        return IntakeSite.objects.filter(pk=token.site_id)
    return access.sites_of(token.user)


def loads_of(token: Token) -> QuerySet[Load]:
    return Load.objects.filter(site__in=sites_of(token))


def site_named(token: Token, code: str | None) -> IntakeSite:
    """The site a request records at: the one named, among the token's (404 otherwise); or, if
    none is named, the token's one site."""
    if code:
        return get_object_or_404(sites_of(token), code=code)
    sites = list(sites_of(token)[:2])
    if len(sites) == 1:
        return sites[0]
    if not sites:
        raise ApiError(404)
    raise refused_field("site", _("Name the site (its code) to record at: this token reaches "
                        "more than one."))  # fmt: skip


def recorded_by(token: Token) -> str:
    """Whom a load's history names for what the token does."""
    if token.site_id:
        return f"{token.name} ({token.site.code}'s software)"
    return token.user.get_username()


# --- what is shown -----------------------------------------------------------------------------


class LoadOut(Schema):
    id: int
    site: str = Field(description="The site's code.")
    ticket: str
    short_code: str = Field(description="The passport the load came with.")
    net_kg: int
    decision: str
    created: datetime
    updated: datetime = Field(description="When its latest entry was added.")
    url: str


class EntryOut(Schema):
    kind: str
    at: datetime
    by: str
    words: str
    figures: dict[str, Any] | None


class LoadDetail(LoadOut):
    query_open: bool
    history: list[EntryOut]


class LoadsPage(Schema):
    items: list[LoadOut]
    next_cursor: str | None
    has_more: bool


class LoadsQuery(ListQuery):
    site: str | None = Field(None, max_length=40, description="Only this site's (its code).")


def _shown(load: Load) -> dict[str, Any]:
    return {"id": load.pk, "site": load.site.code, "ticket": load.ticket,
            "short_code": load.passport.short_code, "net_kg": load.net_kg,
            "decision": load.decision, "created": load.created, "updated": load.updated,
            "url": reverse("api:intake-load", args=[load.pk])}  # fmt: skip


def _entry(entry: LoadEntry) -> dict[str, Any]:
    return {"kind": entry.kind, "at": entry.at, "by": entry.by, "words": entry.words,
            "figures": entry.figures}  # fmt: skip


@router.get("/loads", auth=READ, response=answers(ok=LoadsPage), url_name="intake-load-list")
def load_list(request: HttpRequest, query: Query[LoadsQuery]) -> dict[str, Any]:
    listed = loads_of(request.auth)
    if query.site:
        listed = listed.filter(site__code=query.site)
    listed = listed.select_related("site", "passport").defer("passport__record")
    return page_out(page_of(listed, query, name="intake-loads"), _shown)


@router.get("/loads/{int:load_id}", auth=READ, response=answers(ok=LoadDetail),
            url_name="intake-load")  # fmt: skip
def load_detail(request: HttpRequest, load_id: int) -> dict[str, Any]:
    load = _load(request.auth, load_id)
    history = list(load.entries.all())
    return _shown(load) | {"query_open": queries.open_query(history) is not None,
                           "history": [_entry(entry) for entry in history]}  # fmt: skip


def _load(token: Token, load_id: int) -> Load:
    found = loads_of(token).select_related("site", "passport").defer("passport__record")
    return get_object_or_404(found, pk=load_id)


# --- the door: records of loads ---------------------------------------------------------------


class RecordAnswer(Schema):
    index: int
    ticket: str
    status: str = Field(description="recorded, corrected, already recorded, unchanged, refused")
    load: int | None = None
    errors: dict[str, list[str]] | None = None
    message: str | None = None
    verdict: dict[str, Any] | None = None


class RecordAnswers(Schema):
    records: list[RecordAnswer]
    tally: dict[str, int]


def _record_schema() -> dict[str, Any]:
    """A load's record as the door reads it (portal.intake.rows.COLUMNS): text or numbers."""
    value = {"type": ["string", "number", "null"]}
    properties: dict[str, Any] = {column: value for column in rows.COLUMNS}
    properties[rows.CORRECTION] = {"type": ["boolean", "string", "null"]}
    properties["reasons"] = {"type": ["array", "string", "null"], "items": {"type": "string"}}
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _records_body() -> dict[str, Any]:
    record = _record_schema()
    many = {"type": "array", "items": record, "minItems": 1,
            "maxItems": settings.PORTAL_API_RECORDS}  # fmt: skip
    schema = {"oneOf": [record, many]}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


@router.post("/loads", auth=WRITE, url_name="intake-loads", openapi_extra=_records_body(),
             response=answers(ok=RecordAnswer | RecordAnswers, created=RecordAnswer))  # fmt: skip
@idempotent
def record_loads(request: HttpRequest, site: str | None = None) -> JsonResponse:
    """Records the loads of a site's tickets: each record as one row of an upload, idempotent
    on the site and ticket (a record sent again is "already recorded", with the same load)."""
    token = request.auth
    at = site_named(token, site)
    sent = _parsed(request)
    one = isinstance(sent, dict)
    records = [sent] if one else sent
    if not isinstance(records, list) or not records:
        raise refused_field("body", NOT_RECORDS, 400, "body_invalid")
    most = settings.PORTAL_API_RECORDS
    if len(records) > most:
        message = _("At most %(most)s records a request: this has %(sent)s.") % {
            "most": f"{most:,}", "sent": f"{len(records):,}"}  # fmt: skip
        raise refused_field("body", message, 413, "too_many_records")
    taken = door.take(at, records, request, by=recorded_by(token), token=token.pk)
    if one:
        return _one_answer(taken[0])
    return JsonResponse({"records": [answer.as_json() for answer in taken],
                         "tally": door.tally(taken)})  # fmt: skip


def _parsed(request: HttpRequest) -> object:
    try:
        return json.loads(request.body, parse_float=Decimal)
    except (ValueError, RecursionError) as error:
        message = _("The body is not JSON. %(error)s") % {"error": error}
        raise refused_field("body", message[:300], 400, "body_not_json") from None


def _one_answer(answer: door.Answer) -> JsonResponse:
    if answer.taken.outcome == rows.Outcome.REFUSED:
        raise ApiError(422, "record_refused", _("The record was refused: see fields."),
                       answer.taken.errors)  # fmt: skip
    return JsonResponse(answer.as_json(), status=STATUS_OF_ONE.get(answer.taken.outcome, 200))


@router.post("/loads/{int:load_id}/corrections", auth=WRITE, url_name="intake-load-correct",
             openapi_extra=_records_body(), response=answers(ok=RecordAnswer))  # fmt: skip
@idempotent
def correct_load(request: HttpRequest, load_id: int) -> JsonResponse:
    """The load's record corrected: the whole record as it should be, with the
    `correction_reason` (the ticket, and that it is a correction, are the load's)."""
    token = request.auth
    load = _load(token, load_id)
    sent = _parsed(request)
    if not isinstance(sent, dict):
        raise refused_field("body", _("Send the load's corrected record, a JSON object."), 400,
                            "body_invalid")  # fmt: skip
    record = {**sent, "ticket": load.ticket, rows.CORRECTION: True}
    [answer] = door.take(load.site, [record], request, by=recorded_by(token), token=token.pk)
    return _one_answer(answer)


class AnswerIn(Input):
    words: str = Field(max_length=queries.WORDS_MOST, description="The answer to the grower.")
    stand_by: bool = Field(False, description="True: the result stands, for the words' reason.")


@router.post("/loads/{int:load_id}/answers", auth=WRITE, url_name="intake-load-answer",
             response=answers(created=EntryOut))  # fmt: skip
@idempotent
def answer_query(request: HttpRequest, load_id: int, answer: AnswerIn) -> Status:
    """The load's open query answered (or the result stood by), as a clerk answers it."""
    token = request.auth
    load = _load(token, load_id)
    action = "stand-by" if answer.stand_by else "answer"
    form = queries.AnswerForm(load, {"words": answer.words, "action": action})
    if not form.is_valid():
        raise ApiError(
            422, "invalid", None, {name: list(messages) for name, messages in form.errors.items()}
        )
    try:
        entry = queries.reply(load, by=recorded_by(token), words=form.cleaned_data["words"],
                              stand_by=form.stands_by)  # fmt: skip
    except queries.NotOpen:
        raise ApiError(409, "no_query_open", _("This load has no query open to answer.")) from None
    return Status(201, _entry(entry))
