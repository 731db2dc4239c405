"""The portal under a real gunicorn as `make run` and production serve it
(deploy/gunicorn.conf.py, portal/operations/web_worker.py): an address too long gets the portal's
own page, after gunicorn has read no more than a few KiB of it."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator

import pytest
import requests

from scripts import servers

LIMIT = 4094  # bytes of a request line: "GET <address> HTTP/1.1"
TOO_LONG = "/standards/" + "x" * 5000
GUNICORNS_TEXT = "Request Line is too large"
THROUGH_THE_PROXY = {"Host": "portal.example.org", "X-Forwarded-Proto": "https"}


@pytest.fixture(scope="module")
def portal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[servers.Server]:
    server = servers.start_portal(tmp_path_factory.mktemp("portal"), workers=1, threads=2)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def production_portal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[servers.Server]:
    """Behind a proxy that terminates HTTPS, answering one host name only, with a secret key
    of its own."""
    server = servers.start_portal(
        tmp_path_factory.mktemp("production"),
        workers=1,
        threads=2,
        wait=False,
        DEBUG="false",
        SECRET_KEY="a-secret-key-for-this-test-only-" * 2,
        PORTAL_HTTPS="true",
        ALLOWED_HOSTS="portal.example.org",
        PORTAL_TRUSTED_PROXIES="127.0.0.1",
    )
    try:
        _wait_until_healthy(server, **THROUGH_THE_PROXY)
        yield server
    finally:
        server.stop()


def get(server: servers.Server, path: str, **headers: str) -> requests.Response:
    session = requests.Session()
    session.trust_env = False  # loopback: never through a proxy
    return session.get(server.endpoint(path), headers=headers, timeout=10, allow_redirects=False)


def assert_address_too_long_page(response: requests.Response) -> None:
    assert response.status_code == 414
    assert response.headers["Content-Type"].startswith("text/html")
    assert "<h1>That address is too long</h1>" in response.text
    assert 'class="site-header"' in response.text  # the portal's own layout
    assert GUNICORNS_TEXT not in response.text
    assert "'nonce-" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "camera=()" in response.headers["Permissions-Policy"]
    assert response.headers["Connection"] == "close"


def test_an_address_too_long_gets_the_portals_own_page(portal):
    assert_address_too_long_page(get(portal, TOO_LONG))


def test_an_address_within_the_limit_reaches_the_portal(portal):
    path = "/standards/" + "x" * (LIMIT - len("GET  HTTP/1.1") - len("/standards//")) + "/"
    response = get(portal, path)
    assert response.status_code == 302  # to sign in: the portal itself answered
    assert response.headers["Location"].startswith("/accounts/sign-in/")
    assert get(portal, path + "x").status_code == 414


def test_in_production_the_page_is_served_as_over_https(production_portal):
    response = get(production_portal, TOO_LONG, Host="portal.example.org")
    assert_address_too_long_page(response)  # not a redirect to HTTPS, nor a bad host
    assert "max-age=" in response.headers["Strict-Transport-Security"]
    assert get(production_portal, "/healthz", Host="portal.example.org").status_code == 301


def test_the_page_comes_before_the_address_ends(portal):
    """Gunicorn answers once the line passes its limit: however long the address, the worker
    holds a few KiB of it."""
    with socket.create_connection(("127.0.0.1", portal.port), timeout=10) as connection:
        connection.sendall(b"GET /" + b"x" * 64 * 1024)  # and never the end of the line
        answer = _read_all(connection)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 ")
    assert b"That address is too long" in body


def test_the_portal_answers_on_after_addresses_too_long(portal):
    for _ in range(5):
        assert get(portal, TOO_LONG).status_code == 414
    assert get(portal, "/healthz").text == "ok\n"


def _wait_until_healthy(server: servers.Server, **headers: str) -> None:
    deadline = time.monotonic() + servers.START_SECONDS
    while time.monotonic() < deadline:
        assert server.process.poll() is None, server.log.read_text()
        with contextlib.suppress(requests.ConnectionError):
            if get(server, "/healthz", **headers).status_code == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"The portal did not start:\n{server.log.read_text()}")


def _read_all(connection: socket.socket) -> bytes:
    chunks = []
    while chunk := connection.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)
