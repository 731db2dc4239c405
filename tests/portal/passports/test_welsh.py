"""The grower's passports in Welsh: the create form under /cy/ (its errors beside their fields),
the passport made from it, a batch's outcome and a refused batch's message, the business's list,
an export's headings (its values as in English) and the mail, written in the language its
sender chose for its recipient."""

from __future__ import annotations

import csv
import io
import re
import zipfile

import openpyxl
import pytest

from portal.jobs.models import Job
from portal.passports.models import Mailing, Passport
from portal.passports.tasks import passport_batch, passport_export, passport_mail
from tests.jobs import run
from tests.mailserver import MailServer
from tests.portal.passports.helpers import refused_at_the_third, text
from tests.portal.passports.made import filled, made_with_the_form

pytestmark = pytest.mark.django_db

HAULIER = "dispatch@haulage.example"


def in_welsh(response) -> str:
    """The page's words, once it is known to be a Welsh page."""
    assert response.status_code in (200, 400), response.status_code
    assert '<html lang="cy"' in response.content.decode()
    return text(response)


def error_beside(response, field: str) -> str:
    """The words of the error list beside the form's field `field`."""
    found = re.search(rf'<ul class="errorlist" id="id_{field}_error">(.*?)</ul>',
                      response.content.decode(), re.S)  # fmt: skip
    assert found, f"no error beside {field}"
    return " ".join(re.sub(r"<[^>]+>", " ", found[1]).split())


# --- the create form ------------------------------------------------------------------------------


def test_the_create_form_is_in_welsh_under_cy(grower):
    page = in_welsh(grower.get("/cy/passports/new"))
    assert "Creu pasbort cnwd" in page
    for words in ("Llwyth pwy, ac o ble", "Y llwyth", "Triniaeth ar ôl y cynhaeaf",
                  "Risg mycotocsinau", "Math o gnwd", "Blwyddyn y cynhaeaf",
                  "Rhif cofrestru’r cerbyd", "Sawl llwyth", "Creu pasbort"):  # fmt: skip
        assert words in page, words
    assert "Nid oes unrhyw driniaeth ar ôl y cynhaeaf wedi’i rhoi i’r grawn hwn." in page
    assert "Create a crop passport" not in page and "The load" not in page
    # What the service sends stays as it sends it, in English, marked so.
    assert (
        '<strong lang="en">Hollowfield Farms Ltd</strong>'
        in grower.get("/cy/passports/new").content.decode()
    )


def test_a_bad_value_is_said_beside_its_field_in_welsh(grower):
    form = filled(grower, harvest_year="26", loading_date="2026-02-31")
    response = grower.post("/cy/passports/new", form)
    page = in_welsh(response)
    assert "Ni wnaed y pasbort. Gwiriwch yr hyn sydd wedi’i farcio isod." in page
    assert error_beside(response, "harvest_year") == (
        "Rhowch flwyddyn y cynhaeaf fel pedwar digid, er enghraifft 2026."
    )
    assert error_beside(response, "loading_date") == (
        "Rhowch y dyddiad llwytho fel dyddiad go iawn."
    )
    assert Passport.objects.count() == 0


def test_the_same_bad_value_is_said_in_english_at_the_english_address(grower):
    response = grower.post("/passports/new", filled(grower, harvest_year="26"))
    assert error_beside(response, "harvest_year") == (
        "Enter the harvest year as four digits, for example 2026."
    )


def test_a_passport_made_from_the_welsh_form_has_its_page_in_welsh(grower):
    response = grower.post("/cy/passports/new", filled(grower))
    assert response.status_code == 303
    code = re.fullmatch(r"/cy/passports/([A-Z0-9]+-[A-Z0-9]+)/", response["Location"])[1]
    page = in_welsh(grower.get(response["Location"]))
    assert "Pasbort cnwd" in page and "Cod byr" in page
    assert "Manylion y llwyth" in page and "Honiad sicrwydd" in page
    assert "Dyddiad llwytho 21 Awst 2026" in page  # the month in Welsh
    assert "Gwnaed gan grower ar" in page
    assert "Yr honiad pan wnaed y pasbort" in page and "Dilys" in page
    assert "Anfon drwy e-bost" in page
    # its PDF's job is named in the language of the page that made it
    assert Job.objects.get(kind="passport-pdf").title == f"PDF pasbort {code}"


# --- a batch --------------------------------------------------------------------------------------


def test_a_batch_started_from_a_welsh_page_says_its_outcome_in_welsh(grower):
    response = grower.post("/cy/passports/new", filled(grower, loads="3"))
    job = Job.objects.get(kind=passport_batch.name)
    assert response.status_code == 303 and response["Location"] == f"/cy/jobs/{job.pk}/"
    assert job.language == "cy" and job.title == "3 pasbort ar gyfer Hollowfield Farms Ltd"
    assert run(job).state == Job.State.DONE
    page = in_welsh(grower.get(f"/cy/jobs/{job.pk}/"))
    assert "Gwnaed 3 pasbort" in page
    assert "Un PDF o’r 3 i gyd, i’w argraffu" in page and "ZIP o’u PDFs a’u cofnodion" in page


def test_a_batch_the_service_stops_says_why_in_welsh(grower, upstream_sandbox, monkeypatch,
                                                     settings):  # fmt: skip
    grower.post("/cy/passports/new", filled(grower, loads="4"))
    job = Job.objects.get(kind=passport_batch.name)
    settings.PORTAL_JOB_CALLS_AT_ONCE = 1
    refused_at_the_third(upstream_sandbox, monkeypatch)
    stopped = run(job)
    assert stopped.state == Job.State.FAILED
    assert stopped.message == (
        "Ataliodd y gwasanaeth Sicrwydd y swp: nid yw honiad sicrwydd yr aelodaeth yn ddilys "
        "nawr. Gwnaed 2 o 4 pasbort; maent wedi’u rhestru yma. Rhowch gynnig arall arni i "
        "wneud y gweddill."
    )
    assert "Wedi’u gwneud hyd yma: 2 o 4" in in_welsh(grower.get(f"/cy/jobs/{job.pk}/"))


# --- the list and an export -----------------------------------------------------------------------


def test_the_business_list_and_its_filters_are_in_welsh(grower):
    made_with_the_form(grower)
    page = in_welsh(grower.get("/cy/passports/"))
    assert "Pasbortau eich busnes" in page
    for words in ("Pob aelodaeth", "Pob cnwd", "Penderfyniad derbyn", "Dangos y rhain",
                  "Clirio’r hidlwyr", "Allforio’r rhai a diciwyd fel ZIP",
                  "Ychwanegu pasbort a wnaed yn rhywle arall"):  # fmt: skip
        assert words in page, words
    filtered = grower.get("/cy/passports/", {"loaded_from": "31-02-2026"})
    assert "Rhowch y dyddiad llwytho cyntaf fel dyddiad go iawn." in in_welsh(filtered)


def manifests(job: Job) -> tuple[list[list[str]], list[tuple], str]:
    """The export's CSV rows and XLSX rows (headings first), and its sheet's name."""
    assert job.state == Job.State.DONE, job.message
    with job.result.open("rb") as result:
        archive = zipfile.ZipFile(io.BytesIO(result.read()))
    rows = list(csv.reader(io.StringIO(archive.read("passports.csv").decode("utf-8-sig"))))
    book = openpyxl.load_workbook(io.BytesIO(archive.read("passports.xlsx")))
    return rows, list(book.active.iter_rows(values_only=True)), book.active.title


def exported_from(grower, prefix: str, code: str) -> Job:
    response = grower.post(f"{prefix}/passports/export",
                           {"format": "zip", "scope": "ticked", "code": code})  # fmt: skip
    assert response.status_code == 303
    job = Job.objects.filter(kind=passport_export.name).latest("pk")
    return run(job)


WELSH_HEADINGS = ["CodByr", "GUIDAelodaeth", "GUIDSafle", "GUIDStorfa", "EnwBusnes",
                  "CyfeiriadCasglu", "MathCnwd", "Amrywogaeth"]  # fmt: skip
ENGLISH_HEADINGS = ["ShortCode", "MembershipGUID", "SiteGUID", "StoreGUID", "BusinessName",
                    "CollectionAddress", "CropType", "Variety"]  # fmt: skip


def test_an_export_from_a_welsh_page_has_welsh_headings_and_the_same_values(grower):
    code = made_with_the_form(grower, crop_type="Wheat")
    welsh_csv, welsh_xlsx, welsh_sheet = manifests(exported_from(grower, "/cy", code))
    Job.objects.filter(kind=passport_export.name).delete()
    english_csv, english_xlsx, english_sheet = manifests(exported_from(grower, "", code))

    assert welsh_csv[0][:8] == WELSH_HEADINGS
    assert english_csv[0][:8] == ENGLISH_HEADINGS
    assert list(welsh_xlsx[0]) == welsh_csv[0] and list(english_xlsx[0]) == english_csv[0]
    assert welsh_csv[1:] == english_csv[1:] and welsh_xlsx[1:] == english_xlsx[1:]
    assert dict(zip(welsh_csv[0], welsh_csv[1], strict=True))["MathCnwd"] == "Wheat"
    assert (welsh_sheet, english_sheet) == ("Pasbortau", "Passports")


# --- the mail -------------------------------------------------------------------------------------


def language_offered(page) -> str:
    """The mail's language the send form has chosen."""
    html = page.content.decode()
    assert "Iaith yr e-bost" in html or "Language of the e-mail" in html
    return re.search(r'<input type="radio" name="language" value="([^"]+)"[^>]*checked', html)[1]


def test_the_send_form_offers_the_mails_language_the_pages_by_default(grower):
    code = made_with_the_form(grower)
    english = grower.get("/passports/send", {"code": code})
    assert language_offered(english) == "en-gb"
    assert "English" in text(english) and "Cymraeg" in text(english)
    welsh = grower.get("/cy/passports/send", {"code": code})
    assert language_offered(welsh) == "cy"
    assert f"Anfon pasbort {code} drwy e-bost" in in_welsh(welsh)


def key_of(page) -> str:
    return re.search(r'name="key" value="([^"]+)"', page.content.decode())[1]


def test_the_mail_arrives_in_welsh_when_the_sender_chooses_it(grower, mail_server: MailServer):
    code = made_with_the_form(grower)
    form = grower.get("/passports/send", {"code": code})  # an English page
    response = grower.post("/passports/send", {
        "code": code, "key": key_of(form), "recipient": HAULIER,
        "reply_to": "grower@example.com", "note": "", "language": "cy",
    })  # fmt: skip
    assert response.status_code == 303
    assert Mailing.objects.get().language == "cy"
    job = Job.objects.get(kind=passport_mail.name)
    assert job.title == f"Passport {code} by e-mail to {HAULIER}"  # the page's language
    assert run(job).state == Job.State.DONE, job.message

    [mail] = mail_server.wait_for(1)
    assert mail.message["Subject"] == f"Pasbort cnwd {code} gan Hollowfield Farms Ltd"
    plain = " ".join(mail.body("plain").split())
    assert ("Pasbort cnwd gan Hollowfield Farms Ltd, wedi’i anfon gan grower "
            "(grower@example.com) drwy’r porth Sicrwydd.") in plain  # fmt: skip
    assert "Math o gnwd: Wheat" in plain and "Dyddiad llwytho: 21 Awst 2026" in plain
    assert f"Mae’r PDF wedi’i atodi: passport-{code}.pdf" in plain
    assert "Mae atebion i’r neges hon yn mynd at grower@example.com." in plain
    assert "Print each PDF" not in plain
    html = mail.body("html")
    assert '<html lang="cy">' in html and "Gwirio ei honiad sicrwydd nawr" in html


def test_the_mail_is_in_english_when_the_sender_leaves_the_english_page_as_it_is(
    grower, mail_server: MailServer
):
    code = made_with_the_form(grower)
    form = grower.get("/passports/send", {"code": code})
    grower.post("/passports/send", {
        "code": code, "key": key_of(form), "recipient": HAULIER,
        "reply_to": "grower@example.com", "note": "", "language": "en-gb",
    })  # fmt: skip
    assert run(Job.objects.get(kind=passport_mail.name)).state == Job.State.DONE
    [mail] = mail_server.wait_for(1)
    assert mail.message["Subject"] == f"Crop passport {code} from Hollowfield Farms Ltd"
    assert '<html lang="en-GB">' in mail.body("html")


def test_a_send_form_posted_from_a_welsh_page_says_what_is_wrong_in_welsh(grower):
    code = made_with_the_form(grower)
    form = grower.get("/cy/passports/send", {"code": code})
    response = grower.post("/cy/passports/send", {
        "code": code, "key": key_of(form), "recipient": "not an address",
        "reply_to": "grower@example.com", "language": "cy",
    })  # fmt: skip
    page = in_welsh(response)
    assert "Ni anfonwyd dim. Gwiriwch yr hyn sydd wedi’i farcio isod." in page
    assert Mailing.objects.count() == 0


def test_a_jobs_title_is_shown_in_the_language_of_the_page_whatever_started_it(grower):
    grower.post("/passports/new", filled(grower, loads="3"))
    job = Job.objects.get(kind=passport_batch.name)
    assert job.title == "3 passports for Hollowfield Farms Ltd"
    english = text(grower.get("/jobs/"))
    welsh = in_welsh(grower.get("/cy/jobs/"))
    assert "3 passports for Hollowfield Farms Ltd" in english
    assert "3 pasbort ar gyfer Hollowfield Farms Ltd" in welsh
    assert "3 passports for" not in welsh
