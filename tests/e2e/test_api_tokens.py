"""API tokens in Chromium: the grower, on a phone, from Your account to API tokens, makes one
(a name left out said beside its field first), sees it once, then not again, and revokes it;
with JavaScript and without. The API's documentation page: Swagger UI from the portal's own
files, nothing against the content security policy. axe-core on each state of the pages of
tokens (with JavaScript: axe runs as a script); the same path in Welsh under /cy/."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from portal.api.models import Token
from tests.e2e.conftest import GROWER, PHONE, assert_accessible, no_sideways_scroll, sign_in
from tests.portal.intake.builders import a_clerk, a_site

pytestmark = pytest.mark.browser


def to_the_tokens(page: Page, portal_url: str) -> None:
    page.goto(f"{portal_url}/accounts/you/")
    page.get_by_role("link", name="API tokens").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your API tokens")


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_on_a_phone_the_grower_makes_a_token_sees_it_once_and_revokes_it(
    watched_context: Callable[..., BrowserContext], portal_url: str, javascript: bool
):  # fmt: skip
    page = watched_context(**PHONE, java_script_enabled=javascript).new_page()
    sign_in(page, portal_url, *GROWER)
    to_the_tokens(page, portal_url)
    expect(page.get_by_text("No token has been made yet.")).to_be_visible()
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)

    page.get_by_role("checkbox", name=re.compile("Read the business's passports")).check()
    page.get_by_role("button", name="Make the token").click()
    expect(page.locator(".error-summary")).to_contain_text("No token was made.")
    expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    if javascript:
        assert_accessible(page)

    page.get_by_label("Name").fill("Farm records")
    page.get_by_role("checkbox", name=re.compile("Read the business's passports")).check()
    page.get_by_label("Expires after").select_option(label="30 days")
    page.get_by_role("button", name="Make the token").click()
    expect(page.get_by_role("heading", name="Token made: Farm records")).to_be_visible()
    secret = page.get_by_label("The token").input_value()
    assert re.fullmatch(r"cpp_[0-9A-Za-z]{36}", secret)
    table = page.get_by_role("table", name="Tokens, newest first")
    expect(table).to_contain_text("passports:read")
    expect(table).to_contain_text("Never")
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)

    to_the_tokens(page, portal_url)
    expect(page.get_by_text(secret)).to_have_count(0)
    assert secret not in page.content()
    page.get_by_role("button", name="Revoke Farm records").click()
    expect(page.get_by_role("status")).to_contain_text("The token Farm records is revoked")
    expect(table).to_contain_text("Revoked")
    if javascript:
        assert_accessible(page)
    assert Token.objects.get().is_revoked


def test_a_clerk_makes_the_site_s_token_from_the_site_s_page(
    watched_context: Callable[..., BrowserContext], portal_url: str
):  # fmt: skip
    site = a_clerk("haulier", a_site())
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, "haulier", "haulier-demo-pass")
    page.goto(f"{portal_url}/intake/sites/{site.code}/")
    page.get_by_role("link", name="the site's API tokens").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"API tokens of {site.name}")
    assert_accessible(page)
    page.get_by_label("Name").fill("Weighbridge")
    expect(page.get_by_role("checkbox")).to_have_count(2)  # a site's token reads and records
    page.get_by_role("button", name="Make the token").click()
    expect(page.get_by_role("heading", name="Token made: Weighbridge")).to_be_visible()
    no_sideways_scroll(page)
    assert_accessible(page)
    made = Token.objects.get()
    assert (made.site, made.scopes) == (site, ["intake:read", "intake:write"])


def test_the_documentation_page_shows_the_api_from_the_portal_s_own_files(
    context: BrowserContext, portal_url: str
):  # fmt: skip
    page = context.new_page()
    outside: list[str] = []
    page.on("request", lambda request: outside.append(request.url)
            if not request.url.startswith(portal_url) else None)  # fmt: skip
    page.goto(f"{portal_url}/api/v1/docs")
    expect(page.get_by_role("heading", level=1)).to_have_text("Assurance portal API")
    expect(page.locator("#swagger-ui").get_by_text("/api/v1/intake/loads").first).to_be_visible()
    assert outside == []


def test_in_welsh_on_a_phone_the_grower_makes_a_token_and_revokes_it(
    watched_context: Callable[..., BrowserContext], portal_url: str
):  # fmt: skip
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, *GROWER)
    page.goto(f"{portal_url}/cy/accounts/you/tokens/")
    expect(page.locator("html")).to_have_attribute("lang", "cy")
    expect(page.get_by_role("heading", level=1)).to_have_text("Eich tocynnau API")
    expect(page.get_by_text("Nid oes tocyn wedi’i wneud eto.")).to_be_visible()
    no_sideways_scroll(page)
    assert_accessible(page)

    passports = page.get_by_role("checkbox", name=re.compile("Darllen pasbortau’r busnes"))
    passports.check()
    page.get_by_role("button", name="Gwneud y tocyn").click()
    expect(page.locator(".error-summary")).to_contain_text("Ni wnaed tocyn.")
    expect(page.locator(".error-summary")).to_contain_text("Rhowch enw i’r tocyn")
    expect(page.get_by_label(re.compile("^Enw"))).to_have_attribute("aria-invalid", "true")
    assert_accessible(page)

    page.get_by_label(re.compile("^Enw")).fill("Cofnodion fferm")
    passports.check()
    page.get_by_label("Yn dod i ben ar ôl").select_option(label="30 diwrnod")
    page.get_by_role("button", name="Gwneud y tocyn").click()
    expect(page.get_by_role("heading", name="Tocyn wedi’i wneud: Cofnodion fferm")).to_be_visible()
    table = page.get_by_role("table", name="Tocynnau, y mwyaf newydd yn gyntaf")
    expect(table).to_contain_text("passports:read")
    expect(table).to_contain_text("Byth")
    no_sideways_scroll(page)
    assert_accessible(page)

    page.get_by_role("button", name="Dirymu Cofnodion fferm").click()
    expect(page.get_by_role("status")).to_contain_text("Mae’r tocyn Cofnodion fferm wedi’i ddirymu")
    expect(table).to_contain_text("Dirymwyd")
    assert_accessible(page)
    assert Token.objects.get().is_revoked
