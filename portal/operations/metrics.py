"""What the portal counts as it works, for operators' tools (`/metrics`, in Prometheus' text
format): requests by view, calls to the service by operation and outcome, failed sign-ins and
look-ups refused by their limit. Jobs and the queue are read at scrape time instead
(portal/jobs/collectors.py).

Under gunicorn every worker writes its counts to files that a scrape adds up
(portal/operations/processes.py); elsewhere they are kept in the process's memory. Counting is
a few microseconds: nothing here asks the database, the cache or the network.

Every label has few values: a request is labelled by its URL pattern's name (never its path,
which holds short codes), a method by its name if it is a standard one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import CollectorRegistry, Counter, Histogram

from portal.assurance.client import CallReport
from portal.operations import call_bands, counting, processes

# Before any metric is made: in a Celery worker's main process, so that its pool's processes
# inherit it (gunicorn's master has installed it for its workers already).
processes.install()

# The metrics made here, for a process that counts in its own memory. In multiprocess mode they
# are read from the files instead (collectors.registry), never from this registry.
REGISTRY = CollectorRegistry(auto_describe=True)

REQUESTS = Counter(
    "portal_requests",
    "Requests answered, by view (URL pattern name), method and status.",
    ["view", "method", "status"],
    registry=REGISTRY,
)
REQUEST_SECONDS = Histogram(
    "portal_request_duration_seconds",
    "Time taken to answer a request, by view.",
    ["view"],
    buckets=(0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
    registry=REGISTRY,
)
UPSTREAM_CALLS = Counter(
    "portal_upstream_calls",
    "Calls to the Assurance service, by operation and outcome (ok, or the error's kind).",
    ["operation", "outcome"],
    registry=REGISTRY,
)
UPSTREAM_SECONDS = Histogram(
    "portal_upstream_call_duration_seconds",
    "Time a call to the Assurance service took, retries included, by operation.",
    ["operation"],
    buckets=call_bands.BUCKETS_SECONDS,  # the dashboard's bands too
    registry=REGISTRY,
)
SIGN_IN_FAILURES = Counter(
    "portal_sign_in_failures",
    "Sign-ins that failed: wrong_credentials (the service said so), locked_out (the service's "
    "lockout), refused (the portal's own limits, without asking the service).",
    ["reason"],
    registry=REGISTRY,
)
LOOK_UPS_LIMITED = Counter(
    "portal_look_ups_limited",
    "Look-ups by short code refused by the limit per client address, by who asked: visitor "
    "(no account) or signed_in.",
    ["who"],
    registry=REGISTRY,
)

WRONG_CREDENTIALS, LOCKED_OUT, REFUSED = "wrong_credentials", "locked_out", "refused"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED, STATIC = "unmatched", "static"
STANDARDS_NAMESPACE = "standards:"  # the views of the standards' pages
# Not counted for the dashboard's error rate: the probes and scrapes of operators' tools.
NOT_USE = frozenset({STATIC, "operations:health", "operations:ready", "operations:metrics"})


class RequestMetricsMiddleware:
    """Counts each request, and its time, by the view that answered it: the URL pattern's name,
    `static` for a static file, `unmatched` for an address no pattern matched."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.static_prefix = "/" + settings.STATIC_URL.lstrip("/")

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        with counting.noting_service_asked() as noted:
            response = self.get_response(request)
        view = self._view(request)
        method = request.method if request.method in _METHODS else "other"
        REQUESTS.labels(view, method, str(response.status_code)).inc()
        REQUEST_SECONDS.labels(view).observe(time.perf_counter() - started)
        if view not in NOT_USE:
            _count_for_the_dashboard(view, response.status_code, asked=noted.asked)
        return response

    def _view(self, request: HttpRequest) -> str:
        match = request.resolver_match
        if match is not None:
            return match.view_name
        return STATIC if request.path.startswith(self.static_prefix) else UNMATCHED


def _count_for_the_dashboard(view: str, status: int, *, asked: bool) -> None:
    """The request (a standards' page apart, and whether it asked the service for what the
    cache did not hold), and whether the portal failed it: a 5xx other than the 503 it answers
    when the service cannot be reached (the dashboard shows that as the service's)."""
    if view.startswith(STANDARDS_NAMESPACE):
        counting.count(counting.STANDARDS_PAGES)
        if asked:
            counting.count(counting.STANDARDS_PAGES_ASKED)
    else:
        counting.count(counting.OTHER_REQUESTS)
    if status >= 500 and status != 503:
        counting.count(counting.REQUESTS_FAILED)


def upstream_call_reported(sender: object, report: CallReport, **_: object) -> None:
    """portal.assurance.service.call_reported's receiver: the call counted by operation and
    outcome."""
    UPSTREAM_CALLS.labels(report.operation, report.outcome).inc()
    UPSTREAM_SECONDS.labels(report.operation).observe(report.duration)


def sign_in_failed(reason: str) -> None:
    """A sign-in failed for `reason`: WRONG_CREDENTIALS, LOCKED_OUT or REFUSED."""
    SIGN_IN_FAILURES.labels(reason).inc()


def look_up_limited(*, signed_in: bool) -> None:
    """A look-up by short code was refused by the limit of its client address."""
    LOOK_UPS_LIMITED.labels("signed_in" if signed_in else "visitor").inc()
