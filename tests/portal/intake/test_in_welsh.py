"""Intake in Welsh (`/cy/intake/...`): a clerk's site and its loads, the record form with a
refused value said beside its field, the correction, a query answered; the grower's "At intake"
on their passport's page; an upload started from a Welsh page, whose report says why each row
was refused in Welsh (its columns' names and values as they are in English); and the result
mail in the grower's language, or in both, asking, until they choose."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from portal.intake import rows
from portal.intake.models import IntakeSite, Load, LoadEntry
from portal.jobs.models import Job
from tests.jobs import run, run_queued
from tests.mailserver import MailServer
from tests.portal.intake.builders import (
    a_load,
    a_signed_in_clerk,
    a_site,
    queried,
    tickets_file,
    upload_row,
)
from tests.portal.intake.test_clerks import field_error, good, record_form
from tests.portal.intake.test_result_mail import chose_language
from tests.portal.passports.helpers import text
from tests.portal.passports.made import made_here

pytestmark = pytest.mark.django_db

SITE = "/cy/intake/sites/stour-valley-sudbury/"


@pytest.fixture
def site(db) -> IntakeSite:
    return a_site()


@pytest.fixture
def clerk(site, grower) -> Client:
    """The demo haulier, a clerk of the site, signed in (the grower makes the passports)."""
    return a_signed_in_clerk(site)


def welsh(response) -> str:
    """The words of a page that is in Welsh, checked to say so."""
    assert response.status_code in (200, 400), response.status_code
    assert '<html lang="cy"' in response.content.decode()
    return text(response)


def test_the_sites_loads_page_is_in_welsh(clerk, site):
    a_load(site, reasons=("specific-weight",))
    page = welsh(clerk.get(SITE))
    assert "Safle derbyn Stour Valley Grain Ltd" in page
    assert "Cofnodi llwyth" in page and "Chwilio" in page
    assert "Heddiw" in page and "Llwythi a gofnodwyd cyn heddiw" not in page
    assert "Tocyn Cyrhaeddodd Pasbort Cerbyd Pwysau net (kg) Penderfyniad Diweddaraf" in page
    assert "Derbyniwyd gyda hawliad Cofnodwyd" in page
    assert "Ni chofnodwyd llwyth yma cyn heddiw." in page


def test_a_refused_value_is_said_beside_its_field_in_welsh_and_records_nothing(clerk):
    _, passport = record_form(clerk, made_here())
    form = welsh(clerk.get(f"{SITE}record", {"code": made_here()}))
    assert "Cofnodi llwyth" in form and "Wrth y bont bwyso" in form
    assert "Manyleb y safle: 76 kg/hl neu fwy." in form
    response = clerk.post(f"{SITE}record", good(tare_kg="50000") | {"passport": passport})
    assert response.status_code == 400
    page = welsh(response)
    assert page.startswith("Heb ei gofnodi: Cofnodi llwyth yn Stour Valley Grain, Sudbury")
    assert "Ni chofnodwyd dim. Gwiriwch yr hyn sydd wedi’i farcio isod." in page
    assert field_error(response, "tare_kg") == (
        "Pwysau’r cerbyd gwag yw’r pwysau tare: mae’n is na’r pwysau gros."
    )
    assert not Load.objects.exists()


def test_a_load_recorded_from_a_welsh_page_goes_to_its_welsh_page(clerk):
    _, passport = record_form(clerk, made_here())
    response = clerk.post(f"{SITE}record", good() | {"passport": passport}, follow=True)
    load = Load.objects.get()
    assert response.redirect_chain == [(f"/cy/intake/loads/{load.pk}/", 303)]
    page = welsh(response)
    assert "Wedi’i gofnodi: tocyn T-2001 yn Stour Valley Grain, Sudbury." in page
    assert "Y cofnod nawr" in page and "Dilys" in page


def test_the_correction_is_in_welsh_its_reason_asked_for_in_welsh(clerk, site):
    load = a_load(site)
    address = f"/cy/intake/loads/{load.pk}/correct"
    page = welsh(clerk.get(address))
    assert "Cywiro tocyn T-1001" in page and "Pam y mae’r cofnod yn cael ei gywiro" in page
    response = clerk.post(address, good(ticket=None, tare_kg="14020"))
    assert response.status_code == 400
    assert field_error(response, "reason") == "Dywedwch pam y mae’r cofnod yn cael ei gywiro."
    assert "Ni chywirwyd dim." in welsh(response)
    sent = clerk.post(address, good(ticket=None, tare_kg="14020", reason="Lori anghywir"))
    assert sent.status_code == 303 and sent["Location"] == f"/cy/intake/loads/{load.pk}/"
    page = welsh(clerk.get(sent["Location"]))
    assert "Wedi’i gywiro: tocyn T-1001. Mae’r hanes yn cadw’r cofnod cyn y cywiriad." in page
    assert "Cywirwyd gan haulier ar" in page and "Pwysau tare (kg): o 15,020 → i 14,020" in page


def test_a_query_is_answered_in_welsh(clerk, site):
    load = a_load(site)
    queried(load, words="Our own test gave 77.1 kg/hl.")
    page = welsh(clerk.get(f"/cy/intake/loads/{load.pk}/"))
    assert "Ymholiad ar agor" in page and "Holodd grower am y canlyniad hwn ar" in page
    assert "Our own test gave 77.1 kg/hl." in page  # the grower's words, as written
    response = clerk.post(f"/cy/intake/loads/{load.pk}/answer", {"words": "", "action": "answer"})
    assert response.status_code == 400
    assert "Ysgrifennwch eich ateb, neu pam y mae’r canlyniad yn sefyll." in welsh(response)
    response = clerk.post(
        f"/cy/intake/loads/{load.pk}/answer",
        {"words": "Mae’r sampl yn cytuno.", "action": "stand-by"},
        follow=True,
    )
    page = welsh(response)
    assert "Mae’r tyfwr yn gweld ar dudalen y pasbort fod y canlyniad yn sefyll." in page
    assert "Cadarnhawyd y canlyniad gan haulier ar" in page
    assert LoadEntry.objects.filter(kind=LoadEntry.Kind.STOOD_BY).exists()


def test_the_grower_sees_at_intake_in_welsh(grower):
    load = a_load(a_site(), reasons=("specific-weight",))
    page = welsh(grower.get(f"/cy/passports/{load.passport.short_code}/"))
    assert "Wrth dderbyn Stour Valley Grain, Sudbury, tocyn T-1001" in page
    assert "Derbyniwyd gyda hawliad : Pwysau penodol islaw’r fanyleb" in page
    assert "Pwysau net 29,100 kg (gros 44,120 kg, tare 15,020 kg)" in page
    assert "Pwysau penodol 72.5 kg/hl 76 kg/hl neu fwy ✗ Y tu allan i’r fanyleb" in page
    assert "Cofnodwyd gan intake ar" in page and "Holi am y canlyniad hwn" in page


# --- an upload started from a Welsh page ---------------------------------------------------------


def test_an_upload_from_a_welsh_page_reports_in_welsh_and_reads_the_same_columns(clerk, site):
    code = made_here()
    upload = f"{SITE}upload"
    page = welsh(clerk.get(upload))
    assert "Uwchlwytho tocynnau diwrnod" in page
    assert "Mae enwau’r colofnau yr un fath yn y ddwy iaith" in page
    template = clerk.get(f"{SITE}upload/template.csv")
    header = template.content.decode("utf-8-sig").splitlines()[0]
    assert header == ",".join(rows.COLUMNS)  # the template's columns, read from every page
    table = [
        upload_row(code, "T-1", reasons="Specific weight below specification"),  # English words
        upload_row(code, "T-2", tare_kg="50000"),
        upload_row(code, "T-3", decision="Derbyniwyd gyda hawliad"),  # or Welsh ones
    ]
    key = clerk.get(upload).context["form"]["key"].value()
    file = SimpleUploadedFile("tickets.csv", tickets_file(table))
    assert clerk.post(upload, {"key": key, "file": file}).status_code == 303
    job = run_queued("intake-upload")
    assert job.language == "cy" and job.message == "2 wedi’u cofnodi, 1 wedi’i wrthod."
    assert job.result_name == "tickets-adroddiad.csv"
    with job.result.open("rb") as result:
        report = list(csv.DictReader(io.StringIO(result.read().decode("utf-8-sig"))))
    assert [line["canlyniad"] for line in report] == ["recorded", "refused", "recorded"]
    assert report[1]["rhesymau"] == (
        "tare_kg: Pwysau’r cerbyd gwag yw’r pwysau tare: mae’n is na’r pwysau gros."
    )
    page = welsh(clerk.get(f"/cy/jobs/{job.pk}/"))
    assert "Cofnodwyd 2 Cywirwyd 0 Gwrthodwyd 1" in page
    assert "Rhes 3 , tocyn T-2:" in page


# --- the result mail ----------------------------------------------------------------------------


@pytest.fixture
def mailed(grower, settings) -> None:
    settings.PORTAL_URL = "https://portal.example"
    get_user_model().objects.filter(username="grower").update(email="grower@example.com")


def sent_mail(mail_server: MailServer):
    assert run(Job.objects.get(kind="intake-result-mail")).state == Job.State.DONE
    [mail] = mail_server.wait_for(1)
    return mail, mail.body("plain").replace("\r\n", "\n")


def test_the_result_mail_is_in_welsh_for_a_grower_who_chose_welsh(mailed, mail_server):
    chose_language("grower", "cy")
    load = a_load(a_site(), reasons=("specific-weight",))
    code = load.passport.short_code
    mail, body = sent_mail(mail_server)
    assert mail.message["Subject"] == (
        f"Pasbort {code} wrth dderbyn: Derbyniwyd gyda hawliad, 29,100 kg"
    )
    assert body.startswith(
        f"Cofnododd Stour Valley Grain, Sudbury lwyth pasbort {code} (tocyn T-1001).\n"
    )
    assert "Penderfyniad: Derbyniwyd gyda hawliad (Pwysau penodol islaw’r fanyleb)\n" in body
    assert f"https://portal.example/cy/passports/{code}/\n" in body
    assert "https://portal.example/cy/accounts/you/" in body
    assert "Decision" not in body and "—" not in body  # Welsh alone, not asking


def test_the_result_mail_is_in_both_asking_until_the_grower_chooses(mailed, mail_server):
    load = a_load(a_site())
    code = load.passport.short_code
    mail, body = sent_mail(mail_server)
    assert mail.message["Subject"] == (
        f"Pasbort {code} wrth dderbyn: Derbyniwyd gyda hawliad, 29,100 kg / "
        f"Passport {code} at intake: Accepted with a claim, 29,100 kg"
    )
    welsh_part, english_part = body.split("\n\n—\n\n")
    assert welsh_part.startswith("Cofnododd Stour Valley Grain, Sudbury lwyth pasbort")
    assert english_part.startswith("Stour Valley Grain, Sudbury recorded the load of passport")
    assert f"https://portal.example/cy/passports/{code}/" in welsh_part
    assert f"https://portal.example/passports/{code}/" in english_part
    assert "because you have not yet chosen a language" in english_part
    assert re.search(r"https://portal\.example/cy/accounts/you/\s*$", welsh_part)
