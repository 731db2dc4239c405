"""`/metrics` from the portal under a real gunicorn (scripts/servers.py, as `make run` and
production serve it), whose workers are replaced after every request (`max_requests` 1), more
than REPLACEMENTS times: the counts of every worker, the dead ones' included, are added up and
only grow; the folder keeps a few files however many workers have come and gone, so that a
scrape reads as much as right after the start (prometheus_client's own naming, by process id,
would leave two files for each worker replaced: tests/portal/operations/test_processes.py)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from scripts import servers
from tests.portal.operations.helpers import Samples, parsed, value

pytestmark = pytest.mark.slow

WORKERS = 2
REPLACEMENTS = 30  # each a new process loading Django: about 0.8 s
DEADLINE_SECONDS = 600
HEALTH = {"view": "operations:health", "method": "GET", "status": "200"}
LEFT_BY_A_RUN_BEFORE = "counter_4242.db"


def get(server: servers.Server, path: str) -> requests.Response:
    """A request on a connection of its own (a worker ends after one request)."""
    with requests.Session() as session:
        session.trust_env = False  # loopback: never through a proxy
        response = session.get(server.endpoint(path), headers={"Connection": "close"}, timeout=60)
    assert response.status_code == 200, response.text[:300]
    return response


def scrape(server: servers.Server) -> Samples:
    return parsed(get(server, "/metrics").text)


def workers_of(server: servers.Server) -> set[int]:
    """The process ids of the gunicorn master's children now."""
    pid = server.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return {int(child) for child in children.split()}


class Load:
    """Two threads asking /healthz as fast as the workers are replaced, counting the answers."""

    def __init__(self, server: servers.Server) -> None:
        self.server = server
        self.answered = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._ask, daemon=True) for _ in range(2)]

    def _ask(self) -> None:
        while not self.stop.is_set():
            get(self.server, "/healthz")
            with self.lock:
                self.answered += 1

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / LEFT_BY_A_RUN_BEFORE).write_bytes(b"\0" * 8)
    return folder


@pytest.fixture
def server(tmp_path: Path, folder: Path) -> Iterator[servers.Server]:
    server = servers.start_portal(
        tmp_path,
        workers=WORKERS,
        threads=2,
        PROMETHEUS_MULTIPROC_DIR=str(folder),
        GUNICORN_CMD_ARGS="--max-requests 1 --max-requests-jitter 0",
    )
    yield server
    server.stop()


def test_counts_stay_whole_and_files_few_however_often_workers_are_replaced(server, folder):
    assert LEFT_BY_A_RUN_BEFORE not in os.listdir(folder)  # emptied when gunicorn started
    counted_at_start = value(scrape(server), "portal_requests_total", **HEALTH)

    seen: set[int] = set()
    counts: list[float] = []
    next_scrape = 10
    deadline = time.monotonic() + DEADLINE_SECONDS
    with Load(server) as load:
        while len(seen) < REPLACEMENTS + WORKERS and time.monotonic() < deadline:
            seen |= workers_of(server)
            if len(seen) >= next_scrape:  # now and then, a scrape under way
                counts.append(value(scrape(server), "portal_requests_total", **HEALTH))
                next_scrape += 10
            time.sleep(0.02)
    assert len(seen) >= REPLACEMENTS + WORKERS, f"only {len(seen)} workers in the time allowed"

    final = scrape(server)
    assert counts == sorted(counts), "a count went back"
    assert value(final, "portal_requests_total", **HEALTH) == counted_at_start + load.answered
    assert (
        value(final, "portal_request_duration_seconds_count", view="operations:health")
        >= load.answered
    )
    files = sorted(os.listdir(folder))
    assert len(files) <= 2 * WORKERS, files  # a counter and a histogram for each slot
    assert all(name.endswith(("_web-0.db", "_web-1.db")) for name in files), files
