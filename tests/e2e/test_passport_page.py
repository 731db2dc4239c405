"""A passport's page in Chromium: the grower opens it, its PDF becomes a download without a
reload, its QR code (read back with zxing-cpp) takes a phone to the passport's signed copy,
it prints whole without the portal's navigation, it fits a 360-pixel screen, and on a phone it
says what intake recorded of the load; axe-core on each state, and Lighthouse at least 95 in
every category.

The PDF's job runs in this process, as the worker would run it (tests/portal/jobs/test_worker.py
runs jobs on a real worker)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pypdf
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from portal.passports.tasks import passport_pdf
from tests.e2e.conftest import (
    GROWER,
    PHONE,
    assert_accessible,
    lighthouse,
    no_sideways_scroll,
    qr_code_read,
    sign_in,
)
from tests.jobs import run_in_the_background, run_queued
from tests.portal.intake.builders import a_load, a_site
from tests.portal.passports.made import made_elsewhere

pytestmark = pytest.mark.browser


def opens_the_passport(page: Page, portal_url: str, short_code: str) -> None:
    page.goto(f"{portal_url}/passports/{short_code}/")
    expect(page).to_have_title(f"Passport {short_code} · Assurance portal")
    expect(page.get_by_role("heading", level=1)).to_have_text("Crop passport")


def test_the_grower_opens_a_passport_and_its_pdf_becomes_a_download(
    signed_in_page: Page, portal_url: str
):
    page = signed_in_page
    short_code = made_elsewhere()
    opens_the_passport(page, portal_url, short_code)
    expect(page.locator(".short-code")).to_contain_text(short_code.replace("-", " "))
    expect(page.locator(".claim")).to_contain_text("✓ Valid")
    assert_accessible(page)
    page.evaluate("() => { window.__samePage = 'still here'; }")
    page.get_by_role("button", name="Get the PDF").click()
    expect(page.locator("#passport-pdf")).to_have_text(
        "The PDF is being prepared. It can be downloaded here as soon as it is ready."
    )
    assert_accessible(page)

    run_in_the_background(passport_pdf.name).join()
    link = page.get_by_role("link", name="Download the PDF")
    expect(link).to_be_visible()
    assert page.evaluate("() => window.__samePage") == "still here", "the page was reloaded"
    assert_accessible(page)
    with page.expect_download() as downloaded:
        link.click()
    assert downloaded.value.suggested_filename == f"passport-{short_code}.pdf"
    content = Path(downloaded.value.path()).read_bytes()
    assert content.startswith(b"%PDF")
    text = " ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(content)).pages)
    assert short_code in text


def test_its_qr_code_takes_a_phone_to_the_passports_signed_copy_and_the_claim_now(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, *GROWER)
    short_code = made_elsewhere()
    opens_the_passport(page, portal_url, short_code)
    no_sideways_scroll(page)
    assert_accessible(page)

    address = f"{portal_url}/p/{short_code}"
    qr = page.locator("figure.qr svg")
    expect(qr).to_have_accessible_name(
        "QR code of the passport's signed copy, which a phone's camera checks"
    )
    expect(page.locator("figure.qr figcaption")).to_contain_text(address)
    signed = qr_code_read(qr)
    assert signed.startswith(f"{portal_url.upper()}/V/")

    phone = watched_context(**PHONE).new_page()  # no sign-in: a haulier's phone
    phone.goto(signed)
    expect(phone).to_have_title(f"Genuine: {short_code} · Assurance portal")
    expect(phone.get_by_role("region", name="The claim now")).to_contain_text(
        "The assurance claim is valid now."
    )
    no_sideways_scroll(phone)


def test_it_prints_whole_without_the_portals_navigation(signed_in_page: Page, portal_url: str):
    page = signed_in_page
    short_code = made_elsewhere()
    opens_the_passport(page, portal_url, short_code)
    page.emulate_media(media="print")
    for hidden in (".site-header", ".site-nav", ".site-footer", "#passport-pdf", "button"):
        for element in page.locator(hidden).all():
            expect(element).to_be_hidden()
    for shown in (".short-code", "figure.qr svg", ".look-up-address", ".claim", ".by-hand"):
        expect(page.locator(shown)).to_be_visible()
    expect(page.locator(".passport-part")).to_have_count(5)
    for part in page.locator(".passport-part").all():
        expect(part).to_be_visible()


def test_without_javascript_the_page_refreshes_until_the_pdf_is_ready(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = watched_context(java_script_enabled=False).new_page()
    short_code = made_elsewhere()
    sign_in(page, portal_url, *GROWER, next_path=f"/passports/{short_code}/")
    page.get_by_role("button", name="Get the PDF").click()
    expect(page.get_by_text("The PDF is being prepared.")).to_be_visible()
    run_queued(passport_pdf.name)
    expect(page.get_by_role("link", name="Download the PDF")).to_be_visible(timeout=10_000)


def test_lighthouse_scores_the_passports_page_at_least_95(
    signed_in_page: Page, portal_url: str, tmp_path: Path
):
    short_code = made_elsewhere()
    opens_the_passport(signed_in_page, portal_url, short_code)
    signed_in_page.get_by_role("button", name="Get the PDF").click()
    expect(signed_in_page.get_by_text("The PDF is being prepared.")).to_be_visible()
    run_queued(passport_pdf.name)  # nothing left to poll for
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in signed_in_page.context.cookies())
    headers = json.dumps({"Cookie": cookies})
    url = f"{portal_url}/passports/{short_code}/"
    scores = lighthouse(url, tmp_path, f"--extra-headers={headers}")
    report = json.loads((tmp_path / "lighthouse.json").read_text())
    assert report["finalDisplayedUrl"] == url  # signed in, not sent to the sign-in page
    assert all(score >= 95 for score in scores.values()), scores


def test_on_a_phone_the_grower_reads_what_intake_recorded_of_the_load(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, *GROWER)
    load = a_load(a_site())  # of a passport the grower made
    opens_the_passport(page, portal_url, load.passport.short_code)
    section = page.get_by_role("region", name="At intake")
    expect(section).to_contain_text("Stour Valley Grain, Sudbury, ticket T-1001")
    expect(section).to_contain_text("Accepted with a claim")
    expect(section.get_by_role("table", name="Claims")).to_contain_text("£72.75")
    no_sideways_scroll(page)
    assert_accessible(page)
