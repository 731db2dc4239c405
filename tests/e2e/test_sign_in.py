"""The browser's main paths through sign-in, the home page and the error pages."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from portal.accounts.refusals import FAILED, LOCKED_TO_NEW, WRONG
from portal.assurance import service
from portal.assurance.client import AssuranceClient
from tests.e2e.conftest import (
    GROWER,
    assert_accessible,
    memberships_loaded,
    sign_in,
    sign_out,
    submit_sign_in,
)

pytestmark = pytest.mark.browser

DAY = 24 * 60 * 60


def _query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def test_a_new_user_signs_in_sees_their_memberships_and_signs_out(
    page: Page, portal_url: str, upstream_tokens: list[str]
):
    page.goto(f"{portal_url}/")
    expect(page).to_have_title("Sign in · Assurance portal")
    assert urlsplit(page.url).path == "/accounts/sign-in/"
    assert _query(page.url)["next"] == ["/"]
    assert_accessible(page)

    submit_sign_in(page, *GROWER)
    expect(page).to_have_url(f"{portal_url}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome, grower")
    memberships_loaded(page)  # htmx swapped the panel in
    panel = page.locator("#memberships")
    expect(panel.get_by_role("heading", level=3)).to_have_text(
        ["Hollowfield Farms Ltd", "Wenham Grange Partnership"]
    )
    expect(panel.locator(".status")).to_have_text(["Valid", "Valid"])
    assert_accessible(page)

    signed_in_cookies = page.context.cookies()
    sign_out(page)
    assert urlsplit(page.url).path == "/accounts/sign-in/"
    assert_accessible(page)

    [token] = upstream_tokens
    for cookie in [*signed_in_cookies, *page.context.cookies()]:
        assert token not in cookie["value"], cookie["name"]
    session = [c for c in signed_in_cookies if c["name"] == "sessionid"]
    assert session and all(c["httpOnly"] and c["sameSite"] == "Lax" for c in session)


def test_wrong_passwords_say_how_many_tries_are_left_and_when_they_are_used_up(
    page: Page, portal_url: str, fresh_lockouts
):
    sign_in(page, portal_url, "grower", "not-the-password")
    summary = page.locator(".error-summary")
    expect(summary).to_have_text(FAILED)
    expect(summary).to_have_attribute("role", "alert")
    expect(page.get_by_label("Username or e-mail address")).to_have_value("grower")
    expect(page.get_by_label("Password")).to_have_value("")
    assert_accessible(page)

    submit_sign_in(page, "grower", "still-not-the-password")
    expect(summary).to_have_text(
        f"{WRONG} You have one more try before only passwords that have worked here before are "
        "accepted."
    )
    submit_sign_in(page, "grower", "nor-this-one")  # the service warns: the portal stops here
    expect(summary).to_have_text(f"{WRONG} {LOCKED_TO_NEW}")
    assert_accessible(page)


def test_a_user_who_signed_in_before_still_signs_in_after_strangers_failures(
    page: Page, portal_url: str, fresh_lockouts
):
    sign_in(page, portal_url, *GROWER)
    sign_out(page)
    for _ in range(5):
        submit_sign_in(page, "lapsed", "not-the-password")
    expect(page.locator(".error-summary")).to_have_text(LOCKED_TO_NEW)
    submit_sign_in(page, *GROWER)
    expect(page).to_have_url(f"{portal_url}/")
    memberships_loaded(page)


def test_an_empty_form_says_which_fields_are_missing_without_asking_upstream(
    page: Page, portal_url: str, monkeypatch: pytest.MonkeyPatch
):
    calls: list[str] = []
    monkeypatch.setattr(
        AssuranceClient, "login", lambda self, username, password, **_: calls.append(username)
    )
    page.goto(f"{portal_url}/accounts/sign-in/")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.get_by_role("button", name="Sign in").click()
    assert posted.value.status == 400
    expect(page.locator(".field-error")).to_have_count(2)
    expect(page.get_by_text("Enter your username or e-mail address.")).to_be_visible()
    expect(page.get_by_text("Enter your password.")).to_be_visible()
    # Each message is tied to its field for screen readers.
    expect(page.get_by_label("Username or e-mail address")).to_have_accessible_description(
        "Enter your username or e-mail address."
    )
    expect(page.get_by_label("Password")).to_have_accessible_description("Enter your password.")
    assert calls == []
    assert_accessible(page)


def test_an_expired_session_in_an_htmx_request_sends_the_whole_page_to_sign_in(
    signed_in_page: Page, portal_url: str, sandbox, clock
):
    page = signed_in_page
    sandbox.advance_clock(31 * DAY)  # past the token's 30 days: the upstream rejects it

    with page.expect_response(lambda r: r.url.endswith("/memberships/")) as panel:
        page.reload()
    assert panel.value.request.header_value("HX-Request") == "true"
    assert panel.value.header_value("HX-Redirect"), "a client redirect, not a swapped-in form"

    expect(page).to_have_title("Sign in · Assurance portal")
    assert urlsplit(page.url).path == "/accounts/sign-in/"
    assert _query(page.url)["next"] == ["/"]
    expect(page.locator("#memberships")).to_have_count(0)
    expect(page.locator("form.form")).to_have_count(1)
    expect(page.get_by_text("Your sign-in has ended. Please sign in again.")).to_be_visible()
    assert_accessible(page)

    submit_sign_in(page, *GROWER)
    expect(page).to_have_url(f"{portal_url}/")
    memberships_loaded(page)
    assert_accessible(page)


def test_the_portal_works_without_javascript(watched_context, portal_url: str):
    page = watched_context(java_script_enabled=False).new_page()
    page.goto(f"{portal_url}/")
    submit_sign_in(page, *GROWER)
    expect(page).to_have_url(f"{portal_url}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome, grower")
    expect(page.locator("#memberships .membership")).to_have_count(0)  # nothing swaps it in

    page.locator("#memberships").get_by_role("link", name="on their own page").click()
    expect(page).to_have_url(f"{portal_url}/memberships/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your memberships")
    expect(page.locator(".membership")).to_have_count(2)
    expect(page.locator(".status")).to_have_text(["Valid", "Valid"])

    sign_out(page)
    assert urlsplit(page.url).path == "/accounts/sign-in/"
    page.goto(f"{portal_url}/memberships/")
    assert urlsplit(page.url).path == "/accounts/sign-in/"
    # No axe check here: without JavaScript page.evaluate never returns. The same pages are
    # checked with JavaScript on by the other tests.


@pytest.mark.parametrize("where", ["home", "sign-in"])
def test_a_phone_sized_screen_has_no_sideways_scroll_and_large_nav_targets(
    watched_context, portal_url: str, where: str
):
    page = watched_context(viewport={"width": 360, "height": 740}).new_page()
    if where == "home":
        sign_in(page, portal_url, *GROWER)
        memberships_loaded(page)
    else:
        page.goto(f"{portal_url}/accounts/sign-in/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.get_by_text("Menu", exact=True).click()  # on a phone, the links are in the menu
    links = page.locator(".site-nav a")
    assert links.count() >= 1
    for link in links.all():
        box = link.bounding_box()
        assert box is not None and box["height"] >= 44, (link.inner_text(), box)
    for button in page.locator("header button:visible, header summary").all():
        box = button.bounding_box()
        assert box is not None and box["height"] >= 44, (button.inner_text(), box)
    assert_accessible(page)


def test_print_leaves_out_the_header_and_navigation(signed_in_page: Page):
    page = signed_in_page
    expect(page.locator(".site-header")).to_be_visible()
    page.emulate_media(media="print")
    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.locator(".site-nav")).to_be_hidden()
    expect(page.get_by_role("button", name="Sign out")).to_be_hidden()
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.locator("#memberships .membership")).to_have_count(2)
    assert_accessible(page)


def test_the_skip_link_is_the_first_stop_of_the_keyboard(page: Page, portal_url: str):
    page.goto(f"{portal_url}/accounts/sign-in/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to main content")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    assert_accessible(page)


def test_the_main_content_has_room_above_and_below(page: Page, portal_url: str):
    page.goto(f"{portal_url}/accounts/sign-in/")
    gap = page.evaluate(
        """() => document.querySelector("main h1").getBoundingClientRect().top
                 - document.querySelector(".site-nav").getBoundingClientRect().bottom"""
    )
    assert gap >= 16
    padding = page.evaluate("() => getComputedStyle(document.querySelector('main')).paddingBottom")
    assert padding != "0px"


def test_a_field_in_error_has_a_red_border(page: Page, portal_url: str):
    page.goto(f"{portal_url}/accounts/sign-in/")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator(".field-error")).to_have_count(2)
    for label in ("Username or e-mail address", "Password"):
        expect(page.get_by_label(label)).to_have_css(
            "border-top-color", "rgb(163, 35, 28)", timeout=1000
        )


def test_the_accessibility_check_is_not_blind(page: Page, portal_url: str):
    """axe-core, as assert_accessible runs it, does find a serious violation."""
    page.goto(f"{portal_url}/accounts/sign-in/")
    page.evaluate("() => document.querySelector('label[for=id_username]').remove()")
    with pytest.raises(AssertionError, match=r"label \(critical\).*#id_username"):
        assert_accessible(page)


def test_an_unknown_address_shows_the_not_found_page(page: Page, portal_url: str):
    response = page.goto(f"{portal_url}/no-such-page")
    assert response is not None and response.status == 404
    expect(page).to_have_title("Page not found · Assurance portal")
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    assert_accessible(page)
    page.get_by_role("link", name="Go to the home page").click()
    assert urlsplit(page.url).path == "/accounts/sign-in/"


def test_an_unreachable_upstream_shows_the_unavailable_page_and_try_again_works(
    signed_in_page: Page, portal_url: str, sandbox, settings
):
    page = signed_in_page
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"  # nothing listens there
    settings.ASSURANCE_OUTAGE_SECONDS = 1  # how long the portal remembers that it is down
    service.client.cache_clear()

    response = page.goto(f"{portal_url}/memberships/")
    assert response is not None and response.status == 503
    expect(page).to_have_title("Assurance service unavailable · Assurance portal")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "The Assurance service is unavailable"
    )
    assert_accessible(page)

    settings.ASSURANCE_BASE_URL = sandbox.url
    service.client.cache_clear()
    page.wait_for_timeout(1100)  # the outage remembered lapses
    page.get_by_role("link", name="try again").click()
    expect(page).to_have_url(f"{portal_url}/memberships/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your memberships")
    expect(page.locator(".membership")).to_have_count(2)
    assert_accessible(page)


def test_the_csp_watch_sees_a_violation(page: Page, portal_url: str, csp):
    """The CSP watch of every test above is not blind: an inline script is reported."""
    page.goto(f"{portal_url}/accounts/sign-in/")
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.inlineRan = true";
            document.body.append(script);
        }"""
    )
    page.wait_for_timeout(200)
    assert page.evaluate("() => window.inlineRan") is None
    assert csp.violations, "the inline script was blocked but nobody reported it"
    csp.violations.clear()
