"""The section page through the cache production uses: django-redis on a real Redis, its
values compressed with LZ4."""

from __future__ import annotations

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
from tests.services import shared_redis_url

pytestmark = pytest.mark.django_db


def test_a_section_page_is_kept_in_redis_compressed_and_served_again(redis_cache, grower):
    first = grower.get(STORAGE)
    again = grower.get(STORAGE)
    assert first.status_code == again.status_code == 200
    assert not made_points(again)
    assert shown_references(main(again.content.decode())) == demo_references("crops", "CR.ST")

    server = redis.Redis.from_url(shared_redis_url())
    [kept] = list(server.scan_iter(match=f"{redis_cache}:*:section-content:*"))
    assert server.strlen(kept) < len(first.content) / 3  # compressed
    assert cache.get(kept.decode().split(":", 2)[2]).html in first.content.decode()
