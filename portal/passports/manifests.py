"""The records of many passports as a manifest: one row a passport, one column each field of the
passport record, headed by the interface's field names (the one table of a passport's fields,
portal.assurance.passport_fields) in the language of the export's job (in Welsh, a Welsh name
of the same form: `MathCnwd` for `CropType`), then the columns apps above the passports add (the
figures of each passport's latest load at intake, portal/intake/exporting.py), as CSV and XLSX.

Both are written a row at a time to a file: the XLSX with XlsxWriter in its constant-memory mode,
dates as dates (in UTC, as the service gives them; one before 1900, which no spreadsheet shows,
as the CSV writes it) and numbers as numbers; the CSV with the dates as the interface writes them
(ISO 8601).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import IO, TextIO

import xlsxwriter
from django.dispatch import Signal
from django.utils.translation import pgettext, pgettext_lazy

from portal.assurance import codec
from portal.assurance.passport_fields import PASSPORT_FIELDS, Kind
from portal.lib.spreadsheets import safe_cell
from portal.passports.models import Passport

# Each column's heading, the interface's name of its field (in English, the name itself): a name
# without spaces, for the programs that read the file; the values below stay as the service
# gives them, in every language.
HEADINGS = {
    "ShortCode": pgettext_lazy("an export's column", "ShortCode"),
    "MembershipGUID": pgettext_lazy("an export's column", "MembershipGUID"),
    "SiteGUID": pgettext_lazy("an export's column", "SiteGUID"),
    "StoreGUID": pgettext_lazy("an export's column", "StoreGUID"),
    "BusinessName": pgettext_lazy("an export's column", "BusinessName"),
    "CollectionAddress": pgettext_lazy("an export's column", "CollectionAddress"),
    "CropType": pgettext_lazy("an export's column", "CropType"),
    "Variety": pgettext_lazy("an export's column", "Variety"),
    "StoreOrBinName": pgettext_lazy("an export's column", "StoreOrBinName"),
    "LoadingDate": pgettext_lazy("an export's column", "LoadingDate"),
    "HarvestYear": pgettext_lazy("an export's column", "HarvestYear"),
    "HaulierCompanyName": pgettext_lazy("an export's column", "HaulierCompanyName"),
    "VehicleRegistration": pgettext_lazy("an export's column", "VehicleRegistration"),
    "TrailerNumber": pgettext_lazy("an export's column", "TrailerNumber"),
    "HaulierCollectionTicketNo": pgettext_lazy("an export's column", "HaulierCollectionTicketNo"),
    "CertifierName": pgettext_lazy("an export's column", "CertifierName"),
    "MembershipNumber": pgettext_lazy("an export's column", "MembershipNumber"),
    "CheckDate": pgettext_lazy("an export's column", "CheckDate"),
    "Status": pgettext_lazy("an export's column", "Status"),
    "ExpiryDate": pgettext_lazy("an export's column", "ExpiryDate"),
    "Enterprises": pgettext_lazy("an export's column", "Enterprises"),
    "PostHarvestTreatmentOption": pgettext_lazy("an export's column",
                                                "PostHarvestTreatmentOption"),
    "PostHarvestTreatmentDate": pgettext_lazy("an export's column", "PostHarvestTreatmentDate"),
    "PostHarvestTreatmentProduct": pgettext_lazy("an export's column",
                                                 "PostHarvestTreatmentProduct"),
    "DONRiskAssessmentResult": pgettext_lazy("an export's column", "DONRiskAssessmentResult"),
    "DONTestDate": pgettext_lazy("an export's column", "DONTestDate"),
    "DONTestResult": pgettext_lazy("an export's column", "DONTestResult"),
    "ZONTestDate": pgettext_lazy("an export's column", "ZONTestDate"),
    "ZONTestResult": pgettext_lazy("an export's column", "ZONTestResult"),
    "GrainStoreName": pgettext_lazy("an export's column", "GrainStoreName"),
    "GrainStoreLatitude": pgettext_lazy("an export's column", "GrainStoreLatitude"),
    "GrainStoreLongitude": pgettext_lazy("an export's column", "GrainStoreLongitude"),
}  # fmt: skip
COLUMNS = [field.wire_name for field in PASSPORT_FIELDS]
# Dates shown as ISO 8601 writes them, as in the CSV: a manifest is a machine format, not a page.
DATE_FORMAT = "yyyy-mm-dd hh:mm"
FIRST_DAY_SHOWN = datetime(1900, 1, 1)  # a spreadsheet's first date (Excel's, LibreOffice's)
RECORDS_AT_ONCE = 200


@dataclass(frozen=True, slots=True)
class Added:
    """Columns an app above the passports adds to the manifests, as a receiver of
    `columns_added` answers: their headings, and their cells for some passports at a time, by
    the passports' ids (a passport it leaves out has them blank)."""

    headings: tuple[str, ...]
    cells_of: Callable[[list[int]], dict[int, Sequence[object]]]


# Sent as a manifest is made: each receiver answers with an Added. The passports' app cannot
# import the apps above it (the intake's figures); they add their columns so.
columns_added = Signal()


class Manifest:
    """The passports of `passport_ids` as a manifest's rows, in that order, with the columns
    added: read a few hundred at a time, each time the rows are read (once for each file), so
    that a large export never holds them all."""

    def __init__(self, passport_ids: list[int]) -> None:
        self.passport_ids = passport_ids
        self.added: list[Added] = [answer for _, answer in columns_added.send(sender=Passport)]

    @property
    def headings(self) -> list[str]:
        """The columns' headings, in the language in use (the export's job's)."""
        own = [str(HEADINGS[name]) for name in COLUMNS]
        return own + [str(heading) for added in self.added for heading in added.headings]

    def rows(self) -> Iterator[list[object]]:
        """Each passport's values: its record's fields, then each added column's."""
        for start in range(0, len(self.passport_ids), RECORDS_AT_ONCE):
            ids = self.passport_ids[start : start + RECORDS_AT_ONCE]
            found = Passport.objects.only("record").in_bulk(ids)
            cells = [(added, added.cells_of(ids)) for added in self.added]
            for pk in ids:
                record = found[pk].crop_passport
                row = [getattr(record, field.name) for field in PASSPORT_FIELDS]
                for added, of_passport in cells:
                    row.extend(of_passport.get(pk) or [None] * len(added.headings))
                yield row


def write_csv(out: TextIO, manifest: Manifest) -> None:
    writer = csv.writer(out)
    writer.writerow(manifest.headings)
    for row in manifest.rows():
        writer.writerow(csv_cell(value) for value in row)


def csv_cell(value: object) -> str:
    """A value of a passport's record as a CSV file writes it: a machine format, so a date as
    the interface writes it (ISO 8601, UTC), not as the pages write a day; no cell that a
    spreadsheet would run as a formula."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return codec.format_datetime(value)
    if isinstance(value, float):
        return codec.format_number(value)
    if isinstance(value, Decimal):
        return format(value, "f")  # 72.5, never 7.25E+1
    if isinstance(value, int):
        return str(value)
    return safe_cell(str(value))


def write_xlsx(out: IO[bytes], manifest: Manifest) -> None:
    workbook = xlsxwriter.Workbook(out, {"constant_memory": True, "strings_to_formulas": False,
                                         "strings_to_urls": False})  # fmt: skip
    sheet = workbook.add_worksheet(pgettext("a sheet of an export", "Passports"))
    heading = workbook.add_format({"bold": True})
    dates = workbook.add_format({"num_format": DATE_FORMAT})
    days = {column for column, field in enumerate(PASSPORT_FIELDS) if field.kind == Kind.DAY}
    for column, name in enumerate(manifest.headings):
        sheet.set_column(column, column, 18 if column in days else max(12, len(name) + 2))
        sheet.write_string(0, column, name, heading)
    sheet.freeze_panes(1, 0)
    for row, values in enumerate(manifest.rows(), 1):
        for column, value in enumerate(values):
            if isinstance(value, datetime) and _in_utc(value) >= FIRST_DAY_SHOWN:
                sheet.write_datetime(row, column, _in_utc(value), dates)
            elif isinstance(value, datetime):
                sheet.write_string(row, column, codec.format_datetime(value))
            elif isinstance(value, float | int | Decimal):
                sheet.write_number(row, column, float(value))
            elif value is not None:
                sheet.write_string(row, column, str(value))
    workbook.close()


def _in_utc(value: datetime) -> datetime:
    """A date/time as a spreadsheet takes it: in UTC, without its offset."""
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
