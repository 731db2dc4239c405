"""The standards' routes, read only, as the standards' pages show them: `/api/v1/standards/...`.

- GET /standards/schemes: the schemes (`stage`: live, or the preview of the next version);
- GET /standards/schemes/{scheme}/sections: a scheme's sections, in the pages' order;
- GET /standards/schemes/{scheme}/sections/{sector}/{prefix}: a section's standard points,
  each with its audit points, answers and aims, their HTML made safe as on the pages (`-` for
  a section of no sector, as the pages' addresses write it).

Read with a person's token of any scope, with the upstream sign-in of that person, as the
pages are (the standards are the same for everyone, and cached so); a site's token reads none.
"""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import Field, Query, Router, Schema

from portal.accounts.session import user_credentials
from portal.api.auth import scoped
from portal.api.errors import ApiError
from portal.api.schemas import answers
from portal.assurance import records
from portal.standards import cached
from portal.standards.addresses import LIVE, sector_of, sector_segment
from portal.standards.points import Point, arrange

router = Router()
ANY = scoped()
Stage = Literal["live", "preview"]
STAGE = Query(LIVE, description="live, or preview: the next version, before it is live.")


class SchemeOut(Schema):
    guid: str
    name: str
    url: str


class SchemesOut(Schema):
    items: list[SchemeOut]


class SectionOut(Schema):
    guid: str
    name: str
    description: str
    sector: str = Field(description="The sector's prefix; - for none.")
    prefix: str
    url: str


class SectionsOut(Schema):
    scheme: SchemeOut
    items: list[SectionOut]


class AuditPointOut(Schema):
    reference: str
    text: str


class AnswerOut(Schema):
    reference: str
    text: str
    critical: bool
    score: float | None


class AimOut(Schema):
    name: str
    description: str


class PointOut(Schema):
    reference: str
    question: str
    score: str
    revision: str
    critical: bool
    guidelines: str = Field(description="HTML, made safe as the pages show it.")
    record_keeping: str = Field(description="HTML, made safe as the pages show it.")
    guidance: str = Field(description="HTML, made safe as the pages show it.")
    audit_points: list[AuditPointOut]
    answers: list[AnswerOut]
    aims: list[AimOut]


class SectionDetail(Schema):
    scheme_guid: str
    sector: str
    prefix: str
    name: str
    points: list[PointOut]


def _credentials(request: HttpRequest) -> Any:
    if request.auth.site_id:
        raise ApiError(403, "person_token_needed", _("The standards are read with a person's "
                       "token: a site's token reads its loads only."))  # fmt: skip
    return user_credentials(request)


def _address(*parts: str, stage: str) -> str:
    return reverse("api:" + parts[0], args=parts[1:]) + ("?stage=preview" if stage != LIVE else "")


@router.get("/schemes", auth=ANY, response=answers(ok=SchemesOut), url_name="standards-schemes")
def schemes(request: HttpRequest, stage: Stage = STAGE) -> dict[str, Any]:
    listed = cached.schemes(_credentials(request), stage).record
    return {"items": [_scheme(entry.scheme_guid or "", entry.scheme_name or "", stage)
                      for entry in listed.items]}  # fmt: skip


def _scheme(guid: str, name: str, stage: str) -> dict[str, str]:
    return {"guid": guid, "name": name,
            "url": _address("standards-sections", guid, stage=stage)}  # fmt: skip


@router.get("/schemes/{scheme_guid}/sections", auth=ANY, response=answers(ok=SectionsOut),
            url_name="standards-sections")  # fmt: skip
def sections(request: HttpRequest, scheme_guid: str, stage: Stage = STAGE) -> dict[str, Any]:
    listing = cached.sections(_credentials(request), stage, scheme_guid).record
    scheme = _scheme(listing.scheme_guid or scheme_guid, listing.scheme_name or "", stage)
    return {
        "scheme": scheme,
        "items": [
            _section(scheme_guid, entry, stage)
            for entry in cached.sections_in_order(listing.sections)
        ],
    }


def _section(scheme_guid: str, entry: records.SectionEntry, stage: str) -> dict[str, str]:
    sector, prefix = sector_segment(entry.sector_prefix), entry.prefix or ""
    return {
        "guid": entry.guid or "",
        "name": entry.name or "",
        "description": entry.description or "",
        "sector": sector,
        "prefix": prefix,
        "url": _address("standards-section", scheme_guid, sector, prefix, stage=stage),
    }


@router.get("/schemes/{scheme_guid}/sections/{sector}/{prefix}", auth=ANY,
            response=answers(ok=SectionDetail), url_name="standards-section")  # fmt: skip
def section(
    request: HttpRequest, scheme_guid: str, sector: str, prefix: str, stage: Stage = STAGE
) -> dict[str, Any]:
    credentials = _credentials(request)
    data = cached.section(credentials, stage, scheme_guid, prefix, sector_of(sector)).record
    return {
        "scheme_guid": scheme_guid,
        "sector": sector,
        "prefix": prefix,
        "name": data.section_name or "",
        "points": [_point(p) for p in arrange(data)],
    }


def _point(point: Point) -> dict[str, Any]:
    return {
        "reference": point.reference, "question": point.point.assessment_question or "",
        "score": point.score, "revision": point.revision, "critical": point.is_critical,
        "guidelines": str(point.guidelines), "record_keeping": str(point.record_keeping),
        "guidance": str(point.guidance),
        "audit_points": [{"reference": a.reference or "", "text": a.item_text or ""}
                         for a in point.audit_points],
        "answers": [{"reference": a.reference or "", "text": a.answer_text or "",
                     "critical": bool(a.critical_point), "score": a.score}
                    for a in point.answers],
        "aims": [{"name": aim.name or "", "description": aim.description or ""}
                 for aim in point.aims],
    }  # fmt: skip
