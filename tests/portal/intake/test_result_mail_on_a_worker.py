"""A load recorded, and its mail to the passport's maker sent by a real Celery worker once the
recording has committed, through a real SMTP server: the whole way, as in production. The
worker and its Redis as tests/workers.py has them (PostgreSQL and redis-server).

A site's software sending a record and 24 corrections of it at once sends the grower one mail,
with the last figures and each reason quoted as the site's words; past the caps (the grower's
in an hour, the site's in a day) a mail is held, never lost, and sent once the window has
passed (time-machine moves this process's clock: the caps are counted where the change is
made, and by the periodic task that sends what was held)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from portal.intake import loads
from portal.intake.models import Decision, ResultMail
from portal.intake.notifying import result_mail, send_held_mails
from portal.jobs.models import Job
from scripts.servers import LOOPBACK
from tests.mailserver import MailServer
from tests.portal.api.builders import site_token
from tests.portal.intake.builders import a_load, a_site, figures, upload_row
from tests.portal.intake.test_result_mail import chose_language
from tests.portal.passports.made import made_here
from tests.services import wait_for
from tests.workers import ON_A_WORKER, Worker, started, worker_environment

pytestmark = ON_A_WORKER

WAIT_SECONDS = 60


@pytest.fixture
def mail_server_of_the_worker() -> Iterator[MailServer]:
    server = MailServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def worker(redis_server, upstream_sandbox, job_files, tmp_path, mail_server_of_the_worker):
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files, EMAIL_HOST=LOOPBACK,
        EMAIL_PORT=str(mail_server_of_the_worker.port), PORTAL_URL="https://portal.example",
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


@pytest.fixture
def grower_mailed(grower, settings):
    """The grower, whose address the portal knows, who chose English; a load's changes gathered
    for 2 s."""
    settings.PORTAL_INTAKE_MAIL_WAIT_SECONDS = 2
    get_user_model().objects.filter(username="grower").update(email="grower@example.com")
    chose_language("grower", "en-gb")
    return grower


def nothing_more_arrives(server: MailServer, count: int, seconds: float = 4) -> list:
    """The mails the server took, once `count` have and no more came for `seconds`."""
    server.wait_for(count)
    time.sleep(seconds)
    return server.received


def test_a_load_recorded_is_mailed_by_a_worker_once_it_commits(
    grower_mailed, worker, mail_server_of_the_worker: MailServer
):
    load = a_load(a_site())  # committed: the test's transactions are real ones
    job = Job.objects.get(kind=result_mail.name)
    wait_for(lambda: Job.objects.get(pk=job.pk).state == Job.State.DONE, "the mail to go",
             WAIT_SECONDS)  # fmt: skip
    [mail] = mail_server_of_the_worker.wait_for(1)
    assert mail.recipients == ["grower@example.com"]
    assert f"https://portal.example/passports/{load.passport.short_code}/" in mail.body("plain")
    assert ResultMail.objects.get().sent is not None


LINK = "https://stour-valley-claims.example/pay?load=T-1"


def test_a_record_and_24_corrections_sent_at_once_are_one_mail_with_the_last_figures(
    grower_mailed, worker, mail_server_of_the_worker: MailServer
):
    site = a_site()
    code = made_here()
    records = [upload_row(code, "T-1")] + [
        upload_row(code, "T-1", tare_kg=str(15_020 + 10 * n), correction=True,
                   correction_reason=f"Tare read again ({n}). Pay the claim at {LINK}")
        for n in range(1, 25)
    ]  # fmt: skip
    token = site_token(site)
    answer = Client().post("/intake/api/loads", json.dumps(records),
                           content_type="application/json",
                           headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert answer.json()["tally"]["corrected"] == 24
    [mail] = nothing_more_arrives(mail_server_of_the_worker, 1)
    assert mail.message["Subject"] == f"Passport {code} corrected: Accepted with a claim, 28,860 kg"
    body = mail.body("plain").replace("\r\n", "\n")
    assert "This mail gathers the 25 changes made since the last mail" in body
    assert "Net weight: 28,860 kg\n" in body
    lines = body.split("\n")
    said = [n for n, line in enumerate(lines) if LINK in line]
    assert len(said) == 24
    for n in said:  # each the site's words, quoted under its name
        assert lines[n].startswith("> Tare read again (")
        assert lines[n - 1].endswith(": Stour Valley Grain, Sudbury wrote:")
    assert all(not line.startswith(">") for line in lines if "passport's page" in line)


def test_past_the_growers_cap_a_mail_is_held_and_sent_an_hour_later_with_what_changed(
    grower_mailed, worker, mail_server_of_the_worker: MailServer, settings
):
    settings.PORTAL_INTAKE_MAILS_PER_GROWER_PER_HOUR = 2
    site = a_site()
    for ticket in ("T-1", "T-2", "T-3"):
        a_load(site, ticket)
    held = ResultMail.objects.get(load__ticket="T-3")
    assert held.job is None and held.queued is None
    assert len(nothing_more_arrives(mail_server_of_the_worker, 2)) == 2
    corrected = figures(tare_kg=14_020, decision=Decision.ACCEPTED, claims=(), reasons=())
    loads.correct(held.load, corrected, by="intake", reason="Tare of the wrong lorry")
    assert ResultMail.objects.filter(load=held.load).count() == 1  # it joined the held mail
    assert send_held_mails() == 0  # still within the hour
    with time_machine.travel(timezone.now() + timedelta(hours=1, minutes=1)):
        assert send_held_mails() == 1
    [*_, last] = nothing_more_arrives(mail_server_of_the_worker, 3)
    body = last.body("plain").replace("\r\n", "\n")
    assert "(ticket T-3)" in body and "This mail gathers the 2 changes" in body
    assert "Net weight: 30,100 kg\n" in body and "\n> Tare of the wrong lorry\n" in body


def test_past_the_sites_cap_a_mail_is_held_until_the_day_has_passed(
    grower_mailed, worker, mail_server_of_the_worker: MailServer, settings
):
    settings.PORTAL_INTAKE_MAILS_PER_SITE_PER_DAY = 1
    site = a_site()
    a_load(site, "T-1")
    a_load(site, "T-2")
    assert len(nothing_more_arrives(mail_server_of_the_worker, 1)) == 1
    with time_machine.travel(timezone.now() + timedelta(hours=23)):
        assert send_held_mails() == 0
    with time_machine.travel(timezone.now() + timedelta(days=1, minutes=1)):
        assert send_held_mails() == 1
    [_, last] = nothing_more_arrives(mail_server_of_the_worker, 2)
    assert "(ticket T-2)" in last.body("plain")
