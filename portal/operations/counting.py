"""What the portal counts by five minutes for the staff dashboard, in the shared cache: requests
answered (the standards' pages apart, and those of them that asked the service for what the
cache did not hold: the cache's hit rate) and those the portal failed. No other store holds
these for the whole deployment over an hour or a day: Prometheus' counts of requests are each
instance's since it started, and the audit trail records what people did, not every request
(docs/running/dashboard.md, Where each figure comes from). A request is one increment, two when it
missed the cache or failed (a round trip to Redis each), of its five minutes' key, kept two
days; the dashboard adds up an hour's or a day's keys, read at once (at most 289 a name), so
that neither grows with the requests ever made. A count that cannot be made (the cache out of
reach) is lost and logged: the request goes on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

OTHER_REQUESTS = "requests"  # every request answered but the standards' pages
STANDARDS_PAGES = "standards-pages"
STANDARDS_PAGES_ASKED = "standards-pages-asked"  # that asked the service: not from the cache
REQUESTS_FAILED = "requests-failed"

KEEP_SECONDS = 2 * 24 * 3600
SLOT_SECONDS = 5 * 60
PREFIX = "counts"


def count(name: str) -> None:
    """One more `name` in these five minutes."""
    if not settings.PORTAL_METRICS_RECORDING:
        return
    key = key_of(name, slot_of(time.time()))
    try:
        _increment(key)
    except Exception:
        log.warning("The count %s could not be made", name, exc_info=True)


def total(name: str, since: timedelta) -> int:
    """How many `name` since `since` ago, to within five minutes: the counts of the five
    minutes it began in, and of every five minutes since, this one included."""
    now = time.time()
    slots = range(slot_of(now - since.total_seconds()), slot_of(now) + 1)
    return sum(cache.get_many([key_of(name, slot) for slot in slots]).values())


def requests(since: timedelta) -> int:
    """How many requests were answered since `since` ago (to within five minutes)."""
    return total(OTHER_REQUESTS, since) + total(STANDARDS_PAGES, since)


def _increment(key: str) -> None:
    try:
        cache.incr(key)
    except ValueError:  # the first count of these five minutes
        if not cache.add(key, 1, KEEP_SECONDS):
            cache.incr(key)  # another process made it just now


def slot_of(timestamp: float) -> int:
    """The five minutes a moment (seconds since the epoch) falls in."""
    return int(timestamp // SLOT_SECONDS)


def key_of(name: str, slot: int) -> str:
    """The cache's key of `name`'s count in the five minutes `slot`."""
    return f"{PREFIX}:{name}:{slot}"


# --- whether a request asked the service (the standards' cache hit rate) --------------------


class ServiceAsked:
    """Whether the work under way (a request) asked the service for a record the cache did not
    hold fresh: the staff dashboard's hit rate counts the standards' pages served without."""

    asked = False


_asked: ContextVar[ServiceAsked | None] = ContextVar("service_asked", default=None)


@contextmanager
def noting_service_asked() -> Iterator[ServiceAsked]:
    """Notes, for what runs inside, whether the service was asked (as `.asked`)."""
    token = _asked.set(ServiceAsked())
    try:
        yield _asked.get()
    finally:
        _asked.reset(token)


def note_service_asked() -> None:
    """The service was asked for what the cache did not hold fresh."""
    if (noted := _asked.get()) is not None:
        noted.asked = True
