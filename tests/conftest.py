"""Fixtures shared by the whole suite: a live sandbox over real HTTP, the portal pointed at it,
and a cache of each test's own."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
import requests
from django.utils import translation
from pytest_httpserver import HTTPServer

from portal.assurance import service
from scripts import servers
from tests import databases
from tests.mailserver import MailServer
from tests.services import PrivateRedis, answers, shared_redis_url
from tests.workers import jobs_sent_to

ROOT = Path(__file__).resolve().parent.parent


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
    """Starts a sandbox with its test hooks on a free port, its database and log in
    `directory`, with SANDBOX_* `settings`; returns once it answers."""
    database = directory / "sandbox.sqlite3"
    server = servers.start_sandbox(
        directory,
        SANDBOX_DATABASE_URL=f"sqlite:///{database}",
        SANDBOX_TESTING="true",
        **settings,
    )
    return Sandbox(url=server.url, process=server.process, log=server.log, database=database)


def stop_sandbox(sandbox: Sandbox) -> None:
    sandbox._session.close()  # an idle keep-alive connection would hold up the shutdown
    servers.stop(sandbox.process)


def postgresql_databases() -> list[dict]:
    from django.conf import settings

    return [db for db in settings.DATABASES.values() if db["ENGINE"].endswith("postgresql")]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On pytest-xdist's workers (make test: `--dist loadfile`, a module to one worker whole,
    its module's fixtures made once), the modules with slow tests come first: started first,
    a long one never leaves one worker running alone at the end. pytest-django's order (tests
    in a transaction, then those that commit, then those without the database) runs first, and
    is kept otherwise."""
    if not hasattr(config, "workerinput"):
        return
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """A test database of the run's own (`test_portal_<pid>`), so that two runs on one
    PostgreSQL (a developer's beside CI's) never share, nor drop, each other's; those that
    killed runs left behind are dropped first (tests/databases.py)."""
    for database in postgresql_databases():
        databases.drop_left_behind(database)
        database.setdefault("TEST", {})["NAME"] = databases.name_of_run(
            database["NAME"], os.getpid()
        )


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> None:
    """The run's test databases, made by pytest-django, marked as this run's."""
    for database in postgresql_databases():
        databases.mark_as_this_runs(database, database["TEST"]["NAME"])


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
    """A cache of the test's own, in memory: sign-in counts and the look-up token start
    afresh, and no real cache (a developer's Redis or var/cache) is touched."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": request.node.nodeid,
        }
    }
    yield


@pytest.fixture(autouse=True)
def english_outside_requests() -> Iterator[None]:
    """Each test starts in the portal's default language: a page asked in Welsh leaves the
    language active in the thread that served it, as Django's own middleware does."""
    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture
def upstream_sandbox(sandbox, settings) -> Iterator[object]:
    """The portal's client pointed at the shared live sandbox."""
    settings.ASSURANCE_BASE_URL = sandbox.url
    settings.ASSURANCE_LOOKUP_USERNAME = "haulier"
    settings.ASSURANCE_LOOKUP_PASSWORD = "haulier-demo-pass"
    service.client.cache_clear()
    yield sandbox
    service.client.cache_clear()


@pytest.fixture
def fresh_lockouts(sandbox) -> Iterator[None]:
    """For tests that fail sign-ins through the portal: the portal reaches the sandbox from
    127.0.0.1, so its failures would lock every other test out. They are cleared on both
    sides of the test."""
    sandbox.reset_lockouts()
    yield
    sandbox.reset_lockouts()


@pytest.fixture(autouse=True, scope="session")
def jobs_of_the_test_run(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The jobs the tests send go to a queue of the run's own (and, with the file-system broker,
    a folder of its own): no developer's `make run` worker takes them, and nothing is left in
    var/. Tests that start a worker give it this queue."""
    from portal.celery import app
    from tests.jobs import configure_celery

    configure_celery(
        task_default_queue=f"{app.conf.task_default_queue}.tests-{uuid.uuid4().hex[:8]}"
    )
    if app.conf.broker_url.startswith("filesystem"):
        folder = str(tmp_path_factory.mktemp("broker"))
        configure_celery(broker_transport_options={
            **app.conf.broker_transport_options,
            "data_folder_in": folder, "data_folder_out": folder,
            "control_folder": str(tmp_path_factory.mktemp("broker-control")),
        })  # fmt: skip


@pytest.fixture(autouse=True)
def job_files(settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Jobs' result files in a folder of the test's own (STORAGES["jobs"]); the file field took
    its storage when the model was made, so it is given the new one."""
    from portal.jobs.models import Job, result_storage

    folder = tmp_path / "job-files"
    settings.PORTAL_JOB_FILES_DIR = str(folder)
    settings.STORAGES = {
        **settings.STORAGES,
        "jobs": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(folder)},
        },
    }
    monkeypatch.setattr(Job._meta.get_field("result"), "storage", result_storage())
    return folder


@pytest.fixture(autouse=True)
def portal_files(settings, tmp_path: Path) -> Path:
    """The portal's own files (the default storage: queries' certificates) in a folder of the
    test's own; a file field of the default storage reads the setting when it is used."""
    folder = tmp_path / "portal-files"
    settings.PORTAL_FILES_DIR = str(folder)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(folder)},
        },
    }
    return folder


@pytest.fixture
def mail_server(settings) -> Iterator[MailServer]:
    """A real SMTP server of the test's own, that the portal's mail goes to."""
    server = MailServer()
    settings.MAILERS = server.mailer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def passport_keys(settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A key directory of the test's own (beside its tmp_path, which tests look into) with a
    key that has signed passports' codes since 2020 (so that time moved back still finds it
    signing); never a developer's var/."""
    from datetime import UTC, datetime

    from portal.lib.signing_keys import add_key

    folder = tmp_path_factory.mktemp("passport-keys")
    add_key(folder, datetime(2020, 1, 1, tzinfo=UTC), settings.PORTAL_SIGNED_PASSPORT_DAYS)
    settings.PORTAL_PASSPORT_KEYS_DIR = str(folder)
    return folder


@pytest.fixture
def receiver() -> Iterator[HTTPServer]:
    """A webhooks' receiver of the test's own on 127.0.0.1 (pytest-httpserver: it answers as a
    test tells it to, faults included); the portal reaches it where a test allows loopback."""
    server = HTTPServer(host=servers.LOOPBACK, port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A Redis of the test's own, on a free port, keeping nothing on disk, that this process
    sends its jobs to (for a worker of the tests: tests/workers.py)."""
    server = PrivateRedis(servers.free_port(), tmp_path)
    server.start()
    with jobs_sent_to(server.url):
        yield server
        if server.process and server.process.poll() is None:
            server.kill()


@pytest.fixture
def redis_cache(settings) -> Iterator[str]:
    """The portal's Redis cache as production has it, on the Redis of REDIS_URL (shared with
    other runs: under a key prefix of the test's own, its keys deleted after); its prefix."""
    url = shared_redis_url()
    if not answers(url, 6379):
        pytest.skip("no Redis answers at REDIS_URL")
    prefix = f"test-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": url,
            "OPTIONS": {"COMPRESSOR": "django_redis.compressors.lz4.Lz4Compressor"},
            "KEY_PREFIX": prefix,
        }
    }
    yield prefix
    with redis.Redis.from_url(url) as client:
        keys = list(client.scan_iter(match=f"{prefix}:*"))
        if keys:
            client.delete(*keys)
