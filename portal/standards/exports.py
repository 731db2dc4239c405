"""A section as a CSV file and as a PDF checklist."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import weasyprint
from django.conf import settings
from django.template.loader import render_to_string

from portal.assurance import records
from portal.pdf import FolderURLFetcher
from portal.standards.cached import Fetched
from portal.standards.filters import Filters
from portal.standards.points import Point
from portal.standards.section_page import SectionListing

CSV_COLUMNS = [
    "Reference", "Standard point", "How it is measured", "Record keeping", "Guidance",
    "Score", "Revision", "Aims", "Audit points", "Answers", "Critical",
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
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for p in points:
        point = p.point
        writer.writerow([
            _cell(p.reference),
            _cell(point.assessment_question),
            *(_cell(text) for text in p.plain_lines()),
            p.score,
            _cell(point.revision_status),
            _cell("; ".join(a.name or "" for a in p.aims)),
            _cell("\n".join(f"{a.reference}: {a.item_text}" for a in p.audit_points)),
            _cell("\n".join(
                f"{a.reference}: {a.answer_text}{' [critical]' if a.critical_point else ''}"
                for a in p.answers
            )),
            "yes" if p.is_critical else "no",
        ])  # fmt: skip
    return ("\ufeff" + out.getvalue()).encode()


def _cell(value: str | None) -> str:
    """Text that a spreadsheet will not run as a formula."""
    text = value or ""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


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
    document = weasyprint.HTML(
        string=html, base_url=STATIC.as_uri() + "/", url_fetcher=FolderURLFetcher(STATIC)
    )
    return document.write_pdf()
