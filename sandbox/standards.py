"""Standards as the interface shows them: scheme lists, section lists and section data."""

from __future__ import annotations

from django.db.models import F

from portal.assurance import records
from sandbox.api import not_found
from sandbox.models import Aim, Answer, AuditPoint, Edition, Link, Section, StandardPoint


def scheme_list(stage: str) -> records.SchemeList:
    editions = Edition.objects.filter(stage=stage).select_related("scheme")
    return records.SchemeList(
        items=[
            records.SchemeEntry(
                scheme_name=e.scheme.name, scheme_guid=e.scheme.guid, cache_date=e.changed
            )
            for e in editions
        ]
    )


def _edition(stage: str, scheme_guid: str) -> Edition:
    edition = (
        Edition.objects.select_related("scheme")
        .filter(stage=stage, scheme__guid=scheme_guid)
        .first()
    )
    if edition is None:
        raise not_found(
            "No scheme has this GUID."
            if stage == Edition.Stage.LIVE
            else "No scheme with this GUID has a preview."
        )
    return edition


def section_list(stage: str, scheme_guid: str, sector: str) -> records.SectionList:
    edition = _edition(stage, scheme_guid)
    sections = edition.sections.select_related("scope")
    if sector:
        sections = sections.filter(sector_prefix__iexact=sector)
    return records.SectionList(
        scheme_name=edition.scheme.name,
        scheme_guid=edition.scheme.guid,
        cache_date=edition.changed,
        scopes=[
            records.Scope(guid=s.guid, name=s.name, start_date=s.start_date, end_date=s.end_date)
            for s in edition.scopes.all()
        ],
        sections=[
            records.SectionEntry(
                scope_guid=s.scope.guid if s.scope else None,
                sector_prefix=s.sector_prefix,
                guid=s.guid,
                name=s.name,
                description=s.description,
                prefix=s.prefix,
                index=s.index,
                modified_date=s.modified,
            )
            for s in sections
        ],
    )


def find_section(stage: str, scheme_guid: str, key: str, sector: str) -> Section:
    """The section named by `key`: a two-letter segment is a prefix, anything else a GUID.

    Without a sector filter, a prefix that several sectors share names the first in order.
    """
    sections = Section.objects.select_related("edition__scheme").filter(
        edition__stage=stage, edition__scheme__guid=scheme_guid
    )
    if sector:
        sections = sections.filter(sector_prefix__iexact=sector)
    is_prefix = len(key) == 2
    sections = sections.filter(prefix__iexact=key) if is_prefix else sections.filter(guid=key)
    section = sections.first()
    if section is None:
        _edition(stage, scheme_guid)  # says which is missing: the scheme, or its preview
        raise not_found("This scheme has no such section.")
    return section


def section_data(section: Section) -> records.SectionData:
    """The section's data as the interface shows it; `section` from `find_section`."""
    points = StandardPoint.objects.filter(section=section)
    return records.SectionData(
        scheme_guid=section.edition.scheme.guid,
        sector_prefix=section.sector_prefix,
        section_guid=section.guid,
        section_name=section.name,
        section_prefix=section.prefix,
        cache_date=section.content_changed,
        standard_points=[
            records.StandardPoint(**row)
            for row in points.values(
                "guid",
                "reference",
                "assessment_question",
                "assessment_guidelines",
                "reference_sources",
                "guidance",
                "score",
                "revision_status",
                "index",
                modified_date=F("modified"),
            )
        ],
        audit_points=[
            records.AuditPoint(**row)
            for row in AuditPoint.objects.filter(standard_point__section=section)
            .order_by("standard_point__index", "index")
            .values(
                "guid",
                "reference",
                "item_text",
                "index",
                question_guid=F("standard_point__guid"),
                modified_date=F("modified"),
            )
        ],
        answers=[
            records.Answer(**row)
            for row in Answer.objects.filter(standard_point__section=section)
            .order_by("standard_point__index", "index")
            .values(
                "guid",
                "reference",
                "answer_text",
                "critical_point",
                "score",
                "index",
                question_guid=F("standard_point__guid"),
                modified_date=F("modified"),
            )
        ],
        categories=[
            records.Category(**row)
            for row in Aim.objects.filter(links__standard_point__section=section)
            .distinct()
            .values("guid", "name", "description", modified_date=F("modified"))
        ],
        links=[
            records.Link(**row)
            for row in Link.objects.filter(standard_point__section=section)
            .order_by("standard_point__index", "aim__name")
            .values(
                "guid",
                category_guid=F("aim__guid"),
                asset_guid=F("standard_point__guid"),
                modified_date=F("modified"),
            )
        ],
        what_has_changed=section.what_has_changed or None,
    )
