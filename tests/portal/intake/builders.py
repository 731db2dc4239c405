"""The one builder of intake sites and recorded loads for the tests: a site as staff make it,
its clerks as staff name them, a load as a clerk records it (portal.intake.loads), of a passport
the grower made, a clerk of a site signed in, a grower's query of a load and a laboratory's
certificate, and the rows of a site's upload (or the records its software sends) and the file
that holds them (or a hostile workbook of a few KB whose table of texts holds a million)."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pypdf
import xlsxwriter
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from portal.accounts.session import portal_user
from portal.intake import demo, loads, queries, rows, sheets
from portal.intake.models import Decision, IntakeSite, Load, LoadEntry
from portal.passports.models import Passport
from tests.portal.accounts.helpers import signed_in
from tests.portal.passports.made import made_here

STOUR_VALLEY = demo.STOUR_VALLEY  # the demo's site, which `make run` loads


def a_site(**fields: str) -> IntakeSite:
    """A site as staff make it, whose wheat must weigh 76 kg/hl or more."""
    site = IntakeSite.objects.create(**(STOUR_VALLEY | fields))
    site.specifications.create(crop="wheat", parameter="specific_weight", lowest=Decimal("76"))
    return site


def a_clerk(username: str, site: IntakeSite) -> IntakeSite:
    """The account `username` made a clerk of `site`, as staff make one (grant_intake)."""
    site.clerks.add(portal_user(username))
    return site


def figures(**changed: object) -> loads.Figures:
    """A wheat load's figures at intake: 29.1 t net, accepted with a claim on specific weight."""
    return loads.Figures(**({
        "arrival": datetime(2026, 9, 3, 10, 15, tzinfo=UTC), "vehicle": "AE24 KTV",
        "gross_kg": 44_120, "tare_kg": 15_020, "decision": Decision.CLAIM,
        "sample_reference": "S-0931", "sample_kept_days": 90,
        "results": {"moisture": Decimal("14.2"), "specific_weight": Decimal("72.5"),
                    "protein": Decimal("11.8")},
        "reasons": ("specific-weight",),
        "claims": (loads.Claim("specific_weight", Decimal("2.50"), Decimal("29.10")),),
    } | changed))  # fmt: skip


def a_load(
    site: IntakeSite, ticket: str = "T-1001", passport: Passport | None = None, **changed: object
) -> Load:
    """A load recorded at `site` with `figures(**changed)`, of `passport` (by default a new
    passport the grower made)."""
    passport = passport or Passport.objects.get(short_code=made_here())
    verdict = {"valid": True, "checked_at": "2026-09-03T10:14:00+00:00"}
    return loads.record(site, ticket, passport, figures(**changed), by="intake", verdict=verdict)


def a_signed_in_clerk(site: IntakeSite, username: str = "haulier") -> Client:
    """A client signed in as the demo account `username` (by default one of no membership),
    made a clerk of `site` as staff make one."""
    a_clerk(username, site)
    return signed_in(username)


def a_certificate(pages: int = 1) -> bytes:
    """A laboratory's certificate: a PDF of so many pages."""
    writer = pypdf.PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=595, height=842)
    writer.add_metadata({"/Title": "Certificate of analysis S-0931"})
    written = io.BytesIO()
    writer.write(written)
    return written.getvalue()


def queried(
    load: Load, words: str = "Our own test gave 77.1 kg/hl.", certificate: bytes | None = None
) -> LoadEntry:
    """The grower's query of the load's result, as the query's form records it."""
    attached = SimpleUploadedFile("lab.pdf", certificate) if certificate is not None else None
    return queries.ask(load, by="grower", words=words, certificate=attached)


def upload_row(short_code: str, ticket: str = "T-1001", **changed: object) -> dict[str, object]:
    """A row of an upload as a clerk fills the template (or a record as a site's software sends
    it): the wheat load of `figures()`, arrived two hours ago, accepted with a claim on its
    specific weight; `changed` over it (None leaves a column out)."""
    arrival = timezone.localtime() - timedelta(hours=2)
    row = {
        "short_code": short_code, "ticket": ticket, "arrival": f"{arrival:%Y-%m-%d %H:%M}",
        "vehicle": "AE24 KTV", "gross_kg": "44120", "tare_kg": "15020",
        "sample_reference": "S-0931", "sample_kept_days": "90", "decision": "claim",
        "reasons": "specific-weight", "moisture": "14.2", "specific_weight": "72.5",
        "protein": "11.8", "claim_1_parameter": "specific_weight", "claim_1_rate": "2.50",
    } | changed  # fmt: skip
    return {column: value for column, value in row.items() if value is not None}


def tickets_file(
    rows_of_loads: list[dict[str, object]], kind: str = "csv", separator: str = ","
) -> bytes:
    """The rows written as the template is, its header first (every column), as CSV (UTF-8 with
    a byte-order mark, as Excel saves it; its cells separated by `separator`) or as a workbook
    whose cells are what the rows hold: numbers as numbers, dates and times as a date cell, and
    text beginning with = as a formula."""
    table = [list(rows.COLUMNS)] + [[row.get(c, "") for c in rows.COLUMNS] for row in rows_of_loads]
    if kind == "csv":
        out = io.StringIO()
        csv.writer(out, delimiter=separator).writerows(table)
        return ("\ufeff" + out.getvalue()).encode()
    return a_workbook(*table)


def a_workbook(*rows: list[object]) -> bytes:
    """A workbook whose first sheet holds `rows` as a spreadsheet would: numbers as numbers,
    dates and times as a date cell, text beginning with = as a formula, None as no cell; and a
    second sheet, empty (only the first is read)."""
    out = io.BytesIO()
    workbook = xlsxwriter.Workbook(out, {"in_memory": True})
    sheet, when = workbook.add_worksheet(), workbook.add_format({"num_format": "yyyy-mm-dd hh:mm"})
    for number, cells in enumerate(rows):
        for column, cell in enumerate(cells):
            if isinstance(cell, datetime):
                sheet.write_datetime(number, column, cell, when)
            elif cell is not None:
                sheet.write(number, column, cell)
    workbook.add_worksheet("Second")
    workbook.close()
    return out.getvalue()


def a_workbook_of_empty_texts(
    texts: int, rows_of_loads: list[dict[str, object]], part: str = sheets.SHARED_TEXT_PART
) -> bytes:
    """The workbook of `rows_of_loads` (tickets_file's) whose table of distinct texts holds
    `texts` more, all empty, and declares them: as a hostile sender packs 1.29 million in 38 KB
    (under the 16 MB unpacked that the table may hold). The table is the part named `part`
    (its manifest and the workbook's links name it so)."""
    made = zipfile.ZipFile(io.BytesIO(tickets_file(rows_of_loads, "xlsx")))
    table = made.read(sheets.SHARED_TEXT_PART).decode()
    head, _, rest = table.partition("<si>")
    held = rest.count("<si>") + 1 + texts
    head = re.sub(r'count="\d+" uniqueCount="\d+"', f'count="{held}" uniqueCount="{held}"', head)
    hostile = f"{head}<si>{rest.removesuffix('</sst>')}{'<si><t/></si>' * texts}</sst>"
    renamed = {
        "[Content_Types].xml": (f"/{sheets.SHARED_TEXT_PART}", f"/{part}"),
        "xl/_rels/workbook.xml.rels": ("sharedStrings.xml", part.removeprefix("xl/")),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in made.namelist():
            if name == sheets.SHARED_TEXT_PART:
                archive.writestr(part, hostile)
            elif name in renamed:
                archive.writestr(name, made.read(name).decode().replace(*renamed[name]))
            else:
                archive.writestr(name, made.read(name))
    return out.getvalue()
