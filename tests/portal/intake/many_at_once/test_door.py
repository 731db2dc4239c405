"""The door of a site's software (`POST /intake/api/loads`, the first address of
`POST /api/v1/intake/loads`; portal/intake/door.py): a token of the site's, made by its clerk;
one record or a list answered each with what became of it; the same record sent twice recorded
once; bad input answered with a status that says so, and nothing recorded of it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.api import tokens
from portal.api.middleware import API_BODY_BYTES
from portal.api.models import Token
from portal.audit.models import Event
from portal.intake import door
from portal.intake.models import Load, LoadEntry
from tests.portal.api.builders import made_on_the_page, site_token
from tests.portal.intake.builders import a_site, upload_row

ADDRESS = "/intake/api/loads"


@pytest.fixture
def token(site, clerk) -> str:
    """A token of the site's, made by its clerk on the site's page of tokens."""
    return made_on_the_page(clerk, f"/intake/sites/{site.code}/tokens/", name="Weighbridge",
                            scopes=["intake:write"])  # fmt: skip


def sent(body: object, token: str | None = None, *, raw: bytes | None = None, **headers):
    """The door's answer to `body` as JSON (or `raw` bytes), with the token; from a client that
    enforces CSRF checks, as a browser would meet them."""
    client = Client(enforce_csrf_checks=True)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = raw if raw is not None else json.dumps(body)
    return client.post(ADDRESS, data, content_type="application/json", headers=headers)


def test_a_record_is_recorded_once_however_often_it_is_sent(token, code, site):
    record = upload_row(code, "T-1", gross_kg=44120, tare_kg=15020, moisture=14.2,
                        reasons=["specific-weight"])  # fmt: skip
    first = sent(record, token)
    assert first.status_code == 201, first.json()
    answer = first.json()
    load = Load.objects.get(site=site, ticket="T-1")
    assert answer | {"verdict": None} == {"index": 0, "ticket": "T-1", "status": "recorded",
                                          "load": load.pk, "verdict": None}  # fmt: skip
    assert answer["verdict"]["valid"] is True
    again = sent(record, token)
    assert again.status_code == 200
    assert again.json()["status"] == "already recorded" and again.json()["load"] == load.pk
    assert "correction" in again.json()["message"]
    assert LoadEntry.objects.count() == 1
    entry = LoadEntry.objects.get()
    assert entry.by == "Weighbridge (stour-valley-sudbury's software)"
    assert entry.figures["results"]["moisture"] == "14.2"


def test_a_refused_record_says_each_field_and_records_nothing(token, code):
    response = sent(upload_row(code, gross_kg="-5", moisture="300", colour="red"), token)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "record_refused"
    assert error["fields"] == {"colour": ["Not a field of a load's record."]}
    response = sent(upload_row(code, gross_kg="-5", moisture="300"), token)
    errors = response.json()["error"]["fields"]
    assert errors["gross_kg"] == ["Ensure this value is greater than or equal to 1."]
    assert errors["moisture"][0].startswith("Moisture of 300 % cannot be measured")
    assert not Load.objects.exists()


def test_a_list_is_answered_record_by_record(token, code):
    records = [
        upload_row(code, "T-1"),
        upload_row("ZZZZ-ZZZZ", "T-2"),
        upload_row(code, "T-1"),  # the first again
        "not a record",
    ]
    response = sent(records, token)
    assert response.status_code == 200
    body = response.json()
    assert [a["status"] for a in body["records"]] == [
        "recorded", "refused", "already recorded", "refused"
    ]  # fmt: skip
    assert body["records"][2]["load"] == body["records"][0]["load"]
    assert body["records"][1]["errors"]["short_code"][0].startswith("The portal knows no")
    assert body["records"][3]["errors"] == {"record": [door.NOT_AN_OBJECT]}
    assert body["tally"] == {"recorded": 1, "corrected": 0, "already recorded": 1,
                             "unchanged": 0, "refused": 2}  # fmt: skip
    assert Load.objects.count() == 1
    event = Event.objects.get(kind="intake-door")
    assert event.detail == {"site": "stour-valley-sudbury", "token": Token.objects.get().pk,
                            "recorded": 1, "refused": 2, "already_recorded": 1}  # fmt: skip


def test_a_correction_is_sent_with_its_reason_and_once(token, code):
    sent(upload_row(code, "T-1"), token)
    correction = upload_row(code, "T-1", tare_kg=14020, correction=True,
                            correction_reason="Tare read from the wrong lorry")  # fmt: skip
    first = sent(correction, token)
    assert first.status_code == 200 and first.json()["status"] == "corrected"
    again = sent(correction, token)
    assert again.json()["status"] == "unchanged"
    assert Load.objects.get().net_kg == 30_100
    assert LoadEntry.objects.filter(kind="corrected").count() == 1


@pytest.mark.parametrize(
    ("authorization", "reason"),
    [(None, "token_missing"), ("Bearer ", "token_missing"), ("Basic x", "token_missing"),
     ("Bearer intake_guessed", "token_malformed")],
)  # fmt: skip
def test_no_token_or_a_bad_one_is_401(authorization, reason, code, site):
    headers = {"Authorization": authorization} if authorization is not None else {}
    response = sent(upload_row(code), **headers)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert response.json()["error"]["code"] == reason
    assert not Load.objects.exists()


def test_a_revoked_token_opens_nothing(token, code, site):
    tokens.revoke(Token.objects.all())
    response = sent(upload_row(code), token)
    assert response.status_code == 401 and response.json()["error"]["code"] == "token_revoked"
    assert Event.objects.filter(kind="api-token-revoked").count() == 1
    assert Event.objects.filter(kind="api-token-used-revoked").count() == 1


def test_a_token_records_at_its_own_site_only(code, site, upstream_sandbox):
    other = a_site(name="Another", code="another")
    theirs = site_token(other, name="Laboratory")
    assert sent(upload_row(code, "T-1"), theirs).status_code == 201
    assert Load.objects.get().site == other


def test_a_site_s_token_made_before_the_api_still_opens_the_door(code, site, upstream_sandbox):
    former = "intake_" + "A" * 43
    Token.objects.create(site=site, name="Weighbridge", scopes=["intake:write"],
                         digest=tokens.digest(former), expires=site_expiry())  # fmt: skip
    assert sent(upload_row(code, "T-1"), former).status_code == 201


@pytest.mark.parametrize(
    ("raw", "status", "words"),
    [
        (b"{not json", 400, "The body is not JSON"),
        (b"[]", 400, "Send a record"),
        (b"42", 400, "Send a record"),
        (b"[" * 100_000, 400, "The body is not JSON"),
    ],
)
def test_a_body_that_is_not_records_is_400(token, raw, status, words):
    response = sent(None, token, raw=raw)
    assert response.status_code == status
    assert words in response.json()["error"]["fields"]["body"][0]


def test_too_much_is_413(token, code, settings):
    settings.PORTAL_API_RECORDS = 2
    response = sent([upload_row(code, f"T-{n}") for n in range(3)], token)
    assert response.status_code == 413
    assert "At most 2 records" in response.json()["error"]["message"]
    big = sent(None, token, raw=b'[{"ticket": "' + b"x" * API_BODY_BYTES + b'"}]')
    assert big.status_code == 413 and big.json()["error"]["code"] == "body_too_large"
    assert not Load.objects.exists()


def test_a_token_sends_so_many_requests_a_minute(token, code, settings):
    settings.PORTAL_API_REQUESTS_PER_MINUTE = 2
    # The clock stands still, so that the minute cannot turn between the requests.
    with time_machine.travel(timezone.now(), tick=False) as clock:
        for n in range(2):
            assert sent(upload_row(code, f"T-{n}"), token).status_code == 201
        refused = sent(upload_row(code, "T-3"), token)
        assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
        assert Load.objects.count() == 2
        clock.shift(timedelta(seconds=int(refused["Retry-After"])))
        assert sent(upload_row(code, "T-3"), token).status_code == 201
    assert Load.objects.count() == 3


def test_bad_tokens_from_an_address_are_stopped(token, code):
    with time_machine.travel(timezone.now(), tick=False):  # the minute cannot turn
        for _ in range(20):
            assert sent(upload_row(code), "intake_guess").status_code == 401
        assert sent(upload_row(code), "intake_guess").status_code == 429
        assert sent(upload_row(code), token).status_code == 429  # from there, for a minute


def test_the_door_takes_posts_only(token):
    response = Client().get(ADDRESS, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def site_expiry():
    return timezone.now() + timedelta(days=30)


def test_its_words_are_in_welsh_for_software_that_asks_for_welsh_its_codes_as_they_are(token, code):
    record = upload_row(code, "T-1")
    assert sent(record, token).status_code == 201
    again = sent(record, token, **{"Accept-Language": "cy"}).json()
    assert again["status"] == "already recorded"  # a code, the same in every language
    assert again["message"].startswith("wedi’i gofnodi eisoes: anfonwch ef gyda")
    refused = sent(upload_row(code, "T-2", tare_kg="50000", colour="red"), token,
                   **{"Accept-Language": "cy"}).json()  # fmt: skip
    assert refused["error"]["fields"] == {"colour": ["Nid yw’n un o feysydd cofnod llwyth."]}
    refused = sent(upload_row(code, "T-2", tare_kg="50000"), token,
                   **{"Accept-Language": "cy"}).json()  # fmt: skip
    assert refused["error"]["fields"] == {
        "tare_kg": ["Pwysau’r cerbyd gwag yw’r pwysau tare: mae’n is na’r pwysau gros."]
    }
