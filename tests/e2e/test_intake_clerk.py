"""An intake clerk's day in Chromium, on a 360-pixel phone, with JavaScript and without: the
clerk signs in, checks a lorry's passport at the gate check, records its load from the
table in one click with a claim on specific weight, sees the load's page, then corrects it
with a reason and reads both in its history; the site's loads, each a card; a passport's QR
code scanned to look it up (the camera and QR reader stood in for, as the gate check's test
does). axe-core on each page (with JavaScript: it runs in the page)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from portal.accounts.session import portal_user
from tests.e2e.conftest import (
    CAMERA_AND_QR_READER,
    PHONE,
    assert_accessible,
    no_sideways_scroll,
    sign_in,
)
from tests.portal.intake.builders import a_clerk, a_site
from tests.portal.passports.helpers import signed_address
from tests.portal.passports.made import made_here

pytestmark = pytest.mark.browser

CLERK = ("haulier", "haulier-demo-pass")  # a demo account with no membership, made a clerk


def checked_at_the_gate(page: Page, portal_url: str, code: str) -> None:
    page.goto(f"{portal_url}/p/check")
    page.get_by_label("Short codes").fill(code)
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Loads checked")


def fills_in_the_load(page: Page) -> None:
    page.get_by_label("Ticket number").fill("T-3001")
    page.get_by_label("Vehicle registration").fill("ae24 ktv")
    page.get_by_label("Gross weight (kg)").fill("44120")
    page.get_by_label("Tare weight (kg)").fill("15020")
    page.get_by_label("Moisture (%)").fill("14.2")
    page.get_by_label("Specific weight (kg/hl)").fill("72.5")
    page.get_by_label("Accepted with a claim").check()
    page.get_by_label("Specific weight below specification").check()
    page.get_by_label("Claim 1: on").select_option(label="Specific weight")
    page.get_by_label("Claim 1: £ a tonne").fill("2.50")


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_a_clerk_records_a_load_from_the_intake_check_and_corrects_it(
    watched_context: Callable[..., BrowserContext], portal_url: str, javascript: bool
):
    portal_user("grower")  # who made the passport
    code = made_here()
    a_clerk("haulier", a_site())
    page = watched_context(**PHONE, java_script_enabled=javascript).new_page()
    sign_in(page, portal_url, *CLERK)
    checked = (lambda: assert_accessible(page)) if javascript else (lambda: None)

    checked_at_the_gate(page, portal_url, code)
    page.get_by_role("link", name=f"Record a load of {code}").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Record a load")
    passport = page.get_by_role("region", name=f"Passport {code}")
    expect(passport).to_contain_text("✓ Valid now")
    expect(passport).to_contain_text("Hollowfield Farms Ltd")
    no_sideways_scroll(page)
    checked()

    expect(page.get_by_label("Specific weight (kg/hl)")).to_have_accessible_description(
        "The site's specification: 76 kg/hl or more."
    )
    expect(page.get_by_text("Claim 1: on", exact=True)).to_be_visible()  # no colon after it
    fills_in_the_load(page)
    if javascript:  # said as the clerk types
        weight = page.locator(".field", has=page.get_by_label("Specific weight (kg/hl)"))
        expect(weight.locator(".spec-mark")).to_have_text("✗ Out of the site's specification.")
        page.get_by_label("Specific weight (kg/hl)").fill("76.5")
        expect(weight.locator(".spec-mark")).to_have_text("✓ Within the site's specification.")
        page.get_by_label("Specific weight (kg/hl)").fill("72.5")
    page.get_by_label("Tare weight (kg)").fill("50000")  # above the gross: refused
    page.get_by_role("button", name="Record the load").click()
    expect(page.get_by_role("alert")).to_contain_text("Nothing was recorded.")
    tare = page.get_by_label("Tare weight (kg)")
    expect(tare).to_have_attribute("aria-invalid", "true")
    expect(tare).to_have_accessible_description(
        "The tare weight is the empty vehicle's: it is below the gross weight."
    )
    expect(page.get_by_role("alert").get_by_role("listitem")).to_have_count(1)  # the tare only
    no_sideways_scroll(page)
    checked()
    tare.fill("15020")
    page.get_by_role("button", name="Record the load").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Ticket T-3001")
    expect(page.get_by_role("status")).to_contain_text("Recorded: ticket T-3001")
    claims = page.get_by_role("table", name="Claims")
    expect(claims).to_contain_text("£2.50 a tonne")
    expect(claims).to_contain_text("£72.75")
    expect(page.get_by_role("region", name=f"Passport {code}")).to_contain_text("✓ Valid")
    no_sideways_scroll(page)
    checked()

    page.get_by_role("link", name="Correct the record").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Correct ticket T-3001")
    expect(page.get_by_label("Tare weight (kg)")).to_have_value("15020")
    expect(page.get_by_label("Claim 1: tonnes")).to_have_value("")  # left blank: the net's
    page.get_by_label("Tare weight (kg)").fill("14020")
    page.get_by_label("Accepted", exact=True).check()
    page.get_by_label("Specific weight below specification").uncheck()
    page.get_by_label("Claim 1: on").select_option(label="—")
    page.get_by_label("Claim 1: £ a tonne").fill("")
    page.get_by_label("Claim 1: tonnes").fill("")
    page.get_by_label("Why the record is corrected").fill("Tare of the wrong lorry")
    no_sideways_scroll(page)
    checked()
    page.get_by_role("button", name="Correct the record").click()
    # accepted with specific weight out of specification: a warning to confirm, not a refusal
    confirm = page.get_by_label("Accepted all the same")
    expect(confirm).to_have_accessible_description(
        re.compile(
            r"Out of the site's specification: Specific weight 72\.5 kg/hl \(76 kg/hl or more\)"
        )
    )
    expect(page.get_by_label("Why the record is corrected")).to_have_value(
        "Tare of the wrong lorry"
    )
    no_sideways_scroll(page)
    checked()
    confirm.check()
    page.get_by_role("button", name="Correct the record").click()

    expect(page.get_by_role("status")).to_contain_text("Corrected: ticket T-3001.")
    history = page.get_by_role("region", name="History")
    expect(history.get_by_role("listitem").first).to_contain_text("Recorded by haulier")
    expect(history).to_contain_text("Corrected by haulier")
    expect(history).to_contain_text("Tare of the wrong lorry")
    expect(history).to_contain_text("Tare weight (kg): from 15,020 → to 14,020")
    expect(page.get_by_role("table", name="Claims")).to_have_count(0)
    no_sideways_scroll(page)
    checked()

    page.goto(f"{portal_url}/intake/")  # the header's Intake link, behind the phone's Menu
    today = page.get_by_role("table", name="Loads recorded today, newest first")
    expect(today).to_contain_text("T-3001")
    expect(today).to_contain_text("Corrected")
    card = today.locator("tbody tr").first
    assert card.evaluate("row => getComputedStyle(row).display") == "block"  # a card
    no_sideways_scroll(page)
    checked()


def test_a_clerk_records_a_load_in_welsh(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    """The same day in Welsh (/cy/): the site's page, the code looked up, the record form with
    its specification said as the clerk types, a refused value said beside its field, and the
    load's page; each page in Welsh, at 360 px, and accessible."""
    portal_user("grower")
    code = made_here()
    a_clerk("haulier", a_site())
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, *CLERK)

    def welsh_and_accessible() -> None:
        expect(page.locator("html")).to_have_attribute("lang", "cy")
        no_sideways_scroll(page)
        assert_accessible(page)

    page.goto(f"{portal_url}/cy/intake/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Stour Valley Grain, Sudbury")
    expect(page.get_by_role("heading", name="Cofnodi llwyth")).to_be_visible()
    welsh_and_accessible()
    page.get_by_label("Cod byr").fill(code)
    page.get_by_role("button", name="Chwilio", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Cofnodi llwyth")
    expect(page.get_by_role("region", name=f"Pasbort {code}")).to_contain_text("✓ Dilys nawr")
    welsh_and_accessible()

    page.get_by_label("Rhif y tocyn").fill("T-3001")
    page.get_by_label("Rhif cofrestru’r cerbyd").fill("ae24 ktv")
    page.get_by_label("Pwysau gros (kg)").fill("44120")
    page.get_by_label("Pwysau tare (kg)").fill("50000")  # above the gross: refused
    page.get_by_label("Lleithder (%)").fill("14.2")
    weight = page.get_by_label("Pwysau penodol (kg/hl)")
    expect(weight).to_have_accessible_description("Manyleb y safle: 76 kg/hl neu fwy.")
    weight.fill("72.5")
    mark = page.locator(".field", has=weight).locator(".spec-mark")
    expect(mark).to_have_text("✗ Y tu allan i fanyleb y safle.")
    page.get_by_label("Derbyniwyd gyda hawliad").check()
    page.get_by_label("Pwysau penodol islaw’r fanyleb").check()
    page.get_by_label("Hawliad 1: ar").select_option(label="Pwysau penodol")
    page.get_by_label("Hawliad 1: £ y dunnell").fill("2.50")
    page.get_by_role("button", name="Cofnodi’r llwyth").click()
    expect(page.get_by_role("alert")).to_contain_text("Ni chofnodwyd dim.")
    tare = page.get_by_label("Pwysau tare (kg)")
    expect(tare).to_have_attribute("aria-invalid", "true")
    expect(tare).to_have_accessible_description(
        "Pwysau’r cerbyd gwag yw’r pwysau tare: mae’n is na’r pwysau gros."
    )
    expect(page.get_by_role("alert").get_by_role("listitem")).to_have_count(1)  # the tare only
    welsh_and_accessible()
    tare.fill("15020")
    page.get_by_role("button", name="Cofnodi’r llwyth").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Tocyn T-3001")
    expect(page.get_by_role("status")).to_contain_text("Wedi’i gofnodi: tocyn T-3001")
    expect(page.get_by_role("table", name="Hawliadau")).to_contain_text("£2.50 y dunnell")
    expect(page.get_by_role("region", name="Hanes")).to_contain_text("Cofnodwyd gan haulier")
    welsh_and_accessible()


def test_scanning_a_passports_qr_code_looks_it_up(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    portal_user("grower")
    code = made_here()
    a_clerk("haulier", a_site())
    context = watched_context(**PHONE)
    context.add_init_script(CAMERA_AND_QR_READER)
    page = context.new_page()
    sign_in(page, portal_url, *CLERK)
    page.goto(f"{portal_url}/intake/")
    page.get_by_role("button", name="Scan the QR code").click()
    expect(page.get_by_role("button", name="Stop scanning")).to_be_visible()
    assert_accessible(page)
    page.evaluate("codes => window.__qrCodes.push(...codes)",
                  ["https://example.org/menu", signed_address(code)])  # fmt: skip
    expect(page.get_by_role("heading", level=1)).to_have_text("Record a load")
    expect(page.get_by_role("region", name=f"Passport {code}")).to_contain_text("✓ Valid now")


def test_the_grower_sees_the_load_queries_it_and_reads_the_correction(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    """The whole round, two phones: the demo clerk `intake` records a load from the intake
    check; the grower sees it on the passport's page and queries it; the clerk corrects it
    with a reason; the grower reads the whole history."""
    portal_user("grower")
    code = made_here()
    a_clerk("intake", a_site())
    clerk = watched_context(**PHONE).new_page()
    sign_in(clerk, portal_url, "intake", "intake-demo-pass")
    checked_at_the_gate(clerk, portal_url, code)
    clerk.get_by_role("link", name=f"Record a load of {code}").click()
    fills_in_the_load(clerk)
    clerk.get_by_role("button", name="Record the load").click()
    expect(clerk.get_by_role("status")).to_contain_text("Recorded: ticket T-3001")
    load_page = clerk.url

    grower = watched_context(**PHONE).new_page()
    sign_in(grower, portal_url, "grower", "grower-demo-pass")
    grower.goto(f"{portal_url}/passports/{code}/")
    at_intake = grower.get_by_role("region", name="At intake")
    expect(at_intake).to_contain_text("Accepted with a claim")
    expect(at_intake).to_contain_text("29,100 kg")
    expect(at_intake.get_by_role("table", name="Claims")).to_contain_text("£72.75")
    assert_accessible(grower)
    at_intake.get_by_text("Query this result", exact=True).click()
    grower.get_by_label("Why you query this result").fill("Our own sample weighed 76.4 kg/hl.")
    grower.get_by_role("button", name="Send the query").click()
    expect(at_intake).to_contain_text("Query open")
    no_sideways_scroll(grower)
    assert_accessible(grower)

    clerk.goto(load_page)
    expect(clerk.get_by_role("heading", name="Query open")).to_be_visible()
    expect(clerk.locator("blockquote")).to_have_text("Our own sample weighed 76.4 kg/hl.")
    assert_accessible(clerk)
    clerk.get_by_role("link", name="Correct the record").first.click()
    clerk.get_by_label("Specific weight (kg/hl)").fill("76.4")
    clerk.get_by_label("Accepted", exact=True).check()
    clerk.get_by_label("Specific weight below specification").uncheck()
    clerk.get_by_label("Claim 1: on").select_option(label="—")
    clerk.get_by_label("Claim 1: £ a tonne").fill("")
    clerk.get_by_label("Claim 1: tonnes").fill("")
    clerk.get_by_label("Why the record is corrected").fill("Retested the kept sample: 76.4")
    clerk.get_by_role("button", name="Correct the record").click()
    expect(clerk.get_by_role("status")).to_contain_text("Corrected: ticket T-3001.")
    expect(clerk.get_by_role("heading", name="Query open")).to_have_count(0)

    grower.reload()
    at_intake = grower.get_by_role("region", name="At intake")
    expect(at_intake.locator(".decision")).to_contain_text("Accepted")
    expect(at_intake.get_by_role("table", name="Claims")).to_have_count(0)
    history = at_intake.locator(".intake-history > li")
    expect(history).to_have_count(3)
    expect(history.nth(0)).to_contain_text("Recorded by intake")
    expect(history.nth(1)).to_contain_text("Queried by grower")
    expect(history.nth(2)).to_contain_text("Corrected by intake")
    expect(history.nth(2)).to_contain_text("Retested the kept sample: 76.4")
    expect(history.nth(2)).to_contain_text("Specific weight (kg/hl): from 72.5 → to 76.4")
    expect(history.nth(2)).to_contain_text("Decision: from Accepted with a claim → to Accepted")
    expect(at_intake).not_to_contain_text("Query open")
    no_sideways_scroll(grower)
    assert_accessible(grower)
