"""A passport's signed code in Chromium: read from the QR code of the passport's page, on the
screen and in its print view, drawn at 3 pixels a module (zxing-cpp); opened on a 360-pixel
phone with no account, with and without JavaScript: "Genuine", its essentials and the claim
now; the same code with one character changed: "Not genuine", and never "Valid". axe-core on
each."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.e2e.conftest import (
    GROWER,
    PHONE,
    assert_accessible,
    no_sideways_scroll,
    qr_code_read,
    sign_in,
)
from tests.portal.passports.made import made_here

pytestmark = pytest.mark.browser


def signed_address(context: BrowserContext, portal_url: str) -> tuple[str, str]:
    """A passport the grower made here, and its signed address as its page's QR code holds
    it."""
    page = context.new_page()
    sign_in(page, portal_url, *GROWER)
    short_code = made_here()
    page.goto(f"{portal_url}/passports/{short_code}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Crop passport")
    on_screen = qr_code_read(page.locator("figure.qr svg"))
    page.emulate_media(media="print")
    assert qr_code_read(page.locator("figure.qr svg")) == on_screen  # the print view's is the same
    page.close()
    return short_code, on_screen


def changed(address: str) -> str:
    position = len(address) - 30
    other = "A" if address[position] != "A" else "B"
    return address[:position] + other + address[position + 1 :]


def test_a_phone_opens_a_genuine_code_and_sees_its_essentials_and_the_claim_now(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    short_code, address = signed_address(watched_context(), portal_url)
    assert address.startswith(f"{portal_url.upper()}/V/")

    phone = watched_context(**PHONE).new_page()  # a haulier's, no account
    phone.goto(address)
    expect(phone).to_have_title(f"Genuine: {short_code} · Assurance portal")
    signed = phone.get_by_role("region", name="The signed copy")
    expect(signed.locator(".verdict-valid")).to_contain_text("✓ Genuine")
    expect(signed).to_contain_text("Genuine: signed by the portal on ")
    expect(signed).to_contain_text("the claim was valid when checked")
    for label, value in (("Business name", "Hollowfield Farms Ltd"), ("Crop type", "Wheat"),
                         ("Loading date", "21 August 2026"), ("Status", "Valid")):  # fmt: skip
        expect(signed.locator(".row", has_text=label)).to_contain_text(value)
    for label, value in (("Certifier", "Meridian Farm Certification Ltd"),
                         ("Membership number", "CCSB-204817")):  # fmt: skip
        expect(signed.locator(".row", has_text=label)).to_contain_text(value)  # online, whole
    expect(signed).not_to_contain_text("Left out to fit the code")
    now = phone.get_by_role("region", name="The claim now")
    expect(now.locator(".verdict-valid")).to_contain_text("✓ Valid")
    no_sideways_scroll(phone)
    assert_accessible(phone)

    without_scripts = watched_context(**PHONE, java_script_enabled=False).new_page()
    without_scripts.goto(address)
    expect(without_scripts).to_have_title(f"Genuine: {short_code} · Assurance portal")
    expect(without_scripts.get_by_role("region", name="The claim now")).to_contain_text(
        "The assurance claim is valid now."
    )


def test_a_code_with_one_character_changed_is_not_genuine(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    _, address = signed_address(watched_context(), portal_url)
    phone = watched_context(**PHONE).new_page()
    phone.goto(changed(address))
    expect(phone).to_have_title("Not genuine · Assurance portal")
    verdict = phone.locator(".verdict-not-valid")
    expect(verdict).to_have_attribute("role", "alert")
    expect(verdict).to_contain_text("✗ Not genuine")
    expect(verdict).to_contain_text("This code has been altered since it was signed")
    main = phone.get_by_role("main")
    expect(main).not_to_contain_text("Valid")
    expect(main).not_to_contain_text("Genuine")
    expect(phone.get_by_role("link", name="Check a passport by its short code")).to_be_visible()
    assert (
        phone.locator(".verdict-not-valid").evaluate("box => getComputedStyle(box).borderColor")
        == "rgb(164, 0, 15)"
    )  # the refusal's red
    no_sideways_scroll(phone)
    assert_accessible(phone)

    phone.goto(address[: len(address) - 40])  # cut short
    expect(phone).to_have_title("Not a passport's code · Assurance portal")
    expect(phone.get_by_role("main")).not_to_contain_text("Valid")
    no_sideways_scroll(phone)
    assert_accessible(phone)
