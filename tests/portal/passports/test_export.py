"""Exports of the business's passports (`POST /passports/export`): those ticked, or all that match
the list's filters, as one ZIP of their PDFs with passports.csv and passports.xlsx, or as one
PDF to print; made by a job (run here as a worker runs it), refused before it starts when it
cannot be made, and never of a passport of another business."""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import msgspec
import openpyxl
import pypdf
import pytest
from django.test import Client

from portal.assurance.passport_fields import PASSPORT_FIELDS
from portal.intake import exporting as intake_columns
from portal.intake.loads import Claim, correct
from portal.intake.models import Decision
from portal.jobs import actions
from portal.jobs.models import Job
from portal.passports import tasks
from portal.passports.models import Passport
from portal.passports.tasks import passport_export, passport_pdf
from tests.demo import OAKHURST, WENHAM, WENHAM_SITE
from tests.jobs import run, run_queued
from tests.portal.accounts.helpers import upstream_calls
from tests.portal.intake.builders import a_load, a_site, figures
from tests.portal.passports.helpers import as_sent, no_longer_a_contact, suspended, text
from tests.portal.passports.made import (
    SOME_OF_THE_LOAD,
    made_here,
    made_with_the_form,
    wenham_made_here,
)

pytestmark = pytest.mark.django_db

COLUMNS = [field.wire_name for field in PASSPORT_FIELDS]
HEADINGS = COLUMNS + list(intake_columns.HEADINGS)  # then the figures of the latest load


def exported(client: Client, **form: object) -> Job:
    """The export asked for (ticked codes as `code`), its job run as a worker runs it."""
    response = client.post("/passports/export", {"format": "zip", "scope": "ticked", **form})
    assert response.status_code == 303, text(client.get("/passports/"))
    job = Job.objects.get(kind=passport_export.name)
    assert response["Location"] == f"/jobs/{job.pk}/"
    return run(job)


def opened(job: Job) -> zipfile.ZipFile:
    assert job.state == Job.State.DONE, job.message
    with job.result.open("rb") as result:
        return zipfile.ZipFile(io.BytesIO(result.read()))


def pdf_text(content: bytes) -> str:
    reader = pypdf.PdfReader(io.BytesIO(content))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split())


def records_of(short_codes: list[str]) -> list:
    return [Passport.objects.get(short_code=code).crop_passport for code in short_codes]


def test_the_ticked_passports_export_as_a_zip_of_pdfs_and_both_manifests(grower):
    made = [made_with_the_form(grower, crop_type=crop) for crop in ("Wheat", "Barley", "Oats")]
    job = exported(grower, code=made)
    archive = opened(job)
    assert sorted(archive.namelist()) == sorted(
        [f"{code}.pdf" for code in made] + ["passports.csv", "passports.xlsx"]
    )
    for code in made:
        member = archive.getinfo(f"{code}.pdf")
        assert member.compress_type == zipfile.ZIP_STORED  # a PDF is compressed already
        assert code in pdf_text(archive.read(member))
    records = records_of(made)  # in the order they were made
    rows = list(csv.DictReader(io.StringIO(archive.read("passports.csv").decode("utf-8-sig"))))
    assert list(rows[0]) == HEADINGS
    sent = [as_sent(Passport.objects.get(short_code=code).record) for code in made]
    assert [{name: row[name] for name in sent_ if name in row}
            for row, sent_ in zip(rows, sent, strict=True)] == sent  # fmt: skip
    assert all(row[name] == "" for row in rows for name in HEADINGS if name not in sent[0])
    sheet = openpyxl.load_workbook(io.BytesIO(archive.read("passports.xlsx"))).active
    cells = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert cells[0] == HEADINGS
    no_load = [None] * len(intake_columns.HEADINGS)
    assert cells[1:] == [[_xlsx(getattr(r, f.name)) for f in PASSPORT_FIELDS] + no_load
                         for r in records]  # fmt: skip
    assert isinstance(cells[1][COLUMNS.index("LoadingDate")], datetime)  # a date, not text
    assert job.result_name.endswith(".zip") and job.message == ""
    page = text(grower.get(f"/jobs/{job.pk}/"))
    assert "3 passports as a ZIP : done." in page and f"Download {job.result_name}" in page


def _xlsx(value: object) -> object:
    if isinstance(value, datetime):  # in UTC, to the second, as a spreadsheet keeps it
        return (value.astimezone(UTC) + timedelta(microseconds=500_000)).replace(
            tzinfo=None, microsecond=0
        )
    return value


def test_a_date_no_spreadsheet_shows_is_written_as_the_csv_writes_it(grower):
    """The service takes any date: a passport made elsewhere may be loaded in the year 1."""
    year_one = datetime(1, 1, 1, tzinfo=UTC)
    code = made_here(msgspec.structs.replace(SOME_OF_THE_LOAD, loading_date=year_one))
    sheet = openpyxl.load_workbook(io.BytesIO(opened(exported(grower, code=[code])).read(
        "passports.xlsx"))).active  # fmt: skip
    row = dict(zip(HEADINGS, next(sheet.iter_rows(min_row=2, values_only=True)), strict=True))
    assert row["LoadingDate"] == "0001-01-01T00:00:00Z"
    assert row["DONTestDate"] == datetime(2026, 8, 12)


def test_every_passport_that_matches_the_filters_is_exported(grower):
    barley = made_with_the_form(grower, crop_type="Barley")
    made_with_the_form(grower, crop_type="Wheat")
    job = exported(grower, scope="all", crop="Barley")
    assert opened(job).namelist()[:1] == [f"{barley}.pdf"]
    assert len(opened(job).namelist()) == 3


def test_the_list_offers_the_export_of_the_ticked_and_of_all_that_match(grower):
    made_with_the_form(grower, crop_type="Barley")
    html = grower.get("/passports/?crop=Barley").content.decode()
    assert '<form method="post" action="/passports/export"' in html
    assert '<input type="hidden" name="crop" value="Barley">' in html
    assert 'name="scope" value="ticked"' in html and 'name="scope" value="all"' in html


def test_one_pdf_to_print_holds_every_passport_in_order(grower):
    made = [made_with_the_form(grower) for _ in range(3)]
    job = exported(grower, code=list(reversed(made)), format="pdf")
    assert job.result_name.endswith(".pdf")
    with job.result.open("rb") as result:
        reader = pypdf.PdfReader(io.BytesIO(result.read()))
    assert len(reader.pages) == 3
    assert [code for page in reader.pages for code in made if code in page.extract_text()] == made


def test_pdfs_the_portal_keeps_are_not_fetched_again(grower):
    kept, other = made_with_the_form(grower), made_with_the_form(grower)
    run_queued_pdfs()
    Job.objects.filter(kind=passport_pdf.name, params__short_code=other).delete()
    with upstream_calls() as calls:
        job = exported(grower, code=[kept, other])
    fetched = [call for call in calls if call.operation == "passport_pdf"]
    assert len(fetched) == 1
    assert sorted(opened(job).namelist())[:2] == sorted([f"{kept}.pdf", f"{other}.pdf"])


def run_queued_pdfs() -> None:
    for job in Job.objects.filter(kind=passport_pdf.name, state=Job.State.QUEUED):
        run(job)


def test_an_export_past_the_limit_is_refused_before_it_starts(grower, settings):
    settings.PORTAL_EXPORT_LIMIT = 2
    for _ in range(3):
        made_with_the_form(grower)
    response = grower.post("/passports/export", {"format": "zip", "scope": "all"}, follow=True)
    assert "An export takes at most 2 passports, and these are 3." in text(response)
    assert not Job.objects.filter(kind=passport_export.name).exists()
    page = text(grower.get("/passports/"))
    assert "At most 2 passports go in one export" in page


def test_one_pdf_to_print_takes_at_most_a_batch(grower, settings):
    settings.PORTAL_BATCH_LIMIT = 1
    made = [made_with_the_form(grower) for _ in range(2)]
    response = grower.post("/passports/export", {"format": "pdf", "code": made}, follow=True)
    assert "One PDF to print takes at most 1 passports" in text(response)
    assert not Job.objects.filter(kind=passport_export.name).exists()


@pytest.mark.parametrize(
    ("form", "said"),
    [
        ({"scope": "ticked"}, "tick the passports to export"),
        ({"scope": "ticked", "code": "ABCDE-FGHJK"}, "are not among your business's passports"),
        ({"scope": "ticked", "code": "../../etc"}, "are not among your business's passports"),
        ({"scope": "all", "membership": OAKHURST}, "the filters are not valid"),
        ({"scope": "all", "code": "0OIL1"}, "the filters are not valid"),
        ({"scope": "all", "format": "exe"}, "choose a ZIP of the passports, or one PDF"),
        ({"scope": "all", "crop": "Rye"}, "the filters are not valid"),
    ],
)
def test_an_export_that_cannot_be_made_is_refused_with_the_reason(grower, form, said):
    made_with_the_form(grower)
    response = grower.post("/passports/export", {"format": "zip", **form})
    assert response.status_code == 303
    assert response["Location"].startswith("/passports/")
    assert said in text(grower.get(response["Location"]))
    assert not Job.objects.filter(kind=passport_export.name).exists()


def test_a_refused_export_goes_back_to_the_list_as_it_was_filtered(grower):
    made_with_the_form(grower, crop_type="Barley")
    response = grower.post("/passports/export", {"format": "zip", "scope": "ticked",
                                                 "query": "crop=Barley&evil=1"})  # fmt: skip
    assert response["Location"] == "/passports/?crop=Barley"


def test_no_export_takes_a_passport_of_another_business(grower, partner):
    own = made_with_the_form(partner)
    wenham = made_with_the_form(grower, membership=WENHAM, site=WENHAM_SITE, store="")
    response = partner.post("/passports/export", {"format": "zip", "code": [own, wenham]})
    assert "are not among your business's passports" in text(partner.get(response["Location"]))
    assert not Job.objects.filter(kind=passport_export.name).exists()
    partner.post("/passports/export", {"format": "zip", "scope": "all"})
    archive = opened(run_queued(passport_export.name))
    assert sorted(archive.namelist()) == sorted([f"{own}.pdf", "passports.csv", "passports.xlsx"])


def test_passports_no_longer_the_owners_when_it_runs_are_left_out_and_said(
    grower, upstream_sandbox
):
    hollowfield = made_with_the_form(grower)
    wenham = made_with_the_form(grower, membership=WENHAM, site=WENHAM_SITE, store="")
    grower.post("/passports/export", {"format": "zip", "code": [hollowfield, wenham]})
    with no_longer_a_contact(upstream_sandbox, WENHAM, "grower"):
        job = run_queued(passport_export.name)
    assert f"{wenham}.pdf" not in opened(job).namelist()
    assert f"{hollowfield}.pdf" in opened(job).namelist()
    said = "1 passport was left out: you are no longer a registered contact of their membership."
    assert job.message == said
    assert said in text(grower.get(f"/jobs/{job.pk}/"))


def test_a_passport_whose_pdf_the_service_refuses_is_listed_without_it(grower, upstream_sandbox):
    wenham = made_with_the_form(grower, membership=WENHAM, site=WENHAM_SITE, store="")
    grower.post("/passports/export", {"format": "zip", "code": [wenham]})
    with suspended(upstream_sandbox, WENHAM):
        job = run_queued(passport_export.name)
    archive = opened(job)
    assert sorted(archive.namelist()) == ["passports.csv", "passports.xlsx"]
    assert f"1 passport was without a PDF ({wenham})" in job.message


def test_an_export_cancelled_midway_stops_and_keeps_no_file(grower, monkeypatch, job_files):
    made = [made_with_the_form(grower) for _ in range(3)]
    grower.post("/passports/export", {"format": "zip", "code": made})
    job = Job.objects.get(kind=passport_export.name)
    real = tasks.in_order

    def cancelled_after_the_first(*args, **kwargs):
        for number, fetched in enumerate(real(*args, **kwargs)):
            if number == 1:
                actions.cancel(job)  # as its owner does from its page
            yield fetched

    monkeypatch.setattr(tasks, "in_order", cancelled_after_the_first)
    stopped = run(job)
    assert stopped.state == Job.State.CANCELLED
    assert not [path for path in job_files.rglob("*") if path.is_file()]


def test_the_same_export_asked_twice_is_one_job(grower):
    made = made_with_the_form(grower)
    first = grower.post("/passports/export", {"format": "zip", "code": made})
    second = grower.post("/passports/export", {"format": "zip", "code": made})
    assert first["Location"] == second["Location"]
    assert Job.objects.filter(kind=passport_export.name).count() == 1


def test_it_needs_a_signed_in_user_and_a_post(client, grower):
    assert grower.get("/passports/export").status_code == 405
    client.logout()
    response = client.post("/passports/export", {"format": "zip", "scope": "all"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/sign-in/")


def test_another_business_export_and_its_file_are_no_ones_but_its_owners(grower, partner):
    wenham = made_with_the_form(grower, membership=WENHAM, site=WENHAM_SITE, store="")
    job = exported(grower, code=[wenham])
    assert partner.get(f"/jobs/{job.pk}/").status_code == 404
    assert partner.get(f"/jobs/{job.pk}/download/").status_code == 404
    response = partner.post("/passports/export", {"format": "zip", "scope": "all",
                                                  "membership": WENHAM})  # fmt: skip
    assert "the filters are not valid" in text(partner.get(response["Location"]))
    assert Job.objects.filter(kind=passport_export.name).count() == 1


# --- the figures at intake ------------------------------------------------------------------------


def manifests_of(job: Job) -> tuple[list[dict[str, str]], list[dict[str, object]]]:
    """The CSV's rows and the XLSX's, each by its headings."""
    archive = opened(job)
    csv_rows = list(csv.DictReader(io.StringIO(archive.read("passports.csv").decode("utf-8-sig"))))
    sheet = openpyxl.load_workbook(io.BytesIO(archive.read("passports.xlsx"))).active
    header, *cells = list(sheet.iter_rows(values_only=True))
    return csv_rows, [dict(zip(header, row, strict=True)) for row in cells]


def test_the_manifests_hold_the_figures_of_each_passports_latest_load(grower):
    site = a_site()
    first = a_load(site, "T-1001", decision=Decision.REJECTED, reasons=("Ergot",), claims=())
    a_load(site, "T-1002", passport=first.passport,
           results={"moisture": Decimal("13.9"), "specific_weight": Decimal("74.0")},
           claims=(Claim("specific_weight", Decimal("2.50"), Decimal("29.10")),
                   Claim("moisture", Decimal("1.25"), Decimal("29.10"))))  # fmt: skip
    without = made_here()
    csv_rows, xlsx_rows = manifests_of(exported(grower, code=[first.passport.short_code, without]))
    assert list(csv_rows[0])[-len(intake_columns.HEADINGS) :] == [
        "IntakeSite", "IntakeTicket", "IntakeArrival", "IntakeNetKg", "IntakeDecision",
        "IntakeReasons", "IntakeMoisture", "IntakeSpecificWeight", "IntakeProtein",
        "IntakeHagberg", "IntakeAdmixture", "IntakeScreenings", "IntakeNitrogen",
        "IntakeGermination", "IntakeOil", "IntakeFreeFattyAcids", "IntakeClaimsTotal",
    ]  # fmt: skip
    loaded, empty = csv_rows  # in the order they were made
    assert {name: loaded[name] for name in intake_columns.HEADINGS if loaded[name]} == {
        "IntakeSite": "Stour Valley Grain, Sudbury", "IntakeTicket": "T-1002",
        "IntakeArrival": "2026-09-03T10:15:00Z", "IntakeNetKg": "29100",
        "IntakeDecision": "Accepted with a claim",
        "IntakeReasons": "specific-weight", "IntakeMoisture": "13.9",
        "IntakeSpecificWeight": "74.0", "IntakeClaimsTotal": "109.13",  # 72.75 + 36.38 (36.375)
    }  # fmt: skip
    assert all(empty[name] == "" for name in intake_columns.HEADINGS)
    loaded, empty = xlsx_rows
    assert loaded["IntakeArrival"] == datetime(2026, 9, 3, 10, 15)  # a date, in UTC
    assert (loaded["IntakeNetKg"], loaded["IntakeMoisture"]) == (29100, 13.9)  # numbers
    assert loaded["IntakeClaimsTotal"] == pytest.approx(109.13)
    assert (loaded["IntakeTicket"], loaded["IntakeProtein"]) == ("T-1002", None)
    assert all(empty[name] is None for name in intake_columns.HEADINGS)


def test_a_correction_is_exported_as_the_load_stands_after_it(grower):
    load = a_load(a_site())
    correct(load, figures(tare_kg=14_020, decision=Decision.ACCEPTED, claims=(), reasons=()),
            by="intake", reason="Tare of the wrong lorry")  # fmt: skip
    [row], _ = manifests_of(exported(grower, code=[load.passport.short_code]))
    assert (row["IntakeNetKg"], row["IntakeDecision"]) == ("30100", "Accepted")
    assert (row["IntakeReasons"], row["IntakeClaimsTotal"]) == ("", "0.00")


def test_text_a_clerk_typed_is_kept_as_text_never_as_a_formula(grower):
    load = a_load(a_site(name="=HYPERLINK(\"http://evil.example\")"), "+1-2",
                  reasons=("@SUM(A1:A9)", "-3"))  # fmt: skip
    [row], [cells] = manifests_of(exported(grower, code=[load.passport.short_code]))
    assert row["IntakeSite"] == '\'=HYPERLINK("http://evil.example")'
    assert (row["IntakeTicket"], row["IntakeReasons"]) == ("'+1-2", "'@SUM(A1:A9); -3")
    sheet = openpyxl.load_workbook(io.BytesIO(opened(Job.objects.get()).read("passports.xlsx")))
    found = [cell for row in sheet.active.iter_rows(min_row=2) for cell in row
             if cell.value == cells["IntakeSite"]]  # fmt: skip
    assert cells["IntakeSite"] == '=HYPERLINK("http://evil.example")'
    assert [cell.data_type for cell in found] == ["s"]  # a string, not a formula


def test_another_business_figures_are_in_no_export_of_theirs(grower, partner):
    site = a_site()
    wenham = a_load(site, "T-W", passport=Passport.objects.get(short_code=wenham_made_here()))
    own = a_load(site, "T-H", decision=Decision.REJECTED, claims=())
    partner.post("/passports/export", {"format": "zip", "scope": "all"})
    csv_rows, _ = manifests_of(run_queued(passport_export.name))
    assert [(row["IntakeTicket"], row["IntakeDecision"]) for row in csv_rows] == [
        ("T-H", "Rejected")
    ]
    assert wenham.passport.short_code not in {row["ShortCode"] for row in csv_rows}
    assert own.passport.short_code.replace("-", "") in {row["ShortCode"] for row in csv_rows}
