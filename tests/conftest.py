"""Fixtures shared by the whole suite: a live sandbox over real HTTP, the portal pointed at it,
and a cache of each test's own."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from portal import upstream

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Sandbox:
    """A sandbox server running in its own process, with its own SQLite database."""

    url: str
    process: subprocess.Popen
    log: Path
    database: Path
    _session: requests.Session = field(default_factory=requests.Session)

    def endpoint(self, path: str) -> str:
        return f"{self.url}{path}"

    def advance_clock(self, seconds: float) -> None:
        self._session.post(
            self.endpoint("/_testing/clock"), json={"advance_seconds": seconds}, timeout=10
        ).raise_for_status()

    def reset_clock(self) -> None:
        self._session.post(
            self.endpoint("/_testing/clock"), json={"reset": True}, timeout=10
        ).raise_for_status()

    def count(self, table: str) -> int:
        """Rows in one of the sandbox's tables (`sandbox_passport`, ...), read from its file."""
        with closing(sqlite3.connect(f"file:{self.database}?mode=ro", uri=True)) as db:
            return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608

    def reset_lockouts(self) -> None:
        self._session.post(self.endpoint("/_testing/reset-lockouts"), timeout=10).raise_for_status()


def start_sandbox(directory: Path, **settings: str) -> Sandbox:
    """Starts a sandbox on a free port with SANDBOX_* `settings`; returns once it answers."""
    port = free_port()
    database = directory / "sandbox.sqlite3"
    env = {
        **os.environ,
        "SANDBOX_DATABASE_URL": f"sqlite:///{database}",
        "SANDBOX_TESTING": "true",
        **settings,
    }
    log = directory / "sandbox.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "scripts.sandbox", "--port", str(port), "--quiet"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"The sandbox stopped on start:\n{log.read_text()}")
        try:
            requests.get(url + "/", timeout=2)
            return Sandbox(url=url, process=process, log=log, database=database)
        except (requests.ConnectionError, requests.Timeout):
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"The sandbox did not answer within a minute:\n{log.read_text()}")


def stop_sandbox(sandbox: Sandbox) -> None:
    sandbox.process.terminate()
    try:
        sandbox.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        sandbox.process.kill()


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """The sandbox every test shares. It trusts 127.0.0.1 as a proxy, so a test can act from
    an address of its own with X-Forwarded-For and not meet another test's lockout."""
    server = start_sandbox(tmp_path_factory.mktemp("sandbox"), SANDBOX_TRUSTED_PROXIES="127.0.0.1")
    yield server
    stop_sandbox(server)


@pytest.fixture
def clock(sandbox) -> Iterator[Sandbox]:
    """The shared sandbox's clock, at zero offset for the test and put back afterwards; move it
    with `clock.advance_clock(seconds)`."""
    sandbox.reset_clock()
    try:
        yield sandbox
    finally:
        sandbox.reset_clock()


_address_counter = iter(range(1, 1_000_000))


@pytest.fixture
def client_address() -> str:
    """An address no other test uses, for X-Forwarded-For."""
    n = next(_address_counter)
    return f"198.51.{n // 250 % 250}.{n % 250 + 1}"


@pytest.fixture(autouse=True)
def clean_cache(settings, request) -> Iterator[None]:
    """A cache of the test's own, in memory: sign-in throttles and the look-up token start
    afresh, and no real cache (a developer's Redis or var/cache) is touched."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": request.node.nodeid,
        }
    }
    yield


@pytest.fixture
def upstream_sandbox(sandbox, settings) -> Iterator[object]:
    """The portal's client pointed at the shared live sandbox."""
    settings.ASSURANCE_BASE_URL = sandbox.url
    settings.ASSURANCE_LOOKUP_USERNAME = "haulier"
    settings.ASSURANCE_LOOKUP_PASSWORD = "haulier-demo-pass"
    upstream.client.cache_clear()
    yield sandbox
    upstream.client.cache_clear()


@pytest.fixture
def fresh_lockouts(sandbox) -> Iterator[None]:
    """For tests that fail sign-ins through the portal: the portal reaches the sandbox from
    127.0.0.1, so its failures would lock every other test out. They are cleared on both
    sides of the test."""
    sandbox.reset_lockouts()
    yield
    sandbox.reset_lockouts()
