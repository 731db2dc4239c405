"""A site's upload read as a stream of rows: a CSV file (its text in UTF-8, with or without a
byte-order mark, UTF-16 with one, or Windows' own code page as Excel saves it; separated by
commas, semicolons or tabs) or an Excel workbook (.xlsx, its first sheet, read by openpyxl's
read-only mode). Neither is ever read whole into memory.

What the file is is told by its content as well as its name: a file named .csv that is not text,
or .xlsx that is not a workbook, is refused with words that say so (`NotASheet`), as is any other
kind (.xls, .ods, .numbers). A cell holding a formula is read as the formula's text, never as
the value a spreadsheet worked out (openpyxl without `data_only`): it is checked as any text is.
A text cell's characters that XML cannot hold (control characters), which a workbook writes as
`_x001B_`, are read as the characters Excel shows, to be checked as typed ones are.

A workbook is a ZIP: one whose parts would unpack to more than UNPACKED_BYTES (a "zip bomb") is
refused before any part is read. So is one whose table of distinct texts (its shared strings,
which openpyxl holds in memory while the rows are read, since every cell's text is a number
into it) would unpack to more than SHARED_TEXT_BYTES: far more text than 2,000 rows of tickets
hold, and the one part of a workbook whose memory grows with its rows. Those are read from the
ZIP's directory alone (`kind_of`, as the file comes). Before the rows are read (`rows_of`, in the
job), the table openpyxl would read (the part its manifest names as such, whatever its name) is
checked again, and its texts counted as they are parsed: a table that declares or holds more
texts than SHARED_TEXTS, or than the workbook's sheets have cells (each text is some cell's), is
refused, since openpyxl would spend minutes reading a million empty texts packed in a few KB.
"""

from __future__ import annotations

import codecs
import csv
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import PurePath
from typing import IO

from defusedxml.ElementTree import iterparse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from openpyxl import load_workbook
from openpyxl.packaging.manifest import Manifest
from openpyxl.utils.escape import unescape
from openpyxl.utils.exceptions import InvalidFileException
from openpyxl.xml.constants import ARC_CONTENT_TYPES, SHARED_STRINGS, WORKSHEET_TYPE
from openpyxl.xml.functions import fromstring

from portal.lib.numbers import decimal_point

CSV, XLSX = "csv", "xlsx"
KINDS = (CSV, XLSX)
ZIP_START = b"PK\x03\x04"
UNPACKED_BYTES = 100 * 1024 * 1024  # a workbook's parts, unpacked
SHARED_TEXT_BYTES = 16 * 1024 * 1024  # its shared strings' part, unpacked
SHARED_TEXT_PART = "xl/sharedStrings.xml"
# Distinct texts of a workbook: a day's tickets hold a few for each row (its ticket, vehicle,
# sample), far fewer than this even at ten times the 2,000 rows taken by default.
SHARED_TEXTS = 100_000
SPREADSHEET_ML = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
CHUNK = 64 * 1024
BLANK_ROWS = 1000  # blank rows skipped in all; a file of more is not a day's tickets
BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"))  # fmt: skip
SEPARATORS = ",;\t"
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

MORE_TEXT = _("This workbook holds more text than a day's tickets can fill: it is not read.")
SAVE_AS = _("Save it from your spreadsheet as CSV (comma-separated) or as an Excel workbook "
            "(.xlsx).")  # fmt: skip


class NotASheet(ValueError):
    """The file cannot be read as a CSV file or a workbook; the message says why, to its
    sender (in the language of the page or job that read it)."""


def _save_it(sentence: str) -> str:
    """What is wrong with the file, then how to save it so that it is read: two sentences."""
    return f"{sentence} {SAVE_AS}"


@dataclass(frozen=True, slots=True)
class Row:
    """A row of the file: its number as a spreadsheet numbers it (the header is row 1), and its
    cells as text, by column (a column missing from a short row is empty)."""

    number: int
    cells: dict[str, str]

    @property
    def is_blank(self) -> bool:
        return not any(self.cells.values())


def kind_of(name: str, file: IO[bytes]) -> str:
    """CSV or XLSX, by the file's name and what it holds (read from its start, and left there);
    NotASheet if it is neither, or not what its name says."""
    extension = PurePath(name or "").suffix.lower()
    file.seek(0)
    head = file.read(CHUNK)
    file.seek(0)
    if extension == ".xlsx":
        if not head.startswith(ZIP_START):
            raise NotASheet(_save_it(gettext("This file is named .xlsx but is not an Excel "
                                             "workbook.")))  # fmt: skip
        _check_workbook(file)
        return XLSX
    if extension == ".csv":
        if head.startswith(ZIP_START):
            raise NotASheet(gettext("This file is named .csv but is a workbook or another ZIP "
                                    "file: name it .xlsx if it is an Excel workbook."))  # fmt: skip
        _check_text(file)
        return CSV
    if extension == ".xls":
        raise NotASheet(_save_it(gettext("Excel 97-2003 workbooks (.xls) are not read here.")))
    if not extension:
        raise NotASheet(_save_it(gettext("A file without an extension is not taken here.")))
    refusal = gettext("A file %(extension)s is not taken here.") % {"extension": extension}
    raise NotASheet(_save_it(refusal))


def rows_of(
    file: IO[bytes], kind: str, columns: tuple[str, ...], decimals: frozenset[str] = frozenset()
) -> Iterator[Row]:
    """The file's rows after its header, blank ones skipped, as they are read. The header must
    name `columns` (in any order, any case, spaces for underscores) and no other: NotASheet
    otherwise, with those missing or not known; and if a row cannot be read. In a CSV file
    separated by semicolons (as where the comma is the decimal mark), a number of a column of
    `decimals` written with a decimal comma (14,5) is read with a point (14.5)."""
    file.seek(0)
    separator, lines = _csv_lines(file) if kind == CSV else (",", _workbook_lines(file))
    pointed = decimals if separator == ";" else frozenset()
    try:
        header = next(lines, None)
        if header is None:
            raise NotASheet(gettext("The file is empty: start from the template, whose first "
                                    "row names the columns."))  # fmt: skip
        names = _header(header, columns)
        blanks = 0
        for number, values in enumerate(lines, start=2):
            cells = _padded([value.strip() for value in values], len(names))
            row = Row(number, {name: decimal_point(cell) if name in pointed else cell
                               for name, cell in zip(names, cells, strict=True)})  # fmt: skip
            if row.is_blank:
                blanks += 1
                if blanks > BLANK_ROWS:
                    raise NotASheet(gettext("The file has more than %(most)s empty rows.")
                                    % {"most": BLANK_ROWS})  # fmt: skip
                continue
            if len(values) > len(names) and any(values[len(names) :]):
                raise NotASheet(gettext("Row %(number)s has cells beyond the columns the "
                                        "first row names.") % {"number": number})  # fmt: skip
            yield row
    finally:
        lines.close()


def _padded(values: list[str], width: int) -> list[str]:
    return (values + [""] * width)[:width]


def _header(cells: list[str], columns: tuple[str, ...]) -> list[str]:
    names = [_column_name(cell) for cell in cells]
    while names and not names[-1]:
        names.pop()
    known = set(columns)
    unknown = [cells[i].strip() or gettext("(column %(number)s unnamed)") % {"number": i + 1}
               for i, name in enumerate(names) if name not in known]  # fmt: skip
    twice = sorted({name for name in names if name and names.count(name) > 1})
    missing = [column for column in columns if column not in names]
    problems = []
    if unknown:
        problems.append(gettext("columns not known here: %(names)s")
                        % {"names": ", ".join(unknown)})  # fmt: skip
    if twice:
        problems.append(gettext("columns named twice: %(names)s") % {"names": ", ".join(twice)})
    if missing:
        problems.append(gettext("columns missing: %(names)s") % {"names": ", ".join(missing)})
    if problems:
        raise NotASheet(gettext("The first row names the columns, as the template's does; this "
                                "one has %(problems)s.")
                        % {"problems": "; ".join(problems)})  # fmt: skip
    return names


def _column_name(cell: str) -> str:
    return "_".join(cell.strip().lower().replace("-", " ").split())


# --- CSV --------------------------------------------------------------------------------------


def _check_text(file: IO[bytes]) -> None:
    """NotASheet if the file is not text in an encoding read here."""
    _encoding(file)


def _encoding(file: IO[bytes]) -> str:
    """The file's encoding: told by its byte-order mark, else UTF-8 if all of it is, else
    Windows-1252 (Excel's "CSV" on Windows) if all of it is that. Read through once, a chunk at
    a time; NotASheet for a file that is not text (a NUL byte, or neither)."""
    file.seek(0)
    head = file.read(4)
    file.seek(0)
    for bom, encoding in BOMS:
        if head.startswith(bom):
            if _decodes(file, encoding):
                return encoding
            break
    for encoding in ("utf-8", "cp1252"):
        if _decodes(file, encoding):
            return encoding
    raise NotASheet(_save_it(gettext("This file is named .csv but is not text.")))


def _decodes(file: IO[bytes], encoding: str) -> bool:
    """Whether all of the file is text in `encoding`, with no control character but tab, line
    feed and carriage return (which a binary file decoded by chance would have)."""
    decoder = codecs.getincrementaldecoder(encoding)()
    file.seek(0)
    try:
        while chunk := file.read(CHUNK):
            if CONTROL.search(decoder.decode(chunk)):
                return False
        return not CONTROL.search(decoder.decode(b"", final=True))
    except UnicodeDecodeError:
        return False
    finally:
        file.seek(0)


def _csv_lines(file: IO[bytes]) -> tuple[str, Iterator[list[str]]]:
    """What separates the file's cells, and its lines as they are read."""
    lines = _text_lines(file, _encoding(file))
    first = next(lines, "")
    dialect = _dialect(first)
    return dialect.delimiter, _csv_read(_chained(first, lines), dialect)


def _csv_read(lines: Iterator[str], dialect: type[csv.Dialect]) -> Iterator[list[str]]:
    try:
        yield from csv.reader(lines, dialect)
    except csv.Error as error:
        raise NotASheet(
            gettext("The file cannot be read as CSV: %(error)s.") % {"error": error}
        ) from None


def _text_lines(file: IO[bytes], encoding: str) -> Iterator[str]:
    """The file's text a line at a time, each with its end (a cell in quotes may hold one: the
    csv module joins them), decoded as it is read."""
    decoder = codecs.getincrementaldecoder(encoding)()
    file.seek(0)
    pending = ""
    while chunk := file.read(CHUNK):
        *lines, pending = (pending + decoder.decode(chunk)).split("\n")
        for line in lines:
            yield line + "\n"
    pending += decoder.decode(b"", final=True)
    if pending:
        yield pending


def _unwrapped(file: IO[bytes]) -> IO[bytes]:
    """The file object itself, under Django's File (which zipfile cannot seek in)."""
    inner = getattr(file, "file", None)
    return inner if inner is not None else file


def _chained(first: str, rest: IO[str]) -> Iterator[str]:
    yield first
    yield from rest


def _dialect(header: str) -> type[csv.Dialect]:
    """Excel's CSV, separated by what separates the header's names most: a comma, or the
    semicolon of countries whose decimal mark is a comma, or a tab."""
    separator = max(SEPARATORS, key=header.count)

    class Read(csv.excel):
        delimiter = separator if header.count(separator) else ","

    return Read


# --- XLSX -------------------------------------------------------------------------------------


def _check_workbook(file: IO[bytes]) -> None:
    try:
        with zipfile.ZipFile(_unwrapped(file)) as archive:
            parts = archive.infolist()
            names = {part.filename for part in parts}
    except (zipfile.BadZipFile, OSError, ValueError):
        raise NotASheet(
            _save_it(gettext("This file is named .xlsx but is not an Excel workbook."))
        ) from None
    finally:
        file.seek(0)
    if "xl/workbook.xml" not in names:
        raise NotASheet(_save_it(gettext("This file is a ZIP but not an Excel workbook (an "
                                         "OpenDocument or Word file, perhaps).")))  # fmt: skip
    if sum(part.file_size for part in parts) > UNPACKED_BYTES:
        raise NotASheet(gettext("This workbook unpacks to more than a day's tickets can fill: "
                                "it is not read."))  # fmt: skip
    if any(p.filename == SHARED_TEXT_PART and p.file_size > SHARED_TEXT_BYTES for p in parts):
        raise NotASheet(str(MORE_TEXT))


def _check_shared_texts(file: IO[bytes]) -> None:
    """NotASheet if the workbook's table of texts (the part openpyxl reads as such, by its
    content type) unpacks to more than SHARED_TEXT_BYTES, or declares or holds more texts than
    SHARED_TEXTS or than its sheets have cells: counted as they are parsed, never more than one
    past."""
    try:
        with zipfile.ZipFile(file) as archive:
            parts = _parts_by_type(archive)
            texts = 0
            for name in parts.get(SHARED_STRINGS, [])[:1]:  # openpyxl reads the first
                if archive.getinfo(name).file_size > SHARED_TEXT_BYTES:
                    raise NotASheet(str(MORE_TEXT))
                texts = _texts_counted(archive, name)
            sheets = parts.get(WORKSHEET_TYPE, [])
            if texts and _cells_counted(archive, sheets, at_least=texts) < texts:
                raise NotASheet(gettext("This workbook's table of texts holds more texts than "
                                        "its sheets have cells: it is not read."))  # fmt: skip
    except NotASheet:
        raise
    except Exception as error:  # not a ZIP, a part missing, XML refused (entities, DTDs)
        raise NotASheet(
            gettext("The workbook cannot be read (%(error)s).") % {"error": type(error).__name__}
        ) from None
    finally:
        file.seek(0)


def _parts_by_type(archive: zipfile.ZipFile) -> dict[str, list[str]]:
    """The workbook's parts by their content type, as its manifest names them."""
    manifest = Manifest.from_tree(fromstring(archive.read(ARC_CONTENT_TYPES)))
    parts: dict[str, list[str]] = {}
    for part in manifest.Override:
        parts.setdefault(part.ContentType, []).append(part.PartName.removeprefix("/"))
    return parts


def _texts_counted(archive: zipfile.ZipFile, name: str) -> int:
    too_many = NotASheet(gettext("This workbook's table of texts holds more than %(most)s texts, "
                                 "far more than a day's tickets: it is not read.")
                         % {"most": f"{SHARED_TEXTS:,}"})  # fmt: skip
    texts = 0
    with archive.open(name) as part:
        for event, element in iterparse(part, events=("start", "end")):
            if event == "start" and element.tag == f"{SPREADSHEET_ML}sst":
                declared = (element.get("uniqueCount") or "0").strip()
                if declared.isdigit() and int(declared) > SHARED_TEXTS:
                    raise too_many
            elif event == "end" and element.tag == f"{SPREADSHEET_ML}si":
                texts += 1
                element.clear()
                if texts > SHARED_TEXTS:
                    raise too_many
    return texts


def _cells_counted(archive: zipfile.ZipFile, sheets: list[str], at_least: int) -> int:
    """The cells of the workbook's sheets, counted until there are `at_least`."""
    cells = 0
    for name in sheets:
        with archive.open(name) as part:
            for _, element in iterparse(part, events=("end",)):
                if element.tag == f"{SPREADSHEET_ML}c":
                    cells += 1
                    if cells >= at_least:
                        return cells
                elif element.tag == f"{SPREADSHEET_ML}row":
                    element.clear()
    return cells


def _workbook_lines(file: IO[bytes]) -> Iterator[list[str]]:
    _check_shared_texts(_unwrapped(file))
    try:
        workbook = load_workbook(_unwrapped(file), read_only=True, data_only=False,
                                 keep_links=False)  # fmt: skip
    except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, OSError) as error:
        raise NotASheet(
            gettext("The workbook cannot be read (%(error)s).") % {"error": type(error).__name__}
        ) from None
    except Exception as error:  # an XML parser's refusal (defusedxml: entities, DTDs)
        raise NotASheet(
            gettext("The workbook cannot be read (%(error)s).") % {"error": type(error).__name__}
        ) from None
    try:
        sheet = workbook.worksheets[0]
        sheet.reset_dimensions()  # read every cell, whatever the file declares its size to be
        try:
            for values in sheet.iter_rows(values_only=True):
                yield [_text(value) for value in values]
        except NotASheet:
            raise
        except Exception as error:
            raise NotASheet(
                gettext("The workbook cannot be read (%(error)s).")
                % {"error": type(error).__name__}
            ) from None
    finally:
        workbook.close()


def _text(value: object) -> str:
    """A cell's value as the text a person would have typed for it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S" if value.second else "%Y-%m-%d %H:%M")
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, str):  # a character XML cannot hold is written _x001B_ (Excel's own)
        return unescape(value).strip()
    return str(value).strip()
