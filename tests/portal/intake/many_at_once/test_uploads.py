"""A site's day of tickets uploaded at once (`/intake/sites/<site>/upload`,
portal/intake/uploads.py): the file checked as it comes for what it is, beside its field, its
rows counted by the job (a file that cannot be taken refused there whole); each row recorded
whole or refused with why in the job's report; a ticket recorded already left alone unless
corrected; the job run again records nothing twice; each load recorded told to its passport's
maker as one recorded by the form is; only the site's clerks upload."""

from __future__ import annotations

import io
import zipfile
from html import unescape

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from openpyxl import load_workbook

from portal.audit.models import Event
from portal.intake import loads, notifying, rows, uploads
from portal.intake.models import Load, LoadEntry, ResultMail, UploadedRow
from portal.jobs.models import Job
from portal.jobs.tasks import remove_expired
from tests.jobs import run, run_queued
from tests.portal.accounts.helpers import signed_in
from tests.portal.intake.builders import (
    a_load,
    a_site,
    a_workbook_of_empty_texts,
    tickets_file,
    upload_row,
)
from tests.portal.intake.many_at_once.uploading import report_of, sent

KIND = uploads.KIND


def fifty_with_three_bad(code: str) -> list[dict[str, object]]:
    table = [upload_row(code, f"T-{n:03}") for n in range(1, 51)]
    table[4]["gross_kg"] = "-5"  # row 6
    table[19]["moisture"] = "300"  # row 21
    table[33]["short_code"] = "ZZZZ-ZZZZ"  # row 35: no passport the portal knows
    return table


def test_the_page_offers_the_form_the_templates_and_what_each_column_holds(clerk, site):
    page = clerk.get(f"/intake/sites/{site.code}/upload")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'enctype="multipart/form-data"' in html and 'type="file"' in html
    assert "At most 5.0\xa0MB and 2,000 rows." in html
    assert f'href="/intake/sites/{site.code}/upload/template.xlsx"' in html
    for column in ("short_code", "gross_kg", "hagberg", "claim_1_tonnes", "correction_reason"):
        assert f"<code>{column}</code>" in html
    assert "Moisture in % (0 to 40)" in html
    assert "<dt><code>specific-weight</code></dt>" in html  # the reasons' keys


def test_the_templates_have_every_column_and_an_example(clerk, site):
    as_csv = clerk.get(f"/intake/sites/{site.code}/upload/template.csv")
    assert as_csv["Content-Type"] == "text/csv; charset=utf-8"
    header, example = as_csv.content.decode("utf-8-sig").splitlines()
    assert header.split(",") == list(rows.COLUMNS)
    assert example.startswith("7KXM4-QHT2W,T-1001,")
    as_xlsx = clerk.get(f"/intake/sites/{site.code}/upload/template.xlsx")
    sheet = load_workbook(io.BytesIO(as_xlsx.content), read_only=True).worksheets[0]
    header, example = list(sheet.iter_rows(values_only=True))
    assert list(header) == list(rows.COLUMNS)
    assert example[:2] == ("7KXM4-QHT2W", "T-1001")
    assert clerk.get(f"/intake/sites/{site.code}/upload/template.ods").status_code == 404


def test_a_50_row_csv_with_three_bad_rows_records_47_and_reports_the_three(clerk, site, code):
    response = sent(clerk, site, tickets_file(fifty_with_three_bad(code)))
    job = Job.objects.get(kind=KIND)
    assert response.status_code == 303 and response["Location"] == f"/jobs/{job.pk}/"
    assert "file" not in str(job.params.get("name"))
    job = run_queued(KIND)
    assert job.state == Job.State.DONE, job.message
    assert job.params["rows"] == 50
    assert job.message == "47 recorded, 3 refused."
    assert Load.objects.filter(site=site).count() == 47
    assert LoadEntry.objects.filter(kind="recorded", load__site=site).count() == 47
    report = report_of(job)
    assert len(report) == 50 and report[0]["row"] == "2"
    refused = {line["row"]: line for line in report if line["outcome"] == "refused"}
    assert set(refused) == {"6", "21", "35"}
    assert refused["6"]["reasons"].startswith("gross_kg: Ensure this value is greater than")
    assert "moisture: Moisture of 300 % cannot be measured" in refused["21"]["reasons"]
    assert refused["35"]["reasons"] == (
        "short_code: The portal knows no passport ZZZZ-ZZZZ: the grower makes it here, or adds "
        "it by its code."
    )
    assert not Load.objects.filter(ticket__in=["T-005", "T-020", "T-034"]).exists()
    recorded = next(line for line in report if line["outcome"] == "recorded")
    assert recorded["verdict"] == "valid" and recorded["short_code"] == code
    load = Load.objects.get(site=site, ticket="T-001")
    assert load.entries.get().verdict["valid"] is True and load.entries.get().by == "haulier"
    page = clerk.get(f"/jobs/{job.pk}/").content.decode()
    assert '<dt>Recorded</dt><dd class="count">47</dd>' in page
    assert '<dt>Refused</dt><dd class="count">3</dd>' in page
    assert "<strong>Row 21</strong>, ticket T-020:" in page
    assert Event.objects.filter(kind="intake-upload", detail__file_kind="csv").exists()


def test_each_load_uploaded_is_mailed_to_its_passports_maker(clerk, site, code):
    get_user_model().objects.filter(username="grower").update(email="grower@example.com")
    sent(clerk, site, tickets_file([upload_row(code, f"T-{n}") for n in (1, 2, 3)]))
    assert run_queued(KIND).state == Job.State.DONE
    mails = ResultMail.objects.filter(entry__load__site=site)
    assert sorted(mail.entry.load.ticket for mail in mails) == ["T-1", "T-2", "T-3"]
    assert {mail.recipient for mail in mails} == {"grower@example.com"}
    assert all(mail.job.kind == notifying.result_mail.name for mail in mails)


def test_a_workbook_is_read_too_its_numbers_and_dates_as_typed(clerk, site, code):
    arrival = timezone.localtime().replace(tzinfo=None, second=0, microsecond=0)
    table = [
        upload_row(code, "T-1", gross_kg=44120, tare_kg=15020.0, moisture=14.2),
        upload_row(code, "T-2", arrival=arrival, reasons="Specific weight below specification"),
        upload_row(code, "T-3", tare_kg=50000),
    ]
    sent(clerk, site, tickets_file(table, "xlsx"), "tickets.xlsx")
    job = run_queued(KIND)
    assert job.message == "2 recorded, 1 refused.", [r["reasons"] for r in report_of(job)]
    assert [line["outcome"] for line in report_of(job)] == ["recorded", "recorded", "refused"]
    assert Load.objects.get(ticket="T-1").net_kg == 29_100


def test_formulas_are_kept_as_text_never_worked_out_and_written_safely(clerk, site, code):
    table = [
        upload_row(code, "=1+1"),  # a ticket no one could type
        upload_row(code, "T-2", gross_kg="=40000+4120"),
        upload_row(code, "T-3", vehicle="=A1"),
    ]
    sent(clerk, site, tickets_file(table, "xlsx"), "tickets.xlsx")
    job = run_queued(KIND)
    report = report_of(job)
    assert report[0]["ticket"] == "'=1+1"  # a spreadsheet shows it as text
    assert report[0]["reasons"].startswith("ticket: A ticket number has letters")
    assert report[1]["reasons"].startswith("gross_kg: Enter the weight in kilograms")
    assert report[2]["outcome"] == "recorded"
    assert LoadEntry.objects.get(load__ticket="T-3").figures["vehicle"] == "=A1"


def refused_by_its_job(clerk: Client, site, content: bytes, name: str = "tickets.csv") -> Job:
    """The file sent through the upload form: taken at once, without its rows read (the answer
    is the job's page), and its job run; the job as it ended."""
    response = sent(clerk, site, content, name)
    job = Job.objects.get(kind=KIND)
    assert response.status_code == 303 and response["Location"] == f"/jobs/{job.pk}/"
    assert job.state == Job.State.QUEUED and "rows" not in job.params
    return run_queued(KIND)


def test_2001_rows_are_refused_by_the_job_and_nothing_is_recorded(clerk, site, code):
    table = [upload_row(code, f"T-{n}") for n in range(2001)]
    job = refused_by_its_job(clerk, site, tickets_file(table))
    assert job.state == Job.State.FAILED
    assert job.message == (
        "The file has more than 2,000 rows: upload at most 2,000 at a time (split the day into "
        "several files). Nothing was recorded."
    )
    assert "The file has more than 2,000 rows" in clerk.get(f"/jobs/{job.pk}/").content.decode()
    assert not Load.objects.exists()


def test_the_rows_limit_is_a_setting(clerk, site, code, settings):
    settings.PORTAL_INTAKE_UPLOAD_ROWS = 2
    job = refused_by_its_job(
        clerk, site, tickets_file([upload_row(code, f"T-{n}") for n in range(3)])
    )
    assert "more than 2 rows" in job.message and not Load.objects.exists()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"code,ticket\n1,2\n", "columns not known here: code; columns missing:"),
        (tickets_file([]), "The file has no rows under its first (the columns'): nothing to"),
    ],
)
def test_a_file_of_other_columns_or_of_no_rows_is_refused_by_the_job(clerk, site, content, words):
    job = refused_by_its_job(clerk, site, content)
    assert job.state == Job.State.FAILED and words in job.message
    assert not Load.objects.exists()


@pytest.mark.parametrize(
    ("texts", "words"),
    [
        (1_290_000, "holds more than 100,000 texts, far more than a day's tickets: it is not "
                    "read. Nothing was recorded."),
        (1_000, "holds more texts than its sheets have cells: it is not read. Nothing was "
                "recorded."),
    ],
)  # fmt: skip
def test_a_workbook_of_a_million_empty_texts_is_taken_at_once_and_refused_by_its_job(
    clerk, site, code, texts, words
):
    hostile = a_workbook_of_empty_texts(texts, [upload_row(code, "T-1")])
    assert len(hostile) < 40_000
    job = refused_by_its_job(clerk, site, hostile, "tickets.xlsx")
    assert job.state == Job.State.FAILED
    assert job.message.endswith(words)
    assert words.split(":")[0] in unescape(clerk.get(f"/jobs/{job.pk}/").content.decode())
    assert not Load.objects.exists()


def test_a_file_past_5_mb_is_not_kept(clerk, site, code):
    row = upload_row(code, sample_reference="S" * 30)
    line_bytes = len(tickets_file([row, row])) - len(tickets_file([row]))
    big = tickets_file([row] * (uploads.UPLOAD_BYTES // line_bytes + 10))
    assert len(big) > uploads.UPLOAD_BYTES
    response = sent(clerk, site, big)
    assert response.status_code == 413
    assert response.context["form"].errors["file"] == [
        "The file is larger than 5.0\xa0MB: split it into several."
    ]
    assert not Job.objects.exists()


def test_a_body_declared_past_5_mb_is_refused_before_it_is_read(clerk, site):
    response = sent(clerk, site, b"short_code\n", CONTENT_LENGTH=str(50 * 1024 * 1024))
    assert response.status_code == 413
    assert "larger than 5.0\xa0MB" in response.context["form"].errors["file"][0]


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("tickets.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
         "This file is named .csv but is not text."),
        ("tickets.xlsx", b"short_code,ticket\n", "named .xlsx but is not an Excel workbook"),
        ("tickets.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "(.xls) are not read here"),
        ("tickets.txt", b"short_code,ticket\n", "A file .txt is not taken here."),
        ("tickets", b"short_code,ticket\n", "A file without an extension is not taken here."),
        ("tickets.csv", b"", "The submitted file is empty."),
    ],
)  # fmt: skip
def test_a_file_that_is_not_a_sheet_or_pretends_to_be_one_is_refused(
    clerk, site, name, content, words
):
    response = sent(clerk, site, content, name)
    assert response.status_code == 400
    assert words in response.context["form"].errors["file"][0]
    assert not Job.objects.exists()


def test_a_zip_that_is_not_a_workbook_is_refused(clerk, site):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("content.xml", "<office:document/>")
    response = sent(clerk, site, out.getvalue(), "tickets.xlsx")
    assert "a ZIP but not an Excel workbook" in response.context["form"].errors["file"][0]


def test_a_correction_row_corrects_the_load_and_a_plain_row_leaves_it_alone(clerk, site, code):
    sent(clerk, site, tickets_file([upload_row(code, "T-1"), upload_row(code, "T-2")]))
    run_queued(KIND)
    table = [
        upload_row(code, "T-1", tare_kg="14020", correction="yes",
                   correction_reason="Tare read from the wrong lorry"),
        upload_row(code, "T-2", tare_kg="14020"),  # not marked: left alone
        upload_row(code, "T-9", correction="yes", correction_reason="No such load"),
        upload_row(code, "T-2", correction="Yes", correction_reason="Same again"),  # unchanged
    ]  # fmt: skip
    sent(clerk, site, tickets_file(table))
    job = run_queued(KIND)
    report = report_of(job)
    assert [line["outcome"] for line in report] == [
        "corrected", "already recorded", "refused", "unchanged"
    ]  # fmt: skip
    assert report[1]["reasons"] == "already recorded: mark the row as a correction to change it"
    assert report[2]["reasons"] == (
        "ticket: Ticket T-9 is not recorded at Stour Valley Grain, Sudbury: only a recorded "
        "load is corrected."
    )
    assert job.message == "1 corrected, 1 already recorded, 1 unchanged, 1 refused."
    first = Load.objects.get(site=site, ticket="T-1")
    assert first.net_kg == 30_100
    corrected = first.entries.get(kind="corrected")
    assert (corrected.words, corrected.by) == ("Tare read from the wrong lorry", "haulier")
    assert Load.objects.get(site=site, ticket="T-2").net_kg == 29_100


def test_a_correction_needs_its_reason_and_keeps_its_passport(clerk, site, code):
    sent(clerk, site, tickets_file([upload_row(code, "T-1")]))
    run_queued(KIND)
    table = [
        upload_row(code, "T-1", tare_kg="14020", correction="yes"),
        upload_row("ABCD-EFGH", "T-1", tare_kg="14020", correction="yes", correction_reason="x"),
        upload_row(code, "T-1", correction="perhaps"),
    ]
    sent(clerk, site, tickets_file(table))
    report = report_of(run_queued(KIND))
    assert report[0]["reasons"] == "correction_reason: Say why the load is corrected."
    assert report[1]["reasons"].startswith(f"short_code: Ticket T-1 was recorded with passport "
                                           f"{code}: a correction keeps it.")  # fmt: skip
    assert report[2]["reasons"].startswith("correction: Say yes for a correction, or leave it")
    assert not LoadEntry.objects.filter(kind="corrected").exists()


class WorkerDied(BaseException):
    """The worker killed in the middle of the job (nothing catches it, as nothing catches
    SIGKILL)."""


def test_the_job_run_again_records_nothing_twice_and_reports_its_rows_as_its_own(
    clerk, site, code, monkeypatch
):
    sent(clerk, site, tickets_file(fifty_with_three_bad(code)))
    job = Job.objects.get(kind=KIND)
    monkeypatch.setattr(uploads, "ROWS_AT_ONCE", 10)
    recorded_many = loads.record_many
    calls = []

    def dying_in_the_fourth_ten(*args, **kwargs):
        if len(calls) == 3:
            raise WorkerDied()
        calls.append(1)
        return recorded_many(*args, **kwargs)

    monkeypatch.setattr(loads, "record_many", dying_in_the_fourth_ten)
    with pytest.raises(WorkerDied):
        run(job)
    assert Load.objects.count() == 28  # rows 2 to 31, two of them refused
    monkeypatch.setattr(loads, "record_many", recorded_many)
    job = run(job)  # as the worker that takes the job on runs it
    assert job.state == Job.State.DONE and job.message == "47 recorded, 3 refused."
    assert Load.objects.count() == LoadEntry.objects.count() == 47
    assert UploadedRow.objects.filter(job=job).count() == 47
    report = report_of(job)
    assert [line["outcome"] for line in report].count("recorded") == 47
    assert report[0]["verdict"] == "valid"  # as kept with the load by the first run
    Job.objects.filter(pk=job.pk).update(state=Job.State.RUNNING, credential="x")
    run(job)  # once more, after it had finished: a message delivered twice
    assert Load.objects.count() == LoadEntry.objects.count() == 47


def test_a_verdict_that_cannot_be_asked_is_kept_as_unknown_and_the_load_recorded(
    clerk, site, code, settings
):
    sent(clerk, site, tickets_file([upload_row(code, "T-1")]))
    settings.ASSURANCE_LOOKUP_USERNAME = ""  # the look-up account cannot sign in
    job = run_queued(KIND)
    assert report_of(job)[0]["verdict"] == "unknown: the service could not be asked"
    verdict = LoadEntry.objects.get().verdict
    assert verdict["valid"] is None and "could not be asked" in verdict["note"]


def test_only_the_sites_clerks_upload(clerk, site, code):
    other = a_site(name="Another", code="another")
    addresses = (
        f"/intake/sites/{other.code}/upload",
        f"/intake/sites/{other.code}/upload/template.csv",
        "/intake/sites/nowhere/upload",
    )
    for address in addresses:
        assert clerk.get(address).status_code == 404
    posted = clerk.post(f"/intake/sites/{other.code}/upload", {"file": io.BytesIO(b"x")})
    assert posted.status_code == 404 and not Job.objects.exists()
    anonymous = Client().get(f"/intake/sites/{site.code}/upload")
    assert anonymous.status_code == 302 and "/accounts/sign-in/" in anonymous["Location"]
    grower = signed_in("partner")  # a grower, clerk of nothing
    assert grower.get(f"/intake/sites/{site.code}/upload").status_code == 404


def test_a_clerk_no_longer_of_the_site_records_nothing_more(clerk, site, code):
    sent(clerk, site, tickets_file([upload_row(code, "T-1")]))
    site.clerks.clear()
    job = run_queued(KIND)
    assert job.state == Job.State.FAILED and "no longer a clerk" in job.message
    assert not Load.objects.exists()


def test_the_form_sent_twice_is_one_job(clerk, site, code):
    page = clerk.get(f"/intake/sites/{site.code}/upload")
    key = page.context["form"]["key"].value()
    content = tickets_file([upload_row(code)])
    for _ in range(2):
        upload = io.BytesIO(content)
        upload.name = "tickets.csv"
        clerk.post(f"/intake/sites/{site.code}/upload", {"key": key, "file": upload})
    assert Job.objects.count() == 1


def test_the_uploaded_file_goes_with_its_job(clerk, site, code, job_files):
    sent(clerk, site, tickets_file([upload_row(code)]))
    job = run_queued(KIND)
    kept = job_files / job.params["file"]
    assert kept.exists() and kept.read_bytes().startswith(b"\xef\xbb\xbfshort_code,")
    Job.objects.filter(pk=job.pk).update(expires=timezone.now())
    remove_expired()
    assert not kept.exists()
    assert Load.objects.count() == 1  # the loads stay


def test_the_recent_uploads_are_listed_for_their_clerk(clerk, site, code):
    sent(clerk, site, tickets_file([upload_row(code)]), "monday.csv")
    run_queued(KIND)
    page = clerk.get(f"/intake/sites/{site.code}/upload").content.decode()
    assert "Tickets of Stour Valley Grain, Sudbury: monday.csv" in page
    assert "1 recorded." in page
    assert get_user_model().objects.get(username="haulier").intake_sites.count() == 1


def test_a_ticket_twice_in_a_file_is_recorded_once_and_may_be_corrected_after(clerk, site, code):
    table = [
        upload_row(code, "T-1"),
        upload_row(code, "T-1"),
        upload_row(code, "T-2"),
        upload_row(code, "T-2", tare_kg="14020", correction="yes", correction_reason="Tare"),
    ]
    sent(clerk, site, tickets_file(table))
    report = report_of(run_queued(KIND))
    assert [line["outcome"] for line in report] == [
        "recorded", "already recorded", "recorded", "corrected"
    ]  # fmt: skip
    assert Load.objects.get(ticket="T-2").net_kg == 30_100
    assert LoadEntry.objects.count() == 3


def test_a_ticket_recorded_while_the_job_ran_is_left_alone_and_the_rest_recorded(
    clerk, site, code, monkeypatch
):
    sent(clerk, site, tickets_file([upload_row(code, f"T-{n}") for n in range(1, 4)]))
    a_load(site, "T-2")  # a clerk records T-2 as the job reads the rows
    monkeypatch.setattr(rows, "recorded_at", lambda site, tickets: {})  # read before that
    report = report_of(run_queued(KIND))
    assert [line["outcome"] for line in report] == ["recorded", "already recorded", "recorded"]
    assert Load.objects.count() == 3 and LoadEntry.objects.count() == 3
