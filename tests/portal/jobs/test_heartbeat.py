"""A real Celery worker's heartbeat, as /readyz sees it: its `workers` check ok while the worker
runs, down once it has stopped for PORTAL_WORKER_HEARTBEAT_SECONDS; and the worker's records, in
JSON lines, carry the id of the request that started a job. The worker and its Redis as
tests/workers.py has them (PostgreSQL and redis-server needed)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client

from portal.jobs.models import Job
from portal.lib.env import database_label
from portal.operations import logs
from tests.portal.jobs.conftest import start, state_of
from tests.portal.jobs.kinds import KIND
from tests.services import PrivateRedis, wait_for
from tests.workers import ON_A_WORKER, Worker, started, worker_environment

pytestmark = ON_A_WORKER

LIMIT = 3  # seconds: the heartbeat's freshness, shortened


@pytest.fixture
def shared_cache(settings, redis_server: PrivateRedis) -> None:
    """This process's cache is the worker's: its Redis, under the test database's key prefix,
    compressed as the settings have it."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": redis_server.url,
            "KEY_PREFIX": f"portal.{database_label(settings.DATABASES['default'])}",
            "OPTIONS": {"COMPRESSOR": "django_redis.compressors.lz4.Lz4Compressor"},
        }
    }
    settings.CELERY_BROKER_URL = redis_server.url
    settings.PORTAL_WORKER_HEARTBEAT_SECONDS = LIMIT


@pytest.fixture
def worker(shared_cache, redis_server, upstream_sandbox, job_files, tmp_path) -> Iterator[Worker]:
    """A worker logging JSON lines, with the shortened heartbeat."""
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files,
        PORTAL_WORKER_HEARTBEAT_SECONDS=str(LIMIT), PORTAL_LOG_FORMAT="json",
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


def workers_check(client: Client) -> dict:
    return client.get("/readyz").json()["checks"]["workers"]


def test_readyz_sees_the_worker_alive_and_then_gone(client: Client, worker: Worker):
    wait_for(lambda: workers_check(client)["ok"], "the worker's heartbeat", seconds=30)
    assert workers_check(client)["heartbeat_age_s"] <= LIMIT
    worker.stop()
    stopped = time.monotonic()
    wait_for(lambda: not workers_check(client)["ok"], "the heartbeat to go stale", seconds=30)
    assert time.monotonic() - stopped <= LIMIT + 1
    assert workers_check(client)["error"] == (
        f"no worker has written a heartbeat in the last {LIMIT} s"
    )


def test_a_worker_alive_keeps_readyz_ok_beyond_the_limit(client: Client, worker: Worker):
    wait_for(lambda: workers_check(client)["ok"], "the worker's heartbeat", seconds=30)
    deadline = time.monotonic() + 2 * LIMIT
    while time.monotonic() < deadline:
        assert workers_check(client)["ok"]
        time.sleep(0.25)


def test_a_jobs_records_carry_the_id_of_the_request_that_started_it(grower, worker: Worker):
    reset = logs.request_id.set("4bf92f3577b34da6a3ce929d0e0e4736")
    try:
        job = start(grower, pause=0)
    finally:
        logs.request_id.reset(reset)
    wait_for(lambda: state_of(job).state == Job.State.DONE, "the job to be done")
    entries = _json_lines(worker.log)
    calls = [e for e in entries if e["logger"] == "portal.assurance"]
    assert calls, "the job's calls to the service are logged"
    for entry in calls:
        assert entry["request_id"] == "4bf92f3577b34da6a3ce929d0e0e4736"
        assert entry["task_name"] == KIND  # the kind of job: its task's name
    assert any(" ready." in e["message"] for e in entries)  # Celery's own records too


def _json_lines(log: Path) -> list[dict]:
    """The log's JSON lines (Celery prints its banner as text before logging starts)."""
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
