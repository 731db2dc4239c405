"""A site's day of tickets uploaded at once (`/intake/<site>/upload`): a CSV file or an Excel
workbook from the template the page offers, a row a load, taken by a job (the `intake-upload`
kind, portal/intake/tasks.py) with its progress shown; its report, a CSV file, says what became
of each row: recorded, corrected, already recorded (left alone), unchanged, or refused with the
reason for each value refused ("column: message").

The form checks what it can without reading the rows (at most UPLOAD_BYTES; a CSV or XLSX by its
content as well as its name, a workbook by its ZIP's directory alone), so that a file that
cannot be taken is refused at once, beside its field, and the request answers at once whatever
the file holds. The file is kept in the jobs' storage for its job (never in the broker's
message), and removed with the job. The job reads it twice, a row at a time: its columns and
rows counted first (at most PORTAL_INTAKE_UPLOAD_ROWS), the whole file refused with the reason on
the job's page and nothing recorded if it cannot be taken; then each row taken.

Each row is checked as portal.intake.rows checks a record (the clerk's form's checks and words)
and written whole or not at all: a correction in a transaction of its own, the new loads of
ROWS_AT_ONCE rows together in one (each load with its first entry; a few statements for them
all, where a transaction each would wait on the disk each time). The transaction that writes a
row also writes its `UploadedRow`, so that the job run again (its worker killed halfway) takes
up the rows it had not done and reports those it had as this upload's, rather than as "already
recorded" or corrected twice.
"""

from __future__ import annotations

import csv
import io
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, time
from itertools import batched, islice
from tempfile import SpooledTemporaryFile
from typing import IO, Any

import xlsxwriter
from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.translation import gettext, ngettext, pgettext
from django.utils.translation import gettext_lazy as _

from portal.intake import access, loads, quality, rows, sheets, verdicts
from portal.intake.forms import CLAIMS_AT_MOST, HEAVIEST_KG, REASON_LONGEST
from portal.intake.models import Decision, IntakeSite, LoadEntry, UploadedRow
from portal.jobs.models import Job, result_storage
from portal.jobs.tasks import Progress, ResultFile, WorkFailed
from portal.lib.forms import Form
from portal.lib.spreadsheets import safe_cell
from portal.passports import codes

UPLOAD_BYTES = 5 * 1024 * 1024
ROWS_AT_ONCE = 200  # rows whose passports, loads and verdicts are read together
SPOOLED_BYTES = 64 * 1024  # a report larger than this is written to a temporary file
REFUSALS_SHOWN = 50  # refused rows listed on the job's page (the report lists them all)
ALREADY = _("already recorded: mark the row as a correction to change it")
UNCHANGED = _("the correction says what the load says already: nothing was changed")
KIND = "intake-upload"


def row_limit() -> int:
    return settings.PORTAL_INTAKE_UPLOAD_ROWS


# --- the template and its columns explained ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    what: str


def columns_explained() -> list[Column]:
    """What each column of the template holds, for the page."""
    parameters = [
        Column(p.key, gettext("%(parameter)s in %(unit)s (%(lowest)s to %(highest)s), for "
                              "%(crops)s; blank if not measured.")
               % {"parameter": p.label, "unit": p.unit, "lowest": p.lowest,
                  "highest": p.highest, "crops": _crops_of(p.key)})
        for p in quality.ALL_PARAMETERS
    ]  # fmt: skip
    decisions = ", ".join(f"{key} ({label})" for key, label in Decision.choices)
    return [
        Column("short_code", gettext("The short code of the load's passport, as on the "
                                     "passport (7KXM4-QHT2W, any case, with or without the "
                                     "hyphen).")),
        Column("ticket", gettext("The weighbridge ticket number: letters, digits and - / . _; "
                                 "recorded once at this site.")),
        Column("arrival", gettext("When the load arrived: date and time, 2026-09-03 10:15 (or "
                                  "a date and time cell of the workbook).")),
        Column("vehicle", gettext("The vehicle's registration, as seen.")),
        Column("gross_kg", gettext("The loaded vehicle's weight in kg, a whole number up to "
                                   "%(heaviest)s: 44120 or 44,120.")
               % {"heaviest": f"{HEAVIEST_KG:,}"}),
        Column("tare_kg", gettext("The empty vehicle's weight in kg, below the gross weight.")),
        Column("sample_reference", gettext("The sample's reference (optional).")),
        Column("sample_kept_days", gettext("How many days the sample is kept (optional).")),
        Column("decision", gettext("One of: %(decisions)s.") % {"decisions": decisions}),
        Column("reasons", gettext("Why the load was claimed on, redirected or rejected: keys of "
                                  "the list below, or their words, several separated by ;")),
        *parameters,
        Column("claim_1_parameter", gettext(
            "A claim's parameter (its key, as the columns above), up to %(most)s claims: "
            "claim_1_ to claim_%(most)s_; one claim on each parameter."
        ) % {"most": CLAIMS_AT_MOST}),
        Column("claim_1_rate", gettext("The claim's rate in £ a tonne: 2.50 (or 2,50 in a file "
                                       "whose cells are separated by semicolons, as every "
                                       "result may be).")),
        Column("claim_1_tonnes", gettext("The tonnes it is on; blank for the load's net "
                                         "tonnes.")),
        Column("correction", gettext("yes to correct the load of a ticket recorded already; "
                                     "blank otherwise (a ticket recorded already is then left "
                                     "alone).")),
        Column("correction_reason", gettext("Why it is corrected, for the grower: needed with "
                                            "yes, at most %(most)s characters.")
               % {"most": REASON_LONGEST}),
    ]  # fmt: skip


def _crops_of(key: str) -> str:
    return ", ".join(crop for crop, parameters in quality.PARAMETERS.items()
                     if any(p.key == key for p in parameters))  # fmt: skip


def example_row() -> dict[str, str]:
    """The template's example: a wheat load that arrived this morning, claimed on its specific
    weight."""
    arrival = datetime.combine(timezone.localdate(), time(7, 30))
    return {
        "short_code": "7KXM4-QHT2W", "ticket": "T-1001",
        "arrival": arrival.strftime("%Y-%m-%d %H:%M"), "vehicle": "AE24 KTV",
        "gross_kg": "44120", "tare_kg": "15020", "sample_reference": "S-0931",
        "sample_kept_days": "90", "decision": "claim", "reasons": "specific-weight",
        "moisture": "14.2", "specific_weight": "72.5", "protein": "11.8",
        "claim_1_parameter": "specific_weight", "claim_1_rate": "2.50",
    }  # fmt: skip


def template_csv() -> bytes:
    """The template as CSV: its header and the example, with a byte-order mark for Excel."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(rows.COLUMNS)
    example = example_row()
    writer.writerow([example.get(column, "") for column in rows.COLUMNS])
    return ("\ufeff" + out.getvalue()).encode()


def template_xlsx() -> bytes:
    """The template as a workbook: its header (bold, frozen) and the example, every cell text,
    so that a spreadsheet keeps a ticket's or a code's zeros and hyphens as typed."""
    out = io.BytesIO()
    workbook = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_numbers": False,
                                         "strings_to_formulas": False})  # fmt: skip
    sheet = workbook.add_worksheet(gettext("Tickets"))
    bold, text = workbook.add_format({"bold": True}), workbook.add_format({"num_format": "@"})
    example = example_row()
    for number, column in enumerate(rows.COLUMNS):
        sheet.set_column(number, number, max(12, len(column) + 2), text)
        sheet.write_string(0, number, column, bold)
        sheet.write_string(1, number, example.get(column, ""))
    sheet.freeze_panes(1, 0)
    workbook.close()
    return out.getvalue()


# --- the upload, as it comes ---------------------------------------------------------------------


class AtMostBytes(FileUploadHandler):
    """Stops reading an upload's file once it is past `limit` bytes (`too_large` then says so):
    before the rest of a large file is kept anywhere. Put first among a request's handlers."""

    def __init__(self, request: HttpRequest, limit: int = UPLOAD_BYTES) -> None:
        super().__init__(request)
        self.limit, self.too_large, self.read = limit, False, 0

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.read = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.read += len(raw_data)
        if self.read > self.limit:
            self.too_large = True
            raise StopUpload(connection_reset=False)  # the rest is read and thrown away
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


def too_large_words() -> str:
    return gettext("The file is larger than %(most)s: split it into several.") % {
        "most": filesizeformat(UPLOAD_BYTES)
    }


class UploadForm(Form):
    """A file of tickets: refused at once, beside its field, if it cannot be taken."""

    key = forms.UUIDField(widget=forms.HiddenInput)  # the form's own: sent twice, one job
    file = forms.FileField(label=_("The day's tickets"))

    def __init__(self, *args: Any, too_large: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.too_large = too_large
        self.initial.setdefault("key", uuid.uuid4())
        self.fields["file"].help_text = gettext(
            "A CSV file or an Excel workbook (.xlsx) from the template below. At most %(most)s "
            "and %(rows)s rows."
        ) % {"most": filesizeformat(UPLOAD_BYTES), "rows": f"{row_limit():,}"}
        self.kind = ""

    def clean_file(self) -> UploadedFile:
        uploaded = self.cleaned_data["file"]
        if self.too_large or uploaded.size > UPLOAD_BYTES:
            raise forms.ValidationError(too_large_words())
        try:
            self.kind = sheets.kind_of(uploaded.name, uploaded)
        except sheets.NotASheet as refusal:
            raise forms.ValidationError(str(refusal)) from None
        finally:
            uploaded.seek(0)
        return uploaded

    def full_clean(self) -> None:
        super().full_clean()
        if self.too_large:  # the file was not kept, and is "required": say why
            self.errors.pop("file", None)
            self.add_error("file", too_large_words())


def upload_params(site: IntakeSite, form: UploadForm) -> dict[str, object]:
    uploaded = form.cleaned_data["file"]
    return {"site": site.pk, "name": uploaded.name[:200], "kind": form.kind}


def keep_file(job: Job, uploaded: UploadedFile) -> str:
    """The uploaded file kept in the jobs' storage for its job (removed with it:
    portal/intake/tasks.py); its name there."""
    storage = result_storage()
    name = f"intake-uploads/{job.pk}.{job.params['kind']}"
    storage.delete(name)
    uploaded.seek(0)
    return storage.save(name, uploaded)


def forget_file(job: Job) -> None:
    """The job's uploaded file removed from storage (the job is being removed)."""
    name = job.params.get("file") if isinstance(job.params, dict) else None
    if job.kind == KIND and name:
        result_storage().delete(name)


# --- the job's work ------------------------------------------------------------------------------


def run(job: Job, progress: Progress) -> ResultFile:
    """Takes each row of the job's file, in order, and writes the report."""
    site = IntakeSite.objects.filter(pk=job.params["site"]).first()
    if site is None or not access.is_clerk(job.owner, site):
        raise WorkFailed(
            gettext("You are no longer a clerk of this site: nothing more was recorded.")
        )
    try:
        opened = result_storage().open(job.params["file"], "rb")
    except (FileNotFoundError, KeyError):
        raise WorkFailed(gettext("The uploaded file has gone: upload it again.")) from None
    report, tally = Report(), Tally()
    with opened:
        total = _counted(job, opened)
        progress(0, total)
        try:
            read = sheets.rows_of(opened, job.params["kind"], rows.COLUMNS, rows.DECIMALS)
            for row, taken in _taken(job, site, read):
                report.add(row, taken)
                tally.add(row, taken)
                progress(min(tally.rows, total), total)
        except sheets.NotASheet as refusal:
            raise WorkFailed(str(refusal)) from None
    Job.objects.filter(pk=job.pk).update(params=job.params | tally.kept())
    name = gettext("%(name)s-report.csv") % {"name": _stem(job.params["name"])}
    return ResultFile(name, "text/csv; charset=utf-8", report.file(), tally.sentence())


def _counted(job: Job, file: IO[bytes]) -> int:
    """The file's rows, read through (each must be read) up to one past the limit, and kept in
    the job's params; WorkFailed, nothing recorded, if the file cannot be taken whole."""
    try:
        with closing(sheets.rows_of(file, job.params["kind"], rows.COLUMNS)) as read:
            counted = sum(1 for _ in islice(read, row_limit() + 1))
    except sheets.NotASheet as refusal:
        raise WorkFailed(
            gettext("%(refusal)s Nothing was recorded.") % {"refusal": refusal}
        ) from None
    if not counted:
        raise WorkFailed(gettext("The file has no rows under its first (the columns'): nothing "
                                 "to record."))  # fmt: skip
    if counted > row_limit():
        raise WorkFailed(gettext(
            "The file has more than %(most)s rows: upload at most %(most)s at a time (split the "
            "day into several files). Nothing was recorded."
        ) % {"most": f"{row_limit():,}"})  # fmt: skip
    job.params["rows"] = counted
    Job.objects.filter(pk=job.pk).update(params=job.params)
    return counted


def _stem(name: str) -> str:
    stem = name.rsplit(".", 1)[0] or "tickets"
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in stem)[:80]


def _taken(
    job: Job, site: IntakeSite, sheet: Iterator[sheets.Row]
) -> Iterator[tuple[sheets.Row, rows.Taken]]:
    """Each row with what became of it, ROWS_AT_ONCE at a time: their passports, their tickets'
    loads and their verdicts read together, each row checked, and the new loads among them
    recorded together (`_Chunk`)."""
    by = job.owner.get_username()
    for rows_read in batched(sheet, ROWS_AT_ONCE):
        chunk = _Chunk(job, site, by, rows_read)
        yield from chunk.taken()


class _Chunk:
    """Rows of an upload taken together. Each row is checked as the form checks it; a
    correction is written at once, in a transaction of its own; the new loads are recorded
    together, each whole with its first entry and its row's `UploadedRow`, in one transaction
    (loads.record_many: a few statements for them all, where one transaction each would wait
    on the disk each time). That transaction is written before a row of a ticket it holds is
    checked (the same ticket twice in the file), and at the end. Should it meet a ticket
    recorded meanwhile (by a clerk, as the job ran), its rows are taken one by one instead."""

    def __init__(self, job: Job, site: IntakeSite, by: str, read: tuple[sheets.Row, ...]) -> None:
        self.job, self.site, self.by, self.read = job, site, by, read
        self.done = _done_before(job, [row.number for row in read])
        pending = [row.cells for row in read if row.number not in self.done]
        self.passports = rows.passports_of(cells.get(rows.SHORT_CODE) for cells in pending)
        self.recorded = rows.recorded_at(site, (cells.get("ticket") for cells in pending))
        self.asked = rows.verdicts_for(pending, self.passports, self.recorded)
        self.new: list[tuple[sheets.Row, rows.NewLoad]] = []
        self.new_tickets: set[str] = set()

    def taken(self) -> Iterator[tuple[sheets.Row, rows.Taken]]:
        found = dict(self.done)
        for row in self.read:
            if row.number in found:
                continue
            if row.cells.get("ticket", "") in self.new_tickets:
                found |= self._record_new()
            checked = rows.check(self.site, row.cells, passports=self.passports,
                                 recorded=self.recorded)  # fmt: skip
            if isinstance(checked, rows.NewLoad):
                self.new.append((row, checked))
                self.new_tickets.add(checked.ticket)
            elif isinstance(checked, rows.Correction):
                found[row.number] = self._take_alone(row)
            else:
                found[row.number] = checked
        found |= self._record_new()
        for row in self.read:
            yield row, found[row.number]

    def _record_new(self) -> dict[int, rows.Taken]:
        new, self.new, self.new_tickets = self.new, [], set()
        if not new:
            return {}
        recordings = [loads.Recording(n.ticket, n.passport, n.figures,
                                      self.asked.get(n.passport.short_code) or verdicts.unknown())
                      for _, n in new]  # fmt: skip
        try:
            with transaction.atomic():
                made = loads.record_many(self.site, recordings, by=self.by)
                UploadedRow.objects.bulk_create(
                    UploadedRow(job=self.job, row=row.number, load=load, outcome="recorded")
                    for (row, _), load in zip(new, made, strict=True)
                )
        except IntegrityError:  # a ticket recorded meanwhile, or this row by another run
            return {row.number: self._take_alone(row) for row, _ in new}
        self.recorded.update((load.ticket, load) for load in made)
        together = zip(new, made, recordings, strict=True)
        return {row.number: rows.Taken(rows.Outcome.RECORDED, load=load, verdict=made_with.verdict)
                for (row, _), load, made_with in together}  # fmt: skip

    def _take_alone(self, row: sheets.Row) -> rows.Taken:
        """The row taken by itself, in a transaction of its own, with its `UploadedRow`; as it
        was taken by another run of the job, if one took it meanwhile."""
        self.recorded.update(rows.recorded_at(self.site, [row.cells.get("ticket")]))
        try:
            taken = rows.take(self.site, row.cells, by=self.by, passports=self.passports,
                              recorded=self.recorded, verdict_of=verdicts.from_asked(self.asked),
                              mark=_marker(self.job, row.number))  # fmt: skip
        except IntegrityError:  # its UploadedRow written meanwhile by another run
            taken = None
        if taken is None or taken.outcome == rows.Outcome.ALREADY:
            return (
                _done_before(self.job, [row.number]).get(row.number)
                or taken
                or rows.Taken(
                    rows.Outcome.ALREADY, load=self.recorded.get(row.cells.get("ticket", ""))
                )
            )
        return taken


def _marker(job: Job, number: int) -> rows.Mark:
    def mark(load: Any, outcome: rows.Outcome) -> None:
        UploadedRow.objects.create(job=job, row=number, load=load, outcome=outcome)

    return mark


def _done_before(job: Job, numbers: list[int]) -> dict[int, rows.Taken]:
    """The rows of these numbers that a run of the job took already, as it took them."""
    marked = list(UploadedRow.objects.filter(job=job, row__in=numbers).select_related("load"))
    first = dict(LoadEntry.objects.filter(load__in=[m.load_id for m in marked],
                                          kind=LoadEntry.Kind.RECORDED)
                 .values_list("load_id", "verdict"))  # fmt: skip
    return {
        m.row: rows.Taken(rows.Outcome(m.outcome), load=m.load,
                          verdict=first.get(m.load_id) if m.outcome == "recorded" else None)
        for m in marked
    }  # fmt: skip


class Report:
    """The report as it is written, a row at a time, to a file that stays in memory while it is
    small: UTF-8 with a byte-order mark, no cell a spreadsheet would run as a formula."""

    def __init__(self) -> None:
        self._file = SpooledTemporaryFile(max_size=SPOOLED_BYTES)  # noqa: SIM115 (handed on)
        self._text = io.TextIOWrapper(self._file, encoding="utf-8", newline="")
        self._text.write("\ufeff")
        self._writer = csv.writer(self._text)
        self._writer.writerow(report_columns())

    def add(self, row: sheets.Row, taken: rows.Taken) -> None:
        typed, reasons = row.cells, "; ".join(_reasons(taken))
        code = typed.get(rows.SHORT_CODE, "")
        cells = [str(row.number), typed.get("ticket", ""), codes.normalise(code) or code,
                 str(taken.outcome), reasons, verdicts.words(taken.verdict)]  # fmt: skip
        self._writer.writerow([safe_cell(cell) for cell in cells])

    def file(self) -> IO[bytes]:
        """The report, from its start: the caller's to close."""
        self._text.flush()
        file = self._text.detach()
        file.seek(0)
        return file


def report_columns() -> list[str]:
    """The report's header, in the language of the page the upload was started from (its
    values, the outcomes and the verdicts, stay as they are in every language)."""
    return [
        pgettext("an upload report's column", "row"),
        pgettext("an upload report's column", "ticket"),
        pgettext("an upload report's column", "short_code"),
        pgettext("an upload report's column", "outcome"),
        pgettext("an upload report's column", "reasons"),
        pgettext("an upload report's column", "verdict"),
    ]


def _reasons(taken: rows.Taken) -> list[str]:
    if taken.outcome == rows.Outcome.ALREADY:
        return [str(ALREADY)]
    if taken.outcome == rows.Outcome.UNCHANGED:
        return [str(UNCHANGED)]
    return taken.reasons


class Tally:
    """How many rows came to each outcome, and the first refused, for the job's page."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.refused: list[list[object]] = []

    @property
    def rows(self) -> int:
        return self.counts.total()

    def add(self, row: sheets.Row, taken: rows.Taken) -> None:
        self.counts[taken.outcome] += 1
        if taken.outcome == rows.Outcome.REFUSED and len(self.refused) < REFUSALS_SHOWN:
            self.refused.append([row.number, row.cells.get("ticket", "")[:40], taken.reasons])

    def kept(self) -> dict[str, object]:
        return {"tally": {str(outcome): self.counts[outcome] for outcome in rows.Outcome},
                "refused": self.refused}  # fmt: skip

    def sentence(self) -> str:
        said = [counted(outcome, count) for outcome in rows.Outcome
                if (count := self.counts[outcome])]  # fmt: skip
        return ", ".join(said) + "." if said else gettext("No rows.")


def counted(outcome: rows.Outcome, count: int) -> str:
    """So many rows of an outcome, in words: "3 recorded", "1 already recorded"."""
    said = {"count": f"{count:,}"}
    match outcome:
        case rows.Outcome.RECORDED:
            return ngettext("%(count)s recorded", "%(count)s recorded", count) % said
        case rows.Outcome.CORRECTED:
            return ngettext("%(count)s corrected", "%(count)s corrected", count) % said
        case rows.Outcome.ALREADY:
            return ngettext("%(count)s already recorded", "%(count)s already recorded",
                            count) % said  # fmt: skip
        case rows.Outcome.UNCHANGED:
            return ngettext("%(count)s unchanged", "%(count)s unchanged", count) % said
        case _:
            return ngettext("%(count)s refused", "%(count)s refused", count) % said


# Each outcome as the job's page names it, beside its count.
OUTCOMES = {
    rows.Outcome.RECORDED: _("Recorded"),
    rows.Outcome.CORRECTED: _("Corrected"),
    rows.Outcome.ALREADY: _("Already recorded"),
    rows.Outcome.UNCHANGED: _("Unchanged"),
    rows.Outcome.REFUSED: _("Refused"),
}


def outcome(job: Job) -> dict[str, object] | None:
    """What the job's page shows once the upload has ended: the rows' tally, the first refused,
    and the site, to upload another file."""
    site = IntakeSite.objects.filter(pk=job.params.get("site")).first()
    tally = job.params.get("tally")
    if site is None:
        return None
    always = (rows.Outcome.RECORDED, rows.Outcome.CORRECTED, rows.Outcome.REFUSED)
    counts = tally or {}
    listed = [(OUTCOMES[outcome], count) for outcome in rows.Outcome
              if (count := counts.get(str(outcome), 0)) or outcome in always]  # fmt: skip
    return {"site": site, "tally": listed if tally else [],
            "refused": job.params.get("refused", []),
            "more_refused": counts.get("refused", 0) > REFUSALS_SHOWN}  # fmt: skip
