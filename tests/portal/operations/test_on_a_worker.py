"""A real Celery worker given PROMETHEUS_MULTIPROC_DIR (as tests/workers.py starts
one: the test's own Redis, the test database on PostgreSQL), its pool's process replaced after
every job: the jobs' calls to the service are counted, each one, in the files of the process's
slot in the pool, which every replacement takes over."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from portal.jobs.models import Job
from tests.portal.jobs.conftest import start, state_of
from tests.portal.operations.helpers import parsed, value
from tests.services import wait_for
from tests.workers import ON_A_WORKER, Worker, started, worker_environment

pytestmark = ON_A_WORKER

JOBS = 5


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "metrics"
    folder.mkdir()
    return folder


@pytest.fixture
def worker(redis_server, upstream_sandbox, job_files, tmp_path, folder) -> Iterator:
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files,
        PROMETHEUS_MULTIPROC_DIR=str(folder), PORTAL_JOB_TASKS_PER_CHILD="1",
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


def test_each_jobs_calls_are_counted_in_the_files_of_its_slot(grower, worker, folder):
    jobs = [start(grower, pause=0) for _ in range(JOBS)]
    for job in jobs:
        wait_for(lambda job=job: state_of(job).has_ended, "the jobs to end")
    assert {state_of(job).state for job in jobs} == {Job.State.DONE}

    files = sorted(os.listdir(folder))
    assert len(files) == 2, files  # one process at a time: one slot, however many replaced
    assert all(name.endswith("-0.db") and "@" in name for name in files), files
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(folder))
    samples = parsed(generate_latest(registry).decode())
    # Each job lists the schemes with its owner's credentials (never cached), in a new process.
    assert value(samples, "portal_upstream_calls_total", operation="schemes", outcome="ok") == JOBS
