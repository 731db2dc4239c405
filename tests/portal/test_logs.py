"""The portal's logs: one record for each request (its id, the user's id, method, path with no
whole short code and no query string, status, time taken), the request's id sent back and put
on every other record made meanwhile and on a job's, and one JSON object a line in production."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.test import Client

from portal.operations import logs
from portal.passports.logs import MaskShortCodes
from tests.portal.accounts.helpers import replace_view
from tests.portal.test_settings import environment, run

pytestmark = pytest.mark.django_db

CODE = "7KXM4-QHT2W"


@pytest.fixture
def request_records(caplog: pytest.LogCaptureFixture) -> Iterator[list[logging.LogRecord]]:
    """The records of `portal.requests`, at DEBUG and up."""
    caplog.set_level(logging.DEBUG, logger="portal.requests")

    def of_requests() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.name == "portal.requests"]

    yield of_requests  # type: ignore[misc]


def only(records: list[logging.LogRecord]) -> logging.LogRecord:
    [record] = records
    return record


def test_a_request_is_one_record_with_its_id_user_path_status_and_time(grower, request_records):
    response = grower.get(f"/passports/{CODE}/pdf/state?token=a-secret")
    record = only(request_records())
    assert record.levelno == logging.INFO
    assert record.request_id == response["X-Request-ID"]
    assert len(record.request_id) == 32
    assert record.user_id == get_user_model().objects.get(username="grower").pk
    assert record.method == "GET"
    assert record.path == "/passports/7KX…/pdf/state"
    assert record.status == response.status_code
    assert 0 < record.duration_ms < 60_000
    assert record.getMessage() == f"GET /passports/7KX…/pdf/state {response.status_code} " + (
        f"{record.duration_ms:.0f} ms"
    )
    everything = repr(record.__dict__)
    assert CODE not in everything and CODE.replace("-", "") not in everything
    assert "a-secret" not in everything and "token=" not in everything


def test_an_anonymous_request_has_no_user(client: Client, request_records):
    client.get("/accounts/sign-in/")
    record = only(request_records())
    assert record.user_id is None
    assert record.path == "/accounts/sign-in/"


def test_a_look_up_writes_nothing_of_its_code(client: Client, request_records, settings):
    settings.ASSURANCE_LOOKUP_USERNAME = ""  # the look-up answers at once that it is not set up
    client.get(f"/p/{CODE}")
    client.get(f"/p/?code={CODE}")
    first, second = request_records()
    assert first.path == "/p/…"
    assert second.path == "/p/"
    for record in (first, second):
        everything = repr(record.__dict__)
        assert "7KXM" not in everything and "QHT2W" not in everything


@pytest.mark.parametrize(
    "path",
    ["/passports/export", "/passports/send", "/passports/new", "/passports/add",
     "/passports/new/0b0e5a4e-5b9a-4f7e-9a7e-2f8f3c1d6a90/", "/passports/not-a-code/"],
)  # fmt: skip
def test_a_path_that_holds_no_short_code_is_written_whole(client: Client, request_records, path):
    client.get(path)
    record = only(request_records())
    assert record.path == path
    assert record.getMessage().startswith(f"GET {path} ")


@pytest.mark.parametrize("typed", [CODE, "7kxm4qht2w", "7KXM4QHT2WAB"])
def test_a_short_code_is_masked_however_it_is_typed(client: Client, request_records, typed):
    client.get(f"/passports/{typed}/pdf")
    assert only(request_records()).path == f"/passports/{typed[:3]}…/pdf"


def test_the_services_paths_are_masked_only_where_they_hold_a_short_code():
    mask = MaskShortCodes()
    record = logging.LogRecord("urllib3.connectionpool", logging.DEBUG, __file__, 1,
                               '"GET /v1/passports/%s.eb HTTP/1.1" 200 812 '
                               '"GET /v1/passports/%s.pdf HTTP/1.1" 404 90',
                               ("7KXM4QHT2W", "authorisation"), None)  # fmt: skip
    assert mask.filter(record)
    assert record.getMessage() == (
        '"GET /v1/passports/7KX….eb HTTP/1.1" 200 812 '
        '"GET /v1/passports/authorisation.pdf HTTP/1.1" 404 90'
    )


def test_a_path_cannot_forge_a_line(client: Client, request_records):
    client.get("/no-such-page/%0AINFO%20forged/")
    assert only(request_records()).path == "/no-such-page/?INFO forged/"


def test_the_health_checks_successes_are_logged_at_debug(client: Client, request_records):
    client.get("/healthz")
    assert only(request_records()).levelno == logging.DEBUG


# --- the request's id -----------------------------------------------------------------------------


def test_a_trusted_proxys_request_id_is_kept(client: Client, settings, request_records):
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
    response = client.get("/accounts/sign-in/", headers={"X-Request-ID": "b1946ac92492d2347c62"})
    assert response["X-Request-ID"] == "b1946ac92492d2347c62"
    assert only(request_records()).request_id == "b1946ac92492d2347c62"


def test_a_trusted_proxy_reached_over_ipv6_is_still_trusted_with_its_id(client: Client, settings):
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
    response = client.get("/accounts/sign-in/", REMOTE_ADDR="::ffff:127.0.0.1",
                          headers={"X-Request-ID": "b1946ac92492d2347c62"})  # fmt: skip
    assert response["X-Request-ID"] == "b1946ac92492d2347c62"


@pytest.mark.parametrize("sent", ["has spaces in it", "x" * 65, "<script>", "id\nINFO forged line"])
def test_a_malformed_request_id_is_replaced(client: Client, settings, sent: str):
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]
    response = client.get("/accounts/sign-in/", headers={"X-Request-ID": sent})
    assert response["X-Request-ID"] != sent
    assert len(response["X-Request-ID"]) == 32


def test_anyone_elses_request_id_is_replaced(client: Client, settings):
    settings.PORTAL_TRUSTED_PROXIES = []
    response = client.get("/accounts/sign-in/", headers={"X-Request-ID": "chosen-by-a-stranger"})
    assert response["X-Request-ID"] != "chosen-by-a-stranger"


def test_every_record_made_during_a_request_carries_its_id(client: Client, monkeypatch):
    heard: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.addFilter(logs.WithRequestId())
    handler.emit = heard.append  # type: ignore[method-assign]
    logger = logging.getLogger("portal.tests.during")
    logger.addHandler(handler)
    monkeypatch.setattr(logger, "level", logging.INFO)

    def view(request):
        logger.info("in the view")
        return HttpResponse("ok")

    replace_view(monkeypatch, "home", view)
    try:
        response = client.get("/")
        logger.info("after the request")
    finally:
        logger.removeHandler(handler)
    during, after = heard
    assert during.request_id == response["X-Request-ID"]
    assert after.request_id == "-"


def test_a_job_sent_during_a_request_carries_its_id_to_the_worker():
    class Task:
        class request:  # as Celery's task.request
            portal_request_id = None

    headers: dict[str, object] = {}
    reset = logs.request_id.set("4bf92f3577b34da6a3ce929d0e0e4736")
    try:
        logs.send_request_id(headers=headers)
    finally:
        logs.request_id.reset(reset)
    assert headers == {"portal_request_id": "4bf92f3577b34da6a3ce929d0e0e4736"}
    Task.request.portal_request_id = headers["portal_request_id"]  # as the worker's message
    logs.take_request_id(task=Task)
    try:
        record = logging.LogRecord("portal.jobs", logging.INFO, __file__, 1, "working", (), None)
        logs.WithRequestId().filter(record)
        assert record.request_id == "4bf92f3577b34da6a3ce929d0e0e4736"
    finally:
        logs.drop_request_id()
    assert logs.request_id.get() is None


# --- JSON lines -----------------------------------------------------------------------------------


def test_a_record_is_one_line_of_json_with_only_its_known_fields():
    try:
        raise ValueError("what went wrong")
    except ValueError:
        record = logging.LogRecord("portal.requests", logging.ERROR, __file__, 1, "GET %s\nnext",
                                   ("/jobs/",), sys.exc_info())  # fmt: skip
    record.request_id, record.user_id, record.status = "abc123", 7, 500
    record.request = object()  # as Django's request log carries the request: never written
    record.password = "never-written"
    line = logs.JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["message"] == "GET /jobs/\nnext"
    assert entry["level"] == "ERROR"
    assert entry["logger"] == "portal.requests"
    assert entry["time"].endswith("Z")
    assert (entry["request_id"], entry["user_id"], entry["status"]) == ("abc123", 7, 500)
    assert "ValueError: what went wrong" in entry["exception"]
    assert set(entry) == {"time", "level", "logger", "message", "request_id", "user_id",
                          "status", "exception"}  # fmt: skip


LOG_A_REQUEST = (
    "import django; django.setup(); from django.test import Client; "
    "Client().get('/no-such-page/?session=a-secret', HTTP_HOST='portal.example.org', "
    "HTTP_COOKIE='csrftoken=a-cookie-value', HTTP_AUTHORIZATION='Bearer a-token-value')"
)


def output_of_a_request(**variables: str) -> list[str]:
    env = environment(DJANGO_SETTINGS_MODULE="portal.settings", ALLOWED_HOSTS="portal.example.org",
                      **variables)  # fmt: skip
    env.pop("PORTAL_LOG_FORMAT", None)
    result = run([sys.executable, "-c", LOG_A_REQUEST], env)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


def test_in_production_the_portal_writes_json_lines_to_standard_output():
    lines = output_of_a_request(SECRET_KEY="a-long-random-string-" * 3)
    entries = [json.loads(line) for line in lines]
    request, not_found = sorted(entries, key=lambda e: e["logger"] != "portal.requests")
    assert request["logger"] == "portal.requests"
    assert request["message"].startswith("GET /no-such-page/ 404 ")
    assert request["path"] == "/no-such-page/"
    assert request["status"] == 404
    assert "user_id" not in request
    assert not_found["logger"] == "django.request"
    assert not_found["request_id"] == request["request_id"]
    text = "\n".join(lines)
    for secret in ("a-secret", "a-cookie-value", "a-token-value"):
        assert secret not in text


def test_in_development_it_writes_plain_lines():
    lines = output_of_a_request(PORTAL_DEVELOPMENT="true")
    assert any(" INFO portal.requests [" in line and "GET /no-such-page/ 404" in line
               for line in lines)  # fmt: skip
    assert not any(line.startswith("{") for line in lines)


def test_a_log_format_of_neither_kind_is_refused():
    env = environment(PORTAL_DEVELOPMENT="true", PORTAL_LOG_FORMAT="xml")
    result = run([sys.executable, "manage.py", "check"], env)
    assert result.returncode != 0
    assert "PORTAL_LOG_FORMAT must be json or text, not 'xml'" in result.stderr
