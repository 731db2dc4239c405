"""Django's Redis cache, keeping its redis-py clients rather than making one for every call.

Django's client builds a new `redis.Redis` for each get or set, and each one fills its table of
some hundreds of reply handlers: about a tenth of a millisecond, several times on every signed-in
request (the session, the user, the page). A redis-py client is safe to share; the connection
pool beneath it is Django's own, unchanged.
"""

from __future__ import annotations

from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class _ReusingClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, redis.Redis] = {}

    def get_client(self, key: str | None = None, *, write: bool = False) -> redis.Redis:
        pool = self._get_connection_pool(write)  # kept by Django for as long as this client
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ReusingClient
