"""Jobs on a real Celery worker, with a Redis of the test's own as its broker and cache, and
the test database (PostgreSQL: the worker is another process, so rows must be committed):
progress, a worker killed with SIGKILL, Redis restarted, a job cancelled."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings as django_settings
from django.test import RequestFactory
from kombu import pools as kombu_pools

from portal.celery import app
from portal.jobs.actions import start_job
from portal.jobs.models import Job
from scripts.servers import ROOT, free_port
from tests.jobs import configure_celery
from tests.portal.jobs.conftest import files_in
from tests.portal.jobs.kinds import scheme_references
from tests.portal.jobs.test_running import crops_references, rows_of
from tests.portal.standards.helpers import CROPS
from tests.services import PrivateRedis, wait_for

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        django_settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="a worker in another process needs the test database on PostgreSQL "
        "(set DATABASE_URL, as CI does)",
    ),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server to start"),
]

# The worker's limits: short, so that a job of a dead worker is handed on within seconds.
TIME_LIMIT, VISIBILITY_TIMEOUT = 6, 8
WAIT_SECONDS = 90


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A Redis of the test's own, on a free port, keeping nothing on disk."""
    server = PrivateRedis(free_port(), tmp_path)
    server.start()
    broker_before = app.conf.broker_url
    _send_to(server.url)  # this process sends its jobs there too
    yield server
    if server.process and server.process.poll() is None:
        server.kill()
    _send_to(broker_before)


def _send_to(broker_url: str) -> None:
    """This process's Celery app sends to `broker_url` from now on: its pools made again, and
    kombu's, which keeps one for each broker's address (one closed here would be handed out
    again when the address comes back)."""
    configure_celery(broker_url=broker_url)
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None
    kombu_pools.reset()


def _test_database_url() -> str:
    """DATABASE_URL naming the test database that pytest-django made."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    name = django_settings.DATABASES["default"]["NAME"]
    return urlunsplit(parts._replace(path=f"/{name}"))


@dataclass
class Worker:
    environment: dict[str, str]
    log: Path
    process: subprocess.Popen | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "celery", "-A", "tests.portal.jobs.worker_app",
                   "worker", "--pool=prefork", "--concurrency=1", "--loglevel=info",
                   "-Q", app.conf.task_default_queue,
                   "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip
        with self.log.open("a") as output:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.environment,
                                            stdout=output, stderr=subprocess.STDOUT,
                                            start_new_session=True)  # fmt: skip
        started = self.log.read_text().count(" ready.")
        wait_for(lambda: self.log.read_text().count(" ready.") > started, "the worker")

    def kill(self) -> None:
        """The whole worker, its pool's process with it, at once."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


def started(worker: Worker) -> Iterator[Worker]:
    """For a fixture: the worker started, and stopped after the test."""
    worker.start()
    yield worker
    worker.stop()


def worker_environment(redis: PrivateRedis, sandbox, job_files: Path, **settings: str) -> dict:
    """The environment of a worker of the tests: the test database, the test's Redis, the
    sandbox, the test's folder of job files, and `settings`."""
    return {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "REDIS_URL": redis.url,
        "ASSURANCE_BASE_URL": sandbox.url,
        "PORTAL_JOB_FILES_DIR": str(job_files),
        "PORTAL_DEVELOPMENT": "true",
        **settings,
    }


@pytest.fixture
def worker(redis_server, upstream_sandbox, job_files, tmp_path) -> Iterator[Worker]:
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files, PORTAL_JOB_TIME_LIMIT=str(TIME_LIMIT),
        PORTAL_JOB_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


def start(grower, pause: float) -> Job:
    """A job of the tests' kind started as a view starts one, with the grower's session."""
    request = RequestFactory().get("/")
    request.session = grower.session
    request.user = Job._meta.get_field("owner").related_model.objects.get(username="grower")
    return start_job(request, scheme_references, "References of the crops scheme",
                     {"scheme": CROPS, "pause": pause})  # fmt: skip


def state_of(job: Job) -> Job:
    return Job.objects.get(pk=job.pk)


def test_progress_only_rises_and_the_job_ends_done(grower, worker, job_files):
    job = start(grower, pause=0.3)
    seen = []
    deadline = time.monotonic() + WAIT_SECONDS
    while (now := state_of(job)).state != Job.State.DONE and time.monotonic() < deadline:
        assert now.state in (Job.State.QUEUED, Job.State.RUNNING), now.message
        seen.append(now.done)
        time.sleep(0.02)
    done = state_of(job)
    assert done.state == Job.State.DONE
    assert seen == sorted(seen) and len(set(seen)) > 2  # it rose, in steps, never fell
    assert done.credential == ""
    assert rows_of(done) == crops_references(grower)
    assert len(files_in(job_files)) == 1


def test_a_job_whose_worker_was_killed_finishes_once_a_worker_is_back(grower, worker, job_files):
    job = start(grower, pause=0.4)
    wait_for(lambda: state_of(job).done >= 2, "the job to be under way")
    worker.kill()
    assert state_of(job).state == Job.State.RUNNING
    worker.start()
    wait_for(lambda: state_of(job).state == Job.State.DONE, "the job to be done")
    assert rows_of(state_of(job)) == crops_references(grower)
    assert len(files_in(job_files)) == 1


def test_redis_restarted_in_the_middle_loses_nothing(grower, worker, redis_server, job_files):
    job = start(grower, pause=0.4)
    wait_for(lambda: state_of(job).done >= 2, "the job to be under way")
    assert state_of(job).state == Job.State.RUNNING
    redis_server.kill()
    time.sleep(1)
    redis_server.start()
    wait_for(lambda: state_of(job).state == Job.State.DONE, "the job to be done")
    assert rows_of(state_of(job)) == crops_references(grower)
    assert len(files_in(job_files)) == 1


def test_a_job_cancelled_on_its_page_stops_and_keeps_no_file(grower, worker, job_files):
    job = start(grower, pause=0.3)
    wait_for(lambda: state_of(job).done >= 1, "the job to be under way")
    assert grower.post(f"/jobs/{job.pk}/cancel/").status_code == 302
    time.sleep(3 * 0.3 + 1)  # more than its worker takes to reach its next progress
    stopped = state_of(job)
    assert stopped.state == Job.State.CANCELLED
    assert stopped.done < stopped.total
    assert files_in(job_files) == []
