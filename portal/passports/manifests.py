"""The records of many passports as a manifest: one row a passport, one column each field of the
passport record, headed by the interface's field names (the one table of a passport's fields,
portal.assurance.passport_fields), as CSV and as XLSX.

Both are written a row at a time to a file: the XLSX with XlsxWriter in its constant-memory mode,
dates as dates (in UTC, as the service gives them; one before 1900, which no spreadsheet shows,
as the CSV writes it) and numbers as numbers; the CSV with the dates as the interface writes them
(ISO 8601).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import IO, TextIO

import xlsxwriter

from portal.assurance import codec, records
from portal.assurance.passport_fields import PASSPORT_FIELDS, Kind
from portal.lib.spreadsheets import safe_cell

COLUMNS = [field.wire_name for field in PASSPORT_FIELDS]
# Dates shown as ISO 8601 writes them, as in the CSV: a manifest is a machine format, not a page.
DATE_FORMAT = "yyyy-mm-dd hh:mm"
FIRST_DAY_SHOWN = datetime(1900, 1, 1)  # a spreadsheet's first date (Excel's, LibreOffice's)


def write_csv(out: TextIO, passports: Iterable[records.CropPassport]) -> None:
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for passport in passports:
        writer.writerow(csv_cell(getattr(passport, field.name)) for field in PASSPORT_FIELDS)


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
    return safe_cell(str(value))


def write_xlsx(out: IO[bytes], passports: Iterable[records.CropPassport]) -> None:
    workbook = xlsxwriter.Workbook(out, {"constant_memory": True, "strings_to_formulas": False,
                                         "strings_to_urls": False})  # fmt: skip
    sheet = workbook.add_worksheet("Passports")
    heading = workbook.add_format({"bold": True})
    dates = workbook.add_format({"num_format": DATE_FORMAT})
    for column, field in enumerate(PASSPORT_FIELDS):
        width = 18 if field.kind == Kind.DAY else max(12, len(field.wire_name) + 2)
        sheet.set_column(column, column, width)
        sheet.write_string(0, column, field.wire_name, heading)
    sheet.freeze_panes(1, 0)
    for row, passport in enumerate(passports, 1):
        for column, field in enumerate(PASSPORT_FIELDS):
            value = getattr(passport, field.name)
            if isinstance(value, datetime) and _in_utc(value) >= FIRST_DAY_SHOWN:
                sheet.write_datetime(row, column, _in_utc(value), dates)
            elif isinstance(value, datetime):
                sheet.write_string(row, column, codec.format_datetime(value))
            elif isinstance(value, float):
                sheet.write_number(row, column, value)
            elif value is not None:
                sheet.write_string(row, column, str(value))
    workbook.close()


def _in_utc(value: datetime) -> datetime:
    """A date/time as a spreadsheet takes it: in UTC, without its offset."""
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value
