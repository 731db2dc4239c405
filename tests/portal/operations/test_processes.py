"""Processes writing their metrics under a slot (portal/operations/processes.py): a process
replaced many times leaves one set of files, and its replacements count on from them. Each
process here is forked from the test's, writes, and ends, as gunicorn's workers and Celery's
pool processes do."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.multiprocess import MultiProcessCollector

from portal.operations import processes
from tests.portal.operations.helpers import parsed, value

REPLACEMENTS = 40

# A forked process here makes its own metrics and ends: it touches no lock another thread of
# the test run may hold.
pytestmark = pytest.mark.filterwarnings("ignore:This process .* use of fork:DeprecationWarning")


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A metrics folder of the test's own, named as gunicorn's master names it to its workers."""
    monkeypatch.setenv(processes.DIRECTORY, str(tmp_path))
    return tmp_path


def run_in_a_process(work: Callable[[], None]) -> None:
    """`work` in a process forked from this one, which then ends (its exit status checked)."""
    pid = os.fork()
    if pid == 0:  # the child: never back into pytest
        status = 1
        try:
            processes._installed = False  # installed afresh, as in a process started anew
            processes.install()
            work()
            status = 0
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def count_a_request(claim: Callable[[], None]) -> Callable[[], None]:
    def work() -> None:
        claim()
        registry = CollectorRegistry()  # the metrics made in the process, as the portal's are
        Counter("requests", "Requests.", ["view"], registry=registry).labels("home").inc()
        Histogram("seconds", "Time.", ["view"], registry=registry).labels("home").observe(0.2)

    return work


def scrape(folder: Path) -> dict:
    from prometheus_client import generate_latest

    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(folder))
    return parsed(generate_latest(registry).decode())


def test_a_slot_replaced_many_times_keeps_one_set_of_files_and_every_count(folder):
    for _ in range(REPLACEMENTS):
        run_in_a_process(count_a_request(lambda: processes.claim("web-0")))
    assert sorted(p.name for p in folder.iterdir()) == ["counter_web-0.db", "histogram_web-0.db"]
    samples = scrape(folder)
    assert value(samples, "requests_total", view="home") == REPLACEMENTS
    assert value(samples, "seconds_count", view="home") == REPLACEMENTS
    assert value(samples, "seconds_bucket", view="home", le="0.25") == REPLACEMENTS


def test_without_a_slot_each_process_leaves_its_own_files(folder):
    """prometheus_client's own naming, by process id: what the slots are for."""
    for _ in range(REPLACEMENTS):
        run_in_a_process(count_a_request(lambda: None))
    assert len(list(folder.iterdir())) == 2 * REPLACEMENTS
    assert value(scrape(folder), "requests_total", view="home") == REPLACEMENTS


def test_processes_running_at_once_count_apart_and_are_added_up(folder):
    for slot in ("web-0", "web-1", "web-0", "web-1", "web-2"):
        run_in_a_process(count_a_request(lambda slot=slot: processes.claim(slot)))
    assert len(list(folder.iterdir())) == 6
    assert value(scrape(folder), "requests_total", view="home") == 5


def test_a_process_forked_from_a_claiming_one_writes_under_its_own_id(folder):
    def claim_then_fork() -> None:
        processes.claim("web-0")
        run_in_a_process(count_a_request(lambda: None))  # claims nothing: not web-0

    run_in_a_process(claim_then_fork)
    names = {p.name for p in folder.iterdir()}
    assert len(names) == 2
    assert not any("web-0" in name for name in names)


@pytest.mark.parametrize("named_by_the_pool", [None, "worker-1@host_a"])  # Celery 5.6, 5.7
def test_a_celery_pool_process_takes_the_slot_of_its_index_named_after_its_worker(
    folder, named_by_the_pool
):
    def start_a_worker_and_its_pool_process() -> None:
        from billiard.process import current_process
        from celery import signals

        # As a worker started with --hostname worker-1@host_a signals, then its pool's third.
        signals.celeryd_init.send(sender="worker-1@host_a", instance=None, conf=None)
        current_process().index = 3
        signals.worker_process_init.send(sender=named_by_the_pool)

    run_in_a_process(count_a_request(start_a_worker_and_its_pool_process))
    assert "counter_worker-1@host-a-3.db" in {p.name for p in folder.iterdir()}


def test_a_slot_released_loses_its_live_gauges_and_keeps_its_counts(folder):
    def count_and_gauge() -> None:
        count_a_request(lambda: processes.claim("web-0"))()
        from prometheus_client import Gauge

        Gauge("busy", "Busy.", multiprocess_mode="livesum", registry=None).set(1)

    run_in_a_process(count_and_gauge)
    assert "gauge_livesum_web-0.db" in {p.name for p in folder.iterdir()}
    processes.release("web-0")
    assert sorted(p.name for p in folder.iterdir()) == ["counter_web-0.db", "histogram_web-0.db"]


@pytest.mark.parametrize(
    ("taken", "slot"), [([], 0), ([0, 1], 2), ([1], 0), ([0, 2], 1), ([-1], 0)]
)
def test_the_free_slot_is_the_lowest_no_running_process_holds(taken, slot):
    assert processes.free_slot(taken) == slot
