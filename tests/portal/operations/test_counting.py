"""The dashboard's counts by five minutes (portal/operations/counting.py): each an increment of
its five minutes' key in the shared cache, added up over an hour or a day to within five
minutes, none when recording is off. They count only what no other store holds: the requests,
their failures and the standards' pages."""

from __future__ import annotations

from datetime import timedelta

import redis
import time_machine

from portal.operations import counting
from tests.services import shared_redis_url

HOUR, DAY = timedelta(hours=1), timedelta(days=1)


def test_counts_are_added_up_over_the_time_asked():
    with time_machine.travel("2026-11-25 09:00:10Z", tick=False) as moment:
        counting.count(counting.OTHER_REQUESTS)
        counting.count(counting.OTHER_REQUESTS)
        moment.shift(timedelta(minutes=30))
        counting.count(counting.OTHER_REQUESTS)
        assert counting.total(counting.OTHER_REQUESTS, HOUR) == 3
        moment.shift(timedelta(minutes=31))  # over an hour, but within its five minutes
        assert counting.total(counting.OTHER_REQUESTS, HOUR) == 3
        moment.shift(timedelta(minutes=5))  # the first two are out of the hour now
        assert counting.total(counting.OTHER_REQUESTS, HOUR) == 1
        assert counting.total(counting.OTHER_REQUESTS, DAY) == 3


def test_counts_in_production_s_cache_are_kept_two_days(redis_cache):
    counting.count(counting.STANDARDS_PAGES)
    counting.count(counting.STANDARDS_PAGES)
    assert counting.total(counting.STANDARDS_PAGES, HOUR) == 2
    with redis.Redis.from_url(shared_redis_url()) as server:
        [key] = server.keys(f"{redis_cache}:*")
        assert 0 < server.ttl(key) <= counting.KEEP_SECONDS


def test_each_name_is_counted_apart():
    counting.count(counting.OTHER_REQUESTS)
    counting.count(counting.REQUESTS_FAILED)
    assert counting.total(counting.OTHER_REQUESTS, HOUR) == 1
    assert counting.total(counting.REQUESTS_FAILED, HOUR) == 1
    assert counting.total(counting.STANDARDS_PAGES, HOUR) == 0


def test_nothing_is_counted_with_recording_off(settings):
    settings.PORTAL_METRICS_RECORDING = False
    counting.count(counting.OTHER_REQUESTS)
    assert counting.total(counting.OTHER_REQUESTS, HOUR) == 0


def test_a_cache_out_of_reach_loses_the_count_not_the_request(settings, caplog):
    settings.CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:9/0",
                                   "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5}}}  # fmt: skip
    counting.count(counting.OTHER_REQUESTS)
    assert "could not be made" in caplog.text
