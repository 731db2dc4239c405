"""The mail a week before the latest sign-in of a user with API tokens ends (portal.api.reminders),
as Celery beat's hourly task sends it: once for each expiry, to where the portal writes to the
user, to holders of a live token only, sent again after a mail server's "try later", never after
its refusal for good."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from portal.accounts.models import LatestSignIn, Preferences
from portal.api.models import Token
from portal.api.reminders import send_reminders
from portal.celery import app
from tests.mailserver import MailServer
from tests.portal.accounts.helpers import sign_in, signed_in
from tests.portal.api.builders import made_on_the_page

pytestmark = pytest.mark.django_db

DAY = 24 * 60 * 60


def grower():
    return get_user_model().objects.get(username="grower")


def ends(username: str = "grower"):
    return LatestSignIn.objects.get(user__username=username).expires


def reminders_at(moment) -> int:
    with time_machine.travel(moment):
        return send_reminders()


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


def test_a_week_before_the_end_the_user_is_mailed_once(signed_in_by_e_mail, mail_server):
    end = ends()
    assert reminders_at(end - timedelta(days=7, minutes=1)) == 0
    assert reminders_at(end - timedelta(days=6)) == 1
    assert reminders_at(end - timedelta(days=6) + timedelta(hours=1)) == 0
    assert reminders_at(end - timedelta(hours=1)) == 0
    [mail] = mail_server.received
    assert mail.recipients == ["grower@example.com"]
    local = timezone.localtime(end)
    subject = f"Sign in to the Assurance portal by {local.day} {local:%B} to keep your API tokens"
    assert mail.message["Subject"].startswith(subject)
    body = mail.body("plain")
    assert f"ends on {local:%A} {local.day} {local:%B %Y} at {local:%H:%M}" in body
    assert f"{django_settings.PORTAL_URL}/accounts/sign-in/" in body
    assert "upstream_sign_in_needed" in body


def test_a_sign_in_that_renews_it_is_told_in_its_turn(signed_in_by_e_mail, mail_server, clock):
    first = ends()
    assert reminders_at(first - timedelta(days=6)) == 1
    clock.advance_clock(24 * DAY)
    with time_machine.travel(timezone.now() + timedelta(days=24)):
        sign_in(Client(), "grower@example.com")
    renewed = ends()
    assert renewed > first
    assert reminders_at(first - timedelta(days=3)) == 0  # the renewed one ends weeks later
    assert reminders_at(renewed - timedelta(days=6)) == 1
    assert len(mail_server.received) == 2


def test_it_goes_to_the_address_kept_on_the_account_s_page(signed_in_by_e_mail, mail_server):
    Preferences.objects.create(user=grower(), email="office@hollowfield.example")
    assert reminders_at(ends() - timedelta(days=6)) == 1
    assert mail_server.received[0].recipients == ["office@hollowfield.example"]


def test_nobody_is_mailed_at_no_address(upstream_sandbox, mail_server):
    made_on_the_page(signed_in("partner"))  # by username: the portal knows no address of theirs
    assert reminders_at(ends("partner") - timedelta(days=6)) == 0
    assert mail_server.received == []


def test_someone_without_an_api_token_is_not_mailed(upstream_sandbox, mail_server):
    signed_in("grower@example.com")
    assert reminders_at(ends() - timedelta(days=6)) == 0
    assert mail_server.received == []


def test_someone_whose_tokens_are_revoked_or_expired_is_not_mailed(
    signed_in_by_e_mail, mail_server
):
    Token.objects.update(revoked=timezone.now())
    assert reminders_at(ends() - timedelta(days=6)) == 0
    Token.objects.update(revoked=None, expires=ends() - timedelta(days=10))
    assert reminders_at(ends() - timedelta(days=6)) == 0
    assert mail_server.received == []


def test_an_account_made_inactive_is_not_mailed(signed_in_by_e_mail, mail_server):
    get_user_model().objects.filter(username="grower").update(is_active=False)
    assert reminders_at(ends() - timedelta(days=6)) == 0
    assert mail_server.received == []


def test_an_ended_sign_in_is_not_told(signed_in_by_e_mail, mail_server):
    assert reminders_at(ends() + timedelta(minutes=1)) == 0
    assert mail_server.received == []


def test_after_try_later_the_next_run_sends_it(signed_in_by_e_mail, mail_server):
    mail_server.inbox.refusal = "451 4.3.0 Try again later"
    assert reminders_at(ends() - timedelta(days=6)) == 0
    mail_server.inbox.refusal = ""
    assert reminders_at(ends() - timedelta(days=6) + timedelta(hours=1)) == 1
    assert len(mail_server.received) == 1


def test_a_mail_server_that_cannot_be_reached_leaves_it_for_the_next_run(
    signed_in_by_e_mail, mail_server, settings
):
    reachable, settings.MAILERS = settings.MAILERS, MailServer().mailer()  # never started
    assert reminders_at(ends() - timedelta(days=6)) == 0
    settings.MAILERS = reachable
    assert reminders_at(ends() - timedelta(days=5)) == 1
    assert len(mail_server.received) == 1


def test_after_a_refusal_for_good_it_is_not_sent_again(signed_in_by_e_mail, mail_server):
    mail_server.inbox.refusal = "550 5.1.1 No such user"
    assert reminders_at(ends() - timedelta(days=6)) == 0
    mail_server.inbox.refusal = ""
    assert reminders_at(ends() - timedelta(days=5)) == 0
    assert mail_server.received == []
