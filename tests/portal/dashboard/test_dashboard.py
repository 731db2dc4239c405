"""The staff dashboard (`/staff/`): staff only; its figures match the use made of the portal in
the test (sign-ins, a failed one and a lockout, passports, look-ups, jobs), its verdicts say when
the service is not answering, and its charts come with their numbers."""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.db import connections
from django.test import Client
from django.utils import timezone

from portal.assurance.client import AssuranceClient, CallReport
from portal.assurance.service import call_reported
from portal.audit.models import Event
from portal.jobs.models import Job
from portal.jobs.tasks import sweep
from portal.operations import health
from portal.operations.models import ServiceCalls, ServiceError
from portal.standards import cached
from portal.standards.addresses import LIVE
from tests.jobs import run
from tests.portal.accounts.helpers import (
    replace_view,
    sign_in,
    sign_in_from,
    signed_in,
    signed_in_staff,
)
from tests.portal.jobs.conftest import new_job
from tests.portal.operations.helpers import parsed, value
from tests.portal.passports.helpers import text, within_one_window
from tests.portal.passports.made import made_with_the_form
from tests.portal.standards.helpers import CROPS, STORAGE

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_calls_left_by_other_tests() -> None:
    """The service's calls start unrecorded. Those that other tests made from a pool's threads
    (intake's codes, a section page's scheme list) were recorded on the threads' own
    connections, outside their test's transaction, and stayed: they are removed on a
    connection of its own too, which commits at once (removed in the test's transaction,
    their rows would stay locked against the test's own threads)."""

    def remove() -> None:
        try:
            ServiceCalls.objects.all().delete()
            ServiceError.objects.all().delete()
        finally:
            connections.close_all()

    removing = threading.Thread(target=remove)
    removing.start()
    removing.join()


HTMX = {"HX-Request": "true"}


@pytest.fixture
def staff(upstream_sandbox) -> Client:
    return signed_in_staff("grower", superuser=True)


def figure(page, label: str) -> int:
    """A figure of "Use in the last day", by its label."""
    return int(shown(page, label))


def shown(page, label: str) -> str:
    """A figure of "Use in the last day" as shown, by the start of its label."""
    found = re.search(rf"<dt>{re.escape(label)}( \([^)]*\))?</dt><dd>([^<]+)</dd>",
                      page.content.decode())  # fmt: skip
    assert found, f"no figure {label!r}"
    return found[2]


def test_only_staff_see_it(upstream_sandbox, client):
    assert client.get("/staff/")["Location"].startswith("/accounts/sign-in/")
    assert signed_in("partner").get("/staff/").status_code == 403


OUTSIDE = "203.0.113.9"  # none of PORTAL_METRICS_ALLOWED's addresses


def signed_in_at(address: str, username: str) -> Client:
    """A new test client at `address`, signed in as the demo account `username`."""
    client = Client(REMOTE_ADDR=address)
    assert sign_in(client, username).status_code == 302
    return client


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["page", "fragment"])
@pytest.mark.parametrize("address", ["127.0.0.1", OUTSIDE], ids=["allowed", "not-allowed"])
def test_every_staff_page_answers_by_rights_not_by_address(upstream_sandbox, address, headers):
    """The addresses allowed to read /metrics open no staff page, and staff elsewhere are
    still staff."""
    call_command("grant_staff", "grower", stdout=StringIO())
    partner_id = get_user_model().objects.get_or_create(username="partner")[0].pk
    end_sessions = f"/staff/users/{partner_id}/end-sessions"
    anonymous = Client(REMOTE_ADDR=address)
    answer = anonymous.get("/staff/", headers=headers)
    sent_to = answer["HX-Redirect"] if headers else answer["Location"]
    assert sent_to.startswith("/accounts/sign-in/?next=")
    assert anonymous.post(end_sessions)["Location"].startswith("/accounts/sign-in/")

    partner = signed_in_at(address, "partner")
    assert partner.get("/staff/", headers=headers).status_code == 403
    assert partner.post(end_sessions).status_code == 403

    staff = signed_in_at(address, "grower")
    assert staff.get("/staff/", headers=headers).status_code == 200
    assert staff.post(end_sessions).status_code == 302
    assert partner.get("/passports/")["Location"].startswith("/accounts/sign-in/")


def test_its_use_figures_are_the_use_made(staff, fresh_lockouts, settings):
    settings.AXES_FAILURE_LIMIT = 1
    stranger = Client()
    sign_in(stranger, "partner", "wrong-password")
    assert sign_in(stranger, "partner", "wrong-again").status_code == 429
    made_with_the_form(staff)
    made_with_the_form(staff)
    assert Client().get("/p/7KXM4-QHT2W").status_code == 200
    page = staff.get("/staff/")
    assert page.status_code == 200
    assert figure(page, "Sign-ins") == 1
    assert figure(page, "Failed sign-ins") == 1
    assert figure(page, "Lockouts met") == 1
    assert figure(page, "Passports made one at a time") == 2
    assert figure(page, "Passports made in batches") == 0
    assert figure(page, "Look-ups") == 1
    assert figure(page, "Active sessions (now)") >= 1
    words = text(page)
    assert "Lockouts in force ✗ 1" in words
    assert "Errors calling the service ✓ 0.0%" in words  # a wrong password is no failure of it


def test_its_service_tables_count_the_calls_made(staff):
    before = sum(
        ServiceCalls.objects.filter(operation="create_passport").values_list("calls", flat=True)
    )
    made_with_the_form(staff)
    after = sum(
        ServiceCalls.objects.filter(operation="create_passport").values_list("calls", flat=True)
    )
    assert after == before + 1
    table = staff.get("/staff/").content.decode()
    row = re.search(r'<th scope="row">create_passport</th><td[^>]*>(\d+)</td>', table)
    assert row and int(row[1]) == after


def test_the_service_not_answering_turns_its_verdict_red(staff, settings):
    assert "The Assurance service ✓ Answering" in text(staff.get("/staff/"))
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"  # nothing listens there
    from portal.assurance import service

    service.client.cache_clear()
    cache.delete(health.UPSTREAM_KEY)
    words = text(staff.get("/staff/"))
    assert "The Assurance service ✗ Not answering" in words


def test_its_jobs_link_the_failed_ones_to_the_admin(staff):
    failed = run(new_job(staff, params={"scheme": "no-such-scheme"}))
    assert failed.state == Job.State.FAILED
    page = staff.get("/staff/").content.decode()
    assert "/admin/jobs/job/?state__exact=failed&amp;kind=test-scheme-references" in page


def test_its_charts_are_images_with_their_numbers(staff):
    made_with_the_form(staff)
    page = staff.get("/staff/").content.decode()
    assert page.count('role="img"') == 4
    assert "Time the slowest calls took, by hour" in page
    assert '<title id="chart-1-title">Passports made a day</title>' in page
    assert re.search(
        r'<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="150.0" class="bar">', page
    )
    assert "<summary>The numbers</summary>" in page


def test_its_figures_refresh_in_place(staff):
    fragment = staff.get("/staff/", headers=HTMX).content.decode()
    assert fragment.lstrip().startswith('<div id="dashboard-figures"')
    assert 'hx-trigger="every 30s"' in fragment and "<html" not in fragment


def test_the_portal_s_own_errors_turn_their_verdict_red(staff, monkeypatch):
    assert "The portal's errors ✓ 0.0%" in text(staff.get("/staff/"))

    def broken(request):
        raise RuntimeError("a fault of the portal's own")

    replace_view(monkeypatch, "memberships", broken)
    unlucky = signed_in("partner")
    unlucky.raise_request_exception = False
    assert unlucky.get("/memberships/").status_code == 500
    words = text(staff.get("/staff/"))
    assert "The portal's errors ✗" in words
    assert re.search(r"1 of \d+ requests in the last hour failed", words)


def test_the_503_of_a_service_out_of_reach_is_not_the_portal_s_error(staff, settings):
    settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"  # nothing listens there
    from portal.assurance import service

    service.client.cache_clear()
    assert staff.get("/memberships/").status_code == 503
    assert "The portal's errors ✓ 0.0%" in text(staff.get("/staff/"))


def test_look_ups_refused_by_their_limit_are_counted(staff, settings):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    visitor = Client()
    with within_one_window("127.0.0.1"):
        assert visitor.get("/p/7KXM4-QHT2W").status_code == 200
        assert visitor.get("/p/7KXM4-QHT2W").status_code == 429
        assert visitor.get("/p/7KXM4-QHT2W").status_code == 429
    page = staff.get("/staff/")
    assert figure(page, "Look-ups") == 1
    assert figure(page, "Look-ups limited") == 2


def test_sign_ins_through_the_form_show_as_the_audit_trail_holds_them(staff, fresh_lockouts):
    """The use figures are read from the audit trail: what staff find there (the admin's list
    of it) is what the dashboard counts, and nothing else counts it beside."""
    assert sign_in(Client(), "partner").status_code == 302
    assert sign_in(Client(), "partner").status_code == 302
    assert sign_in(Client(), "partner", "not-the-password").status_code == 400
    page = staff.get("/staff/")
    listed = staff.get("/admin/audit/event/?kind__exact=sign-in").content.decode()
    assert figure(page, "Sign-ins") == listed.count(">Signed in</td>") == 3  # staff's own too
    assert figure(page, "Failed sign-ins") == 1
    people = page.content.decode()
    assert re.search(r'<th scope="row">partner</th>\s*<td[^>]*>2</td>', people)
    cache.clear()  # the cache holds no count of its own: the figures stay
    assert figure(staff.get("/staff/"), "Sign-ins") == 3


def test_use_in_the_last_day_is_counted_to_the_minute_as_the_hours_pass(upstream_sandbox):
    """The hours that have passed are counted once and kept; the window is still the last day
    to the minute: an hour partly in it counts only its part."""
    call_command("grant_staff", "grower", stdout=StringIO())
    visitor = Client()
    ten_past = (timezone.now() + timedelta(hours=2)).replace(minute=10, second=0, microsecond=0)
    with time_machine.travel(ten_past, tick=False) as moment:
        for _ in range(2):
            assert visitor.get("/p/7KXM4-QHT2W").status_code == 200
        moment.shift(timedelta(minutes=50))  # on the hour
        assert visitor.get("/p/7KXM4-QHT2W").status_code == 200
        moment.shift(timedelta(minutes=70))  # both hours over
        assert figure(signed_in("grower").get("/staff/"), "Look-ups") == 3
        assert figure(signed_in("grower").get("/staff/"), "Look-ups") == 3  # from the hours kept
        moment.move_to(ten_past + timedelta(days=1, minutes=5))  # the first two a day ago
        assert figure(signed_in("grower").get("/staff/"), "Look-ups") == 1


def calls_taking(operation: str, seconds: float) -> None:
    """A call to the service as the client reports it, to both of its counts."""
    call_reported.send(sender=AssuranceClient,
                       report=CallReport(operation, 200, "ok", seconds, 100, 1))  # fmt: skip


def test_a_call_falls_in_the_same_band_on_the_dashboard_as_in_metrics(staff):
    """A call that took just a bucket's bound in /metrics counts in that bucket and not the one
    before it, and the dashboard shows it in the band of that bound: one set of bands."""
    calls_taking("bands-probe", 0.001)
    bucket = "portal_upstream_call_duration_seconds_bucket"
    bounds = sorted(float(dict(labels)["le"]) for name, labels in scrape()
                    if name == bucket and dict(labels)["operation"] == "bands-probe")  # fmt: skip
    assert bounds[-1] == float("inf") and len(bounds) > 2
    finite = bounds[:-1]
    for bound in finite:
        calls_taking(f"at-{bound}", bound)
    calls_taking("slower", 2 * finite[-1])
    samples = scrape()
    page = staff.get("/staff/").content.decode()
    for n, bound in enumerate(finite):
        counted = {le: value(samples, bucket, operation=f"at-{bound}", le=str(le))
                   for le in bounds}  # fmt: skip
        assert counted[bound] == 1 and (n == 0 or counted[finite[n - 1]] == 0), counted
        assert shown_band(page, f"at-{bound}") == f"under {round(bound * 1000):,} ms"
    assert value(samples, bucket, operation="slower", le=str(finite[-1])) == 0
    assert shown_band(page, "slower") == f"over {round(finite[-1] * 1000):,} ms"


def scrape() -> dict:
    return parsed(Client().get("/metrics").content.decode())


def shown_band(page: str, operation: str) -> str:
    """The median the dashboard's last hour shows for `operation`'s calls."""
    cell = r"<td[^>]*>"
    row = re.search(rf'<th scope="row">{re.escape(operation)}</th>{cell}\d+</td>{cell}[^<]*</td>'
                    rf"{cell}([^<]+)</td>", page)  # fmt: skip
    assert row, f"no row for {operation}"
    return row[1]


def test_a_search_whose_sections_were_asked_of_the_service_is_no_hit(staff):
    assert staff.get(f"/standards/{CROPS}/").status_code == 200  # the sections' list asked
    # The search asks for the sections' content a few at once, from a pool's threads.
    assert staff.get(f"/standards/{CROPS}/search/?q=grain").status_code == 200
    assert staff.get(f"/standards/{CROPS}/search/?q=grain").status_code == 200  # all kept
    assert shown(staff.get("/staff/"), "Standards cache hit rate") == "33.3%"


def test_a_section_page_whose_scheme_list_alone_was_asked_of_the_service_is_no_hit(staff):
    assert staff.get(STORAGE).status_code == 200  # the section and the scheme list asked
    cache.delete(cached.cache_key("schemes", LIVE))
    # The scheme list is asked for at once with the section, from a pool's thread.
    assert staff.get(STORAGE).status_code == 200
    assert staff.get(STORAGE).status_code == 200  # both kept
    assert shown(staff.get("/staff/"), "Standards cache hit rate") == "33.3%"


def test_the_standards_cache_hit_rate_is_what_was_kept(staff):
    page = staff.get("/staff/")
    assert shown(page, "Standards cache hit rate") == "—"
    assert staff.get("/standards/").status_code == 200  # asked of the service: a miss
    assert staff.get("/standards/").status_code == 200  # kept: a hit
    assert shown(staff.get("/staff/"), "Standards cache hit rate") == "50.0%"


def test_staff_end_a_user_s_sessions_from_their_line(staff):
    partner = signed_in("partner")
    page = staff.get("/staff/").content.decode()
    user = get_user_model().objects.get(username="partner")
    action = f'action="/staff/users/{user.pk}/end-sessions"'
    assert action in page and "End all sessions of partner" in page
    answer = staff.post(f"/staff/users/{user.pk}/end-sessions", follow=True)
    assert "Every session of partner is ended" in text(answer)
    assert partner.get("/passports/")["Location"].startswith("/accounts/sign-in/")
    assert Event.objects.get(kind=Event.Kind.SESSIONS_ENDED).detail["ended_for"] == "partner"
    assert staff.get("/staff/").status_code == 200  # the staff member's own session goes on


def test_only_staff_end_sessions_and_only_by_post(staff):
    user = get_user_model().objects.get(username="grower")
    address = f"/staff/users/{user.pk}/end-sessions"
    assert Client().post(address)["Location"].startswith("/accounts/sign-in/")
    assert signed_in("partner").post(address).status_code == 403
    assert staff.get(address).status_code == 405
    assert staff.post("/staff/users/999999/end-sessions").status_code == 404
    assert not Event.objects.filter(kind=Event.Kind.SESSIONS_ENDED).exists()


def test_a_lockout_is_in_force_once_however_often_it_is_met_and_ends_with_a_sign_in(
    staff, fresh_lockouts, settings
):
    settings.AXES_FAILURE_LIMIT = 1
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]  # so that another address can be named
    stranger = Client()
    sign_in(stranger, "partner", "wrong-password")
    for _ in range(3):
        assert sign_in(stranger, "partner", "wrong-again").status_code == 429
    assert "Lockouts in force ✗ 1" in text(staff.get("/staff/"))
    assert sign_in_from(Client(), "192.0.2.7", "partner").status_code == 302  # rightly
    assert "Lockouts in force ✓ 0" in text(staff.get("/staff/"))


def test_the_service_is_not_answering_since_its_first_failed_call(staff, settings):
    from portal.assurance import service

    later = timezone.now().replace(second=0) + timedelta(hours=1)  # after the staff's sign-in
    with time_machine.travel(later, tick=False) as moment:
        assert staff.get("/memberships/").status_code == 200  # answered
        moment.shift(timedelta(seconds=75))
        settings.ASSURANCE_BASE_URL = "http://127.0.0.1:9"  # nothing listens there
        service.client.cache_clear()
        cache.delete(health.UPSTREAM_KEY)
        assert staff.get("/memberships/").status_code == 503  # the first failure
        failed_at = timezone.localtime()
        moment.shift(timedelta(seconds=40))
        words = text(staff.get("/staff/"))
    assert f"Not answering since {failed_at:%H:%M:%S}" in words


def test_the_sweep_says_when_it_last_ran_and_is_late_after_two_of_its_intervals(staff, settings):
    settings.PORTAL_SWEEP_SECONDS = 300
    assert "The periodic sweep ✗ Not run yet" in text(staff.get("/staff/"))
    swept_at = timezone.now().replace(microsecond=0) + timedelta(hours=1)
    ran = f"Sweep last ran at {timezone.localtime(swept_at):%H:%M:%S}"
    with time_machine.travel(swept_at, tick=False) as moment:
        sweep()
        words = text(staff.get("/staff/"))
        assert f"The periodic sweep ✓ On time {ran}; it runs every 5 min." in words
        moment.shift(timedelta(minutes=10))  # two intervals: not yet late
        assert "The periodic sweep ✓ On time" in text(staff.get("/staff/"))
        moment.shift(timedelta(seconds=1))
        words = text(staff.get("/staff/"))
    assert "The periodic sweep ✗ Late" in words
    assert ran in words and "are Celery beat and a worker running?" in words
