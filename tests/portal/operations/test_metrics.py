"""`/metrics`: who may read it, and what it counts, in Prometheus' text format as Prometheus'
own parser reads it. Counts are kept for the whole test run in this process, so each test
compares a scrape after with one before."""

from __future__ import annotations

import contextlib
import ipaddress
from contextlib import closing
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import OperationalError
from django.test import Client
from django.utils import timezone

from portal.assurance.client import AssuranceClient
from portal.assurance.errors import AuthenticationFailed, LockoutActive
from portal.celery import app as celery
from portal.jobs.models import Job
from tests.portal.accounts.helpers import sign_in
from tests.portal.jobs.conftest import new_job
from tests.portal.jobs.kinds import KIND
from tests.portal.operations.helpers import Samples, has, parsed, value
from tests.portal.passports.helpers import within_one_window
from tests.portal.test_settings import check, environment, settings_of

pytestmark = pytest.mark.django_db

OUTSIDE = "203.0.113.9"
TOKEN = "a-token-for-this-test-only-0123456789"


def scrape(client: Client | None = None, **headers: str) -> Samples:
    """A scrape from the test client's 127.0.0.1, allowed by default."""
    response = (client or Client()).get("/metrics", headers=headers)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    return parsed(response.content.decode())


# --- who may read it ------------------------------------------------------------------------------


def test_an_allowed_address_reads_it_without_a_token(client):
    response = client.get("/metrics")
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"]
    assert "# TYPE portal_requests_total counter" in response.content.decode()


def test_any_other_address_gets_the_page_of_an_address_that_does_not_exist():
    response = Client(REMOTE_ADDR=OUTSIDE).get("/metrics")
    assert response.status_code == 404
    assert b"portal_requests" not in response.content


@pytest.mark.parametrize("username", [None, "partner", "grower"],
                         ids=["anonymous", "signed-in", "staff"])  # fmt: skip
def test_signing_in_opens_it_to_nobody_the_address_decides(upstream_sandbox, username):
    call_command("grant_staff", "grower", stdout=StringIO())
    for address, status in (("127.0.0.1", 200), (OUTSIDE, 404)):
        client = Client(REMOTE_ADDR=address)
        if username is not None:
            assert sign_in(client, username).status_code == 302
        assert client.get("/metrics").status_code == status, address


def test_the_token_opens_it_from_any_address(settings):
    settings.PORTAL_METRICS_TOKEN = TOKEN
    response = Client(REMOTE_ADDR=OUTSIDE).get(
        "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert response.status_code == 200


@pytest.mark.parametrize("address", [OUTSIDE, "127.0.0.1"], ids=["outside", "allowed"])
@pytest.mark.parametrize("authorization", [f"Bearer {TOKEN}x", f"Basic {TOKEN}", "Bearer ", TOKEN])
def test_a_wrong_token_is_refused_from_any_address(settings, address, authorization):
    settings.PORTAL_METRICS_TOKEN = TOKEN
    response = Client(REMOTE_ADDR=address).get("/metrics", headers={"Authorization": authorization})
    assert response.status_code == 404


def test_no_token_is_taken_when_none_is_set(settings):
    settings.PORTAL_METRICS_TOKEN = ""
    response = Client(REMOTE_ADDR=OUTSIDE).get("/metrics", headers={"Authorization": "Bearer "})
    assert response.status_code == 404


def test_networks_may_be_allowed_instead_of_loopback(settings):
    settings.PORTAL_METRICS_ALLOWED = [ipaddress.ip_network("203.0.113.0/24")]
    assert Client(REMOTE_ADDR=OUTSIDE).get("/metrics").status_code == 200
    assert Client().get("/metrics").status_code == 404


def test_behind_the_proxy_the_clients_address_counts_not_the_proxys(settings):
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
    outside = Client().get("/metrics", headers={"X-Forwarded-For": OUTSIDE})
    assert outside.status_code == 404
    assert Client().get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 200


def test_an_ipv4_address_on_a_dual_stack_socket_is_known():
    assert Client(REMOTE_ADDR="::ffff:127.0.0.1").get("/metrics").status_code == 200


def test_it_answers_get_and_head_only(client):
    assert client.post("/metrics").status_code == 405


def test_the_allowed_networks_and_the_token_come_from_the_environment(tmp_path):
    token_file = tmp_path / "metrics_token"
    token_file.write_text(f"{TOKEN}\n")
    read = settings_of(
        environment(PORTAL_DEVELOPMENT="true", PORTAL_METRICS_ALLOWED="10.1.0.0/16, ::1",
                    PORTAL_METRICS_TOKEN_FILE=str(token_file)),
        "PORTAL_METRICS_ALLOWED", "PORTAL_METRICS_TOKEN",
    )  # fmt: skip
    assert read["PORTAL_METRICS_ALLOWED"] == [
        "IPv4Network('10.1.0.0/16')",
        "IPv6Network('::1/128')",
    ]
    assert read["PORTAL_METRICS_TOKEN"] == TOKEN


def test_a_malformed_network_stops_the_portal_with_its_name():
    result = check(environment(PORTAL_DEVELOPMENT="true", PORTAL_METRICS_ALLOWED="10.1.0/33"))
    assert result.returncode != 0
    assert "PORTAL_METRICS_ALLOWED" in result.stderr


# --- requests -------------------------------------------------------------------------------------


def test_requests_are_counted_and_timed_by_view_not_by_address(client):
    before = scrape()
    client.get("/healthz")
    client.get("/healthz")
    client.post("/healthz")
    client.get("/no-such-page/7KXM4-QHT2W")
    client.get("/static/css/lookup.css")
    client.generic("BREW", "/healthz")
    after = scrape()

    def counted(**labels: str) -> float:
        return value(after, "portal_requests_total", **labels) - value(
            before, "portal_requests_total", **labels
        )

    assert counted(view="operations:health", method="GET", status="200") == 2
    assert counted(view="operations:health", method="POST", status="200") == 1
    assert counted(view="operations:health", method="other", status="200") == 1
    assert counted(view="unmatched", method="GET", status="404") == 1
    assert counted(view="static", method="GET", status="200") == 1
    timed = "portal_request_duration_seconds_count"
    assert (
        value(after, timed, view="operations:health")
        - value(before, timed, view="operations:health")
        == 4
    )
    assert not any("7KXM4" in str(labels) for _, labels in after)


# --- calls to the service -------------------------------------------------------------------------


def test_calls_to_the_service_are_counted_by_operation_and_outcome(client, upstream_sandbox):
    before = scrape()
    assert sign_in(client, "grower").status_code == 302
    assert client.get("/memberships/").status_code == 200
    after = scrape()

    def counted(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert counted("portal_upstream_calls_total", operation="login", outcome="ok") == 1
    assert counted("portal_upstream_calls_total", operation="authorisation", outcome="ok") >= 1
    timed = "portal_upstream_call_duration_seconds"
    assert counted(f"{timed}_count", operation="login") == 1
    assert 0 < counted(f"{timed}_sum", operation="login") < 10
    assert counted(f"{timed}_bucket", operation="login", le="+Inf") == 1


# --- sign-in failures -----------------------------------------------------------------------------


def test_failed_sign_ins_are_counted_by_reason(client, upstream_sandbox, fresh_lockouts, settings):
    settings.PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE = 1
    before = scrape()
    with within_one_window("127.0.0.1"):
        assert sign_in(client, "grower", "not-the-password").status_code == 400
        assert sign_in(client, "grower", "not-the-password").status_code == 429  # its pace
    after = scrape()
    failures = "portal_sign_in_failures_total"
    for reason, expected in (("wrong_credentials", 1), ("refused", 1), ("locked_out", 0)):
        assert value(after, failures, reason=reason) - value(before, failures, reason=reason) == (
            expected
        ), reason
    calls = "portal_upstream_calls_total"
    refused_by_the_service = {"operation": "login", "outcome": "AuthenticationFailed"}
    assert (
        value(after, calls, **refused_by_the_service)
        - value(before, calls, **refused_by_the_service)
        == 1
    )


def test_the_services_lockout_is_counted_as_such(client, upstream_sandbox, fresh_lockouts):
    with closing(AssuranceClient(upstream_sandbox.url)) as elsewhere:
        for _ in range(5):  # the portal's address, locked from outside the portal
            with contextlib.suppress(AuthenticationFailed, LockoutActive):
                elsewhere.login("grower", "not-the-password")
    before = scrape()
    assert sign_in(client, "grower").status_code == 429
    after = scrape()
    failures = "portal_sign_in_failures_total"
    assert (
        value(after, failures, reason="locked_out") - value(before, failures, reason="locked_out")
        == 1
    )


# --- look-ups -------------------------------------------------------------------------------------


def test_look_ups_refused_by_the_limit_are_counted(upstream_sandbox, settings, client_address):
    settings.PORTAL_LOOKUPS_PER_MINUTE = 1
    visitor = Client(REMOTE_ADDR=client_address)
    limited = "portal_look_ups_limited_total"
    with within_one_window(client_address):
        before = scrape()
        assert visitor.get("/p/ABCDE-FGHJK").status_code == 404
        assert visitor.get("/p/ABCDE-FGHJK").status_code == 429
        assert visitor.get("/p/ABCDE-FGHJK").status_code == 429
        after = scrape()
    assert value(after, limited, who="visitor") - value(before, limited, who="visitor") == 2
    assert value(after, limited, who="signed_in") == value(before, limited, who="signed_in")


# --- jobs and the queue, read at scrape time ------------------------------------------------------


def test_jobs_are_reported_by_kind_and_state_with_the_oldest_waiting(
    grower, django_assert_num_queries
):
    waiting_longest, _, running, done, failed, done_long_ago = (new_job(grower) for _ in range(6))
    now = timezone.now()
    Job.objects.filter(pk=waiting_longest.pk).update(touched=now - timedelta(minutes=10))
    Job.objects.filter(pk=running.pk).update(
        state=Job.State.RUNNING, touched=now - timedelta(hours=1)
    )
    Job.objects.filter(pk=done.pk).update(state=Job.State.DONE, finished=now)
    Job.objects.filter(pk=failed.pk).update(state=Job.State.FAILED, finished=now)
    Job.objects.filter(pk=done_long_ago.pk).update(
        state=Job.State.DONE, finished=now - timedelta(minutes=61)
    )

    with django_assert_num_queries(1):  # one aggregate query, whatever the jobs
        samples = scrape()

    assert value(samples, "portal_jobs", kind=KIND, state="queued") == 2
    assert value(samples, "portal_jobs", kind=KIND, state="running") == 1
    ended = "portal_jobs_ended_last_hour"
    assert value(samples, ended, kind=KIND, state="done") == 1  # not the one ended before
    assert value(samples, ended, kind=KIND, state="failed") == 1
    assert not has_jobs_in(samples, "cancelled")
    oldest = value(samples, "portal_job_oldest_queued_seconds")
    assert 600 <= oldest < 660  # the running job's older change is not a wait


def test_with_no_job_waiting_the_oldest_wait_is_zero():
    samples = scrape()
    assert has(samples, "portal_job_oldest_queued_seconds")
    assert value(samples, "portal_job_oldest_queued_seconds") == 0


def has_jobs_in(samples: Samples, state: str) -> bool:
    return any(("state", state) in labels for name, labels in samples if "jobs" in name)


@pytest.mark.skipif(
    not celery.conf.broker_url.startswith("redis"), reason="the broker is not Redis (REDIS_URL)"
)
def test_the_messages_waiting_in_the_redis_queue_are_counted():
    queue = celery.conf.task_default_queue  # the test run's own: no worker takes from it
    try:
        before = value(scrape(), "portal_job_queue_messages")
        for _ in range(3):
            celery.send_task("tests.operations.nothing", queue=queue)
        assert value(scrape(), "portal_job_queue_messages") == before + 3
    finally:
        with celery.connection_for_write() as connection:
            connection.default_channel.queue_purge(queue)


def test_the_queue_is_left_out_with_the_file_system_broker(monkeypatch):
    monkeypatch.setitem(celery.conf, "CELERY_BROKER_URL", "filesystem://")  # as configured
    assert not has(scrape(), "portal_job_queue_messages")


def test_a_scrape_goes_on_without_the_queue_when_redis_does_not_answer(monkeypatch, caplog):
    monkeypatch.setitem(celery.conf, "CELERY_BROKER_URL", "redis://127.0.0.1:9/0")
    samples = scrape()
    assert not has(samples, "portal_job_queue_messages")
    assert has(samples, "portal_job_oldest_queued_seconds")
    assert "The job queue's length could not be read: ConnectionError" in caplog.text


def test_a_scrape_goes_on_without_the_jobs_when_the_database_does_not_answer(monkeypatch, caplog):
    def database_down(*args: object) -> None:
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(Job.objects, "order_by", database_down)
    samples = scrape()
    assert not has(samples, "portal_jobs")
    assert has(samples, "portal_requests_total")
    assert "Jobs could not be counted: OperationalError" in caplog.text
