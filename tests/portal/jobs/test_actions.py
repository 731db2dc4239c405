"""Cancel, retry or resume, and download: POSTs and the file, for the owner alone."""

from __future__ import annotations

from portal.accounts import credentials
from portal.jobs.models import Job
from tests.jobs import run
from tests.portal.jobs.conftest import files_in, new_job
from tests.portal.jobs.kinds import scheme_references

HTMX = {"HX-Request": "true"}


def test_cancel_stops_a_job_and_goes_back_to_its_page(grower):
    job = new_job(grower, state=Job.State.RUNNING)
    response = grower.post(f"/jobs/{job.pk}/cancel/")
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.pk}/"
    job.refresh_from_db()
    assert job.state == Job.State.CANCELLED and job.credential == ""


def test_cancel_by_htmx_answers_the_ended_fragment(grower):
    job = new_job(grower, state=Job.State.QUEUED)
    response = grower.post(f"/jobs/{job.pk}/cancel/", headers=HTMX)
    assert response.status_code == 286
    assert "<html" not in response.content.decode() and "cancelled" in response.content.decode()


def test_cancel_needs_a_post(grower):
    job = new_job(grower, state=Job.State.RUNNING)
    assert grower.get(f"/jobs/{job.pk}/cancel/").status_code == 405


def test_resume_queues_the_job_again_with_the_current_sign_in(
    grower, job_files, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr(scheme_references, "delay", sent.append)
    job = new_job(grower, credential=credentials.encrypt("a-token-the-service-does-not-know"))
    run(job)
    with django_capture_on_commit_callbacks(execute=True):
        response = grower.post(f"/jobs/{job.pk}/resume/")
    assert response.status_code == 302
    assert sent == [job.pk]  # only its id travels
    job.refresh_from_db()
    assert job.state == Job.State.QUEUED and not job.needs_sign_in
    assert credentials.decrypt(job.credential) == credentials.bearer(grower.session).token
    run(job)
    job.refresh_from_db()
    assert job.state == Job.State.DONE and len(files_in(job_files)) == 1


def test_resume_by_htmx_answers_the_fragment_that_polls_again(
    grower, django_capture_on_commit_callbacks
):
    job = new_job(grower, state=Job.State.FAILED, message="Something went wrong.")
    with django_capture_on_commit_callbacks(execute=False):
        response = grower.post(f"/jobs/{job.pk}/resume/", headers=HTMX)
    assert response.status_code == 200
    assert 'hx-trigger="every 1s"' in response.content.decode()


def test_download_gives_the_file_as_an_attachment(grower):
    job = new_job(grower)
    run(job)
    response = grower.get(f"/jobs/{job.pk}/download/")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv"
    assert response["Content-Disposition"].startswith("attachment;")
    assert "references.csv" in response["Content-Disposition"]
    assert b"".join(response.streaming_content).startswith(b"section,reference")


def test_download_is_not_found_before_the_job_is_done(grower):
    job = new_job(grower, state=Job.State.RUNNING)
    assert grower.get(f"/jobs/{job.pk}/download/").status_code == 404


def test_another_users_job_and_file_are_not_found(grower, stranger):
    job = new_job(grower)
    run(job)
    assert stranger.get(f"/jobs/{job.pk}/download/").status_code == 404
    assert stranger.post(f"/jobs/{job.pk}/cancel/").status_code == 404
    assert stranger.post(f"/jobs/{job.pk}/resume/").status_code == 404
    assert Job.objects.get(pk=job.pk).state == Job.State.DONE
