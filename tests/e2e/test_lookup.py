"""Checking a passport by its short code in Chromium, as a haulier does on a phone in a
farmyard: no account, a 360-pixel screen, with and without JavaScript; axe-core on each page;
the page, its stylesheet and the language switch's script alone, under 50 KB together; in Welsh
too, once chosen with the switch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Response, expect

from tests.e2e.conftest import PHONE, assert_accessible, lighthouse, no_sideways_scroll
from tests.portal.passports.helpers import suspended_after_it_was_made

pytestmark = pytest.mark.browser

BUDGET = 50 * 1024


def sees_the_valid_verdict(page: Page) -> None:
    expect(page).to_have_title("Valid: 7KXM4-QHT2W · Assurance portal")
    verdict = page.locator(".verdict")
    expect(verdict).to_contain_text("Valid")
    expect(verdict).to_contain_text("The assurance claim is valid now.")
    expect(page.get_by_role("heading", level=1)).to_have_text("Passport 7KXM4-QHT2W")
    expect(page.get_by_text("Checked by the portal just now")).to_be_visible()
    expect(page.get_by_text("Stour Valley Haulage")).to_be_visible()
    # The verdict is on the first screen, without scrolling.
    box = verdict.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 740, box


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_a_visitor_on_a_phone_opens_a_passports_address_and_sees_it_valid(
    watched_context: Callable[..., BrowserContext], portal_url: str, javascript: bool
):
    page = watched_context(**PHONE, java_script_enabled=javascript).new_page()
    page.goto(f"{portal_url}/p/7kxm4-qht2w")
    assert page.url == f"{portal_url}/p/7KXM4-QHT2W"
    sees_the_valid_verdict(page)
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_a_visitor_types_the_code_into_the_form(
    watched_context: Callable[..., BrowserContext], portal_url: str, javascript: bool
):
    page = watched_context(**PHONE, java_script_enabled=javascript).new_page()
    page.goto(f"{portal_url}/accounts/sign-in/")
    page.get_by_role("link", name="Check a passport by its short code").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check a passport")
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)

    page.get_by_label("Short code").fill("ABCDE FGHJK")
    page.get_by_role("button", name="Check").click()
    expect(page.get_by_text("No passport has that short code.")).to_be_visible()
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)

    page.get_by_label("Short code").fill("")
    page.get_by_role("button", name="Check").click()
    expect(page.get_by_text("Enter the passport's short code.")).to_be_visible()
    expect(page.get_by_label("Short code")).to_have_attribute("aria-invalid", "true")
    if javascript:
        assert_accessible(page)

    page.get_by_label("Short code").fill("7kxm4qht2w")
    page.get_by_role("button", name="Check").click()
    sees_the_valid_verdict(page)


def test_the_verdict_page_is_three_requests_under_50_kb(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = watched_context(**PHONE).new_page()
    responses: list[Response] = []
    page.on("response", lambda response: responses.append(response))
    page.goto(f"{portal_url}/p/7KXM4-QHT2W", wait_until="networkidle")
    sees_the_valid_verdict(page)
    # The page, then its stylesheet and the language switch's script (which keeps what was
    # typed), which the browser asks for at once, in either order.
    assert responses[0].url == f"{portal_url}/p/7KXM4-QHT2W"
    assert sorted(r.url for r in responses[1:]) == [
        f"{portal_url}/static/css/lookup.css",
        f"{portal_url}/static/js/language.js",
    ]
    weight = sum(len(r.body()) for r in responses)
    assert weight < BUDGET, f"{weight} bytes"


def test_a_passport_whose_membership_was_suspended_since_shows_not_valid(
    watched_context: Callable[..., BrowserContext], portal_url: str, upstream_sandbox
):
    with suspended_after_it_was_made(upstream_sandbox) as short_code:
        page = watched_context(**PHONE).new_page()
        page.goto(f"{portal_url}/p/{short_code.lower()}")
    expect(page).to_have_title(f"Not valid: {short_code} · Assurance portal")
    verdict = page.locator(".verdict")
    expect(verdict).to_contain_text("Not valid")
    expect(verdict).to_contain_text("The assurance claim is not valid now.")
    expect(page.get_by_text("Barley")).to_have_count(0)
    no_sideways_scroll(page)
    assert_accessible(page)


def test_too_many_look_ups_get_a_page_that_says_when_to_try_again(
    watched_context: Callable[..., BrowserContext], portal_url: str, settings
):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    page = watched_context(**PHONE).new_page()
    page.goto(f"{portal_url}/p/7KXM4-QHT2W")
    sees_the_valid_verdict(page)
    # The allowance is per window of a minute: of the next two, one at least falls in the
    # first's window.
    statuses = []
    while len(statuses) < 2 and 429 not in statuses:
        response = page.goto(f"{portal_url}/p/7KXM4-QHT2W")
        assert response is not None
        statuses.append(response.status)
    assert statuses[-1] == 429, statuses
    expect(page.get_by_role("heading", level=1)).to_have_text("Too many look-ups")
    expect(page.get_by_text("Try again in")).to_be_visible()
    no_sideways_scroll(page)
    assert_accessible(page)


def test_a_signed_in_user_finds_the_look_up_in_the_navigation(signed_in_page: Page):
    page = signed_in_page
    page.get_by_role("navigation", name="Main").get_by_role(
        "link", name="Look up a passport"
    ).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check a passport")
    assert_accessible(page)


# --- Lighthouse -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/p/7KXM4-QHT2W", "/p/"])
def test_lighthouse_scores_the_look_up_at_least_95(portal_url: str, tmp_path: Path, path: str):
    scores = lighthouse(f"{portal_url}{path}", tmp_path)
    assert all(score >= 95 for score in scores.values()), scores


def test_a_welsh_speaker_switches_to_cymraeg_and_checks_a_passport(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    """Cymraeg chosen with the switch on the look-up: the form, its error and the verdict in
    Welsh at the same addresses, on a phone; axe on each page."""
    page = watched_context(**PHONE).new_page()
    page.goto(f"{portal_url}/p/")
    page.get_by_role("link", name="Newid yr iaith i’r Gymraeg").click()
    expect(page).to_have_url(f"{portal_url}/p/")
    expect(page.locator("html")).to_have_attribute("lang", "cy")
    expect(page.get_by_role("heading", level=1)).to_have_text("Gwirio pasbort")
    no_sideways_scroll(page)
    assert_accessible(page)

    page.get_by_role("button", name="Gwirio").click()
    expect(page.get_by_text("Rhowch god byr y pasbort.")).to_be_visible()
    page.get_by_label("Cod byr").fill("7kxm4 qht2w")
    page.get_by_role("button", name="Gwirio").click()
    expect(page).to_have_url(f"{portal_url}/p/7KXM4-QHT2W")
    expect(page).to_have_title("Dilys: 7KXM4-QHT2W · Porth sicrwydd")
    expect(page.locator(".verdict")).to_contain_text("Mae’r honiad sicrwydd yn ddilys nawr.")
    expect(page.get_by_role("heading", level=1)).to_have_text("Pasbort 7KXM4-QHT2W")
    no_sideways_scroll(page)
    assert_accessible(page)
