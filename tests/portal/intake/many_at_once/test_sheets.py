"""An upload read as a stream of rows (portal/intake/sheets.py): CSV as spreadsheets save it (a
byte-order mark or none, UTF-16, Windows' code page, commas, semicolons or tabs), a workbook's
first sheet with its formulas as text, the template's columns in any order and case; anything
else refused with words that say why."""

from __future__ import annotations

import io
import zipfile
from datetime import datetime

import pytest

from portal.intake import rows, sheets
from tests.portal.intake.builders import a_workbook, a_workbook_of_empty_texts, upload_row

COLUMNS = ("short_code", "ticket", "gross_kg")


def read(content: bytes, name: str = "t.csv", columns: tuple[str, ...] = COLUMNS) -> list:
    file = io.BytesIO(content)
    kind = sheets.kind_of(name, file)
    return [(row.number, row.cells) for row in sheets.rows_of(file, kind, columns)]


@pytest.mark.parametrize(
    "content",
    [
        b"short_code,ticket,gross_kg\r\nAB,T-1,44120\r\n",
        "\ufeffshort_code,ticket,gross_kg\nAB,T-1,44120\n".encode(),
        b"Short Code;Ticket;GROSS-KG\nAB;T-1;44120",
        "short_code\tticket\tgross_kg\nAB\tT-1\t44120\n".encode("utf-16"),
        b"ticket,short_code,gross_kg\n\n,,\nT-1,AB,44120\n",
    ],
)
def test_csv_as_spreadsheets_save_it(content):
    [(number, cells)] = read(content)
    assert cells == {"short_code": "AB", "ticket": "T-1", "gross_kg": "44120"}
    assert number in (2, 4)


def test_windows_code_page_and_cells_over_lines():
    content = 'short_code,ticket,gross_kg\nAB,"T-1\nT-2",£5\nCD,T-3,1\n'.encode("cp1252")
    assert read(content) == [
        (2, {"short_code": "AB", "ticket": "T-1\nT-2", "gross_kg": "£5"}),
        (3, {"short_code": "CD", "ticket": "T-3", "gross_kg": "1"}),
    ]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"short_code,ticket\nAB,T-1\n", "columns missing: gross_kg"),
        (b"short_code,ticket,gross_kg,ticket\n", "columns named twice: ticket"),
        (b"short_code,ticket,gross_kg,,colour\n", "columns not known here: (column 4 unnamed)"),
        (b"short_code,ticket,gross_kg\nAB,T-1,1,extra\n", "Row 2 has cells beyond the columns"),
        (b"short_code,ticket,gross_kg\n" + b"\n,,\n" * 600, "more than 1000 empty rows"),
        (b"short_code,ticket,gross_kg\nAB\x01\x02,T-1,1\n", "is not text"),
        (b"\xff\xfe\x00\xd8", "is not text"),  # UTF-16 with half a character
    ],
)
def test_a_csv_that_cannot_be_taken_says_why(content, words):
    with pytest.raises(sheets.NotASheet, match=words.replace("(", r"\(").replace(")", r"\)")):
        read(content)


def test_a_workbooks_first_sheet_its_formulas_as_text_and_its_numbers_as_typed():
    content = a_workbook(
        ["ticket", "short_code", "gross_kg", "arrival"],
        ["T-1", '=HYPERLINK("https://example.org","AB")', 44120.0, datetime(2026, 9, 3, 10, 15)],
        [],
        ["T-2", "CD", 14.25, True],
    )  # fmt: skip
    rows = read(content, "t.xlsx", (*COLUMNS, "arrival"))
    assert rows == [
        (2, {"ticket": "T-1", "short_code": '=HYPERLINK("https://example.org","AB")',
             "gross_kg": "44120", "arrival": "2026-09-03 10:15"}),
        (4, {"ticket": "T-2", "short_code": "CD", "gross_kg": "14.25", "arrival": "yes"}),
    ]  # fmt: skip


def test_a_workbook_that_unpacks_too_large_is_not_read(monkeypatch):
    monkeypatch.setattr(sheets, "UNPACKED_BYTES", 1000)
    with pytest.raises(sheets.NotASheet, match="unpacks to more"):
        read(a_workbook(list(COLUMNS), ["x" * 2000, "T-1", 1]), "t.xlsx")


def test_a_workbook_with_more_text_than_tickets_hold_is_not_read(monkeypatch):
    monkeypatch.setattr(sheets, "SHARED_TEXT_BYTES", 5000)
    distinct = [[f"T-{n}", f"{n:04d}" * 100] for n in range(20)]
    with pytest.raises(sheets.NotASheet, match="more text than a day's tickets"):
        read(a_workbook(list(COLUMNS), *distinct), "t.xlsx")
    assert read(a_workbook(list(COLUMNS), *distinct[:5]), "t.xlsx")  # 2,000 characters of text


@pytest.mark.parametrize("part", [sheets.SHARED_TEXT_PART, "xl/words.xml"])
def test_a_workbooks_table_of_texts_is_counted_whatever_its_name(part):
    hostile = a_workbook_of_empty_texts(1_290_000, [upload_row("7KXM4-QHT2W")], part)
    assert zipfile.ZipFile(io.BytesIO(hostile)).getinfo(part).file_size > 16_000_000
    with pytest.raises(sheets.NotASheet, match="holds more than 100,000 texts"):
        read(hostile, "t.xlsx", rows.COLUMNS)


def test_a_workbooks_texts_are_at_most_its_cells(monkeypatch):
    monkeypatch.setattr(sheets, "SHARED_TEXTS", 10**9)  # the cells alone bound them
    table = [upload_row("7KXM4-QHT2W", f"T-{n}") for n in range(3)]
    cells = len(rows.COLUMNS) * 4
    assert read(a_workbook_of_empty_texts(0, table), "t.xlsx", rows.COLUMNS)
    with pytest.raises(sheets.NotASheet, match="more texts than its sheets have cells"):
        read(a_workbook_of_empty_texts(cells, table), "t.xlsx", rows.COLUMNS)


def test_a_workbook_broken_inside_is_refused():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("xl/workbook.xml", "<not-a-workbook")
    with pytest.raises(sheets.NotASheet, match="The workbook cannot be read"):
        read(out.getvalue(), "t.xlsx")


def test_a_workbook_named_csv_is_refused():
    with pytest.raises(sheets.NotASheet, match=r"named \.csv but is a workbook"):
        read(a_workbook(list(COLUMNS)), "t.csv")
