"""The error pages the browser tests of sign-in do not reach: 403 (form expired), 429 and 500.

Each is opened in Chromium the way a user meets it, and checked like every other page: no
serious or critical axe-core violation, the portal's header with its link home, no traceback.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from portal.accounts.refusals import LOCKED_ACCOUNT, WRONG
from tests.e2e.conftest import GROWER, assert_accessible, sign_in, submit_sign_in
from tests.portal.accounts.helpers import replace_view

pytestmark = pytest.mark.browser

SECRET = "a secret detail of the failure"
TELLTALES = ("Traceback", 'File "', "RuntimeError", SECRET, "settings.py", "DEBUG")


def assert_portal_page(page: Page) -> None:
    """The portal's layout (its header, a link home) and nothing of a debug page."""
    header = page.locator("header.site-header")
    expect(header).to_be_visible()
    expect(header.get_by_role("link", name="Assurance portal")).to_have_attribute("href", "/")
    expect(page.locator("main")).to_be_visible()
    content = page.content()
    for telltale in TELLTALES:
        assert telltale not in content, telltale


def test_a_form_without_its_csrf_cookie_shows_the_form_expired_page(page: Page, portal_url: str):
    page.goto(f"{portal_url}/accounts/sign-in/")
    page.context.clear_cookies(name="csrftoken")
    assert not [c for c in page.context.cookies() if c["name"] == "csrftoken"]

    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        submit_sign_in(page, *GROWER)
    assert posted.value.status == 403
    expect(page).to_have_title("Form expired · Assurance portal")
    expect(page.get_by_role("heading", level=1)).to_have_text("That form had expired")
    expect(page.get_by_text("Nothing was changed.")).to_be_visible()
    assert_portal_page(page)
    assert_accessible(page)

    page.get_by_role("link", name="Go to the home page").click()
    assert urlsplit(page.url).path == "/accounts/sign-in/"  # signed out: home asks to sign in


def test_an_attempt_at_a_locked_account_from_its_address_is_turned_away_with_429(
    page: Page, portal_url: str, settings, fresh_lockouts, upstream_tokens: list[str]
):
    settings.AXES_FAILURE_LIMIT = 1
    locked = LOCKED_ACCOUNT % {"duration": "about 15 minutes"}
    sign_in(page, portal_url, "grower", "not-the-password")
    summary = page.locator(".error-summary")
    expect(summary).to_have_text(f"{WRONG} {locked}")

    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        submit_sign_in(page, *GROWER)  # even the right password, never used here before
    assert posted.value.status == 429
    expect(page).to_have_title("Sign in · Assurance portal")
    expect(summary).to_have_text(locked)
    expect(summary).to_have_attribute("role", "alert")
    expect(page.get_by_role("button", name="Sign out")).to_have_count(0)  # not signed in
    assert upstream_tokens == [], "the right password, turned away, never reached the service"
    assert_portal_page(page)
    assert_accessible(page)


def test_a_failing_view_shows_the_something_went_wrong_page(
    signed_in_page: Page, portal_url: str, monkeypatch: pytest.MonkeyPatch
):
    page = signed_in_page

    def broken(request):
        raise RuntimeError(SECRET)

    replace_view(monkeypatch, "home", broken)
    response = page.goto(f"{portal_url}/")
    assert response is not None and response.status == 500
    expect(page).to_have_title("Something went wrong · Assurance portal")
    expect(page.get_by_role("heading", level=1)).to_have_text("Something went wrong on our side")
    assert_portal_page(page)
    assert_accessible(page)

    monkeypatch.undo()  # the home page works again
    page.get_by_role("link", name="Go to the home page").click()
    expect(page).to_have_url(f"{portal_url}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome, grower")
