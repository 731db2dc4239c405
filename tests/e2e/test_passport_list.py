"""The business's passports in Chromium: the grower makes a batch of five from the create form,
watches it made, prints them as one PDF (read back with pypdf: every code, in order), finds them
in the list beside partner's, filters and pages it in place (and without JavaScript, and on a
360-pixel phone), and exports them as a ZIP opened and checked: every PDF, both manifests.
axe-core on every page and state.

Jobs run in a thread of this process, as a worker would run them (tests/portal/passports/
test_on_a_worker.py runs them on a real worker)."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pypdf
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from portal.passports.codes import normalise
from portal.passports.models import Passport
from tests.demo import HOLLOWFIELD
from tests.e2e.conftest import GROWER, PHONE, assert_accessible, no_sideways_scroll, sign_in
from tests.portal.accounts.helpers import signed_in
from tests.portal.intake.builders import a_load, a_site
from tests.portal.passports.helpers import as_sent
from tests.portal.passports.made import made_here, made_with_the_form

pytestmark = pytest.mark.browser

CODE = re.compile(r"^[0-9A-Z]{4,6}-[0-9A-Z]{4,6}$")


def a_batch_of_five(page: Page, portal_url: str, loads: int = 5) -> list[str]:
    """Five loads (or `loads`) made with the create form; their codes as the batch's page
    lists them."""
    page.goto(f"{portal_url}/passports/new")
    page.get_by_role("radio", name=re.compile(r"^\s*Hollowfield Farms Ltd\b")).check()
    page.get_by_role("radio", name=re.compile(r"^\s*Hollowfield Farm\b")).check()
    page.get_by_label("Crop type").fill("Barley")
    page.get_by_label("How many loads").fill(str(loads))
    page.get_by_role("button", name="Create passport").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        f"{loads} passports for Hollowfield Farms Ltd"
    )
    made = page.get_by_role("heading", name=f"The {loads} passports made")
    expect(made).to_be_visible(timeout=30_000)
    codes = page.locator(".batch-codes a").all_inner_texts()
    assert len(codes) == loads and all(CODE.match(code) for code in codes)
    return codes


def downloaded(page: Page, link_name: str) -> bytes:
    with page.expect_download() as download:
        page.get_by_role("link", name=re.compile(link_name)).click()
    return Path(download.value.path()).read_bytes()


def test_a_batch_of_five_is_made_and_printed_as_one_pdf(
    signed_in_page: Page, portal_url: str, worker
):
    page = signed_in_page
    codes = a_batch_of_five(page, portal_url)
    assert_accessible(page)
    batch = page.url
    page.get_by_role("button", name="One PDF of all 5, to print").click()
    expect(page.get_by_role("link", name=re.compile(r"Download passports-.*\.pdf"))).to_be_visible(
        timeout=30_000
    )
    assert_accessible(page)
    reader = pypdf.PdfReader(io.BytesIO(downloaded(page, r"Download passports-.*\.pdf")))
    assert len(reader.pages) == 5
    printed = [next(c for c in codes if c in p.extract_text()) for p in reader.pages]
    assert printed == codes  # every code, in the batch's order
    page.goto(batch)
    page.locator(".batch-codes a").first.click()
    expect(page).to_have_title(f"Passport {codes[0]} · Assurance portal")


def test_the_list_shows_the_business_passports_and_filters_in_place(
    signed_in_page: Page, portal_url: str, worker, watched_context: Callable[..., BrowserContext]
):
    page = signed_in_page
    made_with_the_form(signed_in("partner"), crop_type="Oats")
    codes = a_batch_of_five(page, portal_url)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Passports").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your business's passports")
    expect(page.locator(".count")).to_have_text("1–6 of 6 passports")
    expect(page.get_by_text("Made by partner")).to_be_visible()
    assert_accessible(page)

    page.evaluate("() => { window.__samePage = 'still here'; }")
    page.get_by_label("Crop type").select_option("Barley")
    expect(page.locator(".count")).to_have_text("1–5 of 5 passports that match")
    expect(page).to_have_url(re.compile(r"/passports/\?crop=Barley$"))
    page.get_by_label("Short code").fill(codes[2].split("-")[1].lower())
    expect(page.locator(".count")).to_have_text("1–1 of 1 passport that match")
    assert page.evaluate("() => window.__samePage") == "still here", "the page was reloaded"
    assert_accessible(page)
    page.get_by_role("link", name=codes[2]).click()
    expect(page).to_have_title(f"Passport {codes[2]} · Assurance portal")

    page.go_back()  # the filtered address is the list's own: kept in the history
    expect(page.locator(".count")).to_have_text("1–1 of 1 passport that match")


def test_pages_of_fifty_with_and_without_javascript_and_on_a_phone(
    watched_context: Callable[..., BrowserContext], portal_url: str, worker
):
    page = watched_context().new_page()
    sign_in(page, portal_url, *GROWER)
    a_batch_of_five(page, portal_url, loads=50)
    a_batch_of_five(page, portal_url)  # 55 passports
    page.goto(f"{portal_url}/passports/")
    expect(page.locator(".count")).to_have_text("1–50 of 55 passports")
    page.get_by_role("link", name="Next").click()
    expect(page.locator(".count")).to_have_text("51–55 of 55 passports")
    expect(page).to_have_url(re.compile(r"/passports/\?page=2$"))
    assert_accessible(page)

    plain = watched_context(java_script_enabled=False).new_page()
    sign_in(plain, portal_url, *GROWER, next_path="/passports/?page=2")
    expect(plain.locator(".count")).to_have_text("51–55 of 55 passports")
    plain.get_by_label("Harvest year").select_option("2026")
    plain.get_by_role("button", name="Show these").click()
    expect(plain.locator(".count")).to_have_text("1–50 of 55 passports that match")
    expect(plain).to_have_url(re.compile(r"year=2026"))

    phone = watched_context(**PHONE).new_page()
    sign_in(phone, portal_url, *GROWER, next_path="/passports/")
    expect(phone.locator(".count")).to_have_text("1–50 of 55 passports")
    no_sideways_scroll(phone)
    assert_accessible(phone)


def test_the_ticked_passports_are_exported_as_a_zip_that_opens(
    signed_in_page: Page, portal_url: str, worker
):
    page = signed_in_page
    codes = a_batch_of_five(page, portal_url)
    page.goto(f"{portal_url}/passports/")
    for code in codes[:3]:
        page.get_by_role("checkbox", name=f"Tick passport {code}").check()
    page.get_by_role("button", name="Export ticked as ZIP").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("3 passports as a ZIP")
    link = r"Download passports-.*\.zip"
    expect(page.get_by_role("link", name=re.compile(link))).to_be_visible(timeout=30_000)
    assert_accessible(page)
    archive = zipfile.ZipFile(io.BytesIO(downloaded(page, link)))
    names = sorted(archive.namelist())
    assert names == sorted([f"{code}.pdf" for code in codes[:3]] + ["passports.csv",
                                                                     "passports.xlsx"])  # fmt: skip
    for code in codes[:3]:
        pdf = pypdf.PdfReader(io.BytesIO(archive.read(f"{code}.pdf")))
        assert code in pdf.pages[0].extract_text()
    rows = list(csv.DictReader(io.StringIO(archive.read("passports.csv").decode("utf-8-sig"))))
    # The records as the service gave them: their codes as it writes them, without the hyphen.
    assert sorted(normalise(row["ShortCode"]) for row in rows) == sorted(codes[:3])
    for row in rows:
        sent = as_sent(Passport.objects.get(short_code=normalise(row["ShortCode"])).record)
        assert {name: row[name] for name in sent} == sent
        assert row["MembershipGUID"] == HOLLOWFIELD and row["CropType"] == "Barley"
    sheet = openpyxl.load_workbook(io.BytesIO(archive.read("passports.xlsx"))).active
    header, *cells = list(sheet.iter_rows(values_only=True))
    found = sorted(normalise(row[header.index("ShortCode")]) for row in cells)
    assert found == sorted(codes[:3])
    assert all(row[header.index("LoadingDate")].year >= 2026 for row in cells)  # dates


def test_on_a_phone_each_card_says_its_result_at_intake_and_the_decision_filters_in_place(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, *GROWER)
    claimed = a_load(a_site()).passport.short_code
    waiting = made_here()
    page.goto(f"{portal_url}/passports/")
    card = page.locator("table.passports tbody tr", has_text=claimed)
    expect(card.locator('td[data-label="Net tonnes"]')).to_have_text("29.100")
    expect(card.locator('td[data-label="Intake decision"]')).to_have_text("Accepted with a claim")
    before = card.locator('td[data-label="Net tonnes"]').evaluate(
        "cell => getComputedStyle(cell, '::before').content"
    )
    assert before == '"Net tonnes: "'  # the card names each value
    other = page.locator("table.passports tbody tr", has_text=waiting)
    expect(other.locator('td[data-label="Net tonnes"]')).to_be_hidden()  # left out, empty
    no_sideways_scroll(page)
    assert_accessible(page)

    page.get_by_label("Intake decision").select_option(label="No result yet")
    expect(page.locator(".count")).to_have_text("1–1 of 1 passport that match")
    expect(page).to_have_url(re.compile(r"/passports/\?decision=none$"))
    expect(page.get_by_role("link", name=waiting)).to_be_visible()
    page.get_by_label("Intake decision").select_option(label="Accepted with a claim")
    expect(page.get_by_role("link", name=claimed)).to_be_visible()
    expect(page.locator(".count")).to_have_text("1–1 of 1 passport that match")
    no_sideways_scroll(page)
    assert_accessible(page)
