"""A passport sent by e-mail on a real Celery worker, while the mail server is down: the worker
waits and tries again, with back-off, and once the server is back the mail goes, once. The
worker and its Redis as tests/workers.py has them (PostgreSQL and redis-server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from portal.jobs.models import Job
from portal.passports.tasks import passport_mail
from scripts.servers import LOOPBACK
from tests.mailserver import MailServer
from tests.portal.passports.made import made_with_the_form
from tests.portal.passports.test_mail import mail_form
from tests.services import wait_for
from tests.workers import ON_A_WORKER, Worker, started, worker_environment

pytestmark = ON_A_WORKER

WAIT_SECONDS = 60


@pytest.fixture
def mail_server_down() -> Iterator[MailServer]:
    """A mail server whose port is chosen, not yet started: nothing answers there."""
    server = MailServer()
    yield server
    server.stop()


@pytest.fixture
def worker(redis_server, upstream_sandbox, job_files, tmp_path, mail_server_down):
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files, EMAIL_HOST=LOOPBACK,
        EMAIL_PORT=str(mail_server_down.port), EMAIL_TIMEOUT="2", PORTAL_MAIL_RETRY_SECONDS="1",
        PORTAL_MAIL_TRIES="10",
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


def mail_job() -> Job:
    return Job.objects.get(kind=passport_mail.name)


def test_a_mail_server_down_is_tried_again_until_it_is_back_and_the_mail_goes_once(
    grower, worker, mail_server_down: MailServer
):
    code = made_with_the_form(grower)
    assert grower.post("/passports/send", mail_form(grower, [code])).status_code == 303
    wait_for(lambda: "Trying again at" in mail_job().message, "a try to fail", WAIT_SECONDS)
    assert mail_job().state == Job.State.QUEUED
    mail_server_down.start()
    wait_for(lambda: mail_job().state == Job.State.DONE, "the mail to go", WAIT_SECONDS)
    [mail] = mail_server_down.wait_for(1)
    assert list(mail.attachments()) == [f"passport-{code}.pdf"]
    assert f"Sent to {mail.recipients[0]} on" in grower.get(f"/jobs/{mail_job().pk}/").text
