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
from portal.standards.content import Filters, Point
from portal.standards.library import Fetched

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
    """One row per standard point; UTF-8 with a byte-order mark, so spreadsheets read it."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for p in points:
        point = p.point
        writer.writerow([
            _cell(p.reference),
            _cell(point.assessment_question),
            *(_cell(text) for text in p.plain_texts()),
            "" if point.score is None else f"{point.score:g}",
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
    fetched: Fetched[records.SectionData],
    points: list[Point],
    kept: list[str],
    scheme_name: str,
    stage: str,
) -> bytes:
    """A checklist of `points`; `kept` says which of the section's they are (Filters.described),
    and is empty if they are all of them."""
    html = render_to_string("standards/checklist.html", {
        "section": fetched.record, "points": points, "scheme_name": scheme_name,
        "stage": stage, "refreshed": fetched.refreshed, "kept": kept,
    })  # fmt: skip
    document = weasyprint.HTML(
        string=html, base_url=STATIC.as_uri() + "/", url_fetcher=FolderURLFetcher(STATIC)
    )
    return document.write_pdf()
