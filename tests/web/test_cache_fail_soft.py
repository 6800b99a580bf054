"""The default cache fails soft: with Redis down or hung the site serves uncached pages and pauses imports; the
limits (the API's rate, the admin's sign-in) count in each process meanwhile and in Redis again once it is back.

Real sockets: a closed port (Redis down), a server that accepts and never answers (Redis hung), and a redis-server
of the test's own, killed and started again.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core.cache import caches
from django.test import override_settings
from django.urls import reverse

from config.settings import redis_caches
from models_catalog import services
from tests.models_catalog.outages import HungServer, OwnRedis, closed_port
from tests.support import wait_for
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


# The production caches (config/settings.py) and the limits that count in them, on a Redis at ``url``.
def _production_limits(url: str, rate: str = "100000000/m") -> dict:
    return {
        "CACHES": redis_caches(url),
        "API_RATE_LIMIT": rate,
        "AXES_HANDLER": "axes.handlers.cache.AxesCacheHandler",
        "PASSWORD_HASHERS": [f"{MD5PasswordHasher.__module__}.{MD5PasswordHasher.__name__}"],
    }


@pytest.fixture(autouse=True)
def _fresh_state():
    yield
    for alias in caches:
        caches[alias].close()
    fail_soft.DOWN_UNTIL.clear()
    fail_soft.IN_OUTAGE.clear()
    fail_soft.COUNTING_HERE.clear()


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


def test_set_within_bound_stores_until_its_count_is_reached_and_fails_soft(require_redis):
    settings_ = _cache_settings(6379)
    settings_["default"]["LOCATION"] = require_redis
    with override_settings(CACHES=settings_):
        cache = caches["default"]
        cache.set("lock", 1, 60)
        assert cache.set_within_bound("page-1", {"body": b"x"}, 60, "stored", 2, "lock") == 1
        assert cache.get("page-1") == {"body": b"x"} and cache.get("lock") is None
        assert 0 < cache._cache.get_client("page-1").ttl(cache.make_key("page-1")) <= 60
        assert 0 < cache._cache.get_client("stored").ttl(cache.make_key("stored")) <= 60
        assert cache.set_within_bound("page-2", 2, 60, "stored", 2) == 2
        cache.set("lock", 1, 60)
        assert cache.set_within_bound("page-3", 3, 60, "stored", 2, "lock") == 3  # past the bound: not stored
        assert cache.get("page-2") == 2 and cache.get("page-3") is None and cache.get("lock") is None
    with closed_port() as port, override_settings(CACHES=_cache_settings(port)):
        assert caches["default"].set_within_bound("page", 1, 60, "stored", 2, "lock") is None  # nothing raised
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


ESTIMATE = "/api/v1/estimate?model=Qwen/Qwen3-8B"


def _wrong_password(client, address: str = "203.0.113.7"):
    form = {"username": "admin", "password": "a-wrong-guess", "next": "/admin/"}
    return client.post(reverse("admin:login"), form, REMOTE_ADDR=address)


def test_the_api_answers_while_redis_is_down_instead_of_refusing_everyone(client):
    services.model_import_offline(SHIPPED, only=["Qwen/Qwen3-8B"])
    with closed_port() as port, override_settings(**_production_limits(f"redis://127.0.0.1:{port}/0")):
        statuses = [client.get(ESTIMATE).status_code for _ in range(5)]
    assert statuses == [200] * 5


def test_a_limit_counts_in_the_process_while_redis_is_down(client, caplog, monkeypatch):
    services.model_import_offline(SHIPPED, only=["Qwen/Qwen3-8B"])
    caplog.set_level(logging.WARNING, logger="web.cache")
    monkeypatch.setattr(fail_soft, "RETRY_AFTER_SECONDS", 0.0)  # Redis tried again on every call
    with closed_port() as port, override_settings(**_production_limits(f"redis://127.0.0.1:{port}/0", "3/m")):
        responses = [client.get(ESTIMATE) for _ in range(5)]
    assert [r.status_code for r in responses] == [200, 200, 200, 429, 429]
    assert int(responses[-1]["Retry-After"]) >= 1
    messages = [r.getMessage() for r in caplog.records]
    assert sum("limits count in this process" in m for m in messages) == 1  # once per outage, not per request
    assert sum("cache unavailable, serving uncached" in m for m in messages) == 1
    assert not any("reachable again" in m for m in messages)  # nothing answered: the outage goes on


def test_a_wrong_admin_password_shows_the_form_while_redis_is_down_and_the_lockout_still_holds(
    client, django_user_model
):
    django_user_model.objects.create_superuser("admin", "admin@example.org", "the-right-password")
    with closed_port() as port, override_settings(**_production_limits(f"redis://127.0.0.1:{port}/0")):
        failures = [_wrong_password(client) for _ in range(settings.AXES_FAILURE_LIMIT)]
        refused = client.post(
            reverse("admin:login"),
            {"username": "admin", "password": "the-right-password", "next": "/admin/"},
            REMOTE_ADDR="203.0.113.7",
        )
    assert failures[0].status_code == 200 and 'name="password"' in failures[0].content.decode()
    assert all(r.status_code in (200, 429) for r in failures)
    assert refused.status_code == 429  # counted in this process: the lock-out still holds during the outage
    assert int(refused["Retry-After"]) == int(settings.AXES_COOLOFF_TIME.total_seconds())
    assert "_auth_user_id" not in client.session


def test_limits_count_in_redis_again_once_it_is_back(client, tmp_path, monkeypatch):
    services.model_import_offline(SHIPPED, only=["Qwen/Qwen3-8B"])
    monkeypatch.setattr(fail_soft, "RETRY_AFTER_SECONDS", 0.2)
    with OwnRedis(tmp_path) as redis_server, override_settings(**_production_limits(redis_server.url, "1000/m")):
        counters = caches["counters"]

        def counted_in_redis() -> int:
            raw = counters._cache.get_client("k")
            return sum(int(raw.get(key)) for key in raw.scan_iter("*rl:*"))

        assert client.get(ESTIMATE).status_code == 200
        assert counted_in_redis() == 1
        redis_server.kill()
        assert [client.get(ESTIMATE).status_code for _ in range(3)] == [200] * 3
        redis_server.start()  # empty: the cache keeps nothing over a restart
        assert wait_for(lambda: client.get(ESTIMATE).status_code == 200 and counted_in_redis() >= 1, 10)
        before = counted_in_redis()
        assert client.get(ESTIMATE).status_code == 200
        assert counted_in_redis() == before + 1
        assert not fail_soft.COUNTING_HERE
