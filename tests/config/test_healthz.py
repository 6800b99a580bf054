from __future__ import annotations

import pytest
from django.db import OperationalError
from django.test import override_settings

pytestmark = pytest.mark.django_db


def test_healthz_reports_database_and_cache_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "cache": "ok"}}
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


@override_settings(
    CACHES={
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            # nothing listens on port 1: a real connection failure, not a simulated one
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.5},
        }
    }
)
def test_healthz_names_an_unreachable_cache(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["checks"] == {"database": "ok", "cache": "fail"}
    assert "ConnectionError" in body["failed"]["cache"]


def test_healthz_names_a_failing_database(client, monkeypatch):
    from django.db import connection

    def broken_cursor(*args, **kwargs):
        raise OperationalError("connection to server at 127.0.0.1 port 5432 failed")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["database"] == "fail"
    assert "OperationalError" in body["failed"]["database"]


def test_healthz_refuses_post(client):
    assert client.post("/healthz").status_code == 405
