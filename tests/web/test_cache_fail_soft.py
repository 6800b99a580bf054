"""The default cache fails soft: with Redis down or hung the site serves uncached pages and pauses imports.

Real sockets: a closed port (Redis down) and a server that accepts and never answers (Redis hung).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import override_settings

from models_catalog import services
from tests.models_catalog.outages import HungServer, closed_port
from web import cache as fail_soft

pytestmark = pytest.mark.django_db
SHIPPED = Path(services.__file__).resolve().parent / "data" / "hub"


def _cache_settings(port: int) -> dict:
    return {
        "default": {
            "BACKEND": "web.cache.FailSoftRedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0},
        }
    }


@pytest.fixture(autouse=True)
def _fresh_state():
    yield
    caches["default"].close()


def test_an_outage_of_one_redis_does_not_skip_another():
    with closed_port() as port, override_settings(CACHES=_cache_settings(port)):
        caches["default"].get("k")
        down = dict(fail_soft.DOWN_UNTIL)
    assert f"redis://127.0.0.1:{port}/0" in down
    if settings.REDIS_URL:  # the suite's own Redis keeps answering
        assert settings.REDIS_URL not in down
        caches["default"].set("still-here", 1)
        assert caches["default"].get("still-here") == 1


def test_every_call_answers_not_cached_when_redis_is_down():
    with closed_port() as port, override_settings(CACHES=_cache_settings(port)):
        cache = caches["default"]
        assert cache.get("k", "fallback") == "fallback"
        assert cache.get_many(["a", "b"]) == {}
        cache.set("k", 1)
        assert cache.add("lock", "me") is False  # no lock on a cache nobody can see
        assert cache.delete("k") is False
        assert cache.get_or_set("k", lambda: "computed") == "computed"
        with pytest.raises(ValueError):  # what django-ratelimit and our import limit take for "no count"
            cache.incr("counter")


def test_a_hung_redis_costs_one_timeout_then_is_skipped():
    with HungServer(limit_s=20) as server, override_settings(CACHES=_cache_settings(server.port)):
        cache = caches["default"]
        assert cache.get("k") is None  # waits out the 1 s socket timeout once
        first = server.accepted
        for _ in range(20):
            assert cache.get("k") is None
        assert server.accepted == first == 1  # the next calls within the retry interval never reach the socket


def test_pages_render_uncached_and_imports_pause_when_redis_is_down(client):
    services.model_import_offline(SHIPPED)
    with closed_port() as port, override_settings(CACHES=_cache_settings(port)):
        for path in ("/en/", "/en/models/", "/en/models/Qwen/Qwen3-8B/", "/en/gpus/"):
            response = client.get(path)
            assert response.status_code == 200, path
            assert response["X-Cache"] == "MISS"
        response = client.post("/en/models/import/", {"hub_id": "someorg/some-model"})
        assert response.status_code == 503
        assert "Imports are paused" in response.content.decode()


def test_one_redis_client_per_connection_pool_serves_every_call(require_redis):
    """Django would build a new client per call; ours reuses one per pool, and it keeps working across calls and
    after Redis closed its connections (the pool reconnects)."""
    settings_ = _cache_settings(6379)
    settings_["default"]["LOCATION"] = require_redis
    with override_settings(CACHES=settings_):
        cache = caches["default"]
        client = cache._cache.get_client("k")
        assert cache._cache.get_client("other", write=True) is client
        cache.set("reused", 1)
        client.connection_pool.disconnect()
        assert cache.get("reused") == 1
        assert cache._cache.get_client("k") is client


def test_set_and_delete_is_one_pipeline_that_fails_soft(require_redis):
    settings_ = _cache_settings(6379)
    settings_["default"]["LOCATION"] = require_redis
    with override_settings(CACHES=settings_):
        cache = caches["default"]
        cache.set("lock", 1, 60)
        cache.set_and_delete("page", {"body": b"x"}, 60, "lock")
        assert cache.get("page") == {"body": b"x"} and cache.get("lock") is None
        assert 0 < cache._cache.get_client("page").ttl(cache.make_key("page")) <= 60
    with closed_port() as port, override_settings(CACHES=_cache_settings(port)):
        caches["default"].set_and_delete("page", 1, 60, "lock")  # nothing raised, nothing stored
        assert caches["default"].get("page") is None


def test_get_many_or_add_reads_and_adds_only_where_the_first_key_is_missing(require_redis):
    settings_ = _cache_settings(6379)
    settings_["default"]["LOCATION"] = require_redis
    with override_settings(CACHES=settings_):
        cache = caches["default"]
        cache.delete_many(["page", "generation", "lock"])
        cache.set("generation", "g1", 60)
        assert cache.get_many_or_add(["page", "generation"], "lock", 1, 10) == ({"generation": "g1"}, True)
        assert cache.get("lock") == 1 and 0 < cache._cache.get_client("lock").ttl(cache.make_key("lock")) <= 10
        # the lock is held: a second reader finds the page missing but does not get the lock
        assert cache.get_many_or_add(["page", "generation"], "lock", 1, 10) == ({"generation": "g1"}, False)
        cache.delete("lock")
        cache.set("page", {"body": b"x"}, 60)
        found = cache.get_many_or_add(["page", "generation"], "lock", 1, 10)
        assert found == ({"page": {"body": b"x"}, "generation": "g1"}, False) and cache.get("lock") is None
    with closed_port() as port, override_settings(CACHES=_cache_settings(port)):
        assert caches["default"].get_many_or_add(["page"], "lock", 1, 10) == ({}, False)
