"""`Idempotency-Key` on every POST: the same key and body give the same answer, once done; the
same key with another body is refused (422); the key's answer is kept at least a day, then
swept; a key is the token's own."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.api import idempotency
from portal.api.models import KeptAnswer
from portal.api.v1 import api
from portal.intake.models import Load, LoadEntry
from tests.portal.api.builders import bearer, site_token
from tests.portal.intake.builders import a_load, a_site, queried, upload_row

pytestmark = pytest.mark.django_db
LOADS = "/api/v1/intake/loads"


@pytest.fixture
def site(upstream_sandbox):
    return a_site()


def posted(body: object, token: str, key: str | None = None, address: str = LOADS):
    headers = bearer(token) | ({"Idempotency-Key": key} if key is not None else {})
    return Client().post(address, json.dumps(body), content_type="application/json",
                         headers=headers)  # fmt: skip


def test_the_same_key_and_body_give_the_same_answer_once_done(site, grower):
    token, load = site_token(site), a_load(site, "T-1")
    queried(load)
    answer = {"words": "It stands.", "stand_by": True}
    address = f"{LOADS}/{load.pk}/answers"
    first = posted(answer, token, "key-1", address)
    again = posted(answer, token, "key-1", address)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
    assert load.entries.filter(kind="stood-by").count() == 1
    # Without the key, the second is a second answer: refused, as no query is open.
    assert posted(answer, token, None, address).status_code == 409


def test_the_same_key_with_another_body_is_422(site, grower):
    token, load = site_token(site), a_load(site, "T-1")
    code = load.passport.short_code
    assert posted(upload_row(code, "T-2"), token, "k").status_code == 201
    refused = posted(upload_row(code, "T-3"), token, "k")
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["code"] == "idempotency_key_reused" and list(error["fields"]) == [
        "Idempotency-Key"
    ]
    assert not Load.objects.filter(ticket="T-3").exists()


def test_a_key_is_the_token_s_own(site, grower):
    code = a_load(site, "T-1").passport.short_code
    mine, theirs = site_token(site), site_token(site, name="Laboratory")
    assert posted(upload_row(code, "T-2"), mine, "k").status_code == 201
    answer = posted(upload_row(code, "T-3"), theirs, "k")
    assert answer.status_code == 201 and "Idempotent-Replayed" not in answer


def test_an_answer_is_kept_a_day_then_swept(site, grower):
    token = site_token(site)
    record = upload_row(a_load(site, "T-1").passport.short_code, "T-2")
    assert posted(record, token, "k").status_code == 201
    with time_machine.travel(timezone.now() + timedelta(hours=23)):
        assert idempotency.sweep() == 0
        assert posted(record, token, "k")["Idempotent-Replayed"] == "true"
    with time_machine.travel(timezone.now() + timedelta(hours=25)):
        assert idempotency.sweep() == 1
        again = posted(record, token, "k")
    assert again.status_code == 200 and again.json()["status"] == "already recorded"
    assert "Idempotent-Replayed" not in again


def test_a_refused_token_is_answered_as_without_a_key(site, grower):
    response = posted(upload_row("ABCD-EFGH"), "cpp_none", "k")
    assert response.status_code == 401
    assert not KeptAnswer.objects.exists()


@pytest.mark.parametrize("key", ["", "x" * 256, "naïve"])
def test_a_key_not_written_as_one_is_400(site, key):
    response = posted(upload_row("ABCD-EFGH"), site_token(site), key)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["Idempotency-Key"]
    assert not LoadEntry.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_outside_any_transaction_a_key_is_claimed_once(site, grower):
    token = site_token(site)  # the request's own commits, as in production
    record = upload_row(a_load(site, "T-1").passport.short_code, "T-2")
    first, again = posted(record, token, "k"), posted(record, token, "k")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert KeptAnswer.objects.filter(key="k").count() == 1
    other = posted(upload_row(record["short_code"], "T-3"), token, "k")
    assert other.status_code == 422
    assert other.json()["error"]["code"] == "idempotency_key_reused"


def test_a_key_still_being_answered_is_409_until_it_is_stale(site, grower):
    token = site_token(site)
    record = upload_row(a_load(site, "T-1").passport.short_code, "T-2")
    assert posted(record, token, "k").status_code == 201
    KeptAnswer.objects.filter(key="k").update(status=None)  # as if its request were running
    busy = posted(record, token, "k")
    assert busy.status_code == 409 and busy["Retry-After"] == "1"
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        taken_again = posted(record, token, "k")
    assert taken_again.json()["status"] == "already recorded"


def test_every_post_of_the_api_takes_an_idempotency_key():
    posts = [operation for operation in every_operation() if "POST" in operation.methods]
    assert len(posts) >= 3
    assert all(idempotency.is_idempotent(operation) for operation in posts)


def every_operation():
    """Every operation of every router of the API."""
    for bound in api._get_bound_routers():
        for path_view in bound.path_operations.values():
            yield from path_view.operations
