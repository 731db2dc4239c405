"""The sites' door (`POST /intake/api/loads`) under a real gunicorn, as production serves it
behind nginx and a site's software may reach it: on a raw socket, a body sent chunked (no
Content-Length) is read and its record recorded, not taken as empty; a body over the limit,
declared so or sent chunked past it, is answered 413 in JSON and the connection is closed then,
the rest of the body unread. A server that cannot tell where a chunked body ends (Django's
runserver, its test client) answers 411 rather than read it as empty."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client

from portal.api.middleware import API_BODY_BYTES
from portal.intake.models import Load
from scripts import servers
from tests.portal.api.builders import site_token
from tests.portal.intake.builders import upload_row
from tests.workers import SHARING_THE_TEST_DATABASE, url_of_the_test_database

pytestmark = SHARING_THE_TEST_DATABASE

ADDRESS = "/intake/api/loads"
CLOSED_WITHIN_SECONDS = 5
# The same words and shape as nginx's answer (deploy/nginx/portal.conf.template, tests/deploy).
TOO_LARGE = {
    "error": {
        "code": "body_too_large",
        "fields": {},
        "message": "The body is larger than 1,048,576 bytes: send less at a time.",
    }
}


@pytest.fixture
def portal(tmp_path: Path, upstream_sandbox) -> Iterator[servers.Server]:
    server = servers.start_portal(
        tmp_path, workers=1, threads=2, DATABASE_URL=url_of_the_test_database(),
        ASSURANCE_BASE_URL=upstream_sandbox.url,
    )  # fmt: skip
    yield server
    server.stop()


@pytest.fixture
def token(site) -> str:
    return site_token(site)


def connected(server: servers.Server) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=CLOSED_WITHIN_SECONDS)


def head(token: str, **headers: str) -> bytes:
    lines = [f"POST {ADDRESS} HTTP/1.1", "Host: 127.0.0.1", f"Authorization: Bearer {token}",
             "Content-Type: application/json"]  # fmt: skip
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def chunked(body: bytes, size: int = 1000) -> bytes:
    pieces = [body[at : at + size] for at in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


def answer_on(connection: socket.socket) -> tuple[http.client.HTTPResponse, dict]:
    response = http.client.HTTPResponse(connection)
    response.begin()
    return response, json.loads(response.read())


def closed(connection: socket.socket) -> bool:
    """Whether the server has ended the connection (rather than wait for more of the body)."""
    try:
        return connection.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_a_record_sent_chunked_is_read_and_recorded(portal, token, code, site):
    with connected(portal) as connection:
        body = json.dumps(upload_row(code, "T-1")).encode()
        connection.sendall(head(token, **{"Transfer-Encoding": "chunked"}) + chunked(body, 50))
        response, answer = answer_on(connection)
    assert response.status == 201, answer
    assert answer["status"] == "recorded" and answer["ticket"] == "T-1"
    assert Load.objects.get(site=site).ticket == "T-1"


def test_a_body_declared_over_the_limit_is_413_and_the_connection_closed_unread(portal, token):
    with connected(portal) as connection:
        connection.sendall(head(token, **{"Content-Length": str(API_BODY_BYTES + 1)}))
        response, answer = answer_on(connection)  # not a byte of the body sent
        assert response.status == 413
        assert response.getheader("Content-Type") == "application/json"
        assert answer == TOO_LARGE
        assert response.getheader("Connection") == "close"
        assert closed(connection)


def test_a_body_sent_chunked_past_the_limit_is_413_and_the_connection_closed(portal, token, site):
    too_much = b'[{"ticket": "' + b"x" * API_BODY_BYTES + b'"}]'
    with connected(portal) as connection:
        connection.sendall(head(token, **{"Transfer-Encoding": "chunked"}))
        connection.sendall(chunked(too_much, 64 * 1024)[: API_BODY_BYTES + 4096])
        response, answer = answer_on(connection)  # the rest of the body never sent
        assert response.status == 413
        assert answer == TOO_LARGE
        assert response.getheader("Connection") == "close"
        assert closed(connection)
    assert not Load.objects.exists()


def test_a_body_sent_chunked_where_its_end_cannot_be_told_is_411(token, code, site):
    response = Client().post(
        ADDRESS, json.dumps(upload_row(code, "T-1")), content_type="application/json",
        headers={"Authorization": f"Bearer {token}", "Transfer-Encoding": "chunked"},
    )  # fmt: skip
    assert response.status_code == 411
    assert response.json()["error"]["message"] == "Send the body with a Content-Length."
    assert not Load.objects.exists()
