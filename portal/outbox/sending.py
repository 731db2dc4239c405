"""One attempt at a delivery: the endpoint's address resolved and checked, a POST to the address
checked (never resolved again: the TLS server name and the Host header are the endpoint's
host), redirects not followed, the whole within PORTAL_WEBHOOK_TIMEOUT_SECONDS, the first
bytes of the answer kept."""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import urllib3
from django.conf import settings

from portal.lib.printable import NOT_PRINTABLE_BUT_LINE_BREAKS
from portal.outbox import addresses
from portal.outbox.models import ANSWER_KEPT

USER_AGENT = "AssurancePortal-Webhooks/1"
LONGEST_RETRY_AFTER = 24 * 60 * 60  # a Retry-After beyond a day is taken as a day


@dataclass(frozen=True)
class Outcome:
    """What an attempt came to: the status (None when nothing answered), how long it took, the
    first bytes of the answer, what went wrong in words (blank when it worked), and how long
    the endpoint asked us to wait (its Retry-After), if it did."""

    status: int | None
    milliseconds: int
    answer: str = ""
    trouble: str = ""
    retry_after: int | None = None

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300 and not self.trouble


def post(url: str, body: bytes, headers: dict[str, str]) -> Outcome:
    """The body POSTed to `url` with `headers`, once."""
    started = time.monotonic()
    try:
        target = addresses.target(url)
    except addresses.Refused as refused:
        return Outcome(None, _since(started), trouble=str(refused))
    limit = settings.PORTAL_WEBHOOK_TIMEOUT_SECONDS
    with _pool(target, limit) as pool:
        return _exchange(pool, target, body, headers, started, limit)


def _exchange(
    pool: urllib3.HTTPConnectionPool, target: addresses.Target, body: bytes,
    headers: dict[str, str], started: float, limit: float,
) -> Outcome:  # fmt: skip
    try:
        response = pool.urlopen(
            "POST", target.path, body=body, redirect=False, retries=False,
            preload_content=False, assert_same_host=False,
            headers={**headers, "Host": target.host_header, "User-Agent": USER_AGENT,
                     "Content-Type": "application/json"},
        )  # fmt: skip
    except urllib3.exceptions.HTTPError as trouble:
        return Outcome(None, _since(started), trouble=_said(trouble, limit))
    try:
        answer = _first_bytes(response, started, limit)
    except (urllib3.exceptions.HTTPError, OSError) as trouble:
        return Outcome(response.status, _since(started), trouble=_said(trouble, limit))
    finally:
        response.close()
    took = _since(started)
    late = took > limit * 1000
    return Outcome(
        response.status, took, answer=answer,
        trouble=f"No answer within {limit} seconds." if late else _status_trouble(response),
        retry_after=_retry_after(response.headers.get("Retry-After", "")),
    )  # fmt: skip


def _pool(target: addresses.Target, limit: float) -> urllib3.HTTPConnectionPool:
    timeout = urllib3.Timeout(total=limit)
    if target.scheme == "https":
        return urllib3.HTTPSConnectionPool(
            target.address, target.port, timeout=timeout, maxsize=1, retries=False,
            server_hostname=target.host, assert_hostname=target.host, cert_reqs="CERT_REQUIRED",
        )  # fmt: skip
    return urllib3.HTTPConnectionPool(
        target.address, target.port, timeout=timeout, maxsize=1, retries=False
    )


def _first_bytes(response: urllib3.BaseHTTPResponse, started: float, limit: float) -> str:
    """The first ANSWER_KEPT bytes of the answer as text, read while time is left."""
    read = b""
    while len(read) < ANSWER_KEPT and time.monotonic() - started < limit:
        chunk = response.read(ANSWER_KEPT - len(read), decode_content=True)
        if not chunk:
            break
        read += chunk
    text = read[:ANSWER_KEPT].decode("utf-8", errors="replace")
    return NOT_PRINTABLE_BUT_LINE_BREAKS.sub("\ufffd", text)


def _status_trouble(response: urllib3.BaseHTTPResponse) -> str:
    status = response.status
    if 200 <= status < 300:
        return ""
    if 300 <= status < 400:
        return f"Answered {status}, a redirect: redirects are not followed."
    return f"Answered {status}."


def _retry_after(value: str) -> int | None:
    """Seconds to wait, from a Retry-After of seconds or of a date; None if none or unreadable."""
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return min(int(value), LONGEST_RETRY_AFTER)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0, min(int((when - datetime.now(UTC)).total_seconds()), LONGEST_RETRY_AFTER))


def _said(trouble: Exception, limit: float) -> str:
    if isinstance(trouble, urllib3.exceptions.TimeoutError):
        return f"No answer within {limit} seconds."
    if isinstance(trouble, urllib3.exceptions.SSLError):
        return f"The TLS connection failed: {trouble}"[:300]
    if isinstance(trouble, urllib3.exceptions.NewConnectionError):
        return "The connection was refused or could not be made."
    return f"The request failed ({type(trouble).__name__})."[:300]


def _since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
