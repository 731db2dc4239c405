"""The changes that emit webhook events, as people make them: a passport made with the form
(`passport.created`) and sent by e-mail (`passport.sent`), to its business's endpoints alone; a
load recorded, corrected, queried and answered (`intake.load.*`, `intake.query.*`), to its
site's and its business's; a recording rolled back (its ticket recorded already) emits nothing."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError

from portal.intake import loads, queries
from portal.jobs.models import Job
from portal.outbox.models import Event
from portal.passports.tasks import passport_mail
from tests.demo import WENHAM
from tests.jobs import run
from tests.portal.intake.builders import a_load, a_site, figures, queried
from tests.portal.outbox.builders import an_endpoint
from tests.portal.passports.made import made_with_the_form

pytestmark = pytest.mark.django_db


def emitted() -> list[tuple[str, list[str]]]:
    """Each event, oldest first, with the addresses of the endpoints it is for."""
    return [(e.type, sorted(d.endpoint.url for d in e.deliveries.all()))
            for e in Event.objects.order_by("pk")]  # fmt: skip


def test_a_passport_made_and_sent_is_told_to_its_business_alone(grower, mail_server):
    an_endpoint("https://farm.example/in")
    an_endpoint("https://wenham.example/in", membership_guid=WENHAM)
    code = made_with_the_form(grower)
    page = grower.post("/passports/send", {"code": [code]}).content.decode()
    key = page.split('name="key" value="')[1].split('"')[0]
    grower.post("/passports/send", {"code": [code], "key": key, "recipient": "a@example.com",
                                    "reply_to": "grower@example.com", "note": ""})  # fmt: skip
    assert run(Job.objects.get(kind=passport_mail.name)).state == Job.State.DONE
    assert emitted() == [("passport.created", ["https://farm.example/in"]),
                         ("passport.sent", ["https://farm.example/in"])]  # fmt: skip
    created = json.loads(Event.objects.get(type="passport.created").body)
    assert created["data"]["passport"]["short_code"] == code
    assert created["data"]["url"].endswith(f"/api/v1/passports/{code}")


def test_a_loads_history_is_told_to_its_site_and_business(grower):
    site = a_site()
    an_endpoint("https://farm.example/in")
    an_endpoint("https://mill.example/in", site=site)
    an_endpoint("https://other-mill.example/in", site=a_site(code="other", name="Other"))
    load = a_load(site)
    loads.correct(load, figures(tare_kg=15_100), by="intake", reason="Tare re-weighed")
    queried(load)
    queries.reply(load, by="intake", words="Our sample stands.", stand_by=True)
    queried(load)
    loads.correct(load, figures(tare_kg=15_200), by="intake", reason="After the query")
    both = ["https://farm.example/in", "https://mill.example/in"]
    assert emitted() == [
        ("intake.load.recorded", both), ("intake.load.corrected", both),
        ("intake.query.opened", both), ("intake.query.answered", both),
        ("intake.query.opened", both), ("intake.load.corrected", both),
        ("intake.query.answered", both),
    ]  # fmt: skip
    corrected = json.loads(Event.objects.filter(type="intake.load.corrected").last().body)
    assert corrected["data"]["load"] == {"id": load.pk, "site": site.code, "ticket": "T-1001",
                                         "passport": load.passport.short_code}  # fmt: skip


def test_a_recording_rolled_back_emits_nothing(grower):
    site = a_site()
    an_endpoint("https://mill.example/in", site=site)
    load = a_load(site)
    with pytest.raises(IntegrityError):
        a_load(site, passport=load.passport)  # the same ticket again
    assert [t for t, _ in emitted()] == ["intake.load.recorded"]
