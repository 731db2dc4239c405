"""Nothing hidden sideways, no word broken: every page of the portal (public, the grower's, a
clerk's, staff's), with data on it, in Chromium at 360, 768 and 1280 pixels. A page fails if its
content is wider than the window, if any of its boxes hides content sideways (a table wider than
its frame), or if a table's cell breaks a word across lines (a short code at its hyphen
included). And the page may use the camera (its Permissions-Policy) exactly when it has a
Scan button, and its forms' labels and legends say what is asked with no colon after, as the
portal writes them all.

The data is made once and the pages measured once, in one browser context a width, by the first
test to run; each test then reads what its page measured at its width (the database is emptied
after every browser test, so the pages are measured while the data is there)."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, Response

from tests.e2e.conftest import GROWER, CspWatch, sign_in
from tests.e2e.every_page import (
    CLERK,
    MEASURE,
    PAGES,
    STAFF,
    Made,
    made_for_every_page,
)

pytestmark = pytest.mark.browser

WIDTHS = (360, 768, 1280)


_measured: dict[tuple[str, int], list[str]] = {}
_camera: dict[str, tuple[bool, bool]] = {}  # whether it may use the camera, whether it scans
_colons: dict[str, list[str]] = {}  # its labels and legends that end with a colon

# The words of the page's labels and legends (the parts for screen readers alone included).
LABELS = """() => [...document.querySelectorAll("label, legend")]
  .map((e) => e.textContent.replace(/\\s+/g, " ").trim())"""


def _camera_allowed(response: Response | None) -> bool:
    policy = response.headers.get("permissions-policy", "") if response else ""
    [camera] = re.findall(r"\bcamera=\(([^)]*)\)", policy)
    return camera == "self"


def _has_a_scan_button(page: Page) -> bool:
    """Whether the page has a Scan button, shown or not (scanner.js shows it where it can)."""
    return page.locator("[data-scan-start]").count() > 0


def _measure(browser: Browser, portal_url: str, made: Made, csp: CspWatch) -> None:
    for width in WIDTHS:
        phone = {"is_mobile": True, "has_touch": True} if width < 768 else {}
        context = csp.watch(browser.new_context(viewport={"width": width, "height": 800}, **phone))
        page = context.new_page()
        for who in (None, GROWER, CLERK, STAFF):
            _sign_in_as(page, portal_url, who)
            for name, (opener, address) in PAGES.items():
                if opener == who:
                    response = page.goto(portal_url + address(made))
                    _measured[name, width] = page.evaluate(MEASURE)
                    _camera[name] = (_camera_allowed(response), _has_a_scan_button(page))
                    labels = page.evaluate(LABELS)
                    _colons[name] = [label for label in labels if label.endswith(":")]
        context.close()


def _sign_in_as(page: Page, portal_url: str, who: tuple[str, str] | None) -> None:
    page.context.clear_cookies()
    if who:
        sign_in(page, portal_url, *who)


@pytest.fixture
def measured(browser: Browser, portal_url: str, csp: CspWatch) -> dict:
    if not _measured:
        call_command("grant_staff", STAFF[0], stdout=StringIO())
        _measure(browser, portal_url, made_for_every_page(), csp)
    return _measured


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page_name", PAGES)
def test_nothing_is_hidden_sideways_nor_a_word_broken(measured, page_name: str, width: int):
    problems = measured[page_name, width]
    assert not problems, f"{page_name} at {width} px:\n" + "\n".join(problems)


def test_the_camera_is_allowed_exactly_on_the_pages_that_scan(measured):
    scanning = {name for name, (_, scans) in _camera.items() if scans}
    allowed = {name for name, (may, _) in _camera.items() if may}
    # "intake" and "record a load by its code" lead a clerk of one site to its pages.
    assert scanning == {
        "the gate check",
        "codes checked",
        "codes no longer kept",
        "the offline checker",
        "a signed code",
        "intake",
        "record a load by its code",
        "a site's loads",
        "codes checked by a clerk",
    }
    assert allowed == scanning


def test_no_label_nor_legend_ends_with_a_colon(measured):
    assert _colons.keys() == PAGES.keys()
    assert {name: found for name, found in _colons.items() if found} == {}
