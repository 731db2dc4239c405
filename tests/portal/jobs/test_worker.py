"""Jobs on a real Celery worker, with a Redis of the test's own as its broker and cache, and
the test database (PostgreSQL: the worker is another process, so rows must be committed):
progress, a worker killed with SIGKILL, Redis restarted, a job cancelled."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from portal.jobs.models import Job
from tests.portal.jobs.conftest import files_in, start, state_of
from tests.portal.jobs.test_running import crops_references, rows_of
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
def worker(redis_server, upstream_sandbox, job_files, tmp_path) -> Iterator[Worker]:
    environment = worker_environment(
        redis_server, upstream_sandbox, job_files, PORTAL_JOB_TIME_LIMIT=str(TIME_LIMIT),
        PORTAL_JOB_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
    )  # fmt: skip
    yield from started(Worker(environment, tmp_path / "worker.log"))


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
