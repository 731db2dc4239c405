"""A load recorded, and its mail to the passport's maker sent by a real Celery worker once the
recording has committed, through a real SMTP server: the whole way, as in production. The
worker and its Redis as in tests/portal/jobs/test_worker.py (PostgreSQL and redis-server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model

from portal.intake.models import ResultMail
from portal.intake.notifying import result_mail
from portal.jobs.models import Job
from scripts.servers import LOOPBACK
from tests.mailserver import MailServer
from tests.portal.intake.builders import a_load, a_site
from tests.portal.jobs.test_worker import (
    Worker,
    pytestmark,  # noqa: F401 (the same conditions: PostgreSQL, redis-server)
    redis_server,  # noqa: F401 (a fixture)
    started,
    worker_environment,
)
from tests.services import wait_for

WAIT_SECONDS = 60


@pytest.fixture
def mail_server_of_the_worker() -> Iterator[MailServer]:
    server = MailServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def worker(redis_server, upstream_sandbox, job_files, tmp_path, mail_server_of_the_worker):  # noqa: F811
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files, EMAIL_HOST=LOOPBACK,
        EMAIL_PORT=str(mail_server_of_the_worker.port), PORTAL_URL="https://portal.example",
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


def test_a_load_recorded_is_mailed_by_a_worker_once_it_commits(
    grower, worker, mail_server_of_the_worker: MailServer
):
    get_user_model().objects.filter(username="grower").update(email="grower@example.com")
    load = a_load(a_site())  # committed: the test's transactions are real ones
    job = Job.objects.get(kind=result_mail.name)
    wait_for(lambda: Job.objects.get(pk=job.pk).state == Job.State.DONE, "the mail to go",
             WAIT_SECONDS)  # fmt: skip
    [mail] = mail_server_of_the_worker.wait_for(1)
    assert mail.recipients == ["grower@example.com"]
    assert f"https://portal.example/passports/{load.passport.short_code}/" in mail.body("plain")
    assert ResultMail.objects.get().sent is not None
