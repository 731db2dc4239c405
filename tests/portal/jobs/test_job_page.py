"""/jobs/<id>/: the job's page, and its progress fragment for htmx."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from portal.jobs import tasks
from portal.jobs.models import Job
from tests.jobs import run
from tests.portal.jobs.conftest import new_job

HTMX = {"HX-Request": "true"}
REFRESH = '<noscript><meta http-equiv="refresh" content="2"></noscript>'


def test_it_shows_a_running_job_with_its_bar_and_refreshes_itself(grower):
    job = new_job(grower, state=Job.State.RUNNING, done=3, total=12)
    response = grower.get(f"/jobs/{job.pk}/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "<html" in page
    assert '<progress id="job-' in page and 'max="12" value="3"' in page
    assert "3 of 12 done" in page
    assert 'hx-trigger="every 1s"' in page
    assert REFRESH in page
    assert f'action="/jobs/{job.pk}/cancel/"' in page
    assert response["Vary"].count("HX-Request") == 1


def test_its_fragment_is_the_progress_alone_while_the_job_runs(grower):
    job = new_job(grower, state=Job.State.RUNNING, done=3, total=12)
    response = grower.get(f"/jobs/{job.pk}/", headers=HTMX)
    fragment = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in fragment
    assert fragment.lstrip().startswith('<div class="job-progress"')
    assert f'hx-get="/jobs/{job.pk}/?shown=running.3.12.0"' in fragment
    # htmx puts the fragment in place as the page's own elements: a refresh in it would be
    # obeyed with JavaScript too, and take the user off the page.
    assert "http-equiv" not in fragment


def test_its_fragment_answers_204_while_nothing_has_changed_since_it_was_shown(grower):
    job = new_job(grower, state=Job.State.RUNNING, done=3, total=12)
    unchanged = grower.get(f"/jobs/{job.pk}/?shown=running.3.12.0", headers=HTMX)
    assert (unchanged.status_code, unchanged.content) == (204, b"")
    Job.objects.filter(pk=job.pk).update(done=4)
    moved = grower.get(f"/jobs/{job.pk}/?shown=running.3.12.0", headers=HTMX)
    assert moved.status_code == 200
    assert "4 of 12 done" in moved.text
    assert f'hx-get="/jobs/{job.pk}/?shown=running.4.12.0"' in moved.text


def test_its_fragment_shows_a_waiting_job_s_new_message(grower):
    job = new_job(grower, state=Job.State.QUEUED, message="Trying again at 10:41:00.")
    shown = job.shown
    Job.objects.filter(pk=job.pk).update(message="Trying again at 10:42:00.")
    moved = grower.get(f"/jobs/{job.pk}/?shown={shown}", headers=HTMX)
    assert moved.status_code == 200
    assert "Trying again at 10:42:00." in moved.text


def test_its_fragment_answers_286_once_the_job_is_done_with_the_download(grower):
    job = new_job(grower)
    shown = job.shown
    run(job)
    response = grower.get(f"/jobs/{job.pk}/?shown={shown}", headers=HTMX)
    fragment = response.content.decode()
    assert response.status_code == 286
    assert f'href="/jobs/{job.pk}/download/"' in fragment
    assert "hx-trigger" not in fragment
    assert REFRESH not in fragment


def test_a_done_job_page_stops_refreshing(grower):
    job = new_job(grower)
    run(job)
    page = grower.get(f"/jobs/{job.pk}/").content.decode()
    assert REFRESH not in page
    assert "hx-trigger" not in page
    assert f'href="/jobs/{job.pk}/download/"' in page


def test_a_failed_job_shows_why_with_a_retry_button(grower):
    job = new_job(grower, state=Job.State.FAILED, message="Something went wrong. Try again.")
    response = grower.get(f"/jobs/{job.pk}/", headers=HTMX)
    fragment = response.content.decode()
    assert response.status_code == 286
    assert "Something went wrong. Try again." in fragment
    assert f'action="/jobs/{job.pk}/resume/"' in fragment and ">Retry</button>" in fragment


def test_a_job_stopped_for_sign_in_offers_to_resume(grower):
    job = new_job(grower, state=Job.State.FAILED, needs_sign_in=True,
                  message=tasks.SIGN_IN_AGAIN)  # fmt: skip
    page = grower.get(f"/jobs/{job.pk}/").content.decode()
    assert "Sign in again to finish this" in page
    assert ">Resume</button>" in page


def test_it_is_not_found_for_anyone_but_its_owner(grower, stranger):
    job = new_job(grower, state=Job.State.RUNNING)
    assert stranger.get(f"/jobs/{job.pk}/").status_code == 404
    assert stranger.get(f"/jobs/{job.pk}/", headers=HTMX).status_code == 404


def test_it_needs_a_signed_in_user(client, grower):
    job = new_job(grower)
    client.logout()
    response = client.get(f"/jobs/{job.pk}/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/sign-in/")


def test_it_estimates_the_time_left_from_the_pace_so_far(grower):
    started = timezone.now() - timedelta(seconds=20)
    job = new_job(grower, state=Job.State.RUNNING, done=5, total=10, started=started)
    assert "About 20 seconds left." in grower.get(f"/jobs/{job.pk}/", headers=HTMX).text
    Job.objects.filter(pk=job.pk).update(done=1, total=10)
    assert "About 3 minutes left." in grower.get(f"/jobs/{job.pk}/", headers=HTMX).text
