"""Webhook endpoints in the audit trail, as staff read it in the admin: registered, their secret
rolled, disabled and enabled again by their owner, on the Webhooks pages and through the API
alike, each with who did it and from where, and the endpoint's address (never a secret: neither
the signing secret nor the query of the address); disabled by the portal itself, after a 410
or days of failures, by no one, with why."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from html import unescape

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.audit.models import Event
from portal.outbox import delivering, events
from portal.outbox.models import Delivery, Endpoint, EventType
from tests.demo import HOLLOWFIELD
from tests.portal.api.builders import bearer, made_on_the_page
from tests.portal.outbox.builders import LOOPBACK_NETWORKS, an_endpoint

pytestmark = pytest.mark.django_db

ADDRESS = "http://127.0.0.1:9/hooks?key=receivers-own-secret"  # never sent to
RECORDED_ADDRESS = "http://127.0.0.1:9/hooks"
TRAIL = "/admin/audit/event/"
ROW = re.compile(r'<td class="field-what">([^<]*)</td><td class="field-username">([^<]*)</td>')
BY_THE_OWNER = [
    ("Webhook endpoint registered", "grower"),
    ("Webhook endpoint's secret rolled", "grower"),
    ("Webhook endpoint disabled", "grower"),
    ("Webhook endpoint enabled again", "grower"),
]


@pytest.fixture(autouse=True)
def loopback_allowed(settings) -> None:
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS


def webhook_rows(staff: Client) -> list[tuple[str, str]]:
    """The trail's webhook events as the admin lists them to staff (kind, user), oldest first."""
    page = staff.get(TRAIL)  # the newest first
    assert page.status_code == 200
    rows = [(unescape(kind), user) for kind, user in ROW.findall(page.content.decode())]
    return [row for row in rows if row[0].startswith("Webhook")][::-1]


def webhook_events() -> list[Event]:
    return list(Event.objects.filter(kind__startswith="webhook-").order_by("at", "pk"))


def assert_no_secret_in(recorded: list[Event], *secrets: str) -> None:
    details = json.dumps([event.detail for event in recorded])
    for secret in (*secrets, "receivers-own-secret"):
        assert secret not in details


def test_an_owner_s_changes_on_the_pages_are_in_the_trail(grower, staff):
    form = {"owner": f"business-{HOLLOWFIELD}", "url": ADDRESS,
            "event_types": ["passport.created"]}  # fmt: skip
    assert grower.post("/webhooks/new", form).status_code == 302
    endpoint = Endpoint.objects.get()
    shown = grower.get(f"/webhooks/{endpoint.pk}/").content.decode()
    secret = re.search(r"whsec_[A-Za-z0-9+/=]+", shown)[0]
    for action in ("roll", "disable", "enable"):
        assert grower.post(f"/webhooks/{endpoint.pk}/{action}").status_code == 302
    rolled = Endpoint.objects.get().signing_secrets()[0]
    assert webhook_rows(staff) == BY_THE_OWNER
    recorded = webhook_events()
    assert all(event.client_address and event.request_id for event in recorded)
    assert {(e.detail["endpoint"], e.detail["owner"], e.detail["address"]) for e in recorded} == {
        (endpoint.pk, f"business-{HOLLOWFIELD}", RECORDED_ADDRESS)
    }
    assert recorded[0].detail["event_types"] == ["passport.created"]
    assert recorded[2].detail["reason"] == "Disabled by its owner."
    assert_no_secret_in(recorded, secret, rolled)


def posted(address: str, token: str, body: dict | None = None, key: str = "k-1"):
    return Client().post(f"/api/v1/webhooks{address}", json.dumps(body or {}),
                         content_type="application/json",
                         headers=bearer(token) | {"Idempotency-Key": key})  # fmt: skip


def test_an_owner_s_changes_through_the_api_are_in_the_trail(grower, staff):
    token = made_on_the_page(grower)
    body = {"owner": f"business-{HOLLOWFIELD}", "url": ADDRESS,
            "event_types": ["intake.load.recorded"]}  # fmt: skip
    made = posted("/endpoints", token, body)
    assert made.status_code == 201
    assert posted("/endpoints", token, body).json() == made.json()  # the same key: answered again
    endpoint = made.json()["id"]
    rolled = posted(f"/endpoints/{endpoint}/roll", token, key="k-2").json()["secret"]
    for n, action in enumerate(("disable", "enable"), 3):
        assert posted(f"/endpoints/{endpoint}/{action}", token, key=f"k-{n}").status_code == 200
    assert webhook_rows(staff) == BY_THE_OWNER
    recorded = webhook_events()
    assert {e.detail["address"] for e in recorded} == {RECORDED_ADDRESS}
    assert_no_secret_in(recorded, made.json()["secret"], rolled, token)


def a_delivery(receiver) -> Delivery:
    an_endpoint(receiver.url_for("/in"))
    event = events.emit(EventType.PASSPORT_CREATED, {"passport": {"short_code": "ABCD1234"}},
                        membership_guid=HOLLOWFIELD)  # fmt: skip
    return event.deliveries.get()


def test_an_endpoint_that_answers_410_is_disabled_by_no_one_in_the_trail(receiver, staff):
    receiver.expect_request("/in").respond_with_data("gone", status=410)
    delivering.attempt([a_delivery(receiver).pk])
    assert webhook_rows(staff) == [("Webhook endpoint registered", "grower"),
                                   ("Webhook endpoint disabled", "-")]  # fmt: skip
    disabled = webhook_events()[-1]
    assert disabled.user is None and disabled.client_address is None
    assert "410" in disabled.detail["reason"]
    assert disabled.detail["address"] == receiver.url_for("/in")


def test_an_endpoint_failing_for_five_days_is_disabled_by_no_one_in_the_trail(receiver, staff):
    receiver.expect_request("/in").respond_with_data("busy", status=500)
    delivery = a_delivery(receiver)
    delivering.attempt([delivery.pk])
    assert Endpoint.objects.get().enabled
    with time_machine.travel(timezone.now() + timedelta(days=5, minutes=1)):
        delivering.attempt([delivery.pk])
    assert not Endpoint.objects.get().enabled
    disabled = webhook_events()[-1]
    assert (disabled.kind, disabled.username) == ("webhook-disabled", "")
    assert disabled.detail["reason"] == "Every delivery failed for 5 days."
    assert webhook_rows(staff)[-1] == ("Webhook endpoint disabled", "-")
