"""A batch of passports, started with the create form or through the API as a grower starts one,
tells each passport it makes to its business's endpoint once: one `passport.created` each,
signed (verified with the `standardwebhooks` package, as a receiver would), to no one else's
endpoint; a batch stopped part way by the service and run again makes the rest, and emits no
second event for a passport made before. The batch's job and the deliveries run here as a
worker runs them; test_batch_events_on_a_worker.py kills a real worker in the middle."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.utils import timezone

from portal.jobs.models import Job
from portal.outbox import delivering
from portal.outbox.models import Delivery, Event
from portal.passports.models import Passport
from portal.passports.tasks import passport_batch
from tests.demo import HOLLOWFIELD, HOLLOWFIELD_FARM, MAIN_STORE
from tests.jobs import run
from tests.portal.api.builders import bearer, made_on_the_page
from tests.portal.outbox.builders import a_batch_with_the_form, verified
from tests.portal.passports.helpers import refused_at_the_third

pytestmark = pytest.mark.django_db

LOADS = 5


def through_the_api(grower: Client, loads: int) -> Job:
    token = made_on_the_page(grower, scopes=["passports:write"])
    body = {"membership": HOLLOWFIELD, "site": HOLLOWFIELD_FARM, "store": MAIN_STORE,
            "crop_type": "Wheat", "harvest_year": "2026",
            "loading_date": timezone.localdate().isoformat(), "loads": loads}  # fmt: skip
    started = Client().post("/api/v1/passports", body, content_type="application/json",
                            headers=bearer(token) | {"Idempotency-Key": "batch-1"})  # fmt: skip
    assert started.status_code == 202, started.content
    return Job.objects.get(kind=passport_batch.name)


def delivered_what_waits() -> None:
    """Each delivery waiting attempted, as the worker does once its event commits."""
    delivering.attempt(
        Delivery.objects.filter(state=Delivery.State.PENDING).values_list("pk", flat=True)
    )


@pytest.mark.parametrize("start", [a_batch_with_the_form, through_the_api], ids=["form", "api"])
def test_each_passport_of_a_batch_run_again_is_told_once_to_its_business(
    grower, receiver, farm_secret, upstream_sandbox, monkeypatch, start: Callable
):
    job = start(grower, LOADS)
    refused_at_the_third(upstream_sandbox, monkeypatch)
    stopped = run(job)
    assert stopped.state == Job.State.FAILED and "2 of 5 passports were made" in stopped.message
    delivered_what_waits()
    assert len(receiver.log) == 2
    monkeypatch.undo()
    assert grower.post(f"/jobs/{job.pk}/resume/").status_code == 302  # "Retry", on its page
    assert run(job).state == Job.State.DONE
    assert run(job).state == Job.State.DONE  # its message delivered twice
    delivered_what_waits()
    made = set(Passport.objects.values_list("short_code", flat=True))
    assert len(made) == LOADS
    sent = [request for request, _ in receiver.log]
    assert {request.path for request in sent} == {"/farm"}
    told = [verified(farm_secret, request) for request in sent]
    assert {payload["type"] for payload in told} == {"passport.created"}
    assert sorted(p["data"]["passport"]["short_code"] for p in told) == sorted(made)
    assert len({request.headers["webhook-id"] for request in sent}) == LOADS
    assert Event.objects.filter(type="passport.created").count() == LOADS
