"""Webhooks the whole way, on a real Celery worker: a load recorded at intake reaches, signed,
the endpoint of its site and that of its passport's business once the recording commits, and
no one else's; many events committed together reach them once each, a few dozen deliveries a
task; with Redis out of reach when it commits, the sweep sends it once Redis is back.
The worker and its Redis as tests/workers.py has them (PostgreSQL and redis-server);
the receivers are one server on 127.0.0.1 of the test's own."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from portal.outbox import events, tasks
from portal.outbox.models import Delivery, EventType
from tests.demo import WENHAM
from tests.portal.intake.builders import a_load, a_site
from tests.portal.outbox.builders import LOOPBACK_NETWORKS, an_endpoint, verified
from tests.services import wait_for
from tests.workers import ON_A_WORKER, Worker, started, worker_environment

pytestmark = ON_A_WORKER

WAIT_SECONDS = 60


@pytest.fixture
def worker(redis_server, upstream_sandbox, job_files, tmp_path) -> Iterator[Worker]:
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files,
        PORTAL_WEBHOOK_ALLOWED_NETWORKS=",".join(LOOPBACK_NETWORKS),
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


@pytest.fixture
def site(grower):
    return a_site()


@pytest.fixture
def endpoints_of_everyone(receiver, site) -> dict[str, str]:
    """The secrets of four endpoints, by path: the grower's business's, the site's, another
    business's and another site's."""
    other_site = a_site(code="elsewhere", name="Elsewhere Mill")
    made = {
        "/farm": an_endpoint(receiver.url_for("/farm")),
        "/mill": an_endpoint(receiver.url_for("/mill"), site=site),
        "/other-farm": an_endpoint(receiver.url_for("/other-farm"), membership_guid=WENHAM),
        "/other-mill": an_endpoint(receiver.url_for("/other-mill"), site=other_site),
    }
    for path in made:
        receiver.expect_request(path, method="POST").respond_with_data("")
    return {path: secret for path, (_, secret) in made.items()}


def received(receiver) -> dict[str, dict]:
    return {request.path: request for request, _ in receiver.log}


def test_a_recorded_load_reaches_the_site_and_the_business_signed_and_no_one_else(
    worker, receiver, site, endpoints_of_everyone
):
    load = a_load(site)  # committed: the test's transactions are real
    wait_for(lambda: len(receiver.log) >= 2, "two deliveries", WAIT_SECONDS)
    time.sleep(2)  # time for any other to arrive
    sent = received(receiver)
    assert set(sent) == {"/farm", "/mill"}
    for path in ("/farm", "/mill"):
        payload = verified(endpoints_of_everyone[path], sent[path])
        assert payload["type"] == "intake.load.recorded"
        assert payload["data"]["load"]["id"] == load.pk
    assert sent["/farm"].headers["webhook-id"] == sent["/mill"].headers["webhook-id"]
    assert set(Delivery.objects.values_list("state", flat=True)) == {"delivered"}


def test_many_events_committed_together_reach_their_endpoints_once_each(
    worker, receiver, site, endpoints_of_everyone, settings
):
    settings.PORTAL_WEBHOOK_DELIVERIES_A_TASK = 7  # this process splits them: 60 in 9 tasks
    with transaction.atomic():
        for n in range(30):
            events.emit(EventType.LOAD_RECORDED, {"n": n}, membership_guid=WENHAM,
                        site_id=site.pk)  # fmt: skip
    wait_for(lambda: len(receiver.log) >= 60, "sixty deliveries", WAIT_SECONDS)
    time.sleep(2)  # time for any other to arrive
    ids = Counter((request.path, request.headers["webhook-id"]) for request, _ in receiver.log)
    assert len(ids) == 60 and set(ids.values()) == {1}
    assert {path for path, _ in ids} == {"/mill", "/other-farm"}
    for request, _ in receiver.log:
        verified(endpoints_of_everyone[request.path], request)
    assert Counter(Delivery.objects.values_list("state", flat=True)) == {"delivered": 60}


def test_with_redis_out_of_reach_at_the_commit_the_sweep_sends_it_later(
    worker,
    receiver,
    site,
    endpoints_of_everyone,
    redis_server,
    settings,
):
    settings.PORTAL_WEBHOOK_OVERDUE_SECONDS = 1
    get_user_model().objects.filter(username="grower").update(email="")  # no result mail's job
    redis_server.stop()
    a_load(site)  # its deliveries' tasks cannot be sent
    assert set(Delivery.objects.values_list("state", flat=True)) == {"pending"}
    redis_server.start()
    time.sleep(1.5)
    assert tasks.sweep() == 2  # as beat sends it
    wait_for(lambda: len(receiver.log) >= 2, "two deliveries", WAIT_SECONDS)
    assert set(received(receiver)) == {"/farm", "/mill"}
