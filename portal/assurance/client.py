"""The one client of the Assurance service: every operation of the interface, typed.

One `AssuranceClient` serves every user and thread: its configuration is passed in, its
connections are pooled, and credentials travel with each call. Views and jobs call its
methods and get records (or PDF bytes) back, or an exception of `portal.assurance.errors`.
"""

from __future__ import annotations

import base64
import contextlib
import email.utils
import http.cookiejar
import logging
import random
import socket
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import quote, urljoin, urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.response import BaseHTTPResponse

from portal.assurance import codec, records
from portal.assurance.codec import Format
from portal.assurance.errors import (
    AssuranceError,
    Unavailable,
    UnexpectedResponse,
    error_for,
)

log = logging.getLogger("portal.assurance")

PDF = "application/pdf"
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})
MAX_REDIRECTS = 3


# --- credentials ----------------------------------------------------------------------------------


class Credentials(Protocol):
    def apply(self, headers: dict[str, str]) -> None: ...


@dataclass(frozen=True, slots=True)
class BearerToken:
    token: str = field(repr=False)

    def apply(self, headers: dict[str, str]) -> None:
        headers["Authorization"] = f"Bearer {self.token}"


@dataclass(frozen=True, slots=True)
class SessionCookie:
    """The upstream's session cookie(s), as a `Cookie` header (their names are not fixed)."""

    header: str = field(repr=False)

    def apply(self, headers: dict[str, str]) -> None:
        headers["Cookie"] = self.header


@dataclass(frozen=True, slots=True)
class BasicAuth:
    username: str
    password: str = field(repr=False)

    def apply(self, headers: dict[str, str]) -> None:
        pair = f"{self.username}:{self.password}".encode()
        headers["Authorization"] = f"Basic {base64.b64encode(pair).decode('ascii')}"


@dataclass(frozen=True, slots=True)
class _ForwardedFor:
    """Not a credential: the end user's address on a login, for a service that trusts the
    portal as a proxy (and locks out by address)."""

    address: str

    def apply(self, headers: dict[str, str]) -> None:
        headers["X-Forwarded-For"] = self.address


# --- configuration and reports --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries of idempotent calls on connection errors, time-outs, 429, 502, 503 and 504."""

    attempts: int = 3  # tries in all, the first included
    backoff: float = 0.25  # the first wait, in seconds, doubled each time
    max_backoff: float = 2.0  # no wait is longer
    max_retry_after: float = 5.0  # a longer Retry-After is not waited for: the call fails

    def delay(self, attempt: int, retry_after: float | None) -> float | None:
        """How long to wait before try `attempt + 1`, or None to give up."""
        if attempt >= self.attempts:
            return None
        if retry_after is not None:
            return retry_after if retry_after <= self.max_retry_after else None
        ceiling = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)


NO_RETRIES = RetryPolicy(attempts=1)


@dataclass(frozen=True, slots=True)
class CallReport:
    """One call as the dashboard sees it."""

    operation: str
    status: int | None  # the HTTP status of the last answer, if any
    outcome: str  # "ok", or the name of the exception raised
    duration: float  # seconds, retries and waits included
    bytes: int  # of the last answer's body
    attempts: int


class OutageMemory(Protocol):
    """Where the client remembers, for every process, that the service could not be reached:
    while it does, calls fail at once rather than wait on tries known to fail."""

    def is_down(self) -> bool: ...

    def remember(self) -> None: ...


@dataclass(frozen=True, slots=True)
class _Answer:
    status: int
    content_type: str
    body: bytes
    retry_after: str | None = None
    cookies: str = ""  # what Set-Cookie set, as a Cookie header


class _ReadTimedOut(Exception):
    """The body stopped arriving, or the call's deadline passed while it arrived."""


# --- the client -----------------------------------------------------------------------------------


class AssuranceClient:
    def __init__(
        self,
        base_url: str,
        *,
        fmt: Format = Format.JSON,
        connect_timeout: float = 3.05,
        read_timeout: float = 10.0,
        total_timeout: float = 30.0,
        retry: RetryPolicy = RetryPolicy(),
        max_body_bytes: int = 32 * 1024 * 1024,
        pool_size: int = 10,
        on_call: Callable[[CallReport], None] | None = None,
        outage: OutageMemory | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/") + "/"
        self.fmt = fmt
        self.timeout = (connect_timeout, read_timeout)
        self.total_timeout = total_timeout
        self.retry = retry
        self.max_body_bytes = max_body_bytes
        self.on_call = on_call
        self.outage = outage
        self._origin = _origin(self.base_url)
        self._http = requests.Session()
        # Cookies are per user and travel in credentials, never in this shared session.
        self._http.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
        self._http.trust_env = False
        adapter = HTTPAdapter(pool_connections=2, pool_maxsize=pool_size, max_retries=0)
        adapter.poolmanager.pool_classes_by_scheme = _POOLS_WITH_DEADLINES
        self._http.mount("http://", adapter)
        self._http.mount("https://", adapter)

    def close(self) -> None:
        self._http.close()

    # --- 4.1 authentication -----------------------------------------------------------------------

    def login(
        self, username: str, password: str, *, client_address: str | None = None
    ) -> records.Authorization:
        """Signs in for a bearer token (`token`, valid until `expires`).

        `client_address`: the end user's address, as the portal worked it out (never a header
        of theirs passed through), sent as X-Forwarded-For for the service's lockout.
        """
        authorization = self._call(
            "login",
            "POST",
            "v1/authentication/login.eb",
            credentials=_ForwardedFor(client_address) if client_address else None,
            body=records.LoginRequest(type="token", username=username, password=password),
            result=records.Authorization,
        )
        if not authorization.token:
            raise UnexpectedResponse("The sign-in answer has no token.", operation="login")
        return authorization

    def login_session(self, username: str, password: str) -> SessionCookie:
        """Signs in for a session cookie, which lapses after 30 minutes unused."""
        answer = self._exchange(
            "login_session",
            "POST",
            "v1/authentication/login.eb",
            body=records.LoginRequest(type="session", username=username, password=password),
        )
        self._decode(answer, records.Authorization, "login_session")
        if not answer.cookies:
            raise UnexpectedResponse("The sign-in answer set no cookie.", operation="login_session")
        return SessionCookie(answer.cookies)

    # --- 4.2 to 4.6 standards ---------------------------------------------------------------------

    def schemes(self, credentials: Credentials, *, preview: bool = False) -> records.SchemeList:
        path = "v1/standards/preview/.eb" if preview else "v1/standards.eb"
        return self._call(
            "schemes", "GET", path, credentials=credentials, result=records.SchemeList
        )

    def sections(
        self,
        credentials: Credentials,
        scheme_guid: str,
        *,
        preview: bool = False,
        sector: str | None = None,
    ) -> records.SectionList:
        return self._call(
            "sections",
            "GET",
            _standards_path(preview, scheme_guid),
            credentials=credentials,
            params=_sector(sector),
            result=records.SectionList,
        )

    def section_data(
        self,
        credentials: Credentials,
        scheme_guid: str,
        section: str,
        *,
        preview: bool = False,
        sector: str | None = None,
    ) -> records.SectionData:
        """A section by its two-letter prefix or by its GUID."""
        return self._call(
            "section_data",
            "GET",
            _standards_path(preview, scheme_guid, section),
            credentials=credentials,
            params=_sector(sector),
            result=records.SectionData,
        )

    # --- authorisation and passports --------------------------------------------------------------

    def authorisation(self, credentials: Credentials) -> records.Authorisation:
        return self._call(
            "authorisation",
            "GET",
            "v1/authorisation.eb",
            credentials=credentials,
            result=records.Authorisation,
        )

    def create_passport(
        self, credentials: Credentials, request: records.PassportRequest
    ) -> records.CropPassport:
        passport = self._call(
            "create_passport",
            "POST",
            "v1/passports.eb",
            credentials=credentials,
            body=request,
            result=records.CropPassport,
        )
        return _with_short_code(passport, "create_passport")

    def create_passport_pdf(
        self, credentials: Credentials, request: records.PassportRequest
    ) -> bytes:
        return self._call(
            "create_passport_pdf",
            "POST",
            "v1/passports.eb",
            credentials=credentials,
            body=request,
            accept=PDF,
        )

    def passport(self, credentials: Credentials, short_code: str) -> records.CropPassport:
        passport = self._call(
            "passport",
            "GET",
            _passport_path(short_code),
            credentials=credentials,
            result=records.CropPassport,
        )
        return _with_short_code(passport, "passport")

    def passport_pdf(self, credentials: Credentials, short_code: str) -> bytes:
        return self._call(
            "passport_pdf", "GET", _passport_path(short_code), credentials=credentials, accept=PDF
        )

    # --- health ---------------------------------------------------------------------------------

    def answers(self, timeout: float) -> int:
        """The HTTP status of one GET of the schemes' list without credentials (401 from a
        service that answers), within `timeout` seconds: for health checks, which need only know
        that the service answers. No retry, no call report, no outage remembered; raises
        Unavailable when the service does not answer."""
        deadline = time.perf_counter() + timeout
        url = urljoin(self.base_url, "v1/standards.eb")
        headers = {"Accept": self.fmt.media_type}
        limits = (min(self.timeout[0], timeout), timeout)
        with self._request("GET", url, headers, None, None, limits, deadline) as response:
            return response.status_code

    # --- the exchange -----------------------------------------------------------------------------

    def _call(
        self,
        operation: str,
        method: str,
        path: str,
        *,
        credentials: Credentials | None = None,
        params: dict[str, str] | None = None,
        body: Any = None,
        result: type | None = None,
        accept: str | None = None,
    ) -> Any:
        answer = self._exchange(operation, method, path, credentials, params, body, accept)
        if accept == PDF:
            return self._pdf(answer, operation)
        return self._decode(answer, result, operation)

    def _exchange(
        self,
        operation: str,
        method: str,
        path: str,
        credentials: Credentials | None = None,
        params: dict[str, str] | None = None,
        body: Any = None,
        accept: str | None = None,
    ) -> _Answer:
        """Sends the request, with retries where safe, and returns a successful answer."""
        headers = {"Accept": accept or self.fmt.media_type}
        if credentials is not None:
            credentials.apply(headers)
        data = None
        if body is not None:
            headers["Content-Type"] = self.fmt.content_type
            data = self._encoded(body, operation)
        policy = self.retry if method == "GET" else NO_RETRIES
        started = time.perf_counter()
        answer: _Answer | None = None
        attempt = 0
        try:
            if self.outage is not None and self.outage.is_down():
                raise Unavailable("The Assurance service could not be reached a moment ago.")
            while True:
                attempt += 1
                try:
                    answer = self._send(method, urljoin(self.base_url, path), headers, params, data,
                                        started)  # fmt: skip
                except Unavailable as failure:
                    wait = policy.delay(attempt, None)
                    if wait is None or not self._has_time(started, wait):
                        raise failure from None
                    time.sleep(wait)
                    continue
                if answer.status == 200:
                    break
                if answer.status in RETRYABLE_STATUSES:
                    wait = policy.delay(attempt, _retry_after(answer.retry_after))
                    if wait is not None and self._has_time(started, wait):
                        time.sleep(wait)
                        continue
                raise self._error(answer)
        except AssuranceError as error:
            error.operation = operation
            if isinstance(error, Unavailable) and attempt and self.outage is not None:
                self.outage.remember()
            self._report(operation, answer, type(error).__name__, started, attempt)
            raise
        self._report(operation, answer, "ok", started, attempt)
        return answer

    def _has_time(self, started: float, wait: float) -> bool:
        """Whether a wait of `wait` seconds still leaves time for another try."""
        return time.perf_counter() - started + wait < self.total_timeout

    def _send(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        params: dict[str, str] | None,
        data: bytes | None,
        started: float,
    ) -> _Answer:
        deadline = started + self.total_timeout
        for _redirect in range(MAX_REDIRECTS + 1):
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise Unavailable("The Assurance service did not answer in time.")
            timeout = (min(self.timeout[0], remaining), min(self.timeout[1], remaining))
            response = self._request(method, url, headers, params, data, timeout, deadline)
            with response:
                if not response.is_redirect:
                    return _Answer(
                        response.status_code,
                        response.headers.get("Content-Type", ""),
                        self._read(response, deadline),
                        response.headers.get("Retry-After"),
                        "; ".join(f"{c.name}={c.value}" for c in response.cookies),
                    )
                url = urljoin(url, response.headers.get("Location", ""))
                params = None
            if _origin(url) != self._origin:
                # Never follow with our credentials to another host.
                raise UnexpectedResponse("The Assurance service redirected to another host.")
        raise UnexpectedResponse("The Assurance service redirected too many times.")

    def _request(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        params: dict[str, str] | None,
        data: bytes | None,
        timeout: tuple[float, float],
        deadline: float,
    ) -> requests.Response:
        """One request, its status line and headers cut off at `deadline` (the body is still
        to be read); Unavailable when the service cannot be reached or does not answer."""
        failure: AssuranceError | None = None
        armed = _call_deadline.set(deadline)
        try:
            return self._http.request(
                method, url, headers=headers, params=params, data=data,
                timeout=timeout, stream=True, allow_redirects=False,
            )  # fmt: skip
        except requests.RequestException as error:
            late = isinstance(error, requests.Timeout) or time.perf_counter() >= deadline
            failure = Unavailable(
                "The Assurance service did not answer in time."
                if late
                else "The Assurance service cannot be reached."
            )
        finally:
            _call_deadline.reset(armed)
        raise failure  # here, so no exception (nor its request) is chained

    def _read(self, response: requests.Response, deadline: float) -> bytes:
        """The body as it arrives, refusing one over the size cap or past the deadline."""
        chunks, size = [], 0
        failure: AssuranceError | None = None
        try:
            while chunk := self._read_some(response, deadline):
                size += len(chunk)
                if size > self.max_body_bytes:
                    failure = UnexpectedResponse(
                        f"The answer is larger than {self.max_body_bytes} bytes."
                    )
                    break
                chunks.append(chunk)
        except _ReadTimedOut:
            failure = Unavailable("The Assurance service stopped in the middle of its answer.")
        except (urllib3.exceptions.HTTPError, OSError):
            failure = UnexpectedResponse("The answer was cut off before its end.")
        if failure is not None:
            raise failure
        return b"".join(chunks)

    def _read_some(self, response: requests.Response, deadline: float) -> bytes:
        """What has arrived of the body (up to 64 KiB), waiting no later than the deadline."""
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise _ReadTimedOut
        connection = getattr(response.raw, "connection", None)
        sock = getattr(connection, "sock", None)
        if sock is not None:
            sock.settimeout(min(self.timeout[1], remaining))
        try:
            return response.raw.read1(64 * 1024, decode_content=True)
        except (urllib3.exceptions.ReadTimeoutError, TimeoutError):
            raise _ReadTimedOut from None

    def _encoded(self, body: Any, operation: str) -> bytes:
        """`body` in the client's format; a value the format cannot carry (a control character
        in XML) refused as the service would refuse it, and nothing sent."""
        try:
            return codec.encode(body, self.fmt)
        except codec.WireFormatError as refused:
            errors = [records.ErrorItem(code=f"DataError:{e.field}:FormatRule", message=e.message)
                      for e in refused.errors]  # fmt: skip
            error = error_for(400, errors)
            error.operation = operation
            raise error from None

    def _error(self, answer: _Answer) -> AssuranceError:
        """The error an unsuccessful answer stands for (`_exchange` names its operation)."""
        fmt = codec.format_of_media_type(answer.content_type)
        errors: list[records.ErrorItem] = []
        if fmt is not None:
            # An error body of another shape: the status alone says what went wrong.
            with contextlib.suppress(codec.WireFormatError):
                errors = codec.decode(answer.body, records.ErrorBody, fmt).errors
        error = error_for(answer.status, errors)
        if isinstance(error, Unavailable):
            error.retry_after = _retry_after(answer.retry_after)
        return error

    def _decode(self, answer: _Answer, result: type | None, operation: str) -> Any:
        fmt = codec.format_of_media_type(answer.content_type)
        if fmt is None:
            raise UnexpectedResponse(
                f"The answer is {answer.content_type or 'of no type'}, not XML or JSON.",
                operation=operation,
            )
        try:
            return codec.decode(answer.body, result, fmt)
        except codec.WireFormatError as error:
            raise UnexpectedResponse(
                f"The answer could not be read: {error}", operation=operation
            ) from None

    def _pdf(self, answer: _Answer, operation: str) -> bytes:
        if codec.media_type(answer.content_type) != PDF or not answer.body.startswith(b"%PDF-"):
            raise UnexpectedResponse("The answer is not a PDF document.", operation=operation)
        return answer.body

    def _report(
        self, operation: str, answer: _Answer | None, outcome: str, started: float, attempts: int
    ) -> None:
        duration = time.perf_counter() - started
        status = answer.status if answer else None
        log.info("%s %s %s in %.0f ms", operation, status or "-", outcome, duration * 1000)
        if self.on_call is not None:
            size = len(answer.body) if answer else 0
            self.on_call(CallReport(operation, status, outcome, duration, size, attempts))


# --- a call's deadline, over the answer's status line and headers too -----------------------------

# Each socket read waits at most the read time-out, but an answer whose status line and headers
# come a little at a time would keep a call waiting past its deadline. While a call waits for
# them, a timer cuts the connection at the deadline. Neither requests nor urllib3 has a deadline
# over them, nor a hook that sees the connection before they are read: the pools of the client's
# adapter make connections of these subclasses of urllib3's public connection classes (through
# the pool manager's pool_classes_by_scheme, which urllib3 lets each instance set). What that
# leans on, tests/library_parts/test_urllib3.py checks on the versions installed.
_call_deadline: ContextVar[float | None] = ContextVar("assurance_call_deadline", default=None)


class _CutOffAtDeadline:
    sock: socket.socket | None

    def getresponse(self) -> BaseHTTPResponse:
        deadline = _call_deadline.get()
        if deadline is None:
            return super().getresponse()
        timer = threading.Timer(max(0.0, deadline - time.perf_counter()), self._cut_off)
        timer.daemon = True
        timer.start()
        try:
            return super().getresponse()
        finally:
            timer.cancel()

    def _cut_off(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)


class _HTTPConnection(_CutOffAtDeadline, HTTPConnection):
    pass


class _HTTPSConnection(_CutOffAtDeadline, HTTPSConnection):
    pass


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


_POOLS_WITH_DEADLINES = {"http": _HTTPPool, "https": _HTTPSPool}


# --- helpers --------------------------------------------------------------------------------------


def _segment(value: str) -> str:
    return quote(value, safe="")


def _standards_path(preview: bool, scheme_guid: str, section: str | None = None) -> str:
    path = "v1/standards/preview/" if preview else "v1/standards/"
    path += _segment(scheme_guid)
    if section is not None:
        path += "/" + _segment(section)
    return path + ".eb"


def _passport_path(short_code: str) -> str:
    return f"v1/passports/{_segment(short_code)}.eb"


def _sector(sector: str | None) -> dict[str, str] | None:
    return {"SectorPrefixFilter": sector} if sector else None


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    default_port = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, parts.hostname, parts.port or default_port


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - datetime.now(UTC)).total_seconds())


def _with_short_code(passport: records.CropPassport, operation: str) -> records.CropPassport:
    if not passport.short_code:
        raise UnexpectedResponse("The passport in the answer has no short code.",
                                 operation=operation)  # fmt: skip
    return passport
