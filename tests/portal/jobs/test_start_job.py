"""start_job: what a view calls to start a job for the signed-in user."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import RequestFactory
from django.utils import timezone

from portal.accounts import credentials
from portal.jobs import actions
from portal.jobs.actions import start_job
from portal.jobs.models import Job
from tests.portal.jobs.kinds import KIND, scheme_references
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
    monkeypatch.setattr(scheme_references, "delay", messages.append)
    return messages


def start(request, key: str = KEY) -> Job:
    return start_job(request, scheme_references, "References of the crops scheme",
                     {"scheme": CROPS}, key)  # fmt: skip


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


def test_a_failed_job_of_the_same_key_is_queued_again_with_the_current_sign_in(
    request_of, sent, django_capture_on_commit_callbacks
):
    failed = start(request_of)
    Job.objects.filter(pk=failed.pk).update(state=Job.State.FAILED, credential="", message="x")
    with django_capture_on_commit_callbacks(execute=True):
        again = start(request_of)
    assert again == failed and again.state == Job.State.QUEUED and again.message == ""
    assert credentials.decrypt(again.credential) == credentials.bearer(request_of.session).token
    assert sent == [failed.pk]


def test_a_cancelled_or_expired_job_is_not_reused(request_of, sent):
    cancelled = start(request_of)
    actions.cancel(cancelled)
    expired = start(request_of)
    assert expired != cancelled
    Job.objects.filter(pk=expired.pk).update(
        state=Job.State.DONE, expires=timezone.now() - timedelta(seconds=1)
    )
    assert start(request_of) not in (cancelled, expired)


def test_a_cancelled_job_expires_as_others_do(request_of, sent):
    job = start(request_of)
    actions.cancel(job)
    job.refresh_from_db()
    assert job.expires - job.finished == timedelta(days=7)

    assert job.kind == KIND


def test_resuming_a_job_of_a_kind_the_portal_no_longer_has_does_nothing(request_of, sent):
    job = start(request_of)
    Job.objects.filter(pk=job.pk).update(state=Job.State.FAILED, kind="a-kind-since-removed")
    job.refresh_from_db()
    assert actions.resume(request_of, job) is False
    assert Job.objects.get(pk=job.pk).state == Job.State.FAILED
