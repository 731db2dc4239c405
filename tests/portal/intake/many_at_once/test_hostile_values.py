"""The hostile values' table (tests/hostile_values.py) through every column of a site's upload
(CSV and workbook) and every field of the sites' JSON door: each record refused with the clerk's
form's words beside the value, nothing recorded; and what only these doors meet: a ticket sent
as a JSON number, numbers in JSON's own notation, values of a kind no field has, decimal commas
in a file separated by semicolons."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from portal.intake import door, rows, uploads
from portal.intake.forms import TICKET
from portal.intake.models import Load, LoadEntry
from portal.intake.sheets import CONTROL
from portal.jobs.models import Job
from portal.lib.printable import NOT_PRINTABLE
from tests.hostile_values import (
    Hostile,
    lines_refused,
    not_numbers,
    not_weights,
    one_line_refused,
    other_scripts,
)
from tests.jobs import run_queued
from tests.portal.api.builders import site_token
from tests.portal.intake.builders import tickets_file, upload_row
from tests.portal.intake.many_at_once.test_door import sent as door_sent
from tests.portal.intake.many_at_once.uploading import report_of, sent
from tests.portal.intake.test_hostile_values import (
    NOT_A_CHOICE,
    NOT_A_NUMBER,
    NOT_A_TIME,
    NOT_A_WEIGHT,
    NOT_A_WHOLE_NUMBER,
    WEIGHTS,
)
from tests.portal.passports.helpers import text


@dataclass(frozen=True)
class Case:
    """A field given a hostile value, and the words it is refused with."""

    field: str
    hostile: Hostile
    said: str

    def record(self, code: str, number: int) -> dict[str, object]:
        """The record (an upload's row, a door's record) of ticket H-`number` holding it."""
        correction = {"correction": "yes"} if self.field == "correction_reason" else {}
        return upload_row(code, f"H-{number}", **correction) | {self.field: self.hostile.value}


# Every column of a record but the short code (which the row needs), by what it holds.
PLAIN_TEXTS = {"vehicle": "AE24KTV", "sample_reference": "S-0931"}
CHOSEN = {"decision": "claim", "reasons": "specific-weight", "claim_1_parameter": "specific_weight",
          "claim_2_parameter": "moisture", "claim_3_parameter": "protein"}  # fmt: skip
DECIMALS = sorted(rows.DECIMALS)


def every_case(code: str) -> list[Case]:
    arrival = f"{timezone.localtime() - timedelta(hours=2):%Y-%m-%d %H:%M}"
    return [
        *(Case(f, h, NOT_PRINTABLE) for f, text in PLAIN_TEXTS.items()
          for h in one_line_refused(text)),
        *(Case("short_code", h, NOT_PRINTABLE) for h in one_line_refused(code)),
        *(Case("ticket", h, str(TICKET.message)) for h in one_line_refused("T-1001")),
        *(Case(f, h, NOT_A_CHOICE[f]) for f, text in CHOSEN.items()
          for h in one_line_refused(text)),
        *(Case("correction", h, "Say yes for a correction") for h in one_line_refused("yes")),
        *(Case("sample_kept_days", h, NOT_A_WHOLE_NUMBER) for h in not_numbers()),
        *(Case(f, h, NOT_A_NUMBER) for f in DECIMALS for h in not_numbers()),
        *(Case(f, h, NOT_A_WEIGHT) for f in WEIGHTS for h in not_weights()),
        *(Case("arrival", h, NOT_A_TIME) for h in other_scripts(arrival)),
        *(Case("correction_reason", h, NOT_PRINTABLE)
          for h in lines_refused("Tare of the wrong lorry")),
    ]  # fmt: skip


def test_the_table_reaches_every_column():
    assert {case.field for case in every_case("7KXM4-QHT2W")} == set(rows.COLUMNS)


def refused_each(cases: list[Case], errors: list[dict[str, list[str]]]) -> None:
    """Each case's record refused beside its field, in its words (`errors`: each record's, in
    the cases' order)."""
    assert len(errors) == len(cases)
    for case, found in zip(cases, errors, strict=True):
        said = found.get(case.field, [""])
        assert said[0].startswith(case.said), (case.field, case.hostile, found)
    assert not Load.objects.exists() and not LoadEntry.objects.exists()


# --- uploads ---------------------------------------------------------------------------------


def uploaded(clerk, site, code, cases: list[Case], kind: str) -> list[dict[str, list[str]]]:
    """The cases' rows uploaded as a file of `kind` and taken by the job: each row's errors by
    its column, in order."""
    table = [case.record(code, number) for number, case in enumerate(cases)]
    name = f"tickets.{kind}"
    assert sent(clerk, site, tickets_file(table, kind), name).status_code == 303
    job = run_queued(uploads.KIND)
    assert job.state == Job.State.DONE, job.message
    return [_by_column(line["reasons"]) for line in report_of(job)]


def _by_column(reasons: str) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for reason in reasons.split("; "):
        column, _, message = reason.partition(": ")
        errors.setdefault(column, []).append(message)
    return errors


def test_every_hostile_value_in_every_column_of_a_workbook_is_refused(clerk, site, code):
    cases = every_case(code)
    refused_each(cases, uploaded(clerk, site, code, cases, "xlsx"))


def test_every_hostile_value_in_every_column_of_a_csv_file_is_refused(clerk, site, code):
    # A control character that is none of a text's (escape, bell, delete) makes the file
    # one that is not text: refused whole at the form, below.
    cases = [case for case in every_case(code) if not CONTROL.search(case.hostile.value)]
    refused_each(cases, uploaded(clerk, site, code, cases, "csv"))


def test_a_csv_file_with_a_control_character_is_refused_at_the_form(clerk, site, code):
    response = sent(clerk, site, tickets_file([upload_row(code, vehicle="AE24\x1bKTV")]))
    assert response.status_code == 400
    assert "This file is named .csv but is not text." in response.content.decode()
    assert not Job.objects.exists()


def test_a_file_separated_by_semicolons_takes_decimal_commas(clerk, site, code):
    table = [upload_row(code, "T-1", moisture="14,5", claim_1_rate="2,50", gross_kg="44,120")]
    sent(clerk, site, tickets_file(table, separator=";"))
    assert run_queued(uploads.KIND).message == "1 recorded."
    figures = LoadEntry.objects.get().figures
    assert figures["results"]["moisture"] == "14.5" and figures["gross_kg"] == 44120
    assert figures["claims"][0]["rate"] == "2.50"


def test_a_file_separated_by_commas_refuses_decimal_commas(clerk, site, code):
    sent(clerk, site, tickets_file([upload_row(code, "T-1", moisture="14,5")]))
    job = run_queued(uploads.KIND)
    assert report_of(job)[0]["reasons"].startswith(f"moisture: {NOT_A_NUMBER}")


# --- the sites' door -----------------------------------------------------------------------


@pytest.fixture
def token(site, upstream_sandbox) -> str:
    return site_token(site)


def test_every_hostile_value_in_every_field_of_the_door_is_refused(token, code):
    cases = every_case(code)
    records = [case.record(code, number) for number, case in enumerate(cases)]
    for record in records:
        if record.get("correction") == "yes":
            record["correction"] = True
    most, answers = settings.PORTAL_API_RECORDS, []
    for start in range(0, len(records), most):  # as many requests as the door's limit needs
        response = door_sent(records[start : start + most], token)
        assert response.status_code == 200
        answers += response.json()["records"]
    assert {answer["status"] for answer in answers} == {"refused"}
    refused_each(cases, [answer["errors"] for answer in answers])


def raw(record: dict[str, object], **numbers: str) -> bytes:
    """`record` as JSON, with `numbers` written into it as JSON numbers exactly as given."""
    written = json.dumps(record)[:-1]
    return (
        written + "".join(f', "{key}": {value}' for key, value in numbers.items()) + "}"
    ).encode()


def test_a_ticket_sent_as_a_number_is_one_ticket_however_it_is_written(token, code, site):
    first = door_sent(None, token, raw=raw(upload_row(code, ticket=None), ticket="12345.0"))
    assert first.status_code == 201 and first.json()["ticket"] == "12345"
    again = door_sent(None, token, raw=raw(upload_row(code, ticket=None), ticket="12345"))
    assert again.json()["status"] == "already recorded" and again.json()["ticket"] == "12345"
    assert list(Load.objects.values_list("ticket", flat=True)) == ["12345"]


def test_a_number_in_an_exponent_s_form_is_refused_and_minus_zero_is_zero(token, code):
    exponent = door_sent(None, token, raw=raw(upload_row(code, moisture=None), moisture="1E1"))
    assert exponent.status_code == 422
    assert exponent.json()["error"]["fields"]["moisture"][0].startswith(NOT_A_NUMBER)
    zero = door_sent(None, token, raw=raw(upload_row(code, moisture=None), moisture="-0.0"))
    assert zero.status_code == 201
    assert LoadEntry.objects.get().figures["results"]["moisture"] == "0"


@pytest.mark.parametrize(
    ("field", "value"),
    [("gross_kg", True), ("vehicle", {"plate": "AE24 KTV"}), ("reasons", [1]),
     ("ticket", ["T-1"]), ("correction", "maybe")],
)  # fmt: skip
def test_a_value_of_a_kind_no_field_has_is_refused(token, code, field, value):
    response = door_sent(upload_row(code, **{field: value}), token)
    assert response.status_code == 422
    said = response.json()["error"]["fields"][field]
    expected = "Say yes for a correction" if field == "correction" else str(door.NOT_A_VALUE)
    assert said[0].startswith(expected)
    assert not Load.objects.exists()


def test_a_correction_s_reason_has_the_form_s_limit(token, code):
    door_sent(upload_row(code, "T-1"), token)
    correction = upload_row(code, "T-1", tare_kg=14020, correction=True,
                            correction_reason="x" * 501)  # fmt: skip
    response = door_sent(correction, token)
    fields = response.json()["error"]["fields"]
    assert fields["correction_reason"] == ["Say why in at most 500 characters."]
    assert LoadEntry.objects.count() == 1


def test_the_upload_page_says_how_weights_decimals_claims_and_reasons_are_written(clerk, site):
    page = text(clerk.get(f"/intake/sites/{site.code}/upload"))
    assert "a whole number up to 60,000: 44120 or 44,120." in page
    assert "2,50 in a file whose cells are separated by semicolons" in page
    assert "one claim on each parameter." in page
    assert "needed with yes, at most 500 characters." in page


def test_a_second_claim_on_a_result_is_refused_at_the_door(token, code):
    twice = upload_row(code, claim_2_parameter="Specific weight", claim_2_rate="1.00")
    response = door_sent(twice, token)
    assert response.status_code == 422
    assert response.json()["error"]["fields"]["claim_2_parameter"] == [
        "Another claim is on this result already: make one claim on each result."
    ]
    assert not Load.objects.exists()
