"""A request's body read whole, up to a limit, however the client sent it: with a Content-Length,
or chunked (Transfer-Encoding: chunked and no length), which Django reads as empty since it
reads no more than the Content-Length says. A chunked body is read from the server's own stream
where the server says that stream ends with the body (gunicorn's `wsgi.input_terminated`);
where it does not (Django's runserver), it is refused, never read as nothing.

Nothing beyond the limit is read: a body declared larger is refused unread, and a chunked one
as soon as it passes the limit. The server ends the connection after such a refusal
(portal/operations/web_worker.py), rather than read the rest to reach the next request.
"""

from __future__ import annotations

from typing import Protocol

from django.http import HttpRequest

READ_AT_ONCE = 64 * 1024


class BodyTooLarge(Exception):
    """The body is larger than the limit (as declared, or as sent)."""


class LengthRequired(Exception):
    """The body was sent chunked to a server that cannot tell where it ends."""


class _Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


def body_of(request: HttpRequest, most: int) -> bytes:
    """The request's body, of at most `most` bytes; BodyTooLarge or LengthRequired if it
    cannot be read so."""
    if _declared_length(request) > most:
        raise BodyTooLarge
    body = _read_at_most(_stream_of(request), most + 1)
    if len(body) > most:
        raise BodyTooLarge
    return body


def _stream_of(request: HttpRequest) -> _Readable:
    if not _chunked(request):
        return request
    if not request.META.get("wsgi.input_terminated"):
        raise LengthRequired
    return request.META["wsgi.input"]


def _chunked(request: HttpRequest) -> bool:
    codings = request.META.get("HTTP_TRANSFER_ENCODING", "")
    return "chunked" in (coding.strip().lower() for coding in codings.split(","))


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _read_at_most(stream: _Readable, size: int) -> bytes:
    """Up to `size` bytes of `stream`: fewer only where it ends first."""
    parts, count = [], 0
    while count < size:
        part = stream.read(min(READ_AT_ONCE, size - count))
        if not part:
            break
        parts.append(part)
        count += len(part)
    return b"".join(parts)
