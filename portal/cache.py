"""Django's Redis cache, keeping its redis-py clients rather than making one for every call.

Django's client builds a new `redis.Redis` for each get or set, and each one fills its table of
some hundreds of reply handlers: about a tenth of a millisecond, several times on every signed-in
request (the session, the user, the page). A redis-py client is safe to share; the connection
pool beneath it is Django's own, but for how it writes commands.

hiredis reads replies far faster than Python, but writes a command by copying every byte of it:
0.7 ms for a 700 KiB value, a section's points. redis-py's own writer sends a large value as it
is, so commands are written by that (a few microseconds more for a small one), and replies are
still read by hiredis.
"""

from __future__ import annotations

from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from redis.connection import PythonRespSerializer

# redis-py's own: a value longer than this is sent as a buffer of its own, not copied.
_COPIED_UP_TO = 6000


class _ReusingClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, redis.Redis] = {}

    def get_client(self, key: str | None = None, *, write: bool = False) -> redis.Redis:
        pool = self._get_connection_pool(write)  # kept by Django for as long as this client
        client = self._clients.get(id(pool))
        if client is None:
            writer = PythonRespSerializer(_COPIED_UP_TO, pool.get_encoder().encode)
            pool.connection_kwargs["command_packer"] = writer  # before its first connection
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ReusingClient
