"""The portal's Redis cache (portal/cache.py), against a real Redis: values go in and come back
out, one redis-py client serves every call, and what one thread writes another reads.

The Redis is that of REDIS_URL, or the local one; only its database 13 is used, and emptied
before and after each test."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest
import redis

from portal.cache import RedisCache
from portal.standards.pages import SectionPage
from tests.services import answers

TEST_DATABASE = 13


def _on_test_database(url: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "db"]
    return urlunsplit(parts._replace(path=f"/{TEST_DATABASE}", query=urlencode(query)))


URL = _on_test_database(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")


if not answers(URL, 6379):
    pytest.skip(f"no Redis answers at {urlsplit(URL).netloc}", allow_module_level=True)


@pytest.fixture
def redis_db() -> Iterator[redis.Redis]:
    """The test database itself, emptied on both sides of the test."""
    raw = redis.Redis.from_url(URL)
    raw.flushdb()
    yield raw
    raw.flushdb()
    raw.close()


def _close(cache: RedisCache) -> None:
    for pool in cache._cache._pools.values():
        pool.disconnect()


@pytest.fixture
def cache(redis_db) -> Iterator[RedisCache]:
    made = RedisCache(URL, {})
    yield made
    _close(made)


def a_page() -> SectionPage:
    return SectionPage(
        version="2025-06-01T00:00:00Z",
        refreshed=datetime(2025, 6, 1, 12, 30, tzinfo=UTC),
        title="Storage",
        scheme_name="Combinable Crops and Sugar Beet",
        header_html=b"<h1>Storage</h1>",
        points_digest="0" * 40,
    )


def test_it_sets_gets_and_deletes(cache):
    cache.set("greeting", "hello", 60)
    assert cache.get("greeting") == "hello"
    assert cache.get("missing") is None
    assert cache.get("missing", "default") == "default"
    assert cache.delete("greeting") is True
    assert cache.get("greeting") is None
    assert cache.delete("greeting") is False


def test_it_keeps_values_in_the_given_database_with_their_time_out(cache, redis_db):
    cache.set("greeting", "hello", 60)
    [key] = redis_db.keys()
    assert key.endswith(b"greeting")
    assert 0 < redis_db.ttl(key) <= 60


def test_add_only_sets_a_missing_key(cache):
    assert cache.add("counter", 1) is True
    assert cache.add("counter", 2) is False
    assert cache.get("counter") == 1


def test_incr_counts(cache):
    cache.set("counter", 1)
    assert cache.incr("counter") == 2
    assert cache.incr("counter", 10) == 12
    assert cache.get("counter") == 12
    with pytest.raises(ValueError):
        cache.incr("no-such-counter")


def test_many_at_once(cache):
    assert cache.set_many({"a": 1, "b": "two", "c": [3]}) == []
    assert cache.get_many(["a", "b", "c", "d"]) == {"a": 1, "b": "two", "c": [3]}


def test_clear_empties_it(cache):
    cache.set_many({"a": 1, "b": 2})
    cache.clear()
    assert cache.get_many(["a", "b"]) == {}


def test_a_large_value_comes_back_whole(cache):
    value = os.urandom(700 * 1024)
    cache.set("points", value)
    assert cache.get("points") == value


def test_keys_and_values_in_any_script_come_back(cache):
    cache.set("grüße-ΑΒΓ-名前", "Feldfrüchte ✓", 60)
    assert cache.get("grüße-ΑΒΓ-名前") == "Feldfrüchte ✓"


def test_a_large_value_with_a_time_out_is_kept_with_it(cache, redis_db):
    value = os.urandom(700 * 1024)
    cache.set("points", value, 60)
    assert cache.get("points") == value
    assert 0 < redis_db.ttl(redis_db.keys()[0]) <= 60


def test_an_object_comes_back_equal(cache):
    cache.set("page", a_page())
    back = cache.get("page")
    assert isinstance(back, SectionPage)
    assert back == a_page()


def test_one_client_serves_every_call(cache):
    cache.set("a", 1)
    cache.get("a")
    read = cache._cache.get_client()
    assert cache._cache.get_client() is read
    written = cache._cache.get_client(write=True)
    assert cache._cache.get_client(write=True) is written


def test_no_client_is_built_per_call(cache):
    built = []
    make = cache._cache._client

    def counting(**kwargs):
        built.append(kwargs)
        return make(**kwargs)

    cache._cache._client = counting
    for n in range(10):
        cache.set(f"key-{n}", n)
        assert cache.get(f"key-{n}") == n
    assert len(built) == 1


def test_what_another_thread_writes_is_read_in_this_one(cache):
    failures: list[BaseException] = []

    def write() -> None:
        theirs = RedisCache(URL, {})
        try:
            theirs.set("from-the-thread", a_page())
            theirs.set_many({"one": 1, "two": 2})
        except BaseException as error:  # reported to the test below
            failures.append(error)
        finally:
            _close(theirs)

    writer = threading.Thread(target=write)
    writer.start()
    writer.join(timeout=30)
    assert not writer.is_alive()
    assert failures == []
    assert cache.get("from-the-thread") == a_page()
    assert cache.get_many(["one", "two"]) == {"one": 1, "two": 2}


def test_threads_can_share_one_cache(cache):
    cache.set("counter", 0)
    failures: list[BaseException] = []

    def count() -> None:
        try:
            for _ in range(50):
                cache.incr("counter")
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=count) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert failures == []
    assert cache.get("counter") == 8 * 50
