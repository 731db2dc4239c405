"""prometheus_client, as portal/operations/processes.py uses it: its multiprocess mode with each
process's files named after its slot (`web-0`) rather than its process id. prometheus_client
offers no documented way; `values.MultiProcessValue(process_identifier=...)` set as
`values.ValueClass` is the one its maintainers call semi-supported ("at your own risk"). It
relies on metrics reading `values.ValueClass` as they are made, on the identifier naming the
files and being asked again at each count (a process forked from a claiming one reopens its
files under its own name, counting on from what they hold), on a scrape reading files of such
names, and on `mark_process_dead` taking the name. All in this process, its identifier set by
the test."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest, values
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from tests.portal.operations.helpers import parsed, value


class Identifier:
    """The name this process writes under, as processes._identifier answers it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self) -> str:
        return self.name


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def identifier(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Identifier:
    named = Identifier("web-0")
    monkeypatch.setattr(values, "ValueClass", values.MultiProcessValue(process_identifier=named))
    return named


def files(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def scrape(folder: Path) -> dict:
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(folder))
    return parsed(generate_latest(registry).decode())


def test_metrics_made_after_value_class_is_set_write_files_named_by_the_identifier(
    folder, identifier
):
    Counter("requests", "Requests.", registry=None).inc()
    Histogram("seconds", "Time.", registry=None).observe(0.2)
    Gauge("busy", "Busy.", multiprocess_mode="livesum", registry=None).set(1)
    assert files(folder) == ["counter_web-0.db", "gauge_livesum_web-0.db", "histogram_web-0.db"]


def test_a_new_identifier_reopens_the_files_under_it_and_counts_on_from_them(folder, identifier):
    requests = Counter("requests", "Requests.", registry=None)
    requests.inc(3)
    identifier.name = "web-1"  # as in a process forked from this one that claimed web-1
    requests.inc()
    identifier.name = "web-0"  # web-0's next process
    requests.inc()
    assert files(folder) == ["counter_web-0.db", "counter_web-1.db"]
    assert value(scrape(folder), "requests_total") == 5
    (folder / "counter_web-1.db").unlink()
    assert value(scrape(folder), "requests_total") == 4  # web-0's: 3, and 1 counted on


def test_a_scrape_reads_files_named_by_slot_and_a_live_gauge_by_its_name(folder, identifier):
    Counter("requests", "Requests.", registry=None).inc()
    identifier.name = "worker-1@host-a-3"  # a Celery pool's process (no underscores)
    Counter("requests", "Requests.", registry=None).inc()
    Gauge("busy", "Busy.", multiprocess_mode="all", registry=None).set(2)
    samples = scrape(folder)
    assert value(samples, "requests_total") == 2
    assert value(samples, "busy", pid="worker-1@host-a-3") == 2


def test_mark_process_dead_takes_the_name_and_removes_its_live_gauges_only(folder, identifier):
    Counter("requests", "Requests.", registry=None).inc()
    Gauge("busy", "Busy.", multiprocess_mode="livesum", registry=None).set(1)
    identifier.name = "web-1"
    Gauge("busy", "Busy.", multiprocess_mode="livesum", registry=None).set(1)
    mark_process_dead("web-0", str(folder))
    assert files(folder) == ["counter_web-0.db", "counter_web-1.db", "gauge_livesum_web-1.db"]
