"""The staff dashboard in Chromium: a staff member signs in, makes a passport and looks one up,
and the dashboard shows them, its verdicts and its charts with their numbers; on a phone too;
axe-core on both."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import BrowserContext, expect

from tests.e2e.conftest import GROWER, PHONE, assert_accessible, no_sideways_scroll, sign_in
from tests.portal.accounts.helpers import signed_in
from tests.portal.passports.made import made_with_the_form

pytestmark = pytest.mark.browser


def test_staff_watch_the_portal_s_use_and_health(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    call_command("grant_staff", "grower", "--superuser", stdout=StringIO())
    made_with_the_form(signed_in("grower"))
    page = watched_context().new_page()
    page.goto(f"{portal_url}/p/7KXM4-QHT2W")
    sign_in(page, portal_url, *GROWER, next_path="/staff/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Staff dashboard")
    expect(page.locator(".verdict").first).to_contain_text("The Assurance service")
    expect(page.locator(".verdict").first).to_contain_text("Answering")
    use = page.locator(".figures")
    for label in ("Passports made one at a time", "Look-ups"):  # not "Look-ups limited"
        figure = use.locator("div").filter(has=page.get_by_text(label, exact=True))
        expect(figure.locator("dd")).to_have_text("1")
    expect(page.get_by_role("img", name="Passports made a day")).to_be_visible()
    page.locator("summary", has_text="The numbers").first.click()
    expect(page.locator(".chart-numbers").first).to_be_visible()
    assert_accessible(page)

    phone = watched_context(**PHONE).new_page()
    sign_in(phone, portal_url, *GROWER, next_path="/staff/")
    expect(phone.get_by_role("heading", level=1)).to_have_text("Staff dashboard")
    no_sideways_scroll(phone)
    assert_accessible(phone)


def test_the_dashboard_in_welsh_reads_well_and_is_accessible(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    call_command("grant_staff", "grower", "--superuser", stdout=StringIO())
    made_with_the_form(signed_in("grower"))
    page = watched_context().new_page()
    sign_in(page, portal_url, *GROWER, next_path="/cy/staff/")
    expect(page.locator("html")).to_have_attribute("lang", "cy")
    expect(page.get_by_role("heading", level=1)).to_have_text("Dangosfwrdd y staff")
    expect(page.locator(".verdict").first).to_contain_text("Y gwasanaeth Sicrwydd")
    figure = page.locator(".figures div").filter(
        has=page.get_by_text("Pasbortau a wnaed un ar y tro", exact=True)
    )
    expect(figure.locator("dd")).to_have_text("1")
    expect(page.get_by_role("img", name="Pasbortau a wnaed bob dydd")).to_be_visible()
    page.locator("summary", has_text="Y rhifau").first.click()
    expect(page.locator(".chart-numbers").first).to_be_visible()
    assert_accessible(page)
