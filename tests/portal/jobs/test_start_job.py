"""start_job: what a view calls to start a job for the signed-in user."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import RequestFactory
from django.utils import timezone

from portal.accounts import credentials
from portal.jobs import running
from portal.jobs.models import Job
from portal.jobs.running import start_job
from tests.portal.jobs.kinds import KIND
from tests.portal.standards.helpers import CROPS

KEY = f"{KIND}:live:{CROPS}:v1"


@pytest.fixture
def request_of(grower):
    request = RequestFactory().post("/")
    request.session = grower.session
    request.user = Job._meta.get_field("owner").related_model.objects.get(username="grower")
    return request


@pytest.fixture
def sent(monkeypatch) -> list:
    messages: list = []
    monkeypatch.setattr("portal.jobs.tasks.run_job.delay", messages.append)
    return messages


def start(request, key: str = KEY) -> Job:
    return start_job(request, KIND, "References of the crops scheme", {"scheme": CROPS}, key)


def test_it_sends_only_the_jobs_id_once_the_transaction_commits(
    request_of, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = start(request_of)
        assert sent == []
    assert sent == [job.pk]
    assert job.state == Job.State.QUEUED
    token = credentials.bearer(request_of.session).token
    assert token not in job.credential  # kept encrypted
    assert credentials.decrypt(job.credential) == token


def test_a_second_start_of_the_same_key_reuses_the_job(request_of, sent):
    first = start(request_of)
    assert start(request_of) == first
    Job.objects.filter(pk=first.pk).update(state=Job.State.DONE)
    assert start(request_of) == first
    assert start(request_of, KEY + "-other") != first


def test_a_failed_cancelled_or_expired_job_is_not_reused(request_of, sent):
    failed = start(request_of)
    Job.objects.filter(pk=failed.pk).update(state=Job.State.FAILED)
    cancelled = start(request_of)
    assert cancelled != failed
    running.cancel(cancelled)
    expired = start(request_of)
    assert expired not in (failed, cancelled)
    Job.objects.filter(pk=expired.pk).update(
        state=Job.State.DONE, expires=timezone.now() - timedelta(seconds=1)
    )
    assert start(request_of) not in (failed, cancelled, expired)


def test_a_cancelled_job_expires_as_others_do(request_of, sent):
    job = start(request_of)
    running.cancel(job)
    job.refresh_from_db()
    assert job.expires - job.finished == timedelta(days=7)


def test_it_refuses_a_kind_nobody_registered(request_of):
    with pytest.raises(ValueError, match="No job of kind"):
        start_job(request_of, "no-such-kind", "Nothing", {})
