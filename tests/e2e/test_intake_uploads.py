"""A site's day of tickets uploaded in Chromium, as a clerk does it on a 360-pixel phone, with and
without JavaScript: the page with its template and columns, a file refused beside its field,
then a file of three rows, one bad, whose job's page shows the counts and the row refused, and
gives its report. axe-core on each page (with JavaScript: axe needs it)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import BrowserContext, expect

from tests.e2e.conftest import PHONE, assert_accessible, no_sideways_scroll, sign_in
from tests.portal.intake.builders import a_site, tickets_file, upload_row
from tests.portal.passports.made import made_here

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("javascript", [True, False])
def test_a_clerk_uploads_a_days_tickets_on_a_phone(
    watched_context: Callable[..., BrowserContext], portal_url: str, worker, tmp_path: Path,
    javascript: bool,
):  # fmt: skip
    page = watched_context(**PHONE, java_script_enabled=javascript).new_page()
    sign_in(page, portal_url, "grower", "grower-demo-pass")  # the grower makes the passport
    code = made_here()
    page.context.clear_cookies()
    sign_in(page, portal_url, "haulier", "haulier-demo-pass")
    site = a_site()
    site.clerks.add(get_user_model().objects.get(username="haulier"))
    page.goto(f"{portal_url}/intake/sites/{site.code}/upload")
    expect(page.get_by_role("heading", name="Upload a day's tickets")).to_be_visible()
    expect(page.get_by_role("link", name="an Excel workbook (.xlsx)")).to_be_visible()
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)

    not_a_sheet = tmp_path / "tickets.xlsx"
    not_a_sheet.write_text("short_code,ticket\n")
    page.get_by_label("The day's tickets").set_input_files(not_a_sheet)
    page.get_by_role("button", name="Upload and record").click()
    expect(page.get_by_role("alert")).to_contain_text("Nothing was recorded.")
    expect(page.locator(".field-error")).to_contain_text("named .xlsx but is not an Excel workbook")
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)

    tickets = tmp_path / "monday.csv"
    tickets.write_bytes(tickets_file([upload_row(code, "T-1"), upload_row(code, "T-2"),
                                      upload_row(code, "T-3", moisture="300")]))  # fmt: skip
    page.get_by_label("The day's tickets").set_input_files(tickets)
    page.get_by_role("button", name="Upload and record").click()
    expect(page.get_by_text("2 recorded, 1 refused.")).to_be_visible(timeout=20_000)
    expect(page.get_by_text("Row 4, ticket T-3:")).to_be_visible()
    expect(page.get_by_text("moisture: Moisture of 300 % cannot be measured")).to_be_visible()
    no_sideways_scroll(page)
    if javascript:
        assert_accessible(page)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download monday-report.csv").click()
    report = Path(download.value.path()).read_text(encoding="utf-8-sig")
    outcomes = [line["outcome"] for line in csv.DictReader(io.StringIO(report))]
    assert outcomes == ["recorded", "recorded", "refused"]
