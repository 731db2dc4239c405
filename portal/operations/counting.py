"""What the portal counts by minute for the staff dashboard, in the shared cache: requests
answered and those the portal failed, the standards cache's hits and misses, look-ups refused by
their limit. A count is one increment of its minute's key (one round trip to Redis), kept two
days; the dashboard adds up an hour's or a day's keys, read at once (at most 1,440 a name), so
that neither grows with the requests ever made. A count that cannot be made (the cache out of
reach) is lost and logged: the request goes on.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

REQUESTS = "requests"
REQUESTS_FAILED = "requests-failed"
STANDARDS_HITS = "standards-hits"
STANDARDS_MISSES = "standards-misses"
LOOK_UPS_LIMITED = "look-ups-limited"

KEEP_SECONDS = 2 * 24 * 3600
PREFIX = "counts"


def count(name: str) -> None:
    """One more `name` in this minute."""
    if not settings.PORTAL_METRICS_RECORDING:
        return
    key = _key(name, _minute(time.time()))
    try:
        _increment(key)
    except Exception:
        log.warning("The count %s could not be made", name, exc_info=True)


def total(name: str, since: timedelta) -> int:
    """How many `name` in the minutes since `since` ago, this one included."""
    now = _minute(time.time())
    minutes = range(now - int(since.total_seconds() // 60) + 1, now + 1)
    return sum(cache.get_many([_key(name, minute) for minute in minutes]).values())


def _increment(key: str) -> None:
    try:
        cache.incr(key)
    except ValueError:  # the minute's first count
        if not cache.add(key, 1, KEEP_SECONDS):
            cache.incr(key)  # another process made it just now


def _minute(timestamp: float) -> int:
    return int(timestamp // 60)


def _key(name: str, minute: int) -> str:
    return f"{PREFIX}:{name}:{minute}"
