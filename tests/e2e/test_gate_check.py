"""A day's loads checked at intake in Chromium, as a buyer's intake office does it: from the
look-up, a list of valid, suspended, unknown and malformed codes pasted in; the table of
verdicts, downloaded as CSV and read back, and printed; on a 360-pixel phone, with and without
JavaScript, each code a card; codes added by scanning QR codes where the browser can (its
camera and QR reader stood in for here). axe-core on each page and state."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from portal.passports.gate_check import HEADINGS
from tests.e2e.conftest import CAMERA_AND_QR_READER, PHONE, assert_accessible, no_sideways_scroll
from tests.portal.passports.helpers import signed_address, suspended_after_it_was_made

pytestmark = pytest.mark.browser

DEMO = "7KXM4-QHT2W"
UNKNOWN = "ABCDE-FGHJK"


def table(page: Page) -> list[list[str]]:
    """The table's rows, each cell's words."""
    return [
        [" ".join(cell.split()) for cell in row.locator("th, td").all_inner_texts()]
        for row in page.locator(".checked-table tbody tr").all()
    ]


def each_code_a_card(page: Page) -> None:
    """On a phone, each code of the table is a card: its cells one under another, each within
    the screen's width (nothing hidden sideways in the table's frame), every field of the
    passport with its column's name before it."""
    assert page.locator(".table-scroll").evaluate("frame => frame.scrollWidth <= frame.clientWidth")
    for row in page.locator(".checked-table tbody tr").all():
        cells = [cell.bounding_box() for cell in row.locator("th, td").all() if cell.is_visible()]
        assert all(box["x"] >= 0 and box["x"] + box["width"] <= 360 for box in cells), cells
        tops = [box["y"] for box in cells]
        assert tops == sorted(set(tops)), cells  # one under another
    fields = page.locator(".checked-table tbody tr").first.locator("td[data-label]")
    named = fields.evaluate_all("all => all.map((td) => getComputedStyle(td, '::before').content)")
    assert named == [f'"{heading}: "' for heading in HEADINGS[3:]]


def pastes_and_checks(page: Page, portal_url: str, typed: str) -> None:
    page.goto(f"{portal_url}/p/")
    page.get_by_role("link", name="Check many passports at once").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check a day's loads")
    page.get_by_label("Short codes").fill(typed)
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Loads checked")


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_an_intake_office_checks_a_mix_of_codes_on_a_phone(
    watched_context: Callable[..., BrowserContext], portal_url: str, upstream_sandbox,
    javascript: bool,
):  # fmt: skip
    page = watched_context(**PHONE, java_script_enabled=javascript).new_page()
    with suspended_after_it_was_made(upstream_sandbox) as suspended:
        page.goto(f"{portal_url}/p/check")
        no_sideways_scroll(page)
        if javascript:
            assert_accessible(page)
        typed = f"{DEMO.lower()}\n{suspended}, {UNKNOWN}\nnot-a-code\n{DEMO}"
        pastes_and_checks(page, portal_url, typed)

    rows = table(page)
    assert [row[:2] for row in rows] == [
        [DEMO, "✓ Valid"], [suspended, "✗ Not valid"], [UNKNOWN, "? No passport"],
        ["not-a-code", "? Not a short code"],
    ]  # fmt: skip
    assert rows[0][2] == "Listed twice."
    business, crop, variety, loaded, haulier, vehicle, address = rows[0][3:10]
    assert (business, crop, variety) == ("Hollowfield Farms Ltd", "Wheat", "Extase")
    assert re.fullmatch(r"\d\d? \w+ \d{4}(, \d\d:\d\d)?", loaded)
    assert (haulier, vehicle) == ("Stour Valley Haulage", "AE24 KTV")
    assert address.startswith("Hollowfield Farm, Long Lane")
    assert re.fullmatch(r"\d\d:\d\d:\d\d", rows[0][10])
    tally = "Valid: 1 · Not valid: 1 · No passport: 1 · Not a short code: 1"
    expect(page.get_by_text(tally)).to_be_visible()
    no_sideways_scroll(page)
    each_code_a_card(page)
    expect(page.get_by_role("button", name="Print the table")).to_be_visible(visible=javascript)
    expect(page.get_by_role("button", name="Scan QR codes")).to_be_hidden()
    if javascript:
        assert_accessible(page)


def test_the_table_downloads_as_csv_and_prints(
    watched_context: Callable[..., BrowserContext], portal_url: str, tmp_path: Path
):
    page = watched_context().new_page()
    pastes_and_checks(page, portal_url, f"{DEMO} {UNKNOWN} =cmd|' /C calc'!A0")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the table as CSV").click()
    assert re.fullmatch(r"passports-checked-\d{4}-\d\d-\d\d-\d{4}\.csv",
                        download.value.suggested_filename)  # fmt: skip
    body = Path(download.value.path()).read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(body)))
    assert tuple(rows[0]) == HEADINGS
    assert [row[:2] for row in rows[1:]] == [
        [DEMO, "Valid"], [UNKNOWN, "No passport"], ["'=cmd|'", "Not a short code"],
        ["/C", "Not a short code"], ["calc'!A0", "Not a short code"],
    ]  # fmt: skip
    assert rows[1][3] == "Hollowfield Farms Ltd"

    page.emulate_media(media="print")
    expect(page.locator(".checked-table")).to_be_visible()
    for hidden in ("form.intake", "header", ".actions"):
        expect(page.locator(hidden)).to_be_hidden()
    assert page.pdf()[:4] == b"%PDF"  # Chromium prints it


def test_a_list_too_long_and_an_allowance_used_up_are_said(
    watched_context: Callable[..., BrowserContext], portal_url: str, settings
):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 2
    page = watched_context(**PHONE).new_page()
    page.goto(f"{portal_url}/p/check")
    expect(page.get_by_text("This connection can check 2 passports a minute")).to_be_visible()
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.get_by_text("Enter the short codes to check, one a line.")).to_be_visible()
    expect(page.get_by_label("Short codes")).to_have_attribute("aria-invalid", "true")
    assert_accessible(page)

    page.get_by_label("Short codes").fill(" ".join(f"ABCDEFGH{a}{b}" for a in "2345678"
                                                   for b in "23456789"))  # fmt: skip
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.get_by_text("That is 56 codes: at most 50 can be checked at once.")).to_be_visible()

    page.get_by_label("Short codes").fill(f"{DEMO}\n{UNKNOWN}\nBCDEF-GHJKM")
    page.get_by_role("button", name="Check", exact=True).click()
    expect(page.get_by_text("1 code was not checked yet")).to_be_visible()
    # The form holds the code left, to check again when the minute is over.
    expect(page.get_by_label("Short codes")).to_have_value("BCDEF-GHJKM")
    no_sideways_scroll(page)
    assert_accessible(page)


def test_scanning_adds_each_passports_signed_address_or_code_to_the_list(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    context = watched_context(**PHONE)
    context.add_init_script(CAMERA_AND_QR_READER)
    page = context.new_page()
    page.goto(f"{portal_url}/p/check")
    page.get_by_label("Short codes").fill(UNKNOWN)
    page.get_by_role("button", name="Scan QR codes").click()
    expect(page.get_by_role("button", name="Stop scanning")).to_be_visible()
    status = page.get_by_role("status")
    signed = signed_address(DEMO)  # what a passport's QR code holds
    page.evaluate(
        "codes => window.__qrCodes.push(...codes)",
        [signed, "https://example.org/menu", f"{portal_url}/p/{UNKNOWN}", signed.lower()],
    )
    expect(page.get_by_label("Short codes")).to_have_value(f"{UNKNOWN}\n{signed}\n")
    expect(status).to_have_text("A passport's signed code is on the list already.")
    page.get_by_role("button", name="Stop scanning").click()
    expect(status).to_have_text("Scanning stopped.")
    expect(page.get_by_role("button", name="Scan QR codes")).to_be_focused()
    assert_accessible(page)
    page.get_by_role("button", name="Check", exact=True).click()
    assert [row[:2] for row in table(page)] == [[UNKNOWN, "? No passport"], [DEMO, "✓ Valid"]]
