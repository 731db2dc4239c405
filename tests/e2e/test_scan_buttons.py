"""A Scan button shows only where it can work, on every page that has one (the gate check, a
clerk's site and Record a load, the offline checker, a signed code's page): not without
JavaScript, not where the browser cannot read QR codes (Chromium on Linux has no
BarcodeDetector), and where it can (a camera and a QR reader stood in for), it shows and the
page's Permissions-Policy lets it use the camera."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from portal.accounts.session import portal_user
from tests.e2e.conftest import CAMERA_AND_QR_READER, PHONE, sign_in
from tests.portal.intake.builders import a_clerk, a_site
from tests.portal.passports.helpers import signed_address
from tests.portal.passports.made import made_here

pytestmark = pytest.mark.browser

CLERK = ("intake", "intake-demo-pass")


def scanning_pages(portal_url: str) -> list[str]:
    """Every page with a Scan button, a clerk's of a site of theirs included."""
    portal_user("grower")  # the passport's maker
    site = a_clerk(CLERK[0], a_site())
    signed = signed_address(made_here()).split("/V/", 1)[1]
    return [
        f"{portal_url}{path}"
        for path in ("/p/check", "/V/", f"/V/{signed}", f"/intake/sites/{site.code}/",
                     f"/intake/sites/{site.code}/record")
    ]  # fmt: skip


def scan_buttons(page: Page, portal_url: str, addresses: list[str]) -> dict[str, int]:
    """How many Scan buttons each page shows to a clerk, once its scripts have run."""
    sign_in(page, portal_url, *CLERK)
    shown = {}
    for address in addresses:
        page.goto(address)
        page.wait_for_load_state("networkidle")
        shown[address.removeprefix(portal_url)] = page.locator("[data-scan-start]:visible").count()
    return shown


@pytest.mark.parametrize("javascript", [False, True], ids=["no-javascript", "no-qr-reader"])
def test_no_scan_button_where_the_browser_cannot_scan(
    watched_context: Callable[..., BrowserContext], portal_url: str, javascript: bool
):
    page = watched_context(**PHONE, java_script_enabled=javascript).new_page()
    shown = scan_buttons(page, portal_url, scanning_pages(portal_url))
    assert shown == dict.fromkeys(shown, 0)


def test_where_the_browser_can_scan_each_page_shows_its_scan_button_and_may_use_the_camera(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    context = watched_context(**PHONE)
    context.add_init_script(CAMERA_AND_QR_READER)
    page = context.new_page()
    addresses = scanning_pages(portal_url)
    shown = scan_buttons(page, portal_url, addresses)
    assert shown == dict.fromkeys(shown, 1)
    for address in addresses:
        page.goto(address)
        assert page.evaluate("document.featurePolicy.allowsFeature('camera')"), address
        page.locator("[data-scan-start]").click()
        expect(page.locator("[data-scan-video]")).to_be_visible()
