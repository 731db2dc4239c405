"""The mail a week before the latest sign-in of a user with API tokens ends (portal.api.reminders),
as Celery beat's hourly task queues it and its job sends it (run here as a worker runs it;
test_sign_in_reminders_on_a_worker.py kills a real one): once for each expiry, to where the
portal writes to the user, to holders of a live token only; tried again while the mail server
is out of reach or says "try later", and by the next hourly run once every try has failed;
never again after its refusal for good; marked told only once the mail server took it."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.utils import timezone

from portal.accounts.models import LatestSignIn, Preferences
from portal.api.models import Token
from portal.api.reminders import KIND, send_reminders
from portal.celery import app
from portal.jobs.models import Job
from portal.jobs.tasks import TryAgain
from tests.jobs import run
from tests.mailserver import MailServer
from tests.portal.accounts.helpers import sign_in, signed_in
from tests.portal.api.builders import made_on_the_page
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db

DAY = 24 * 60 * 60


def grower():
    return get_user_model().objects.get(username="grower")


def ends(username: str = "grower"):
    return LatestSignIn.objects.get(user__username=username).expires


def reminders_at(moment) -> int:
    """How many reminders the hourly run queues at `moment`."""
    with time_machine.travel(moment):
        return send_reminders()


def reminder_jobs() -> list[Job]:
    return list(Job.objects.filter(kind=KIND).order_by("pk"))


def sent_at(moment) -> int:
    """The hourly run at `moment`, and the jobs it queued run then, as a worker runs them; how
    many were queued."""
    with time_machine.travel(moment):
        queued = send_reminders()
        for job in Job.objects.filter(kind=KIND, state=Job.State.QUEUED):
            run(job)
    return queued


@pytest.fixture
def signed_in_by_e_mail(upstream_sandbox) -> Client:
    """The grower signed in by their address, which the portal then knows, with an API token
    made on the page."""
    client = signed_in("grower@example.com")
    made_on_the_page(client, scopes=["passports:read"])
    return client


def test_beat_sends_it_every_hour():
    entry = django_settings.CELERY_BEAT_SCHEDULE["upstream-sign-in-reminders"]
    assert entry["schedule"] == 60 * 60
    assert entry["task"] in app.tasks
    assert KIND in app.tasks


def test_a_week_before_the_end_the_user_is_mailed_once(signed_in_by_e_mail, mail_server):
    end = ends()
    assert sent_at(end - timedelta(days=7, minutes=1)) == 0
    assert sent_at(end - timedelta(days=6)) == 1
    assert sent_at(end - timedelta(days=6) + timedelta(hours=1)) == 0
    assert sent_at(end - timedelta(hours=1)) == 0
    [mail] = mail_server.received
    assert mail.recipients == ["grower@example.com"]
    local = timezone.localtime(end)
    subject = f"Sign in to the Assurance portal by {local.day} {local:%B} to keep your API tokens"
    # In Welsh and English (the grower has not chosen), the English after the Welsh; a subject
    # too long for the header's first line is folded, and Python's parser keeps the fold's space.
    assert subject in " ".join(mail.message["Subject"].split())
    body = mail.body("plain")
    assert f"ends on {local:%A} {local.day} {local:%B %Y} at {local:%H:%M}" in body
    assert f"{django_settings.PORTAL_URL}/accounts/sign-in/" in body
    assert "upstream_sign_in_needed" in body


def test_its_job_is_among_the_user_s_jobs_once_sent(signed_in_by_e_mail, mail_server):
    sent_at(ends() - timedelta(days=6))
    [job] = reminder_jobs()
    assert job.state == Job.State.DONE
    local = timezone.localtime(ends())
    listed = text(signed_in_by_e_mail.get("/jobs/"))
    title = f"Mail to you: sign in by {local.day} {local:%B} to keep your API tokens working"
    assert title in listed


def test_a_sign_in_that_renews_it_is_told_in_its_turn(signed_in_by_e_mail, mail_server, clock):
    first = ends()
    assert sent_at(first - timedelta(days=6)) == 1
    clock.advance_clock(24 * DAY)
    with time_machine.travel(timezone.now() + timedelta(days=24)):
        sign_in(Client(), "grower@example.com")
    renewed = ends()
    assert renewed > first
    assert sent_at(first - timedelta(days=3)) == 0  # the renewed one ends weeks later
    assert sent_at(renewed - timedelta(days=6)) == 1
    assert len(mail_server.received) == 2


def test_a_sign_in_before_its_job_runs_sends_nothing(signed_in_by_e_mail, mail_server, clock):
    assert reminders_at(ends() - timedelta(days=6)) == 1
    clock.advance_clock(24 * DAY)
    with time_machine.travel(timezone.now() + timedelta(days=24)):
        sign_in(Client(), "grower@example.com")
        [job] = reminder_jobs()
        assert run(job).state == Job.State.DONE
    assert mail_server.received == []


def test_it_goes_to_the_address_kept_on_the_account_s_page(signed_in_by_e_mail, mail_server):
    Preferences.objects.create(user=grower(), email="office@hollowfield.example")
    assert sent_at(ends() - timedelta(days=6)) == 1
    assert mail_server.received[0].recipients == ["office@hollowfield.example"]


def test_nobody_is_mailed_at_no_address(upstream_sandbox, mail_server):
    made_on_the_page(signed_in("partner"))  # by username: the portal knows no address of theirs
    assert sent_at(ends("partner") - timedelta(days=6)) == 0
    assert mail_server.received == [] and reminder_jobs() == []


def test_someone_without_an_api_token_is_not_mailed(upstream_sandbox, mail_server):
    signed_in("grower@example.com")
    assert sent_at(ends() - timedelta(days=6)) == 0
    assert mail_server.received == []


def test_someone_whose_tokens_are_revoked_or_expired_is_not_mailed(
    signed_in_by_e_mail, mail_server
):
    Token.objects.update(revoked=timezone.now())
    assert sent_at(ends() - timedelta(days=6)) == 0
    Token.objects.update(revoked=None, expires=ends() - timedelta(days=10))
    assert sent_at(ends() - timedelta(days=6)) == 0
    assert mail_server.received == []


def test_an_account_made_inactive_is_not_mailed(signed_in_by_e_mail, mail_server):
    get_user_model().objects.filter(username="grower").update(is_active=False)
    assert sent_at(ends() - timedelta(days=6)) == 0
    assert mail_server.received == []


def test_an_ended_sign_in_is_not_told(signed_in_by_e_mail, mail_server):
    assert sent_at(ends() + timedelta(minutes=1)) == 0
    assert mail_server.received == []


def test_after_try_later_its_job_tries_again_and_no_second_is_queued(
    signed_in_by_e_mail, mail_server
):
    mail_server.inbox.refusal = "451 4.3.0 Try again later"
    assert reminders_at(ends() - timedelta(days=6)) == 1
    [job] = reminder_jobs()
    with time_machine.travel(ends() - timedelta(days=6)), pytest.raises(TryAgain):
        run(job)
    waiting = Job.objects.get(pk=job.pk)
    assert waiting.state == Job.State.QUEUED and "for now (451 4.3.0" in waiting.message
    assert reminders_at(ends() - timedelta(days=6) + timedelta(hours=1)) == 0  # it waits already
    mail_server.inbox.refusal = ""
    with time_machine.travel(ends() - timedelta(days=6) + timedelta(hours=1)):
        assert run(job).state == Job.State.DONE
    assert len(mail_server.received) == 1
    assert sent_at(ends() - timedelta(days=5)) == 0
    assert len(mail_server.received) == 1 and len(reminder_jobs()) == 1


def test_a_mail_server_out_of_reach_at_every_try_is_tried_again_by_the_next_run(
    signed_in_by_e_mail, mail_server, settings
):
    settings.PORTAL_MAIL_TRIES = 1
    reachable, settings.MAILERS = settings.MAILERS, MailServer().mailer()  # never started
    assert sent_at(ends() - timedelta(days=6)) == 1
    [job] = reminder_jobs()
    assert job.state == Job.State.FAILED and "could not be reached" in job.message
    settings.MAILERS = reachable
    assert sent_at(ends() - timedelta(days=5)) == 1  # the same job, queued again
    assert [job.state for job in reminder_jobs()] == [Job.State.DONE]
    assert len(mail_server.received) == 1


def test_after_a_refusal_for_good_it_is_not_sent_again(signed_in_by_e_mail, mail_server):
    mail_server.inbox.refusal = "550 5.1.1 No such user"
    assert sent_at(ends() - timedelta(days=6)) == 1
    [job] = reminder_jobs()
    assert job.state == Job.State.FAILED
    assert "The mail server refused the address grower@example.com: 550" in job.message
    mail_server.inbox.refusal = ""
    assert sent_at(ends() - timedelta(days=5)) == 0
    assert mail_server.received == []


@pytest.mark.django_db(transaction=True)
def test_its_job_run_twice_at_once_sends_one_mail(signed_in_by_e_mail, mail_server):
    mail_server.inbox.delay = 2  # the first run still sending as the second comes to send
    assert reminders_at(ends() - timedelta(days=6)) == 1
    [job] = reminder_jobs()
    runs = [threading.Thread(target=run_and_close, args=(job.pk,)) for _ in range(2)]
    for each in runs:
        each.start()
    for each in runs:
        each.join(60)
    assert len(mail_server.received) == 1
    assert Job.objects.get(pk=job.pk).state == Job.State.DONE
    assert reminders_at(ends() - timedelta(days=5)) == 0


def run_and_close(job_id: int) -> None:
    try:
        run(job_id)
    finally:
        connection.close()  # the thread's own
