"""An address too long, opened in Chromium on the portal under gunicorn as `make run` and
production serve it: the portal's own page, as strict and accessible as every other, whose
headers the browser takes without complaint."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from scripts import servers
from tests.e2e.conftest import CspWatch, assert_accessible

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def gunicorn_portal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[servers.Server]:
    server = servers.start_portal(tmp_path_factory.mktemp("portal"), workers=1, threads=2)
    yield server
    server.stop()


def test_an_address_too_long_shows_the_portals_own_page(
    page: Page, gunicorn_portal: servers.Server, csp: CspWatch
):
    response = page.goto(gunicorn_portal.endpoint("/standards/" + "x" * 5000 + "/"))
    assert response is not None and response.status == 414
    expect(page).to_have_title("Address too long · Assurance portal")
    expect(page.get_by_role("heading", level=1)).to_have_text("That address is too long")
    header = page.locator("header.site-header")  # the portal's layout, with its link home
    expect(header.get_by_role("link", name="Assurance portal")).to_have_attribute("href", "/")
    assert_accessible(page)

    page.get_by_role("link", name="Go to the home page").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Sign in")
    complaints = [line for line in csp.console if "Permissions-Policy" in line]
    assert complaints == []  # Chromium knows every feature the policy names
