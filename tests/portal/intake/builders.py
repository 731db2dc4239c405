"""The one builder of intake sites and recorded loads for the tests: a site as staff make it,
a load as a clerk records it (portal.intake.loads), of a passport the grower made, and the rows
of a site's upload (or the records its software sends) and the file that holds them."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import xlsxwriter
from django.utils import timezone

from portal.intake import loads, rows
from portal.intake.models import Decision, IntakeSite, Load
from portal.passports.models import Passport
from tests.portal.passports.made import made_here

STOUR_VALLEY = {"name": "Stour Valley Grain, Sudbury", "buyer_business": "Stour Valley Grain Ltd",
                "code": "stour-valley-sudbury"}  # fmt: skip


def a_site(**fields: str) -> IntakeSite:
    """A site as staff make it, whose wheat must weigh 76 kg/hl or more."""
    site = IntakeSite.objects.create(**(STOUR_VALLEY | fields))
    site.specifications.create(crop="wheat", parameter="specific_weight", lowest=Decimal("76"))
    return site


def figures(**changed: object) -> loads.Figures:
    """A wheat load's figures at intake: 29.1 t net, accepted with a claim on specific weight."""
    return loads.Figures(**({
        "arrival": datetime(2026, 9, 3, 10, 15, tzinfo=UTC), "vehicle": "AE24 KTV",
        "gross_kg": 44_120, "tare_kg": 15_020, "decision": Decision.CLAIM,
        "sample_reference": "S-0931", "sample_kept_days": 90,
        "results": {"moisture": Decimal("14.2"), "specific_weight": Decimal("72.5"),
                    "protein": Decimal("11.8")},
        "reasons": ("Specific weight under specification",),
        "claims": (loads.Claim("specific_weight", Decimal("2.50"), Decimal("29.10")),),
    } | changed))  # fmt: skip


def a_load(site: IntakeSite, ticket: str = "T-1001", **changed: object) -> Load:
    passport = Passport.objects.get(short_code=made_here())
    verdict = {"valid": True, "checked_at": "2026-09-03T10:14:00+00:00"}
    return loads.record(site, ticket, passport, figures(**changed), by="intake", verdict=verdict)


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


def tickets_file(rows_of_loads: list[dict[str, object]], kind: str = "csv") -> bytes:
    """The rows written as the template is, its header first (every column), as CSV (UTF-8 with
    a byte-order mark, as Excel saves it) or as a workbook whose cells are what the rows hold:
    numbers as numbers, dates and times as a date cell, and text beginning with = as a
    formula."""
    table = [list(rows.COLUMNS)] + [[row.get(c, "") for c in rows.COLUMNS] for row in rows_of_loads]
    if kind == "csv":
        out = io.StringIO()
        csv.writer(out).writerows(table)
        return ("\ufeff" + out.getvalue()).encode()
    out = io.BytesIO()
    workbook = xlsxwriter.Workbook(out, {"in_memory": True})
    sheet, when = workbook.add_worksheet(), workbook.add_format({"num_format": "yyyy-mm-dd hh:mm"})
    for number, cells in enumerate(table):
        for column, cell in enumerate(cells):
            if isinstance(cell, datetime):
                sheet.write_datetime(number, column, cell, when)
            else:
                sheet.write(number, column, cell)
    workbook.close()
    return out.getvalue()
