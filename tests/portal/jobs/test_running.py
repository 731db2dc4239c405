"""Running a job in this process, as the worker does (its kind's task, on JobTask): its file,
its progress, cancelling, credentials that have ended, running twice, expiry."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
import redis
from celery.exceptions import Retry
from django.utils import timezone

from portal.accounts import credentials
from portal.assurance import service
from portal.jobs import actions, tasks
from portal.jobs.models import Job
from portal.standards import cached
from portal.standards.addresses import LIVE
from tests.jobs import run
from tests.portal.jobs.conftest import files_in, new_job
from tests.portal.jobs.kinds import scheme_references
from tests.portal.standards.helpers import CROPS


def crops_references(grower) -> set[tuple[str, str]]:
    token = credentials.bearer(grower.session)
    listing = cached.sections(token, LIVE, CROPS).record
    return {
        (entry.name, point.reference)
        for entry, data in cached.every_section(token, LIVE, CROPS, listing)
        for point in data.standard_points
    }


def rows_of(job: Job) -> set[tuple[str, str]]:
    with job.result.open("rb") as result:
        rows = list(csv.reader(io.StringIO(result.read().decode())))
    assert rows[0] == ["section", "reference"]
    return {(section, reference) for section, reference in rows[1:]}


def test_a_job_makes_its_file_and_ends_done(grower, job_files):
    job = run(new_job(grower))
    assert job.state == Job.State.DONE
    assert job.done == job.total > 0
    assert job.result_name.endswith("references.csv")
    assert rows_of(job) == crops_references(grower)
    assert job.credential == ""  # no token outlives its job
    assert job.expires - job.finished == timedelta(days=7)


def test_a_job_that_runs_twice_makes_one_file(grower, job_files):
    job = new_job(grower)
    run(job)
    Job.objects.filter(pk=job.pk).update(state=Job.State.RUNNING, credential=job.credential)
    run(job)  # as after a worker died between writing the file and acknowledging
    assert len(files_in(job_files)) == 1
    job.refresh_from_db()
    assert rows_of(job) == crops_references(grower)


def test_a_message_delivered_again_after_the_job_ended_does_nothing(grower, job_files):
    finished = run(new_job(grower))
    assert run(finished).finished == finished.finished


def test_a_cancelled_job_stops_and_keeps_no_file(grower, job_files, monkeypatch):
    work = scheme_references.run

    def cancelled_after_a_section(job, token, progress):
        def cancel_then_progress(done: int, total: int) -> None:
            if done == 1:
                actions.cancel(job)  # as its owner does from a page, meanwhile
            progress(done, total)

        return work(job, token, cancel_then_progress)

    monkeypatch.setattr(scheme_references, "run", cancelled_after_a_section)
    job = run(new_job(grower))
    assert job.state == Job.State.CANCELLED
    assert job.done < job.total
    assert job.credential == ""
    assert files_in(job_files) == []


def test_ended_credentials_stop_the_job_until_its_user_signs_in_again(grower, rf, job_files):
    job = run(new_job(grower, credential=credentials.encrypt("a-token-the-service-does-not-know")))
    assert (job.state, job.message, job.needs_sign_in) == (
        Job.State.FAILED, "Sign in again to finish this", True,
    )  # fmt: skip
    assert job.credential == ""


def test_a_service_out_of_reach_fails_the_job_saying_so(grower, settings, job_files):
    job = new_job(grower)
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"  # nothing listens there
    service.client.cache_clear()
    job = run(job)
    assert (job.state, job.message) == (
        Job.State.FAILED, "The Assurance service did not answer. Try again in a few minutes.",
    )  # fmt: skip
    assert job.credential  # kept, for its owner or staff to retry it
    assert files_in(job_files) == []


def test_progress_is_written_at_most_twice_a_second_and_always_at_the_end(grower):
    job = new_job(grower, state=Job.State.RUNNING)
    progress = tasks.ProgressRecorder(job)
    progress(1, 100)
    progress(50, 100)  # too soon after the first: not written
    assert (Job.objects.get(pk=job.pk).done, Job.objects.get(pk=job.pk).total) == (1, 100)
    progress(100, 100)
    assert Job.objects.get(pk=job.pk).done == 100


def test_progress_never_falls_when_a_job_runs_again(grower):
    job = new_job(grower, state=Job.State.RUNNING, done=40, total=100)
    tasks.ProgressRecorder(job)(3, 100)
    assert Job.objects.get(pk=job.pk).done == 40


def test_progress_of_a_cancelled_job_stops_its_work(grower):
    job = new_job(grower, state=Job.State.CANCELLED)
    with pytest.raises(tasks.JobCancelled):
        tasks.ProgressRecorder(job)(1, 10)


def test_expired_jobs_and_their_files_are_removed(grower, job_files):
    kept, expired = run(new_job(grower)), run(new_job(grower))
    Job.objects.filter(pk=expired.pk).update(expires=timezone.now() - timedelta(seconds=1))
    assert tasks.remove_expired() == 1
    assert list(Job.objects.values_list("pk", flat=True)) == [kept.pk]
    assert files_in(job_files) == [job_files / Job.objects.get(pk=kept.pk).result.name]


def test_jobs_lost_by_the_broker_are_sent_again(grower, settings, monkeypatch):
    sent = []
    monkeypatch.setattr(scheme_references, "delay", sent.append)
    lost, recent = new_job(grower), new_job(grower)
    long_ago = timezone.now() - timedelta(
        seconds=settings.PORTAL_JOB_VISIBILITY_TIMEOUT + settings.PORTAL_JOB_TIME_LIMIT + 1
    )
    Job.objects.filter(pk=lost.pk).update(touched=long_ago)
    assert tasks.send_lost_again() == 1
    assert sent == [lost.pk]
    assert recent.pk not in sent


def test_a_job_that_meets_redis_out_of_reach_is_tried_again_not_failed(grower, monkeypatch):
    def redis_gone(job, token, progress):
        progress(1, 10)
        raise redis.ConnectionError("Connection refused")

    monkeypatch.setattr(scheme_references, "run", redis_gone)
    job = new_job(grower)
    with pytest.raises(Retry):
        run(job)
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING and job.credential != ""
