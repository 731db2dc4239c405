"""/jobs/: the user's jobs with their states."""

from __future__ import annotations

from portal.jobs.models import Job
from tests.jobs import run
from tests.portal.jobs.conftest import new_job
from tests.portal.pages import navigation


def test_it_says_when_there_are_none(grower):
    page = grower.get("/jobs/").content.decode()
    assert "You have no jobs." in page
    assert '<a href="/jobs/" aria-current="page">Your jobs</a>' in navigation(page)


def test_it_lists_the_users_jobs_with_their_states(grower, stranger):
    done = new_job(grower, title="References, done")
    run(done)
    new_job(grower, title="References, running", state=Job.State.RUNNING, done=2, total=9)
    new_job(stranger, title="Someone else's")
    page = grower.get("/jobs/").content.decode()
    assert "References, running" in page and "Running: 2 of 9" in page
    assert "References, done" in page and f'href="/jobs/{done.pk}/download/"' in page
    assert "Someone else" not in page


def test_every_page_links_to_it(grower):
    assert '<a href="/jobs/">Your jobs</a>' in navigation(grower.get("/").content.decode())


def test_it_needs_a_signed_in_user(client, db):
    assert client.get("/jobs/").status_code == 302
