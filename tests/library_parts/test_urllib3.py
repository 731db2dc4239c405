"""urllib3 under requests, as portal/assurance/client.py uses them to hold a call to its deadline
while the answer's status line and headers arrive (each read waits at most the read time-out,
but a status line and headers sent a little at a time would not). Neither offers a deadline
over them, nor a hook that sees a connection before its answer is read, so the client makes its
connections of its own subclasses of urllib3's (public) HTTPConnection and HTTPSConnection,
whose `getresponse` arms a timer that cuts the socket. It relies on: a requests adapter's pool
manager making its pools of the classes in its `pool_classes_by_scheme` (urllib3: "configured
... individually on the instance"); a pool making its connections of its `ConnectionCls`; the
status line and headers being read in the connection's `getresponse`, its socket in `sock`; and
a streamed answer keeping its connection, and that socket, while its body is read (the client
sets the socket's time-out before each read, and reads with `read1`). Here with classes of the
test's own, made as the client makes its own; test_client_faults.py
(test_dripped_headers_are_cut_off_at_total_timeout) checks the client's whole."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.response import BaseHTTPResponse

BODY = b"x" * 100_000


class Recording:
    """Which connections read an answer's head, and whether each had its socket then."""

    heads_read: list[tuple[Recording, bool]] = []
    sock: socket.socket | None

    def getresponse(self) -> BaseHTTPResponse:
        Recording.heads_read.append((self, isinstance(self.sock, socket.socket)))
        return super().getresponse()  # type: ignore[misc]


class RecordingHTTPConnection(Recording, HTTPConnection):
    pass


class RecordingHTTPSConnection(Recording, HTTPSConnection):
    pass


class RecordingHTTPPool(HTTPConnectionPool):
    ConnectionCls = RecordingHTTPConnection


class RecordingHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = RecordingHTTPSConnection


def session() -> requests.Session:
    http = requests.Session()
    http.trust_env = False
    adapter = HTTPAdapter(pool_connections=2, pool_maxsize=2, max_retries=0)
    adapter.poolmanager.pool_classes_by_scheme = {"http": RecordingHTTPPool,
                                                  "https": RecordingHTTPSPool}  # fmt: skip
    http.mount("http://", adapter)
    http.mount("https://", adapter)
    return http


def test_an_adapters_pool_manager_makes_its_pools_of_the_classes_it_is_given():
    manager = session().get_adapter("https://service.invalid/").poolmanager
    assert isinstance(manager.connection_from_url("http://service.invalid/"), RecordingHTTPPool)
    assert isinstance(manager.connection_from_url("https://service.invalid/"), RecordingHTTPSPool)


@pytest.fixture
def keep_alive_server() -> Iterator[str]:
    """A server answering one request with BODY, keeping the connection open after it, as
    the service does."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)

    def serve() -> None:
        with listener, listener.accept()[0] as connection:
            request = b""
            while b"\r\n\r\n" not in request and (data := connection.recv(65536)):
                request += data
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BODY))
            connection.sendall(BODY)
            connection.recv(1)  # until the client closes

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/standards"
    thread.join(5)


def test_the_head_is_read_in_getresponse_of_a_connection_of_the_pools_class(keep_alive_server):
    Recording.heads_read.clear()
    with session() as http:
        response = http.get(keep_alive_server, stream=True, timeout=5)
        with response:
            connection = response.raw.connection
            assert isinstance(connection, RecordingHTTPConnection)
            assert Recording.heads_read == [(connection, True)]
            body = b""
            while True:
                connection.sock.settimeout(5)  # as the client does before each read of the body
                if not (chunk := response.raw.read1(64 * 1024, decode_content=True)):
                    break
                body += chunk
    assert body == BODY
