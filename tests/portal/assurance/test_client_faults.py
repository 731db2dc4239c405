"""Faults the sandbox cannot make, against the client: on local test servers of the test's own.

Slow, refused, truncated and dripped answers, retryable statuses and Retry-After, bodies that
are malformed, mislabelled, hostile or too large, redirects, error bodies, threads, cookies and
credentials. Every test checks the exception's type and that it came within its time budget.
"""

from __future__ import annotations

import base64
import email.utils
import gzip
import json
import logging
import re
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from portal.assurance import codec, records
from portal.assurance.client import (
    AssuranceClient,
    BasicAuth,
    BearerToken,
    CallReport,
    RetryPolicy,
    SessionCookie,
)
from portal.assurance.codec import Format
from portal.assurance.errors import (
    AssuranceError,
    AuthenticationRequired,
    NotFound,
    Unavailable,
    UnexpectedResponse,
    ValidationFailed,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "wire"
SCHEMES = "/v1/standards.eb"
PASSPORTS = "/v1/passports.eb"
LOGIN = "/v1/authentication/login.eb"
SHORT_CODE = "K7MXR4QT9W"
TOKEN = BearerToken("tok-3f9c1d7e5a2b4c6d8e0f")
FAST = RetryPolicy(attempts=3, backoff=0.01, max_backoff=0.02)

# Slack for scheduling on a busy machine, on top of each budget.
SLACK = 0.4


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def passport_request() -> records.PassportRequest:
    return codec.decode(fixture("passport-request.json"), records.PassportRequest, Format.JSON)


# --- the client, timed ----------------------------------------------------------------------------


@dataclass
class Harness:
    client: AssuranceClient
    reports: list[CallReport]

    @property
    def last(self) -> CallReport:
        return self.reports[-1]


@pytest.fixture
def make_client() -> Iterator[Callable[..., Harness]]:
    """A client of `base_url` with fast retries, reporting its calls into `Harness.reports`."""
    made: list[AssuranceClient] = []

    def make(base_url: str, **options) -> Harness:
        reports: list[CallReport] = []
        settings = {"read_timeout": 2.0, "total_timeout": 10.0, "retry": FAST} | options
        client = AssuranceClient(base_url, on_call=reports.append, **settings)
        made.append(client)
        return Harness(client, reports)

    yield make
    for client in made:
        client.close()


@dataclass
class Stopwatch:
    started: float
    elapsed: float = 0.0


@contextmanager
def stopwatch() -> Iterator[Stopwatch]:
    watch = Stopwatch(time.monotonic())
    try:
        yield watch
    finally:
        watch.elapsed = time.monotonic() - watch.started


# --- servers --------------------------------------------------------------------------------------


def base(server: HTTPServer) -> str:
    return server.url_for("/").rstrip("/")


def answer(
    body: bytes | str = b"",
    status: int = 200,
    content_type: str = "application/json",
    **headers: str,
) -> Response:
    headers = {name.replace("_", "-"): value for name, value in headers.items()}
    return Response(body, status=status, content_type=content_type, headers=headers)


def schemes_ok() -> Response:
    return answer(fixture("schemes.json"))


def in_turn(server: HTTPServer, path: str, *responses: Response) -> list[Request]:
    """Answers requests to `path` with `responses` in turn (the last one from then on)."""
    seen: list[Request] = []
    lock = threading.Lock()

    def handler(request: Request) -> Response:
        with lock:
            seen.append(request)
            return responses[min(len(seen), len(responses)) - 1]

    server.expect_request(path).respond_with_handler(handler)
    return seen


@pytest.fixture
def threaded_server() -> Iterator[HTTPServer]:
    """A server of the test's own that answers requests in parallel (a sleeping handler does
    not hold up the next request, and its requests cannot leak into another test)."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    try:
        yield server
    finally:
        server.clear()
        server.stop()


class RawServer:
    """A bare TCP server: each connection is given to `script(connection, request_bytes)`."""

    def __init__(self, script: Callable[[socket.socket, bytes], None]) -> None:
        self.script = script
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5)
            try:
                request = b""
                while b"\r\n\r\n" not in request:
                    data = connection.recv(65536)
                    if not data:
                        return
                    request += data
                self.script(connection, request)
            except OSError:  # the client gave up and went away
                pass


def head(status: str = "200 OK", content_length: int | None = None, **headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status}", "Content-Type: application/json", "Connection: close"]
    if content_length is not None:
        lines.append(f"Content-Length: {content_length}")
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- time-outs and unreachable servers ------------------------------------------------------------


def sleeping(seconds: float, seen: list[Request]) -> Callable[[Request], Response]:
    def handler(request: Request) -> Response:
        seen.append(request)
        time.sleep(seconds)
        return schemes_ok()

    return handler


def test_a_get_slower_than_the_read_timeout_is_retried_then_unavailable(
    threaded_server, make_client
):
    seen: list[Request] = []
    threaded_server.expect_request(SCHEMES).respond_with_handler(sleeping(1.0, seen))
    harness = make_client(base(threaded_server), read_timeout=0.2)

    with stopwatch() as watch, pytest.raises(Unavailable) as caught:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < 3 * 0.2 + 2 * 0.02 + SLACK
    assert len(seen) == 3
    assert harness.last.attempts == 3
    assert harness.last.outcome == "Unavailable"
    assert caught.value.operation == "schemes"


def test_a_post_slower_than_the_read_timeout_is_tried_once(threaded_server, make_client):
    seen: list[Request] = []
    threaded_server.expect_request(PASSPORTS).respond_with_handler(sleeping(1.0, seen))
    harness = make_client(base(threaded_server), read_timeout=0.2)

    with stopwatch() as watch, pytest.raises(Unavailable):
        harness.client.create_passport(TOKEN, passport_request())

    assert watch.elapsed < 0.2 + SLACK
    assert len(seen) == 1
    assert harness.last.attempts == 1


def test_a_refused_connection_is_unavailable_and_a_get_is_retried(make_client):
    harness = make_client(f"http://127.0.0.1:{free_port()}")

    with stopwatch() as watch, pytest.raises(Unavailable) as caught:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert harness.last.attempts == 3
    assert harness.last.status is None
    assert "reached" in caught.value.message


def test_a_refused_connection_is_not_retried_for_a_post(make_client):
    harness = make_client(f"http://127.0.0.1:{free_port()}")

    with stopwatch() as watch, pytest.raises(Unavailable):
        harness.client.login("grower", "pw")

    assert watch.elapsed < SLACK
    assert harness.last.attempts == 1


def test_a_connection_closed_before_any_answer_is_unavailable_and_retried(make_client):
    with RawServer(lambda connection, request: None) as server:
        harness = make_client(server.url)
        with stopwatch() as watch, pytest.raises(Unavailable):
            harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert server.connections == 3


# --- an outage remembered ------------------------------------------------------------------------


class Remembered:
    """An outage memory as the portal keeps one (there, in the shared cache)."""

    def __init__(self) -> None:
        self.down = False

    def is_down(self) -> bool:
        return self.down

    def remember(self) -> None:
        self.down = True


def test_a_service_that_cannot_be_reached_is_remembered_and_not_tried_again(make_client):
    outage = Remembered()
    harness = make_client(f"http://127.0.0.1:{free_port()}", outage=outage)
    with pytest.raises(Unavailable):
        harness.client.schemes(TOKEN)
    assert outage.down
    assert harness.last.attempts == 3

    with stopwatch() as watch, pytest.raises(Unavailable) as caught:
        harness.client.section_data(TOKEN, "SCHEME", "ST")

    assert harness.last.attempts == 0  # no try at all
    assert harness.last.operation == "section_data"
    assert watch.elapsed < 0.1
    assert "a moment ago" in caught.value.message


def test_an_answer_the_service_refuses_is_no_outage(httpserver, make_client):
    in_turn(httpserver, SCHEMES, answer(status=404))
    outage = Remembered()
    harness = make_client(base(httpserver), outage=outage)
    with pytest.raises(AssuranceError):
        harness.client.schemes(TOKEN)
    assert not outage.down


def test_a_remembered_outage_ends_when_the_memory_lapses(httpserver, make_client):
    seen = in_turn(httpserver, SCHEMES, schemes_ok())
    outage = Remembered()
    outage.down = True
    harness = make_client(base(httpserver), outage=outage)
    with pytest.raises(Unavailable):
        harness.client.schemes(TOKEN)
    assert seen == []

    outage.down = False  # as the shared cache forgets it
    assert len(harness.client.schemes(TOKEN).items) == 3
    assert len(seen) == 1


# --- retryable statuses and Retry-After -----------------------------------------------------------


def test_503_503_200_succeeds_on_the_third_try(httpserver, make_client):
    seen = in_turn(httpserver, SCHEMES, answer(status=503), answer(status=503), schemes_ok())
    harness = make_client(base(httpserver))

    with stopwatch() as watch:
        schemes = harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert len(schemes.items) == 3
    assert len(seen) == 3
    assert harness.last.attempts == 3
    assert (harness.last.outcome, harness.last.status) == ("ok", 200)


@pytest.mark.parametrize("status", [502, 504])
def test_502_and_504_are_retried(httpserver, make_client, status):
    seen = in_turn(httpserver, SCHEMES, answer(status=status), schemes_ok())
    harness = make_client(base(httpserver))

    with stopwatch() as watch:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert len(seen) == 2
    assert harness.last.attempts == 2


def test_500_is_not_retried(httpserver, make_client):
    seen = in_turn(httpserver, SCHEMES, answer(status=500), schemes_ok())
    harness = make_client(base(httpserver))

    with stopwatch() as watch, pytest.raises(Unavailable) as caught:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert len(seen) == 1
    assert caught.value.status == 500
    assert harness.last.attempts == 1


def test_429_with_retry_after_is_waited_for(httpserver, make_client):
    seen = in_turn(httpserver, SCHEMES, answer(status=429, Retry_After="1"), schemes_ok())
    harness = make_client(base(httpserver))

    with stopwatch() as watch:
        harness.client.schemes(TOKEN)

    assert 0.95 <= watch.elapsed < 1.0 + SLACK
    assert len(seen) == 2


def test_429_with_a_retry_after_over_the_limit_fails_at_once(httpserver, make_client):
    seen = in_turn(httpserver, SCHEMES, answer(status=429, Retry_After="120"), schemes_ok())
    harness = make_client(base(httpserver))

    with stopwatch() as watch, pytest.raises(Unavailable) as caught:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert len(seen) == 1
    assert caught.value.retry_after == 120
    assert caught.value.status == 429


def test_retry_after_as_an_http_date_in_the_future(httpserver, make_client):
    moment = datetime.now(UTC) + timedelta(hours=1)
    in_turn(
        httpserver,
        SCHEMES,
        answer(status=503, Retry_After=email.utils.format_datetime(moment, usegmt=True)),
    )
    harness = make_client(base(httpserver))

    with stopwatch() as watch, pytest.raises(Unavailable) as caught:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert caught.value.retry_after == pytest.approx(3600, abs=5)


def test_retry_after_as_an_http_date_in_the_past_retries_at_once(httpserver, make_client):
    moment = datetime.now(UTC) - timedelta(minutes=5)
    seen = in_turn(
        httpserver,
        SCHEMES,
        answer(status=503, Retry_After=email.utils.format_datetime(moment, usegmt=True)),
        schemes_ok(),
    )
    harness = make_client(base(httpserver))

    with stopwatch() as watch:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert len(seen) == 2


def test_a_retry_after_of_odd_digits_is_not_a_crash(make_client):
    def script(connection: socket.socket, request: bytes) -> None:
        # "²" is one latin-1 byte, 0xB2, on the wire.
        connection.sendall(head("503 Service Unavailable", 0, Retry_After="\u00b2"))

    with RawServer(script) as server:
        harness = make_client(server.url)
        with stopwatch() as watch, pytest.raises(Unavailable):
            harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK


@pytest.mark.parametrize("operation", ["create_passport", "login"])
def test_a_post_answered_503_is_tried_exactly_once(httpserver, make_client, operation):
    path = PASSPORTS if operation == "create_passport" else LOGIN
    fixture_name = "passport.json" if operation == "create_passport" else "authorization.json"
    seen = in_turn(
        httpserver, path, answer(status=503, Retry_After="0"), answer(fixture(fixture_name))
    )
    harness = make_client(base(httpserver))

    with stopwatch() as watch, pytest.raises(Unavailable) as caught:
        if operation == "create_passport":
            harness.client.create_passport(TOKEN, passport_request())
        else:
            harness.client.login("grower", "pw")

    assert watch.elapsed < SLACK
    assert len(seen) == 1
    assert caught.value.retry_after == 0
    assert harness.last.attempts == 1


def test_total_timeout_caps_retries(httpserver, make_client):
    seen = in_turn(httpserver, SCHEMES, answer(status=503, Retry_After="1"))
    retry = RetryPolicy(attempts=10, backoff=0.01, max_backoff=0.02, max_retry_after=5)
    harness = make_client(base(httpserver), retry=retry, total_timeout=1.5)

    with stopwatch() as watch, pytest.raises(Unavailable) as caught:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < 1.5 + SLACK
    assert len(seen) == 2  # a third try would have started after 2 s
    assert caught.value.retry_after == 1


def test_total_timeout_caps_tries_that_time_out(threaded_server, make_client):
    threaded_server.expect_request(SCHEMES).respond_with_handler(sleeping(1.5, []))
    retry = RetryPolicy(attempts=5, backoff=0.01, max_backoff=0.02)
    harness = make_client(base(threaded_server), read_timeout=0.5, total_timeout=0.7, retry=retry)

    with stopwatch() as watch, pytest.raises(Unavailable):
        harness.client.schemes(TOKEN)

    assert watch.elapsed < 0.7 + 0.15


# --- truncated, stalled and dripped answers -------------------------------------------------------


def test_a_truncated_body_is_unexpected_and_not_retried(make_client):
    def script(connection: socket.socket, request: bytes) -> None:
        connection.sendall(head(content_length=1000) + b'{"items": [' + b" " * 89)

    with RawServer(script) as server:
        harness = make_client(server.url)
        with stopwatch() as watch, pytest.raises((UnexpectedResponse, Unavailable)) as caught:
            harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert type(caught.value) is UnexpectedResponse  # what the client does: no retry
    assert server.connections == 1


def test_a_body_that_stalls_fails_within_the_read_timeout(make_client):
    def script(connection: socket.socket, request: bytes) -> None:
        connection.sendall(head(content_length=1000) + b" " * 100)
        time.sleep(1.5)

    with RawServer(script) as server:
        harness = make_client(server.url, read_timeout=0.2, retry=RetryPolicy(attempts=1))
        with stopwatch() as watch, pytest.raises((UnexpectedResponse, Unavailable)):
            harness.client.schemes(TOKEN)

    assert watch.elapsed < 0.2 + SLACK


def test_a_body_that_stalls_is_unavailable_and_a_get_is_retried(make_client):
    def script(connection: socket.socket, request: bytes) -> None:
        connection.sendall(head(content_length=1000) + b" " * 100)
        time.sleep(1.5)

    with RawServer(script) as server:
        harness = make_client(server.url, read_timeout=0.2)
        with stopwatch() as watch, pytest.raises(Unavailable):
            harness.client.schemes(TOKEN)

    assert watch.elapsed < 3 * 0.2 + SLACK
    assert server.connections == 3


DRIP_BODY = b'{"items": []}'.ljust(20)


def test_a_dripped_body_is_cut_off_at_total_timeout(make_client):
    def script(connection: socket.socket, request: bytes) -> None:
        connection.sendall(head(content_length=len(DRIP_BODY)))
        for byte in DRIP_BODY:  # 2 s in all
            connection.sendall(bytes([byte]))
            time.sleep(0.1)

    with RawServer(script) as server:
        harness = make_client(server.url, read_timeout=0.3, total_timeout=0.8)
        with stopwatch() as watch, pytest.raises(Unavailable):
            harness.client.schemes(TOKEN)

    assert watch.elapsed < 0.8 + SLACK


def test_dripped_headers_are_cut_off_at_total_timeout(make_client):
    def script(connection: socket.socket, request: bytes) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        for n in range(20):  # 2 s in all
            connection.sendall(f"X-Drip-{n}: {n}\r\n".encode())
            time.sleep(0.1)
        connection.sendall(f"Content-Length: {len(DRIP_BODY)}\r\n\r\n".encode() + DRIP_BODY)

    with RawServer(script) as server:
        harness = make_client(server.url, read_timeout=0.3, total_timeout=0.8)
        with stopwatch() as watch, pytest.raises(Unavailable):
            harness.client.schemes(TOKEN)

    assert watch.elapsed < 0.8 + SLACK


# --- bodies that cannot be read -------------------------------------------------------------------


def test_malformed_json_is_unexpected(httpserver, make_client):
    in_turn(httpserver, SCHEMES, answer(b'{"items": [{"SchemeName": "x"'))
    harness = make_client(base(httpserver))

    with stopwatch() as watch, pytest.raises(UnexpectedResponse):
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert harness.last.attempts == 1


def test_malformed_xml_is_unexpected(httpserver, make_client):
    in_turn(httpserver, SCHEMES, answer(b"<Schemes><items><item></items>", content_type="text/xml"))
    harness = make_client(base(httpserver), fmt=Format.XML)

    with stopwatch() as watch, pytest.raises(UnexpectedResponse):
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK


def test_json_labelled_html_is_unexpected(httpserver, make_client):
    in_turn(httpserver, SCHEMES, answer(fixture("schemes.json"), content_type="text/html"))
    harness = make_client(base(httpserver))

    with pytest.raises(UnexpectedResponse) as caught:
        harness.client.schemes(TOKEN)

    assert "text/html" in caught.value.message


def test_a_pdf_asked_for_and_json_given_is_unexpected(httpserver, make_client):
    in_turn(httpserver, f"/v1/passports/{SHORT_CODE}.eb", answer(fixture("passport.json")))
    harness = make_client(base(httpserver))

    with stopwatch() as watch, pytest.raises(UnexpectedResponse):
        harness.client.passport_pdf(TOKEN, SHORT_CODE)

    assert watch.elapsed < SLACK
    assert httpserver.log[0][0].headers["Accept"] == "application/pdf"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE Schemes [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<Schemes><items><item><SchemeName>&lol9;</SchemeName></item></items></Schemes>"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE Schemes [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<Schemes><items><item><SchemeName>&xxe;</SchemeName></item></items></Schemes>"""


def everything_said(error: BaseException) -> str:
    return "\n".join([str(error), repr(error), *traceback.format_exception(error)])


@pytest.mark.parametrize("body", [BILLION_LAUGHS, EXTERNAL_ENTITY], ids=["laughs", "xxe"])
@pytest.mark.parametrize("status", [200, 400])
def test_hostile_xml_is_refused_quickly(httpserver, make_client, body, status):
    in_turn(httpserver, SCHEMES, answer(body, status=status, content_type="text/xml"))
    harness = make_client(base(httpserver), fmt=Format.XML)

    with stopwatch() as watch, pytest.raises(AssuranceError) as caught:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < 0.5
    # A body that cannot be read is unexpected; an error status keeps its own meaning.
    assert type(caught.value) is (UnexpectedResponse if status == 200 else ValidationFailed)
    said = everything_said(caught.value)
    assert "lollol" not in said
    passwd = Path("/etc/passwd")
    if passwd.exists():
        for line in passwd.read_text().splitlines()[:5]:
            assert line not in said
    assert "root:" not in said


def test_a_body_over_the_cap_is_unexpected(httpserver, make_client):
    body = json.dumps({"items": [], "padding": "x" * 5000}).encode()
    in_turn(httpserver, SCHEMES, answer(body))
    harness = make_client(base(httpserver), max_body_bytes=1000)

    with stopwatch() as watch, pytest.raises(UnexpectedResponse) as caught:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert "1000" in caught.value.message
    assert harness.last.attempts == 1


def test_a_gzip_body_that_inflates_past_the_cap_is_unexpected(httpserver, make_client):
    inflated = b'{"items": []}' + b" " * 20_000_000
    compressed = gzip.compress(inflated, compresslevel=9)
    assert len(compressed) < 50_000  # the wire size is under the cap, the inflated size is not
    in_turn(httpserver, SCHEMES, answer(compressed, Content_Encoding="gzip"))
    harness = make_client(base(httpserver), max_body_bytes=50_000)

    with stopwatch() as watch, pytest.raises(UnexpectedResponse):
        harness.client.schemes(TOKEN)

    assert watch.elapsed < 1.0


def test_a_gzip_body_under_the_cap_is_read(httpserver, make_client):
    in_turn(
        httpserver, SCHEMES, answer(gzip.compress(fixture("schemes.json")), Content_Encoding="gzip")
    )
    harness = make_client(base(httpserver), max_body_bytes=50_000)

    assert len(harness.client.schemes(TOKEN).items) == 3


# --- redirects ------------------------------------------------------------------------------------


@pytest.fixture
def other_server() -> Iterator[HTTPServer]:
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    try:
        yield server
    finally:
        server.clear()
        server.stop()


@pytest.mark.parametrize("operation", ["schemes", "create_passport"])
def test_a_redirect_to_another_host_is_not_followed(
    httpserver, other_server, make_client, operation
):
    path = SCHEMES if operation == "schemes" else PASSPORTS
    other_server.expect_request(path).respond_with_response(schemes_ok())
    seen = in_turn(httpserver, path, answer(status=302, Location=other_server.url_for(path)))
    harness = make_client(base(httpserver))

    with stopwatch() as watch, pytest.raises(UnexpectedResponse) as caught:
        if operation == "schemes":
            harness.client.schemes(TOKEN)
        else:
            harness.client.create_passport(TOKEN, passport_request())

    assert watch.elapsed < SLACK
    assert "another host" in caught.value.message
    assert len(seen) == 1
    assert other_server.log == []  # so no Authorization header went there
    assert TOKEN.token not in everything_said(caught.value)


def test_a_redirect_to_the_same_origin_is_followed(httpserver, make_client):
    in_turn(httpserver, SCHEMES, answer(status=302, Location="/moved/standards.eb"))
    moved = in_turn(httpserver, "/moved/standards.eb", schemes_ok())
    harness = make_client(base(httpserver))

    schemes = harness.client.schemes(TOKEN)

    assert len(schemes.items) == 3
    assert moved[0].headers["Authorization"] == f"Bearer {TOKEN.token}"
    assert harness.last.attempts == 1


def test_a_redirect_loop_stops(httpserver, make_client):
    seen = in_turn(httpserver, SCHEMES, answer(status=302, Location=SCHEMES))
    harness = make_client(base(httpserver))

    with stopwatch() as watch, pytest.raises(UnexpectedResponse) as caught:
        harness.client.schemes(TOKEN)

    assert watch.elapsed < SLACK
    assert "too many" in caught.value.message
    assert len(seen) == 4  # the request and three redirects


# --- error bodies ---------------------------------------------------------------------------------


def test_an_unknown_json_shape_with_404_is_not_found(httpserver, make_client):
    in_turn(
        httpserver,
        f"/v1/passports/{SHORT_CODE}.eb",
        answer(b'{"detail": "no such thing", "errors": 3}', status=404),
    )
    harness = make_client(base(httpserver))

    with pytest.raises(NotFound) as caught:
        harness.client.passport(TOKEN, SHORT_CODE)

    assert caught.value.status == 404
    assert caught.value.errors == []
    assert harness.last.attempts == 1


def test_an_html_body_with_503_is_unavailable(httpserver, make_client):
    html = b"<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>"
    seen = in_turn(httpserver, SCHEMES, answer(html, status=503, content_type="text/html"))
    harness = make_client(base(httpserver))

    with pytest.raises(Unavailable) as caught:
        harness.client.schemes(TOKEN)

    assert caught.value.status == 503
    assert len(seen) == 3
    assert "<html>" not in str(caught.value)


def test_a_value_xml_cannot_carry_is_refused_as_the_service_would_and_nothing_is_sent(
    httpserver, make_client
):
    harness = make_client(base(httpserver), fmt=Format.XML)
    request = passport_request()
    request.variety = "Extase\x0b2"

    with pytest.raises(ValidationFailed) as caught:
        harness.client.create_passport(TOKEN, request)

    assert caught.value.field_errors == {
        "Variety": ["Variety holds U+000B, a character XML cannot carry."]
    }
    assert caught.value.operation == "create_passport"
    assert httpserver.log == []


@pytest.mark.parametrize("fmt", [Format.JSON, Format.XML])
@pytest.mark.parametrize("body", ["errors.json", "errors.xml"])
def test_a_400_with_two_data_errors_is_validation_failed(httpserver, make_client, fmt, body):
    """Read whatever format it comes in, whichever was asked for."""
    content_type = "application/json" if body.endswith(".json") else "text/xml"
    seen = in_turn(
        httpserver, PASSPORTS, answer(fixture(body), status=400, content_type=content_type)
    )
    harness = make_client(base(httpserver), fmt=fmt)

    with pytest.raises(ValidationFailed) as caught:
        harness.client.create_passport(TOKEN, passport_request())

    error = caught.value
    assert [e.code for e in error.errors] == [
        "DataError:LoadingDate:FormatRule",
        "DataError:MembershipGUID:RequiredRule",
    ]
    assert error.field_errors == {
        "LoadingDate": ["LoadingDate must be an ISO 8601 date and time."],
        "MembershipGUID": ["MembershipGUID is required."],
    }
    assert error.status == 400
    assert len(seen) == 1


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b'{"Errors": [{"Code": "OperationError:AuthenticationRequired", "Message": "Sign in."}]}',
    ],
    ids=["empty", "coded"],
)
def test_401_is_authentication_required(httpserver, make_client, body):
    seen = in_turn(httpserver, SCHEMES, answer(body, status=401))
    harness = make_client(base(httpserver))

    with pytest.raises(AuthenticationRequired) as caught:
        harness.client.schemes(TOKEN)

    assert caught.value.status == 401
    assert len(seen) == 1


# --- threads, cookies and credentials -------------------------------------------------------------


def test_one_client_in_eight_threads(threaded_server, make_client):
    threaded_server.expect_request(SCHEMES).respond_with_response(schemes_ok())
    harness = make_client(base(threaded_server))
    start = threading.Barrier(8)

    def twenty_calls(_: int) -> int:
        start.wait()
        return sum(len(harness.client.schemes(TOKEN).items) for _ in range(20))

    with ThreadPoolExecutor(8) as pool:
        totals = list(pool.map(twenty_calls, range(8)))

    assert totals == [60] * 8
    assert len(threaded_server.log) == 160
    assert all(report.outcome == "ok" for report in harness.reports)


def test_two_users_in_parallel_keep_their_own_tokens(threaded_server, make_client):
    seen: list[tuple[str, str]] = []
    lock = threading.Lock()
    passport = json.loads(fixture("passport.json"))

    def handler(request: Request) -> Response:
        code = request.path.removeprefix("/v1/passports/").removesuffix(".eb")
        authorization = request.headers.get("Authorization", "")
        with lock:
            seen.append((code, authorization))
        body = passport | {"ShortCode": code, "BusinessName": authorization}
        return answer(json.dumps(body))

    threaded_server.expect_request(re.compile(r"/v1/passports/\w+\.eb")).respond_with_handler(
        handler
    )
    harness = make_client(base(threaded_server))
    start = threading.Barrier(2)

    def calls(user: str) -> list[tuple[str, str | None, str | None]]:
        credentials = BearerToken(f"token-of-{user}")
        start.wait()
        results = []
        for n in range(20):
            passport = harness.client.passport(credentials, f"{user}{n:02d}")
            results.append((credentials.token, passport.short_code, passport.business_name))
        return results

    with ThreadPoolExecutor(2) as pool:
        results = [row for rows in pool.map(calls, ["ALICE", "BOB"]) for row in rows]

    assert len(seen) == 40
    for code, authorization in seen:
        user = code[:-2]
        assert authorization == f"Bearer token-of-{user}"
    for token, short_code, business_name in results:
        assert short_code.startswith(token.removeprefix("token-of-"))
        assert business_name == f"Bearer {token}"


def test_the_shared_session_never_keeps_cookies(httpserver, make_client):
    login = in_turn(
        httpserver,
        LOGIN,
        answer(
            fixture("authorization.json"),
            Set_Cookie="AssuranceSession=s3cr3t-session; Path=/; HttpOnly; SameSite=Lax",
        ),
    )
    later = in_turn(httpserver, SCHEMES, schemes_ok())
    harness = make_client(base(httpserver))

    session = harness.client.login_session("grower", "pw")
    harness.client.schemes(TOKEN)
    harness.client.schemes(session)

    assert session == SessionCookie("AssuranceSession=s3cr3t-session")
    assert "Cookie" not in login[0].headers
    assert "Cookie" not in later[0].headers
    assert later[0].headers["Authorization"] == f"Bearer {TOKEN.token}"
    assert later[1].headers["Cookie"] == "AssuranceSession=s3cr3t-session"
    assert "Authorization" not in later[1].headers
    assert "s3cr3t" not in repr(session)


SECRET_PASSWORD = "hunter2-Pa55word-zz9"


@pytest.mark.parametrize("status", [500, 401, 400])
def test_credentials_are_never_in_exceptions_or_logs(httpserver, make_client, caplog, status):
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="portal.assurance")
    html = b"<html><body>Internal error</body></html>"
    in_turn(httpserver, SCHEMES, answer(html, status=status, content_type="text/html"))
    in_turn(httpserver, LOGIN, answer(html, status=status, content_type="text/html"))
    harness = make_client(base(httpserver), retry=RetryPolicy(attempts=1))
    basic = BasicAuth("grower", SECRET_PASSWORD)
    secrets = [
        TOKEN.token,
        SECRET_PASSWORD,
        base64.b64encode(f"grower:{SECRET_PASSWORD}".encode()).decode(),
    ]

    raised = []
    for call in (
        lambda: harness.client.schemes(TOKEN),
        lambda: harness.client.schemes(basic),
        lambda: harness.client.login("grower", SECRET_PASSWORD),
        lambda: harness.client.login_session("grower", SECRET_PASSWORD),
    ):
        with pytest.raises(AssuranceError) as caught:
            call()
        raised.append(caught.value)

    said = "\n".join(everything_said(error) for error in raised)
    logged = "\n".join(
        f"{record.name} {record.getMessage()} {record.__dict__}" for record in caplog.records
    )
    assert any(record.name == "portal.assurance" for record in caplog.records)
    for secret in secrets:
        assert secret not in said
        assert secret not in logged
    assert SECRET_PASSWORD not in repr(basic)


def test_credentials_are_not_in_a_connection_failure(make_client, caplog):
    caplog.set_level(logging.DEBUG)
    harness = make_client(f"http://127.0.0.1:{free_port()}")

    with pytest.raises(Unavailable) as caught:
        harness.client.schemes(TOKEN)

    assert TOKEN.token not in everything_said(caught.value)
    assert TOKEN.token not in "\n".join(r.getMessage() for r in caplog.records)
