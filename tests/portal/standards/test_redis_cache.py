"""The section page through the cache production uses: django-redis on a real Redis, its
values compressed with LZ4."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import redis
from django.core.cache import cache

from tests.portal.standards.helpers import (
    STORAGE,
    demo_references,
    made_points,
    main,
    shown_references,
)
from tests.services import answers

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not answers(REDIS_URL, 6379), reason="no Redis answers at REDIS_URL"),
]


@pytest.fixture
def redis_cache(settings) -> Iterator[str]:
    """The portal's Redis cache as production has it, under a key prefix of the test's own."""
    prefix = f"test-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"COMPRESSOR": "django_redis.compressors.lz4.Lz4Compressor"},
            "KEY_PREFIX": prefix,
        }
    }
    yield prefix
    keys = list(redis.Redis.from_url(REDIS_URL).scan_iter(match=f"{prefix}:*"))
    if keys:
        redis.Redis.from_url(REDIS_URL).delete(*keys)


def test_a_section_page_is_kept_in_redis_compressed_and_served_again(redis_cache, grower):
    first = grower.get(STORAGE)
    again = grower.get(STORAGE)
    assert first.status_code == again.status_code == 200
    assert not made_points(again)
    assert shown_references(main(again.content.decode())) == demo_references("crops", "CR.ST")

    server = redis.Redis.from_url(REDIS_URL)
    [kept] = list(server.scan_iter(match=f"{redis_cache}:*:section-content:*"))
    assert server.strlen(kept) < len(first.content) / 3  # compressed
    assert cache.get(kept.decode().split(":", 2)[2]).html in first.content.decode()
