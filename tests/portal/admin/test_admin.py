"""Django's admin as staff use it: branded as the portal; a user's sessions ended (they are
signed out on their next request); a failed job retried, and one cancelled; the passports and
mailings recorded, to read only; a sign-in lockout read and lifted; every time in 24-hour form,
as the portal's pages write them.
Staff are made with `grant_staff` and sign in as everyone does."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from portal.audit.models import Event
from portal.jobs.models import Job
from portal.passports.models import Mailing, Passport
from tests.jobs import run, run_queued
from tests.mailserver import MailServer
from tests.portal.accounts.helpers import sign_in, signed_in, signed_in_staff
from tests.portal.jobs.conftest import new_job
from tests.portal.passports.helpers import text
from tests.portal.passports.made import batch_of_50, made_with_the_form
from tests.portal.passports.test_mail import mail_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(upstream_sandbox) -> Client:
    """The grower, made staff by the command (not a superuser), signed in."""
    return signed_in_staff("grower")


def act(staff: Client, model: str, action: str, *objects: object) -> str:
    response = staff.post(
        f"/admin/{model}/", {"action": action, "_selected_action": [o.pk for o in objects]},
        follow=True,
    )  # fmt: skip
    assert response.status_code == 200
    return response.content.decode()


def test_the_admin_is_the_portal_s(staff):
    page = staff.get("/admin/").content.decode()
    assert "Assurance portal administration" in page
    for listed in ("Audit trail", "Passports", "Mailings", "Jobs", "Users"):
        assert listed in page


@pytest.mark.parametrize("address", ["/admin/", "/admin/passports/passport/", "/admin/login/"])
def test_the_admin_s_pages_have_the_portal_s_icon(staff, address):
    page = staff.get(address, follow=True).content.decode()
    assert '<link rel="icon" href="/static/img/mark.svg" type="image/svg+xml">' in page


def test_staff_end_every_session_of_a_user_who_is_then_signed_out(staff):
    partner, elsewhere = signed_in("partner"), signed_in("partner")
    assert partner.get("/passports/").status_code == 200
    user = get_user_model().objects.get(username="partner")
    said = act(staff, "auth/user", "end_all_sessions", user)
    assert "Every session of 1 user(s) is ended." in said
    for client in (partner, elsewhere):
        assert client.get("/passports/")["Location"].startswith("/accounts/sign-in/")
    ended = Event.objects.get(kind=Event.Kind.SESSIONS_ENDED)
    assert ended.user.username == "grower" and ended.detail["ended_for"] == "partner"
    assert sign_in(partner, "partner").status_code == 302  # and may sign in again
    assert partner.get("/passports/").status_code == 200
    assert staff.get("/passports/").status_code == 200  # nobody else's sessions ended


def test_a_failed_job_is_retried_from_the_admin_as_its_owner(staff, settings):
    settings.PORTAL_MAIL_TRIES = 1
    server = MailServer()  # not started: the first try fails
    settings.MAILERS = server.mailer()
    code = made_with_the_form(staff)
    staff.post("/passports/send", mail_form(staff, [code]))
    failed = run_queued("passport-mail")
    assert failed.state == Job.State.FAILED
    server.start()
    try:
        assert "1 job(s) queued again." in act(staff, "jobs/job", "retry_jobs", failed)
        assert run(failed).state == Job.State.DONE
        assert len(server.wait_for(1)) == 1
    finally:
        server.stop()
    assert Mailing.objects.get().sent is not None


def test_a_job_whose_sign_in_ended_is_left_to_its_owner(staff):
    job = run(new_job(staff, credential="not-a-token-at-all"))
    assert job.state == Job.State.FAILED and job.needs_sign_in
    said = act(staff, "jobs/job", "retry_jobs", job)
    assert "0 job(s) queued again." in said and "their owner must sign in again" in said
    assert Job.objects.get(pk=job.pk).state == Job.State.FAILED


def test_a_job_under_way_is_cancelled_from_the_admin(staff):
    job = new_job(staff)
    assert "1 job(s) cancelled." in act(staff, "jobs/job", "cancel_jobs", job)
    assert Job.objects.get(pk=job.pk).state == Job.State.CANCELLED


def test_passports_and_mailings_are_there_to_read_not_to_change(staff, mail_server):
    code = made_with_the_form(staff)
    staff.post("/passports/send", mail_form(staff, [code]))
    passport, mailing = Passport.objects.get(), Mailing.objects.get()
    assert code in staff.get("/admin/passports/passport/").content.decode()
    assert code in staff.get(f"/admin/passports/mailing/{mailing.pk}/change/").content.decode()
    assert staff.post(f"/admin/passports/passport/{passport.pk}/change/", {}).status_code == 403
    assert (
        staff.post(f"/admin/passports/mailing/{mailing.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )


def test_the_passports_are_listed_50_a_page_as_the_business_list_is(staff):
    batch_of_50(staff)
    made_with_the_form(staff)
    first, second = (staff.get(f"/admin/passports/passport/?p={n}") for n in (1, 2))
    rows = [re.findall(r'<th class="field-short_code">', page.content.decode())
            for page in (first, second)]  # fmt: skip
    assert [len(found) for found in rows] == [50, 1]
    assert "51 passports" in text(first)


def test_staff_read_a_sign_in_lockout_and_lift_it(staff, upstream_sandbox, settings):
    settings.AXES_FAILURE_LIMIT = 1
    stranger = Client()
    assert sign_in(stranger, "lapsed", "not-the-password").status_code == 400
    assert sign_in(stranger, "lapsed").status_code == 429
    listed = text(staff.get("/admin/axes/accessattempt/"))
    assert "lapsed" in listed and "Locked Out" in listed
    assert "Clean up expired attempts" not in listed  # the periodic sweep does it
    [attempt] = AccessAttempt.objects.all()
    act(staff, "axes/accessattempt", "delete_selected", attempt)
    page = staff.post("/admin/axes/accessattempt/", {"action": "delete_selected", "post": "yes",
                                                     "_selected_action": [attempt.pk]})  # fmt: skip
    assert page.status_code == 302
    assert sign_in(stranger, "lapsed").status_code == 302


def test_staff_read_users_but_only_a_superuser_changes_rights(staff):
    partner = signed_in("partner")
    user = get_user_model().objects.get(username="partner")
    assert "partner" in staff.get("/admin/auth/user/").content.decode()
    change = {"username": "partner", "is_active": "on", "is_staff": "on", "is_superuser": "on"}
    assert staff.post(f"/admin/auth/user/{user.pk}/change/", change).status_code == 403
    user.refresh_from_db()
    assert not user.is_staff and not user.is_superuser
    assert partner.get("/passports/").status_code == 200


def test_only_staff_reach_the_admin(upstream_sandbox, client):
    assert client.get("/admin/")["Location"].startswith("/admin/login/")
    assert signed_in("partner").get("/admin/", follow=True).status_code == 403


def test_every_time_in_the_admin_is_in_24_hour_form(upstream_sandbox, mail_server):
    afternoon = (timezone.localtime() - timedelta(days=1)).replace(hour=14, minute=30, second=0)
    with time_machine.travel(afternoon, tick=True):
        call_command("grant_staff", "grower", stdout=StringIO())
        staff = signed_in("grower")  # an event and the user's last login, at 14:30
        code = made_with_the_form(staff)  # a passport, an event and the PDF's job
        staff.post("/passports/send", mail_form(staff, [code]))  # a mailing and its job
        grower = get_user_model().objects.get(username="grower")
        pages = [
            "/admin/audit/event/", f"/admin/audit/event/{Event.objects.first().pk}/change/",
            "/admin/jobs/job/",
            "/admin/passports/passport/", "/admin/passports/mailing/",
            f"/admin/passports/mailing/{Mailing.objects.get().pk}/change/",
            "/admin/auth/user/", f"/admin/auth/user/{grower.pk}/change/",
        ]  # fmt: skip
        shown = {page: text(staff.get(page)) for page in pages}
    at = f"{afternoon:%-d %B %Y}, 14:30"
    for page, words in shown.items():
        assert at in words, page
        assert "p.m." not in words and "a.m." not in words, page
