"""The sign-in reminder on a real Celery worker (portal.api.reminders), killed with SIGKILL while
it waits on a mail server that has taken the connection and says nothing: once a worker is
back, the mail goes, once, and the hourly run queues no other. The worker and its Redis as
tests/workers.py has them (PostgreSQL and redis-server)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
import time_machine

from portal.api.reminders import KIND, send_reminders
from portal.jobs.models import Job
from scripts.servers import LOOPBACK
from tests.mailserver import MailServer
from tests.portal.accounts.helpers import signed_in
from tests.portal.api.builders import made_on_the_page
from tests.portal.api.test_sign_in_reminders import ends
from tests.services import wait_for
from tests.workers import (
    ON_A_WORKER,
    TIME_LIMIT,
    VISIBILITY_TIMEOUT,
    Worker,
    started,
    worker_environment,
)

pytestmark = ON_A_WORKER

WAIT_SECONDS = 90


@pytest.fixture
def mail_server_silent() -> Iterator[tuple[MailServer, socket.socket]]:
    """A mail server's port that takes connections and never greets (a server hung), and the
    mail server to start there once that listener is closed."""
    server = MailServer()
    listener = socket.create_server((LOOPBACK, server.port))
    yield server, listener
    listener.close()
    server.stop()


@pytest.fixture
def worker(redis_server, upstream_sandbox, job_files, tmp_path, mail_server_silent):
    server, _ = mail_server_silent
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files, EMAIL_HOST=LOOPBACK,
        EMAIL_PORT=str(server.port), EMAIL_TIMEOUT=str(TIME_LIMIT - 1),
        PORTAL_JOB_TIME_LIMIT=str(TIME_LIMIT),
        PORTAL_JOB_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


def reminder_job() -> Job:
    return Job.objects.get(kind=KIND)


def queued_at(moment) -> int:
    with time_machine.travel(moment):
        return send_reminders()


def test_a_worker_killed_before_the_mail_server_took_it_sends_it_once_back(
    upstream_sandbox, worker, mail_server_silent
):
    made_on_the_page(signed_in("grower@example.com"), scopes=["passports:read"])
    server, listener = mail_server_silent
    assert queued_at(ends() - timedelta(days=6)) == 1
    wait_for(lambda: reminder_job().state == Job.State.RUNNING, "the job to start", WAIT_SECONDS)
    time.sleep(1)  # asking the mail server, which says nothing
    worker.kill()
    assert reminder_job().state == Job.State.RUNNING
    listener.close()
    server.start()
    worker.start()
    wait_for(lambda: reminder_job().state == Job.State.DONE, "the mail to go", WAIT_SECONDS)
    [mail] = server.wait_for(1)
    assert mail.recipients == ["grower@example.com"]
    assert queued_at(ends() - timedelta(days=5)) == 0
    time.sleep(1)  # time for any other to arrive
    assert len(server.received) == 1
