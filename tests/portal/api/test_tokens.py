"""The API's tokens as their makers and the API see them: `cpp_`, random, and a CRC32 checksum
in base62; shown once, only their hash kept; each refusal a 401 with its reason; a token
revoked, or used after it was, in the audit trail; `last_used` written at most every few
minutes; a scope missing 403; a token's requests a minute limited (429, Retry-After)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.accounts.session import portal_user
from portal.api import tokens
from portal.api.models import Token
from portal.audit.models import Event
from tests.portal.api.builders import bearer, made_on_the_page

pytestmark = pytest.mark.django_db
LOADS = "/api/v1/intake/loads"


def called(token: str | None, address: str = LOADS, **headers: str):
    if token is not None:
        headers |= bearer(token)
    return Client().get(address, headers=headers)


def test_a_token_is_cpp_random_and_its_checksum(grower):
    token = made_on_the_page(grower)
    assert token.startswith("cpp_") and len(token) == 40
    body, check = token[4:34], token[34:]
    assert tokens.checksum(body) == check
    kept = Token.objects.get()
    assert kept.digest == tokens.digest(token) and token not in json.dumps(kept.scopes)
    made = Event.objects.get(kind="api-token-made")
    assert made.username == "grower" and token not in json.dumps(made.detail)
    assert made.detail["scopes"] == kept.scopes


def test_two_tokens_are_never_the_same(grower):
    assert made_on_the_page(grower) != made_on_the_page(grower)


def _with_checksum_wrong(token: str) -> str:
    last = token[-1]
    return token[:-1] + ("A" if last != "A" else "B")


@pytest.mark.parametrize(
    ("spoilt", "reason"),
    [
        (lambda token: None, "token_missing"),
        (lambda token: "", "token_missing"),
        (lambda token: token[:-3], "token_malformed"),
        (lambda token: token.replace("cpp_", "ghp_"), "token_malformed"),
        (lambda token: token[:20] + "!" + token[21:], "token_malformed"),
        (_with_checksum_wrong, "token_checksum_wrong"),
        (lambda token: "cpp_" + "0" * 30 + tokens.checksum("0" * 30), "token_unknown"),
    ],
)
def test_each_refusal_is_a_401_with_its_reason(grower, spoilt, reason):
    token = made_on_the_page(grower)
    response = called(spoilt(token))
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    error = response.json()["error"]
    assert error["code"] == reason and error["message"] == tokens.MESSAGES[reason]
    assert error["fields"] == {}


def test_a_token_expires(grower):
    token = made_on_the_page(grower, days=7)
    assert called(token).status_code == 200
    with time_machine.travel(timezone.now() + timedelta(days=7, seconds=1)):
        response = called(token)
    assert response.status_code == 401 and response.json()["error"]["code"] == "token_expired"


def test_a_token_holds_a_year_at_most(grower):
    response = grower.post("/accounts/you/tokens/", {"name": "Long", "scopes": ["intake:read"],
                                                     "days": 366})  # fmt: skip
    assert response.status_code == 400 and not Token.objects.exists()
    with pytest.raises(ValueError, match="within 365 days"):
        tokens.make(portal_user("grower"), name="x", scopes=["intake:read"],
                    expires=timezone.now() + timedelta(days=366))  # fmt: skip


def test_a_revoked_token_is_refused_and_its_use_recorded(grower):
    token = made_on_the_page(grower)
    kept = Token.objects.get()
    page = grower.post(f"/accounts/you/tokens/{kept.pk}/revoke", follow=True).content.decode()
    assert "is revoked: it opens nothing now" in page
    response = called(token)
    assert response.status_code == 401 and response.json()["error"]["code"] == "token_revoked"
    revoked = Event.objects.get(kind="api-token-revoked")
    used = Event.objects.get(kind="api-token-used-revoked")
    assert revoked.username == "grower" and used.detail["token"] == kept.pk


def test_last_used_is_written_at_most_every_five_minutes(grower):
    token = made_on_the_page(grower)
    assert Token.objects.get().last_used is None
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        called(token)
    assert Token.objects.get().last_used == start
    with time_machine.travel(start + timedelta(minutes=4), tick=False):
        called(token)
    assert Token.objects.get().last_used == start
    with time_machine.travel(start + timedelta(minutes=6), tick=False):
        called(token)
    assert Token.objects.get().last_used == start + timedelta(minutes=6)


def test_a_token_without_the_scope_is_403(grower):
    token = made_on_the_page(grower, scopes=["passports:read"])
    response = called(token)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "scope_missing"
    assert "intake:read" in response.json()["error"]["message"]


def test_a_token_makes_so_many_requests_a_minute(grower, settings):
    settings.PORTAL_API_REQUESTS_PER_MINUTE = 3
    token = made_on_the_page(grower)
    # The clock stands still, so that the minute cannot turn between the requests.
    with time_machine.travel(timezone.now(), tick=False) as clock:
        assert [called(token).status_code for _ in range(3)] == [200, 200, 200]
        refused = called(token)
        assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
        assert refused.json()["error"]["code"] == "rate_limited"
        clock.shift(timedelta(seconds=int(refused["Retry-After"]) - 1))
        assert called(token).status_code == 429
        clock.shift(timedelta(seconds=1))
        assert called(token).status_code == 200


def test_refused_tokens_from_an_address_are_stopped(grower):
    token = made_on_the_page(grower)
    with time_machine.travel(timezone.now(), tick=False):  # the minute cannot turn
        for _ in range(20):
            assert called("cpp_guess").status_code == 401
        assert called("cpp_guess").status_code == 429
        assert called(token).status_code == 429  # from that address, for a minute


def test_a_session_opens_nothing_of_the_api(grower):
    response = grower.get(LOADS)
    assert response.status_code == 401 and response.json()["error"]["code"] == "token_missing"
