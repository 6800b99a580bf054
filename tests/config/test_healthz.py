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
def test_healthz_names_an_unreachable_cache_without_its_address(client, caplog):
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["checks"] == {"database": "ok", "cache": "fail"}
    assert body["failed"] == {"cache": "the cache did not answer"}
    assert "ConnectionError" in caplog.text  # the exception is logged, not served


def test_healthz_names_a_failing_database_without_its_address(client, monkeypatch, caplog):
    from django.db import connection

    def broken_cursor(*args, **kwargs):
        raise OperationalError("connection to server at 127.0.0.1 port 5432 failed")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["database"] == "fail"
    assert body["failed"] == {"database": "the database did not answer"}
    assert "5432" not in response.content.decode()
    assert "connection to server at 127.0.0.1 port 5432 failed" in caplog.text


def test_healthz_refuses_post(client):
    assert client.post("/healthz").status_code == 405


def test_unknown_path_gets_a_helpful_404_page(client):
    response = client.get("/en/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Page not found" in html
    assert 'href="/en/"' in html


@pytest.mark.parametrize("path", ["/en/no-such-page/", "/no-such-page", "/en/gpus/no-such-gpu/"])
def test_under_debug_an_unknown_path_gets_the_sites_404_page_not_the_url_list(client, settings, path):
    """`make run` sets DEBUG=1: Django's technical 404 page would list every URL pattern, the admin's included."""
    settings.DEBUG = True
    response = client.get(path)
    assert response.status_code == 404
    html = response.content.decode()
    assert "<h1>Page not found</h1>" in html and '<header class="site-header">' in html
    assert "URLconf" not in html and settings.ADMIN_PATH not in html and "healthz" not in html


def test_under_debug_an_address_without_its_language_still_redirects(client, settings):
    settings.DEBUG = True
    response = client.get("/methodology/")
    assert response.status_code == 302 and response["Location"] == "/en/methodology/"


def test_pages_send_a_content_security_policy_that_allows_only_this_site(client):
    response = client.get("/en/")
    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy


def test_robots_txt_keeps_crawlers_out_of_admin(client):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert "Disallow: /admin/" in response.content.decode()
