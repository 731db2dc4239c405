"""Many identical loads at once: the create form's "How many loads" makes a batch by a job (run
here as a worker runs it; tests/portal/passports/test_on_a_worker.py kills a real one), each
passport under its own one-time key, never more than asked."""

from __future__ import annotations

import re
import threading
import time
from datetime import timedelta

import pytest

from portal.assurance import service
from portal.audit.models import Event
from portal.dashboard import figures as dashboard
from portal.jobs import actions
from portal.jobs.models import Job
from portal.passports import making
from portal.passports.models import Passport
from portal.passports.tasks import passport_batch
from tests.demo import HOLLOWFIELD
from tests.jobs import run
from tests.portal.passports.helpers import refused_at_the_third, text
from tests.portal.passports.made import filled

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def batch_job() -> Job:
    return Job.objects.get(kind=passport_batch.name)


def codes_on(page) -> list[str]:
    return re.findall(r'<li><a class="code" href="/passports/([^/]+)/">', page.content.decode())


def test_five_loads_make_five_passports_with_the_same_details_and_codes_of_their_own(grower):
    response = grower.post("/passports/new", filled(grower, loads="5", crop_type="Barley"))
    job = batch_job()
    assert response.status_code == 303 and response["Location"] == f"/jobs/{job.pk}/"
    assert job.title == "5 passports for Hollowfield Farms Ltd"
    assert run(job).state == Job.State.DONE
    made = list(Passport.objects.order_by("batch_position"))
    assert [p.batch_position for p in made] == [0, 1, 2, 3, 4]
    assert len({p.short_code for p in made}) == 5
    assert {(p.crop_type, p.membership_guid, p.made_by.username) for p in made} == {
        ("Barley", HOLLOWFIELD, "grower")
    }
    page = grower.get(f"/jobs/{job.pk}/")
    assert codes_on(page) == [p.short_code for p in made]
    words = text(page)
    assert "The 5 passports made" in words
    assert "One PDF of all 5, to print" in words and "A ZIP of their PDFs and records" in words
    assert "Download" not in words  # the batch itself makes no file


def test_its_calls_are_on_the_staff_dashboard_once_it_ends(grower):
    grower.post("/passports/new", filled(grower, loads="3"))
    assert run(batch_job()).state == Job.State.DONE
    calls = {o.name: o.calls for o in dashboard.operations(timedelta(hours=1))}
    assert calls.get("create_passport") == 3


def test_its_progress_counts_the_passports_made(grower):
    grower.post("/passports/new", filled(grower, loads="3"))
    job = batch_job()
    Job.objects.filter(pk=job.pk).update(state=Job.State.RUNNING, done=1, total=3)
    assert "1 of 3 made" in text(grower.get(f"/jobs/{job.pk}/", headers=HTMX))


def test_the_form_sent_again_finds_the_same_batch_and_makes_no_more(grower):
    form = filled(grower, loads="4")
    first = grower.post("/passports/new", form)
    again = grower.post("/passports/new", form)
    assert again["Location"] == first["Location"]
    run(batch_job())
    assert grower.post("/passports/new", form)["Location"] == first["Location"]
    run(batch_job())  # a message delivered twice
    assert Job.objects.filter(kind=passport_batch.name).count() == 1
    assert Passport.objects.count() == 4


def test_a_refusal_part_way_stops_the_batch_says_how_many_were_made_and_retry_makes_the_rest(
    grower, upstream_sandbox, monkeypatch, settings
):
    grower.post("/passports/new", filled(grower, loads="5"))
    job = batch_job()
    settings.PORTAL_JOB_CALLS_AT_ONCE = 1  # the service asked for one after another
    asked = refused_at_the_third(upstream_sandbox, monkeypatch)
    stopped = run(job)
    assert stopped.state == Job.State.FAILED
    assert "the membership's assurance claim is not valid now" in stopped.message
    assert "2 of 5 passports were made" in stopped.message
    assert len(asked) == 3 and Passport.objects.count() == 2  # none asked for after the refusal
    page = grower.get(f"/jobs/{job.pk}/")
    assert "Made so far: 2 of 5" in text(page) and len(codes_on(page)) == 2
    assert ">Retry</button>" in page.content.decode()
    monkeypatch.undo()
    assert grower.post(f"/jobs/{job.pk}/resume/").status_code == 302
    assert run(job).state == Job.State.DONE
    assert Passport.objects.count() == 5
    assert len(codes_on(grower.get(f"/jobs/{job.pk}/"))) == 5


def test_each_passport_is_recorded_before_the_next_is_asked_for(grower, monkeypatch):
    """Cut short anywhere, a batch leaves at most one passport the portal has not recorded."""
    grower.post("/passports/new", filled(grower, loads="4"))
    real_create, recorded_when_asked = service.client().create_passport, []

    def counted(credentials, request):
        recorded_when_asked.append(Passport.objects.count())
        return real_create(credentials, request)

    monkeypatch.setattr(service.client(), "create_passport", counted)
    assert run(batch_job()).state == Job.State.DONE
    assert recorded_when_asked == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("loads", "said"),
    [
        ("51", "At most 50 passports can be made at once: make the rest in another batch."),
        ("0", "Make at least one passport."),
        ("-3", "Make at least one passport."),
        ("two", "Give the number of loads as a whole number, for example 12."),
        ("2.5", "Give the number of loads as a whole number, for example 12."),
    ],
)
def test_a_number_of_loads_that_cannot_be_made_is_said_beside_the_field(grower, loads, said):
    response = grower.post("/passports/new", filled(grower, loads=loads))
    assert response.status_code == 400
    assert f"How many loads: {said}" in text(response)
    assert not Job.objects.exists() and not Passport.objects.exists()


def test_the_limit_is_a_setting(grower, settings):
    settings.PORTAL_BATCH_LIMIT = 3
    response = grower.post("/passports/new", filled(grower, loads="4"))
    assert "At most 3 passports can be made at once" in text(response)
    assert 'max="3"' in grower.get("/passports/new").content.decode()


def test_one_load_is_made_at_once_as_before(grower):
    response = grower.post("/passports/new", filled(grower, loads="1"))
    assert response.status_code == 303
    assert response["Location"].startswith("/passports/")
    assert not Job.objects.filter(kind=passport_batch.name).exists()


def test_no_one_else_sees_a_batch(grower, partner):
    grower.post("/passports/new", filled(grower, loads="2"))
    job = run(batch_job())
    assert partner.get(f"/jobs/{job.pk}/").status_code == 404


def test_the_service_is_asked_for_one_passport_at_a_time(grower, settings, monkeypatch):
    """A call cut short may leave a passport the portal never hears of: one at most."""
    settings.PORTAL_JOB_CALLS_AT_ONCE = 3  # an export's PDFs, not a batch's passports
    real_create, lock = service.client().create_passport, threading.Lock()
    under_way, most = [0], [0]

    def counted(credentials, request):
        with lock:
            under_way[0] += 1
            most[0] = max(most[0], under_way[0])
        try:
            time.sleep(0.05)  # as a service that takes a moment
            return real_create(credentials, request)
        finally:
            with lock:
                under_way[0] -= 1

    monkeypatch.setattr(service.client(), "create_passport", counted)
    grower.post("/passports/new", filled(grower, loads="9"))
    assert run(batch_job()).state == Job.State.DONE
    assert most[0] == 1
    made = Passport.objects.order_by("batch_position")
    assert [p.batch_position for p in made] == list(range(9))


def test_a_batch_cancelled_midway_asks_for_no_more_and_keeps_what_was_made(
    grower, settings, monkeypatch
):
    settings.PORTAL_JOB_CALLS_AT_ONCE = 1
    grower.post("/passports/new", filled(grower, loads="6"))
    job = batch_job()
    real_create, real_record, asked = service.client().create_passport, making.record, []

    def slowly(credentials, request):
        asked.append(request)
        time.sleep(0.3)  # a service that takes a moment: the job sees the cancel at its next count
        return real_create(credentials, request)

    def cancelled_after_the_second(*args, **kwargs) -> None:
        real_record(*args, **kwargs)
        if Passport.objects.count() == 2:
            actions.cancel(job)  # as its owner does from the job's page, meanwhile

    monkeypatch.setattr(service.client(), "create_passport", slowly)
    monkeypatch.setattr(making, "record", cancelled_after_the_second)
    assert run(job).state == Job.State.CANCELLED
    assert 2 <= len(asked) < 6  # no more asked for, once the job saw it
    assert Passport.objects.count() == len(asked)  # every one made is recorded


def test_a_passport_another_run_recorded_meanwhile_is_kept_once_with_one_event(grower, monkeypatch):
    grower.post("/passports/new", filled(grower, loads="2"))
    job = batch_job()
    real_record = making.record

    def recorded_twice(*args, **kwargs) -> None:
        real_record(*args, **kwargs)  # another run of the job (its message sent again) ...
        real_record(*args, **kwargs)  # ... and this one, with the same key and record

    monkeypatch.setattr(making, "record", recorded_twice)
    assert run(job).state == Job.State.DONE
    made = Passport.objects.order_by("batch_position")
    assert [p.batch_position for p in made] == [0, 1]
    created = Event.objects.filter(kind=Event.Kind.PASSPORT_CREATED)
    assert sorted(e.detail["position"] for e in created) == [0, 1]
