"""The audit trail: each event written once, with its time, user, client address and request
id, short codes only as keyed hashes; read-only in the admin, append-only in the code (and in
the database, test_append_only.py)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from portal.audit.models import AppendOnly, Event
from portal.jobs.models import Job
from tests.jobs import run, run_queued
from tests.portal.accounts.helpers import sign_in, sign_in_from, signed_in_staff
from tests.portal.passports.helpers import within_one_window
from tests.portal.passports.made import filled, made_with_the_form
from tests.portal.passports.test_mail import mail_form

pytestmark = pytest.mark.django_db

Kind = Event.Kind


def events(kind: Event.Kind) -> list[Event]:
    return list(Event.objects.filter(kind=kind).order_by("pk"))


def the_one(kind: Event.Kind) -> Event:
    found = events(kind)
    assert len(found) == 1, f"{len(found)} {kind} events"
    return found[0]


def staff(username: str = "grower") -> Client:
    return signed_in_staff(username, superuser=True)


def test_a_sign_in_and_a_sign_out_are_recorded_with_who_where_and_the_request(
    client, upstream_sandbox, settings
):
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
    assert sign_in_from(client, "203.0.113.7").status_code == 302
    signed_in = the_one(Kind.SIGN_IN)
    assert (signed_in.username, signed_in.user.username) == ("grower", "grower")
    assert signed_in.client_address == "203.0.113.7"
    assert len(signed_in.request_id) == 32
    assert timezone.now() - signed_in.at < timedelta(seconds=10)
    client.post("/accounts/sign-out/", headers={"X-Forwarded-For": "203.0.113.7"})
    assert the_one(Kind.SIGN_OUT).user == signed_in.user


def test_a_failed_sign_in_names_the_username_tried(client, upstream_sandbox, fresh_lockouts):
    assert sign_in(client, "grower", "not-the-password").status_code == 400
    failed = the_one(Kind.SIGN_IN_FAILED)
    assert (failed.username, failed.user) == ("grower", None)
    assert failed.client_address == "127.0.0.1"
    assert not events(Kind.SIGN_IN)


def test_a_sign_in_refused_by_the_portal_s_limit_is_a_lockout_met(
    client, upstream_sandbox, fresh_lockouts, settings
):
    settings.AXES_FAILURE_LIMIT = 1
    sign_in(client, "grower", "wrong-1")
    assert sign_in(client, "grower", "wrong-2").status_code == 429
    met = the_one(Kind.LOCKOUT_MET)
    assert met.username == "grower" and met.detail == {"by": "portal"}
    assert len(events(Kind.SIGN_IN_FAILED)) == 1


def test_a_passport_made_is_recorded_with_its_code_only_as_a_keyed_hash(grower):
    code = made_with_the_form(grower)
    made = the_one(Kind.PASSPORT_CREATED)
    assert made.user.username == "grower" and len(made.detail["code"]) == 32
    assert code not in json.dumps(made.detail) and code.replace("-", "") not in json.dumps(
        made.detail
    )


def test_each_passport_of_a_batch_is_recorded_once(grower):
    grower.post("/passports/new", filled(grower, loads="3"))
    job = Job.objects.get(kind="passport-batch")
    run(job)
    run(job)  # its message delivered twice: nothing more is made or recorded
    made = events(Kind.PASSPORT_CREATED)
    assert [event.detail["position"] for event in made] == [0, 1, 2]
    assert len({event.detail["code"] for event in made}) == 3


def test_a_pdf_downloaded_is_recorded(grower):
    code = made_with_the_form(grower)
    run_queued("passport-pdf")
    assert grower.get(f"/passports/{code}/pdf").status_code == 200
    assert the_one(Kind.PDF_DOWNLOADED).user.username == "grower"


def test_a_mail_sent_is_recorded_once_sent(grower, mail_server):
    code = made_with_the_form(grower)
    grower.post("/passports/send", mail_form(grower, [code]))
    assert not events(Kind.MAIL_SENT)
    run_queued("passport-mail")
    assert the_one(Kind.MAIL_SENT).detail["passports"] == 1


def test_an_export_requested_and_downloaded_is_recorded(grower):
    code = made_with_the_form(grower)
    grower.post("/passports/export", {"format": "zip", "scope": "ticked", "code": [code]})
    job = run_queued("passport-export")
    requested = the_one(Kind.EXPORT_REQUESTED)
    assert requested.detail == {"job": job.pk, "format": "zip", "passports": 1}
    assert not events(Kind.EXPORT_DOWNLOADED)
    assert grower.get(f"/jobs/{job.pk}/download/").status_code == 200
    assert the_one(Kind.EXPORT_DOWNLOADED).detail == {"job": job.pk}


def test_a_look_up_and_an_intake_check_keep_no_code(client, upstream_sandbox):
    assert client.get("/p/7KXM4-QHT2W").status_code == 200
    looked_up = the_one(Kind.LOOK_UP)
    assert looked_up.user is None and looked_up.client_address == "127.0.0.1"
    form = client.get("/p/check")
    token = form.cookies["csrftoken"].value if "csrftoken" in form.cookies else ""
    client.post("/p/check", {"codes": "7KXM4-QHT2W\nZZZZZ-ZZZZZ\nhello",
                             "csrfmiddlewaretoken": token})  # fmt: skip
    checked = the_one(Kind.INTAKE_CHECK)
    assert checked.detail["listed"] == 3 and checked.detail["checked"] == 2
    assert checked.detail["codes"][0] == looked_up.detail["code"]  # the same code, the same hash
    written = json.dumps([looked_up.detail, checked.detail])
    assert "7KXM4" not in written and "QHT2W" not in written


@pytest.mark.django_db(transaction=True)  # each event in a transaction of its own
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own setting")
def test_a_look_up_is_committed_without_waiting_for_the_disk_and_the_rest_waiting(
    client, upstream_sandbox, monkeypatch
):
    committing = []
    real_create = Event.objects.create

    def create(**fields):
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            committing.append((fields["kind"], cursor.fetchone()[0]))
        return real_create(**fields)

    monkeypatch.setattr(Event.objects, "create", create)
    assert client.get("/p/7KXM4-QHT2W").status_code == 200
    assert client.get("/p/7KXM4-QHT2W").status_code == 200  # the verdict kept: recorded too
    sign_in(client, "grower")
    assert committing == [(Kind.LOOK_UP, "off"), (Kind.LOOK_UP, "off"), (Kind.SIGN_IN, "on")]
    assert [e.kind for e in Event.objects.order_by("pk")] == [kind for kind, _ in committing]


def test_a_look_up_refused_by_the_limit_is_recorded_with_its_address(
    upstream_sandbox, settings, client_address
):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
    visitor = Client(headers={"X-Forwarded-For": client_address})
    with within_one_window(client_address):
        assert visitor.get("/p/7KXM4-QHT2W").status_code == 200
        assert visitor.get("/p/7KXM4-QHT2W").status_code == 429
    refused = the_one(Kind.LOOK_UP_LIMITED)
    assert (refused.user, refused.client_address) == (None, client_address)
    assert refused.detail == {}  # no code, not even hashed


def test_the_admin_shows_the_trail_and_changes_none_of_it(upstream_sandbox, db):
    admin = staff("grower")
    event = events(Kind.STAFF_RIGHTS)[0]
    listed = admin.get("/admin/audit/event/?kind=staff-rights")
    assert listed.status_code == 200 and "Staff rights changed" in listed.content.decode()
    assert admin.get(f"/admin/audit/event/{event.pk}/change/").status_code == 200  # to read
    assert (
        admin.post(f"/admin/audit/event/{event.pk}/change/", {"kind": "look-up"}).status_code == 403
    )
    assert admin.post(f"/admin/audit/event/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin.get("/admin/audit/event/add/").status_code == 403
    bulk = admin.post(
        "/admin/audit/event/", {"action": "delete_selected", "_selected_action": [event.pk]}
    )
    assert Event.objects.filter(pk=event.pk, kind=Kind.STAFF_RIGHTS).exists(), bulk.status_code


def test_an_event_is_never_changed_or_deleted_one_by_one(grower):
    event = the_one(Kind.SIGN_IN)
    event.username = "someone else"
    with pytest.raises(AppendOnly):
        event.save()
    with pytest.raises(AppendOnly):
        event.delete()
    assert Event.objects.get(pk=event.pk).username == "grower"
