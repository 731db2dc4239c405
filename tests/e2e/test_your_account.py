"""The account's page in Chromium on a 360-pixel phone, with JavaScript and without: reached from
the menu, a bad address said beside its field and in the summary that links to it, then the
address kept and the intake mail turned off; the settings shown as saved. axe-core on each
state (with JavaScript: axe runs as a script)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from portal.accounts.models import Preferences
from tests.e2e.conftest import GROWER, PHONE, assert_accessible, no_sideways_scroll, sign_in

pytestmark = pytest.mark.browser


def from_the_menu(page: Page) -> None:
    page.locator(".site-header").get_by_text("Menu", exact=True).click()
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Your account").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your account")
    page.wait_for_load_state("load")


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_on_a_phone_the_grower_keeps_an_address_and_turns_the_intake_mail_off(
    watched_context: Callable[..., BrowserContext], portal_url: str, javascript: bool
):  # fmt: skip
    page = watched_context(**PHONE, java_script_enabled=javascript).new_page()
    sign_in(page, portal_url, *GROWER)
    from_the_menu(page)
    address = page.get_by_label("Your e-mail address")
    mail = page.get_by_role("checkbox", name="E-mail me the intake results of passports I made")
    expect(address).to_have_value("")
    expect(mail).to_be_checked()
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)

    address.fill("office@hollowfield")
    page.get_by_role("button", name="Save").click()
    summary = page.locator(".error-summary")
    expect(summary).to_contain_text("Nothing was saved.")
    expect(page.locator("#id_email_error")).to_have_text(
        "Enter an e-mail address in the form name@example.com, or leave it empty to use your "
        "account's."
    )
    expect(page.get_by_label("Your e-mail address")).to_have_attribute("aria-invalid", "true")
    summary.get_by_role("link").click()
    expect(page.get_by_label("Your e-mail address")).to_be_focused()
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)
    assert not Preferences.objects.exists()

    page.get_by_label("Your e-mail address").fill("office@hollowfield.example")
    box = page.get_by_role("checkbox", name="E-mail me the intake results of passports I made")
    box.uncheck()
    assert box.bounding_box()["width"] >= 20  # a box a thumb finds
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Your settings are saved.")
    expect(page.get_by_label("Your e-mail address")).to_have_value("office@hollowfield.example")
    expect(box).not_to_be_checked()
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)
    kept = Preferences.objects.get()
    assert (kept.email, kept.intake_mail) == ("office@hollowfield.example", False)
