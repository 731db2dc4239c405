"""A section, or a whole scheme, as a CSV file and as a PDF checklist."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import weasyprint
from django.conf import settings
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from portal.assurance import records
from portal.assurance.client import Credentials
from portal.assurance.errors import NotFound
from portal.lib.pdf import FolderURLFetcher
from portal.lib.spreadsheets import safe_cell
from portal.standards import cached
from portal.standards.addresses import PREVIEW
from portal.standards.cached import Fetched
from portal.standards.filters import Filters
from portal.standards.points import Point, arrange
from portal.standards.section_page import SectionListing

# The headers, in the language of the page or job that makes the file; the cells hold the
# service's text as it sent it, and codes ("yes", "no", "[critical]") that stay as they are.
CSV_COLUMNS = [
    gettext_lazy("Reference"), gettext_lazy("Standard point"),
    gettext_lazy("How it is measured"), gettext_lazy("Record keeping"), gettext_lazy("Guidance"),
    gettext_lazy("Score"), gettext_lazy("Revision"), gettext_lazy("Aims"),
    gettext_lazy("Audit points"), gettext_lazy("Answers"), gettext_lazy("Critical"),
]  # fmt: skip


def file_name(section: records.SectionData, extension: str, filters: Filters) -> str:
    """The section's code and name, and "filtered" if `filters` leave out any point."""
    code = ".".join(p for p in (section.sector_prefix, section.section_prefix) if p)
    words = re.sub(r"[^A-Za-z0-9]+", "-", section.section_name or "section").strip("-").lower()
    stem = "-".join(part for part in (code, words, "filtered" if filters.active else "") if part)
    return f"{stem}.{extension}"


def section_csv(points: list[Point]) -> bytes:
    """One row per standard point, each paragraph or list item of a field on a line of its own
    within its cell; UTF-8 with a byte-order mark, so spreadsheets read it."""
    return _csv(CSV_COLUMNS, (_point_row(p) for p in points))


def scheme_csv(sections: list[SchemeSection]) -> bytes:
    """The whole scheme: one row per standard point, section by section, each row naming its
    section first."""
    rows = (
        [safe_cell(section.code), safe_cell(section.name), *_point_row(p)]
        for section in sections
        for p in section.points
    )
    return _csv([_("Section"), _("Section name"), *CSV_COLUMNS], rows)


def _csv(header: list[str], rows: Iterable[list[str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([str(name) for name in header])
    writer.writerows(rows)
    return ("\ufeff" + out.getvalue()).encode()


def _point_row(p: Point) -> list[str]:
    point = p.point
    return [
        safe_cell(p.reference),
        safe_cell(point.assessment_question),
        *(safe_cell(text) for text in p.plain_lines()),
        p.score,
        safe_cell(point.revision_status),
        safe_cell("; ".join(a.name or "" for a in p.aims)),
        safe_cell("\n".join(f"{a.reference}: {a.item_text}" for a in p.audit_points)),
        safe_cell("\n".join(
            f"{a.reference}: {a.answer_text}{' [critical]' if a.critical_point else ''}"
            for a in p.answers
        )),
        "yes" if p.is_critical else "no",
    ]  # fmt: skip


# --- the PDF checklist ----------------------------------------------------------------------------

STATIC = Path(settings.BASE_DIR) / "static"


def section_pdf(
    fetched: Fetched[records.SectionData], listing: SectionListing, scheme_name: str, stage: str
) -> bytes:
    """A checklist of the points `listing` keeps, saying which of the section's they are."""
    html = render_to_string("standards/checklist.html", {
        "section": fetched.record, "points": listing.points, "scheme_name": scheme_name,
        "stage": stage, "refreshed": fetched.refreshed, "kept": listing.described,
    })  # fmt: skip
    return _pdf(html)


def scheme_pdf(scheme: WholeScheme) -> bytes:
    """The whole scheme as a checklist: a cover, contents with page numbers, each section from a
    page of its own."""
    html = render_to_string("standards/scheme_checklist.html", {"scheme": scheme})
    return _pdf(html)


def _pdf(html: str) -> bytes:
    document = weasyprint.HTML(
        string=html, base_url=STATIC.as_uri() + "/", url_fetcher=FolderURLFetcher(STATIC)
    )
    return document.write_pdf()


# --- a whole scheme -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SchemeSection:
    code: str  # CR.ST
    name: str
    points: list[Point]

    @property
    def anchor(self) -> str:
        return "section-" + re.sub(r"[^A-Za-z0-9]+", "-", self.code).strip("-")


@dataclass(frozen=True, slots=True)
class WholeScheme:
    name: str
    stage: str
    refreshed: datetime  # when its list of sections was last had from the service
    sections: list[SchemeSection]

    @property
    def point_count(self) -> int:
        return sum(len(section.points) for section in self.sections)

    def file_name(self, extension: str) -> str:
        words = re.sub(r"[^A-Za-z0-9]+", "-", self.name or "scheme").strip("-").lower()
        return f"{words}{'-preview' if self.stage == PREVIEW else ''}.{extension}"


def whole_scheme(
    credentials: Credentials,
    stage: str,
    scheme_guid: str,
    progress: Callable[[int, int], None] = lambda done, total: None,
    *,
    steps_after: int = 0,
) -> WholeScheme:
    """Every section of the scheme with its standard points, in order, asked of the standards
    cache a section at a time; `progress(done, total)` after each, counting `steps_after` steps
    still to come once the sections are in hand."""
    listing = cached.sections(credentials, stage, scheme_guid)
    entries = cached.sections_in_order(listing.record.sections)
    total = len(entries) + steps_after
    sections = []
    for done, entry in enumerate(entries, start=1):
        try:
            fetched = cached.section(credentials, stage, scheme_guid, entry.prefix or "",
                                     entry.sector_prefix or "")  # fmt: skip
        except NotFound:  # gone since the list was made
            continue
        code = ".".join(filter(None, (entry.sector_prefix, entry.prefix)))
        sections.append(SchemeSection(code, entry.name or code, arrange(fetched.record)))
        progress(done, total)
    name = listing.record.scheme_name or cached.scheme_name(credentials, stage, scheme_guid) or ""
    return WholeScheme(name, stage, listing.refreshed, sections)


def scheme_version(credentials: Credentials, stage: str, scheme_guid: str) -> str:
    """The version of the scheme's list of sections (each section's change date is in it): an
    export of the same version is the same file."""
    return cached.sections(credentials, stage, scheme_guid).version
