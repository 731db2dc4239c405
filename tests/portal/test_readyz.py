"""/readyz: the database, Redis (the cache and the broker), a worker alive and the Assurance
service, each named; 503 naming what is down, and never a secret. The real worker's heartbeat:
tests/portal/jobs/test_heartbeat.py."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
import time_machine
from django.db import connections
from django.test import Client
from django.utils import timezone
from pytest_httpserver import HTTPServer

from portal.assurance import service
from portal.jobs.tasks import sweep
from portal.operations import health, heartbeat
from scripts.servers import free_port

pytestmark = pytest.mark.django_db

SECRET = "a-secret-password"
CHECKS = {"database", "redis", "workers", "upstream"}


def ready(client: Client) -> tuple[int, dict]:
    response = client.get("/readyz")
    assert response["Content-Type"] == "application/json"
    assert "no-store" in response["Cache-Control"]
    assert SECRET not in response.content.decode()
    return response.status_code, response.json()


def down(answer: dict) -> set[str]:
    return {name for name, check in answer["checks"].items() if not check["ok"]}


@pytest.fixture
def worker_alive(settings) -> None:
    """A heartbeat as a worker writes it."""
    heartbeat.beat("celery@test")


@pytest.fixture
def upstream_at(settings) -> Iterator:
    """Points the portal's client at a URL."""

    def point(url: str) -> None:
        settings.ASSURANCE_BASE_URL = url
        service.client.cache_clear()

    yield point
    service.client.cache_clear()


def test_it_answers_ok_when_every_part_is_up(client, upstream_sandbox, worker_alive):
    status, answer = ready(client)
    assert status == 200, answer
    assert answer["status"] == "ok"
    assert set(answer["checks"]) == CHECKS
    for check in answer["checks"].values():
        assert check["ok"] is True
        assert check["ms"] >= 0
    assert answer["checks"]["upstream"]["status"] == 401  # asked without credentials
    assert answer["checks"]["workers"]["heartbeat_age_s"] < 5


def test_a_database_out_of_reach_is_named(client, upstream_sandbox, worker_alive, monkeypatch):
    closed = {"ENGINE": "django.db.backends.postgresql", "HOST": "127.0.0.1",
              "PORT": str(free_port()), "NAME": "portal", "USER": "portal", "PASSWORD": SECRET,
              "OPTIONS": {"connect_timeout": 2}}  # fmt: skip
    # The check opens a connection of its own thread's, with these settings.
    monkeypatch.setitem(connections.settings, "default", {**connections["default"].settings_dict,
                                                         **closed})  # fmt: skip
    status, answer = ready(client)
    assert status == 503
    assert answer["status"] == "down"
    assert down(answer) == {"database"}
    assert answer["checks"]["database"]["error"] == "OperationalError"
    assert closed["PORT"] not in str(answer)  # the public answer names no host or port


def test_redis_out_of_reach_is_named(client, upstream_sandbox, worker_alive, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://:{SECRET}@127.0.0.1:{free_port()}/0",
            "KEY_PREFIX": "portal.test",
        }
    }
    status, answer = ready(client)
    assert status == 503
    # The workers' heartbeats are in the cache too: they cannot be told either.
    assert down(answer) == {"redis", "workers"}
    assert answer["checks"]["redis"]["error"].startswith("cache: ")


def test_a_broker_out_of_reach_is_named(client, upstream_sandbox, worker_alive, settings):
    settings.CELERY_BROKER_URL = f"redis://:{SECRET}@127.0.0.1:{free_port()}/0"
    status, answer = ready(client)
    assert status == 503
    assert down(answer) == {"redis"}
    assert answer["checks"]["redis"]["error"].startswith("broker: ")


def test_no_worker_heartbeat_is_named(client, upstream_sandbox, settings):
    status, answer = ready(client)
    assert status == 503
    assert down(answer) == {"workers"}
    error = answer["checks"]["workers"]["error"]
    assert error == "no worker has written a heartbeat in the last 30 s"


def test_a_heartbeat_older_than_the_limit_is_no_worker(client, upstream_sandbox, settings):
    heartbeat.beat("celery@test")
    settings.PORTAL_WORKER_HEARTBEAT_SECONDS = 1
    with time_machine.travel(timedelta(seconds=1.2)):
        _, answer = ready(client)
    assert down(answer) == {"workers"}


def test_the_service_out_of_reach_is_named(client, worker_alive, upstream_at):
    upstream_at(f"http://portal:{SECRET}@127.0.0.1:{free_port()}")
    status, answer = ready(client)
    assert status == 503
    assert down(answer) == {"upstream"}
    assert answer["checks"]["upstream"]["error"] == "The Assurance service cannot be reached."


def test_any_answer_of_the_service_is_up_but_a_5xx(client, worker_alive, upstream_at, httpserver):
    upstream_at(httpserver.url_for("/"))
    httpserver.expect_oneshot_request("/v1/standards.eb").respond_with_data("", status=503)
    _, answer = ready(client)
    assert answer["checks"]["upstream"] == {"ok": False, "error": "the service answered 503"}


def test_the_services_answer_is_kept_a_few_seconds_for_everyone(
    client: Client, worker_alive, upstream_at, httpserver: HTTPServer
):
    upstream_at(httpserver.url_for("/"))
    httpserver.expect_request("/v1/standards.eb").respond_with_data("", status=401)
    for _ in range(5):
        status, answer = ready(client)
        assert status == 200, answer
    assert len(httpserver.log) == 1
    assert all("Authorization" not in request.headers for request, _ in httpserver.log)


def test_a_check_that_hangs_is_down_in_time(client, upstream_sandbox, worker_alive, monkeypatch):
    monkeypatch.setattr(health, "CHECK_SECONDS", 0.2)  # the library waits a second more
    monkeypatch.setattr(health, "upstream", lambda: time.sleep(3) or {})
    started = time.monotonic()
    status, answer = ready(client)
    assert time.monotonic() - started < 2  # not held by the check's thread
    assert status == 503
    assert answer["checks"]["upstream"] == {"ok": False, "error": "Timed out after 0.2 seconds"}
    assert down(answer) == {"upstream"}


@pytest.mark.parametrize("accept", ["*/*", "text/html", "text/plain", "application/rss+xml"])
def test_it_answers_its_json_whatever_the_request_accepts(
    client, upstream_sandbox, worker_alive, accept
):
    response = client.get("/readyz", headers={"Accept": accept})
    assert (response.status_code, response["Content-Type"]) == (200, "application/json")
    assert set(response.json()["checks"]) == CHECKS


def test_it_answers_only_get_and_head(client, upstream_sandbox, worker_alive):
    assert client.head("/readyz").status_code == 200
    assert client.post("/readyz").status_code == 405


def test_healthz_needs_none_of_them(client, settings, upstream_at):
    upstream_at(f"http://127.0.0.1:{free_port()}")
    assert client.get("/healthz").content == b"ok\n"


@pytest.mark.django_db(transaction=True)  # the check reads on a connection of its own thread
def test_it_says_when_the_sweep_last_ran_and_that_it_is_late_without_being_down(
    client, upstream_sandbox, worker_alive, settings
):
    settings.PORTAL_SWEEP_SECONDS = 60
    status, answer = ready(client)
    assert status == 200
    assert answer["sweep"] == {"ok": False, "error": "late: the sweep has not run yet, "
                               "and runs every 60 s"}  # fmt: skip
    swept_at = timezone.now().replace(microsecond=0) + timedelta(hours=1)
    with time_machine.travel(swept_at, tick=False) as moment:
        sweep()
        heartbeat.beat("celery@test")
        status, answer = ready(client)
        assert status == 200
        assert answer["sweep"]["ok"] is True
        assert answer["sweep"]["last_ran"] == swept_at.isoformat()
        moment.shift(timedelta(seconds=121))
        heartbeat.beat("celery@test")
        status, answer = ready(client)
    assert (status, answer["status"]) == (200, "ok")  # still serving: monitors read "sweep"
    assert answer["sweep"] == {
        "ok": False,
        "error": f"late: the sweep last ran at {swept_at.isoformat()}, and runs every 60 s",
    }
