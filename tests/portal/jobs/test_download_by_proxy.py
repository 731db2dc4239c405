"""A job's file sent by nginx (X-Accel-Redirect) once the portal has checked who asks:
PORTAL_PROTECTED_FILES_PREFIX set and the files on the file system."""

from __future__ import annotations

import pytest
from django.core.files.storage import InMemoryStorage

from portal.jobs.models import Job
from tests.jobs import run
from tests.portal.jobs.conftest import new_job

PREFIX = "/_protected/job-files/"


@pytest.fixture
def behind_nginx(settings) -> str:
    settings.PORTAL_PROTECTED_FILES_PREFIX = PREFIX
    return PREFIX


def test_the_owner_gets_an_empty_answer_naming_the_file_for_nginx(grower, behind_nginx, job_files):
    job = new_job(grower)
    run(job)
    job.refresh_from_db()
    response = grower.get(f"/jobs/{job.pk}/download/")
    assert response.status_code == 200
    assert response["X-Accel-Redirect"] == f"/_protected/job-files/jobs/{job.pk}/result"
    assert (job_files / "jobs" / str(job.pk) / "result").read_bytes().startswith(b"section,")
    assert response["Content-Type"] == "text/csv"
    assert response["Content-Disposition"].startswith("attachment;")
    assert "references.csv" in response["Content-Disposition"]
    assert response.content == b""


def test_a_stranger_gets_no_file_name(grower, stranger, behind_nginx):
    job = new_job(grower)
    run(job)
    response = stranger.get(f"/jobs/{job.pk}/download/")
    assert response.status_code == 404 and "X-Accel-Redirect" not in response


def test_a_job_not_done_names_no_file(grower, behind_nginx):
    job = new_job(grower, state=Job.State.RUNNING)
    response = grower.get(f"/jobs/{job.pk}/download/")
    assert response.status_code == 404 and "X-Accel-Redirect" not in response


def test_a_file_that_has_gone_is_not_found(grower, behind_nginx, job_files):
    job = new_job(grower)
    run(job)
    (job_files / "jobs" / str(job.pk) / "result").unlink()
    response = grower.get(f"/jobs/{job.pk}/download/")
    assert response.status_code == 404 and "X-Accel-Redirect" not in response


def test_without_the_prefix_the_portal_sends_the_file_itself(grower, job_files):
    job = new_job(grower)
    run(job)
    response = grower.get(f"/jobs/{job.pk}/download/")
    assert "X-Accel-Redirect" not in response
    assert b"".join(response.streaming_content).startswith(b"section,reference")


def test_files_not_on_the_file_system_are_sent_by_the_portal(grower, behind_nginx, monkeypatch):
    """Object storage (S3): nginx cannot read them, so the portal streams them."""
    monkeypatch.setattr(Job._meta.get_field("result"), "storage", InMemoryStorage())
    job = new_job(grower)
    run(job)
    response = grower.get(f"/jobs/{job.pk}/download/")
    assert response.status_code == 200 and "X-Accel-Redirect" not in response
    assert b"".join(response.streaming_content).startswith(b"section,reference")
