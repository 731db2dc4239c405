"""The intake routes as a site's software and a clerk's tools call them, with tokens made on the
pages: a site's loads a page at a time by cursor, and what changed since; one load with its
history; a load corrected; a grower's query answered. A token of another site, or a clerk's of
another site, reaches nothing: 404, as the clerks' pages answer."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.intake.models import Load, LoadEntry
from tests.portal.accounts.helpers import signed_in
from tests.portal.api.builders import bearer, made_on_the_page, site_token
from tests.portal.intake.builders import a_clerk, a_load, a_site, queried, upload_row

pytestmark = pytest.mark.django_db
LOADS = "/api/v1/intake/loads"


@pytest.fixture
def site(upstream_sandbox):
    return a_clerk("intake", a_site())


@pytest.fixture
def token(site) -> str:
    """The site's token, made by its clerk on the site's page."""
    return made_on_the_page(signed_in("intake"), f"/intake/sites/{site.code}/tokens/",
                            name="Weighbridge", scopes=["intake:read", "intake:write"])  # fmt: skip


def got(address: str, token: str, **query: object):
    return Client().get(address, query, headers=bearer(token))


def posted(address: str, body: object, token: str, **headers: str):
    return Client().post(address, json.dumps(body), content_type="application/json",
                         headers=bearer(token) | headers)  # fmt: skip


def test_a_site_s_loads_come_a_page_at_a_time(token, site, grower):
    made = [a_load(site, f"T-{n}") for n in range(5)]
    first = got(LOADS, token, limit=2)
    assert first.status_code == 200
    page = first.json()
    assert [item["ticket"] for item in page["items"]] == ["T-0", "T-1"] and page["has_more"]
    assert page["items"][0] == {
        "id": made[0].pk, "site": site.code, "ticket": "T-0",
        "short_code": made[0].passport.short_code, "net_kg": 29_100, "decision": "claim",
        "created": page["items"][0]["created"], "updated": page["items"][0]["updated"],
        "url": f"/api/v1/intake/loads/{made[0].pk}",
    }  # fmt: skip
    tickets = [item["ticket"] for item in page["items"]]
    while page["has_more"]:
        page = got(LOADS, token, limit=2, cursor=page["next_cursor"]).json()
        tickets += [item["ticket"] for item in page["items"]]
    assert tickets == [f"T-{n}" for n in range(5)]
    assert got(LOADS, token, cursor=page["next_cursor"]).json()["items"] == []


def test_what_changed_since_comes_again_after_the_last_cursor(token, site, grower):
    a_load(site, "T-1")
    later = a_load(site, "T-2")
    start = got(LOADS, token).json()
    assert [item["ticket"] for item in start["items"]] == ["T-1", "T-2"]
    with time_machine.travel(timezone.now() + timedelta(minutes=5)):
        queried(Load.objects.get(ticket="T-1"))
        since = got(LOADS, token, cursor=start["next_cursor"]).json()
    assert [item["ticket"] for item in since["items"]] == ["T-1"]  # queried: changed
    changed_at = Load.objects.get(ticket="T-1").updated
    only = got(LOADS, token, updated_since=changed_at.isoformat()).json()
    assert [item["ticket"] for item in only["items"]] == ["T-1"]
    assert later.updated < changed_at


@pytest.mark.parametrize("cursor", ["abc", "W10:1sAAAA:xxxx"])
def test_a_cursor_altered_by_hand_is_refused_with_its_field(token, site, grower, cursor):
    a_load(site, "T-1")
    good = got(LOADS, token, limit=1).json()["next_cursor"]
    for spoilt in (cursor, good[:-2] + ("AA" if not good.endswith("AA") else "BB")):
        response = got(LOADS, token, cursor=spoilt)
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "cursor_invalid" and list(error["fields"]) == ["cursor"]


@pytest.mark.parametrize(
    ("query", "field"),
    [({"limit": 501}, "limit"), ({"limit": 0}, "limit"), ({"limit": "many"}, "limit"),
     ({"updated_since": "yesterday"}, "updated_since"),
     ({"updated_since": "2026-11-01T10:00:00"}, "updated_since")],
)  # fmt: skip
def test_a_bad_query_is_422_with_its_field(token, query, field):
    response = got(LOADS, token, **query)
    assert response.status_code == 422
    assert list(response.json()["error"]["fields"]) == [field]


def test_a_load_with_its_history(token, site, grower):
    load = a_load(site, "T-1")
    queried(load)
    response = got(f"{LOADS}/{load.pk}", token)
    assert response.status_code == 200
    shown = response.json()
    assert shown["ticket"] == "T-1" and shown["query_open"] is True
    assert [entry["kind"] for entry in shown["history"]] == ["recorded", "queried"]
    assert shown["history"][0]["figures"]["gross_kg"] == 44_120


def test_another_site_s_loads_are_not_found(token, site, grower):
    other = a_site(name="Orwell Mills", code="orwell")
    theirs = a_load(other, "T-9")
    assert got(f"{LOADS}/{theirs.pk}", token).status_code == 404
    assert got(LOADS, token).json()["items"] == []
    assert got(LOADS, token, site="orwell").json()["items"] == []
    record = upload_row(theirs.passport.short_code, "T-10")
    assert posted(f"{LOADS}?site=orwell", record, token).status_code == 404
    correction = upload_row(theirs.passport.short_code, tare_kg="14020",
                            correction_reason="Wrong lorry")  # fmt: skip
    assert posted(f"{LOADS}/{theirs.pk}/corrections", correction, token).status_code == 404
    queried(theirs)
    answer = {"words": "It stands."}
    assert posted(f"{LOADS}/{theirs.pk}/answers", answer, token).status_code == 404
    assert LoadEntry.objects.filter(load__site=other).count() == 2


def test_a_clerk_s_own_token_reaches_their_sites_only(site, grower):
    other = a_site(name="Orwell Mills", code="orwell")
    mine, theirs = a_load(site, "T-1"), a_load(other, "T-2")
    token = made_on_the_page(signed_in("intake"), scopes=["intake:read"])
    assert [item["id"] for item in got(LOADS, token).json()["items"]] == [mine.pk]
    assert got(f"{LOADS}/{theirs.pk}", token).status_code == 404


def test_a_grower_s_token_reaches_no_site(grower):
    token = made_on_the_page(grower, scopes=["intake:read", "intake:write"])
    assert got(LOADS, token).json()["items"] == []
    assert posted(LOADS, upload_row("ABCD-EFGH"), token).status_code == 404


def test_the_door_at_the_api_s_address_records_as_at_its_first(token, site, grower):
    code = a_load(site, "T-0").passport.short_code
    response = posted(LOADS, upload_row(code, "T-1"), token)
    assert response.status_code == 201 and response.json()["status"] == "recorded"
    assert Load.objects.get(ticket="T-1").site == site


def test_a_record_with_a_code_that_is_none_is_told_the_codes_and_records_nothing(
    token, site, grower
):
    code = a_load(site, "T-0").passport.short_code
    response = posted(LOADS, upload_row(code, "T-1", decision="maybe"), token)
    assert response.status_code == 422
    assert response.json()["error"]["fields"]["decision"] == [
        "Not a decision: send one of accepted, claim, redirected, rejected."
    ]
    assert not Load.objects.filter(ticket="T-1").exists()


def test_a_load_is_corrected_with_its_reason(token, site, grower):
    load = a_load(site, "T-1")
    correction = upload_row(load.passport.short_code, "ignored", tare_kg="14020",
                            correction_reason="Tare read from the wrong lorry")  # fmt: skip
    response = posted(f"{LOADS}/{load.pk}/corrections", correction, token)
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "corrected"
    load.refresh_from_db()
    assert load.net_kg == 44_120 - 14_020
    entry = load.entries.get(kind="corrected")
    assert entry.words == "Tare read from the wrong lorry"
    assert entry.by == "Weighbridge (stour-valley-sudbury's software)"


def test_a_correction_without_its_reason_is_refused(token, site, grower):
    load = a_load(site, "T-1")
    response = posted(f"{LOADS}/{load.pk}/corrections",
                      upload_row(load.passport.short_code, tare_kg="14020"), token)  # fmt: skip
    assert response.status_code == 422
    assert response.json()["error"]["fields"]["correction_reason"] == [
        "Say why the load is corrected."
    ]
    assert not load.entries.filter(kind="corrected").exists()


def test_a_query_is_answered_or_its_result_stood_by(token, site, grower):
    load = a_load(site, "T-1")
    assert posted(f"{LOADS}/{load.pk}/answers", {"words": "x"}, token).status_code == 409
    queried(load)
    response = posted(f"{LOADS}/{load.pk}/answers", {"words": "Our sample gave 72.5.",
                                                      "stand_by": True}, token)  # fmt: skip
    assert response.status_code == 201
    assert response.json()["kind"] == "stood-by"
    assert load.entries.latest("pk").words == "Our sample gave 72.5."


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "words"), ({"words": 5}, "words"), ({"words": "x", "colour": "red"}, "colour"),
     ({"words": "x", "stand_by": "perhaps"}, "stand_by"), ({"words": "a\x1bb"}, "words"),
     ({"words": "x" * 2001}, "words")],
)  # fmt: skip
def test_a_bad_answer_is_422_with_its_field(token, site, grower, body, field):
    load = a_load(site, "T-1")
    queried(load)
    response = posted(f"{LOADS}/{load.pk}/answers", body, token)
    assert response.status_code == 422
    assert list(response.json()["error"]["fields"]) == [field]
    assert load.entries.count() == 2


def test_a_token_that_may_only_read_records_nothing(site, grower):
    token = site_token(site, scopes=["intake:read"])
    load = a_load(site, "T-1")
    response = posted(LOADS, upload_row(load.passport.short_code, "T-2"), token)
    assert response.status_code == 403
    assert Load.objects.count() == 1
