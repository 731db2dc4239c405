"""A passport's page (`/passports/<short code>/`): for the contacts of its membership only, made
through the portal or elsewhere, against the live sandbox."""

from __future__ import annotations

import logging
import re

import pytest
from django.test import Client

from portal.jobs.models import Job
from portal.passports.tasks import passport_pdf
from tests.portal.accounts.helpers import signed_in, upstream_calls
from tests.portal.passports.helpers import (
    details_of,
    suspended_after_it_was_made,
    table_of,
    text,
)
from tests.portal.passports.made import (
    LEFT_EMPTY,
    made_elsewhere,
    made_here,
)

pytestmark = pytest.mark.django_db

UNKNOWN = "ABCDE-FGHJK"


def grouped(short_code: str) -> str:
    return short_code.replace("-", " ")


def spelt(short_code: str) -> str:
    return ", ".join(" ".join(group) for group in short_code.split("-"))


def test_the_grower_opens_a_passport_the_portal_made_without_asking_the_service(grower):
    short_code = made_here()
    with upstream_calls() as calls:
        response = grower.get(f"/passports/{short_code}/")
    assert response.status_code == 200
    assert not [call for call in calls if call.operation.startswith("passport")]
    page = text(response)
    assert f"Passport {short_code} · Assurance portal" in page  # the title
    assert f"Short code {spelt(short_code)} {grouped(short_code)}" in page
    assert "The claim when the passport was made ✓ Valid" in page
    for words in (
        "Certifier Meridian Farm Certification Ltd",
        "Membership number CCSB-204817",
        "Certified enterprises Combinable crops, Sugar beet",
        "Claim checked on",
        "Business name Hollowfield Farms Ltd",
        "Collection address Hollowfield Farm, Long Lane",
        "Grain store (collection point) Main grain store",
        "Grain store latitude 52.0121",
        "Grain store longitude 0.9834",
        "Crop type Wheat",
        "Variety Extase",
        "Loading date 21 August 2026 Harvest year",  # a calendar day: its time is not written
        "Harvest year 2026",
        "Treatment option B: Treated after harvest: date and product below.",
        "Treatment date 10 August 2026",
        "Product used Actellic Smoke Generator No. 20",
        "DON risk assessment result (score) 14",
        "DON test date 12 August 2026",
        "DON test result 412 ppb",
        "ZON test date 12 August 2026",
        "ZON test result 38 ppb",
    ):
        assert words in page, words
    assert re.search(r"Certificate expiry date \d{1,2} \w+ 20\d\d", page)


def test_its_dates_read_as_the_memberships_page_and_the_list_write_them(grower):
    code = made_here()
    on_its_page = details_of(grower.get(f"/passports/{code}/"))
    expiry = on_its_page["Certificate expiry date"]
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]+ 20\d\d", expiry)
    memberships = text(grower.get("/memberships/"))
    assert f"membership CCSB-204817 Valid certificate expires {expiry}" in memberships
    listed = grower.get("/passports/")
    _, rows = table_of(listed, "passports")
    [row] = [row for row in rows if row["Passport short code"] == code]
    assert row["Loading date"] == on_its_page["Loading date"] == "21 August 2026"


def test_the_sections_come_in_the_passports_order(grower):
    page = text(grower.get(f"/passports/{made_here()}/"))
    headings = ["Business and collection address", "1 Load details", "2 Assurance claim",
                "4 Post-harvest treatment", "5 Mycotoxin risk"]  # fmt: skip
    places = [page.index(heading) for heading in headings]
    assert places == sorted(places)


def test_a_passport_made_elsewhere_opens_for_a_contact_of_its_membership(grower):
    short_code = made_elsewhere()
    with upstream_calls() as calls:
        response = grower.get(f"/passports/{short_code}/")
    assert response.status_code == 200
    assert [call.operation for call in calls if call.operation == "passport"] == ["passport"]
    page = text(response)
    assert grouped(short_code) in page
    assert "Business name Hollowfield Farms Ltd" in page
    assert "Variety Extase" in page


def test_the_empty_optional_load_values_are_listed_to_complete_by_hand(grower):
    page = text(grower.get(f"/passports/{made_here()}/"))
    listed = re.search(r"To complete by hand before collection (.*?) The passport's PDF", page)
    assert listed, page
    assert listed[1] == "Write these in ink on the printed passport before the load is " + (
        "collected: " + " ".join(LEFT_EMPTY)
    )
    for label in LEFT_EMPTY:
        assert f"{label} To complete by hand" in page
    assert "Crop type To complete by hand" not in page


def test_a_passport_with_every_load_value_has_nothing_to_complete_by_hand(grower):
    page = text(grower.get("/passports/7KXM4-QHT2W/"))  # the demo passport, made elsewhere
    assert "To complete by hand before collection" in page  # its trailer and ticket are empty
    assert "Trailer number To complete by hand" in page
    assert "Crop type Wheat" in page


def test_a_code_written_another_way_goes_to_its_canonical_address(grower):
    short_code = made_here()
    for written in (short_code.lower(), short_code.replace("-", "")):
        response = grower.get(f"/passports/{written}/")
        assert response.status_code == 302
        assert response["Location"] == f"/passports/{short_code}/"


@pytest.mark.parametrize("code", [UNKNOWN, "not-a-code", "0O0O0O0O"])
def test_an_unknown_or_malformed_code_is_not_found(grower, code):
    response = grower.get(f"/passports/{code}/")
    assert response.status_code == 404
    assert "Page not found" in text(response)


@pytest.mark.parametrize("username", ["haulier", "lapsed"])
@pytest.mark.parametrize("made", [made_here, made_elsewhere], ids=["here", "elsewhere"])
def test_anyone_not_a_contact_of_its_membership_finds_no_such_page(grower, username, made):
    short_code = made()
    stranger = signed_in(username)
    unknown = stranger.get(f"/passports/{UNKNOWN}/")
    response = stranger.get(f"/passports/{short_code}/")
    assert response.status_code == 404
    assert text(response) == text(unknown)  # just as for a code that does not exist
    assert not Job.objects.filter(kind=passport_pdf.name, owner__username=username).exists()


def test_it_needs_a_sign_in(client: Client, upstream_sandbox):
    response = client.get("/passports/7KXM4-QHT2W/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/sign-in/")


def test_a_passport_made_elsewhere_whose_claim_is_not_valid_now_shows_that_alone(
    grower, upstream_sandbox
):
    with suspended_after_it_was_made(upstream_sandbox) as short_code:
        response = grower.get(f"/passports/{short_code}/")
    assert response.status_code == 200
    page = text(response)
    assert f"Passport {short_code}" in page
    assert "✗ Not valid" in page
    assert "The assurance claim is not valid now." in page
    assert "Barley" not in page
    assert not Job.objects.filter(kind=passport_pdf.name).exists()


def test_opening_the_page_starts_nothing_and_asking_for_the_pdf_prepares_it(grower):
    short_code = made_here()
    page = grower.get(f"/passports/{short_code}/")
    assert "Get the PDF" in text(page)
    assert not Job.objects.filter(kind=passport_pdf.name).exists()  # a GET changes nothing
    asked = grower.post(f"/passports/{short_code}/pdf")
    assert (asked.status_code, asked["Location"]) == (302, f"/passports/{short_code}/")
    response = grower.get(f"/passports/{short_code}/")
    assert "The PDF is being prepared." in text(response)
    job = Job.objects.get(kind=passport_pdf.name)
    assert job.title == f"PDF of passport {short_code}"
    assert job.params == {"short_code": short_code}
    html = response.content.decode()
    assert f'hx-get="/passports/{short_code}/pdf/state?shown=queued.0.0.0"' in html
    # Without JavaScript, the page refreshes itself until the PDF is ready.
    assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in html
    grower.post(f"/passports/{short_code}/pdf")
    assert Job.objects.filter(kind=passport_pdf.name).count() == 1  # one job, however asked


def test_the_page_links_its_stylesheet_and_a_description(grower):
    html = grower.get(f"/passports/{made_here()}/").content.decode()
    assert '<link rel="stylesheet" href="/static/css/passport.css">' in html
    assert '<meta name="description" content="Crop passport' in html


def test_its_short_code_stays_out_of_the_request_log(grower, caplog):
    short_code = made_here()
    stranger = signed_in("haulier")
    with caplog.at_level(logging.WARNING, logger="django.request"):
        stranger.get(f"/passports/{short_code}/")
    assert f"Not Found: /passports/{short_code[:3]}…" in caplog.text
    assert short_code not in caplog.text
