"""A batch's webhooks on a real Celery worker, killed with SIGKILL in the middle of the batch:
once a worker is back the batch ends with the passports asked for, and the grower's business's
endpoint has been told each once, as `passport.created` under one webhook-id (a delivery cut
short may come again under the same id, never under another), signed, and no one else was
told. A delivery whose commit the killed worker made but did not queue is the sweep's, sent
here as beat sends it. The worker and its Redis as tests/workers.py has them (PostgreSQL and
redis-server); the receiver is one server on 127.0.0.1 of the test's own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from portal.jobs.models import Job
from portal.outbox import tasks
from portal.outbox.models import Delivery
from portal.passports.models import Passport
from tests.portal.outbox.builders import LOOPBACK_NETWORKS, a_batch_with_the_form, verified
from tests.services import wait_for
from tests.workers import (
    ON_A_WORKER,
    TIME_LIMIT,
    VISIBILITY_TIMEOUT,
    Worker,
    started,
    worker_environment,
)

pytestmark = ON_A_WORKER

BATCH = 20
WAIT_SECONDS = 120


@pytest.fixture
def worker(redis_server, upstream_sandbox, job_files, tmp_path) -> Iterator[Worker]:
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files,
        PORTAL_WEBHOOK_ALLOWED_NETWORKS=",".join(LOOPBACK_NETWORKS),
        PORTAL_JOB_TIME_LIMIT=str(TIME_LIMIT * 5),
        PORTAL_JOB_VISIBILITY_TIMEOUT=str(TIME_LIMIT * 5 + VISIBILITY_TIMEOUT),
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


def made() -> set[str]:
    recorded = Passport.objects.filter(short_code__isnull=False)
    return set(recorded.values_list("short_code", flat=True))


def all_delivered() -> bool:
    """True once every delivery is made; until then the sweep is sent, as beat sends it."""
    if not Delivery.objects.exclude(state=Delivery.State.DELIVERED).exists():
        return True
    tasks.sweep()
    return False


def test_a_batch_whose_worker_was_killed_tells_each_passport_once(
    grower, worker, receiver, farm_secret, settings
):
    settings.PORTAL_WEBHOOK_OVERDUE_SECONDS = 5
    job = a_batch_with_the_form(grower, BATCH)
    wait_for(lambda: len(made()) >= 3, "the batch to be under way", WAIT_SECONDS)
    worker.kill()
    assert 0 < len(made()) < BATCH, "killed in the middle"
    worker.start()
    wait_for(lambda: Job.objects.get(pk=job.pk).state == Job.State.DONE, "the batch to end",
             WAIT_SECONDS)  # fmt: skip
    assert len(made()) == BATCH
    wait_for(all_delivered, "every delivery", WAIT_SECONDS)
    sent = [request for request, _ in receiver.log]
    assert {request.path for request in sent} == {"/farm"}
    ids_of_each: dict[str, set[str]] = {}
    for request in sent:
        payload = verified(farm_secret, request)
        assert payload["type"] == "passport.created"
        code = payload["data"]["passport"]["short_code"]
        ids_of_each.setdefault(code, set()).add(request.headers["webhook-id"])
    assert set(ids_of_each) == made()
    assert all(len(ids) == 1 for ids in ids_of_each.values())
