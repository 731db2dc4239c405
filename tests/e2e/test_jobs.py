"""Jobs in the browser: "Your jobs", and a job's page whose bar moves as the job goes on, ends
with its download, and works without JavaScript; axe checks on each (axe needs JavaScript, so
not on the page without it, which is the same page)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import Page, expect

from portal.accounts import credentials
from portal.assurance.service import client
from portal.jobs.models import Job
from tests.e2e.conftest import GROWER, assert_accessible, sign_in
from tests.jobs import run
from tests.portal.jobs.kinds import KIND
from tests.portal.standards.helpers import CROPS

pytestmark = pytest.mark.browser


def running_job(done: int, total: int) -> Job:
    """A job of the grower's under way, acting with a token of theirs."""
    token = client().login(*GROWER).token
    return Job.objects.create(
        kind=KIND, owner=get_user_model().objects.get(username="grower"),
        title="References of the crops scheme", params={"scheme": CROPS},
        credential=credentials.encrypt(token), state=Job.State.RUNNING, done=done, total=total,
        started=timezone.now(),
    )  # fmt: skip


def bar(page: Page):
    return page.get_by_role("progressbar", name="Progress of References of the crops scheme")


def test_your_jobs_lists_the_users_jobs(signed_in_page: Page, portal_url: str):
    page = signed_in_page
    page.get_by_role("link", name="Your jobs").click()
    expect(page.get_by_role("heading", name="Your jobs")).to_be_visible()
    expect(page.get_by_text("You have no jobs.")).to_be_visible()
    assert_accessible(page)
    done = running_job(0, 0)
    run(done)
    running_job(3, 12)
    page.reload()
    expect(page.locator(".job")).to_have_count(2)
    expect(page.get_by_text("Running: 3 of 12")).to_be_visible()
    expect(page.get_by_role("link", name=re.compile(r"Download .*references\.csv"))).to_be_visible()
    assert_accessible(page)


def test_a_jobs_bar_moves_and_ends_with_its_download(signed_in_page: Page, portal_url: str):
    page = signed_in_page
    job = running_job(2, 10)
    page.goto(f"{portal_url}/jobs/{job.pk}/")
    page.evaluate("() => { window.__samePage = 'still here'; }")
    expect(bar(page)).to_have_attribute("value", "2")
    expect(page.get_by_text("2 of 10 done")).to_be_visible()
    assert_accessible(page)
    Job.objects.filter(pk=job.pk).update(done=7)
    expect(bar(page)).to_have_attribute("value", "7")  # polled, no reload
    page.wait_for_timeout(2500)  # longer than the refresh meant for pages without JavaScript
    assert page.evaluate("() => window.__samePage") == "still here", "the page was reloaded"
    run(job)
    download_link = page.get_by_role("link", name=re.compile(r"Download .*references\.csv"))
    expect(download_link).to_be_visible()
    expect(bar(page)).to_have_count(0)
    assert_accessible(page)
    with page.expect_download() as download:
        download_link.click()
    assert download.value.suggested_filename.endswith("references.csv")
    assert Path(download.value.path()).read_bytes().startswith(b"section,reference")


def test_a_job_can_be_cancelled_from_its_page(signed_in_page: Page, portal_url: str):
    page = signed_in_page
    job = running_job(1, 10)
    page.goto(f"{portal_url}/jobs/{job.pk}/")
    page.get_by_role("button", name="Cancel").click()
    expect(page.get_by_text("References of the crops scheme: cancelled.")).to_be_visible()
    assert Job.objects.get(pk=job.pk).state == Job.State.CANCELLED


def test_without_javascript_the_page_refreshes_itself(watched_context, portal_url: str):
    page = watched_context(java_script_enabled=False).new_page()
    sign_in(page, portal_url, *GROWER)
    job = running_job(4, 10)
    page.goto(f"{portal_url}/jobs/{job.pk}/")
    expect(page.get_by_text("4 of 10 done")).to_be_visible()
    refresh = page.locator('noscript meta[http-equiv="refresh"]')
    expect(refresh).to_have_count(1)
    run(job)
    download_link = page.get_by_role("link", name=re.compile(r"Download .*references\.csv"))
    expect(download_link).to_be_visible(timeout=10_000)
    expect(refresh).to_have_count(0)  # no refresh once the job has ended
