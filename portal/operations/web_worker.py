"""Gunicorn's worker for the portal (deploy/gunicorn.conf.py names it): gunicorn's threaded worker,
except that a request line over the limit (an address too long) is answered with the portal's
own page, with every header its pages carry, rather than gunicorn's plain text; every other
malformed request still gets gunicorn's. And a 413 (a body refused as too large, its rest
unread: the sites' JSON door, portal/lib/bodies.py) ends its connection, `Connection: close`:
gunicorn would otherwise read the rest of the body, however large, to reach the connection's
next request, and it drops a Connection header of the portal's own.

gunicorn offers no setting for either: its answers to bad requests are its own, and only a
worker class (a documented setting, `worker_class`) can change them. nginx in front answers an
address over its own limit itself, but `make run` and a site's software reaching the portal
directly meet gunicorn's. So this is the smallest subclass that does it: two of gunicorn's
methods overridden (`handle_error`, `load_wsgi`) and its response told to close
(`force_close`, through the `start_response` it hands the application). What that leans on,
tests/library_parts/test_gunicorn.py checks on the gunicorn installed."""

from __future__ import annotations

import io
import socket
import sys
from collections.abc import Callable, Iterable

from gunicorn.http.errors import LimitRequestLine
from gunicorn.workers.gthread import ThreadWorker


class PortalWorker(ThreadWorker):
    """Gunicorn's threaded worker, answering an address too long with the portal's own page,
    and closing the connection after a body refused as too large."""

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = closing_after_a_body_refused(self.wsgi)

    def handle_error(
        self, req: object, client: socket.socket, addr: tuple | None, exc: Exception
    ) -> None:
        if not isinstance(exc, LimitRequestLine):
            super().handle_error(req, client, addr, exc)
            return
        address = addr[0] if addr else ""
        self.log.warning("Invalid request from ip=%s: %s", address, exc)
        try:
            page = self._address_too_long(address)
        except Exception:
            self.log.exception("The page for an address too long failed; gunicorn's instead")
            super().handle_error(req, client, addr, exc)
            return
        try:
            client.sendall(page)
        except OSError:
            self.log.debug("The client left before the page for an address too long was sent.")

    def _address_too_long(self, client_address: str) -> bytes:
        """The portal's answer to a GET of its page for an address too long, as bytes on the
        wire. The request's own head was never read, so it asks for it as from a browser
        with no cookie, at a host name the portal serves."""
        answer: dict[str, object] = {}

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: object = None
        ) -> Callable[[bytes], None]:
            answer.update(status=status, headers=headers)
            return lambda data: None

        chunks = self.wsgi(_environ(client_address), start_response)
        try:
            body = b"".join(chunks)
        finally:
            if hasattr(chunks, "close"):
                chunks.close()  # ends the request for Django (its request_finished signal)
        return _response(str(answer["status"]), answer["headers"], body)  # type: ignore[arg-type]


StartResponse = Callable[..., Callable[[bytes], None]]
WSGIApp = Callable[[dict, StartResponse], Iterable[bytes]]
BODY_TOO_LARGE = "413"


def closing_after_a_body_refused(app: WSGIApp) -> WSGIApp:
    """`app`, whose 413 answers end their connection."""

    def served(environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        def starting(status: str, *rest: object) -> Callable[[bytes], None]:
            if status.startswith(BODY_TOO_LARGE):
                _close_after(start_response)
            return start_response(status, *rest)

        return app(environ, starting)

    return served


def _close_after(start_response: StartResponse) -> None:
    """gunicorn's start_response is a method of its response: told to close, the response
    says `Connection: close` and gunicorn ends the connection once it is sent."""
    response = getattr(start_response, "__self__", None)
    if hasattr(response, "force_close"):
        response.force_close()


def _environ(client_address: str) -> dict[str, object]:
    from django.conf import settings
    from django.urls import reverse

    https = settings.PORTAL_HTTPS  # then the request came over HTTPS, to the proxy at least
    host = _host_served(settings.ALLOWED_HOSTS)
    return {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": reverse("address-too-long"),
        "QUERY_STRING": "",
        "SERVER_NAME": host,
        "SERVER_PORT": "443" if https else "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": host,
        "REMOTE_ADDR": client_address,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "https" if https else "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def _host_served(allowed_hosts: list[str]) -> str:
    """A host name that `allowed_hosts` accepts: the first that names one."""
    for pattern in allowed_hosts:
        name = pattern.lstrip(".")  # ".example.org" accepts example.org
        if name and name != "*":
            return name
    return "localhost"


def _response(status: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
    """An HTTP/1.1 response that closes the connection: the rest of the request is unread."""
    lines = [f"HTTP/1.1 {status}"]
    lines += [
        f"{name}: {value}"
        for name, value in headers
        if name.lower() not in ("connection", "content-length")
    ]
    lines += ["Connection: close", f"Content-Length: {len(body)}", "", ""]
    return "\r\n".join(lines).encode("latin-1") + body
