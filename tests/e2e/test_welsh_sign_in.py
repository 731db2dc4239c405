"""Sign-in in Welsh in Chromium, on a 360-pixel phone: a new user switches the English sign-in
page to Cymraeg, signs in as the grower on the Welsh page, lands on the Welsh home page, and
switches back to English on the page they are on."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.e2e.conftest import GROWER, PHONE, assert_accessible, no_sideways_scroll

pytestmark = pytest.mark.browser


def test_a_new_user_signs_in_in_welsh_and_switches_back_to_english_on_the_page_they_are_on(
    watched_context: Callable[..., BrowserContext], portal_url: str, fresh_lockouts
):
    page = watched_context(**PHONE).new_page()
    page.goto(f"{portal_url}/accounts/sign-in/")
    expect(page.locator("html")).to_have_attribute("lang", "en-GB")
    switch = page.get_by_role("navigation", name="Language")
    switch.get_by_role("link", name="Newid yr iaith i’r Gymraeg").click()

    expect(page).to_have_url(f"{portal_url}/cy/accounts/sign-in/")
    expect(page.locator("html")).to_have_attribute("lang", "cy")
    expect(page).to_have_title("Mewngofnodi · Porth sicrwydd")
    expect(page.get_by_role("heading", level=1)).to_have_text("Mewngofnodi")
    expect(page.get_by_role("navigation", name="Iaith").locator("[aria-current]")).to_have_text(
        "Cymraeg"
    )
    no_sideways_scroll(page)
    assert_accessible(page)

    page.get_by_label("Cyfrinair").fill("not-the-password")
    page.get_by_role("button", name="Mewngofnodi").click()  # nothing typed as the username
    expect(
        page.get_by_text("Rhowch eich enw defnyddiwr neu eich cyfeiriad e-bost.")
    ).to_be_visible()
    assert_accessible(page)

    page.get_by_label("Enw defnyddiwr neu gyfeiriad e-bost").fill(GROWER[0])
    page.get_by_label("Cyfrinair").fill(GROWER[1])
    with page.expect_navigation():
        page.get_by_role("button", name="Mewngofnodi").click()
    expect(page).to_have_url(f"{portal_url}/cy/")
    expect(page.locator("html")).to_have_attribute("lang", "cy")
    expect(page.get_by_role("heading", level=1)).to_have_text("Croeso, grower")
    expect(page.locator("#memberships .membership")).to_have_count(2)
    expect(page.locator("#memberships")).to_contain_text("aelodaeth")
    no_sideways_scroll(page)
    assert_accessible(page)

    page.get_by_role("navigation", name="Iaith").get_by_role(
        "link", name="Change the language to English"
    ).click()
    expect(page).to_have_url(f"{portal_url}/")
    assert urlsplit(page.url).path == "/"
    expect(page.locator("html")).to_have_attribute("lang", "en-GB")
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome, grower")
    expect(page.locator("#memberships")).to_contain_text("membership")
    expect(page.get_by_role("navigation", name="Language").locator("[aria-current]")).to_have_text(
        "English"
    )
    assert_accessible(page)
