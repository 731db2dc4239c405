"""A real Celery worker for the tests, in a process of its own, with a Redis of the test's own
(tests/conftest.py's `redis_server`) as its broker and cache, the sandbox, and the test
database, which must be PostgreSQL: the worker is another process, so the test's rows must be
committed (`ON_A_WORKER`, the marks of every module of such tests).

    @pytest.fixture
    def worker(redis_server, upstream_sandbox, job_files, tmp_path) -> Iterator[Worker]:
        environment = worker_environment(redis_server, upstream_sandbox, job_files, **settings)
        yield from started(Worker(environment, tmp_path / "worker.log"))
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings as django_settings
from kombu import pools as kombu_pools

from portal.celery import app
from scripts.servers import ROOT
from tests.jobs import configure_celery
from tests.services import PrivateRedis, wait_for

# For tests whose other processes (a worker, a portal under gunicorn) share the test database.
SHARING_THE_TEST_DATABASE = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        django_settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="a worker in another process needs the test database on PostgreSQL "
        "(set DATABASE_URL, as CI does)",
    ),
]
ON_A_WORKER = [
    *SHARING_THE_TEST_DATABASE,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server to start"),
]

# The worker's limits: short, so that a job of a dead worker is handed on within seconds.
TIME_LIMIT, VISIBILITY_TIMEOUT = 6, 8


@contextmanager
def jobs_sent_to(broker_url: str) -> Iterator[None]:
    """This process's Celery app sends its jobs to `broker_url` until the block ends."""
    before = app.conf.broker_url
    _send_to(broker_url)
    try:
        yield
    finally:
        _send_to(before)


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


def url_of_the_test_database() -> str:
    """DATABASE_URL naming the test database that pytest-django made."""
    parts = urlsplit(os.environ["DATABASE_URL"])
    name = django_settings.DATABASES["default"]["NAME"]
    return urlunsplit(parts._replace(path=f"/{name}"))


def queues_of_the_worker() -> list[str]:
    """The test run's queue, which the tests send their jobs to, and the one the worker sends its
    own tasks to (a batch's webhooks), named after its database, the test database."""
    from django.db import connection

    from portal.lib.env import database_label

    return [app.conf.task_default_queue, f"portal.{database_label(connection.settings_dict)}"]


@dataclass
class Worker:
    environment: dict[str, str]
    log: Path
    process: subprocess.Popen | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "celery", "-A", "tests.portal.jobs.worker_app",
                   "worker", "--pool=prefork", "--concurrency=1", "--loglevel=info",
                   "-Q", ",".join(queues_of_the_worker()),
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
        "DATABASE_URL": url_of_the_test_database(),
        "REDIS_URL": redis.url,
        "ASSURANCE_BASE_URL": sandbox.url,
        "PORTAL_JOB_FILES_DIR": str(job_files),
        "PORTAL_DEVELOPMENT": "true",
        **settings,
    }
