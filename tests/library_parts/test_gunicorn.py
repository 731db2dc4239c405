"""gunicorn, as portal/operations/web_worker.py's worker uses it. gunicorn has no setting for its
answers to bad requests (plain text, its own headers) nor a way for the application to end a
connection (it drops a `Connection` header of the application's), so the worker, a subclass of
gunicorn's threaded worker (a documented `worker_class`), overrides two of its methods and tells
gunicorn's response to close. It relies on: a request line over `limit_request_line` raising
LimitRequestLine into `handle_error(req, client, addr, exc)`; `load_wsgi` setting `self.wsgi`;
and the `start_response` gunicorn hands the application being a method of its response, whose
`force_close` makes it say `Connection: close`. tests/portal/test_gunicorn.py and
tests/portal/intake/many_at_once/test_door_under_gunicorn.py check the whole under a real
gunicorn; these name the parts."""

from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from gunicorn.http import wsgi
from gunicorn.http.errors import LimitRequestLine
from gunicorn.http.parser import RequestParser
from gunicorn.workers.base import Worker
from gunicorn.workers.gthread import ThreadWorker

from portal.operations.web_worker import PortalWorker

LIMIT = 4094


def config() -> Config:
    cfg = Config()
    cfg.set("limit_request_line", LIMIT)
    return cfg


def parsed(head: bytes):
    return next(RequestParser(config(), iter([head]), ("127.0.0.1", 1234)))


def request_line(address_length: int) -> bytes:
    return b"GET /" + b"x" * address_length + b" HTTP/1.1\r\n"


def test_a_request_line_over_the_limit_raises_limit_request_line():
    fits = LIMIT - len(b"GET / HTTP/1.1")
    assert parsed(request_line(fits) + b"Host: a\r\n\r\n").uri.startswith("/x")
    with pytest.raises(LimitRequestLine):
        parsed(request_line(fits + 1) + b"Host: a\r\n\r\n")


def test_the_threaded_worker_hands_a_line_over_the_limit_to_handle_error():
    assert issubclass(PortalWorker, ThreadWorker)
    seen = []
    worker = SimpleNamespace(handle_error=lambda *args: seen.append(args))
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(request_line(2 * LIMIT))
        connection = SimpleNamespace(
            initialized=True, sock=ours, client=("127.0.0.1", 1234), init=lambda: None,
            is_http2=False, parser=RequestParser(config(), ours, ("127.0.0.1", 1234)),
        )  # fmt: skip
        assert ThreadWorker.handle(worker, connection) is False  # the connection ends
    [(req, client, addr, exc)] = seen
    assert (req, client, addr) == (None, ours, ("127.0.0.1", 1234))
    assert isinstance(exc, LimitRequestLine)


def test_load_wsgi_sets_the_workers_wsgi_application():
    def application(environ, start_response):
        return []

    worker = SimpleNamespace(app=SimpleNamespace(wsgi=lambda: application), cfg=config())
    Worker.load_wsgi(worker)
    assert worker.wsgi is application


def a_response() -> tuple[wsgi.Response, socket.socket]:
    ours, theirs = socket.socketpair()
    req = parsed(b"POST /intake/api/loads HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\n")
    theirs.close()
    return wsgi.Response(req, ours, config()), ours


def test_start_response_is_a_method_of_the_response_whose_force_close_closes():
    response, sock = a_response()
    with sock:
        start_response = response.start_response
        start_response("413 Content Too Large", [("Content-Length", "0")])
        assert not response.should_close()  # HTTP/1.1 with a length: kept alive
        assert start_response.__self__ is response
        start_response.__self__.force_close()
        assert response.should_close()
        assert "Connection: close\r\n" in response.default_headers()


def test_gunicorn_drops_the_applications_own_connection_header():
    """Why the worker tells the response to close: were this to fail, gunicorn would honour the
    application's header, and the worker's `force_close` could go."""
    response, sock = a_response()
    with sock:
        response.start_response("413 Content Too Large", [("Content-Length", "0"),
                                                          ("Connection", "close")])  # fmt: skip
        assert not response.should_close()
