"""Exporting a whole scheme in the browser: from the scheme's page, the bar moving in place, the
PDF and the CSV downloaded and read back, the jobs found on "Your jobs"; and without JavaScript.

The job runs in this process, as the worker would run it (tests/portal/jobs/test_worker.py runs
jobs on a real worker); here it is slowed a little between sections, so that the bar can be seen
to move."""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import pypdf
import pytest
from playwright.sync_api import Page, expect

from portal.jobs.models import Job
from portal.standards import exports
from portal.standards import tasks as standards_tasks
from portal.standards.tasks import scheme_csv, scheme_pdf
from tests.e2e.conftest import GROWER, assert_accessible, sign_in
from tests.jobs import run, run_in_the_background
from tests.portal.standards.helpers import CROPS, demo

pytestmark = pytest.mark.browser

SCHEME = demo("crops")


def every_point() -> list[tuple[str, str, list[str]]]:
    """The crops scheme's sections (code and name) with their points' references."""
    return [
        (code := f"{s['sector']}.{s['prefix']}", s["name"],
         [f"{code}.{p['number']}" for p in s["points"]])
        for s in SCHEME["sections"]
    ]  # fmt: skip


@pytest.fixture
def slowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each section of an export takes a moment longer."""
    whole_scheme = exports.whole_scheme

    def slowly(credentials, stage, scheme_guid, progress, **options):
        def step(done: int, total: int) -> None:
            time.sleep(0.3)
            progress(done, total)

        return whole_scheme(credentials, stage, scheme_guid, step, **options)

    monkeypatch.setattr(standards_tasks.exports, "whole_scheme", slowly)


def download(page: Page, link_name: str) -> bytes:
    with page.expect_download() as downloaded:
        page.get_by_role("link", name=link_name).click()
    return Path(downloaded.value.path()).read_bytes()


def test_a_grower_exports_the_whole_scheme_and_finds_every_point(
    signed_in_page: Page, portal_url: str, slowed
):
    page = signed_in_page
    page.goto(f"{portal_url}/standards/{CROPS}/")
    expect(page.get_by_role("heading", name="The whole scheme")).to_be_visible()
    assert_accessible(page)

    # The PDF checklist: its progress takes the buttons' place, and moves.
    page.get_by_role("button", name="Make a PDF checklist").click()
    bar = page.locator("#scheme-export progress")
    expect(bar).to_be_visible()
    assert_accessible(page)
    worker = run_in_the_background(scheme_pdf.name)
    seen = set()
    pdf_name = "Download combinable-crops-and-sugar-beet.pdf"
    link = page.get_by_role("link", name=pdf_name)
    while not link.is_visible() and worker.is_alive():
        if bar.count():
            seen.add(bar.get_attribute("value"))
        page.wait_for_timeout(100)
    worker.join()
    assert len(seen - {None}) >= 2, seen  # the bar moved
    pdf = pypdf.PdfReader(io.BytesIO(download(page, pdf_name)))
    text = " ".join(" ".join(p.extract_text() for p in pdf.pages).split())
    for code, name, references in every_point():
        assert f"{code} {name}" in text
        for reference in references:
            assert f"{reference} " in text, reference
    assert_accessible(page)

    # The CSV, from the page again.
    page.goto(f"{portal_url}/standards/{CROPS}/")
    page.get_by_role("button", name="Make a CSV file").click()
    expect(page.locator("#scheme-export progress")).to_be_visible()
    run_in_the_background(scheme_csv.name).join()
    rows = list(csv.DictReader(io.StringIO(
        download(page, "Download combinable-crops-and-sugar-beet.csv").decode("utf-8-sig")
    )))  # fmt: skip
    assert [(r["Section"], r["Reference"]) for r in rows] == [
        (code, reference) for code, _, references in every_point() for reference in references
    ]

    # Both on "Your jobs".
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Your jobs").click()
    expect(page.locator(".job")).to_have_count(2)
    assert_accessible(page)


def test_without_javascript_the_export_has_a_page_of_its_own(watched_context, portal_url: str):
    page = watched_context(java_script_enabled=False).new_page()
    sign_in(page, portal_url, *GROWER, next_path=f"/standards/{CROPS}/")
    with page.expect_navigation():
        page.get_by_role("button", name="Make a CSV file").click()
    job = Job.objects.get(kind=scheme_csv.name)
    assert page.url == f"{portal_url}/jobs/{job.pk}/"
    run(job)
    link = page.get_by_role("link", name="Download combinable-crops-and-sugar-beet.csv")
    expect(link).to_be_visible(timeout=10_000)  # the page refreshed itself
    assert download(page, "Download combinable-crops-and-sugar-beet.csv").startswith(
        b"\xef\xbb\xbfSection,Section name,Reference"
    )
