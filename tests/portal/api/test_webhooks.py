"""The webhook endpoints through the API (scope `webhooks:manage`): the grower registers an
endpoint of their business (its secret in the answer, this once), lists it, rolls its secret,
sends a test event and reads its delivery log; a refused address says why and changes nothing;
an endpoint of anyone else, or a token without the scope, reaches nothing.

Whose endpoints a user's token reaches is asked of the service (the memberships its user is a
contact of) with the upstream token of the user's latest sign-in
(portal.accounts.latest_sign_in)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from portal.api.models import KeptAnswer
from portal.outbox import delivering
from portal.outbox.models import Delivery, Endpoint
from tests.demo import HOLLOWFIELD, WENHAM
from tests.portal.api.builders import bearer, made_on_the_page
from tests.portal.outbox.builders import LOOPBACK_NETWORKS, an_endpoint, verified

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def loopback_allowed(settings) -> None:
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS


@pytest.fixture
def token(grower: Client) -> str:
    return made_on_the_page(grower)


def posted(address: str, token: str, body: dict | None = None, key: str = "k-1"):
    return Client().post(f"/api/v1/webhooks{address}", json.dumps(body or {}),
                         content_type="application/json",
                         headers=bearer(token) | {"Idempotency-Key": key})  # fmt: skip


def got(address: str, token: str):
    return Client().get(f"/api/v1/webhooks{address}", headers=bearer(token))


def test_the_grower_registers_an_endpoint_and_sees_a_test_event_delivered(
    token,
    receiver,
):
    receiver.expect_request("/in", method="POST").respond_with_data("")
    made = posted("/endpoints", token, {"owner": f"business-{HOLLOWFIELD}",
                                        "url": receiver.url_for("/in"),
                                        "event_types": ["intake.load.recorded"]})  # fmt: skip
    assert made.status_code == 201, made.content
    endpoint = made.json()
    assert endpoint["owner"] == f"business-{HOLLOWFIELD}" and endpoint["secret"].startswith(
        "whsec_"
    )
    assert "secret" not in got(f"/endpoints/{endpoint['id']}", token).json()
    assert [e["id"] for e in got("/endpoints", token).json()["items"]] == [endpoint["id"]]
    sent = posted(f"/endpoints/{endpoint['id']}/test", token, key="k-2")
    assert sent.status_code == 201
    delivering.attempt([Delivery.objects.get().pk])  # as a worker does once it commits
    assert verified(endpoint["secret"], receiver.log[0][0])["type"] == "ping"
    log = got(f"/endpoints/{endpoint['id']}/deliveries", token).json()
    [delivery] = log["items"]
    assert delivery["event_id"] == sent.json()["event_id"] and delivery["state"] == "delivered"
    assert delivery["attempts"][0]["status"] == 200
    rolled = posted(f"/endpoints/{endpoint['id']}/roll", token, key="k-3").json()
    assert rolled["secret"].startswith("whsec_") and rolled["secret"] != endpoint["secret"]
    assert (
        posted(f"/endpoints/{endpoint['id']}/disable", token, key="k-4").json()["enabled"] is False
    )


@pytest.mark.parametrize(
    ("url", "said"),
    [("https://10.0.0.1/in", "a private address"), ("http://93.184.216.34/in", "https://"),
     ("https://127.0.0.1/" + "a" * 2001, "2000")],
)  # fmt: skip
def test_a_refused_address_says_why_and_changes_nothing(token, url, said):
    made = posted("/endpoints", token, {"owner": f"business-{HOLLOWFIELD}", "url": url,
                                        "event_types": ["passport.created"]})  # fmt: skip
    assert made.status_code == 422
    assert said in json.dumps(made.json()["error"]["fields"])
    assert not Endpoint.objects.exists()


def test_another_business_is_refused(token):
    body = {"owner": "business-nobody", "url": "http://127.0.0.1:9/", "event_types": ["ping"]}
    refused = posted("/endpoints", token, body)
    assert refused.status_code == 422 and "owner" in refused.json()["error"]["fields"]
    assert not Endpoint.objects.exists()


def test_an_unknown_field_is_refused_with_its_name(grower):
    token = made_on_the_page(grower)
    body = {"owner": f"business-{HOLLOWFIELD}", "url": "http://127.0.0.1:9/",
            "event_types": ["passport.created"], "colour": "red"}  # fmt: skip
    refused = posted("/endpoints", token, body)
    assert refused.status_code == 422 and "colour" in refused.json()["error"]["fields"]
    assert not Endpoint.objects.exists()


def test_an_endpoint_of_anyone_else_is_not_found(grower, partner):
    theirs, _ = an_endpoint("http://127.0.0.1:9/", membership_guid=WENHAM)
    partners = made_on_the_page(partner)
    assert got(f"/endpoints/{theirs.pk}", partners).status_code == 404
    assert posted(f"/endpoints/{theirs.pk}/disable", partners).status_code == 404
    assert got("/endpoints", partners).json()["items"] == []
    assert Endpoint.objects.get().enabled


def test_a_token_without_the_scope_reaches_nothing(grower):
    reader = made_on_the_page(grower, scopes=["passports:read"])
    assert got("/endpoints", reader).status_code == 403
    assert got("/endpoints", "").status_code == 401


def test_a_secret_shown_once_is_not_kept_readable_with_the_answer_given_again(token, receiver):
    body = {"owner": f"business-{HOLLOWFIELD}", "url": receiver.url_for("/in"),
            "event_types": ["passport.created"]}  # fmt: skip
    made = posted("/endpoints", token, body, key="secret-1")
    secret = made.json()["secret"]
    kept = KeptAnswer.objects.get(key="secret-1")
    assert secret.encode() not in bytes(kept.body)
    again = posted("/endpoints", token, body, key="secret-1")
    assert again["Idempotent-Replayed"] == "true" and again.json()["secret"] == secret
    assert Endpoint.objects.count() == 1
