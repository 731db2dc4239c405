"""Deliveries are signed as the Standard Webhooks specification says: the `standardwebhooks`
package verifies them as a receiver would, with either secret during a rotation."""

from __future__ import annotations

import time

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from portal.outbox import signing
from portal.outbox.models import new_secret

BODY = b'{"type":"ping","timestamp":"2026-11-29T01:00:00Z","data":{}}'


def test_a_receiver_verifies_the_signature_with_its_secret():
    secret = new_secret()
    headers = signing.headers([secret], "msg_1", int(time.time()), BODY)
    assert Webhook(secret).verify(BODY, headers) == {
        "type": "ping",
        "timestamp": "2026-11-29T01:00:00Z",
        "data": {},
    }


def test_during_a_rotation_either_secret_verifies():
    old, new = new_secret(), new_secret()
    headers = signing.headers([new, old], "msg_1", int(time.time()), BODY)
    assert len(headers["webhook-signature"].split(" ")) == 2
    Webhook(old).verify(BODY, headers)
    Webhook(new).verify(BODY, headers)


def test_another_secret_or_an_altered_body_does_not_verify():
    secret = new_secret()
    headers = signing.headers([secret], "msg_1", int(time.time()), BODY)
    with pytest.raises(WebhookVerificationError):
        Webhook(new_secret()).verify(BODY, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(BODY.replace(b"ping", b"pong"), headers)


def test_a_secret_is_prefixed_and_random():
    made = {new_secret() for _ in range(3)}
    assert len(made) == 3
    assert all(secret.startswith("whsec_") and len(secret) == 50 for secret in made)
