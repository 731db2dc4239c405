"""The one builder of webhook endpoints for the tests, and a receiver's check of what it was
sent: each delivery verified with the `standardwebhooks` package, as a receiver would."""

from __future__ import annotations

import json

from django.test import Client
from standardwebhooks import Webhook

from portal.accounts.session import portal_user
from portal.intake.models import IntakeSite
from portal.jobs.models import Job
from portal.outbox import endpoints
from portal.outbox.endpoints import Owner
from portal.outbox.models import Endpoint, EventType
from portal.passports.tasks import passport_batch
from tests.demo import HOLLOWFIELD
from tests.portal.passports.made import filled

EVERY_TYPE = [t.value for t in EventType if t != EventType.PING]
LOOPBACK_NETWORKS = ["127.0.0.0/8"]


def an_endpoint(
    url: str, *, membership_guid: str = "", site: IntakeSite | None = None,
    event_types: list[str] | None = None, made_by: str = "grower",
) -> tuple[Endpoint, str]:  # fmt: skip
    """An endpoint registered as its page registers one (of the grower's Hollowfield business
    unless a site or another business is given), and its secret."""
    owner = (
        Owner(site_id=site.pk) if site else Owner(membership_guid=membership_guid or HOLLOWFIELD)
    )
    return endpoints.register(owner, url, event_types or EVERY_TYPE, "", portal_user(made_by))


def verified(secret: str, request) -> dict:
    """The payload of a request a receiver took (pytest-httpserver's), once its signature is
    verified with `secret`; raises WebhookVerificationError otherwise."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    payload = Webhook(secret).verify(request.get_data(), headers)
    assert payload == json.loads(request.get_data())
    return payload


def a_batch_with_the_form(grower: Client, loads: int) -> Job:
    """A batch of `loads` passports started as the grower starts one, with the create form."""
    assert grower.post("/passports/new", filled(grower, loads=str(loads))).status_code == 303
    return Job.objects.get(kind=passport_batch.name)
