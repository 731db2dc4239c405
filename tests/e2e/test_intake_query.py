"""Querying a load's result in Chromium, on a 360-pixel phone: the grower opens "Query this
result" in the passport's "At intake", attaches the laboratory's certificate and sends it; a file
that is not a PDF is refused beside its field, in place; the page then says "Query open" and
shows the query in the load's history, with the certificate to download. Without JavaScript
the same form works, its errors on a page of its own. The clerk of the site answers it on the
answer's page. axe-core on each state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from portal.accounts.session import portal_user
from tests.e2e.conftest import GROWER, PHONE, assert_accessible, no_sideways_scroll, sign_in
from tests.portal.intake.builders import a_certificate, a_load, a_site, queried

pytestmark = pytest.mark.browser

WHY = "Our own test of the sample gave 77.1 kg/hl, above the specification."


def a_pdf(content: bytes, name: str = "certificate.pdf") -> dict:
    return {"name": name, "mimeType": "application/pdf", "buffer": content}


def opens_the_load(page: Page, portal_url: str, load) -> None:
    page.goto(f"{portal_url}/passports/{load.passport.short_code}/")
    expect(page.get_by_role("region", name="At intake")).to_contain_text("ticket T-1001")


def test_on_a_phone_the_grower_queries_a_result_with_the_laboratory_s_certificate(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, *GROWER)
    load = a_load(a_site())
    opens_the_load(page, portal_url, load)
    page.get_by_text("Query this result", exact=True).click()
    words = page.get_by_label("Why you query this result")
    expect(words).to_be_visible()
    no_sideways_scroll(page)
    assert_accessible(page)

    words.fill(WHY)
    certificate = page.get_by_label("Laboratory certificate")
    certificate.set_input_files(a_pdf(b"\x89PNG\r\n\x1a\n" + bytes(2048)))  # a renamed image
    page.get_by_role("button", name="Send the query").click()
    expect(page.locator(f"#query-{load.pk}-certificate_error")).to_have_text(
        "This file is not a PDF, whatever its name says: attach the certificate as a PDF."
    )
    expect(certificate).to_have_attribute("aria-invalid", "true")
    expect(words).to_have_value(WHY)  # kept, in place
    assert page.url.endswith(f"/passports/{load.passport.short_code}/")
    no_sideways_scroll(page)
    assert_accessible(page)

    content = a_certificate()
    certificate.set_input_files(a_pdf(content))
    page.get_by_role("button", name="Send the query").click()
    expect(page.get_by_role("status")).to_contain_text("Your query is sent to Stour Valley Grain")
    section = page.get_by_role("region", name="At intake")
    expect(section).to_contain_text("Query open")
    history = section.locator(".intake-history > li")
    expect(history).to_have_count(2)
    expect(history.nth(0)).to_contain_text("Recorded by intake")
    expect(history.nth(1)).to_contain_text("Queried by grower on")
    expect(history.nth(1)).to_contain_text(WHY)
    expect(section.get_by_text("Query this result", exact=True)).to_have_count(0)
    no_sideways_scroll(page)
    assert_accessible(page)

    with page.expect_download() as downloaded:
        section.get_by_role("link", name="Laboratory certificate (PDF)").click()
    assert Path(downloaded.value.path()).read_bytes() == content


def test_without_javascript_a_refused_query_is_shown_on_a_page_of_its_own(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    page = watched_context(**PHONE, java_script_enabled=False).new_page()
    sign_in(page, portal_url, *GROWER)
    load = a_load(a_site())
    opens_the_load(page, portal_url, load)
    page.get_by_text("Query this result", exact=True).click()
    page.get_by_role("button", name="Send the query").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Query the result of ticket T-1001")
    expect(page.locator(f"#query-{load.pk}-words_error")).to_have_text(
        "Say why you query this result."
    )
    page.get_by_label("Why you query this result").fill(WHY)
    page.get_by_role("button", name="Send the query").click()
    expect(page.get_by_role("region", name="At intake")).to_contain_text("Query open")
    no_sideways_scroll(page)


def test_on_a_phone_the_clerk_answers_the_query(
    watched_context: Callable[..., BrowserContext], portal_url: str
):
    portal_user("grower")  # the passport's maker
    site = a_site()
    load = a_load(site)
    queried(load, WHY, certificate=a_certificate())
    site.clerks.add(portal_user("haulier"))  # of no membership
    page = watched_context(**PHONE).new_page()
    sign_in(page, portal_url, "haulier", "haulier-demo-pass")
    page.goto(f"{portal_url}/intake/loads/{load.pk}/answer")
    expect(page.get_by_role("heading", name="Query open")).to_be_visible()
    expect(page.locator("blockquote")).to_have_text(WHY)
    expect(page.get_by_role("button", name="Stand by the result")).to_have_accessible_description(
        "Stand by the result tells the grower that the result stands as recorded, with your "
        'words as why ("Result upheld" in the history), and closes the query.'
    )
    expect(page.get_by_role("button", name="Answer", exact=True)).to_have_accessible_description(
        "Answer sends your words to the grower as the site's answer (your explanation, or what "
        "you will do), and closes the query."
    )
    no_sideways_scroll(page)
    assert_accessible(page)

    page.get_by_role("button", name="Answer", exact=True).click()
    expect(page.get_by_label("Your answer")).to_have_attribute("aria-invalid", "true")
    assert_accessible(page)
    page.get_by_label("Your answer").fill("Retested: 72.6 kg/hl. The claim stands.")
    page.get_by_role("button", name="Stand by the result").click()
    expect(page.get_by_role("status")).to_contain_text("The grower sees that the result stands")
    expect(page.locator(".intake-history > li").nth(2)).to_contain_text(
        "Result upheld by haulier on"
    )
    expect(page).to_have_url(f"{portal_url}/intake/loads/{load.pk}/")  # the load's page
    expect(page.get_by_role("heading", name="Query open")).to_have_count(0)
    no_sideways_scroll(page)
    assert_accessible(page)
