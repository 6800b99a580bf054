"""The default cache on Redis, failing soft: when Redis is down or hung, the site runs as if nothing were cached.

Every cached value here can be computed again (pages, fragments, price-data summaries, generation tokens), so a
cache that cannot be reached answers "not cached" instead of raising: ``get`` returns the default, writes do
nothing, ``add`` reports the key as taken (no lock is acquired on a cache nobody can see), ``incr`` raises the
``ValueError`` callers already handle for a missing key (the import limit then pauses imports). The failure is logged
once per outage.

Limits count in ``CountingRedisCache`` instead (the ``counters`` cache: the API's rate limit and the admin's sign-in
limit): the same Redis, but while it is away every call goes to a count kept in this process, so a limit keeps
counting per process instead of refusing everyone (django-ratelimit takes a count it cannot read for "limited") or
raising (django-axes calls ``incr`` on a key ``add`` reported as taken). Counting moves to this process and back to
Redis once per outage each way, logged.

After a failure that Redis server is skipped for ``RETRY_AFTER_SECONDS`` in this process, so a hung Redis costs one
socket timeout per process and interval, not one per call (a page makes a handful of cache calls).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient, RedisSerializer
from redis import ConnectionPool, Redis
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5.0
T = TypeVar("T")


# Per Redis location (the servers a cache names): the monotonic time before which this process does not ask it again.
# Shared by every thread's cache instance of that location; another location (another Redis) keeps its own.
DOWN_UNTIL: dict[str, float] = {}
# The locations this process found down and has not yet reached again: each outage is logged once, at its start and
# at its end, however often Redis is tried in between.
IN_OUTAGE: set[str] = set()


class ReusedClientRedisCacheClient(RedisCacheClient):
    """Django's client builds a new ``redis.Redis`` for every call (~70 µs, more than the Redis round trip of a
    small GET); one per connection pool serves every call (a client takes a connection from its pool per command,
    so it is safe to share; Django keeps one cache instance per thread anyway)."""

    # Django's own members (django/core/cache/backends/redis.py), which its stubs leave out
    _client: type[Redis]
    _serializer: RedisSerializer
    _get_connection_pool: Callable[[bool], ConnectionPool]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[object, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = self._client(connection_pool=pool)
        return client


# KEYS: the keys to read, then the key to add; ARGV: its value and seconds. The values read, and 1 when the first
# key was missing and the added key was not there yet (so it is set now), else 0.
_READ_OR_ADD = """
local values = redis.call('MGET', unpack(KEYS, 1, #KEYS - 1))
local added = 0
if not values[1] and redis.call('SET', KEYS[#KEYS], ARGV[1], 'NX', 'EX', ARGV[2]) then added = 1 end
return {values, added}
"""


# KEYS: the key to set, the count of keys set under one bound and, if given, a key to delete; ARGV: the value, its
# seconds, the bound. The count grows by one and lasts the seconds from its first; past the bound nothing is set.
# Returns the count.
_SET_WITHIN_BOUND = """
local count = redis.call('INCR', KEYS[2])
if count == 1 then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
if count <= tonumber(ARGV[3]) then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
if #KEYS > 2 then redis.call('DEL', KEYS[3]) end
return count
"""


class FailSoftRedisCache(RedisCache):
    _cache: ReusedClientRedisCacheClient  # Django's client of this cache (a cached property its stubs leave out)

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
        self._location = server if isinstance(server, str) else repr(server)
        self._scripts: dict[object, Any] = {}

    def _attempt(self, call: Callable[[], T], fallback: T) -> T:
        down_until = DOWN_UNTIL.get(self._location, 0.0)
        if down_until and time.monotonic() < down_until:
            return fallback
        try:
            found = call()
        except RedisError as exc:
            if self._location not in IN_OUTAGE:
                IN_OUTAGE.add(self._location)
                logger.warning("cache unavailable, serving uncached: %s", exc)
            DOWN_UNTIL[self._location] = time.monotonic() + RETRY_AFTER_SECONDS
            return fallback
        if self._location in IN_OUTAGE:  # the first call that Redis answered again ends the outage
            IN_OUTAGE.discard(self._location)
            DOWN_UNTIL.pop(self._location, None)
            logger.warning("cache reachable again")
        return found

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._attempt(lambda: super(FailSoftRedisCache, self).get(key, default, version), default)

    def get_many(self, keys: Iterable[Any], version: int | None = None) -> dict[Any, Any]:
        return self._attempt(lambda: super(FailSoftRedisCache, self).get_many(keys, version), {})

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._attempt(lambda: super(FailSoftRedisCache, self).has_key(key, version), False)

    def set(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> None:
        self._attempt(lambda: super(FailSoftRedisCache, self).set(key, value, timeout, version), None)

    def set_many(self, data: dict[Any, Any], timeout: Any = 300, version: int | None = None) -> list[Any]:
        return self._attempt(lambda: super(FailSoftRedisCache, self).set_many(data, timeout, version), list(data))

    def add(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> bool:
        return self._attempt(lambda: super(FailSoftRedisCache, self).add(key, value, timeout, version), False)

    def touch(self, key: Any, timeout: Any = 300, version: int | None = None) -> bool:
        return self._attempt(lambda: super(FailSoftRedisCache, self).touch(key, timeout, version), False)

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._attempt(lambda: super(FailSoftRedisCache, self).delete(key, version), False)

    def get_many_or_add(self, keys: list[Any], add_key: Any, value: int, timeout: int) -> tuple[dict[Any, Any], bool]:
        """``get_many(keys)`` and, when the first of them is missing, ``add(add_key, value, timeout)``, in one round
        trip (a Lua script, atomic in Redis): the page cache reads a page and takes its render lock where the page
        is missing. ``value``: an integer (stored as Django stores one: its digits). Whether it was added."""

        def both() -> tuple[dict[Any, Any], bool]:
            redis = self._cache
            redis_keys = [self.make_and_validate_key(key) for key in [*keys, add_key]]
            client = redis.get_client(redis_keys[-1], write=True)
            script = self._scripts.get(client)
            if script is None:
                script = self._scripts[client] = client.register_script(_READ_OR_ADD)
            values, added = script(keys=redis_keys, args=[int(value), self.get_backend_timeout(timeout)])
            found = {key: redis._serializer.loads(v) for key, v in zip(keys, values, strict=True) if v is not None}
            return found, bool(added)

        return self._attempt(both, ({}, False))

    def set_within_bound(
        self, key: Any, value: Any, seconds: int, count_key: Any, bound: int, delete_key: Any = None
    ) -> int | None:
        """``set(key, value, seconds)`` unless ``count_key`` has counted ``bound`` sets within ``seconds`` already,
        then ``delete(delete_key)`` if given, in one round trip (a Lua script): the page cache keeps at most so many
        pages per path. The count after this set (above ``bound``: not set); None when Redis did not answer."""

        def counted() -> int:
            redis = self._cache
            named = (key, count_key) if delete_key is None else (key, count_key, delete_key)
            keys = [self.make_and_validate_key(k) for k in named]
            client = redis.get_client(keys[0], write=True)
            script = self._scripts.get((client, _SET_WITHIN_BOUND))
            if script is None:
                script = self._scripts[(client, _SET_WITHIN_BOUND)] = client.register_script(_SET_WITHIN_BOUND)
            args = [redis._serializer.dumps(value), max(1, int(seconds)), int(bound)]
            return int(script(keys=keys, args=args))

        return self._attempt(counted, None)

    def delete_many(self, keys: Iterable[Any], version: int | None = None) -> None:
        self._attempt(lambda: super(FailSoftRedisCache, self).delete_many(keys, version), None)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        missing = object()
        found = self._attempt(lambda: super(FailSoftRedisCache, self).incr(key, delta, version), missing)
        if found is missing:
            raise ValueError(f"Key '{key}' not found: the cache is unavailable")
        assert isinstance(found, int)
        return found


_UNAVAILABLE: Any = object()

# Per Redis location: whether this process counts on its own because that Redis is away (for the log, once per outage).
COUNTING_HERE: set[str] = set()


class CountingRedisCache(FailSoftRedisCache):
    """A cache for counters (rate and sign-in limits): Redis while it answers, a count in this process while it is
    down or hung. Every thread's instance of one location shares that count (a local-memory cache of one name)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._here = LocMemCache(f"counting-while-down:{self._location}", {"TIMEOUT": params.get("TIMEOUT", 300)})

    def _counted(self, call: Callable[[], T], local: Callable[[LocMemCache], T]) -> T:
        found = self._attempt(call, _UNAVAILABLE)
        if found is _UNAVAILABLE:
            if self._location not in COUNTING_HERE:
                COUNTING_HERE.add(self._location)
                logger.warning("cache unavailable, limits count in this process until it is back")
            return local(self._here)
        if self._location in COUNTING_HERE:
            COUNTING_HERE.discard(self._location)
            logger.warning("cache reachable again, limits count in it again")
        return found

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._counted(
            lambda: RedisCache.get(self, key, default, version), lambda here: here.get(key, default, version)
        )

    def add(self, key: Any, value: Any, timeout: Any = 300, version: int | None = None) -> bool:
        return self._counted(
            lambda: RedisCache.add(self, key, value, timeout, version),
            lambda here: here.add(key, value, timeout, version),
        )

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        return self._counted(
            lambda: RedisCache.incr(self, key, delta, version), lambda here: here.incr(key, delta, version)
        )

    def touch(self, key: Any, timeout: Any = 300, version: int | None = None) -> bool:
        return self._counted(
            lambda: RedisCache.touch(self, key, timeout, version), lambda here: here.touch(key, timeout, version)
        )

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._counted(lambda: RedisCache.delete(self, key, version), lambda here: here.delete(key, version))
